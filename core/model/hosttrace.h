// SPDX-License-Identifier: MIT
// The host execution trace (PyTorch ExecutionTraceObserver JSON) as compact
// records. Each node keeps its minified JSON text so the ET+ writer and the
// Chakra converter reproduce every field without a second parse of the file.
#pragma once

#include "stringtable.h"
#include "textarena.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace syncscope {

enum class HostLayout : uint8_t {
    Flat,   // schema 1.0.1: parent/rf_id/tid as node keys, inputs/input_shapes/input_types
    Nested, // 1.0.2 and later: ctrl_deps, inputs{values,shapes,types}, attrs[]
};

struct HostNode {
    enum Flag : uint8_t {
        HasParent = 1 << 0,
        HasRfId = 1 << 1,
        HasTid = 1 << 2,
        IsRootLike = 1 << 3, // [pytorch|profiler|execution_{trace,graph}|{process,thread}]
        IsThreadRoot = 1 << 4,
        IsProcessRoot = 1 << 5,
    };
    int64_t id = 0;
    int64_t parent = 0;  // ctrl_deps (nested) or parent (flat)
    int64_t rfId = 0;
    int64_t tid = 0;     // ET thread index (not the OS tid)
    StrId name = kNoString;
    uint8_t flags = 0;
    uint32_t textLength = 0;
    TextArena::Handle text = 0; // into HostTrace::text

    bool has(Flag f) const { return (flags & f) != 0; }
};

struct HostTrace {
    std::string path;
    uint64_t inputBytes = 0;
    bool compressed = false;
    std::string schema;
    HostLayout layout = HostLayout::Nested;
    int64_t pid = -1;
    StringTable strings;
    std::vector<HostNode> nodes;   // file order
    TextArena text;                // minified node JSON
    // Top-level keys other than nodes, in file order, as raw JSON.
    std::vector<std::pair<std::string, std::string>> topLevel;
    size_t nodesPosition = 0;      // index in topLevel before which "nodes" stood
    // The root: id 1 in PyTorch's ET; in a linked ET+ (renumbered from 0), its process
    // node, which is its own parent (0 -> 0). See HostNodeSink::finish.
    int64_t rootId = 1;
    // GPU nodes of a linked ET+ given as the host ET (nodes with a "cat" key): left out
    // at load, since the device trace supplies them again.
    uint64_t linkedGpuNodes = 0;
    // The file is a linked ET+ (its root is not id 1, or it had GPU nodes): the keys
    // linking adds are stale on nodes the new link does not time.
    bool linkedInput() const { return rootId != 1 || linkedGpuNodes > 0; }

    std::string_view str(StrId id) const { return strings.view(id); }
    std::string_view nodeText(const HostNode &n) const { return text.view(n.text, n.textLength); }
};

} // namespace syncscope
