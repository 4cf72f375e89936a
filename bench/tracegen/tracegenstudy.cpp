// SPDX-License-Identifier: MIT
// Study-job mode of the trace generator: a dp x pp training job (GPipe schedule, one
// GPU stream per rank) whose straggler what-if figures are known by construction.
// The job is a discrete-event simulation of its own (no Syncscope code): compute ops
// run back to back on the rank's stream; a communication op (a send/recv pair, a
// data-parallel reduce-scatter) ends on every participant at the last arrival plus
// its transfer. The same simulation, with ideal durations (compute: the mean of the
// kernel name over all ranks and steps; communication: the median transfer of its
// type) and the measured step starts, gives S, S per step, S_t, S_w, S per stage,
// M_W and M_S, written to DIR/truth.json.
#include "tracegen.h"
#include "tracegenformat.h"

#include "io/outputfile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numeric>
#include <stdexcept>

namespace tracegen {

namespace {

using syncscope::OutputFile;

constexpr int64_t kBaseNs = 1764580000000000000LL / 1000; // the traces' µs base, in ns (as tracegen.cpp)
constexpr int64_t kPid = 31337;
constexpr int64_t kTid = 31337;
constexpr int kStream = 7;
constexpr int64_t kP2pNelems = 4194304;    // bf16 activations / their gradients per microbatch
constexpr int64_t kGradNelems = 67108864;  // bf16 gradients reduce-scattered over the DP group

enum OpKind : uint8_t { Fwd, Bwd, Optimizer, Send, Recv, ReduceScatter };
// Op types of the truth: the three compute kernels, p2p, the reduce-scatter.
enum TypeId : int { TFwd, TBwd, TOpt, TP2p, TRs, TCount };

const char *kComputeNames[] = {"fwd_gemm_kernel", "bwd_gemm_kernel", "optimizer_kernel"};

struct Op {
    OpKind kind;
    int32_t inst = -1;   // communication: the instance (per step)
    int64_t durNs = 0;   // compute: the measured duration
    int micro = 0;
    int peer = -1;       // p2p: the other side's global rank
};

struct Inst {
    int type = TP2p;
    int64_t transferNs = 0;            // measured: end - last arrival
    std::vector<std::pair<int, int>> parts; // (rank, op index)
};

struct Step {
    std::vector<std::vector<Op>> ops; // per rank
    std::vector<Inst> insts;
};

// Deterministic uniform in [-1, 1] from a few integers (splitmix64).
double unit(uint64_t seed, uint64_t a, uint64_t b, uint64_t c)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ULL ^ (a + 1) * 0xBF58476D1CE4E5B9ULL ^ (b + 7) * 0x94D049BB133111EBULL ^
                 (c + 13) * 0xD6E8FEB86659FD93ULL;
    for (int i = 0; i < 2; ++i) {
        z += 0x9E3779B97F4A7C15ULL;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
    }
    return double(z >> 11) / double(1ULL << 52) - 1.0;
}

double medianOf(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

using format::rankListText;

std::string num(double v)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

using format::fmtNs;

class Study
{
public:
    explicit Study(const StudyJobOptions &o) : m_o(o), m_world(o.dp * o.pp) {}

    int dpOf(int r) const { return r % m_o.dp; }
    int stageOf(int r) const { return r / m_o.dp; }
    int rankAt(int d, int p) const { return d + m_o.dp * p; }

    void build()
    {
        const int M = m_o.microbatches;
        m_steps.resize(static_cast<size_t>(m_o.steps));
        for (int n = 0; n < m_o.steps; ++n) {
            Step &st = m_steps[static_cast<size_t>(n)];
            st.ops.resize(static_cast<size_t>(m_world));
            for (int r = 0; r < m_world; ++r) {
                const int p = stageOf(r);
                auto &ops = st.ops[static_cast<size_t>(r)];
                auto compute = [&](OpKind k) { ops.push_back({k, -1, computeNs(r, n, k, int(ops.size())), 0, -1}); };
                auto comm = [&](OpKind k, int m, int peer) { ops.push_back({k, -1, 0, m, peer}); };
                for (int m = 0; m < M; ++m) {
                    if (p > 0)
                        comm(Recv, m, rankAt(dpOf(r), p - 1));
                    compute(Fwd);
                    ops.back().micro = m;
                    if (p < m_o.pp - 1)
                        comm(Send, m, rankAt(dpOf(r), p + 1));
                }
                for (int m = 0; m < M; ++m) {
                    if (p < m_o.pp - 1)
                        comm(Recv, m, rankAt(dpOf(r), p + 1));
                    compute(Bwd);
                    ops.back().micro = m;
                    if (p > 0)
                        comm(Send, m, rankAt(dpOf(r), p - 1));
                }
                if (m_o.dp > 1)
                    comm(ReduceScatter, 0, -1);
                compute(Optimizer);
            }
            // Instances: each send with the recv of the same microbatch and direction; the
            // reduce-scatter of each stage's DP group.
            for (int r = 0; r < m_world; ++r) {
                auto &ops = st.ops[static_cast<size_t>(r)];
                for (size_t i = 0; i < ops.size(); ++i) {
                    Op &op = ops[i];
                    if (op.kind != Send)
                        continue;
                    // The peer receives from r in one direction only (forward: from p-1, backward: from p+1).
                    auto &peerOps = st.ops[static_cast<size_t>(op.peer)];
                    size_t j = 0;
                    for (; j < peerOps.size(); ++j) {
                        const Op &q = peerOps[j];
                        if (q.kind == Recv && q.peer == r && q.micro == op.micro)
                            break;
                    }
                    if (j == peerOps.size())
                        throw std::logic_error("study job: a send without its recv");
                    Inst in;
                    in.type = TP2p;
                    in.transferNs = transferNs(m_o.p2pUs, n, static_cast<uint64_t>(st.insts.size()));
                    in.parts = {{r, int(i)}, {op.peer, int(j)}};
                    op.inst = peerOps[j].inst = int(st.insts.size());
                    st.insts.push_back(std::move(in));
                }
            }
            if (m_o.dp > 1) {
                for (int p = 0; p < m_o.pp; ++p) {
                    Inst in;
                    in.type = TRs;
                    in.transferNs = transferNs(m_o.reduceScatterUs, n, 1000000u + static_cast<uint64_t>(p));
                    for (int d = 0; d < m_o.dp; ++d) {
                        const int r = rankAt(d, p);
                        auto &ops = st.ops[static_cast<size_t>(r)];
                        const int i = int(ops.size()) - 2;
                        ops[static_cast<size_t>(i)].inst = int(st.insts.size());
                        in.parts.push_back({r, i});
                    }
                    st.insts.push_back(std::move(in));
                }
            }
        }
    }

    int64_t computeNs(int r, int n, OpKind k, int index) const
    {
        double us = k == Fwd ? m_o.fwdUs : k == Bwd ? m_o.bwdUs : m_o.optimizerUs;
        if (r == m_o.slowRank)
            us *= m_o.slowFactor;
        if (stageOf(r) == m_o.slowStage)
            us *= m_o.stageFactor;
        if (!m_o.slowOp.empty() && m_o.slowOp == kComputeNames[k] && n % 2 == 1)
            us *= m_o.opFactor;
        if (m_o.jitter)
            us *= 1.0 + 0.005 * unit(m_o.seed, uint64_t(r), uint64_t(n), uint64_t(index));
        return std::max<int64_t>(1, std::llround(us * 1000.0));
    }

    int64_t transferNs(double us, int n, uint64_t index) const
    {
        if (m_o.jitter)
            us *= 1.0 + 0.005 * unit(m_o.seed + 77, 999999u, uint64_t(n), index);
        return std::max<int64_t>(1, std::llround(us * 1000.0));
    }

    // Ideal durations: compute types' means over all ranks and steps, comm types' median transfers.
    void ideals()
    {
        std::vector<double> sum(TCount, 0), count(TCount, 0);
        std::vector<std::vector<double>> transfers(TCount);
        for (const Step &st : m_steps) {
            for (const auto &ops : st.ops)
                for (const Op &op : ops)
                    if (op.inst < 0) {
                        sum[op.kind] += double(op.durNs);
                        count[op.kind] += 1;
                    }
            for (const Inst &in : st.insts)
                transfers[static_cast<size_t>(in.type)].push_back(double(in.transferNs));
        }
        m_ideal.assign(TCount, 0);
        m_present.assign(TCount, false);
        for (int t = TFwd; t <= TOpt; ++t) {
            m_present[t] = count[t] > 0;
            m_ideal[t] = count[t] > 0 ? sum[t] / count[t] : 0;
        }
        for (int t = TP2p; t <= TRs; ++t) {
            m_present[t] = !transfers[t].empty();
            m_ideal[t] = medianOf(transfers[t]);
        }
    }

    // One timeline of step n starting at startNs. An op keeps its measured duration when its
    // rank is in `measuredRank` or its type in `measuredType`; an instance keeps its measured
    // transfer when its type is in `measuredType` or any participant's rank is in `measuredRank`.
    // Returns the step's end (the latest op end); fills starts/ends when given.
    double simulateStep(int n, double startNs, const std::vector<char> &measuredRank,
                        const std::vector<char> &measuredType, std::vector<std::vector<double>> *starts = nullptr,
                        std::vector<std::vector<double>> *ends = nullptr) const
    {
        const Step &st = m_steps[static_cast<size_t>(n)];
        const size_t W = static_cast<size_t>(m_world);
        std::vector<size_t> pos(W, 0);
        std::vector<double> t(W, startNs);
        std::vector<int> arrived(st.insts.size(), 0);
        std::vector<double> lastArrival(st.insts.size(), -1e300);
        if (starts) {
            starts->assign(W, {});
            ends->assign(W, {});
            for (size_t r = 0; r < W; ++r) {
                (*starts)[r].assign(st.ops[r].size(), 0);
                (*ends)[r].assign(st.ops[r].size(), 0);
            }
        }
        std::vector<int> queue(W);
        std::iota(queue.begin(), queue.end(), 0);
        double stepEnd = startNs;
        size_t done = 0;
        while (!queue.empty()) {
            const int r = queue.back();
            queue.pop_back();
            const auto &ops = st.ops[static_cast<size_t>(r)];
            size_t &i = pos[static_cast<size_t>(r)];
            double &now = t[static_cast<size_t>(r)];
            while (i < ops.size()) {
                const Op &op = ops[i];
                if (op.inst < 0) {
                    const bool measured = measuredRank[static_cast<size_t>(r)] || measuredType[op.kind];
                    const double dur = measured ? double(op.durNs) : m_ideal[op.kind];
                    if (starts) {
                        (*starts)[static_cast<size_t>(r)][i] = now;
                        (*ends)[static_cast<size_t>(r)][i] = now + dur;
                    }
                    now += dur;
                    ++i;
                    continue;
                }
                const Inst &in = st.insts[static_cast<size_t>(op.inst)];
                if (starts)
                    (*starts)[static_cast<size_t>(r)][i] = now;
                lastArrival[static_cast<size_t>(op.inst)] = std::max(lastArrival[static_cast<size_t>(op.inst)], now);
                if (++arrived[static_cast<size_t>(op.inst)] < int(in.parts.size()))
                    break; // waits for the others
                bool measured = measuredType[static_cast<size_t>(in.type)] != 0;
                for (const auto &[pr, pi] : in.parts)
                    measured = measured || measuredRank[static_cast<size_t>(pr)];
                const double end = lastArrival[static_cast<size_t>(op.inst)] +
                                   (measured ? double(in.transferNs) : m_ideal[static_cast<size_t>(in.type)]);
                for (const auto &[pr, pi] : in.parts) {
                    if (ends)
                        (*ends)[static_cast<size_t>(pr)][static_cast<size_t>(pi)] = end;
                    t[static_cast<size_t>(pr)] = end;
                    ++pos[static_cast<size_t>(pr)];
                    if (pr != r)
                        queue.push_back(pr);
                }
            }
            if (i == ops.size()) {
                ++done;
                stepEnd = std::max(stepEnd, now);
            }
        }
        if (done != W)
            throw std::logic_error("study job: the schedule deadlocks");
        return stepEnd;
    }

    // Mean step time of a scenario over the steps (µs), with the measured step starts.
    double meanStep(const std::vector<char> &measuredRank, const std::vector<char> &measuredType,
                    std::vector<double> *perStep = nullptr) const
    {
        double sum = 0;
        for (int n = 0; n < m_o.steps; ++n) {
            const double T = m_stepStart[static_cast<size_t>(n)];
            const double us = (simulateStep(n, T, measuredRank, measuredType) - T) / 1000.0;
            if (perStep)
                perStep->push_back(us);
            sum += us;
        }
        return sum / m_o.steps;
    }

    StudyJobResult run()
    {
        build();
        ideals();
        const size_t W = static_cast<size_t>(m_world);
        // The measured timeline: steps one after the other.
        std::vector<char> all(W, 1), none(W, 0), noType(TCount, 0);
        m_starts.resize(m_steps.size());
        m_ends.resize(m_steps.size());
        double T = m_o.baseUs * 1000.0;
        for (int n = 0; n < m_o.steps; ++n) {
            m_stepStart.push_back(T);
            const double end = simulateStep(n, T, all, noType, &m_starts[size_t(n)], &m_ends[size_t(n)]);
            m_stepEnd.push_back(end);
            T = end + m_o.stepGapUs * 1000.0;
        }
        StudyJobResult res;
        res.dp = m_o.dp;
        res.pp = m_o.pp;
        res.world = m_world;
        const double measured = meanStep(all, noType, &res.measuredStepsUs);
        const double ideal = meanStep(none, noType, &res.idealStepsUs);
        res.measuredStepUs = measured;
        res.idealStepUs = ideal;
        res.slowdown = measured / ideal;
        for (size_t n = 0; n < res.measuredStepsUs.size(); ++n)
            res.stepSlowdown.push_back(res.measuredStepsUs[n] / res.idealStepsUs[n]);
        for (int t = 0; t < TCount; ++t) {
            if (!m_present[t])
                continue;
            std::vector<char> type(TCount, 0);
            type[t] = 1;
            res.byOpType.emplace_back(typeName(t), meanStep(none, type) / ideal);
            res.opTypeIdealUs.emplace_back(typeName(t), m_ideal[t] / 1000.0);
        }
        for (int w = 0; w < m_o.dp; ++w) {
            std::vector<char> keep(W, 0);
            for (int r = 0; r < m_world; ++r)
                keep[size_t(r)] = dpOf(r) == w;
            res.byDpRank.push_back(meanStep(keep, noType) / ideal);
        }
        if (m_o.pp > 1)
            for (int p = 0; p < m_o.pp; ++p) {
                std::vector<char> keep(W, 0);
                for (int r = 0; r < m_world; ++r)
                    keep[size_t(r)] = stageOf(r) == p;
                res.byStage.push_back(meanStep(keep, noType) / ideal);
            }
        const bool slowed = std::abs(res.slowdown - 1.0) > 0.001;
        // M_W: the worst ceil(3 %) of ranks by min(S_w, S_stage), set to ideal.
        std::vector<int> order(W);
        std::iota(order.begin(), order.end(), 0);
        auto score = [&](int r) {
            const double w = res.byDpRank[size_t(dpOf(r))];
            return m_o.pp > 1 ? std::min(w, res.byStage[size_t(stageOf(r))]) : w;
        };
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return score(a) > score(b); });
        const size_t worst = std::min(W, static_cast<size_t>(std::ceil(0.03 * double(W) - 1e-9)));
        res.worstRanks.assign(order.begin(), order.begin() + static_cast<long>(worst));
        std::vector<char> keep(W, 1);
        for (int r : res.worstRanks)
            keep[size_t(r)] = 0;
        const double removedW = meanStep(keep, noType);
        if (slowed)
            res.mW = (measured - removedW) / (measured - ideal);
        if (m_o.pp > 1) {
            std::vector<char> keepS(W, 1);
            for (int r = 0; r < m_world; ++r)
                keepS[size_t(r)] = stageOf(r) != m_o.pp - 1;
            const double removedS = meanStep(keepS, noType);
            if (slowed)
                res.mS = (measured - removedS) / (measured - ideal);
        }
        for (int r = 0; r < m_world; ++r)
            res.clockOffsetUs.push_back(double(offsetNs(r)) / 1000.0);
        if (m_o.write) {
            std::filesystem::create_directories(m_o.dir);
            for (int r = 0; r < m_world; ++r)
                writeRank(r, res);
            writeTruth(res);
        }
        return res;
    }

    static std::string typeName(int t)
    {
        if (t <= TOpt)
            return kComputeNames[t];
        return t == TP2p ? "sendrecv " + std::to_string(kP2pNelems)
                         : "_reduce_scatter_base " + std::to_string(kGradNelems);
    }

    int64_t offsetNs(int r) const
    {
        if (r == 0 || m_o.maxClockOffsetUs <= 0)
            return 0;
        return std::llround(unit(m_o.seed + 4242, uint64_t(r), 0, 0) * m_o.maxClockOffsetUs * 1000.0);
    }

    // ---------- the traces
    struct Group {
        std::string name, desc;
        std::vector<int> ranks;
    };

    std::vector<Group> groups() const
    {
        std::vector<Group> g;
        std::vector<int> all(static_cast<size_t>(m_world));
        std::iota(all.begin(), all.end(), 0);
        g.push_back({"0", "default_pg", all});
        for (int p = 0; p < m_o.pp; ++p) {
            Group d{std::to_string(1 + p), "DATA_PARALLEL_GROUP", {}};
            for (int w = 0; w < m_o.dp; ++w)
                d.ranks.push_back(rankAt(w, p));
            g.push_back(std::move(d));
        }
        for (int w = 0; w < m_o.dp; ++w) {
            Group q{std::to_string(1 + m_o.pp + w), "PIPELINE_MODEL_PARALLEL_GROUP", {}};
            for (int p = 0; p < m_o.pp; ++p)
                q.ranks.push_back(rankAt(w, p));
            g.push_back(std::move(q));
        }
        return g;
    }

    void writeRank(int r, StudyJobResult &res) const
    {
        const std::string path = (std::filesystem::path(m_o.dir) /
                                  ("rank" + std::to_string(r) + (m_o.gzip ? ".kineto.json.gz" : ".kineto.json")))
                                     .string();
        OutputFile out(path, {}, m_o.gzip ? OutputFile::Compression::Gzip : OutputFile::Compression::None);
        uint64_t bytes = 0;
        auto put = [&](const std::string &s) {
            out.write(s);
            bytes += s.size();
        };
        const int d = dpOf(r), p = stageOf(r);
        const std::vector<Group> gs = groups();
        const Group &dpGroup = gs[size_t(1 + p)];
        const Group &ppGroup = gs[size_t(1 + m_o.pp + d)];
        std::string header = "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA H100 "
                             "80GB HBM3\", \"totalGlobalMem\": 85045035008, \"computeMajor\": 9, \"computeMinor\": 0, "
                             "\"maxThreadsPerBlock\": 1024, \"numSms\": 132}],\n  \"distributedInfo\": {\"backend\": "
                             "\"nccl\", \"rank\": " +
                             std::to_string(r) + ", \"world_size\": " + std::to_string(m_world);
        if (m_o.pgConfig) {
            header += ", \"pg_count\": " + std::to_string(gs.size()) + ", \"pg_config\": [";
            for (size_t k = 0; k < gs.size(); ++k)
                header += std::string(k ? ", " : "") + "{\"pg_name\": \"" + gs[k].name + "\", \"pg_desc\": \"" +
                          gs[k].desc + "\", \"backend_config\": \"cuda:nccl\", \"pg_size\": " +
                          std::to_string(gs[k].ranks.size()) + ", \"ranks\": " + rankListText(gs[k].ranks) + "}";
            header += "]";
        }
        header += ", \"nccl_version\": \"2.21.5\"},\n  \"syncscope_generator\": {\"synthetic\": true, \"study_job\": "
                  "true, \"seed\": " +
                  std::to_string(m_o.seed) + ", \"dp\": " + std::to_string(m_o.dp) + ", \"pp\": " +
                  std::to_string(m_o.pp) + "},\n  \"traceEvents\": [";
        put(header);
        const int64_t pid = kPid + r;
        const int64_t off = offsetNs(r);
        auto abs = [&](double trueNs) -> int64_t { return kBaseNs + int64_t(std::llround(trueNs)) + off; };
        bool first = true;
        auto event = [&](const std::string &body) {
            put(std::string(first ? "\n  " : ",\n  ") + body);
            first = false;
        };
        const std::string t0 = fmtNs(abs(m_o.baseUs * 1000.0 - 5000.0));
        event("{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": " + t0 + ", \"pid\": " + std::to_string(pid) +
              ", \"tid\": 0, \"args\": {\"name\": \"python3\"}}");
        event("{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": " + t0 + ", \"pid\": " + std::to_string(pid) +
              ", \"tid\": " + std::to_string(kTid) + ", \"args\": {\"name\": \"thread " + std::to_string(kTid) +
              " (python3)\"}}");
        event("{\"name\": \"process_name\", \"ph\": \"M\", \"ts\": " + t0 +
              ", \"pid\": 0, \"tid\": 0, \"args\": {\"name\": \"GPU 0\"}}");
        event("{\"name\": \"thread_name\", \"ph\": \"M\", \"ts\": " + t0 + ", \"pid\": 0, \"tid\": " +
              std::to_string(kStream) + ", \"args\": {\"name\": \"stream " + std::to_string(kStream) + "\"}}");
        const std::string cpu = "\"pid\": " + std::to_string(pid) + ", \"tid\": " + std::to_string(kTid);
        int64_t correlation = 1000;
        int64_t seqDp = 0, seqPp = 0;
        const std::string dtype = "BFloat16";
        for (int n = 0; n < m_o.steps; ++n) {
            const Step &st = m_steps[size_t(n)];
            const auto &ops = st.ops[size_t(r)];
            const auto &starts = m_starts[size_t(n)][size_t(r)];
            const auto &ends = m_ends[size_t(n)][size_t(r)];
            const double T = m_stepStart[size_t(n)];
            // The CPU runs ahead: every launch of the step in the window before T (inside the gap).
            const double window = std::max(50.0, m_o.stepGapUs * 0.8) * 1000.0;
            const double spacing = std::min(6000.0, (window - 10000.0) / double(ops.size() + 1));
            const double launchStart = T - spacing * double(ops.size() + 1) - 4000.0;
            double rankEnd = T;
            for (double e : ends)
                rankEnd = std::max(rankEnd, e);
            const int64_t stepTs = abs(launchStart - 2000.0);
            const int64_t syncStart = abs(launchStart + spacing * double(ops.size()));
            const int64_t syncEnd = std::max(abs(rankEnd) + 1000, syncStart + 1000);
            event("{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#" + std::to_string(n) +
                  "\", " + cpu + ", \"ts\": " + fmtNs(stepTs) + ", \"dur\": " + fmtNs(syncEnd + 1000 - stepTs) +
                  ", \"args\": {\"External id\": " + std::to_string(correlation) + "}}");
            ++correlation;
            for (size_t i = 0; i < ops.size(); ++i) {
                const Op &op = ops[i];
                const int64_t c = correlation++;
                const int64_t launchTs = abs(launchStart + spacing * double(i));
                const int64_t launchDur = std::max<int64_t>(500, std::llround(spacing * 0.8));
                event("{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", " + cpu +
                      ", \"ts\": " + fmtNs(launchTs) + ", \"dur\": " + fmtNs(launchDur) +
                      ", \"args\": {\"External id\": " + std::to_string(c) + ", \"cbid\": 211, \"correlation\": " +
                      std::to_string(c) + "}}");
                const int64_t ts = abs(starts[i]);
                const int64_t dur = abs(ends[i]) - ts;
                std::string name, extra;
                if (op.inst < 0) {
                    name = kComputeNames[op.kind];
                } else if (op.kind == ReduceScatter) {
                    name = "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL";
                    extra = ", \"Collective name\": \"_reduce_scatter_base\", \"Process Group Name\": \"" +
                            dpGroup.name + "\", \"Process Group Description\": \"" + dpGroup.desc +
                            "\", \"Process Group Ranks\": \"" + rankListText(dpGroup.ranks) +
                            "\", \"Seq\": " + std::to_string(++seqDp) + ", \"In msg nelems\": " +
                            std::to_string(kGradNelems) + ", \"Out msg nelems\": " +
                            std::to_string(kGradNelems / m_o.dp) + ", \"Group size\": " +
                            std::to_string(m_o.dp) + ", \"dtype\": \"" + dtype +
                            "\", \"In split size\": \"[]\", \"Out split size\": \"[]\"";
                } else {
                    const bool send = op.kind == Send;
                    name = "ncclDevKernel_SendRecv";
                    extra = std::string(", \"Collective name\": \"") + (send ? "send" : "recv") +
                            "\", \"Process Group Name\": \"" + ppGroup.name + "\", \"Process Group Description\": \"" +
                            ppGroup.desc + "\", \"Process Group Ranks\": \"" + rankListText(ppGroup.ranks) +
                            "\", \"Seq\": " + std::to_string(++seqPp) + ", \"In msg nelems\": " +
                            std::to_string(kP2pNelems) + ", \"Out msg nelems\": " + std::to_string(kP2pNelems) +
                            ", \"Group size\": " + std::to_string(m_o.pp) + ", \"dtype\": \"" + dtype +
                            "\", \"In split size\": \"[]\", \"Out split size\": \"[]\", \"Src Rank\": " +
                            std::to_string(send ? r : op.peer) + ", \"Dst Rank\": " +
                            std::to_string(send ? op.peer : r);
                }
                event("{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"" + name + "\", \"pid\": 0, \"tid\": " +
                      std::to_string(kStream) + ", \"ts\": " + fmtNs(ts) + ", \"dur\": " + fmtNs(dur) +
                      ", \"args\": {\"External id\": " + std::to_string(c) + ", \"device\": 0, \"stream\": " +
                      std::to_string(kStream) + ", \"correlation\": " + std::to_string(c) + extra + "}}");
            }
            // The step ends with a device synchronize that returns when the rank's GPU work is done.
            event("{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaDeviceSynchronize\", " + cpu +
                  ", \"ts\": " + fmtNs(syncStart) + ", \"dur\": " + fmtNs(syncEnd - syncStart) +
                  ", \"args\": {\"External id\": " + std::to_string(correlation) + ", \"cbid\": 131, \"correlation\": " +
                  std::to_string(correlation) + "}}");
            event("{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": \"Context Sync\", \"pid\": 0, \"tid\": -1, \"ts\": " +
                  fmtNs(syncStart) + ", \"dur\": " + fmtNs(syncEnd - syncStart) +
                  ", \"args\": {\"cuda_sync_kind\": \"Context Sync\", \"stream\": -1, \"correlation\": " +
                  std::to_string(correlation) + ", \"device\": 0}}");
            ++correlation;
        }
        put("\n  ],\n  \"traceName\": \"syncscope-study-job\",\n  \"displayTimeUnit\": \"ms\",\n  "
            "\"baseTimeNanoseconds\": 1764580000000000000\n}\n");
        out.commit();
        res.files.push_back(path);
        res.bytes += bytes;
    }

    void writeTruth(StudyJobResult &res) const
    {
        auto pairs = [](const std::vector<std::pair<std::string, double>> &v) {
            std::string s = "{";
            for (size_t k = 0; k < v.size(); ++k)
                s += std::string(k ? ", " : "") + "\"" + v[k].first + "\": " + num(v[k].second);
            return s + "}";
        };
        auto indexed = [](const std::vector<double> &v) {
            std::string s = "{";
            for (size_t k = 0; k < v.size(); ++k)
                s += std::string(k ? ", " : "") + "\"" + std::to_string(k) + "\": " + num(v[k]);
            return s + "}";
        };
        auto list = [](const std::vector<double> &v) {
            std::string s = "[";
            for (size_t k = 0; k < v.size(); ++k)
                s += std::string(k ? ", " : "") + num(v[k]);
            return s + "]";
        };
        auto opt = [](const std::optional<double> &v) { return v ? num(*v) : std::string("null"); };
        std::vector<int> worst = res.worstRanks;
        std::string s = "{\n";
        s += "  \"S\": " + num(res.slowdown) + ",\n";
        s += "  \"step_slowdown\": " + indexed(res.stepSlowdown) + ",\n";
        s += "  \"by_op_type\": " + pairs(res.byOpType) + ",\n";
        s += "  \"by_dp_rank\": " + indexed(res.byDpRank) + ",\n";
        s += "  \"by_stage\": " + indexed(res.byStage) + ",\n";
        s += "  \"M_W\": " + opt(res.mW) + ",\n";
        s += "  \"M_S\": " + opt(res.mS) + ",\n";
        s += "  \"worst_ranks\": " + rankListText(worst) + ",\n";
        s += "  \"ideal_step_us\": " + num(res.idealStepUs) + ",\n";
        s += "  \"measured_step_us\": " + num(res.measuredStepUs) + ",\n";
        s += "  \"measured_steps_us\": " + list(res.measuredStepsUs) + ",\n";
        s += "  \"ideal_steps_us\": " + list(res.idealStepsUs) + ",\n";
        s += "  \"op_type_ideal_us\": " + pairs(res.opTypeIdealUs) + ",\n";
        s += "  \"clock_offset_us\": " + list(res.clockOffsetUs) + ",\n";
        s += "  \"dp\": " + std::to_string(m_o.dp) + ", \"pp\": " + std::to_string(m_o.pp) +
             ", \"world\": " + std::to_string(m_world) + ", \"microbatches\": " + std::to_string(m_o.microbatches) +
             ", \"steps\": " + std::to_string(m_o.steps) + ", \"seed\": " + std::to_string(m_o.seed) +
             ", \"jitter\": " + (m_o.jitter ? "true" : "false") + ",\n";
        s += "  \"slow_rank\": " + std::to_string(m_o.slowRank) + ", \"slow_factor\": " + num(m_o.slowFactor) +
             ", \"slow_stage\": " + std::to_string(m_o.slowStage) + ", \"stage_factor\": " + num(m_o.stageFactor) +
             ", \"slow_op\": \"" + m_o.slowOp + "\", \"op_factor\": " + num(m_o.opFactor) + "\n}\n";
        res.truthPath =
            m_o.truthPath.empty() ? (std::filesystem::path(m_o.dir) / "truth.json").string() : m_o.truthPath;
        OutputFile out(res.truthPath);
        out.write(s);
        out.commit();
    }

private:
    const StudyJobOptions &m_o;
    int m_world;
    std::vector<Step> m_steps;
    std::vector<double> m_ideal;
    std::vector<bool> m_present;
    std::vector<double> m_stepStart, m_stepEnd;
    std::vector<std::vector<std::vector<double>>> m_starts, m_ends; // measured, per step, rank, op (true ns)
};

} // namespace

StudyJobResult generateStudyJob(const StudyJobOptions &options)
{
    if (options.dp < 1 || options.pp < 1 || options.microbatches < 1 || options.steps < 1)
        throw std::runtime_error("a study job needs dp, pp, microbatches and steps >= 1");
    if (int64_t(options.dp) * options.pp > (1 << 20))
        throw std::runtime_error("a study job of more than 2^20 ranks");
    if (options.slowRank >= options.dp * options.pp || options.slowStage >= options.pp)
        throw std::runtime_error("the slow rank / stage is not in the job");
    if (!options.slowOp.empty() && options.slowOp != kComputeNames[0] && options.slowOp != kComputeNames[1] &&
        options.slowOp != kComputeNames[2])
        throw std::runtime_error("--slow-op: one of fwd_gemm_kernel, bwd_gemm_kernel, optimizer_kernel");
    if (options.slowFactor <= 0 || options.stageFactor <= 0 || options.opFactor <= 0)
        throw std::runtime_error("slowdown factors must be > 0");
    Study study(options);
    return study.run();
}

} // namespace tracegen
