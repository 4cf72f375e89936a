// SPDX-License-Identifier: MIT
// Job discovery: finds every rank's trace files under the --job inputs,
// classifies each as host ET or Kineto trace by content (header only, never a
// full load), reads the rank from the Kineto distributedInfo, pairs host and
// device per rank by pid and rank, and reports every doubt as a diagnostic
// (duplicate or missing ranks, hosts without a device, mixed jobs...) instead
// of guessing silently. Files Syncscope wrote (listed in an output folder's
// .syncscope-outputs, named *.overlay.json or *.critical_path.json, or carrying
// a Syncscope report's marker) are never taken as traces.
#pragma once

#include "model/diagnostics.h"
#include "parse/traceloader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

// The largest world_size (and one more than the largest rank) taken from a trace:
// 2^20 ranks. A larger value is ignored with a warning (job.bad_world_size).
inline constexpr int64_t kMaxJobWorldSize = int64_t(1) << 20;

// The file a job run writes into each output folder before anything else: the
// names (relative to the folder, one per line) of the files it writes there.
// Discovery skips the files it lists (job.own_output).
inline constexpr const char *kOutputManifestName = ".syncscope-outputs";

// One .json/.json.gz file found under an input, as its header describes it.
struct JobTraceFile {
    std::string path;
    TraceKind kind = TraceKind::Unknown;
    bool readable = true;              // false: the header could not be read (error in the diagnostics)
    std::string error;                 // the first error reading it
    std::optional<int64_t> rank;       // Kineto distributedInfo.rank, else from the file name
    bool rankFromName = false;
    bool rankRefused = false;          // distributedInfo.rank outside 0..kMaxJobWorldSize-1: not analysed
    bool ownOutput = false;            // a Syncscope report (found by its content): skipped, not an input
    std::optional<int64_t> worldSize; // Kineto distributedInfo.world_size (1..kMaxJobWorldSize)
    int64_t pid = -1;                  // ET top-level pid; Kineto: pid of the first CPU event
    std::optional<double> startUs;     // Kineto: first event's ts (µs since the epoch on real traces)
    Diagnostics notes;                 // what its header alone says is wrong (bad rank, world_size, name)
};

// Ranks first..last (inclusive).
struct RankRange {
    int64_t first = 0;
    int64_t last = 0;
    bool operator==(const RankRange &) const = default;
};

// One rank to analyse. A rank whose files could not be read is still listed
// (its pipeline run fails and reports why in its row).
struct JobRank {
    int64_t rank = -1;
    std::string hostPath;   // empty: device-only rank
    std::string devicePath; // empty: a host trace without a device trace (the rank fails)
};

struct JobDiscovery {
    std::vector<JobTraceFile> files;   // every candidate file, in path order
    std::vector<JobRank> ranks;        // ascending rank
    std::optional<int64_t> worldSize;  // the world_size most device traces state
    std::vector<RankRange> missingRankRanges; // 0..world_size-1 not found, as ascending ranges
    int64_t missingRankCount = 0;             // how many ranks those ranges hold
    std::vector<std::string> ownOutputs;      // files skipped because Syncscope wrote them
    Diagnostics diagnostics;           // codes "job.*"
};

struct DiscoveryOptions {
    unsigned workers = 0;             // header reads in parallel (0: one per core)
    std::vector<std::string> exclude; // directories not searched (the output directory)
};

// `inputs`: directories (searched recursively, symbolic links to folders
// followed, each folder and file once), trace files, or list files (one directory
// or trace file per line, relative to the list file; '#' comments).
JobDiscovery discoverJob(const std::vector<std::string> &inputs, const DiscoveryOptions &options = {});

// The header of one file (what discoverJob reads of each, in parallel).
JobTraceFile readJobTraceHeader(const std::string &path);

// Discovery's second half on headers already read (discoverJob = collect files,
// read their headers, then this): ranks, pairing, world size, diagnostics.
JobDiscovery pairJobTraceFiles(std::vector<JobTraceFile> files);

// The rank a file name states: "rank-3", "rank3", "_rank_3", "x.3.json", "x_3.pt.trace.json"
// (below kMaxJobWorldSize, else none).
std::optional<int64_t> rankFromFileName(std::string_view fileName);

// "3", "3-1000" or "0, 2-5, 9, ... (N ranges in all)": at most `limit` ranges.
std::string formatRankRanges(const std::vector<RankRange> &ranges, size_t limit = 20);

// Adds `fileNames` (names inside `dir`) to dir's kOutputManifestName, written
// atomically; empty on success, else why not.
std::string recordOwnOutputs(const std::string &dir, const std::vector<std::string> &fileNames);

// True when a file of that name is one of the per-rank files Syncscope names by a
// suffix of its own: *.overlay.json[.gz], *.critical_path.json.
bool isOwnOutputName(std::string_view fileName);

// True for names ending in .json or .json.gz.
bool isJsonTraceName(std::string_view fileName);

} // namespace syncscope
