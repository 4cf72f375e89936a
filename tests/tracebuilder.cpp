// SPDX-License-Identifier: MIT
#include "tracebuilder.h"

#include <cstdio>

namespace testutil {

namespace {

std::string num(double v)
{
    char buf[64];
    if (v == static_cast<double>(static_cast<int64_t>(v)))
        std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v));
    else
        std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
}

std::string quote(const std::string &s)
{
    return "\"" + s + "\"";
}

} // namespace

KinetoBuilder &KinetoBuilder::cpu(const std::string &name, int64_t tid, double ts, double dur, int64_t ext, int64_t rf,
                                  const std::string &cat)
{
    std::string args;
    if (ext >= 0)
        args += "\"External id\": " + std::to_string(ext);
    if (rf >= 0)
        args += std::string(args.empty() ? "" : ", ") + "\"Record function id\": " + std::to_string(rf);
    m_events.push_back("{\"ph\": \"X\", \"cat\": " + quote(cat) + ", \"name\": " + quote(name) +
                       ", \"pid\": " + std::to_string(kPid) + ", \"tid\": " + std::to_string(tid) + ", \"ts\": " +
                       num(ts) + ", \"dur\": " + num(dur) + ", \"args\": {" + args + "}}");
    return *this;
}

KinetoBuilder &KinetoBuilder::annotation(const std::string &name, int64_t tid, double ts, double dur, int64_t ext,
                                         int64_t rf)
{
    return cpu(name, tid, ts, dur, ext, rf, "user_annotation");
}

KinetoBuilder &KinetoBuilder::runtime(const std::string &name, int64_t tid, double ts, double dur, int64_t corr,
                                      int64_t ext)
{
    std::string args = "\"correlation\": " + std::to_string(corr);
    if (ext >= 0)
        args += ", \"External id\": " + std::to_string(ext);
    m_events.push_back("{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": " + quote(name) +
                       ", \"pid\": " + std::to_string(kPid) + ", \"tid\": " + std::to_string(tid) + ", \"ts\": " +
                       num(ts) + ", \"dur\": " + num(dur) + ", \"args\": {" + args + "}}");
    return *this;
}

KinetoBuilder &KinetoBuilder::gpu(const std::string &cat, const std::string &name, int64_t stream, double ts,
                                  double dur, int64_t corr, int64_t ext, int64_t device)
{
    std::string args = "\"device\": " + std::to_string(device) + ", \"stream\": " + std::to_string(stream) +
                       ", \"correlation\": " + std::to_string(corr);
    if (ext >= 0)
        args += ", \"External id\": " + std::to_string(ext);
    m_events.push_back("{\"ph\": \"X\", \"cat\": " + quote(cat) + ", \"name\": " + quote(name) +
                       ", \"pid\": " + std::to_string(device) + ", \"tid\": " + std::to_string(stream) +
                       ", \"ts\": " + num(ts) + ", \"dur\": " + num(dur) + ", \"args\": {" + args + "}}");
    return *this;
}

KinetoBuilder &KinetoBuilder::sync(const std::string &kind, int64_t stream, double ts, double dur, int64_t corr,
                                   int64_t waitOnStream, int64_t waitOnRecordCorr)
{
    std::string args = "\"device\": 0, \"stream\": " + std::to_string(stream) + ", \"correlation\": " +
                       std::to_string(corr) + ", \"cuda_sync_kind\": " + quote(kind);
    if (waitOnStream >= 0)
        args += ", \"wait_on_stream\": " + std::to_string(waitOnStream);
    if (waitOnRecordCorr >= 0)
        args += ", \"wait_on_cuda_event_record_corr_id\": " + std::to_string(waitOnRecordCorr);
    m_events.push_back("{\"ph\": \"X\", \"cat\": \"cuda_sync\", \"name\": " + quote(kind) +
                       ", \"pid\": 0, \"tid\": " + std::to_string(stream) + ", \"ts\": " + num(ts) +
                       ", \"dur\": " + num(dur) + ", \"args\": {" + args + "}}");
    return *this;
}

KinetoBuilder &KinetoBuilder::raw(const std::string &eventJson)
{
    m_events.push_back(eventJson);
    return *this;
}

KinetoBuilder &KinetoBuilder::topLevel(const std::string &key, const std::string &rawValue)
{
    m_top.emplace_back(key, rawValue);
    return *this;
}

std::string KinetoBuilder::json() const
{
    std::string s = "{\"schemaVersion\": 1";
    for (const auto &[k, v] : m_top)
        s += ", " + quote(k) + ": " + v;
    s += ", \"traceEvents\": [\n";
    for (size_t i = 0; i < m_events.size(); ++i)
        s += "  " + m_events[i] + (i + 1 < m_events.size() ? ",\n" : "\n");
    s += "]}\n";
    return s;
}

HostBuilder::HostBuilder(bool flat) : m_flat(flat), m_schema(flat ? "1.0.1" : "1.1.0-chakra.0.0.4") {}

HostBuilder &HostBuilder::schema(const std::string &s)
{
    m_schema = s;
    return *this;
}

HostBuilder &HostBuilder::thread(int64_t id, int64_t etTid)
{
    return op(id, "[pytorch|profiler|execution_trace|thread]", 1, 0, etTid);
}

HostBuilder &HostBuilder::op(int64_t id, const std::string &name, int64_t parent, int64_t rfId, int64_t etTid)
{
    if (m_flat) {
        m_nodes.push_back("{\"name\": " + quote(name) + ", \"id\": " + std::to_string(id) +
                          ", \"rf_id\": " + std::to_string(rfId) + ", \"parent\": " + std::to_string(parent) +
                          ", \"fw_parent\": 0, \"seq_id\": -1, \"scope\": 0, \"tid\": " + std::to_string(etTid) +
                          ", \"fw_tid\": 0, \"op_schema\": \"\", \"inputs\": [], \"input_shapes\": [], "
                          "\"input_types\": [], \"outputs\": [], \"output_shapes\": [], \"output_types\": []}");
        return *this;
    }
    m_nodes.push_back(
        "{\"id\": " + std::to_string(id) + ", \"name\": " + quote(name) + ", \"ctrl_deps\": " + std::to_string(parent) +
        ", \"inputs\": {\"values\": [], \"shapes\": [], \"types\": []}, \"outputs\": {\"values\": [], \"shapes\": [], "
        "\"types\": []}, \"attrs\": [{\"name\": \"rf_id\", \"type\": \"uint64\", \"value\": " +
        std::to_string(rfId) +
        "}, {\"name\": \"fw_parent\", \"type\": \"uint64\", \"value\": 0}, {\"name\": \"seq_id\", \"type\": "
        "\"int64\", \"value\": -1}, {\"name\": \"scope\", \"type\": \"uint64\", \"value\": 0}, {\"name\": \"tid\", "
        "\"type\": \"uint64\", \"value\": " +
        std::to_string(etTid) +
        "}, {\"name\": \"fw_tid\", \"type\": \"uint64\", \"value\": 0}, {\"name\": \"op_schema\", \"type\": "
        "\"string\", \"value\": \"\"}]}");
    return *this;
}

std::string HostBuilder::json() const
{
    std::string s = "{\"schema\": \"" + m_schema + "\", \"pid\": 100, \"time\": \"2026-01-01 00:00:00\", "
                                                   "\"start_ts\": 1, \"nodes\": [\n";
    for (const auto &n : m_nodes)
        s += "  " + n + ",\n";
    HostBuilder root(m_flat);
    root.op(1, "[pytorch|profiler|execution_trace|process]", 1, 0, 0);
    s += "  " + root.m_nodes.front() + "\n], \"finish_ts\": 2}\n";
    return s;
}

} // namespace testutil
