// SPDX-License-Identifier: MIT
#include "chakrajobreplay.h"

#include "chakrapatch.h"
#include "chakrareader.h"
#include "io/bytesource.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace syncscope {

namespace {

// "trace.7.et" / "trace.7.et.gz" -> 7; -1 when the name is not PREFIX.RANK.et.
int64_t rankOfName(std::string name)
{
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0)
        name.resize(name.size() - 3);
    if (name.size() < 4 || name.compare(name.size() - 3, 3, ".et") != 0)
        return -1;
    name.resize(name.size() - 3);
    const size_t dot = name.rfind('.');
    if (dot == std::string::npos || dot + 1 == name.size() || name.size() - dot > 10)
        return -1;
    int64_t rank = 0;
    for (size_t k = dot + 1; k < name.size(); ++k) {
        if (name[k] < '0' || name[k] > '9')
            return -1;
        rank = rank * 10 + (name[k] - '0');
    }
    return rank;
}

int64_t startOffsetOf(const std::string &path)
{
    ChakraEtReader in(path);
    ChakraProtoMsg::Node first;
    if (in.next(first))
        for (const auto &a : first.attr())
            if (a.name() == kRankStartOffsetAttr)
                return a.int64_val();
    return 0;
}

} // namespace

JobReplayResult replayChakraEtJob(const std::string &dir)
{
    JobReplayResult out;
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator(dir, ec)) {
        if (!entry.is_regular_file(ec))
            continue;
        const int64_t rank = rankOfName(entry.path().filename().string());
        if (rank < 0)
            continue;
        JobReplayRank r;
        r.rank = rank;
        r.path = entry.path().string();
        out.ranks.push_back(std::move(r));
    }
    if (ec)
        throw InputError("chakra_et.not_readable", dir + ": the folder cannot be read (" + ec.message() + ")");
    if (out.ranks.empty())
        throw InputError("chakra_et.no_rank_files", dir + ": no PREFIX.RANK.et files in the folder");
    std::sort(out.ranks.begin(), out.ranks.end(), [](const JobReplayRank &a, const JobReplayRank &b) {
        return a.rank != b.rank ? a.rank < b.rank : a.path < b.path;
    });
    double measured = 0, replayed = 0;
    bool allMeasured = true;
    for (JobReplayRank &r : out.ranks) {
        r.startOffsetUs = startOffsetOf(r.path);
        const ReplayResult one = replayChakraEt(r.path);
        r.overall = one.windows.back();
        allMeasured &= r.overall.measuredUs > 0;
        measured = std::max(measured, double(r.startOffsetUs) + r.overall.measuredUs);
        replayed = std::max(replayed, double(r.startOffsetUs) + r.overall.replayedUs);
    }
    out.measuredUs = allMeasured ? measured : -1;
    out.replayedUs = replayed;
    return out;
}

std::string formatJobReplay(const JobReplayResult &result)
{
    std::string s = "job replay (each rank's .et from its start offset; ranks not coupled)\n";
    char line[256];
    for (const JobReplayRank &r : result.ranks) {
        std::snprintf(line, sizeof line, "  rank %-5lld start +%9.3f ms  measured %9.3f ms  replayed %9.3f ms  (%+.1f %%)\n",
                      static_cast<long long>(r.rank), double(r.startOffsetUs) / 1e3, r.overall.measuredUs / 1e3,
                      r.overall.replayedUs / 1e3, r.overall.errorPct());
        s += line;
    }
    if (result.measuredUs > 0)
        std::snprintf(line, sizeof line, "  job        measured %9.3f ms  replayed %9.3f ms  (%+.1f %%)\n",
                      result.measuredUs / 1e3, result.replayedUs / 1e3, result.errorPct());
    else
        std::snprintf(line, sizeof line, "  job        measured n/a  replayed %9.3f ms\n", result.replayedUs / 1e3);
    return s + line;
}

} // namespace syncscope
