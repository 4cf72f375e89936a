// SPDX-License-Identifier: MIT
#include "chakrasummary.h"

#include "export/chakrareader.h"

#include <algorithm>
#include <unordered_set>

namespace syncscope {

namespace {

std::string attrValueText(const ChakraProtoMsg::AttributeProto &a)
{
    using A = ChakraProtoMsg::AttributeProto;
    switch (a.value_case()) {
    case A::kStringVal: return "'" + a.string_val() + "'";
    case A::kUint64Val: return std::to_string(a.uint64_val());
    case A::kInt64Val: return std::to_string(a.int64_val());
    case A::kInt32Val: return std::to_string(a.int32_val());
    case A::kUint32Val: return std::to_string(a.uint32_val());
    case A::kBoolVal: return a.bool_val() ? "true" : "false";
    case A::kDoubleVal: return std::to_string(a.double_val());
    case A::kFloatVal: return std::to_string(a.float_val());
    case A::VALUE_NOT_SET: return "(no value)";
    default: return "(" + std::string(a.GetDescriptor()->FindFieldByNumber(a.value_case())->name()) + ")";
    }
}

} // namespace

ChakraEtSummary summarizeChakraEt(const std::string &path)
{
    ChakraEtSummary s;
    s.path = path;
    ChakraEtReader reader(path);
    s.compressed = reader.compressed();
    s.fileBytes = reader.fileSize();
    s.version = reader.metadata().version();
    for (const auto &a : reader.metadata().attr())
        s.metadata.emplace_back(a.name(), attrValueText(a));

    std::unordered_set<uint64_t> ids;
    std::vector<uint64_t> dataTargets, ctrlTargets;
    ChakraProtoMsg::Node node;
    bool first = true;
    uint64_t previous = 0;
    while (reader.next(node)) {
        ++s.nodes;
        const uint64_t id = node.id();
        if (!ids.insert(id).second)
            ++s.duplicateIds;
        s.minId = first ? id : std::min(s.minId, id);
        s.maxId = first ? id : std::max(s.maxId, id);
        if (!first && id <= previous)
            s.idsAscending = false;
        previous = id;
        first = false;
        ++s.byType[ChakraProtoMsg::NodeType_Name(node.type()).empty() ? "type " + std::to_string(node.type())
                                                                       : ChakraProtoMsg::NodeType_Name(node.type())];
        const auto deps = static_cast<int64_t>(node.data_deps_size());
        s.dataDeps += deps;
        s.ctrlDeps += node.ctrl_deps_size();
        s.maxDataDeps = std::max(s.maxDataDeps, deps);
        if (deps > 0) {
            ++s.nodesWithDataDeps;
        } else {
            ++s.roots;
            if (s.firstRoots.size() < 10)
                s.firstRoots.push_back(id);
        }
        for (uint64_t d : node.data_deps())
            s.selfDeps += d == id;
        for (uint64_t d : node.ctrl_deps())
            s.selfDeps += d == id;
        dataTargets.insert(dataTargets.end(), node.data_deps().begin(), node.data_deps().end());
        ctrlTargets.insert(ctrlTargets.end(), node.ctrl_deps().begin(), node.ctrl_deps().end());
        s.withStartTime += node.start_time_micros() != 0;
        for (const auto &a : node.attr()) {
            ++s.attrNames[a.name()];
            if (a.name() == "is_cpu_op" && a.value_case() == ChakraProtoMsg::AttributeProto::kBoolVal &&
                !a.bool_val())
                ++s.gpuNodes;
            if (a.name() == "comm_type" && node.type() == ChakraProtoMsg::COMM_COLL_NODE) {
                const auto ct = static_cast<int>(a.int64_val());
                const std::string name = ChakraProtoMsg::CollectiveCommType_IsValid(ct)
                                             ? ChakraProtoMsg::CollectiveCommType_Name(
                                                   static_cast<ChakraProtoMsg::CollectiveCommType>(ct))
                                             : "comm_type " + std::to_string(ct);
                ++s.byCommType[name];
            }
        }
    }
    for (uint64_t t : dataTargets)
        s.missingDataDeps += ids.count(t) == 0;
    for (uint64_t t : ctrlTargets)
        s.missingCtrlDeps += ids.count(t) == 0;
    return s;
}

std::string formatChakraEtSummary(const ChakraEtSummary &s)
{
    std::string o;
    auto line = [&](const std::string &l) { o += l + "\n"; };
    // Indented "name<sep>value" (appending piecewise also avoids a GCC 12 -Wrestrict false positive).
    auto item = [&](const std::string &name, const char *sep, const std::string &value) {
        o += "  ";
        o += name;
        o += sep;
        o += value;
        o += "\n";
    };
    line("file: " + s.path + " (" + std::to_string(s.fileBytes) + " bytes" + (s.compressed ? ", gzip" : "") + ")");
    line("metadata: version " + (s.version.empty() ? std::string("(unset)") : "'" + s.version + "'"));
    for (const auto &[k, v] : s.metadata)
        item(k, " = ", v);
    line("nodes: " + std::to_string(s.nodes) + " (" + std::to_string(s.gpuNodes) + " GPU, ids " +
         std::to_string(s.minId) + ".." + std::to_string(s.maxId) +
         (s.idsAscending ? ", ascending" : ", NOT ascending") + ")");
    for (const auto &[t, n] : s.byType)
        item(t, ": ", std::to_string(n));
    for (const auto &[t, n] : s.byCommType)
        item("comm_type " + t, ": ", std::to_string(n));
    line("data_deps: " + std::to_string(s.dataDeps) + " on " + std::to_string(s.nodesWithDataDeps) +
         " nodes (at most " + std::to_string(s.maxDataDeps) + " on one node)");
    line("ctrl_deps: " + std::to_string(s.ctrlDeps));
    std::string roots = "roots (no data_deps): " + std::to_string(s.roots);
    if (!s.firstRoots.empty()) {
        roots += ", first ids";
        for (uint64_t id : s.firstRoots) {
            roots.push_back(' ');
            roots += std::to_string(id);
        }
    }
    line(roots);
    line("start_time_micros set: " + std::to_string(s.withStartTime) + " nodes");
    line("attrs:");
    for (const auto &[name, n] : s.attrNames)
        item(name, ": ", std::to_string(n));
    if (s.missingDataDeps > 0)
        line("problem: " + std::to_string(s.missingDataDeps) +
             " data_deps name a node that is not in the file (a simulator waits for it forever)");
    if (s.missingCtrlDeps > 0)
        line("problem: " + std::to_string(s.missingCtrlDeps) +
             " ctrl_deps name a node that is not in the file (ASTRA-sim: \"Node N in ctrl_dep graph, but not found "
             "in index\", astra-sim#338)");
    if (s.duplicateIds > 0)
        line("problem: " + std::to_string(s.duplicateIds) + " duplicate node ids");
    if (s.selfDeps > 0)
        line("problem: " + std::to_string(s.selfDeps) +
             " dependencies of a node on itself (a simulator waits for it forever)");
    return o;
}

} // namespace syncscope
