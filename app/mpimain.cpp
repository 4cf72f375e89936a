// SPDX-License-Identifier: MIT
// syncscope-mpi: job mode over MPI (core + MPI, no Qt). MPI process 0 finds the
// ranks and broadcasts the list; every process runs the per-rank pipeline on its
// share (list index modulo the process count); the serialised RankSummary blobs
// are gathered to process 0 (MPI_Gather of the sizes, then MPI_Gatherv of the
// bytes), which runs the cross-rank analysis and writes the same report as
// `syncscope --batch --job` (apart from "timing").
#include "batchjob.h"
#include "cliargs.h"
#include "clirequest.h"

#include <mpi.h>

#include <chrono>
#include <algorithm>
#include <cstring>
#include <iostream>
#include <limits>

namespace syncscope {

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// The rank list as "rank\0host\0device\0" records (paths hold no NUL).
std::string encodeRanks(const std::vector<JobRank> &ranks)
{
    std::string out;
    for (const auto &r : ranks) {
        out += std::to_string(r.rank);
        out.push_back('\0');
        out += r.hostPath;
        out.push_back('\0');
        out += r.devicePath;
        out.push_back('\0');
    }
    return out;
}

std::vector<JobRank> decodeRanks(const std::string &bytes)
{
    std::vector<std::string> fields;
    for (size_t i = 0; i < bytes.size();) {
        const size_t end = bytes.find('\0', i);
        fields.push_back(bytes.substr(i, end - i));
        i = end + 1;
    }
    std::vector<JobRank> ranks;
    for (size_t i = 0; i + 2 < fields.size(); i += 3)
        ranks.push_back({std::stoll(fields[i]), fields[i + 1], fields[i + 2]});
    return ranks;
}

void putU64(std::string &out, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t getU64(const char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | static_cast<unsigned char>(p[i]);
    return v;
}

void broadcast(std::string &bytes, int root)
{
    long long n = static_cast<long long>(bytes.size());
    MPI_Bcast(&n, 1, MPI_LONG_LONG, root, MPI_COMM_WORLD);
    bytes.resize(static_cast<size_t>(n));
    if (n > 0)
        MPI_Bcast(bytes.data(), static_cast<int>(n), MPI_BYTE, root, MPI_COMM_WORLD);
}

// Process 0 gets every process's blob, concatenated in process order.
std::string gatherToRoot(const std::string &mine, int me, int processes)
{
    if (mine.size() > static_cast<size_t>(std::numeric_limits<int>::max()))
        throw std::runtime_error("the rank summaries of one MPI process exceed 2 GiB; use more processes");
    int size = static_cast<int>(mine.size());
    std::vector<int> sizes(me == 0 ? processes : 0), offsets(me == 0 ? processes : 0);
    MPI_Gather(&size, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::string all;
    if (me == 0) {
        long long total = 0;
        for (int p = 0; p < processes; ++p) {
            offsets[p] = static_cast<int>(total);
            total += sizes[p];
        }
        if (total > std::numeric_limits<int>::max())
            throw std::runtime_error("the rank summaries exceed 2 GiB in all");
        all.resize(static_cast<size_t>(total));
    }
    MPI_Gatherv(mine.data(), size, MPI_BYTE, all.data(), sizes.data(), offsets.data(), MPI_BYTE, 0, MPI_COMM_WORLD);
    return all;
}

// Every process checks the command line itself; before any collective work they
// agree on the outcome, so a usage error seen by any process (they may be given
// different arguments: mpirun A : B) ends every process with the same code
// instead of leaving the others waiting in a collective. Process 0 prints the
// message, the lowest failing process's (sent to it when it is not its own).
// Returns the agreed code: ExitOk to go on, kStop after --help/--version.
constexpr int kStop = -1;

int agree(int mine, const std::string &message, int me)
{
    int local[2] = {mine > 0 ? mine : 0, mine == kStop ? 1 : 0}, all[2] = {0, 0};
    MPI_Allreduce(local, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all[0] == 0)
        return all[1] ? kStop : ExitOk;
    int failing = mine > 0 ? me : std::numeric_limits<int>::max(), first = 0;
    MPI_Allreduce(&failing, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    std::string text = message;
    if (first != 0) { // the message is on another process: bring it to process 0
        if (me == first) {
            MPI_Send(text.data(), static_cast<int>(std::min<size_t>(text.size(), 1 << 20)), MPI_CHAR, 0, 0,
                     MPI_COMM_WORLD);
        } else if (me == 0) {
            MPI_Status st;
            int n = 0;
            MPI_Probe(first, 0, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_CHAR, &n);
            text.assign(static_cast<size_t>(std::max(n, 0)), '\0');
            MPI_Recv(text.data(), n, MPI_CHAR, first, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            text = "(MPI process " + std::to_string(first) + ") " + text;
        }
    }
    if (me == 0)
        std::cerr << "syncscope-mpi: " << text << "\n";
    return all[0];
}

int runMpi(const std::vector<std::string> &argv, const char *argv0, int me, int processes)
{
    const auto t0 = std::chrono::steady_clock::now();
    const CliArgs args = parseCli(argv);
    const std::string tryHelp = "\nTry 'syncscope --help' for more information.";
    CliRequest request;
    std::string error;
    JobCli job;
    int local = ExitOk;
    if (!args.error.empty()) {
        local = ExitUsage;
        error = args.error + tryHelp;
    } else if (args.has("--help") || args.has("--version")) {
        if (me == 0)
            std::cout << (args.has("--help") ? "Usage: mpirun -np P syncscope-mpi --job DIR --report FILE "
                                               "[--output-dir OUT] [options]\nThe options are syncscope's "
                                               "(syncscope --help, section Job).\n"
                                             : versionText());
        local = kStop;
    } else if (!args.has("--job")) {
        local = ExitUsage;
        error = "--job DIR is required" + tryHelp;
    } else if (!buildCliRequest(args, argv0, request, error) || !buildJobCli(args, request, 1, job, error)) {
        // One rank at a time per process unless --jobs says otherwise: MPI places the processes.
        local = ExitUsage;
        error += tryHelp;
    } else if (!job.sqlitePath.empty()) {
        local = ExitUsage;
        error = "--sqlite is not available in syncscope-mpi (the ranks run in other processes); use syncscope "
                "--batch --job DIR --sqlite FILE" + tryHelp;
    }
    if (const int agreed = agree(local, error, me); agreed != ExitOk)
        return agreed == kStop ? ExitOk : agreed;

    // Process 0 finds the ranks, checks the outputs against the inputs and
    // prepares the output folder; the others get the outcome, then the list.
    int status = ExitOk;
    JobDiscovery discovery;
    std::string list;
    if (me == 0) {
        discovery = discoverJobInputs(job);
        status = prepareJobOutputs(job, discovery, error);
        if (status != ExitOk)
            std::cerr << "syncscope-mpi: " << (status == ExitUsage ? "" : "error: ") << error << "\n";
        else
            list = encodeRanks(discovery.ranks);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (status != ExitOk)
        return status;
    broadcast(list, 0);
    const std::vector<JobRank> ranks = decodeRanks(list);
    JobTiming timing;
    timing.discoverySeconds = secondsSince(t0);
    timing.workers = job.run.workers;
    timing.processes = processes;

    // This process's share, each summary as (index, size, bytes).
    const auto t1 = std::chrono::steady_clock::now();
    std::vector<JobRank> share;
    std::vector<size_t> shareIndex;
    for (size_t i = static_cast<size_t>(me); i < ranks.size(); i += static_cast<size_t>(processes)) {
        share.push_back(ranks[i]);
        shareIndex.push_back(i);
    }
    const std::vector<RankSummary> done = runJobRanks(share, job.run);
    std::string blob;
    for (size_t k = 0; k < done.size(); ++k) {
        const std::string bytes = serializeRankSummary(done[k]);
        putU64(blob, shareIndex[k]);
        putU64(blob, bytes.size());
        blob += bytes;
    }
    const std::string all = gatherToRoot(blob, me, processes);
    timing.ranksSeconds = secondsSince(t1);

    int code = ExitOk;
    if (me == 0) {
        std::vector<RankSummary> summaries(ranks.size());
        std::vector<bool> seen(ranks.size(), false);
        for (size_t p = 0; p + 16 <= all.size();) {
            const uint64_t index = getU64(all.data() + p), size = getU64(all.data() + p + 8);
            p += 16;
            if (index >= ranks.size() || size > all.size() - p)
                break;
            std::string why;
            if (!deserializeRankSummary(std::string_view(all).substr(p, size), summaries[index], why)) {
                summaries[index] = RankSummary{};
                summaries[index].diagnostics.error("job.bad_summary", "the rank's summary could not be read back: " + why);
            }
            seen[index] = true;
            p += size;
        }
        for (size_t i = 0; i < ranks.size(); ++i)
            if (!seen[i]) {
                summaries[i].rank = ranks[i].rank;
                summaries[i].hostPath = ranks[i].hostPath;
                summaries[i].devicePath = ranks[i].devicePath;
                summaries[i].exitCode = ExitInternal;
                summaries[i].diagnostics.error("job.lost_summary", "the rank's summary did not arrive at MPI process 0");
            }
        timing.totalSeconds = secondsSince(t0);
        code = finishJob(job, discovery, summaries, timing);
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return code;
}

} // namespace

} // namespace syncscope

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me = 0, processes = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &processes);
    int code = syncscope::ExitInternal;
    try {
        code = syncscope::runMpi(std::vector<std::string>(argv + 1, argv + argc), argc > 0 ? argv[0] : nullptr, me,
                                 processes);
    } catch (const std::exception &e) {
        std::cerr << "syncscope-mpi: internal error on process " << me << ": " << e.what() << "\n";
        MPI_Abort(MPI_COMM_WORLD, syncscope::ExitInternal);
    }
    MPI_Finalize();
    return code;
}
