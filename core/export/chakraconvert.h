// SPDX-License-Identifier: MIT
// Turns a linked pair (the ET+ node plan) into the node graph of a Chakra
// protobuf execution trace: node types, communication attributes, control and
// data dependencies, dangling-node removal and the acyclicity check
// (trace_link_spec 5.2-5.5). The plan is used directly; no ET+ file is parsed.
//
// Two modes follow the link mode:
//  * LinkMode::Chakra reproduces `chakra_converter PyTorch` (mlcommons/chakra
//    @21585d8) on the ET+ that chakra_trace_link would have written, quirks and
//    bugs included. Where the reference fails (unsupported schema, unknown
//    NCCL kernel, cycle, ...) an Error diagnostic says so and no graph is built.
//  * LinkMode::Default fixes the listed bugs: start_time_micros from ts, sync
//    dependencies encoded, GPU ops chained per (device, stream), no ctrl_dep
//    to a removed node, schemas 1.0.1/1.0.4/1.1.1-chakra.1.0.0 accepted, old
//    NCCL kernel names classified, cycles broken deterministically and reported.
#pragma once

#include "analysis/chakracommkind.h"
#include "link/linkresult.h"
#include "model/diagnostics.h"
#include "model/hosttrace.h"
#include "model/kinetotrace.h"

#include <cstdint>
#include <string>
#include <vector>

namespace syncscope {

// One GlobalMetadata attribute: a string or an unsigned integer.
struct ChakraMetaAttr {
    std::string name;
    bool isString = false;
    std::string text;
    uint64_t number = 0;
};

// One node that goes into the file.
struct ChakraNode {
    uint64_t id = 0;
    uint32_t plan = 0;          // index in LinkResult::plan.nodes
    uint8_t type = kChakraCompNode;
    bool gpu = false;           // is_cpu_op false
    bool hasCtrlDep = false;
    int8_t commType = kCommNone; // COMM_COLL only
    uint64_t ctrlDep = 0;
    uint64_t startMicros = 0;   // default mode only
    uint64_t durationMicros = 0;
    int64_t commSize = 0;       // COMM_* nodes
    int32_t pgName = -1;        // COMM_* nodes with a non-empty pg_name: index in ChakraGraph::pgNames
    uint32_t depBegin = 0, depEnd = 0; // data_deps: ChakraGraph::deps[depBegin, depEnd)
};

struct ChakraStats {
    int64_t planNodes = 0;      // ET+ nodes
    int64_t converted = 0;      // nodes the converter turned into Chakra nodes
    int64_t gpuDropped = 0;     // GPU nodes whose parent is not a CPU node (never converted)
    int64_t dangling = 0;       // removed: no data_deps and nobody depends on them
    int64_t ctrlDepsDropped = 0;// default: ctrl_deps to removed nodes left out (astra-sim#338)
    int64_t syncDeps = 0;       // default: sync dependencies written as data_deps
    int64_t syncDepsSkipped = 0;// default: sync deps whose GPU node does not start earlier
    int64_t streamDeps = 0;     // default: per-(device, stream) order edges
    int64_t threadHandoffDeps = 0; // default: forward thread <-> autograd thread hand-over edges
    int64_t blockingWaitsMoved = 0; // default: blocking-call waits taken out of an op's own time (kept as the dep)
    int64_t missingDeps = 0;    // default: deps on nodes not in the file, left out
    int64_t missingParents = 0; // ctrl_deps values that name no node of the plan
    int64_t cycleEdgesRemoved = 0; // default: edges removed to break cycles
    int64_t commSizeFromKineto = 0; // default: comm_size from the Kineto message args
    int64_t commSizeUnknown = 0;    // default: collectives with neither Kineto args nor ET tensors (comm_size 0)
};

struct ChakraGraph {
    LinkMode mode = LinkMode::Default;
    std::vector<ChakraMetaAttr> metadata;
    std::vector<ChakraNode> nodes; // ascending id
    std::vector<uint64_t> deps;
    std::vector<std::string> pgNames;
    ChakraStats stats;
};

// Builds the graph for link.mode. Returns false, with Error diagnostics, when
// nothing may be written (Chakra mode: the reference converter fails on this
// input; default mode: only for a plan that is internally inconsistent).
// `metadataNodes`: default mode writes process_group:init as METADATA_NODE (as the
// reference does) instead of a CPU COMP_NODE; released ASTRA-sim aborts on those.
bool buildChakraGraph(const HostTrace &host, const KinetoTrace &device, const LinkResult &link, ChakraGraph &graph,
                      Diagnostics &diagnostics, bool metadataNodes = false);


} // namespace syncscope
