// SPDX-License-Identifier: MIT
#include "chakrawriter.h"

#include "export/chakrafields.h"
#include "io/outputfile.h"
#include "json/pystr.h"
#include "proto/et_def.pb.h"

namespace syncscope {

namespace {

void appendVarint(std::string &out, uint64_t v)
{
    while (v >= 0x80) {
        out.push_back(static_cast<char>((v & 0x7f) | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<char>(v));
}

// One message, length-prefixed, serialized straight into `buf`.
void appendMessage(std::string &buf, const google::protobuf::MessageLite &m)
{
    const size_t size = m.ByteSizeLong();
    appendVarint(buf, size);
    const size_t at = buf.size();
    buf.resize(at + size);
    m.SerializeWithCachedSizesToArray(reinterpret_cast<uint8_t *>(buf.data() + at));
}

void setIo(ChakraProtoMsg::IOInfo *io, std::string_view values, std::string_view shapes, std::string_view types)
{
    // str() of each decoded JSON array (5.3); a missing one is written as "[]".
    auto render = [](std::string *out, std::string_view json) {
        out->clear();
        if (json.empty() || !appendPyStr(*out, json)) {
            out->clear();
            out->append("[]");
        }
    };
    render(io->mutable_values(), values);
    render(io->mutable_shapes(), shapes);
    render(io->mutable_types(), types);
}

class NodeRenderer
{
public:
    NodeRenderer(const ChakraGraph &g, const HostTrace &h, const KinetoTrace &d, const LinkResult &l)
        : m_graph(g), m_host(h), m_device(d), m_link(l)
    {
    }

    const ChakraProtoMsg::Node &render(const ChakraNode &n)
    {
        ChakraProtoMsg::Node &node = m_node;
        node.Clear();
        const EtPlusNode &p = m_link.plan.nodes[n.plan];
        node.set_id(n.id);
        node.set_name(std::string(chakraNodeName(m_host, m_device, p)));
        node.set_type(static_cast<ChakraProtoMsg::NodeType>(n.type));
        if (n.hasCtrlDep)
            node.add_ctrl_deps(n.ctrlDep);
        for (uint32_t k = n.depBegin; k < n.depEnd; ++k)
            node.add_data_deps(m_graph.deps[k]);
        node.set_start_time_micros(n.startMicros);
        node.set_duration_micros(n.durationMicros);
        scanChakraHostFields(m_host.nodeText(m_host.nodes[p.host]), m_host.layout, m_fields);
        const ChakraHostFields &f = m_fields;
        setIo(node.mutable_inputs(), f.inValues, f.inShapes, f.inTypes);
        setIo(node.mutable_outputs(), f.outValues, f.outShapes, f.outTypes);
        // Attribute order is the reference's (5.3); oneof values are on the
        // wire even when zero.
        for (int s = 0; s < kChakraAttrSlots; ++s) {
            if (f.attr[s].empty())
                continue; // default mode only: compat mode checked they exist
            if (s == kOpSchema) {
                std::string text;
                if (!jsonToString(f.attr[s], text))
                    continue;
                auto *a = node.add_attr();
                a->set_name(kChakraAttrNames[s]);
                a->set_string_val(std::move(text));
            } else {
                int64_t v = 0;
                if (!jsonTruncToInt64(f.attr[s], v))
                    continue;
                addInt(node, kChakraAttrNames[s], v);
            }
        }
        auto *cpu = node.add_attr();
        cpu->set_name("is_cpu_op");
        cpu->set_bool_val(!n.gpu);
        // [QUIRK] the converter's stream default is 0, so CPU nodes carry stream 0;
        // a GPU node whose Kineto event has no stream (null) has none.
        if (p.gpuEvent < 0) {
            addInt(node, "stream", 0);
        } else {
            const KinetoEvent &k = m_device.events[static_cast<size_t>(p.gpuEvent)];
            if (k.streamForm == StreamForm::Integer)
                addInt(node, "stream", k.stream);
        }
        if (n.type == kChakraCollNode)
            addInt(node, "comm_type", n.commType);
        if (n.type == kChakraCollNode || n.type == kChakraSendNode || n.type == kChakraRecvNode) {
            addInt(node, "comm_size", n.commSize);
            if (n.pgName >= 0) {
                auto *a = node.add_attr();
                a->set_name("pg_name");
                a->set_string_val(m_graph.pgNames[static_cast<size_t>(n.pgName)]);
            }
        }
        return node;
    }

private:
    static void addInt(ChakraProtoMsg::Node &node, const char *name, int64_t v)
    {
        auto *a = node.add_attr();
        a->set_name(name);
        a->set_int64_val(v);
    }

    const ChakraGraph &m_graph;
    const HostTrace &m_host;
    const KinetoTrace &m_device;
    const LinkResult &m_link;
    ChakraProtoMsg::Node m_node;
    ChakraHostFields m_fields;
};

ChakraProtoMsg::GlobalMetadata metadataMessage(const ChakraGraph &g)
{
    // `version` (field 1) is left unset, as the reference does.
    ChakraProtoMsg::GlobalMetadata meta;
    for (const ChakraMetaAttr &m : g.metadata) {
        auto *a = meta.add_attr();
        a->set_name(m.name);
        if (m.isString)
            a->set_string_val(m.text);
        else
            a->set_uint64_val(m.number);
    }
    return meta;
}

template <typename Sink>
void writeAll(Sink &&sink, const ChakraGraph &g, const HostTrace &host, const KinetoTrace &device,
              const LinkResult &link)
{
    std::string buf;
    buf.reserve(1 << 20);
    appendMessage(buf, metadataMessage(g));
    NodeRenderer renderer(g, host, device, link);
    for (const ChakraNode &n : g.nodes) {
        appendMessage(buf, renderer.render(n));
        if (buf.size() >= (1 << 20)) {
            sink(buf);
            buf.clear();
        }
    }
    sink(buf);
}

} // namespace

void appendEtMessage(std::string &buf, const google::protobuf::MessageLite &message)
{
    appendMessage(buf, message);
}

void writeChakraEt(OutputFile &out, const ChakraGraph &graph, const HostTrace &host, const KinetoTrace &device,
                   const LinkResult &link)
{
    writeAll([&](const std::string &chunk) { out.write(chunk); }, graph, host, device, link);
}

std::string chakraEtBytes(const ChakraGraph &graph, const HostTrace &host, const KinetoTrace &device,
                          const LinkResult &link)
{
    std::string all;
    writeAll([&](const std::string &chunk) { all += chunk; }, graph, host, device, link);
    return all;
}

bool exportChakraEt(const std::string &path, const HostTrace &host, const KinetoTrace &device,
                    const LinkResult &link, const std::vector<std::string> &inputs, Diagnostics &diagnostics,
                    ChakraStats *stats, bool metadataNodes)
{
    ChakraGraph graph;
    const bool ok = buildChakraGraph(host, device, link, graph, diagnostics, metadataNodes);
    if (stats)
        *stats = graph.stats;
    if (!ok)
        return false;
    const bool gz = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
    OutputFile out(path, inputs, gz ? OutputFile::Compression::Gzip : OutputFile::Compression::None);
    writeChakraEt(out, graph, host, device, link);
    out.commit();
    return true;
}

} // namespace syncscope
