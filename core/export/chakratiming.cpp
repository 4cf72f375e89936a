// SPDX-License-Identifier: MIT
// Default mode only: durations and edges that make the .et replay to the
// measured time (issue 15). The reference writes int(exclusive_dur) and no
// edge between the forward thread and the autograd thread; a simulator then
// runs the backward pass beside the forward, counts every sync wait twice
// (once in the op's own time, once through its data dependency) and loses up
// to 1 µs per node. --compat chakra never comes here.
#include "chakraconvertimpl.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <tuple>
#include <unordered_map>

namespace syncscope::chakra_detail {

namespace {

bool startsWith(std::string_view s, std::string_view prefix)
{
    return s.substr(0, prefix.size()) == prefix;
}

struct Op {
    double ts, end;
    int32_t order; // conversion order: parent before child at equal ts
    uint32_t index;
};

} // namespace

bool Converter::timedCpu(size_t i) const
{
    const EtPlusNode &p = link.plan.nodes[i];
    return convertedAt[i] >= 0 && kind[i] == Kind::Cpu && p.timed && std::isfinite(p.ts.value) &&
           std::isfinite(p.inclusive.value);
}

// The autograd thread and the thread that runs the forward pass, as HTA pairs
// them for its call stacks (critical_path_spec 2.6), made robust to traces
// where the main thread also has an "autograd" name: the backward thread is
// the one that runs most `autograd::engine::evaluate_function` ops; the
// forward thread is the only other one with a "forward" op, else the thread
// of the ProfilerStep annotations.
bool Converter::forwardBackwardThreads(int64_t &fwd, int64_t &bwd) const
{
    std::map<int64_t, int64_t> evaluate;
    std::map<int64_t, int> forwardNamed, steps;
    for (uint32_t i : conversionOrder) {
        if (!timedCpu(i))
            continue;
        const int64_t tid = host.nodes[link.plan.nodes[i].host].tid;
        const std::string_view nm = name(i);
        evaluate[tid] += startsWith(nm, "autograd::engine::evaluate_function");
        forwardNamed[tid] |= nm.find("forward") != std::string_view::npos;
        steps[tid] |= startsWith(nm, "ProfilerStep#");
    }
    int64_t best = 0;
    for (const auto &[tid, count] : evaluate)
        if (count > best) {
            best = count;
            bwd = tid;
        }
    if (best == 0)
        return false;
    auto only = [&](const std::map<int64_t, int> &flags, int64_t &out) {
        int found = 0;
        for (const auto &[tid, set] : flags)
            if (set && tid != bwd) {
                out = tid;
                ++found;
            }
        return found == 1;
    };
    return only(forwardNamed, fwd) || only(steps, fwd);
}

// The two threads take turns (the forward thread blocks in backward() while the
// autograd thread works), so they form one sequence in time: the first op after
// each hand-over waits for the last op that started on the other thread, and the
// time an op of one thread spends waiting for the other thread's top-level ops
// leaves its own time (otherwise the replay would run it at the op's start AND
// behind the edge).
void Converter::linkForwardBackward(int64_t fwd, int64_t bwd, std::vector<double> &dur, ChakraStats &stats)
{
    const auto &plan = link.plan.nodes;
    std::vector<Op> ops[2]; // [0] forward thread, [1] backward thread
    for (uint32_t i : conversionOrder) {
        if (!timedCpu(i))
            continue;
        const int64_t tid = host.nodes[plan[i].host].tid;
        if (tid != fwd && tid != bwd)
            continue;
        const double ts = plan[i].ts.value;
        ops[tid == bwd].push_back({ts, ts + std::max(0.0, plan[i].inclusive.value), convertedAt[i], i});
    }
    auto byStart = [](const Op &a, const Op &b) { return std::tie(a.ts, a.order) < std::tie(b.ts, b.order); };
    for (auto &list : ops)
        std::sort(list.begin(), list.end(), byStart);

    // Hand-over edges, in merged start order.
    std::vector<std::pair<const Op *, int>> merged;
    for (int side = 0; side < 2; ++side)
        for (const Op &o : ops[side])
            merged.push_back({&o, side});
    std::sort(merged.begin(), merged.end(),
              [&](const auto &a, const auto &b) { return byStart(*a.first, *b.first); });
    for (size_t k = 1; k < merged.size(); ++k) {
        if (merged[k].second == merged[k - 1].second)
            continue;
        const size_t at = merged[k].first->index;
        const size_t before = deps[at].size();
        addDep(at, plan[merged[k - 1].first->index].id, DepKind::InterThread);
        stats.threadHandoffDeps += deps[at].size() != before;
    }

    // A top-level op of one thread (its parent is not a timed op of that thread)
    // leaves the own time of the innermost op of the other thread running then.
    for (int side = 0; side < 2; ++side) {
        const std::vector<Op> &mine = ops[side], &other = ops[1 - side];
        const int64_t tid = side ? bwd : fwd;
        std::vector<const Op *> stack;
        size_t next = 0;
        for (const Op &o : mine) {
            const int32_t pi = parentIndex[o.index];
            if (pi >= 0 && timedCpu(static_cast<size_t>(pi)) &&
                host.nodes[plan[static_cast<size_t>(pi)].host].tid == tid)
                continue;
            // Other-thread ops that started by o.ts, innermost on top.
            for (; next < other.size() && other[next].ts <= o.ts; ++next) {
                while (!stack.empty() && stack.back()->end <= other[next].ts)
                    stack.pop_back();
                stack.push_back(&other[next]);
            }
            while (!stack.empty() && stack.back()->end <= o.ts)
                stack.pop_back();
            if (stack.empty())
                continue;
            const Op &busy = *stack.back();
            double &d = dur[busy.index];
            d = std::max(0.0, d - (std::min(o.end, busy.end) - o.ts));
        }
    }
}

// The host thread group (the autograd thread counted as the forward thread) of each
// Kineto thread (pid, tid) that runs a timed op: where a blocking call's wait belongs.
std::map<std::pair<int64_t, int64_t>, int64_t> Converter::kinetoThreadGroups(int64_t fwd, int64_t bwd) const
{
    std::map<std::pair<int64_t, int64_t>, int64_t> groupOf;
    for (uint32_t i : conversionOrder) {
        if (!timedCpu(i))
            continue;
        const int32_t ev = link.hostEvent[link.plan.nodes[i].host];
        if (ev < 0)
            continue;
        const KinetoEvent &e = device.events[static_cast<size_t>(ev)];
        const int64_t tid = host.nodes[link.plan.nodes[i].host].tid;
        groupOf.try_emplace({e.pid, e.tid}, bwd >= 0 && tid == bwd ? fwd : tid);
    }
    return groupOf;
}

// Idle time between top-level ops (no timed parent: under ProfilerStep, a
// thread root) has no node, so a replay would close it up. Each such op takes
// the idle time before it, back to the latest end of its thread (the forward
// and autograd threads count as one), into its own time; not across the start
// of a ProfilerStep, so the idle time between steps stays out of the steps.
void Converter::carryGaps(int64_t fwd, int64_t bwd, std::vector<double> &dur) const
{
    const auto &plan = link.plan.nodes;
    struct Item {
        int64_t group;
        double ts;
        int32_t order;
        uint32_t index;
    };
    std::vector<Item> items;
    for (uint32_t i : conversionOrder)
        if (timedCpu(i)) {
            const int64_t tid = host.nodes[plan[i].host].tid;
            items.push_back({tid == bwd ? fwd : tid, plan[i].ts.value, convertedAt[i], i});
        }
    std::sort(items.begin(), items.end(), [](const Item &x, const Item &y) {
        return std::tie(x.group, x.ts, x.order) < std::tie(y.group, y.ts, y.order);
    });
    // The measured ProfilerStep#N annotations: the idle time at the start and at
    // the end of a step belongs to it (to its first and its last top-level op).
    std::map<std::string_view, std::pair<double, double>> stepSpan;
    for (const KinetoEvent &e : device.events)
        if (e.kind == EventKind::UserAnnotation && startsWith(device.str(e.name), "ProfilerStep#"))
            stepSpan.try_emplace(device.str(e.name), e.ts, e.end());
    auto spanOf = [&](int32_t step) -> const std::pair<double, double> * {
        if (step < 0)
            return nullptr;
        auto it = stepSpan.find(name(static_cast<size_t>(step)));
        return it == stepSpan.end() ? nullptr : &it->second;
    };
    // Blocking calls outside every op (torch.cuda.Event.synchronize(), a bare
    // cudaDeviceSynchronize): the CPU idles in them until the GPU work ends, and the
    // linker already makes the first op after the call depend on that work. Their time
    // is that dependency's, not idle time for the next op to carry (issue 38: a 23.5 ms
    // cudaEventSynchronize carried into a 30 µs aten::item made it wait twice).
    std::map<int64_t, std::vector<std::pair<double, double>>> waitSpans; // group -> call spans
    {
        const auto groupOf = kinetoThreadGroups(fwd, bwd);
        for (const EventDep &w : link.blockingWaits) {
            const KinetoEvent &c = device.events[w.to];
            const auto g = groupOf.find({c.pid, c.tid});
            if (g != groupOf.end() && c.dur > 0)
                waitSpans[g->second].emplace_back(c.ts, c.ts + c.dur);
        }
        for (auto &[group, spans] : waitSpans) {
            std::sort(spans.begin(), spans.end());
            spans.erase(std::unique(spans.begin(), spans.end()), spans.end());
        }
    }
    // The part of (from, to) that no such call covers (a thread's calls do not overlap).
    auto idleBetween = [&](int64_t group, double from, double to) {
        double idle = to - from;
        const auto g = waitSpans.find(group);
        if (g == waitSpans.end() || !(idle > 0))
            return idle;
        const auto &spans = g->second;
        auto it = std::upper_bound(spans.begin(), spans.end(), std::make_pair(from, double(INFINITY)));
        if (it != spans.begin())
            --it; // the call that began last before `from` may reach into it
        for (; it != spans.end() && it->first < to; ++it)
            idle -= std::max(0.0, std::min(it->second, to) - std::max(it->first, from));
        return std::max(0.0, idle);
    };
    double lastEnd = -INFINITY;
    int32_t lastStep = -1;
    int64_t lastTop = -1; // item of the last top-level op
    // GPU work ends: idle at the end of a step is carried only when the CPU was
    // the last busy (a node's time runs before the GPU work it launches, so idle
    // after the GPU's last work has no node to go to).
    std::vector<double> gpuEnds;
    for (uint32_t i : conversionOrder)
        if (kind[i] == Kind::Gpu && plan[i].timed)
            gpuEnds.push_back(plan[i].ts.value + std::max(0.0, plan[i].inclusive.value));
    std::sort(gpuEnds.begin(), gpuEnds.end());
    auto closeStep = [&] {
        const auto *span = spanOf(lastStep);
        if (!span || lastTop < 0 || !(span->second > lastEnd) || !hasDur[items[static_cast<size_t>(lastTop)].index])
            return;
        const auto gpuAfter = std::upper_bound(gpuEnds.begin(), gpuEnds.end(), lastEnd);
        if (gpuAfter == gpuEnds.end() || *gpuAfter > span->second) // no GPU work ends in the step's idle tail
            dur[items[static_cast<size_t>(lastTop)].index] +=
                idleBetween(items[static_cast<size_t>(lastTop)].group, lastEnd, span->second);
    };
    for (size_t k = 0; k < items.size(); ++k) {
        if (k > 0 && items[k].group != items[k - 1].group) {
            closeStep();
            lastEnd = -INFINITY;
            lastStep = -1;
            lastTop = -1;
        }
        const uint32_t i = items[k].index;
        const int32_t pi = parentIndex[i];
        const bool topLevel = pi < 0 || !timedCpu(static_cast<size_t>(pi));
        if (topLevel) {
            const bool newStep = pi >= 0 && startsWith(name(static_cast<size_t>(pi)), "ProfilerStep#") && pi != lastStep;
            double from = lastEnd;
            if (newStep) {
                closeStep();
                lastStep = pi;
                const auto *span = spanOf(pi);
                from = span ? span->first : INFINITY;
            }
            const double gap = std::isfinite(from) ? idleBetween(items[k].group, from, items[k].ts) : NAN;
            if (std::isfinite(gap) && gap > 0 && hasDur[i])
                dur[i] += gap;
            lastTop = static_cast<int64_t>(k);
        }
        lastEnd = std::max(lastEnd, items[k].ts + std::max(0.0, plan[i].inclusive.value));
    }
    closeStep();
}

// Whole µs per node, rounded with the remainder carried to the next node of the
// same CPU thread or GPU stream, so a thread's total stays within 0.5 µs of the
// measured one (truncation loses ~0.5 µs per node).
void Converter::roundWithCarry(const std::vector<double> &dur, std::vector<ChakraNode> &nodes) const
{
    const auto &plan = link.plan.nodes;
    struct Item {
        int64_t a, b; // CPU: (0, tid); GPU: (1 + device, stream)
        double ts;
        int32_t order;
        uint32_t index;
    };
    std::vector<Item> items;
    for (uint32_t i : conversionOrder) {
        if (!hasDur[i])
            continue;
        Item it{0, host.nodes[plan[i].host].tid, plan[i].ts.value, convertedAt[i], i};
        if (kind[i] == Kind::Gpu && plan[i].gpuEvent >= 0) {
            const KinetoEvent &k = device.events[static_cast<size_t>(plan[i].gpuEvent)];
            it.a = 1 + (k.has(KinetoEvent::HasDevice) ? k.device : k.pid);
            it.b = k.stream;
        }
        items.push_back(it);
    }
    std::sort(items.begin(), items.end(), [](const Item &x, const Item &y) {
        return std::tie(x.a, x.b, x.ts, x.order) < std::tie(y.a, y.b, y.ts, y.order);
    });
    double carry = 0;
    for (size_t k = 0; k < items.size(); ++k) {
        if (k == 0 || items[k].a != items[k - 1].a || items[k].b != items[k - 1].b)
            carry = 0;
        const double target = dur[items[k].index] + carry;
        const double whole = std::max(0.0, std::round(target));
        carry = target - whole;
        nodes[items[k].index].durationMicros = static_cast<uint64_t>(whole);
    }
}

// A blocking call (a stream/event/device synchronize, a copy that waits) runs inside
// an op whose own time then holds the wait. When the GPU work waited for was launched
// inside that same op (a CUDA-graph replay and its sync under one `decode_step`), the
// replay runs the op's whole own time before its children launch that work: the wait
// counts twice, and the step runs long by its GPU time. There the wait becomes a
// dependency only: the first op after the call on its thread (the forward and autograd
// threads counting as one) depends on the GPU work, and the wait leaves the op's own
// time. Waits on work launched before the op started stay in its own time, where they
// replay as measured.
void Converter::moveBlockingWaits(int64_t fwd, int64_t bwd, std::vector<double> &dur, ChakraStats &stats)
{
    const auto &plan = link.plan.nodes;
    const auto &events = device.events;
    struct Wait {
        double wait = 0;
        std::vector<uint32_t> gpu; // events waited for
        int32_t op = -1;           // plan index of the innermost op around the call
    };
    std::unordered_map<uint32_t, Wait> waitOf; // call event -> its wait
    for (const EventDep &w : link.blockingWaits) {
        const KinetoEvent &gpu = events[w.from], &call = events[w.to];
        Wait &x = waitOf[w.to];
        x.wait = std::max(x.wait, std::clamp(gpu.end() - call.ts, 0.0, std::max(0.0, call.dur)));
        x.gpu.push_back(w.from);
    }
    if (waitOf.empty())
        return;
    std::unordered_map<uint32_t, uint32_t> planOfGpu;
    for (uint32_t i : conversionOrder)
        if (kind[i] == Kind::Gpu && plan[i].gpuEvent >= 0)
            planOfGpu.emplace(static_cast<uint32_t>(plan[i].gpuEvent), i);
    struct Item {
        int64_t pid, tid; // Kineto thread
        int64_t group;    // host thread, the autograd thread counted as the forward thread
        double ts, end;
        int kind;         // 0 op, 1 call
        uint32_t index;   // plan index (op) or event index (call)
        int32_t order;
    };
    std::vector<Item> items;
    const auto groupOf = kinetoThreadGroups(fwd, bwd);
    for (uint32_t i : conversionOrder) {
        if (!timedCpu(i))
            continue;
        const int32_t ev = link.hostEvent[plan[i].host];
        if (ev < 0)
            continue;
        const KinetoEvent &e = events[static_cast<size_t>(ev)];
        const int64_t tid = host.nodes[plan[i].host].tid;
        const int64_t group = bwd >= 0 && tid == bwd ? fwd : tid;
        items.push_back({e.pid, e.tid, group, e.ts, e.end(), 0, i, convertedAt[i]});
    }
    // The ops of each group in start order, to find the first one after a call.
    std::vector<Item> byGroup = items;
    std::sort(byGroup.begin(), byGroup.end(), [](const Item &a, const Item &b) {
        return std::tie(a.group, a.ts, a.order) < std::tie(b.group, b.ts, b.order);
    });
    // The innermost op around each call (a sweep per Kineto thread).
    for (const auto &[call, w] : waitOf) {
        const KinetoEvent &c = events[call];
        items.push_back({c.pid, c.tid, 0, c.ts, c.end(), 1, call, 0});
    }
    std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
        return std::tie(a.pid, a.tid, a.ts, a.kind, a.order) < std::tie(b.pid, b.tid, b.ts, b.kind, b.order);
    });
    std::vector<const Item *> open;
    for (size_t k = 0; k < items.size(); ++k) {
        if (k == 0 || items[k].pid != items[k - 1].pid || items[k].tid != items[k - 1].tid)
            open.clear();
        const Item &it = items[k];
        while (!open.empty() && open.back()->end <= it.ts)
            open.pop_back();
        if (it.kind == 0) {
            open.push_back(&it);
            continue;
        }
        for (auto o = open.rbegin(); o != open.rend(); ++o)
            if ((*o)->end >= it.end) {
                waitOf.at(it.index).op = static_cast<int32_t>((*o)->index);
                break;
            }
    }
    // GPU work by the thread that launched it, in launch order.
    struct Launch {
        int64_t pid, tid;
        double ts, gpuTs, gpuEnd;
    };
    std::vector<Launch> launches;
    for (uint32_t k = 0; k < events.size() && k < link.gpuLauncher.size(); ++k)
        if (link.gpuLauncher[k] >= 0 && isGpuActivity(events[k].kind)) {
            const KinetoEvent &l = events[static_cast<size_t>(link.gpuLauncher[k])];
            launches.push_back({l.pid, l.tid, l.ts, events[k].ts, events[k].end()});
        }
    std::sort(launches.begin(), launches.end(),
              [](const Launch &a, const Launch &b) { return std::tie(a.pid, a.tid, a.ts) < std::tie(b.pid, b.tid, b.ts); });
    std::map<std::string_view, double> stepStart; // ProfilerStep#N annotation starts
    for (const KinetoEvent &e : events)
        if (e.kind == EventKind::UserAnnotation && startsWith(device.str(e.name), "ProfilerStep#"))
            stepStart.try_emplace(device.str(e.name), e.ts);
    for (const auto &[call, w] : waitOf) {
        if (w.op < 0 || !(w.wait > 0) || !hasDur[static_cast<size_t>(w.op)])
            continue;
        const double opStart = plan[static_cast<size_t>(w.op)].ts.value;
        const KinetoEvent &c = events[call];
        // The part of the wait spent on GPU work the op launched itself, before the
        // call: that work's nodes follow the op in a replay, so it is the part counted
        // twice. (A wait on work queued earlier stays: it replays as measured.)
        std::vector<std::pair<double, double>> spans;
        const auto from = std::lower_bound(launches.begin(), launches.end(), std::make_tuple(c.pid, c.tid, opStart),
                                           [](const Launch &l, const std::tuple<int64_t, int64_t, double> &key) {
                                               return std::tie(l.pid, l.tid, l.ts) < key;
                                           });
        for (auto l = from; l != launches.end() && l->pid == c.pid && l->tid == c.tid && l->ts <= c.ts; ++l) {
            const double a = std::max(l->gpuTs, c.ts), b = std::min(l->gpuEnd, c.end());
            if (b > a)
                spans.emplace_back(a, b);
        }
        std::sort(spans.begin(), spans.end());
        double inside = 0, reach = -INFINITY;
        for (const auto &[a, b] : spans) { // the union: streams overlap
            if (b > reach)
                inside += b - std::max(a, reach);
            reach = std::max(reach, b);
        }
        inside = std::min(inside, w.wait);
        if (!(inside > 0))
            continue;
        const auto g = groupOf.find({c.pid, c.tid});
        if (g == groupOf.end())
            continue;
        const auto next = std::lower_bound(byGroup.begin(), byGroup.end(), std::make_pair(g->second, c.end()),
                                           [](const Item &a, const std::pair<int64_t, double> &key) {
                                               return std::tie(a.group, a.ts) < std::tie(key.first, key.second);
                                           });
        const bool last = next == byGroup.end() || next->group != g->second;
        if (last) { // nothing after it on the thread: the GPU nodes end the window themselves
            double &d = dur[static_cast<size_t>(w.op)];
            d = std::max(0.0, d - inside);
            ++stats.blockingWaitsMoved;
            continue;
        }
        // When that op opens a ProfilerStep that began after the call, the step node
        // (untimed, before its ops in the chain) waits too: else the step starts early.
        int32_t step = parentIndex[next->index];
        for (int depth = 0; step >= 0 && !startsWith(name(static_cast<size_t>(step)), "ProfilerStep#"); ++depth)
            step = depth < 256 && parentIndex[static_cast<size_t>(step)] != step ? parentIndex[static_cast<size_t>(step)]
                                                                               : -1; // bounded: ids may loop
        if (step >= 0) {
            const auto span = stepStart.find(name(static_cast<size_t>(step)));
            if (span == stepStart.end() || span->second < c.end() || convertedAt[static_cast<size_t>(step)] < 0)
                step = -1;
        }
        bool any = false;
        for (uint32_t gpu : w.gpu)
            if (auto p = planOfGpu.find(gpu); p != planOfGpu.end()) {
                addDep(next->index, plan[p->second].id, DepKind::Sync);
                if (step >= 0)
                    addDep(static_cast<size_t>(step), plan[p->second].id, DepKind::Sync);
                any = true;
            }
        if (!any)
            continue;
        double &d = dur[static_cast<size_t>(w.op)];
        d = std::max(0.0, d - inside);
        ++stats.blockingWaitsMoved;
    }
}

void Converter::fitTiming(std::vector<ChakraNode> &nodes, ChakraStats &stats)
{
    std::vector<double> dur = exactDur;
    int64_t fwd = -1, bwd = -1;
    if (!forwardBackwardThreads(fwd, bwd))
        fwd = bwd = -1;
    moveBlockingWaits(fwd, bwd, dur, stats);
    if (fwd >= 0)
        linkForwardBackward(fwd, bwd, dur, stats);
    carryGaps(fwd, bwd, dur);
    roundWithCarry(dur, nodes);
}

} // namespace syncscope::chakra_detail
