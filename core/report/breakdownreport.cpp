// SPDX-License-Identifier: MIT
#include "report/breakdownreport.h"

#include "analysis/gapcauses.h"
#include "analysis/intervals.h"
#include "analysis/criticalpath.h"
#include "util/parallel.h"

#include <algorithm>
#include <mutex>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>

namespace syncscope {

using ojson = nlohmann::ordered_json;

namespace {

ojson num(double v) { return std::isfinite(v) ? ojson(v) : ojson(nullptr); }

double median(std::vector<double> v)
{
    if (v.empty())
        return std::nan("");
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double mean(const std::vector<double> &v)
{
    if (v.empty())
        return std::nan("");
    double s = 0;
    for (double x : v)
        s += x;
    return s / static_cast<double>(v.size());
}

} // namespace

// Outside the anonymous namespace: BreakdownWork::State holds one (a unity build
// would warn of a member of an anonymous type), under a name no other file uses.
namespace breakdownindex {
// Events with a ts in ts order, and the metadata rows: a step's events by binary search.
struct TsIndex {
    std::vector<uint32_t> byTs, meta;
    explicit TsIndex(const KinetoTrace &t)
    {
        // Sorted as (ts, index) pairs: a stable order without chasing events in the compare.
        std::vector<std::pair<double, uint32_t>> keyed;
        for (uint32_t i = 0; i < t.events.size(); ++i) {
            const KinetoEvent &e = t.events[i];
            if (e.ph == 'M')
                meta.push_back(i);
            else if (e.has(KinetoEvent::HasTs))
                keyed.push_back({e.ts, i});
        }
        std::sort(keyed.begin(), keyed.end());
        byTs.reserve(keyed.size());
        for (const auto &[ts, i] : keyed)
            byTs.push_back(i);
    }
};
} // namespace breakdownindex
using breakdownindex::TsIndex;

namespace {

// The events of [startUs, endUs) (by ts, trace time base) and the metadata rows, in
// file order, as a trace of their own: its strings re-interned, collective args dropped.
// Reused across steps: old StrId -> new StrId (0 = not yet interned, else new id + 1).
struct ClipScratch {
    std::vector<StrId> remap;
    std::vector<StrId> touched;
};

KinetoTrace clipTrace(const KinetoTrace &t, const TsIndex &index, double startUs, double endUs, ClipScratch &scratch)
{
    auto lo = std::lower_bound(index.byTs.begin(), index.byTs.end(), startUs,
                               [&](uint32_t i, double v) { return t.events[i].ts < v; });
    auto hi = std::lower_bound(lo, index.byTs.end(), endUs, [&](uint32_t i, double v) { return t.events[i].ts < v; });
    std::vector<uint32_t> picked(lo, hi);
    picked.insert(picked.end(), index.meta.begin(), index.meta.end());
    std::sort(picked.begin(), picked.end());
    KinetoTrace s;
    s.path = t.path;
    s.anyFloatTs = t.anyFloatTs;
    s.anyMissingTs = false;
    scratch.remap.resize(t.strings.size(), 0);
    auto map = [&](StrId id) -> StrId {
        if (id == kNoString || id >= scratch.remap.size())
            return id == kNoString ? kNoString : s.strings.intern(t.strings.view(id));
        StrId &slot = scratch.remap[id];
        if (slot == 0) {
            slot = s.strings.intern(t.strings.view(id)) + 1;
            scratch.touched.push_back(id);
        }
        return slot - 1;
    };
    bool first = true;
    s.events.reserve(picked.size());
    for (uint32_t i : picked) {
        const KinetoEvent &e = t.events[i];
        KinetoEvent c = e;
        c.name = map(e.name);
        c.cat = map(e.cat);
        c.pgName = map(e.pgName);
        c.label = map(e.label);
        if (e.has(KinetoEvent::PidIsString))
            c.pid = map(static_cast<StrId>(e.pid));
        if (e.has(KinetoEvent::TidIsString))
            c.tid = map(static_cast<StrId>(e.tid));
        if (e.streamForm == StreamForm::String)
            c.stream = map(static_cast<StrId>(e.stream));
        if (e.ph != 'M') {
            s.minTsNs = first ? e.tsNs : std::min(s.minTsNs, e.tsNs);
            s.maxEndNs = first ? e.endNs() : std::max(s.maxEndNs, e.endNs());
            first = false;
        }
        s.events.push_back(c);
    }
    for (StrId id : scratch.touched)
        scratch.remap[id] = 0;
    scratch.touched.clear();
    return s;
}

} // namespace

ExposedComm exposedCommunication(const hta::RowTable &rows)
{
    // The sums of the intervals the timeline draws (gapcauses.h).
    ExposedComm out;
    for (const GpuExposedComm &g : exposedCommIntervals(rows)) {
        out.comm_us += g.comm_us;
        for (const ExposedInterval &iv : g.exposed)
            out.exposed_us += iv.endUs - iv.startUs;
        out.memcpy_us += g.memcpy_us;
    }
    return out;
}

BreakdownSet computeBreakdownSet(const hta::RowTable &rows)
{
    BreakdownSet set;
    Diagnostics scratch; // the critical path already reports the rows' problems
    set.hta = computeHtaBreakdown(rows);
    set.launch = cudaKernelLaunchStats(rows, LaunchStatsOptions{}, scratch);
    set.queue = queueLength(rows, scratch);
    set.comm = exposedCommunication(rows);
    return set;
}

namespace {
using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point from) { return std::chrono::duration<double>(Clock::now() - from).count(); }
} // namespace

void computeWholeBreakdown(const KinetoTrace &trace, ReportBreakdown &b)
{
    const auto t0 = Clock::now();
    Diagnostics scratch; // the critical path already reports the rows' problems
    const hta::RowTable rows(trace, hta::RowOptions{}, scratch);
    b.whole = computeBreakdownSet(rows);
    b.computed = true;
    b.wholeCpuSeconds = secondsSince(t0);
}

std::vector<StepSpan> profilerStepSpans(const KinetoTrace &trace)
{
    std::vector<StepSpan> out;
    for (uint32_t ev : profilerStepEvents(trace)) {
        const KinetoEvent &e = trace.events[ev];
        out.push_back({std::string(trace.str(e.name)), e.ts, e.ts + e.dur});
    }
    return out;
}

std::vector<StepSpan> stepSpans(const std::vector<StepResult> &steps)
{
    std::vector<StepSpan> out;
    for (const StepResult &s : steps)
        out.push_back({s.name, s.startUs, s.endUs});
    return out;
}

const StepBreakdown *findStepBreakdown(const ReportBreakdown &b, const StepResult &step)
{
    for (const StepBreakdown &s : b.steps)
        if (s.name == step.name && s.startUs == step.startUs)
            return &s;
    return nullptr;
}

// Steps per item: each item reuses one clip scratch.
constexpr size_t kStepsPerItem = 16;

struct BreakdownWork::State {
    const KinetoTrace &trace;
    std::vector<StepSpan> spans;
    ReportBreakdown out;
    size_t items = 1;
    std::atomic<size_t> next{0};
    std::vector<double> itemSeconds;
    std::once_flag indexOnce;
    std::unique_ptr<TsIndex> index;
    State(const KinetoTrace &t, std::vector<StepSpan> s) : trace(t), spans(std::move(s)) {}
};

BreakdownWork::BreakdownWork(const KinetoTrace &trace, std::vector<StepSpan> steps, bool wholeTrace)
    : m(std::make_unique<State>(trace, std::move(steps)))
{
    m->next = wholeTrace ? 0 : 1; // item 0 is the whole trace
    m->items = 1 + (m->spans.size() + kStepsPerItem - 1) / kStepsPerItem;
    m->itemSeconds.assign(m->items, 0);
    m->out.steps.resize(m->spans.size());
}

BreakdownWork::~BreakdownWork() = default;

void BreakdownWork::help()
{
    State &s = *m;
    for (size_t item = s.next++; item < s.items; item = s.next++) {
        const auto start = Clock::now();
        if (item == 0) {
            Diagnostics scratch; // the critical path already reports the rows' problems
            const hta::RowTable rows(s.trace, hta::RowOptions{}, scratch);
            s.out.whole = computeBreakdownSet(rows);
        } else {
            std::call_once(s.indexOnce, [&s] { s.index = std::make_unique<TsIndex>(s.trace); });
            hta::RowOptions stepOptions;
            stepOptions.dropLastProfilerStep = false; // the window is the step; keep its events
            ClipScratch clip;
            Diagnostics scratch;
            const size_t first = (item - 1) * kStepsPerItem;
            for (size_t k = first; k < std::min(first + kStepsPerItem, s.spans.size()); ++k) {
                StepBreakdown &sb = s.out.steps[k];
                sb.name = s.spans[k].name;
                sb.startUs = s.spans[k].startUs;
                sb.endUs = s.spans[k].endUs;
                const KinetoTrace sub = clipTrace(s.trace, *s.index, sb.startUs, sb.endUs, clip);
                const hta::RowTable rows(sub, stepOptions, scratch);
                sb.set = computeBreakdownSet(rows);
            }
        }
        s.itemSeconds[item] = secondsSince(start); // each item writes only its own slots
    }
}

std::shared_ptr<const ReportBreakdown> BreakdownWork::result()
{
    help(); // nothing left when every helper has returned; a lone caller does it all
    auto b = std::make_shared<ReportBreakdown>(std::move(m->out));
    b->computed = true;
    b->wholeCpuSeconds = m->itemSeconds[0];
    b->stepsCpuSeconds = 0;
    for (size_t k = 1; k < m->itemSeconds.size(); ++k)
        b->stepsCpuSeconds += m->itemSeconds[k];
    return b;
}

void computeStepBreakdowns(const KinetoTrace &trace, const std::vector<StepSpan> &steps, ReportBreakdown &b,
                           unsigned workers)
{
    BreakdownWork work(trace, steps, /*wholeTrace=*/false);
    parallelFor(workers ? workers : defaultWorkers(), workers, [&](size_t) { work.help(); });
    const std::shared_ptr<const ReportBreakdown> r = work.result();
    b.steps = r->steps;
    b.stepsCpuSeconds = r->stepsCpuSeconds;
}

ReportBreakdown computeReportBreakdown(const Analysis &a, unsigned workers)
{
    if (a.breakdown)
        return *a.breakdown;
    ReportBreakdown b;
    if (!a.device)
        return b;
    BreakdownWork work(*a.device, stepSpans(a.steps));
    parallelFor(workers ? workers : defaultWorkers(), workers, [&](size_t) { work.help(); });
    return *work.result();
}

LaunchDurations launchDurations(const KernelLaunchStats &l)
{
    std::vector<double> cpu, gpu, delay;
    for (const KernelLaunchRow &r : l.rows) {
        cpu.push_back(r.cpu_duration_us);
        gpu.push_back(r.gpu_duration_us);
        delay.push_back(r.launch_delay_us);
    }
    return {median(cpu), mean(cpu), median(gpu), mean(gpu), median(delay), mean(delay)};
}

ojson breakdownJson(const BreakdownSet &set)
{
    const HtaBreakdown &h = set.hta;
    ojson j;
    const HtaTemporalBreakdown &t = h.temporal;
    if (t.valid)
        j["temporal"] = {{"idle_time_us", num(t.idle_time_us)},
                         {"compute_time_us", num(t.compute_time_us)},
                         {"non_compute_time_us", num(t.non_compute_time_us)},
                         {"kernel_time_us", num(t.kernel_time_us)},
                         {"idle_time_pct", num(t.idle_time_pct)},
                         {"compute_time_pct", num(t.compute_time_pct)},
                         {"non_compute_time_pct", num(t.non_compute_time_pct)}};
    else
        j["temporal"] = nullptr; // no GPU row (HTA raises)
    ojson idle = ojson::array();
    for (const HtaIdleTimeRow &r : h.idle_time)
        idle.push_back({{"stream", r.stream},
                        {"idle_category", r.idle_category},
                        {"idle_time_us", num(r.idle_time_us)},
                        {"idle_time_ratio", num(r.idle_time_ratio)}});
    j["idle_time"] = idle;
    j["comm_comp_overlap_pct"] = num(h.comm_comp_overlap_pct);
    j["comm_time_us"] = num(set.comm.comm_us);
    j["exposed_comm_us"] = num(set.comm.exposed_us);
    ojson byType = ojson::array();
    for (const HtaKernelTypeRow &r : h.kernels_by_type)
        byType.push_back({{"kernel_type", r.kernel_type}, {"sum_us", num(r.sum_us)}, {"percentage", num(r.percentage)}});
    ojson byKernel = ojson::array();
    for (const HtaKernelRow &r : h.kernels_by_kernel)
        byKernel.push_back({{"kernel_type", r.kernel_type},
                            {"name", r.name},
                            {"sum_us", num(r.sum_us)},
                            {"max_us", num(r.max_us)},
                            {"min_us", num(r.min_us)},
                            {"mean_us", num(r.mean_us)},
                            {"stddev", num(r.stddev)}});
    j["kernels"] = {{"by_type", byType}, {"by_kernel", byKernel}};
    const KernelLaunchStats &l = set.launch;
    const LaunchDurations d = launchDurations(l);
    j["launch_stats"] = {{"launches", l.rows.size()},
                         {"runtime_cutoff_us", l.runtime_cutoff_us},
                         {"launch_delay_cutoff_us", l.launch_delay_cutoff_us},
                         {"short_kernels", l.short_kernels.size()},
                         {"runtime_outliers", l.runtime_outliers.size()},
                         {"launch_delay_outliers", l.launch_delay_outliers.size()},
                         {"cpu_duration_us", {{"median", num(d.cpuMedian)}, {"mean", num(d.cpuMean)}}},
                         {"gpu_duration_us", {{"median", num(d.gpuMedian)}, {"mean", num(d.gpuMean)}}},
                         {"launch_delay_us", {{"median", num(d.delayMedian)}, {"mean", num(d.delayMean)}}}};
    ojson queue = ojson::array();
    for (const QueueLengthSummary &q : set.queue.summary)
        queue.push_back({{"stream", q.stream},
                         {"count", q.count},
                         {"mean", num(q.mean)},
                         {"std", num(q.std)},
                         {"min", num(q.min)},
                         {"p25", num(q.p25)},
                         {"p50", num(q.p50)},
                         {"p75", num(q.p75)},
                         {"max", num(q.max)}});
    j["queue_length"] = queue;
    return j;
}

std::string formatBreakdown(const ReportBreakdown &b, const std::unordered_map<std::string, std::string> *capturedIn)
{
    if (!b.computed)
        return {};
    std::string s;
    char line[512];
    auto pct = [](double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; };
    auto row = [&](const std::string &name, const BreakdownSet &set) {
        const HtaTemporalBreakdown &t = set.hta.temporal;
        const double span = t.valid ? t.kernel_time_us : 0;
        std::snprintf(line, sizeof line, "           %-18s %9.1f %13.1f %8.1f %6.1f\n", name.c_str(),
                      pct(t.compute_time_us, span), pct(set.comm.exposed_us, span), pct(set.comm.memcpy_us, span),
                      pct(t.idle_time_us, span));
        s += line;
    };
    s += "  gpu      window             compute %  comm exposed %  memcpy %  idle %\n";
    row("whole trace", b.whole);
    for (const StepBreakdown &st : b.steps)
        row(st.name, st.set);
    std::vector<const HtaKernelRow *> top;
    for (const HtaKernelRow &r : b.whole.hta.kernels_by_kernel)
        if (r.name != "others")
            top.push_back(&r);
    std::stable_sort(top.begin(), top.end(),
                     [](const HtaKernelRow *x, const HtaKernelRow *y) { return x->sum_us > y->sum_us; });
    if (top.size() > 5)
        top.resize(5);
    if (!top.empty()) {
        s += "  top kernels (HTA kernel breakdown, whole trace)\n";
        const double span = b.whole.hta.temporal.valid ? b.whole.hta.temporal.kernel_time_us : 0;
        for (const HtaKernelRow *r : top) {
            std::string name = r->name.size() > 60 ? r->name.substr(0, 57) + "..." : r->name;
            std::snprintf(line, sizeof line, "           %12.1f us %5.1f %%  %-13s %s", r->sum_us, pct(r->sum_us, span),
                          r->kernel_type.c_str(), name.c_str());
            s += line;
            if (capturedIn)
                if (const auto op = capturedIn->find(r->name); op != capturedIn->end() && !op->second.empty())
                    s += "  (graph, captured in " + op->second + ")";
            s += "\n";
        }
    }
    return s;
}

} // namespace syncscope
