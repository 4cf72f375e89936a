// SPDX-License-Identifier: MIT
// Helpers shared by the Chakra .et test suites: run the pipeline, convert,
// decode messages, and check the invariants a simulator relies on.
#pragma once

#include "export/chakraconvert.h"
#include "export/chakrawriter.h"
#include "proto/et_def.pb.h"
#include "session/analysis.h"

#include <google/protobuf/text_format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace chakratest {

using namespace syncscope;

inline std::shared_ptr<Analysis> analyse(const std::string &host, const std::string &device, LinkMode mode,
                                         bool htaExact = false)
{
    AnalysisRequest req;
    req.hostPath = host;
    req.devicePath = device;
    req.mode = mode;
    req.criticalPath = false;
    req.cpa.htaExact = htaExact;
    return runAnalysis(req);
}

struct Converted {
    bool ok = false;
    ChakraGraph graph;
    std::string bytes;
    Diagnostics diagnostics;
};

inline Converted convert(const Analysis &a)
{
    Converted c;
    c.ok = buildChakraGraph(*a.host, *a.device, *a.link, c.graph, c.diagnostics);
    if (c.ok)
        c.bytes = chakraEtBytes(c.graph, *a.host, *a.device, *a.link);
    return c;
}

struct Decoded {
    ChakraProtoMsg::GlobalMetadata metadata;
    std::vector<ChakraProtoMsg::Node> nodes;
    std::vector<size_t> sizes; // per message (metadata first)
    std::string error;
};

// Splits a length-delimited stream (uncompressed) into messages.
inline Decoded decode(const std::string &bytes)
{
    Decoded d;
    size_t pos = 0;
    for (size_t index = 0; pos < bytes.size(); ++index) {
        uint64_t len = 0;
        for (int shift = 0;; shift += 7) {
            if (pos >= bytes.size() || shift > 28) {
                d.error = "bad length prefix";
                return d;
            }
            const auto b = static_cast<unsigned char>(bytes[pos++]);
            len |= static_cast<uint64_t>(b & 0x7f) << shift;
            if (!(b & 0x80))
                break;
        }
        if (pos + len > bytes.size()) {
            d.error = "truncated message";
            return d;
        }
        const std::string body = bytes.substr(pos, len);
        pos += len;
        d.sizes.push_back(len);
        if (index == 0) {
            if (!d.metadata.ParseFromString(body))
                d.error = "bad metadata";
        } else {
            d.nodes.emplace_back();
            if (!d.nodes.back().ParseFromString(body))
                d.error = "bad node";
        }
    }
    return d;
}

// The layout of chakra.0.decoded.txt: "# message N: Type, S bytes" then protoc's text.
inline std::string decodedText(const Decoded &d)
{
    std::string out;
    auto add = [&](size_t index, const char *type, const google::protobuf::Message &m) {
        if (index > 0)
            out += "\n";
        std::string text;
        google::protobuf::TextFormat::PrintToString(m, &text);
        out += "# message " + std::to_string(index) + ": " + type + ", " + std::to_string(d.sizes[index]) +
               " bytes\n" + text;
    };
    add(0, "GlobalMetadata", d.metadata);
    for (size_t i = 0; i < d.nodes.size(); ++i)
        add(i + 1, "Node", d.nodes[i]);
    return out;
}

inline const ChakraProtoMsg::AttributeProto *attr(const ChakraProtoMsg::Node &n, const std::string &name)
{
    for (const auto &a : n.attr())
        if (a.name() == name)
            return &a;
    return nullptr;
}

inline bool hasDep(const ChakraProtoMsg::Node &n, uint64_t id)
{
    return std::find(n.data_deps().begin(), n.data_deps().end(), id) != n.data_deps().end();
}

// The default-mode invariants (issue 5): every dependency names a node of the
// file, the graph is acyclic, GPU nodes follow each other per (device, stream),
// sync dependencies whose GPU node starts first are data deps, timed nodes
// have start_time_micros. Returns "" or the first violation.
inline std::string checkInvariants(const Analysis &a, const Decoded &d, int64_t *syncChecked = nullptr)
{
    if (!d.error.empty())
        return d.error;
    std::map<uint64_t, const ChakraProtoMsg::Node *> byId;
    for (const auto &n : d.nodes)
        if (!byId.emplace(n.id(), &n).second)
            return "duplicate id " + std::to_string(n.id());
    for (const auto &n : d.nodes) {
        for (uint64_t dep : n.data_deps())
            if (!byId.count(dep))
                return "node " + std::to_string(n.id()) + " has a data dep on missing " + std::to_string(dep);
        for (uint64_t dep : n.ctrl_deps())
            if (!byId.count(dep))
                return "node " + std::to_string(n.id()) + " has a ctrl dep on missing " + std::to_string(dep);
    }
    // Acyclic (Kahn).
    std::map<uint64_t, int> pending;
    std::map<uint64_t, std::vector<uint64_t>> dependents;
    std::vector<uint64_t> ready;
    for (const auto &n : d.nodes) {
        pending[n.id()] = n.data_deps_size();
        for (uint64_t dep : n.data_deps())
            dependents[dep].push_back(n.id());
        if (n.data_deps_size() == 0)
            ready.push_back(n.id());
    }
    size_t done = 0;
    while (!ready.empty()) {
        const uint64_t id = ready.back();
        ready.pop_back();
        ++done;
        for (uint64_t w : dependents[id])
            if (--pending[w] == 0)
                ready.push_back(w);
    }
    if (done != d.nodes.size())
        return "the data_deps graph has a cycle";
    // Per-stream order, sync deps and start times from the plan.
    const auto &plan = a.link->plan;
    std::map<std::tuple<int64_t, int64_t>, std::vector<std::pair<double, uint64_t>>> streams;
    int64_t synced = 0;
    std::map<int64_t, const EtPlusNode *> planById;
    for (const EtPlusNode &p : plan.nodes)
        planById[p.id] = &p;
    for (const EtPlusNode &p : plan.nodes) {
        auto it = byId.find(static_cast<uint64_t>(p.id));
        if (it == byId.end())
            continue;
        const auto &n = *it->second;
        if (p.timed && p.ts.value >= 1 && n.start_time_micros() != static_cast<uint64_t>(p.ts.value))
            return "node " + std::to_string(p.id) + " has start_time_micros " + std::to_string(n.start_time_micros());
        if (p.gpuEvent >= 0) {
            const KinetoEvent &k = a.device->events[static_cast<size_t>(p.gpuEvent)];
            streams[{k.has(KinetoEvent::HasDevice) ? k.device : k.pid, k.stream}].emplace_back(p.ts.value, n.id());
        }
        for (uint32_t s = p.syncBegin; s < p.syncEnd; ++s) {
            const int64_t gpu = plan.syncDepIds[s];
            auto g = byId.find(static_cast<uint64_t>(gpu));
            if (g == byId.end())
                return "sync dep target " + std::to_string(gpu) + " is not in the file";
            const EtPlusNode *gp = planById[gpu];
            if (gp && gp->ts.value < p.ts.value) {
                if (!hasDep(n, static_cast<uint64_t>(gpu)))
                    return "sync dep " + std::to_string(gpu) + " of node " + std::to_string(p.id) + " is missing";
                ++synced;
            }
        }
    }
    for (auto &[key, list] : streams) {
        std::stable_sort(list.begin(), list.end());
        for (size_t k = 1; k < list.size(); ++k)
            if (!hasDep(*byId[list[k].second], list[k - 1].second))
                return "GPU node " + std::to_string(list[k].second) + " does not follow " +
                       std::to_string(list[k - 1].second) + " on its stream";
    }
    if (syncChecked)
        *syncChecked = synced;
    return {};
}

} // namespace chakratest
