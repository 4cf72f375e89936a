// SPDX-License-Identifier: MIT
// Pass C (spec 2.7.3): GPU activities in stream order, launch and kernel-kernel
// delays, and the sync edges found by the shared sweep.
#include "cpbuild.h"
#include "traceshape.h"

#include <algorithm>
#include <limits>

namespace syncscope::hta {

namespace {

constexpr double kKernelKernelThresholdUs = 1500; // HTA commit ce386f4 (after d731cc2e)

class GraphVisitor : public SyncSweepVisitor
{
public:
    GraphVisitor(CpaContext &ctx, CpGraph &g, BuildStats &stats) : m_ctx(ctx), m_g(g), m_stats(stats) {}

    // d731cc2e: every swept activity gets its nodes when reached, so a sync can
    // only wait on an activity the sweep has already passed (spec 8).
    bool present(uint32_t ev) const override
    {
        return m_ctx.d731 || (m_ctx.startNode(ev) >= 0 && m_ctx.endNode(ev) >= 0);
    }
    bool sourcePresent(uint32_t ev) const override { return m_ctx.startNode(ev) >= 0 && m_ctx.endNode(ev) >= 0; }

    void cpuSync(uint32_t src, uint32_t syncRow, SyncKind) override
    {
        const int32_t call = m_ctx.rows.partner(syncRow);
        if (call < 0)
            return;
        const int32_t end = m_ctx.endNode(static_cast<uint32_t>(call));
        if (end >= 0)
            m_g.addEdge(m_ctx.endNode(src), end, CpEdgeType::SyncDependency, 0);
    }

    void activity(uint32_t g, int32_t prev, const std::vector<StreamWait> &waits) override
    {
        const RowTable &rows = m_ctx.rows;
        // The awaited op that ends last binds the start: the path follows it alone (the
        // others, ending earlier, did not hold the kernel back; as 0-weight edges they
        // would let the longest path take a branch that was not waited for). HTA: the
        // only one it keeps, the last recorded, binding or not.
        int32_t syncSrc = -1;
        for (const StreamWait &w : waits)
            if (syncSrc < 0 || rows.end(w.src) >= rows.end(static_cast<uint32_t>(syncSrc)))
                syncSrc = static_cast<int32_t>(w.src);
        if (m_ctx.d731)
            m_ctx.addEventNodes(g, m_g);
        const int32_t start = m_ctx.startNode(g), end = m_ctx.endNode(g);
        attributeEdge(m_g, m_g.addEdge(start, end, CpEdgeType::OperatorKernel, m_g.nodeTime[end] - m_g.nodeTime[start]),
                      -1);
        bool edgeAdded = false, launchAdded = false;
        int32_t syncEnd = -1;
        bool inferred = false;
        if (syncSrc < 0 && !m_ctx.exact) { // a stream wait inferred from the GPU timing
            const int32_t src = m_ctx.inferredGpuSource(g);
            if (src >= 0 && sourcePresent(static_cast<uint32_t>(src))) {
                syncSrc = src;
                inferred = true;
            }
        }
        if (syncSrc >= 0) { // GPU->GPU (cudaStreamWaitEvent), weight 0
            syncEnd = m_ctx.endNode(static_cast<uint32_t>(syncSrc));
            const int32_t e = m_g.addEdge(syncEnd, start, CpEdgeType::SyncDependency, 0);
            if (inferred)
                m_ctx.inferredEdges.push_back(e);
            edgeAdded = true;
        }
        const int32_t runtime = rows.partner(g);
        const int32_t prevEnd = prev >= 0 ? m_ctx.endNode(static_cast<uint32_t>(prev)) : -1;
        if (!m_ctx.exact && m_ctx.replayCount[g] > 1) {
            replayed(g, prev, prevEnd, runtime, syncEnd, start, edgeAdded);
            return;
        }
        const int32_t qLaunch = runtime >= 0 ? m_ctx.queue[static_cast<uint32_t>(runtime)] : kNoQueue;
        const int32_t qStart = m_ctx.queue[g];
        const int32_t runtimeStart = runtime >= 0 ? m_ctx.startNode(static_cast<uint32_t>(runtime)) : -1;
        // The stream was idle at the launch: the launch itself delayed the kernel,
        // unless the previous kernel or the awaited one ended after the launch started.
        bool launchDelay = qLaunch == 1 && qStart == 0;
        if (launchDelay) {
            const double launchTs = rows.ts(static_cast<uint32_t>(runtime));
            launchDelay = (prevEnd < 0 || m_g.nodeTime[prevEnd] < launchTs) &&
                          (syncEnd < 0 || m_g.nodeTime[syncEnd] < launchTs);
        }
        if (launchDelay) {
            if (runtimeStart >= 0) {
                m_g.addEdge(runtimeStart, start, CpEdgeType::KernelLaunchDelay,
                            m_g.nodeTime[start] - m_g.nodeTime[runtimeStart]);
                edgeAdded = launchAdded = true;
            } else {
                ++m_stats.launchWithoutRuntimeNode; // HTA asserts here; we add nothing
            }
        } else if (!m_ctx.exact && m_ctx.streamPrev[g] < 0 && syncEnd < 0 && runtimeStart >= 0 &&
                   m_g.nodeTime[start] - m_g.nodeTime[runtimeStart] >= kMinGpuStartHoleUs) {
            // Default mode: the first op of a stream in the trace that starts a millisecond or
            // more after its launch follows the launch, however long the queue (HTA adds no edge
            // then). A GPU that starts long after its launches (work queued before the profiler,
            // or clocks out of step: trace.gpu_start_hole) would otherwise start the path at the
            // GPU and leave the hole out (issue 38). Shorter waits are launch latency: HTA's.
            m_g.addEdge(runtimeStart, start, CpEdgeType::Dependency, m_g.nodeTime[start] - m_g.nodeTime[runtimeStart]);
            edgeAdded = true;
        } else if (prevEnd >= 0 &&
                   (m_ctx.d731 || m_g.nodeTime[start] - m_g.nodeTime[prevEnd] < kKernelKernelThresholdUs) &&
                   (syncEnd < 0 || m_g.nodeTime[syncEnd] < m_g.nodeTime[prevEnd])) {
            kernelKernelEdge(prevEnd, start);
            edgeAdded = true;
        }
        if (!edgeAdded)
            ++m_stats.kernelsWithoutEdge;
        // Causal 0-weight launch edge (HTA PR #106) when no real launch edge was added.
        if (m_ctx.options.zeroWeightLaunchEdges && !launchAdded && runtimeStart >= 0)
            m_g.addEdge(runtimeStart, start, CpEdgeType::KernelLaunchDelay, 0);
    }

private:
    // In-order execution on the stream: the gap after the previous activity.
    void kernelKernelEdge(int32_t prevEnd, int32_t start)
    {
        attributeEdge(m_g,
                      m_g.addEdge(prevEnd, start, CpEdgeType::KernelKernelDelay,
                                  m_g.nodeTime[start] - m_g.nodeTime[prevEnd]),
                      -1);
    }

    // An op of a graph replay (one launch, many GPU ops): the launch starts the first
    // op of the replay on each stream; the rest follow in stream order.
    void replayed(uint32_t g, int32_t prev, int32_t prevEnd, int32_t runtime, int32_t syncEnd, int32_t start,
                  bool edgeAdded)
    {
        const RowTable &rows = m_ctx.rows;
        const auto &events = m_ctx.trace.events;
        const int32_t before = m_ctx.streamPrev[g];
        const bool first = before < 0 || events[static_cast<uint32_t>(before)].correlation != events[g].correlation;
        const int32_t runtimeStart = runtime >= 0 ? m_ctx.startNode(static_cast<uint32_t>(runtime)) : -1;
        if (first && runtimeStart >= 0) {
            const double launchTs = rows.ts(static_cast<uint32_t>(runtime));
            // The stream was idle at the launch, and no awaited op ended after it.
            const bool idle = before < 0 || rows.end(static_cast<uint32_t>(before)) < launchTs;
            if (idle && (syncEnd < 0 || m_g.nodeTime[syncEnd] < launchTs)) {
                m_g.addEdge(runtimeStart, start, CpEdgeType::KernelLaunchDelay,
                            m_g.nodeTime[start] - m_g.nodeTime[runtimeStart]);
                return;
            }
        }
        if (prev >= 0 && prevEnd >= 0 && (syncEnd < 0 || m_g.nodeTime[syncEnd] < m_g.nodeTime[prevEnd])) {
            kernelKernelEdge(prevEnd, start);
            edgeAdded = true;
        }
        if (!edgeAdded)
            ++m_stats.kernelsWithoutEdge;
    }

    CpaContext &m_ctx;
    CpGraph &m_g;
    BuildStats &m_stats;
};

} // namespace

void CpaContext::gpuPass(const std::vector<uint32_t> &clipped, CpGraph &g, BuildStats &stats)
{
    std::vector<uint32_t> sweep;
    for (uint32_t ev : clipped) {
        if (isSweepRow(rows, ev))
            sweep.push_back(ev);
    }
    GraphVisitor visitor(*this, g, stats);
    SweepOptions sweepOptions;
    sweepOptions.everyWait = !exact;
    const SweepStats s = runSyncSweep(rows, tables, std::move(sweep), sweepOptions, visitor);
    stats.unknownSyncNames += s.unknownSyncNames;
    stats.unmatchedWaits += s.unmatchedWaits;
    if (exact || inferredCpu.empty() || clipped.empty())
        return;
    // Inferred GPU->CPU waits whose call and awaited op are both in the window.
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (uint32_t ev : clipped) {
        if (rows.stream(ev) == -1) {
            lo = std::min(lo, rows.ts(ev));
            hi = std::max(hi, rows.ts(ev));
        }
    }
    auto it = std::lower_bound(inferredCpu.begin(), inferredCpu.end(), lo,
                               [&](const auto &p, double t) { return rows.ts(p.first) < t; });
    for (; it != inferredCpu.end() && rows.ts(it->first) <= hi; ++it) {
        const auto [call, src] = *it;
        const int32_t callEnd = endNode(call), srcEnd = endNode(src);
        if (callEnd < 0 || srcEnd < 0 || startNode(call) < 0)
            continue;
        inferredEdges.push_back(g.addEdge(srcEnd, callEnd, CpEdgeType::SyncDependency, 0));
    }
}

} // namespace syncscope::hta
