// SPDX-License-Identifier: MIT
// Job discovery and the job summaries. An input starting with "SSRS" is a
// serialised RankSummary (what syncscope-mpi gathers): read back, written and
// read again (the same summary), joined with a copy as a second rank, the
// cross-rank analysis run and the job report built. Any other input is one to
// four trace files separated by "\n#SPLIT#\n": each header read as discovery
// reads it, the files paired into ranks, the report and the summary built.
// Either way the report must parse and stay small, and no rank or world_size
// outside the documented bounds may come out (issue 22: world_size 1e18,
// negative ranks, distributedInfo after traceEvents).
#include "fuzzinput.h"

#include "job/discovery.h"
#include "job/jobanalysis.h"
#include "job/jobdocument.h"
#include "analysis/ranksummary.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string_view>
#include <vector>

using namespace syncscope;

namespace {

void check(bool ok)
{
    if (!ok)
        std::abort(); // a broken invariant is a finding
}

// The report parses, is valid UTF-8, and its size does not grow with a number the input states.
void checkReport(const JobDiscovery &discovery, const std::vector<RankSummary> &ranks, const JobAnalysis *analysis,
                 size_t inputSize)
{
    JobReportInput in;
    in.discovery = &discovery;
    in.ranks = &ranks;
    in.analysis = analysis;
    in.exitCode = jobExitCode(discovery, ranks);
    const std::string report = buildJobReportJson(in);
    check(report.size() < (1u << 20) + 64 * inputSize);
    const nlohmann::json j = nlohmann::json::parse(report, nullptr, false);
    check(!j.is_discarded());
    (void)formatJobSummary(in);
}

void traceFiles(std::string_view data)
{
    constexpr std::string_view kSplit = "\n#SPLIT#\n";
    std::vector<std::string_view> parts;
    while (parts.size() < 3) {
        const size_t at = data.find(kSplit);
        if (at == std::string_view::npos)
            break;
        parts.push_back(data.substr(0, at));
        data.remove_prefix(at + kSplit.size());
    }
    parts.push_back(data);
    std::vector<std::unique_ptr<fuzz::MemFile>> files;
    std::vector<JobTraceFile> headers;
    for (std::string_view p : parts) {
        files.push_back(std::make_unique<fuzz::MemFile>(reinterpret_cast<const uint8_t *>(p.data()), p.size()));
        headers.push_back(readJobTraceHeader(files.back()->path()));
    }
    // The first line as a file name too: the name parser sees every byte.
    const std::string_view name = parts.front().substr(0, std::min<size_t>(parts.front().find('\n'), 256));
    if (const auto rank = rankFromFileName(name))
        check(*rank >= 0 && *rank < kMaxJobWorldSize);
    (void)isOwnOutputName(name);

    const JobDiscovery d = pairJobTraceFiles(std::move(headers));
    check(!d.worldSize || (*d.worldSize >= 1 && *d.worldSize <= kMaxJobWorldSize));
    check(d.missingRankCount >= 0 && d.missingRankCount <= kMaxJobWorldSize);
    check(d.missingRankRanges.size() <= d.ranks.size() + 1);
    int64_t count = 0, previous = -1;
    for (const RankRange &g : d.missingRankRanges) {
        check(g.first > previous && g.first <= g.last);
        count += g.last - g.first + 1;
        previous = g.last;
    }
    check(count == d.missingRankCount);
    std::vector<RankSummary> rows;
    for (const JobRank &r : d.ranks) {
        check(r.rank >= 0 && r.rank < kMaxJobWorldSize);
        RankSummary s;
        s.rank = r.rank;
        s.hostPath = r.hostPath;
        s.devicePath = r.devicePath;
        rows.push_back(std::move(s));
    }
    checkReport(d, rows, nullptr, parts.size() * 64 + data.size());
}

void rankSummary(std::string_view data)
{
    RankSummary s;
    std::string error;
    if (!deserializeRankSummary(data, s, error))
        return;
    check(s.rank >= 0 && s.rank < kMaxJobWorldSize);
    // What is written is read back to the same summary (the input itself may differ:
    // an implausible world_size is dropped, an absent optional's value ignored).
    const std::string bytes = serializeRankSummary(s);
    RankSummary again;
    check(deserializeRankSummary(bytes, again, error) && serializeRankSummary(again) == bytes);
    std::vector<RankSummary> ranks{s};
    if (s.rank + 1 < kMaxJobWorldSize) { // a second rank: the same summary one rank up
        ranks.push_back(s);
        ranks.back().rank = s.rank + 1;
    }
    JobDiscovery discovery;
    for (const RankSummary &r : ranks)
        discovery.ranks.push_back({r.rank, r.hostPath, r.devicePath});
    JobOptions options;
    options.stragglerWhatIf = true; // the summaries' GPU timelines, re-simulated (any deps, any times)
    const JobAnalysis analysis = analyzeJob(analysableRanks(ranks), options);
    check(analysis.straggler.has_value());
    if (analysis.straggler->ok) {
        const StragglerWhatIf &w = *analysis.straggler;
        check(std::isfinite(w.slowdown) && std::isfinite(w.launchSlowdown) && std::isfinite(w.idealStepUs));
        check(!w.mW || std::isfinite(*w.mW));
    } else {
        check(!analysis.straggler->error.empty());
    }
    checkReport(discovery, ranks, &analysis, data.size());
}

} // namespace

extern "C" int SYNCSCOPE_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    const std::string_view bytes(reinterpret_cast<const char *>(data), size);
    if (bytes.substr(0, 4) == "SSRS")
        rankSummary(bytes);
    else
        traceFiles(bytes);
    return 0;
}
