// SPDX-License-Identifier: MIT
// What `syncscope --batch --inspect FILE.et` prints: node counts by type,
// dependency counts, roots, references to missing nodes, and the metadata.
#pragma once

#include "proto/et_def.pb.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace syncscope {

struct ChakraEtSummary {
    std::string path;
    uint64_t fileBytes = 0;
    bool compressed = false;
    std::string version;                               // GlobalMetadata.version
    std::vector<std::pair<std::string, std::string>> metadata; // attr name -> value as text
    int64_t nodes = 0;
    int64_t gpuNodes = 0;                              // is_cpu_op false
    std::map<std::string, int64_t> byType;             // NodeType name -> count
    std::map<std::string, int64_t> byCommType;         // COMM_COLL nodes: comm_type name -> count
    int64_t dataDeps = 0, ctrlDeps = 0;
    int64_t nodesWithDataDeps = 0;
    int64_t maxDataDeps = 0;
    int64_t roots = 0;                                 // nodes without data_deps
    std::vector<uint64_t> firstRoots;                  // up to 10, file order
    int64_t missingDataDeps = 0;                       // data_deps naming an id not in the file
    int64_t missingCtrlDeps = 0;                       // ctrl_deps naming an id not in the file (astra-sim#338)
    int64_t duplicateIds = 0;
    int64_t selfDeps = 0;                              // ctrl_deps/data_deps naming the node itself
    int64_t withStartTime = 0;                         // start_time_micros != 0
    uint64_t minId = 0, maxId = 0;
    bool idsAscending = true;
    std::map<std::string, int64_t> attrNames;          // attr name -> nodes carrying it
};

// Reads `path` (streaming) and summarises it. Throws InputError.
ChakraEtSummary summarizeChakraEt(const std::string &path);

// Human-readable text of the summary (stable layout; tests check it).
std::string formatChakraEtSummary(const ChakraEtSummary &s);

} // namespace syncscope
