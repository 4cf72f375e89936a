// SPDX-License-Identifier: MIT
// Extraction of a rank's summary from the per-rank pipeline result.
#include "ranksummary.h"

#include "busbw.h"
#include "chakracommkind.h"
#include "collectivekernel.h"
#include "criticalpath.h"
#include "rankanalysis.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <tuple>
#include <unordered_map>

namespace syncscope {

namespace {

// Fills each RankCollective's busType (the exported .et's kind (ChakraKernelKinds), else
// the collective's name, else the kernel's) and messageBytes (kernelMessageBytes sized
// as that type) from the rank's loaded traces.
void sizeRankCollectives(const Analysis &a, RankSummary &s)
{
    if (!a.device || s.collectives.empty())
        return;
    const LinkResult *link = a.link ? &*a.link : nullptr;
    // The plan's lookup tables (two maps over every plan node) only where the .et's kind
    // needs the kernel's ancestors: a SendRecv kernel of a linked pair. Any other kernel's
    // kind comes from its name alone (chakraKernelCommKind), so a plain job run pays nothing.
    bool ancestors = false;
    for (const RankCollective &c : s.collectives)
        ancestors = ancestors || c.kernelName.find("SendRecv") != std::string::npos;
    std::optional<ChakraKernelKinds> kinds;
    if (ancestors && a.host && link)
        kinds.emplace(a.host.get(), *a.device, link);
    for (RankCollective &c : s.collectives) {
        if (c.event >= a.device->events.size())
            continue;
        // The .et's kind first: NCCL builds an all-to-all from SendRecv kernels.
        const ChakraCommKind kind = kinds ? kinds->of(c.event) : chakraKernelCommKind(c.kernelName, {});
        CollectiveType type = collectiveTypeOf(chakraCommKindName(kind));
        if (type == CollectiveType::Unknown)
            type = collectiveTypeOf(c.collectiveName);
        if (type == CollectiveType::Unknown)
            type = collectiveTypeOf(c.kernelName);
        c.busType = static_cast<uint8_t>(type);
        c.messageBytes = kernelMessageBytes(*a.device, link, c.event, type).value_or(-1);
    }
}

} // namespace

namespace {

const KinetoCommArgs *commArgsOf(const KinetoTrace &trace, uint32_t event)
{
    return trace.commArgsOf(event);
}

// "[0, 1, 2]" -> 3: the integers in the text.
int64_t countGroupRanks(std::string_view text)
{
    int64_t n = 0;
    bool inNumber = false;
    for (char ch : text) {
        const bool digit = ch >= '0' && ch <= '9';
        n += digit && !inNumber ? 1 : 0;
        inNumber = digit;
    }
    return n;
}

std::vector<RankStep> profilerSteps(const KinetoTrace &trace)
{
    constexpr std::string_view prefix = "ProfilerStep#";
    std::vector<RankStep> steps;
    for (const KinetoEvent &e : trace.events) {
        if (e.kind != EventKind::UserAnnotation || !e.has(KinetoEvent::HasTs))
            continue;
        const std::string_view name = trace.str(e.name);
        if (name.substr(0, prefix.size()) != prefix)
            continue;
        RankStep s;
        s.name = std::string(name);
        const std::string_view digits = name.substr(prefix.size());
        std::from_chars(digits.data(), digits.data() + digits.size(), s.number);
        s.startNs = e.tsNs;
        s.endNs = e.endNs();
        steps.push_back(std::move(s));
    }
    std::sort(steps.begin(), steps.end(), [](const RankStep &a, const RankStep &b) { return a.startNs < b.startNs; });
    return steps;
}

} // namespace

int32_t stepOf(const std::vector<RankStep> &steps, int64_t ns)
{
    // Last step starting at or before ns; it must also contain ns.
    auto it = std::upper_bound(steps.begin(), steps.end(), ns,
                               [](int64_t t, const RankStep &s) { return t < s.startNs; });
    if (it == steps.begin())
        return -1;
    --it;
    return ns <= it->endNs ? static_cast<int32_t>(it - steps.begin()) : -1;
}

namespace {

std::vector<RankCollective> collectives(const KinetoTrace &trace, const std::vector<RankStep> &steps, int64_t self)
{
    // Where a kernel carries no collective args, those of the CPU op that launched it
    // (record_param_comms, same External id) stand in.
    std::unordered_map<int64_t, uint32_t> cpuOpWithArgs;
    for (const KinetoCommArgs &a : trace.commArgs) {
        const KinetoEvent &e = trace.events[a.event];
        if (isCpuSideOp(e.kind) && e.has(KinetoEvent::HasExternalId) && a.collectiveName != kNoString)
            cpuOpWithArgs.emplace(e.externalId, a.event);
    }
    // When each correlation's runtime call started (the CPU side of a launch).
    std::unordered_map<int64_t, int64_t> launchAt;
    for (const KinetoEvent &e : trace.events)
        if ((e.kind == EventKind::Runtime || e.kind == EventKind::Driver) && e.correlation >= 0 &&
            e.has(KinetoEvent::HasTs))
            launchAt.emplace(e.correlation, e.tsNs);
    std::vector<RankCollective> out;
    for (uint32_t i = 0; i < trace.events.size(); ++i) {
        const KinetoEvent &e = trace.events[i];
        if (e.kind != EventKind::Kernel || !e.has(KinetoEvent::HasTs))
            continue;
        const std::string_view name = trace.str(e.name);
        const KinetoCommArgs *args = commArgsOf(trace, i);
        StrId processGroup = e.pgName;
        if (!args && e.has(KinetoEvent::HasExternalId)) {
            auto launcher = cpuOpWithArgs.find(e.externalId);
            if (launcher != cpuOpWithArgs.end()) {
                args = commArgsOf(trace, launcher->second);
                processGroup = processGroup != kNoString ? processGroup : trace.events[launcher->second].pgName;
            }
        }
        const bool named = args && args->collectiveName != kNoString;
        if (!named && !isCollectiveKernel(name))
            continue;
        RankCollective c;
        c.kernelName = std::string(name);
        c.collectiveName = named ? std::string(trace.str(args->collectiveName)) : collectiveFromKernel(name);
        c.processGroup = std::string(trace.str(processGroup));
        if (args) {
            const std::string_view ranks = trace.str(args->groupRanks);
            c.groupSize = ranks.empty() ? -1 : countGroupRanks(ranks);
            if (ranks.size() <= kMaxGroupRanksText)
                c.groupRanks = std::string(ranks);
            c.seq = args->seq;
            c.srcRank = args->srcRank;
            c.dstRank = args->dstRank;
            c.peer = p2pPeer(c, self);
        }
        c.stream = e.htaStream();
        c.device = e.device;
        c.startNs = e.tsNs;
        c.endNs = e.endNs();
        c.step = stepOf(steps, c.startNs);
        c.event = i;
        if (const auto l = launchAt.find(e.correlation); e.correlation >= 0 && l != launchAt.end())
            c.launchNs = l->second;
        out.push_back(std::move(c));
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const RankCollective &a, const RankCollective &b) { return a.startNs < b.startNs; });
    return out;
}

// The ProfilerStep#N whose annotation is the critical-path window (same start), -1 none.
int64_t windowStep(const std::vector<RankStep> &steps, const CriticalPathResult &cp)
{
    if (cp.window.wholeTrace || !cp.window.annotationFound || cp.window.instanceFirst != cp.window.instanceLast)
        return -1;
    const int64_t startNs = std::llround(cp.window.startAbsUs * 1000.0);
    for (const RankStep &st : steps)
        if (std::llabs(st.startNs - startNs) <= 1000) // HTA rounds fractional µs
            return st.number;
    return -1;
}

// HTA's bound_by of an edge (spec 3.2), without the data-loading patterns.
uint8_t boundOf(CpEdgeType type, const KinetoEvent &ev, std::string_view name)
{
    switch (type) {
    case CpEdgeType::KernelKernelDelay:
        return static_cast<uint8_t>(CpBound::KernelKernelOverhead);
    case CpEdgeType::KernelLaunchDelay:
        return static_cast<uint8_t>(CpBound::KernelLaunchOverhead);
    case CpEdgeType::Dependency:
    case CpEdgeType::SyncDependency:
        return static_cast<uint8_t>(CpBound::None);
    case CpEdgeType::OperatorKernel:
        break;
    }
    if (ev.htaStream() < 0)
        return static_cast<uint8_t>(CpBound::CpuBound);
    const std::string s = cpShortenName(name);
    const bool comm = s.substr(0, 4) == "nccl" || s.substr(0, 3) == "hip" || s.substr(0, 4) == "hccl" ||
                      s.find("ncclKernel") != std::string::npos;
    return static_cast<uint8_t>(comm ? CpBound::GpuCommunication : CpBound::GpuCompute);
}

RankCpGraph compactGraph(const KinetoTrace &trace, const CriticalPathResult &cp,
                         const std::vector<RankCollective> &colls, int64_t windowStep)
{
    RankCpGraph out;
    if (!cp.success)
        return out;
    const CpGraph &g = cp.graph;
    // HTA's time origin on the rank's own clock: node times are relative to it.
    const double originUs = cp.window.startAbsUs - cp.window.startUs;
    std::unordered_map<uint32_t, int32_t> collectiveOfEvent;
    for (size_t k = 0; k < colls.size(); ++k)
        collectiveOfEvent.emplace(colls[k].event, static_cast<int32_t>(k));
    std::unordered_map<int32_t, int32_t> opOfEvent;
    auto opFor = [&](int32_t ev) {
        auto [it, fresh] = opOfEvent.emplace(ev, static_cast<int32_t>(out.ops.size()));
        if (fresh) {
            const KinetoEvent &e = trace.events[static_cast<uint32_t>(ev)];
            RankCpOp op;
            op.name = std::string(trace.str(e.name));
            op.kind = eventKindName(e.kind);
            op.startNs = e.tsNs;
            op.durNs = std::max<int64_t>(0, e.durNs); // negative: warned at load, no work
            op.stream = isGpuActivity(e.kind) ? e.htaStream() : -1;
            auto c = collectiveOfEvent.find(static_cast<uint32_t>(ev));
            op.collective = c != collectiveOfEvent.end() ? c->second : -1;
            out.ops.push_back(std::move(op));
        }
        return it->second;
    };
    std::vector<int32_t> nodeIndex(g.nodeCount(), -1);
    for (int32_t n : g.graphNodes) {
        const int32_t op = opFor(g.nodeEvent[n]);
        nodeIndex[n] = static_cast<int32_t>(out.nodes.size());
        out.nodes.push_back({std::llround((g.nodeTime[n] + originUs) * 1000.0), op, g.nodeIsStart[n] != 0});
    }
    std::unordered_map<int32_t, uint8_t> criticalBound;
    for (const CpBreakdownRow &row : cp.breakdown)
        criticalBound.emplace(row.edge, static_cast<uint8_t>(row.bound));
    out.edges.reserve(g.edgeCount());
    for (int32_t e = 0; e < g.edgeCount(); ++e) {
        RankCpEdge edge;
        edge.from = nodeIndex[g.edgeFrom[e]];
        edge.to = nodeIndex[g.edgeTo[e]];
        if (edge.from < 0 || edge.to < 0)
            continue;
        edge.weightUs = g.edgeWeight[e];
        edge.type = static_cast<uint8_t>(g.edgeType[e]);
        const int32_t attributed = g.attributedEvent(e);
        if (attributed >= 0)
            edge.op = opFor(attributed);
        else if (g.edgeType[e] == CpEdgeType::OperatorKernel)
            edge.op = out.nodes[edge.from].op; // HTA attributes it to the source event

        auto b = criticalBound.find(e);
        if (b != criticalBound.end()) {
            edge.bound = b->second;
        } else {
            const uint32_t ev = static_cast<uint32_t>(attributed >= 0 ? attributed : g.nodeEvent[g.edgeFrom[e]]);
            edge.bound = boundOf(g.edgeType[e], trace.events[ev], trace.str(trace.events[ev].name));
        }
        out.edges.push_back(edge);
    }
    out.weightUs = cp.weightUs;
    out.windowStep = windowStep;
    for (const CpSummaryRow &row : cp.summary)
        out.summaryPct.emplace_back(row.boundBy, row.percent);
    out.valid = true;
    return out;
}

} // namespace

// The ops from the analysed window's start on (GPU work outlasts the step), at most
// kMaxRankOps of them, names interned per rank.
// Per picked CPU op, the GPU waits of the blocking calls inside it on its thread
// (a sweep per thread with a stack of the open ops: O((ops + calls) x depth)).
static std::vector<int64_t> blockedNs(const KinetoTrace &trace, const std::vector<uint32_t> &picked,
                                      const std::vector<SyncEdge> &sync)
{
    std::vector<int64_t> out(picked.size(), 0);
    struct Item {
        int64_t pid, tid, ts;
        int kind; // 0 op start, 1 wait
        size_t index;
        int64_t endNs, waitNs;
    };
    std::vector<Item> items;
    for (size_t k = 0; k < picked.size(); ++k) {
        const KinetoEvent &e = trace.events[picked[k]];
        if (!isGpuActivity(e.kind))
            items.push_back({e.pid, e.tid, e.tsNs, 0, k, e.endNs(), 0});
    }
    for (const SyncEdge &edge : sync) {
        if (edge.gpuToGpu || edge.waitUs <= 0 || edge.dst >= trace.events.size())
            continue;
        const KinetoEvent &c = trace.events[edge.dst];
        items.push_back({c.pid, c.tid, c.tsNs, 1, 0, c.endNs(), std::llround(edge.waitUs * 1000.0)});
    }
    std::sort(items.begin(), items.end(), [](const Item &a, const Item &b) {
        return std::tie(a.pid, a.tid, a.ts, a.kind) < std::tie(b.pid, b.tid, b.ts, b.kind);
    });
    std::vector<const Item *> open;
    for (size_t a = 0; a < items.size(); ++a) {
        if (a == 0 || items[a].pid != items[a - 1].pid || items[a].tid != items[a - 1].tid)
            open.clear();
        const Item &it = items[a];
        while (!open.empty() && open.back()->endNs <= it.ts)
            open.pop_back();
        if (it.kind == 0) {
            open.push_back(&it);
            continue;
        }
        for (const Item *op : open) // every open op encloses the call
            if (op->endNs >= it.endNs)
                out[op->index] += it.waitNs;
    }
    return out;
}

static void windowOps(const KinetoTrace &trace, RankSummary &s, const std::vector<SyncEdge> &sync)
{
    int64_t fromNs = trace.minTsNs;
    for (const RankStep &st : s.steps)
        if (st.number == s.criticalPath.windowStep && s.criticalPath.windowStep >= 0)
            fromNs = st.startNs;
    std::vector<uint32_t> picked;
    for (uint32_t i = 0; i < trace.events.size(); ++i) {
        const KinetoEvent &e = trace.events[i];
        const bool gpu = isGpuActivity(e.kind);
        if (!(gpu || isCpuSideOp(e.kind)) || !e.has(KinetoEvent::HasTs) || e.ph != 'X' || e.tsNs < fromNs)
            continue;
        if (e.kind == EventKind::UserAnnotation && trace.str(e.name).substr(0, 13) == "ProfilerStep#")
            continue;
        picked.push_back(i);
    }
    std::stable_sort(picked.begin(), picked.end(),
                     [&](uint32_t a, uint32_t b) { return trace.events[a].tsNs < trace.events[b].tsNs; });
    if (picked.size() > kMaxRankOps) {
        s.diagnostics.warning("job.ops_truncated", trace.path + ": the window has " + std::to_string(picked.size()) +
                                              " ops; the first " + std::to_string(kMaxRankOps) +
                                              " are compared across ranks (root causes of waits)",
                     trace.path);
        picked.resize(kMaxRankOps);
    }
    const std::vector<int64_t> blocked = blockedNs(trace, picked, sync);
    std::unordered_map<StrId, uint32_t> nameIndex;
    s.ops.reserve(picked.size());
    for (size_t k = 0; k < picked.size(); ++k) {
        const KinetoEvent &e = trace.events[picked[k]];
        auto [it, added] = nameIndex.try_emplace(e.name, static_cast<uint32_t>(s.opNames.size()));
        if (added)
            s.opNames.emplace_back(trace.str(e.name));
        const int64_t dur = std::max<int64_t>(0, e.durNs);
        s.ops.push_back({it->second, isGpuActivity(e.kind), e.tsNs, dur, std::min(dur, blocked[k])});
    }
}

bool p2pEnds(const RankCollective &c, int64_t self, int64_t &src, int64_t &dst)
{
    src = c.srcRank;
    dst = c.dstRank;
    const std::string &n = c.collectiveName;
    if (n == "send") {
        src = src >= 0 ? src : self;
        dst = dst >= 0 ? dst : c.peer;
    } else if (n == "recv") {
        src = src >= 0 ? src : c.peer;
        dst = dst >= 0 ? dst : self;
    } else if (n == "sendrecv" || n.empty()) {
        // One rank only: it is the other side when it is not self.
        if (src < 0 && dst >= 0 && dst != self)
            src = self;
        else if (dst < 0 && src >= 0 && src != self)
            dst = self;
    } else {
        return false; // a collective's "Src Rank" (a broadcast's root) is no p2p side
    }
    if (self < 0 || src < 0 || dst < 0 || src == dst)
        return false;
    // A send that is not self's, a recv that is not to self: not a side of this rank.
    return n == "send" ? src == self : n == "recv" ? dst == self : (src == self || dst == self);
}

int64_t p2pPeer(const RankCollective &c, int64_t self)
{
    int64_t src = -1, dst = -1;
    if (p2pEnds(c, self, src, dst))
        return src == self ? dst : src;
    // Rank unknown: the name says which side the arg names.
    if (c.collectiveName == "send" && c.dstRank >= 0)
        return c.dstRank;
    if (c.collectiveName == "recv" && c.srcRank >= 0)
        return c.srcRank;
    return -1;
}

RankSummary extractRankSummary(const Analysis &analysis, int exitCode)
{
    RankSummary s;
    s.exitCode = exitCode;
    s.hostPath = analysis.hostPath;
    s.devicePath = analysis.devicePath;
    s.pid = analysis.devicePid;
    s.diagnostics = analysis.diagnostics;
    if (analysis.request.rank)
        s.rank = *analysis.request.rank;
    if (analysis.link) {
        const LinkCounts &c = analysis.link->counts;
        s.link.present = true;
        s.link.hostOps = c.hostOps;
        s.link.hostOpsLinked = c.hostOpsLinked;
        s.link.hostOpsWithTwin = c.hostOpsWithTwin;
        s.link.kinetoCpuOps = c.kinetoCpuOps;
        s.link.kinetoCpuOpsLinked = c.kinetoCpuOpsLinked;
        s.link.gpuOps = c.gpuOps;
        s.link.gpuOpsLinked = c.gpuOpsLinked;
        s.link.coverage = analysis.link->coverage();
    }
    if (!analysis.device)
        return s;
    const KinetoTrace &trace = *analysis.device;
    if (trace.distributed.rank)
        s.rank = *trace.distributed.rank;
    s.worldSize = trace.distributed.worldSize;
    for (const ProcessGroupConfig &g : trace.distributed.groups)
        if (const auto at = std::find(g.ranks.begin(), g.ranks.end(), s.rank); at != g.ranks.end())
            s.processGroups.push_back({g.name, g.desc, static_cast<int64_t>(g.ranks.size()), at - g.ranks.begin()});
    s.traceStartNs = trace.minTsNs;
    s.traceEndNs = trace.maxEndNs;
    s.baseTimeNanoseconds = trace.baseTimeNanoseconds;
    s.steps = profilerSteps(trace);
    s.collectives = collectives(trace, s.steps, s.rank);
    sizeRankCollectives(analysis, s);
    s.host = rankHost(trace, s.rank, analysis.devicePid);
    if (analysis.criticalPath)
        s.criticalPath = compactGraph(trace, *analysis.criticalPath, s.collectives,
                                      windowStep(s.steps, *analysis.criticalPath));
    windowOps(trace, s, analysis.syncEdges);
    for (const StepResult &step : analysis.steps) {
        for (RankStep &st : s.steps) {
            if (st.name != step.name || std::llabs(st.startNs - std::llround(step.startUs * 1000.0)) > 1000)
                continue;
            if (step.success) {
                st.criticalPathUs = step.weightUs;
                for (const CpSummaryRow &row : step.summary)
                    st.summaryPct.emplace_back(row.boundBy, row.percent);
            }
            break;
        }
    }
    return s;
}

RankSummary extractRankCollectives(const Analysis &analysis)
{
    RankSummary s;
    if (!analysis.device)
        return s;
    s.steps = profilerSteps(*analysis.device);
    s.collectives = collectives(*analysis.device, s.steps, analysis.device->distributed.rank.value_or(-1));
    sizeRankCollectives(analysis, s);
    return s;
}

} // namespace syncscope
