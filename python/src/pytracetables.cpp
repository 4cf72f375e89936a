// SPDX-License-Identifier: MIT
// The per-pair tables, each built in one pass over the analysis (docs/python.md
// lists every column and its unit).
#include "pytrace.h"

#include "analysis/graphcapture.h"

#include "analysis/stepwindow.h"

#include <cmath>
#include <limits>

namespace syncscope::py {

namespace pyb = pybind11;

namespace {

// The events a user means by "ops": CPU ops, annotations, runtime calls and GPU work;
// not flows, metadata, instants or the Trace span.
bool isOp(EventKind k)
{
    switch (k) {
    case EventKind::CpuOp:
    case EventKind::UserAnnotation:
    case EventKind::GpuUserAnnotation:
    case EventKind::PythonFunction:
    case EventKind::Runtime:
    case EventKind::Driver:
    case EventKind::Kernel:
    case EventKind::Memcpy:
    case EventKind::Memset:
    case EventKind::CudaSync:
        return true;
    default:
        return false;
    }
}

// The report's name of a bound-by bucket: HTA's "" is "dependency".
std::string bucketKey(const std::string &b)
{
    return b.empty() ? std::string("dependency") : b;
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

} // namespace

pyb::dict PyTrace::events() const
{
    const Analysis &a = analysis();
    const KinetoTrace &t = *a.device;
    const LinkResult *link = a.link ? &*a.link : nullptr;
    std::vector<uint8_t> critical(t.events.size(), 0);
    if (a.criticalPath && a.criticalPath->success)
        for (uint32_t e : a.criticalPath->criticalEvents)
            critical[e] = 1;
    Columns c;
    auto &event = c.i64("event");
    auto &name = c.text("name");
    auto &cat = c.text("cat");
    auto &kind = c.text("kind");
    auto &pid = c.i64("pid");
    auto &tid = c.i64("tid");
    auto &stream = c.i64("stream");
    auto &device = c.i64("device");
    auto &ts = c.f64("ts");
    auto &dur = c.f64("dur");
    auto &correlation = c.i64("correlation");
    auto &external = c.i64("external_id");
    auto &etNode = c.i64("et_node");
    auto &cpuOp = c.i64("cpu_op");
    auto &launcher = c.i64("launcher");
    auto &onPath = c.boolean("on_critical_path");
    // A replayed graph op: the CPU op, input shapes and Python stack of its captured launch.
    auto &capturedOp = c.text("captured_op");
    auto &capturedInputs = c.text("captured_input_dims");
    auto &capturedStack = c.text("captured_python_stack");
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const KinetoEvent &e = t.events[i];
        if (!isOp(e.kind))
            continue;
        const CapturedOrigin *origin = a.graphCapture ? a.graphCapture->find(i) : nullptr;
        capturedOp.emplace_back(origin ? origin->opName : std::string());
        capturedInputs.emplace_back(origin ? origin->inputDims : std::string());
        capturedStack.emplace_back(origin ? origin->pythonStack : std::string());
        event.push_back(i);
        name.emplace_back(t.str(e.name));
        cat.emplace_back(t.str(e.cat));
        kind.emplace_back(eventKindName(e.kind));
        pid.push_back(e.pid);
        tid.push_back(e.tid);
        stream.push_back(e.htaStream());
        device.push_back(e.device);
        ts.push_back(e.ts);
        dur.push_back(e.dur);
        correlation.push_back(e.correlation);
        external.push_back(e.externalId);
        int64_t node = -1;
        if (link && a.host && i < link->eventHost.size() && link->eventHost[i] >= 0)
            node = a.host->nodes[size_t(link->eventHost[i])].id;
        etNode.push_back(node);
        cpuOp.push_back(link && i < link->gpuParent.size() ? link->gpuParent[i] : -1);
        launcher.push_back(link && i < link->gpuLauncher.size() ? link->gpuLauncher[i] : -1);
        onPath.push_back(critical[i]);
    }
    return c.toPython();
}

pyb::dict PyTrace::links() const
{
    const Analysis &a = analysis();
    Columns c;
    auto &etNode = c.i64("et_node");
    auto &etName = c.text("et_name");
    auto &event = c.i64("event");
    auto &name = c.text("name");
    auto &ts = c.f64("ts");
    auto &dur = c.f64("dur");
    auto &linked = c.boolean("linked");
    if (a.host && a.link) {
        const HostTrace &h = *a.host;
        const KinetoTrace &t = *a.device;
        for (uint32_t i = 0; i < h.nodes.size(); ++i) {
            const HostNode &n = h.nodes[i];
            if (n.has(HostNode::IsRootLike))
                continue; // as the link counts: roots are not ops
            const int32_t ev = i < a.link->hostEvent.size() ? a.link->hostEvent[i] : -1;
            etNode.push_back(n.id);
            etName.emplace_back(h.str(n.name));
            event.push_back(ev);
            name.emplace_back(ev >= 0 ? t.str(t.events[size_t(ev)].name) : std::string_view());
            ts.push_back(ev >= 0 ? t.events[size_t(ev)].ts : kNaN);
            dur.push_back(ev >= 0 ? t.events[size_t(ev)].dur : kNaN);
            linked.push_back(ev >= 0);
        }
    }
    return c.toPython();
}

pyb::dict PyTrace::syncEdges() const
{
    const Analysis &a = analysis();
    const KinetoTrace &t = *a.device;
    Columns c;
    auto &src = c.i64("src");
    auto &srcName = c.text("src_name");
    auto &srcStream = c.i64("src_stream");
    auto &dst = c.i64("dst");
    auto &dstName = c.text("dst_name");
    auto &syncEvent = c.i64("sync_event");
    auto &kind = c.text("kind");
    auto &source = c.text("source");
    auto &gpuToGpu = c.boolean("gpu_to_gpu");
    auto &wait = c.f64("wait_us");
    for (const SyncEdge &e : a.syncEdges) {
        src.push_back(e.src);
        srcName.emplace_back(t.str(t.events[e.src].name));
        srcStream.push_back(t.events[e.src].htaStream());
        dst.push_back(e.dst);
        dstName.emplace_back(t.str(t.events[e.dst].name));
        syncEvent.push_back(e.syncEvent);
        kind.emplace_back(syncKindName(e.kind));
        source.emplace_back(e.inferred ? "inferred" : "cuda_sync");
        gpuToGpu.push_back(e.gpuToGpu);
        wait.push_back(e.waitUs);
    }
    return c.toPython();
}

pyb::dict criticalPathRows(const KinetoTrace &t, const CriticalPathResult &cp)
{
    Columns c;
    auto &position = c.i64("position");
    auto &event = c.i64("event");
    auto &name = c.text("name");
    auto &sName = c.text("s_name");
    auto &cat = c.text("cat");
    auto &pid = c.i64("pid");
    auto &tid = c.i64("tid");
    auto &stream = c.i64("stream");
    auto &ts = c.f64("ts");
    auto &dur = c.f64("dur");
    auto &type = c.text("type");
    auto &duration = c.f64("duration_us");
    auto &bound = c.text("bound_by");
    auto &htaBound = c.text("hta_bound_by");
    for (size_t k = 0; k < cp.breakdown.size(); ++k) {
        const CpBreakdownRow &r = cp.breakdown[k];
        position.push_back(int64_t(k));
        event.push_back(r.event);
        const KinetoEvent *e = r.event >= 0 && size_t(r.event) < t.events.size() ? &t.events[size_t(r.event)] : nullptr;
        const std::string_view n = e ? t.str(e->name) : std::string_view();
        name.emplace_back(n);
        sName.emplace_back(e ? cpShortenName(n) : std::string());
        cat.emplace_back(e ? t.str(e->cat) : std::string_view());
        pid.push_back(e ? e->pid : -1);
        tid.push_back(e ? e->tid : -1);
        stream.push_back(e ? e->htaStream() : -1);
        ts.push_back(e ? e->ts : kNaN);
        dur.push_back(e ? e->dur : kNaN);
        type.emplace_back(cpEdgeTypeValue(r.type));
        duration.push_back(r.duration);
        bound.emplace_back(bucketKey(cpBoundName(r.bound)));
        htaBound.emplace_back(cpBoundName(r.bound));
    }
    return c.toPython();
}

pyb::dict boundBySummary(const std::vector<CpSummaryRow> &rows)
{
    Columns c;
    auto &bound = c.text("bound_by");
    auto &pct = c.f64("percent");
    auto &us = c.f64("duration_us");
    for (const CpSummaryRow &r : rows) {
        bound.push_back(bucketKey(r.boundBy));
        pct.push_back(r.percent);
        us.push_back(r.durationUs);
    }
    return c.toPython();
}

pyb::dict PyTrace::steps()
{
    const std::vector<StepResult> &steps = allSteps();
    Columns c;
    auto &step = c.i64("step");
    auto &name = c.text("name");
    auto &number = c.i64("number");
    auto &success = c.boolean("success");
    auto &start = c.f64("start_us");
    auto &duration = c.f64("duration_us");
    auto &weight = c.f64("weight_us");
    auto &events = c.i64("critical_events");
    // One percent column per bound-by bucket (NaN where the step's path has none), as
    // the report's steps[].summary.
    std::vector<std::vector<double> *> buckets;
    std::vector<std::string> keys;
    for (int b = 0; b < kCpBoundCount; ++b) {
        keys.push_back(bucketKey(cpBoundName(static_cast<CpBound>(b))));
        buckets.push_back(&c.f64(keys.back()));
    }
    for (const StepResult &s : steps) {
        step.push_back(s.instance);
        name.push_back(s.name);
        number.push_back(profilerStepNumber(s.name));
        success.push_back(s.success);
        start.push_back(s.startUs);
        duration.push_back(s.endUs - s.startUs);
        weight.push_back(s.weightUs);
        events.push_back(int64_t(s.criticalEvents));
        for (size_t b = 0; b < keys.size(); ++b) {
            double v = kNaN;
            for (const CpSummaryRow &r : s.summary)
                if (bucketKey(r.boundBy) == keys[b])
                    v = r.percent;
            buckets[b]->push_back(v);
        }
    }
    return c.toPython();
}

} // namespace syncscope::py
