// SPDX-License-Identifier: MIT
#include "chakrareplay.h"

#include "chakrapatch.h"
#include "chakrareader.h"
#include "model/kinetotrace.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <queue>
#include <tuple>
#include <unordered_map>

namespace syncscope {

namespace {

struct Node {
    uint64_t id = 0;
    double dur = 0;
    double measuredStart = -1; // start_time_micros when set
    int64_t resource = 0;      // CPU thread (tid attr) or GPU stream, see resourceOf
    std::vector<uint64_t> deps;
    uint64_t parent = 0;
    bool hasParent = false;
    std::string stepName;      // "ProfilerStep#N" for step nodes
    bool startDelay = false;   // a job export's rank start delay (chakrapatch.h): not the rank's work
};

int64_t resourceOf(const ChakraProtoMsg::Node &n)
{
    bool cpu = true;
    int64_t tid = 0, stream = 0;
    for (const auto &a : n.attr()) {
        if (a.name() == "is_cpu_op" && a.value_case() == ChakraProtoMsg::AttributeProto::kBoolVal)
            cpu = a.bool_val();
        else if (a.name() == "tid" && a.value_case() == ChakraProtoMsg::AttributeProto::kInt64Val)
            tid = a.int64_val();
        else if (a.name() == "stream" && a.value_case() == ChakraProtoMsg::AttributeProto::kInt64Val)
            stream = a.int64_val();
    }
    // CPU threads and GPU streams in disjoint key spaces.
    return cpu ? tid * 2 : stream * 2 + 1;
}

bool isStepName(const std::string &name)
{
    return name.rfind("ProfilerStep#", 0) == 0;
}

} // namespace

ReplayResult replayChakraEt(const std::string &path, const std::map<std::string, double> &measuredUs)
{
    std::vector<Node> nodes;
    ReplayResult r;
    std::unordered_map<uint64_t, uint32_t> index; // id -> position in `nodes` (the first node with the id)
    {
        ChakraEtReader reader(path);
        ChakraProtoMsg::Node msg;
        while (reader.next(msg)) {
            // A repeated id: the first node keeps it, later ones are dropped (a simulator
            // indexes nodes by id; scheduling both would run one node twice).
            if (!index.emplace(msg.id(), static_cast<uint32_t>(nodes.size())).second) {
                ++r.duplicateIds;
                continue;
            }
            Node n;
            n.id = msg.id();
            n.dur = static_cast<double>(msg.duration_micros());
            if (msg.start_time_micros() != 0)
                n.measuredStart = static_cast<double>(msg.start_time_micros());
            n.resource = resourceOf(msg);
            n.startDelay = msg.name() == kRankStartDelayName;
            for (uint64_t d : msg.ctrl_deps())
                n.deps.push_back(d);
            for (uint64_t d : msg.data_deps())
                n.deps.push_back(d);
            if (msg.ctrl_deps_size() > 0) {
                n.parent = msg.ctrl_deps(0);
                n.hasParent = true;
            }
            if (isStepName(msg.name()))
                n.stepName = msg.name();
            nodes.push_back(std::move(n));
        }
    }
    r.nodes = static_cast<int64_t>(nodes.size());

    // Successor lists and indegrees over the dependencies that exist.
    std::vector<uint32_t> indeg(nodes.size(), 0), succStart(nodes.size() + 1, 0), succ;
    std::vector<std::pair<uint32_t, uint32_t>> edges; // dep -> node
    for (uint32_t i = 0; i < nodes.size(); ++i) {
        std::sort(nodes[i].deps.begin(), nodes[i].deps.end());
        nodes[i].deps.erase(std::unique(nodes[i].deps.begin(), nodes[i].deps.end()), nodes[i].deps.end());
        for (uint64_t d : nodes[i].deps) {
            if (d == nodes[i].id) { // on itself: never ready if kept; dropped
                ++r.selfDeps;
                continue;
            }
            auto it = index.find(d);
            if (it == index.end()) {
                ++r.missingDeps;
                continue;
            }
            edges.push_back({it->second, i});
            ++indeg[i];
        }
    }
    for (const auto &e : edges)
        ++succStart[e.first + 1];
    for (size_t i = 0; i < nodes.size(); ++i)
        succStart[i + 1] += succStart[i];
    succ.resize(edges.size());
    {
        std::vector<uint32_t> fill(succStart.begin(), succStart.end() - 1);
        for (const auto &e : edges)
            succ[fill[e.first]++] = e.second;
    }

    // List scheduling: the ready node with the earliest ready time (then the
    // smallest id, i.e. program order) takes its resource when it is free.
    std::vector<double> start(nodes.size(), 0), end(nodes.size(), 0), ready(nodes.size(), 0);
    std::vector<uint8_t> done(nodes.size(), 0);
    using Item = std::tuple<double, uint64_t, uint32_t>; // (ready time, id, position)
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    for (uint32_t i = 0; i < nodes.size(); ++i)
        if (indeg[i] == 0)
            heap.push({0.0, nodes[i].id, i});
    std::unordered_map<int64_t, double> freeAt;
    size_t finished = 0;
    while (!heap.empty()) {
        const auto [readyTime, id, i] = heap.top();
        heap.pop();
        double &resourceFree = freeAt[nodes[i].resource];
        start[i] = std::max(readyTime, resourceFree);
        end[i] = start[i] + nodes[i].dur;
        resourceFree = end[i];
        done[i] = 1;
        ++finished;
        r.makespanUs = std::max(r.makespanUs, end[i]);
        for (uint32_t k = succStart[i]; k < succStart[i + 1]; ++k) {
            const uint32_t s = succ[k];
            ready[s] = std::max(ready[s], end[i]);
            if (--indeg[s] == 0)
                heap.push({ready[s], nodes[s].id, s});
        }
    }
    r.unreachable = static_cast<int64_t>(nodes.size() - finished);

    // Windows: a step node and everything under it (ctrl_deps parent links).
    std::vector<int32_t> stepOf(nodes.size(), -1);
    std::vector<uint32_t> steps;
    for (uint32_t i = 0; i < nodes.size(); ++i)
        if (!nodes[i].stepName.empty())
            steps.push_back(i);
    for (uint32_t s = 0; s < steps.size(); ++s)
        stepOf[steps[s]] = static_cast<int32_t>(s);
    // Resolve each node's step by walking up parents, memoised: every node is put on a
    // chain once, so the whole pass is linear. A chain that meets itself is a parent
    // cycle (no step); a chain that meets a resolved node takes its step.
    enum : uint8_t { Unseen, OnChain, Resolved };
    std::vector<uint8_t> state(nodes.size(), Unseen);
    for (uint32_t s = 0; s < steps.size(); ++s)
        state[steps[s]] = Resolved;
    std::vector<uint32_t> chain;
    for (uint32_t i = 0; i < nodes.size(); ++i) {
        chain.clear();
        uint32_t at = i;
        int32_t found = -1;
        while (true) {
            if (state[at] == Resolved) {
                found = stepOf[at];
                break;
            }
            if (state[at] == OnChain) // a parent cycle
                break;
            state[at] = OnChain;
            chain.push_back(at);
            if (!nodes[at].hasParent)
                break;
            auto it = index.find(nodes[at].parent);
            if (it == index.end())
                break;
            at = it->second;
        }
        for (uint32_t c : chain) {
            stepOf[c] = found;
            state[c] = Resolved;
        }
    }
    struct Span {
        double replayFirst = INFINITY, replayLast = -INFINITY, measuredFirst = INFINITY, measuredLast = -INFINITY;
        void add(double s, double e, double ms, double d)
        {
            replayFirst = std::min(replayFirst, s);
            replayLast = std::max(replayLast, e);
            if (ms >= 0) {
                measuredFirst = std::min(measuredFirst, ms);
                measuredLast = std::max(measuredLast, ms + d);
            }
        }
    };
    std::vector<Span> spans(steps.size());
    Span overall;
    for (uint32_t i = 0; i < nodes.size(); ++i) {
        if (!done[i] || nodes[i].startDelay)
            continue;
        overall.add(start[i], end[i], nodes[i].measuredStart, nodes[i].dur);
        if (stepOf[i] >= 0)
            spans[static_cast<size_t>(stepOf[i])].add(start[i], end[i], nodes[i].measuredStart, nodes[i].dur);
    }
    auto window = [&](const std::string &name, const Span &s) {
        ReplayWindow w;
        w.window = name;
        w.replayedUs = s.replayLast > s.replayFirst ? s.replayLast - s.replayFirst : 0;
        if (auto it = measuredUs.find(name); it != measuredUs.end())
            w.measuredUs = it->second;
        else if (s.measuredLast > s.measuredFirst)
            w.measuredUs = s.measuredLast - s.measuredFirst;
        return w;
    };
    for (uint32_t s = 0; s < steps.size(); ++s)
        r.windows.push_back(window(nodes[steps[s]].stepName, spans[s]));
    r.windows.push_back(window("overall", overall));
    return r;
}

std::map<std::string, double> measuredReplayWindows(const KinetoTrace &trace)
{
    std::map<std::string, double> out;
    // A step's work is its annotation and the GPU work launched in it: a step that
    // does not synchronise at its end (the GPU still busy) lasts until that work ends.
    struct Step {
        double ts, end;
        std::string name;
    };
    std::vector<Step> steps;
    for (const auto &e : trace.events)
        if (e.kind == EventKind::UserAnnotation && trace.str(e.name).rfind("ProfilerStep#", 0) == 0)
            steps.push_back({e.ts, e.end(), std::string(trace.str(e.name))});
    std::sort(steps.begin(), steps.end(), [](const Step &a, const Step &b) { return a.ts < b.ts; });
    std::unordered_map<int64_t, double> launchTs; // correlation -> runtime call start
    for (const auto &e : trace.events)
        if ((e.kind == EventKind::Runtime || e.kind == EventKind::Driver) && e.correlation >= 0)
            launchTs.try_emplace(e.correlation, e.ts);
    std::vector<double> gpuEnd(steps.size(), -INFINITY);
    for (const auto &e : trace.events) {
        if (!isGpuActivity(e.kind) || e.correlation < 0)
            continue;
        const auto l = launchTs.find(e.correlation);
        if (l == launchTs.end())
            continue;
        auto s = std::upper_bound(steps.begin(), steps.end(), l->second,
                                  [](double t, const Step &st) { return t < st.ts; });
        if (s == steps.begin())
            continue;
        --s;
        if (l->second <= s->end) {
            double &x = gpuEnd[size_t(s - steps.begin())];
            x = std::max(x, e.end());
        }
    }
    for (size_t k = 0; k < steps.size(); ++k)
        out.try_emplace(steps[k].name, std::max(steps[k].end, gpuEnd[k]) - steps[k].ts);
    // Overall: the span of the work a .et can hold, not of instants, flows or the
    // profiler's own span.
    int64_t first = INT64_MAX, last = INT64_MIN;
    for (const auto &e : trace.events)
        if (isCpuSideOp(e.kind) || e.kind == EventKind::Runtime || isGpuActivity(e.kind)) {
            first = std::min(first, e.tsNs);
            last = std::max(last, e.endNs());
        }
    if (last > first)
        out["overall"] = static_cast<double>(last - first) / 1000.0;
    return out;
}

void annotateEtCoverage(std::vector<ReplayWindow> &windows, const KinetoTrace &trace,
                        const std::vector<int32_t> &eventHost, double targetPct)
{
    std::map<std::string_view, std::pair<double, double>> span;
    for (const auto &e : trace.events)
        if (e.kind == EventKind::UserAnnotation && trace.str(e.name).rfind("ProfilerStep#", 0) == 0)
            span.try_emplace(trace.str(e.name), e.ts, e.end());
    for (ReplayWindow &w : windows) {
        double from = -INFINITY, to = INFINITY;
        if (w.window != "overall") {
            const auto it = span.find(w.window);
            if (it == span.end())
                continue;
            std::tie(from, to) = it->second;
        }
        int64_t ops = 0, held = 0;
        for (uint32_t k = 0; k < trace.events.size(); ++k) {
            const KinetoEvent &e = trace.events[k];
            if (e.kind != EventKind::CpuOp || e.ts < from || e.ts >= to)
                continue;
            ++ops;
            held += k < eventHost.size() && eventHost[k] >= 0;
        }
        if (ops == 0)
            continue;
        w.etCoveragePct = 100.0 * double(held) / double(ops);
        if (w.measuredUs > 0 && std::abs(w.errorPct()) > targetPct && w.etCoveragePct < 90.0) {
            char text[200];
            std::snprintf(text, sizeof text,
                          "the host ET holds %lld of the %lld CPU ops the Kineto trace has here (%.0f %%); the rest "
                          "cannot be replayed",
                          static_cast<long long>(held), static_cast<long long>(ops), w.etCoveragePct);
            w.note = text;
        }
    }
}

std::string formatReplayErrors(const std::vector<ReplayWindow> &windows)
{
    std::string out;
    char buf[96];
    for (const ReplayWindow &w : windows) {
        if (!(w.measuredUs > 0))
            continue;
        std::snprintf(buf, sizeof buf, "%s%s %+.1f %%", out.empty() ? "" : ", ", w.window.c_str(), w.errorPct());
        out += buf;
        if (!w.note.empty()) {
            std::snprintf(buf, sizeof buf, " (the ET holds %.0f %% of its CPU ops)", w.etCoveragePct);
            out += buf;
        }
    }
    return out;
}

std::string formatReplay(const ReplayResult &r)
{
    auto ms = [](double us) {
        char b[32];
        std::snprintf(b, sizeof b, us >= 1e6 ? "%.3f s" : us >= 1e3 ? "%.3f ms" : "%.1f us",
                      us >= 1e6 ? us / 1e6 : us >= 1e3 ? us / 1e3 : us);
        return std::string(b);
    };
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "replay    %lld nodes, makespan %s", static_cast<long long>(r.nodes),
                  ms(r.makespanUs).c_str());
    out += line;
    if (r.unreachable > 0)
        out += ", " + std::to_string(r.unreachable) + " nodes never ready (a dependency cycle)";
    if (r.missingDeps > 0)
        out += ", " + std::to_string(r.missingDeps) + " dependencies on missing nodes ignored";
    if (r.selfDeps > 0)
        out += ", " + std::to_string(r.selfDeps) + " self-dependencies (a node on itself) dropped";
    if (r.duplicateIds > 0)
        out += ", " + std::to_string(r.duplicateIds) + " nodes with a duplicate id dropped (the first kept)";
    out += "\n";
    for (const auto &w : r.windows) {
        if (w.measuredUs > 0)
            std::snprintf(line, sizeof line, "          %-20s measured %12s  replayed %12s  (%+.1f %%)\n",
                          w.window.c_str(), ms(w.measuredUs).c_str(), ms(w.replayedUs).c_str(), w.errorPct());
        else
            std::snprintf(line, sizeof line, "          %-20s measured %12s  replayed %12s\n", w.window.c_str(), "n/a",
                          ms(w.replayedUs).c_str());
        out += line;
    }
    return out;
}

} // namespace syncscope
