// SPDX-License-Identifier: MIT
// Pass C (spec 2.7.3): GPU activities in stream order, launch and kernel-kernel
// delays, and the sync edges found by the shared sweep.
#include "cpbuild.h"

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

    void activity(uint32_t g, int32_t prev, int32_t syncSrc, int32_t) override
    {
        const RowTable &rows = m_ctx.rows;
        if (m_ctx.d731)
            m_ctx.addEventNodes(g, m_g);
        const int32_t start = m_ctx.startNode(g), end = m_ctx.endNode(g);
        attributeEdge(m_g, m_g.addEdge(start, end, CpEdgeType::OperatorKernel, m_g.nodeTime[end] - m_g.nodeTime[start]),
                      -1);
        bool edgeAdded = false, launchAdded = false;
        int32_t syncEnd = -1;
        if (syncSrc >= 0) { // GPU->GPU (cudaStreamWaitEvent), weight 0
            syncEnd = m_ctx.endNode(static_cast<uint32_t>(syncSrc));
            m_g.addEdge(syncEnd, start, CpEdgeType::SyncDependency, 0);
            edgeAdded = true;
        }
        const int32_t runtime = rows.partner(g);
        const int32_t prevEnd = prev >= 0 ? m_ctx.endNode(static_cast<uint32_t>(prev)) : -1;
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
        } else if (prevEnd >= 0 &&
                   (m_ctx.d731 || m_g.nodeTime[start] - m_g.nodeTime[prevEnd] < kKernelKernelThresholdUs) &&
                   (syncEnd < 0 || m_g.nodeTime[syncEnd] < m_g.nodeTime[prevEnd])) {
            // In-order execution on the stream: the gap after the previous activity.
            attributeEdge(m_g,
                          m_g.addEdge(prevEnd, start, CpEdgeType::KernelKernelDelay,
                                      m_g.nodeTime[start] - m_g.nodeTime[prevEnd]),
                          -1);
            edgeAdded = true;
        }
        if (!edgeAdded)
            ++m_stats.kernelsWithoutEdge;
        // Causal 0-weight launch edge (HTA PR #106) when no real launch edge was added.
        if (m_ctx.options.zeroWeightLaunchEdges && !launchAdded && runtimeStart >= 0)
            m_g.addEdge(runtimeStart, start, CpEdgeType::KernelLaunchDelay, 0);
    }

private:
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
    const SweepStats s = runSyncSweep(rows, tables, std::move(sweep), SweepOptions{}, visitor);
    stats.unknownSyncNames += s.unknownSyncNames;
    stats.unmatchedWaits += s.unmatchedWaits;
}

} // namespace syncscope::hta
