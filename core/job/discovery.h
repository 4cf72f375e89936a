// SPDX-License-Identifier: MIT
// Job discovery: finds every rank's trace files under the --job inputs,
// classifies each as host ET or Kineto trace by content (header only, never a
// full load), reads the rank from the Kineto distributedInfo, pairs host and
// device per rank by pid and rank, and reports every doubt as a diagnostic
// (duplicate or missing ranks, hosts without a device, mixed jobs...) instead
// of guessing silently.
#pragma once

#include "model/diagnostics.h"
#include "parse/traceloader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace syncscope {

// One .json/.json.gz file found under an input, as its header describes it.
struct JobTraceFile {
    std::string path;
    TraceKind kind = TraceKind::Unknown;
    bool readable = true;              // false: the header could not be read (error in the diagnostics)
    std::string error;                 // the first error reading it
    std::optional<int64_t> rank;       // Kineto distributedInfo.rank, else from the file name
    bool rankFromName = false;
    std::optional<int64_t> worldSize; // Kineto distributedInfo.world_size
    int64_t pid = -1;                  // ET top-level pid; Kineto: pid of the first CPU event
    std::optional<double> startUs;     // Kineto: first event's ts (µs since the epoch on real traces)
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
    std::vector<int64_t> missingRanks; // 0..world_size-1 not found
    Diagnostics diagnostics;           // codes "job.*"
};

struct DiscoveryOptions {
    unsigned workers = 0;             // header reads in parallel (0: one per core)
    std::vector<std::string> exclude; // directories not searched (the output directory)
};

// `inputs`: directories (searched recursively), trace files, or list files (one
// directory or trace file per line, relative to the list file; '#' comments).
JobDiscovery discoverJob(const std::vector<std::string> &inputs, const DiscoveryOptions &options = {});

// The rank a file name states: "rank-3", "rank3", "_rank_3", "x.3.json", "x_3.pt.trace.json".
std::optional<int64_t> rankFromFileName(std::string_view fileName);

// True for names ending in .json or .json.gz.
bool isJsonTraceName(std::string_view fileName);

} // namespace syncscope
