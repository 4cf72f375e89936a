// SPDX-License-Identifier: MIT
// The straggler what-if of ByteDance's study ("Understanding Stragglers in Large
// Model Training Using What-if Analysis", docs/what_if.md "Straggler what-if"):
// every rank's GPU ops of every ProfilerStep are re-simulated over their
// dependencies (stream order, GPU<-GPU and CPU-blocking syncs, collectives joined
// across ranks) with ideal durations (compute: the mean of the op's type over all
// ranks and steps; communication: the median transfer of its type), and the step
// times compared: S, S per step, S_t per op type, S_w per data-parallel rank, S per
// pipeline stage (add-back), M_W and M_S (removal).
#pragma once

#include "analysis/ranksummary.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace syncscope {

struct MatchedCollective;

// --parallelism dp=D,pp=P,tp=T (any subset; the missing sizes are inferred so that
// D*P*T is the world size). Ranks are laid out as Megatron-LM's default order:
// tp fastest, then dp, then pp: rank = t + T*(d + D*p).
struct ParallelismSpec {
    bool given = false;
    int64_t dp = 0, pp = 0, tp = 0; // 0: not given
};
// "dp=4,pp=2,tp=1"; false with a sentence in `error` (an unknown key, a size < 1 or > 2^20).
bool parseParallelism(std::string_view text, ParallelismSpec &out, std::string &error);

// Where each rank sits in the job (per summary, -1 unknown).
struct ParallelLayout {
    std::string source;            // "parallelism" (--parallelism), "pg_config" (distributedInfo), "inferred", "none"
    int64_t dpSize = 1, ppSize = 1, tpSize = 1;
    std::vector<int64_t> dpRank;   // per summary
    std::vector<int64_t> stage;    // per summary
};

// The layout from --parallelism when given (checked against the ranks present), else
// from the ranks' distributedInfo.pg_config descriptions (Megatron's DATA_PARALLEL /
// PIPELINE_MODEL_PARALLEL groups), else inferred from the collectives: send/recv chains
// order the pipeline stages (the end whose first transfer is a send is stage 0), the
// reduce-scatter / all-gather (else all-reduce) group inside a stage gives the
// data-parallel rank. Problems are diagnostics; a rank nothing places is dp rank = its
// position, stage 0.
ParallelLayout jobParallelLayout(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                                 const std::vector<MatchedCollective> &collectives, const ParallelismSpec &spec,
                                 Diagnostics &diag);

struct StragglerStep {
    int64_t number = -1;           // N of ProfilerStep#N (-1: a trace without steps, the whole trace)
    double measuredUs = 0;         // latest GPU op end - earliest GPU op start over the ranks (aligned)
    double noDelayUs = 0;          // the measured durations re-simulated without launch delays
    double idealUs = 0;            // the ideal simulation (no launch delays)
    double slowdown = 1;           // noDelay / ideal
};

struct StragglerOpType {
    std::string type;              // a compute op's name, or "<collective> <size>" for communication
    bool comm = false;
    int64_t count = 0;             // ops of this type over all ranks and steps
    double idealUs = 0;            // its ideal duration (compute: mean; comm: median transfer)
    double slowdown = 1;           // S_t: the ideal with this type's measured durations / the ideal
};

struct StragglerWhatIf {
    bool ok = false;
    std::string error;             // why not (no steps, no GPU ops, a dependency cycle, ...)
    // As the study: launch delays (how long after its dependencies an op started: CPU-side
    // waits the model does not see) are left out of the timelines compared, so
    // S = mean no-delay step / mean ideal step, and the delays' share is launchSlowdown.
    double slowdown = 1;
    double measuredStepUs = 0;     // mean over the steps, as measured
    double noDelayStepUs = 0;      // the measured durations without launch delays
    double idealStepUs = 0;
    double launchSlowdown = 1;     // mean measured / mean no-delay step (the study's launch_slowdown)
    // Per dp rank: the no-delay timeline with that rank's launch delays given back / no-delay
    // (the study's launch_decompose_by_dp_rank): which ranks' CPUs held the job back. Descending.
    std::vector<std::pair<int64_t, double>> launchByDpRank;
    double replayErrorPct = 0;     // |replayed with delays - measured| / measured of the mean step (a model check)
    std::vector<StragglerStep> steps;       // in step order
    std::vector<StragglerOpType> byOpType;  // S_t, descending
    std::vector<std::pair<int64_t, double>> byDpRank; // S_w, descending
    std::vector<std::pair<int64_t, double>> byStage;  // S per stage, descending (only with >1 stage)
    // Removal: (no-delay - t_removed) / (no-delay - ideal), t_removed the no-delay timeline
    // with some ranks set to ideal; null when the job is not slowed (S within 0.1 %). M_W: the
    // worst 3 % of ranks (by min(S_w, S_stage)); M_S: the last stage (only with >1 stage).
    std::optional<double> mW, mS;
    std::vector<int64_t> worstRanks;        // the ranks M_W set to ideal
    ParallelLayout layout;
    int64_t ops = 0;                        // GPU ops simulated
    int64_t commOps = 0;                    // of them joined across ranks
    int64_t simulations = 0;                // timelines simulated
    double seconds = 0;                     // wall time of the analysis
};

struct StragglerOptions {
    ParallelismSpec parallelism;
    double worstFraction = 0.03;   // M_W's share of ranks (the study's 3 %, rounded up)
};

// The straggler what-if over the ranks' GPU timelines (RankSummary::gpu, filled when the
// job run asked for it). `offsetNs` per summary puts the ranks on one clock. Never throws;
// problems are diagnostics and `error`. Linear in the ops per simulation; 3 + T + 2W + P + 2
// simulations (T op types, W dp ranks, P stages), spread over the cores.
StragglerWhatIf stragglerWhatIf(const std::vector<RankSummary> &ranks, const std::vector<uint8_t> &use,
                                const std::vector<MatchedCollective> &collectives, const std::vector<double> &offsetNs,
                                const StragglerOptions &options, Diagnostics &diag);

} // namespace syncscope
