// SPDX-License-Identifier: MIT
#include "chakraconvert.h"

#include "analysis/chakracommkind.h"
#include "chakraconvertimpl.h"
#include "chakrafields.h"
#include "json/numbers.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace syncscope {

using namespace chakra_detail;

namespace {

bool contains(std::string_view s, std::string_view part)
{
    return s.find(part) != std::string_view::npos;
}

// chakra_converter accepts exactly these (pytorch_node.py SUPPORTED_VERSIONS,
// minus 1.1.1-chakra.1.0.0, which it lists but cannot parse: trace_link_spec 1.1).
bool compatSchema(std::string_view schema)
{
    return schema == "1.0.2-chakra.0.0.4" || schema == "1.0.3-chakra.0.0.4" || schema == "1.1.0-chakra.0.0.4" ||
           schema == "1.1.1-chakra.0.0.4";
}

const std::string *topLevel(const HostTrace &host, std::string_view key)
{
    for (const auto &kv : host.topLevel)
        if (kv.first == key)
            return &kv.second;
    return nullptr;
}

// GlobalMetadata: schema, pid, time, start_ts, finish_ts from the top level (5.6).
bool buildMetadata(const HostTrace &host, bool compat, ChakraGraph &g, Diagnostics &diag)
{
    static const struct {
        const char *key;
        bool isString;
    } kKeys[] = {{"schema", true}, {"pid", false}, {"time", true}, {"start_ts", false}, {"finish_ts", false}};
    for (const auto &k : kKeys) {
        const std::string *raw = topLevel(host, k.key);
        ChakraMetaAttr a;
        a.name = k.key;
        a.isString = k.isString;
        bool ok = raw != nullptr;
        int64_t v = 0;
        if (ok && k.isString)
            ok = jsonToString(*raw, a.text);
        else if (ok)
            ok = (compat ? jsonToInt64(*raw, v) : jsonTruncToInt64(*raw, v)) && v >= 0;
        a.number = static_cast<uint64_t>(v);
        if (ok) {
            g.metadata.push_back(std::move(a));
            continue;
        }
        const std::string what = raw ? std::string("has an unusable value for '") + k.key + "'"
                                     : std::string("has no top-level '") + k.key + "'";
        if (compat) {
            diag.error("chakra_et.compat_metadata", "the host trace " + what +
                                                        "; chakra_converter fails on it, so no .et is written",
                       host.path);
            return false;
        }
        diag.warning("chakra_et.metadata", "the host trace " + what + "; it is left out of the .et metadata",
                     host.path);
    }
    return true;
}

// Python's node.pg_name (5.2): the top-level key (on GPU nodes the Kineto
// "Process Group Name" of ncclDevKernel*), overridden by an attr of that name.
std::string pgNameOf(const Converter &c, size_t i)
{
    const EtPlusNode &p = c.link.plan.nodes[i];
    ChakraHostFields f;
    scanChakraHostFields(c.host.nodeText(c.host.nodes[p.host]), c.host.layout, f);
    std::string pg;
    if (!f.pgNameAttr.empty()) {
        if (!jsonToString(f.pgNameAttr, pg))
            pg = std::string(f.pgNameAttr);
        return pg;
    }
    if (p.gpuEvent >= 0) {
        const KinetoEvent &k = c.device.events[static_cast<size_t>(p.gpuEvent)];
        if (contains(c.device.str(k.name), "ncclDevKernel") && k.pgName != kNoString)
            return std::string(c.device.str(k.pgName));
    }
    if (!f.pgNameTop.empty() && !jsonToString(f.pgNameTop, pg))
        pg = std::string(f.pgNameTop);
    return pg;
}

// Node type, comm_type, comm_size and pg_name of a GPU node (5.4).
bool classifyGpuNode(const Converter &c, size_t i, ChakraNode &out, ChakraGraph &g)
{
    const std::string_view nm = c.name(i);
    const int64_t id = c.link.plan.nodes[i].id;
    out.type = kChakraCompNode;
    if (!contains(nm, "nccl"))
        return true;
    std::string pg = pgNameOf(c, i);
    if (!c.compat) {
        // The kind the GUI shows too (chakraKernelCommKind): default mode parents NCCL
        // kernels under the innermost op (nccl:*, #196), so a SendRecv kernel's kind comes
        // from up to three ancestors; a record_param_comms among them gives the pg_name.
        size_t at = i;
        const ChakraCommKind kind = chakraKernelCommKind(nm, [&](int depth) -> std::optional<std::string_view> {
            const int32_t up = c.parentIndex[at];
            if (up < 0 || (depth > 0 && static_cast<size_t>(up) == at))
                return std::nullopt;
            at = static_cast<size_t>(up);
            const std::string_view nmAt = c.name(at);
            if (nmAt == "record_param_comms")
                if (std::string ppg = pgNameOf(c, at); !ppg.empty())
                    pg = std::move(ppg);
            return nmAt;
        });
        if (kind.unknownCollective) {
            c.diag.warning("chakra_et.unknown_collective",
                           "NCCL kernels whose collective is unknown were written as compute nodes (first: '" +
                               std::string(nm) + "')");
            return true;
        }
        out.type = kind.type;
        out.commType = kind.comm;
    } else {
        // [QUIRK] only the ncclDevKernel_SendRecv spelling is looked at.
        if (contains(nm, "ncclDevKernel_SendRecv")) {
            const size_t parent = static_cast<size_t>(c.parentIndex[i]);
            // The keyword is the parent's name, or the grandparent's under record_param_comms.
            std::string_view keyword = c.name(parent);
            if (keyword == "record_param_comms") {
                const int32_t grand = c.parentIndex[parent];
                if (grand < 0) {
                    c.diag.error("chakra_et.compat_sendrecv_parent",
                                 "the record_param_comms parent of GPU node " + std::to_string(id) +
                                     " has no parent; chakra_converter fails here (KeyError), so no .et is written");
                    return false;
                }
                keyword = c.name(static_cast<size_t>(grand));
                if (std::string ppg = pgNameOf(c, parent); !ppg.empty())
                    pg = std::move(ppg);
            }
            out.type = chakraSendRecvType(keyword, true);
        }
        if (out.type == kChakraCompNode && (contains(nm, "ncclKernel") || contains(nm, "ncclDevKernel")))
            out.type = kChakraCollNode;
        if (out.type == kChakraCollNode) {
            const ChakraCommType ct = chakraCommType(nm, false);
            if (ct == kCommNone) {
                c.diag.error("chakra_et.compat_comm_type",
                             "chakra_converter cannot tell the collective of GPU node " + std::to_string(id) +
                                 " ('" + std::string(nm) +
                                 "') and fails with ValueError, so no .et is written (the default mode writes it)");
                return false;
            }
            out.commType = static_cast<int8_t>(ct);
        }
    }
    if (out.type == kChakraCollNode || out.type == kChakraSendNode || out.type == kChakraRecvNode) {
        // Default mode: a kernel under nccl:* (#196 fixed) does not inherit
        // record_param_comms' pg_name attr, so take it from that ancestor.
        for (int32_t at = c.parentIndex[i], depth = 0; !c.compat && pg.empty() && at >= 0 && depth < 3;
             at = c.parentIndex[static_cast<size_t>(at)], ++depth)
            if (c.name(static_cast<size_t>(at)) == "record_param_comms")
                pg = pgNameOf(c, static_cast<size_t>(at));
        ChakraHostFields f;
        const EtPlusNode &p = c.link.plan.nodes[i];
        scanChakraHostFields(c.host.nodeText(c.host.nodes[p.host]), c.host.layout, f);
        // Default mode: the message Kineto records (the ET inputs can hold one tensor of
        // a bucket, or none); the ET's tensors where Kineto has no message args.
        const std::optional<int64_t> kineto =
            c.compat ? std::nullopt : kinetoCommBytes(c, i);
        if (kineto) {
            out.commSize = *kineto;
            ++g.stats.commSizeFromKineto;
        } else if (const auto size = chakraCommSize(f.inValues, f.inTypes)) {
            out.commSize = *size;
            if (!c.compat && *size == 0)
                ++g.stats.commSizeUnknown;
        } else {
            out.commSize = -1; // written as "unknown"; the reference fails on such a node
            c.diag.warning("chakra_et.comm_size_overflow",
                           "the communication size of " + std::string(c.name(i)) +
                               " (numel x element size of its tensors) does not fit a 64-bit integer; comm_size "
                               "is written as -1");
        }
        if (!pg.empty()) {
            out.pgName = static_cast<int32_t>(g.pgNames.size());
            g.pgNames.push_back(std::move(pg));
        }
    }
    return true;
}

// What makes the reference fail while it builds a node (5.3): a missing
// inputs/outputs field or one of the seven attrs, an attr value protobuf
// refuses, a stream that is not an integer.
bool validateCompatNode(const Converter &c, size_t i)
{
    const EtPlusNode &p = c.link.plan.nodes[i];
    ChakraHostFields f;
    scanChakraHostFields(c.host.nodeText(c.host.nodes[p.host]), c.host.layout, f);
    std::string problem;
    if (f.inValues.empty() || f.inShapes.empty() || f.inTypes.empty() || f.outValues.empty() ||
        f.outShapes.empty() || f.outTypes.empty())
        problem = "lacks inputs/outputs values, shapes or types (KeyError)";
    for (int s = 0; s < kChakraAttrSlots && problem.empty(); ++s) {
        int64_t v = 0;
        std::string text;
        if (f.attr[s].empty())
            problem = std::string("has no '") + kChakraAttrNames[s] + "' attr (AttributeError)";
        else if (s == kOpSchema ? !jsonToString(f.attr[s], text) : !jsonToInt64(f.attr[s], v))
            problem = std::string("has a '") + kChakraAttrNames[s] + "' attr protobuf cannot store";
    }
    if (problem.empty() && p.gpuEvent >= 0 &&
        c.device.events[static_cast<size_t>(p.gpuEvent)].streamForm == StreamForm::String)
        problem = "has a stream that is not an integer (TypeError)";
    if (problem.empty())
        return true;
    c.diag.error("chakra_et.compat_node",
                 "node " + std::to_string(p.id) + " ('" + std::string(c.name(i)) + "') " + problem +
                     "; chakra_converter fails here, so no .et is written (the default mode writes it)",
                 c.host.path);
    return false;
}

} // namespace

bool buildChakraGraph(const HostTrace &host, const KinetoTrace &device, const LinkResult &link, ChakraGraph &g,
                      Diagnostics &diag, bool metadataNodes)
{
    Converter c(host, device, link, diag);
    const bool compat = c.compat;
    g = ChakraGraph{};
    g.mode = link.mode;
    const auto &plan = link.plan.nodes;
    const size_t n = plan.size();
    g.stats.planNodes = static_cast<int64_t>(n);

    if (compat && !compatSchema(host.schema)) {
        const bool listed = host.schema == "1.1.1-chakra.1.0.0";
        diag.error("chakra_et.compat_schema",
                   "chakra_converter " +
                       std::string(listed ? "lists schema 1.1.1-chakra.1.0.0 but never parses it and fails with "
                                            "AttributeError"
                                          : "rejects schema '" + host.schema + "' (Unsupported schema version)") +
                       "; no .et is written in --compat chakra mode (the default mode accepts it)",
                   host.path);
        return false;
    }
    if (!buildMetadata(host, compat, g, diag))
        return false;

    // Ids, parents, kinds.
    int64_t maxId = -1;
    for (const EtPlusNode &p : plan)
        maxId = std::max(maxId, p.id);
    // Plan ids are dense (0..n-1 plus a few fresh ids); a hash map only if not.
    c.sparse = maxId > static_cast<int64_t>(4 * n + 1024);
    if (!c.sparse)
        c.indexOfId.assign(static_cast<size_t>(maxId + 1), -1);
    for (uint32_t i = 0; i < n; ++i) {
        if (plan[i].id < 0)
            continue;
        if (c.sparse)
            c.sparseIndex[plan[i].id] = static_cast<int32_t>(i);
        else
            c.indexOfId[static_cast<size_t>(plan[i].id)] = static_cast<int32_t>(i);
    }
    c.parent.assign(n, kNoId);
    c.parentIndex.assign(n, -1);
    c.kind.assign(n, Kind::Cpu);
    ChakraHostFields f;
    for (uint32_t i = 0; i < n; ++i) {
        const EtPlusNode &p = plan[i];
        const HostNode &h = host.nodes[p.host];
        if (p.rewriteParent)
            c.parent[i] = p.parentValue;
        else if (h.has(HostNode::HasParent))
            c.parent[i] = h.parent;
        c.parentIndex[i] = c.indexOf(c.parent[i]);
        g.stats.missingParents += c.parent[i] != kNoId && c.parentIndex[i] < 0;
        const std::string_view nm = c.name(i);
        bool gpu = p.gpuEvent >= 0;
        if (!gpu && compat) { // a "cat" key in the host node would make it a GPU node too
            scanChakraHostFields(host.nodeText(h), host.layout, f);
            gpu = f.catPresent;
        }
        c.kind[i] = contains(nm, "process_group:init") ? Kind::Metadata : gpu ? Kind::Gpu : Kind::Cpu;
        if (compat && c.parent[i] == kNoId) {
            diag.error("chakra_et.compat_no_parent",
                       "node " + std::to_string(p.id) + " ('" + std::string(nm) +
                           "') has no ctrl_deps; chakra_converter fails with KeyError, so no .et is written",
                       host.path);
            return false;
        }
    }
    // Children by parent, in id order (5.2).
    c.childBegin.assign(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i)
        if (c.parentIndex[i] >= 0)
            ++c.childBegin[static_cast<size_t>(c.parentIndex[i]) + 1];
    for (size_t i = 0; i < n; ++i)
        c.childBegin[i + 1] += c.childBegin[i];
    c.children.resize(c.childBegin[n]);
    {
        std::vector<uint32_t> fill(c.childBegin.begin(), c.childBegin.end() - 1);
        for (uint32_t i = 0; i < n; ++i)
            if (c.parentIndex[i] >= 0)
                c.children[fill[static_cast<size_t>(c.parentIndex[i])]++] = i;
    }

    // Conversion order (5.3): CPU/metadata nodes by id, each followed by its GPU
    // children. GPU nodes under anything else are never converted.
    c.convertedAt.assign(n, -1);
    c.ctrl.assign(n, 0);
    auto convert = [&](uint32_t i) {
        const int32_t pi = c.parentIndex[i];
        // ctrl_deps only if the parent was converted already ([QUIRK] so the
        // process node's self-reference is not written).
        c.ctrl[i] = pi >= 0 && (c.convertedAt[static_cast<size_t>(pi)] >= 0 || !compat);
        c.convertedAt[i] = static_cast<int32_t>(c.conversionOrder.size());
        c.conversionOrder.push_back(i);
    };
    for (uint32_t i = 0; i < n; ++i) {
        if (c.kind[i] == Kind::Gpu)
            continue;
        convert(i);
        for (uint32_t k = c.childBegin[i]; k < c.childBegin[i + 1]; ++k)
            if (c.kind[c.children[k]] == Kind::Gpu && c.children[k] != i)
                convert(c.children[k]);
    }
    g.stats.converted = static_cast<int64_t>(c.conversionOrder.size());
    for (uint32_t i = 0; i < n; ++i)
        g.stats.gpuDropped += c.kind[i] == Kind::Gpu && c.convertedAt[i] < 0;
    if (!compat) // default mode: a ctrl_dep only to another node that is in the graph
        for (uint32_t i : c.conversionOrder)
            c.ctrl[i] = c.ctrl[i] && c.parentIndex[i] != static_cast<int32_t>(i) &&
                        c.convertedAt[static_cast<size_t>(c.parentIndex[i])] >= 0;

    // Node types and communication attributes (5.4).
    std::vector<ChakraNode> nodes(n);
    if (!compat) {
        c.exactDur.assign(n, 0.0);
        c.hasDur.assign(n, 0);
    }
    for (uint32_t i : c.conversionOrder) {
        if (compat && !validateCompatNode(c, i))
            return false;
        const EtPlusNode &p = plan[i];
        ChakraNode &out = nodes[i];
        out.id = static_cast<uint64_t>(p.id);
        out.plan = i;
        out.gpu = c.kind[i] == Kind::Gpu;
        const std::string_view nm = c.name(i);
        if (c.kind[i] == Kind::Metadata) {
            // Released ASTRA-sim aborts on a METADATA_NODE ("Invalid node_type",
            // Statistics.cc); default mode writes process_group:init as the CPU op it is.
            out.type = compat || metadataNodes ? kChakraMetadataNode : kChakraCompNode;
        } else if (out.gpu) {
            if (!classifyGpuNode(c, i, out, g))
                return false;
        }
        // duration: int(exclusive_dur), [QUIRK] 0 for Optimizer.step (chakra PR #108).
        if (!compat && p.timed && contains(nm, "Optimizer.step"))
            c.hasDur[i] = 1; // own time 0 as in the reference, but it takes the idle time before it (fitTiming)
        if (p.timed && !contains(nm, "Optimizer.step")) {
            const double d = std::trunc(p.exclusive.value);
            if (!(d >= 0) || d >= 1.8446744073709552e19) {
                if (compat) {
                    diag.error("chakra_et.compat_duration",
                               "node " + std::to_string(p.id) + " ('" + std::string(nm) +
                                   "') has an exclusive duration that is negative or not finite; chakra_converter "
                                   "fails on it (uint64 field), so no .et is written");
                    return false;
                }
            } else if (compat) {
                out.durationMicros = static_cast<uint64_t>(d);
            } else { // rounded later, with the sync waits and thread hand-overs (fitTiming)
                c.exactDur[i] = p.exclusive.value;
                c.hasDur[i] = 1;
            }
        }
        if (!compat && p.timed && p.ts.value > 0 && std::isfinite(p.ts.value))
            out.startMicros = static_cast<uint64_t>(p.ts.value);
        out.hasCtrlDep = c.ctrl[i];
        out.ctrlDep = out.hasCtrlDep ? static_cast<uint64_t>(c.parent[i]) : 0;
    }

    if (!compat && g.stats.commSizeUnknown > 0)
        diag.warning("chakra_et.comm_size_unknown",
                     std::to_string(g.stats.commSizeUnknown) +
                         " collective(s) have no message size in the Kineto trace (\"In msg nelems\", \"dtype\") "
                         "nor tensors among their ET inputs; their comm_size is 0, and a simulator runs them as empty");

    // Data dependencies (5.5).
    c.encodeDataDeps(g.stats);
    if (!compat) {
        c.chainGpuStreams(g.stats);
        c.fitTiming(nodes, g.stats);
    }
    if (!c.checkDeps(g.stats))
        return false;
    c.removeDangling(g.stats);
    if (!c.checkAcyclic(g.stats))
        return false;

    for (uint32_t i = 0; i < n; ++i) {
        if (c.convertedAt[i] < 0 || c.removed[i])
            continue;
        ChakraNode &out = nodes[i];
        if (!compat && out.hasCtrlDep && c.removed[static_cast<size_t>(c.parentIndex[i])]) {
            // astra-sim#338: "Node 0 in ctrl_dep graph, but not found in index".
            out.hasCtrlDep = false;
            ++g.stats.ctrlDepsDropped;
        }
        out.depBegin = static_cast<uint32_t>(g.deps.size());
        for (const Dep &d : c.deps[i])
            g.deps.push_back(static_cast<uint64_t>(d.id));
        out.depEnd = static_cast<uint32_t>(g.deps.size());
        g.nodes.push_back(out);
    }
    if (!compat && g.stats.missingParents > 0)
        diag.warning("chakra_et.dangling_parent",
                     std::to_string(g.stats.missingParents) +
                         " nodes name a parent id that is not a node of the trace; they get no ctrl_deps and are "
                         "not reached by the per-thread dependency walk");
    if (!compat && g.stats.gpuDropped > 0)
        diag.warning("chakra_et.gpu_without_cpu_parent",
                     std::to_string(g.stats.gpuDropped) +
                         " GPU nodes hang under a node that is not a CPU op and are not in the .et");
    return true;
}

} // namespace syncscope
