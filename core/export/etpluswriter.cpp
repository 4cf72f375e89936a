// SPDX-License-Identifier: MIT
#include "etpluswriter.h"

#include "io/outputfile.h"
#include "json/jsonscan.h"
#include "json/pyjson.h"

#include <algorithm>
#include <variant>

namespace syncscope {

namespace {

constexpr int kIndent = 4;
constexpr int kNodeLevel = 2;      // top-level object = 0, "nodes" list = 1
constexpr int kFieldLevel = 3;

// Python layout re-formats every value as json.dump(indent=4) would; compact
// layout copies the host ET's (minified) values as they are, one node per line.

struct FormatCache {
    uint32_t host = UINT32_MAX;
    std::vector<std::pair<std::string_view, std::string>> values;
};

struct Null {};
struct IntList {
    const int64_t *begin;
    const int64_t *end;
};
using Value = std::variant<std::string_view /*raw JSON*/, PyNumber, int64_t, Null, std::string /*string*/, IntList>;

// Python dict semantics: setting an existing key keeps its position.
class OrderedNode
{
public:
    void load(std::string_view text)
    {
        m_entries.clear();
        for (auto &m : jsonObjectMembers(text))
            m_entries.push_back({std::move(m.key), m.value});
    }
    bool has(std::string_view key) const
    {
        for (const auto &e : m_entries)
            if (e.key == key)
                return true;
        return false;
    }
    void erase(std::string_view key)
    {
        m_entries.erase(std::remove_if(m_entries.begin(), m_entries.end(), [&](const Entry &e) { return e.key == key; }),
                        m_entries.end());
    }
    void set(std::string_view key, Value v)
    {
        for (auto &e : m_entries)
            if (e.key == key) {
                e.value = std::move(v);
                return;
            }
        m_entries.push_back({std::string(key), std::move(v)});
    }
    // GPU nodes repeat their launcher's inputs/outputs/attrs; `cache` keeps the
    // formatted text of the raw values of the current host node.
    void write(std::string &out, bool pretty, FormatCache &cache) const
    {
        out.push_back('{');
        bool first = true;
        for (const auto &e : m_entries) {
            if (!first)
                out.push_back(',');
            first = false;
            if (pretty)
                appendNewlineIndent(out, kIndent, kFieldLevel);
            appendPyJsonString(out, e.key);
            out += pretty ? ": " : ":";
            writeValue(out, e.value, pretty, cache);
        }
        if (pretty)
            appendNewlineIndent(out, kIndent, kNodeLevel);
        out.push_back('}');
    }

private:
    static void writeValue(std::string &out, const Value &v, bool pretty, FormatCache &cache)
    {
        if (auto raw = std::get_if<std::string_view>(&v)) {
            if (!pretty) {
                out.append(*raw);
                return;
            }
            for (const auto &[text, formatted] : cache.values)
                if (text.data() == raw->data() && text.size() == raw->size()) {
                    out.append(formatted);
                    return;
                }
            std::string formatted;
            if (!appendPyJson(formatted, *raw, kIndent, kFieldLevel))
                formatted.assign(*raw);
            out.append(formatted);
            if (raw->size() > 32)
                cache.values.emplace_back(*raw, std::move(formatted));
        } else if (auto num = std::get_if<PyNumber>(&v)) {
            appendPyNumber(out, *num);
        } else if (auto i = std::get_if<int64_t>(&v)) {
            out += std::to_string(*i);
        } else if (std::holds_alternative<Null>(v)) {
            out += "null";
        } else if (auto s = std::get_if<std::string>(&v)) {
            appendPyJsonString(out, *s);
        } else {
            const IntList list = std::get<IntList>(v);
            if (list.begin == list.end) {
                out += "[]";
                return;
            }
            out.push_back('[');
            for (const int64_t *p = list.begin; p != list.end; ++p) {
                if (p != list.begin)
                    out.push_back(',');
                if (pretty)
                    appendNewlineIndent(out, kIndent, kFieldLevel + 1);
                out += std::to_string(*p);
            }
            if (pretty)
                appendNewlineIndent(out, kIndent, kFieldLevel);
            out.push_back(']');
        }
    }

    struct Entry {
        std::string key;
        Value value;
    };
    std::vector<Entry> m_entries;
};

Value streamValue(const KinetoTrace &device, const KinetoEvent &e)
{
    switch (e.streamForm) {
    case StreamForm::Integer:
        return e.stream;
    case StreamForm::String:
        return std::string(device.str(static_cast<StrId>(e.stream)));
    case StreamForm::Absent:
        break;
    }
    return Null{};
}

void buildNode(OrderedNode &node, const EtPlusNode &n, const HostTrace &host, const KinetoTrace &device,
               const LinkResult &link)
{
    const HostNode &h = host.nodes[n.host];
    node.load(host.nodeText(h));
    node.set("id", n.id);
    if (n.timed) {
        node.set("inclusive_dur", n.inclusive); // GPU nodes: overwritten in place below
        node.set("exclusive_dur", n.exclusive);
        node.set("ts", n.ts);
        node.set("inter_thread_dep", n.hasInterThreadDep ? Value(n.interThreadDep) : Value(Null{}));
    }
    if (n.gpuEvent >= 0) {
        // dict.update() of a deep copy of the parent, in Chakra's key order.
        const KinetoEvent &k = device.events[static_cast<size_t>(n.gpuEvent)];
        node.set("id", n.id);
        node.set("ctrl_deps", n.parentValue);
        // inputs/outputs are the parent's, already in place.
        node.set("cat", std::string(device.str(k.cat)));
        node.set("name", std::string(device.str(k.name)));
        node.set("ph", k.ph ? Value(std::string(1, k.ph)) : Value(Null{}));
        node.set("inclusive_dur", n.inclusive);
        node.set("exclusive_dur", n.exclusive);
        node.set("ts", n.ts);
        node.set("stream", streamValue(device, k));
        if (device.str(k.name).find("ncclDevKernel") != std::string_view::npos && k.pgName != kNoString)
            node.set("pg_name", std::string(device.str(k.pgName)));
    }
    if (n.syncEnd > n.syncBegin)
        node.set("sync_dep", IntList{link.plan.syncDepIds.data() + n.syncBegin, link.plan.syncDepIds.data() + n.syncEnd});
    else if (host.linkedInput())
        node.erase("sync_dep");
    if (!n.timed && n.gpuEvent < 0 && host.linkedInput()) // what an earlier link wrote, not this one
        for (const char *key : {"inclusive_dur", "exclusive_dur", "ts", "inter_thread_dep"})
            node.erase(key);
    if (n.rewriteParent && n.gpuEvent < 0) {
        const bool flat = host.layout == HostLayout::Flat && !node.has("ctrl_deps");
        node.set(flat ? "parent" : "ctrl_deps", n.parentValue);
    }
}

template <typename Sink>
void writeDocument(Sink &&emit, const HostTrace &host, const KinetoTrace &device, const LinkResult &link)
{
    // Chakra mode reproduces json.dump(indent=4); default mode writes one node per line.
    const bool pretty = link.mode == LinkMode::Chakra;
    std::string buf;
    buf.reserve(1 << 16);
    buf.push_back('{');
    bool first = true;
    auto key = [&](const std::string &k) {
        if (!first)
            buf.push_back(',');
        first = false;
        if (pretty)
            appendNewlineIndent(buf, kIndent, 1);
        else
            buf.push_back('\n');
        appendPyJsonString(buf, k);
        buf += ": ";
    };
    auto writeNodes = [&] {
        key("nodes");
        if (link.plan.nodes.empty()) {
            buf += "[]";
            return;
        }
        buf.push_back('[');
        OrderedNode node;
        FormatCache cache;
        bool firstNode = true;
        for (const EtPlusNode &n : link.plan.nodes) {
            if (!firstNode)
                buf.push_back(',');
            firstNode = false;
            if (pretty)
                appendNewlineIndent(buf, kIndent, kNodeLevel);
            else
                buf.push_back('\n');
            buildNode(node, n, host, device, link);
            if (cache.host != n.host) {
                cache.host = n.host;
                cache.values.clear();
            }
            node.write(buf, pretty, cache);
            if (buf.size() > (1 << 20)) {
                emit(buf);
                buf.clear();
            }
        }
        if (pretty)
            appendNewlineIndent(buf, kIndent, 1);
        else
            buf.push_back('\n');
        buf.push_back(']');
    };
    for (size_t i = 0; i <= host.topLevel.size(); ++i) {
        if (i == host.nodesPosition)
            writeNodes();
        if (i == host.topLevel.size())
            break;
        key(host.topLevel[i].first);
        if (!pretty || !appendPyJson(buf, host.topLevel[i].second, kIndent, 1))
            buf.append(host.topLevel[i].second);
    }
    buf += pretty ? "\n}" : "\n}\n";
    emit(buf);
}

} // namespace

void writeEtPlus(OutputFile &out, const HostTrace &host, const KinetoTrace &device, const LinkResult &link)
{
    writeDocument([&](const std::string &chunk) { out.write(chunk); }, host, device, link);
}

void writeEtPlusFile(const std::string &path, const HostTrace &host, const KinetoTrace &device, const LinkResult &link,
                     const std::vector<std::string> &inputs)
{
    OutputFile out(path, inputs);
    writeEtPlus(out, host, device, link);
    out.commit();
}

std::string etPlusToString(const HostTrace &host, const KinetoTrace &device, const LinkResult &link)
{
    std::string all;
    writeDocument([&](const std::string &chunk) { all += chunk; }, host, device, link);
    return all;
}

} // namespace syncscope
