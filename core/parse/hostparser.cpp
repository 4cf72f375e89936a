// SPDX-License-Identifier: MIT
#include "hostparser.h"

#include "io/bytesource.h"
#include "json/batchparse.h"
#include "json/jsonscan.h"
#include "json/minify.h"
#include "json/numbers.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <new>
#include <unordered_set>

namespace syncscope {

namespace dom = simdjson::dom;

namespace {

const char *const kKnownSchemas[] = {
    "1.0.1",
    "1.0.2-chakra.0.0.4",
    "1.0.3-chakra.0.0.4",
    "1.0.4-chakra.0.0.4",
    "1.1.0-chakra.0.0.4",
    "1.1.1-chakra.0.0.4",
    "1.1.1-chakra.1.0.0",
};

bool hostInt(dom::element v, int64_t &out)
{
    switch (v.type()) {
    case dom::element_type::INT64:
        out = v.get_int64().value_unsafe();
        return true;
    case dom::element_type::UINT64:
        return false; // above INT64_MAX: rejected, never wrapped
    case dom::element_type::STRING: {
        const ParsedNumber n = parseJsonNumber(v.get_string().value_unsafe());
        if (!n.ok || !n.isInteger)
            return false;
        out = n.integer;
        return true;
    }
    default:
        return false;
    }
}

// "1.1.0-chakra.0.0.4" -> {1, 1, 0}; false when the text is not a version.
bool parseVersion(const std::string &schema, int parts[3])
{
    size_t i = 0;
    for (int k = 0; k < 3; ++k) {
        if (i >= schema.size() || schema[i] < '0' || schema[i] > '9')
            return false;
        int v = 0;
        while (i < schema.size() && schema[i] >= '0' && schema[i] <= '9') {
            if (v > 99999) // "1.1.99999999999": no real version has such a part
                return false;
            v = v * 10 + (schema[i++] - '0');
        }
        parts[k] = v;
        if (k < 2) {
            if (i >= schema.size() || schema[i] != '.')
                return false;
            ++i;
        }
    }
    return i == schema.size() || schema[i] == '-';
}

} // namespace

SchemaSupport classifySchema(const std::string &schema)
{
    for (const char *known : kKnownSchemas)
        if (schema == known)
            return SchemaSupport::Known;
    int v[3];
    if (!parseVersion(schema, v) || v[0] != 1)
        return SchemaSupport::Unsupported;
    // Same major version, newer than what we know: read it as the nested layout.
    if (v[1] > 1 || (v[1] == 1 && v[2] > 1))
        return SchemaSupport::NewerMinor;
    return SchemaSupport::Unsupported;
}

struct HostNodeSink::Impl {
    HostTrace &trace;
    Diagnostics &diag;
    dom::parser parser;
    bool sawFlat = false;
    bool sawNested = false;
    size_t entries = 0; // "nodes" elements seen so far (skipped ones included)

    Impl(HostTrace &t, Diagnostics &d) : trace(t), diag(d)
    {
        // Batches are "[node,...]": one level more than a node's own nesting.
        if (parser.allocate(1 << 16, kMaxJsonDepth + 1) != simdjson::SUCCESS)
            throw std::bad_alloc();
    }

    void readAttrs(dom::array attrs, HostNode &node)
    {
        for (dom::element item : attrs) {
            dom::object attr;
            if (item.get_object().get(attr) != simdjson::SUCCESS)
                continue;
            std::string_view name;
            int64_t value = 0;
            bool haveValue = false;
            for (auto field : attr) {
                const std::string_view key = field.key;
                const dom::element v = field.value;
                if (key == "name") {
                    if (v.type() == dom::element_type::STRING)
                        name = v.get_string().value_unsafe();
                    // The value may come before or after the name; read it once we know.
                } else if (key == "value") {
                    haveValue = hostInt(v, value);
                }
            }
            if (!haveValue)
                continue;
            if (name == "rf_id") {
                node.rfId = value;
                node.flags |= HostNode::HasRfId;
            } else if (name == "tid") {
                node.tid = value;
                node.flags |= HostNode::HasTid;
            }
        }
    }

    // Duplicate keys behave as in Python's json.load: the last one wins (each key
    // resets what an earlier copy set) and a repeat is reported.
    bool readNode(dom::object obj, HostNode &node, bool &gpuNode)
    {
        bool haveId = false;
        gpuNode = false;
        uint8_t seen = 0;
        auto first = [&](uint8_t bit, std::string_view key) {
            if (seen & bit)
                diag.warning("host.duplicate_key",
                             trace.path + ": a node has the key \"" + std::string(key) +
                                 "\" more than once; the last value was used (as Python's json module does)",
                             trace.path);
            seen |= bit;
        };
        for (auto field : obj) {
            const std::string_view key = field.key;
            const dom::element v = field.value;
            if (key == "id") {
                first(1, key);
                haveId = hostInt(v, node.id);
            } else if (key == "name") {
                first(2, key);
                node.name = v.type() == dom::element_type::STRING ? trace.strings.intern(v.get_string().value_unsafe())
                                                                  : kNoString;
            } else if (key == "ctrl_deps" || key == "parent") {
                first(key == "parent" ? 4 : 8, key);
                (key == "parent" ? sawFlat : sawNested) = true;
                node.flags &= ~HostNode::HasParent;
                if (hostInt(v, node.parent))
                    node.flags |= HostNode::HasParent;
            } else if (key == "rf_id") {
                first(16, key);
                node.flags &= ~HostNode::HasRfId;
                if (hostInt(v, node.rfId))
                    node.flags |= HostNode::HasRfId;
            } else if (key == "tid") {
                first(32, key);
                node.flags &= ~HostNode::HasTid;
                if (hostInt(v, node.tid))
                    node.flags |= HostNode::HasTid;
            } else if (key == "attrs") {
                first(64, key);
                sawNested = true;
                if (v.type() == dom::element_type::ARRAY)
                    readAttrs(v.get_array().value_unsafe(), node);
            } else if (key == "cat") {
                // Only the GPU nodes that linking (trace_link, --output) appends have a
                // "cat"; Chakra's converter takes any node with one for a GPU node.
                gpuNode = !v.is_null();
            }
        }
        const std::string_view name = trace.strings.view(node.name);
        if (name.size() > 10 && name.front() == '[' &&
            (name.find("|execution_trace|") != std::string_view::npos ||
             name.find("|execution_graph|") != std::string_view::npos)) {
            if (name.find("|process]") != std::string_view::npos)
                node.flags |= HostNode::IsRootLike | HostNode::IsProcessRoot;
            else if (name.find("|thread]") != std::string_view::npos)
                node.flags |= HostNode::IsRootLike | HostNode::IsThreadRoot;
        }
        return haveId;
    }

};

HostNodeSink::HostNodeSink(HostTrace &trace, Diagnostics &diagnostics)
    : d(std::make_unique<Impl>(trace, diagnostics))
{
}

HostNodeSink::~HostNodeSink() = default;

void HostNodeSink::addBatch(const ElementBatch &batch)
{
    const char *json = batch.json.data();
    const auto &spans = batch.spans;
    const uint64_t offset = batch.offset;
    auto &trace = d->trace;
    size_t i = 0;
    const size_t firstEntry = d->entries;
    d->entries += spans.size();
    try {
        const dom::element doc = parseBatch(batch, d->parser);
        for (dom::element v : doc.get_array()) {
            HostNode node;
            if (v.type() != dom::element_type::OBJECT) {
                d->diag.error("host.node_not_object",
                              trace.path + ": a \"nodes\" entry is not an object; it was ignored", trace.path,
                              static_cast<int64_t>(offset + spans[i].offset - 1));
                ++i;
                continue;
            }
            bool gpuNode = false;
            if (!d->readNode(v.get_object().value_unsafe(), node, gpuNode)) {
                d->diag.error("host.node_without_id",
                              trace.path + ": a node has no integer \"id\"; it was ignored", trace.path,
                              static_cast<int64_t>(offset + spans[i].offset - 1));
                ++i;
                continue;
            }
            if (gpuNode) { // a linked ET+ given as the host ET: the device trace has these
                ++trace.linkedGpuNodes;
                ++i;
                continue;
            }
            node.text = appendMinified(trace.text, json + spans[i].offset, spans[i].length, node.textLength);
            trace.nodes.push_back(node);
            ++i;
        }
    } catch (const simdjson::simdjson_error &e) {
        if (e.error() == simdjson::MEMALLOC)
            throw std::bad_alloc();
        const std::string tooDeep = "objects and arrays nest deeper than " + std::to_string(kMaxJsonDepth) +
                                    " levels (the limit)";
        throw invalidJsonEntry(trace.path, "node", firstEntry, batch,
                               e.error() == simdjson::DEPTH_ERROR ? tooDeep.c_str() : e.what());
    }
}

void HostNodeSink::addTopLevel(const std::string &key, std::string_view raw)
{
    auto &trace = d->trace;
    if (jsonNestingDepth(raw) > kMaxJsonDepth) {
        // Outputs copy and re-format these values: refuse what no walk may follow.
        d->diag.error("json.too_deep",
                      trace.path + ": the top-level \"" + key + "\" value nests objects and arrays deeper than " +
                          std::to_string(kMaxJsonDepth) + " levels (the limit)",
                      trace.path);
        return;
    }
    // A repeated key keeps its first position and takes the last value, as a
    // Python dict built by json.load does (the loader warns about it).
    auto same = std::find_if(trace.topLevel.begin(), trace.topLevel.end(),
                             [&](const auto &kv) { return kv.first == key; });
    if (same != trace.topLevel.end())
        same->second = std::string(raw);
    else
        trace.topLevel.emplace_back(key, std::string(raw));
    if (key != "schema" && key != "pid")
        return;
    try {
        dom::parser p;
        const dom::element doc = p.parse(raw.data(), raw.size(), true);
        if (key == "schema") {
            std::string_view s;
            if (doc.get_string().get(s) == simdjson::SUCCESS)
                trace.schema = std::string(s);
            else
                d->diag.error("host.bad_schema", trace.path + ": the top-level \"schema\" is not a string",
                              trace.path);
        } else {
            int64_t pid = 0;
            if (doc.get_int64().get(pid) == simdjson::SUCCESS)
                trace.pid = pid;
        }
    } catch (const simdjson::simdjson_error &) {
        d->diag.warning("host.bad_metadata", trace.path + ": the top-level \"" + key + "\" value is malformed",
                        trace.path);
    }
}

void HostNodeSink::finish()
{
    auto &trace = d->trace;
    auto &diag = d->diag;
    if (d->sawFlat && !d->sawNested)
        trace.layout = HostLayout::Flat;
    if (trace.schema.empty()) {
        diag.error("host.no_schema", trace.path + ": the execution trace has no \"schema\" version", trace.path);
    } else {
        switch (classifySchema(trace.schema)) {
        case SchemaSupport::Known:
            break;
        case SchemaSupport::NewerMinor:
            diag.warning("host.newer_schema",
                         trace.path + ": execution trace schema \"" + trace.schema +
                             "\" is newer than the versions Syncscope knows (1.0.1 to 1.1.1-chakra.1.0.0); it was "
                             "read like 1.1.1",
                         trace.path);
            break;
        case SchemaSupport::Unsupported:
            diag.error("host.unsupported_schema",
                       trace.path + ": unsupported execution trace schema \"" + trace.schema +
                           "\" (supported: 1.0.1, 1.0.2/1.0.3/1.0.4/1.1.0/1.1.1-chakra.0.0.4, 1.1.1-chakra.1.0.0)",
                       trace.path);
            break;
        }
    }
    if (trace.nodes.empty()) {
        diag.error("host.no_nodes", trace.path + ": the execution trace has no nodes", trace.path);
        return;
    }
    std::unordered_set<int64_t> ids;
    ids.reserve(trace.nodes.size() * 2);
    bool duplicate = false;
    for (const auto &n : trace.nodes)
        duplicate |= !ids.insert(n.id).second;
    if (duplicate)
        diag.warning("host.duplicate_ids",
                     trace.path + ": some node ids occur more than once; the last node with an id wins", trace.path);
    // The root is id 1 (PyTorch writes the process node as 1 -> 1). A linked ET+ is
    // renumbered from 0: there the process node is 0 -> 0 and id 1 is a thread.
    const HostNode *one = nullptr, *selfRoot = nullptr;
    for (const auto &n : trace.nodes) {
        if (n.id == 1 && !one)
            one = &n;
        if (!selfRoot && n.has(HostNode::IsProcessRoot) && n.has(HostNode::HasParent) && n.parent == n.id)
            selfRoot = &n;
    }
    if (selfRoot && (!one || !one->has(HostNode::IsProcessRoot)))
        trace.rootId = selfRoot->id;
    if (!ids.count(trace.rootId))
        diag.error("host.no_root",
                   trace.path + ": the execution trace has no root node (id 1, "
                                "[pytorch|profiler|execution_trace|process]); it is incomplete",
                   trace.path);
    if (trace.linkedGpuNodes > 0 || trace.rootId != 1)
        diag.warning("host.linked_input",
                     trace.path + ": this is a linked ET+ (the output of --output or chakra_trace_link), not the "
                                  "execution trace PyTorch wrote; it is linked again" +
                         (trace.linkedGpuNodes > 0 ? " and its " + std::to_string(trace.linkedGpuNodes) +
                                                         " GPU nodes are left out (the device trace supplies them)"
                                                   : std::string()),
                     trace.path);
}

} // namespace syncscope
