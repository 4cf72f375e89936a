// SPDX-License-Identifier: MIT
// Internal to chakraconvert.cpp / chakradeps.cpp: the converter's working state.
#pragma once

#include "chakraconvert.h"

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace syncscope::chakra_detail {

constexpr int64_t kNoId = std::numeric_limits<int64_t>::min();

enum class Kind : uint8_t { Cpu, Gpu, Metadata };

// Why an edge exists; the order is the order in which default mode gives
// edges up to break a cycle (weakest first).
enum class DepKind : uint8_t { Sync, InterThread, Stream, Launch, Chain };

struct Dep {
    int64_t id;    // node id as written
    int32_t index; // plan index of that node, -1 when it is not converted
    DepKind kind;
};

struct Converter {
    const HostTrace &host;
    const KinetoTrace &device;
    const LinkResult &link;
    Diagnostics &diag;
    bool compat = false;

    // Per plan node.
    std::vector<int64_t> parent;      // ctrl_deps value the converter reads (kNoId: none)
    std::vector<int32_t> parentIndex; // plan index of the parent, -1 when no such node
    std::vector<Kind> kind;
    std::vector<int32_t> convertedAt; // conversion order, -1 when not converted
    std::vector<uint8_t> ctrl;        // ctrl_deps written at conversion time
    std::vector<std::vector<Dep>> deps;
    std::vector<uint8_t> removed;     // dangling
    std::vector<int32_t> indexOfId;   // id -> plan index (-1)
    std::vector<uint32_t> conversionOrder;
    // Children by parent (plan order), CSR.
    std::vector<uint32_t> childBegin, children;

    Converter(const HostTrace &h, const KinetoTrace &d, const LinkResult &l, Diagnostics &g)
        : host(h), device(d), link(l), diag(g), compat(l.mode == LinkMode::Chakra)
    {
    }

    bool sparse = false;
    std::unordered_map<int64_t, int32_t> sparseIndex; // instead of indexOfId when ids are sparse

    int32_t indexOf(int64_t id) const
    {
        if (sparse) {
            auto it = sparseIndex.find(id);
            return it == sparseIndex.end() ? -1 : it->second;
        }
        return id >= 0 && static_cast<uint64_t>(id) < indexOfId.size() ? indexOfId[static_cast<size_t>(id)] : -1;
    }
    int32_t convertedIndexOf(int64_t id) const
    {
        const int32_t i = indexOf(id);
        return i >= 0 && convertedAt[static_cast<size_t>(i)] >= 0 ? i : -1;
    }
    std::string_view name(size_t i) const { return chakraNodeName(host, device, link.plan.nodes[i]); }

    // Default mode: own time in µs before rounding; hasDur: duration_micros is written.
    std::vector<double> exactDur;
    std::vector<uint8_t> hasDur;

    // chakradeps.cpp
    void addDep(size_t node, int64_t id, DepKind kind); // once per target id
    void encodeDataDeps(ChakraStats &stats);        // 5.5 traversal (+ default mode's sync deps)
    void chainGpuStreams(ChakraStats &stats); // default mode (#215)
    bool checkDeps(ChakraStats &stats);   // deps on nodes that are not converted
    void removeDangling(ChakraStats &stats);
    bool checkAcyclic(ChakraStats &stats); // chakracycles.cpp: compat: error; default: break cycles

    // chakratiming.cpp (default mode): durations and edges for a faithful replay.
    void fitTiming(std::vector<ChakraNode> &nodes, ChakraStats &stats);
    bool timedCpu(size_t i) const;
    bool forwardBackwardThreads(int64_t &fwd, int64_t &bwd) const;
    void linkForwardBackward(int64_t fwd, int64_t bwd, std::vector<double> &dur, ChakraStats &stats);
    void carryGaps(int64_t fwd, int64_t bwd, std::vector<double> &dur) const;
    std::map<std::pair<int64_t, int64_t>, int64_t> kinetoThreadGroups(int64_t fwd, int64_t bwd) const;
    void moveBlockingWaits(int64_t fwd, int64_t bwd, std::vector<double> &dur, ChakraStats &stats);
    void roundWithCarry(const std::vector<double> &dur, std::vector<ChakraNode> &nodes) const;
};

// chakracommsize.cpp: the bytes of the rank's input to a collective from the Kineto args of its
// kernel (or of the op that launched it); nullopt when the trace records none.
std::optional<int64_t> kinetoCommBytes(const Converter &c, size_t i);

} // namespace syncscope::chakra_detail
