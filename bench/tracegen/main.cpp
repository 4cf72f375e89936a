// SPDX-License-Identifier: MIT
// syncscope-tracegen: writes a synthetic host ET + Kineto trace pair.
#include "replicate.h"
#include "tracegen.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <cstring>
#include <exception>
#include <string>

namespace {

int usage()
{
    std::fprintf(stderr,
                 "usage: syncscope-tracegen --out PREFIX [--steps N | --target-mb MB] [--layers L] [--seed S]\n"
                 "                          [--rank R] [--world-size W] [--gzip] [--sample]\n"
                 "                          [--slow-kernel SUBSTR --slow-kernel-scale X] [--extra-sync]\n"
                 "                          [--streams N [--reverse-joins]] [--blocking-copies] [--item-loop N] [--pageable]\n"
                 "                          [--cuda-graphs] [--async-tail] [--hip] [--no-cuda-sync]\n"
                 "                          [--old-categories] [--unresolved-sync-rows] [--gpu-clock-skew-us US]\n"
                 "                          [--bare-sync-item] [--gpu-behind X]\n"
                 "       syncscope-tracegen --replicate KINETO --times N --out FILE\n"
                 "       syncscope-tracegen --job DIR --ranks N [--steps N] [--layers L] [--seed S] [--plain]\n"
                 "                          [--straggler R] [--straggler-scale X] [--max-clock-offset-us US]\n"
                 "                          [--start-skew R:US] [--slow-rank R --slow-kernel SUBSTR\n"
                 "                          --slow-kernel-scale X] [--pairs]\n"
                 "       syncscope-tracegen --study-job DIR --dp D --pp P [--microbatches M] [--steps N]\n"
                 "                          [--slow-rank R --slow-factor K] [--slow-stage P --stage-factor K]\n"
                 "                          [--slow-op NAME --op-factor K] [--no-pg-config] [--no-jitter]\n"
                 "                          [--seed S] [--gzip] [--max-clock-offset-us US] [--truth FILE]\n"
                 "       syncscope-tracegen --hang-case NAME --out DIR   (never_enters, other_size,\n"
                 "                          empty_and_absent, p2p_desync, nested_ep)\n"
                 "       syncscope-tracegen --hang-scale RANKS,ENTRIES --out DIR   [--pickle]\n"
                 "Writes PREFIX.et.json and PREFIX.kineto.json (or .json.gz with --gzip); --replicate\n"
                 "repeats a real Kineto trace N times in time, with unique ids; --job writes a whole job\n"
                 "(DIR/rank<N>.et.json.gz + DIR/rank<N>.kineto.json.gz) with consistent collectives,\n"
                 "per-rank clock offsets and an optional straggler (all compute kernels slower), a rank\n"
                 "that starts late (--start-skew), one rank's kernels matching SUBSTR slower (--slow-rank),\n"
                 "and with --pairs collectives in alternating pairs of ranks (lateness propagates).\n"
                 "--study-job writes a dp x pp training job (GPipe, device-only Kineto traces\n"
                 "DIR/rank<N>.kineto.json) and its straggler what-if figures, known by construction,\n"
                 "to DIR/truth.json (or --truth FILE); --slow-op NAME (fwd_gemm_kernel, bwd_gemm_kernel,\n"
                 "optimizer_kernel) slows that kernel on every rank on odd steps.\n"
                 "Sync grid: --streams N (1-6) forks each forward layer onto N-1 side streams;\n"
                 "--blocking-copies makes device-to-host copy calls wait for their copy (plus a\n"
                 "synchronous cudaMemcpy per step), to pinned memory unless --pageable; --item-loop N\n"
                 "adds N .item() calls per step; --cuda-graphs ends each step with a graph replay;\n"
                 "--async-tail leaves the last step's GPU work unsynchronised; --hip writes HIP names;\n"
                 "--no-cuda-sync writes no cuda_sync rows (torch.profiler's default). The grid options\n"
                 "(not --hip, --no-cuda-sync) write whole-ns GPU times, and cross-stream waits resolve\n"
                 "1-2.5 us after the awaited op ends.\n"
                 "Shapes of real traces: --old-categories writes Kineto's names before late 2022\n"
                 "(Kernel, Memcpy, Memset, Runtime, Operator, async_cpu_to_gpu); --unresolved-sync-rows\n"
                 "writes Stream Wait Event / Event Sync rows with wait_on_stream -1 (CUDA >= 12.9);\n"
                 "--gpu-clock-skew-us US puts every GPU timestamp US later (a GPU that starts late);\n"
                 "--bare-sync-item ends every step with loss.item(), after an event sync outside every op on\n"
                 "even steps (the item then does not block) and alone on odd steps (it blocks);\n"
                 "--gpu-behind X makes compute kernels X times longer and no step wait for its GPU work.\n"
                 "--hang-case / --hang-scale write NCCL flight recorder dumps with a known hang as\n"
                 "DIR/rank<N>.json (with --pickle: DIR/rank<N>, torch's pickle with stack frames) and\n"
                 "the expected findings (roots first) as DIR/expected.json.\n");
    return 2;
}

// --hang-case NAME / --hang-scale R,E: the dumps and DIR/expected.json.
int writeHang(const std::string &name, int ranks, int entries, const std::string &dir, bool pickle)
{
    if (dir.empty())
        return usage();
    tracegen::HangCase c;
    if (ranks > 0) {
        c = tracegen::generateHangScale(ranks, entries);
    } else {
        bool found = false;
        std::string names;
        for (auto &k : tracegen::generateHangCases()) {
            names += (names.empty() ? "" : ", ") + k.name;
            if (k.name == name) {
                c = std::move(k);
                found = true;
            }
        }
        if (!found) {
            std::fprintf(stderr, "syncscope-tracegen: no hang case %s (cases: %s)\n", name.c_str(), names.c_str());
            return 2;
        }
    }
    std::string error;
    if (!tracegen::writeHangDumps(c, dir, error, pickle ? tracegen::HangDumpFormat::Pickle : tracegen::HangDumpFormat::Json)) {
        std::fprintf(stderr, "syncscope-tracegen: %s\n", error.c_str());
        return 1;
    }
    nlohmann::json expected = {{"case", c.name}, {"world_size", c.worldSize}, {"missing_dumps", c.missingDumps}};
    nlohmann::json findings = nlohmann::json::array();
    for (const auto &e : c.expected)
        findings.push_back({{"pg_id", e.pgName}, {"kind", e.kind}, {"p2p", e.p2p}, {"seq", e.seq},
                            {"missing_ranks", e.missing}, {"mismatched_ranks", e.mismatched},
                            {"waiting_ranks", e.waiting}, {"root", e.root}, {"explains", e.explains}});
    expected["expected"] = findings;
    std::ofstream f(dir + "/expected.json");
    f << expected.dump(1) << "\n";
    if (!f) {
        std::fprintf(stderr, "syncscope-tracegen: cannot write %s/expected.json\n", dir.c_str());
        return 1;
    }
    std::printf("%s: %s, %zu dumps, world size %lld\n", dir.c_str(), c.name.c_str(), c.dumps.size(),
                static_cast<long long>(c.worldSize));
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    tracegen::Options o;
    std::string replicate;
    int times = 1;
    tracegen::JobOptions job;
    bool jobMode = false;
    tracegen::StudyJobOptions study;
    bool studyMode = false;
    std::string hangCase;
    bool hangPickle = false;
    int hangRanks = 0, hangEntries = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
        const char *v = nullptr;
        if (a == "--out" && (v = next()))
            o.prefix = v;
        else if (a == "--steps" && (v = next()))
            o.steps = std::atoi(v);
        else if (a == "--target-mb" && (v = next())) {
            o.targetMb = std::atof(v);
            o.steps = 0;
        } else if (a == "--layers" && (v = next()))
            o.layers = std::atoi(v);
        else if (a == "--seed" && (v = next()))
            o.seed = std::strtoull(v, nullptr, 10);
        else if (a == "--rank" && (v = next()))
            o.rank = std::atoi(v);
        else if (a == "--world-size" && (v = next()))
            o.worldSize = std::atoi(v);
        else if (a == "--slow-kernel" && (v = next()))
            o.slowKernel = v;
        else if (a == "--slow-kernel-scale" && (v = next()))
            o.slowKernelScale = std::atof(v);
        else if (a == "--extra-sync")
            o.extraSync = true;
        else if (a == "--streams" && (v = next()))
            o.streams = std::atoi(v);
        else if (a == "--reverse-joins")
            o.reverseJoins = true;
        else if (a == "--blocking-copies")
            o.blockingCopies = true;
        else if (a == "--item-loop" && (v = next()))
            o.itemLoop = std::atoi(v);
        else if (a == "--pageable")
            o.pageable = true;
        else if (a == "--cuda-graphs")
            o.cudaGraphs = true;
        else if (a == "--async-tail")
            o.asyncTail = true;
        else if (a == "--hip")
            o.hip = true;
        else if (a == "--no-cuda-sync")
            o.noCudaSync = true;
        else if (a == "--gpu-behind" && (v = next()))
            o.gpuBehindScale = std::atof(v);
        else if (a == "--bare-sync-item")
            o.bareSyncItem = true;
        else if (a == "--old-categories")
            o.oldCategories = true;
        else if (a == "--unresolved-sync-rows")
            o.unresolvedSyncRows = true;
        else if (a == "--gpu-clock-skew-us" && (v = next()))
            o.gpuClockSkewUs = std::atof(v);
        else if (a == "--gzip")
            o.gzip = true;
        else if (a == "--sample")
            o.sample = true;
        else if (a == "--replicate" && (v = next()))
            replicate = v;
        else if (a == "--times" && (v = next()))
            times = std::atoi(v);
        else if (a == "--job" && (v = next())) {
            job.dir = v;
            jobMode = true;
        } else if (a == "--ranks" && (v = next()))
            job.ranks = std::atoi(v);
        else if (a == "--straggler" && (v = next()))
            job.straggler = std::atoi(v);
        else if (a == "--straggler-scale" && (v = next()))
            job.stragglerScale = std::atof(v);
        else if (a == "--max-clock-offset-us" && (v = next()))
            job.maxClockOffsetUs = std::atof(v);
        else if (a == "--plain")
            job.gzip = false;
        else if (a == "--start-skew" && (v = next()) && std::strchr(v, ':')) {
            job.startSkewRank = std::atoi(v);
            job.startSkewUs = std::atof(std::strchr(v, ':') + 1);
        } else if (a == "--slow-rank" && (v = next()))
            job.slowRank = std::atoi(v);
        else if (a == "--pairs")
            job.pairs = true;
        else if (a == "--study-job" && (v = next())) {
            study.dir = v;
            studyMode = true;
        } else if (a == "--dp" && (v = next()))
            study.dp = std::atoi(v);
        else if (a == "--pp" && (v = next()))
            study.pp = std::atoi(v);
        else if (a == "--microbatches" && (v = next()))
            study.microbatches = std::atoi(v);
        else if (a == "--slow-factor" && (v = next()))
            study.slowFactor = std::atof(v);
        else if (a == "--slow-stage" && (v = next()))
            study.slowStage = std::atoi(v);
        else if (a == "--stage-factor" && (v = next()))
            study.stageFactor = std::atof(v);
        else if (a == "--slow-op" && (v = next()))
            study.slowOp = v;
        else if (a == "--op-factor" && (v = next()))
            study.opFactor = std::atof(v);
        else if (a == "--truth" && (v = next()))
            study.truthPath = v;
        else if (a == "--no-pg-config")
            study.pgConfig = false;
        else if (a == "--hang-case" && (v = next()))
            hangCase = v;
        else if (a == "--hang-scale" && (v = next())) {
            if (std::sscanf(v, "%d,%d", &hangRanks, &hangEntries) != 2 || hangRanks < 16 || hangEntries < 4)
                return usage();
        } else if (a == "--pickle")
            hangPickle = true;
        else if (a == "--no-jitter")
            study.jitter = false;
        else
            return usage();
    }
    try {
        if (!hangCase.empty() || hangRanks > 0)
            return writeHang(hangCase, hangRanks, hangEntries, o.prefix, hangPickle);
        if (studyMode) {
            study.steps = o.steps > 0 ? o.steps : 1;
            study.seed = o.seed;
            study.gzip = o.gzip;
            study.slowRank = job.slowRank;
            study.maxClockOffsetUs = job.maxClockOffsetUs;
            const tracegen::StudyJobResult r = tracegen::generateStudyJob(study);
            std::printf("%s: %d ranks (dp %d x pp %d), %d steps, %.1f MB; S %.6f (measured %.3f us, ideal %.3f us)\n",
                        study.dir.c_str(), r.world, r.dp, r.pp, study.steps, r.bytes / 1e6, r.slowdown,
                        r.measuredStepUs, r.idealStepUs);
            std::printf("truth: %s\n", r.truthPath.c_str());
            return 0;
        }
        if (jobMode) {
            job.steps = o.steps > 0 ? o.steps : 1;
            job.layers = o.layers;
            job.seed = o.seed;
            job.slowKernel = o.slowKernel;
            job.slowKernelScale = o.slowKernelScale;
            const tracegen::JobResult r = tracegen::generateJob(job);
            uint64_t bytes = 0;
            for (const auto &rank : r.ranks)
                bytes += rank.hostBytes + rank.deviceBytes;
            std::printf("%s: %d ranks, %zu collectives each, %.1f MB\n", job.dir.c_str(), job.ranks,
                        r.collectiveEndsUs.size(), bytes / 1e6);
            for (int k = 0; k < job.ranks && k < 16; ++k)
                std::printf("  rank %d clock offset %.3f us%s\n", k, tracegen::jobClockOffsetUs(job, k),
                            k == job.straggler ? " (straggler)" : "");
            return 0;
        }
        if (!replicate.empty()) {
            const auto r = tracegen::replicateKineto(replicate, o.prefix, times);
            std::printf("%s: %llu events, %.1f MB\n", o.prefix.c_str(), static_cast<unsigned long long>(r.events),
                        r.bytes / 1e6);
            return 0;
        }
        const tracegen::Result r = tracegen::generate(o);
        std::printf("%s: %llu nodes, %.1f MB\n%s: %llu events, %.1f MB\n%d steps\n", r.hostPath.c_str(),
                    static_cast<unsigned long long>(r.hostNodes), r.hostBytes / 1e6, r.devicePath.c_str(),
                    static_cast<unsigned long long>(r.deviceEvents), r.deviceBytes / 1e6, r.steps);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "syncscope-tracegen: %s\n", e.what());
        return 1;
    }
    return 0;
}
