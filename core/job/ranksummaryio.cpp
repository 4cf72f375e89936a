// SPDX-License-Identifier: MIT
// RankSummary <-> bytes (MPI transport). Little-endian fixed-width fields,
// strings and vectors prefixed by a 32-bit count; every read is bounds-checked
// and every count is checked against the bytes left before anything is allocated.
// Values are checked too: a summary read back holds only what a loaded trace can
// (a rank 0..kMaxJobWorldSize-1, times within the readers' range, finite numbers).
#include "analysis/ranksummary.h"

#include "analysis/busbw.h"
#include "discovery.h"
#include "summarybytes.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace syncscope {

namespace {

using namespace summarybytes;

constexpr char kMagic[4] = {'S', 'S', 'R', 'S'};
// 3: RankCollective::busType and messageBytes, RankSummary::breakdown.
// 4: RankCollective::srcRank and dstRank (after peer).
// 5: RankSummary::processGroups, gpu and host (after breakdown).
constexpr uint32_t kVersion = 5; // bump on any layout change

using Pairs = std::vector<std::pair<std::string, double>>;

void writePairs(Writer &w, const Pairs &pairs)
{
    w.num(static_cast<uint32_t>(pairs.size()));
    for (const auto &[name, value] : pairs) {
        w.str(name);
        w.num(value);
    }
}

Pairs readPairs(Reader &r)
{
    Pairs pairs(r.count(12, "bound-by rows"));
    for (auto &[name, value] : pairs) {
        name = r.str();
        value = finite(r, "a bound-by share");
    }
    return pairs;
}

void writeDiagnostics(Writer &w, const Diagnostics &d)
{
    w.num(static_cast<uint32_t>(d.items().size()));
    for (const Diagnostic &x : d.items()) {
        w.num(static_cast<uint8_t>(x.severity));
        w.str(x.code);
        w.str(x.message);
        w.str(x.file);
        w.num(x.offset);
        w.num(x.count);
    }
}

Diagnostics readDiagnostics(Reader &r)
{
    Diagnostics d;
    const size_t n = r.count(1 + 12 + 16, "diagnostics");
    for (size_t i = 0; i < n; ++i) {
        Diagnostic x;
        const uint8_t severity = r.num<uint8_t>();
        if (severity > static_cast<uint8_t>(Severity::Error))
            throw Corrupt("a diagnostic has an unknown severity " + std::to_string(severity));
        x.severity = static_cast<Severity>(severity);
        x.code = r.str();
        x.message = r.str();
        x.file = r.str();
        x.offset = r.num<int64_t>();
        x.count = r.num<int64_t>();
        d.addItem(std::move(x));
    }
    return d;
}

} // namespace

std::string serializeRankSummary(const RankSummary &s)
{
    Writer w;
    w.out.append(kMagic, 4);
    w.num(kVersion);
    w.num(s.rank);
    w.optional(s.worldSize);
    w.str(s.hostPath);
    w.str(s.devicePath);
    w.num(static_cast<int32_t>(s.exitCode));
    w.num(s.pid);
    w.num(s.traceStartNs);
    w.num(s.traceEndNs);
    w.optional(s.baseTimeNanoseconds);
    const RankLinkStats &l = s.link;
    w.num(static_cast<uint8_t>(l.present));
    for (int64_t v : {l.hostOps, l.hostOpsLinked, l.hostOpsWithTwin, l.kinetoCpuOps, l.kinetoCpuOpsLinked, l.gpuOps,
                      l.gpuOpsLinked})
        w.num(v);
    w.num(l.coverage);
    w.num(static_cast<uint32_t>(s.steps.size()));
    for (const RankStep &st : s.steps) {
        w.str(st.name);
        w.num(st.number);
        w.num(st.startNs);
        w.num(st.endNs);
        w.num(st.criticalPathUs);
        writePairs(w, st.summaryPct);
    }
    w.num(static_cast<uint32_t>(s.collectives.size()));
    for (const RankCollective &c : s.collectives) {
        w.str(c.kernelName);
        w.str(c.collectiveName);
        w.str(c.processGroup);
        w.str(c.groupRanks);
        for (int64_t v : {c.groupSize, c.seq, c.peer, c.srcRank, c.dstRank, c.stream, c.device, c.startNs, c.endNs,
                          c.launchNs})
            w.num(v);
        w.num(c.step);
        w.num(c.event);
        w.num(c.busType);
        w.num(c.messageBytes);
    }
    const RankCpGraph &g = s.criticalPath;
    w.num(static_cast<uint8_t>(g.valid));
    w.num(static_cast<uint32_t>(g.ops.size()));
    for (const RankCpOp &op : g.ops) {
        w.str(op.name);
        w.str(op.kind);
        w.num(op.startNs);
        w.num(op.durNs);
        w.num(op.stream);
        w.num(op.collective);
    }
    w.num(static_cast<uint32_t>(g.nodes.size()));
    for (const RankCpNode &n : g.nodes) {
        w.num(n.timeNs);
        w.num(n.op);
        w.num(static_cast<uint8_t>(n.isStart));
    }
    w.num(static_cast<uint32_t>(g.edges.size()));
    for (const RankCpEdge &e : g.edges) {
        w.num(e.from);
        w.num(e.to);
        w.num(e.weightUs);
        w.num(e.type);
        w.num(e.bound);
        w.num(e.op);
    }
    w.num(g.weightUs);
    w.num(g.windowStep);
    writePairs(w, g.summaryPct);
    w.num(static_cast<uint32_t>(s.opNames.size()));
    for (const std::string &name : s.opNames)
        w.str(name);
    w.num(static_cast<uint32_t>(s.ops.size()));
    for (const RankOp &op : s.ops) {
        w.num(op.name);
        w.num(static_cast<uint8_t>(op.gpu));
        w.num(op.startNs);
        w.num(op.durNs);
        w.num(op.waitNs);
    }
    writeDiagnostics(w, s.diagnostics);
    w.num(static_cast<uint32_t>(s.outputs.size()));
    for (const auto &[kind, path] : s.outputs) {
        w.str(kind);
        w.str(path);
    }
    writeRankBreakdown(w, s.breakdown);
    w.num(static_cast<uint32_t>(s.processGroups.size()));
    for (const RankProcessGroup &g : s.processGroups) {
        w.str(g.name);
        w.str(g.desc);
        w.num(g.size);
        w.num(g.index);
    }
    const RankGpuTimeline &gpu = s.gpu;
    w.num(static_cast<uint8_t>(gpu.present));
    w.num(static_cast<uint32_t>(gpu.names.size()));
    for (const std::string &name : gpu.names)
        w.str(name);
    w.num(static_cast<uint32_t>(gpu.ops.size()));
    for (const RankGpuOp &op : gpu.ops) {
        w.num(op.name);
        w.num(op.stream);
        w.num(op.device);
        w.num(op.step);
        w.num(op.collective);
        w.num(op.startNs);
        w.num(op.durNs);
    }
    w.num(static_cast<uint32_t>(gpu.deps.size()));
    for (const RankGpuDep &d : gpu.deps) {
        w.num(d.from);
        w.num(d.to);
    }
    w.str(s.host);
    return std::move(w.out);
}

bool deserializeRankSummary(std::string_view bytes, RankSummary &out, std::string &error)
{
    try {
        Reader r(bytes);
        r.need(4, "the magic");
        if (std::memcmp(bytes.data(), kMagic, 4) != 0)
            throw Corrupt("not a rank summary (bad magic)");
        for (int i = 0; i < 4; ++i)
            r.num<uint8_t>();
        const uint32_t version = r.num<uint32_t>();
        if (version != kVersion)
            throw Corrupt("rank summary version " + std::to_string(version) + " is not supported (expected " +
                          std::to_string(kVersion) + ")");
        RankSummary s;
        s.rank = r.num<int64_t>();
        if (s.rank < 0 || s.rank >= kMaxJobWorldSize) // discovery refuses these: no summary has one
            throw Corrupt("rank " + std::to_string(s.rank) + " is not a rank (0 to " +
                          std::to_string(kMaxJobWorldSize - 1) + ")");
        s.worldSize = r.optional();
        if (s.worldSize && (*s.worldSize < 1 || *s.worldSize > kMaxJobWorldSize))
            s.worldSize.reset(); // as discovery ignores it
        s.hostPath = r.str();
        s.devicePath = r.str();
        s.exitCode = r.num<int32_t>();
        s.pid = r.num<int64_t>();
        s.traceStartNs = readTime(r, "the trace start");
        s.traceEndNs = readTime(r, "the trace end");
        s.baseTimeNanoseconds = r.optional();
        RankLinkStats &l = s.link;
        l.present = r.flag();
        for (int64_t *v : {&l.hostOps, &l.hostOpsLinked, &l.hostOpsWithTwin, &l.kinetoCpuOps, &l.kinetoCpuOpsLinked,
                           &l.gpuOps, &l.gpuOpsLinked})
            *v = r.num<int64_t>();
        l.coverage = finite(r, "the link coverage");
        s.steps.resize(r.count(4 + 24 + 8 + 4, "steps"));
        for (RankStep &st : s.steps) {
            st.name = r.str();
            st.number = r.num<int64_t>();
            st.startNs = readTime(r, "a step start");
            st.endNs = readTime(r, "a step end");
            st.criticalPathUs = finite(r, "a step's critical path");
            st.summaryPct = readPairs(r);
        }
        s.collectives.resize(r.count(16 + 80 + 8 + 9, "collectives"));
        for (RankCollective &c : s.collectives) {
            c.kernelName = r.str();
            c.collectiveName = r.str();
            c.processGroup = r.str();
            c.groupRanks = r.str();
            for (int64_t *v : {&c.groupSize, &c.seq, &c.peer, &c.srcRank, &c.dstRank, &c.stream, &c.device})
                *v = r.num<int64_t>();
            for (int64_t v : {c.peer, c.srcRank, c.dstRank}) // global ranks, as discovery accepts them
                if (v < -1 || v >= kMaxJobWorldSize)
                    throw Corrupt("a collective names rank " + std::to_string(v) + " as its peer");
            c.startNs = readTime(r, "a collective start");
            c.endNs = readTime(r, "a collective end");
            c.launchNs = r.num<int64_t>();
            if (c.launchNs != -1 && (c.launchNs < kMinTimeNs || c.launchNs > kMaxTimeNs))
                throw Corrupt("a collective launch time is outside the range a trace can hold");
            c.step = r.num<int32_t>();
            if (c.step < -1 || c.step >= static_cast<int32_t>(s.steps.size()))
                throw Corrupt("a collective names step " + std::to_string(c.step) + " of " +
                              std::to_string(s.steps.size()));
            c.event = r.num<uint32_t>();
            c.busType = r.num<uint8_t>();
            if (c.busType > static_cast<uint8_t>(CollectiveType::Scatter))
                throw Corrupt("a collective has an unknown type " + std::to_string(c.busType));
            c.messageBytes = r.num<int64_t>();
            if (c.messageBytes < -1)
                throw Corrupt("a collective has a message of " + std::to_string(c.messageBytes) + " bytes");
        }
        RankCpGraph &g = s.criticalPath;
        g.valid = r.flag();
        g.ops.resize(r.count(8 + 28, "critical-path ops"));
        for (RankCpOp &op : g.ops) {
            op.name = r.str();
            op.kind = r.str();
            op.startNs = readTime(r, "a critical-path op start");
            op.durNs = readSpan(r, "a critical-path op duration");
            op.stream = r.num<int64_t>();
            op.collective = r.num<int32_t>();
            if (op.collective < -1 || op.collective >= static_cast<int32_t>(s.collectives.size()))
                throw Corrupt("a critical-path op names collective " + std::to_string(op.collective));
        }
        g.nodes.resize(r.count(13, "critical-path nodes"));
        for (RankCpNode &n : g.nodes) {
            n.timeNs = readTime(r, "a critical-path node time");
            n.op = r.num<int32_t>();
            if (n.op < -1 || n.op >= static_cast<int32_t>(g.ops.size()))
                throw Corrupt("a critical-path node names op " + std::to_string(n.op));
            n.isStart = r.flag();
        }
        g.edges.resize(r.count(22, "critical-path edges"));
        const auto nodes = static_cast<int32_t>(g.nodes.size());
        for (RankCpEdge &e : g.edges) {
            e.from = r.num<int32_t>();
            e.to = r.num<int32_t>();
            if (e.from < 0 || e.from >= nodes || e.to < 0 || e.to >= nodes)
                throw Corrupt("a critical-path edge names a node out of range");
            e.weightUs = finite(r, "a critical-path edge weight");
            e.type = r.num<uint8_t>();
            e.bound = r.num<uint8_t>();
            e.op = r.num<int32_t>();
            if (e.op < -1 || e.op >= static_cast<int32_t>(g.ops.size()))
                throw Corrupt("a critical-path edge names op " + std::to_string(e.op));
        }
        g.weightUs = finite(r, "the critical-path weight");
        g.windowStep = r.num<int64_t>();
        g.summaryPct = readPairs(r);
        s.opNames.resize(r.count(4, "op names"));
        for (std::string &name : s.opNames)
            name = r.str();
        s.ops.resize(r.count(4 + 1 + 24, "ops"));
        for (RankOp &op : s.ops) {
            op.name = r.num<uint32_t>();
            if (op.name >= s.opNames.size())
                throw Corrupt("an op names string " + std::to_string(op.name) + " of " +
                              std::to_string(s.opNames.size()));
            op.gpu = r.flag();
            op.startNs = readTime(r, "an op start");
            op.durNs = readSpan(r, "an op duration");
            op.waitNs = readSpan(r, "an op's wait");
        }
        s.diagnostics = readDiagnostics(r);
        s.outputs.resize(r.count(8, "outputs"));
        for (auto &[kind, path] : s.outputs) {
            kind = r.str();
            path = r.str();
        }
        s.breakdown = readRankBreakdown(r);
        s.processGroups.resize(r.count(8 + 16, "process groups"));
        for (RankProcessGroup &g : s.processGroups) {
            g.name = r.str();
            g.desc = r.str();
            g.size = r.num<int64_t>();
            g.index = r.num<int64_t>();
            if (g.size < 1 || g.size > kMaxJobWorldSize || g.index < 0 || g.index >= g.size)
                throw Corrupt("a process group of " + std::to_string(g.size) + " ranks puts this rank at " +
                              std::to_string(g.index));
        }
        RankGpuTimeline &gpu = s.gpu;
        gpu.present = r.flag();
        gpu.names.resize(r.count(4, "GPU op names"));
        for (std::string &name : gpu.names)
            name = r.str();
        gpu.ops.resize(r.count(4 * 5 + 16, "GPU ops"));
        for (RankGpuOp &op : gpu.ops) {
            op.name = r.num<uint32_t>();
            if (op.name >= gpu.names.size())
                throw Corrupt("a GPU op names string " + std::to_string(op.name) + " of " +
                              std::to_string(gpu.names.size()));
            op.stream = r.num<int32_t>();
            op.device = r.num<int32_t>();
            op.step = r.num<int32_t>();
            if (op.step < -1 || op.step >= static_cast<int32_t>(s.steps.size()))
                throw Corrupt("a GPU op names step " + std::to_string(op.step));
            op.collective = r.num<int32_t>();
            if (op.collective < -1 || op.collective >= static_cast<int32_t>(s.collectives.size()))
                throw Corrupt("a GPU op names collective " + std::to_string(op.collective));
            op.startNs = readTime(r, "a GPU op start");
            op.durNs = readSpan(r, "a GPU op duration");
        }
        gpu.deps.resize(r.count(8, "GPU op dependencies"));
        for (RankGpuDep &d : gpu.deps) {
            d.from = r.num<uint32_t>();
            d.to = r.num<uint32_t>();
            if (d.from >= gpu.ops.size() || d.to >= gpu.ops.size())
                throw Corrupt("a GPU op dependency names an op out of range");
        }
        s.host = r.str();
        if (!r.atEnd())
            throw Corrupt(std::to_string(bytes.size() - r.position()) + " bytes left over after the summary");
        out = std::move(s);
        return true;
    } catch (const Corrupt &e) {
        error = std::string("corrupt rank summary: ") + e.what();
        return false;
    }
}

} // namespace syncscope
