// SPDX-License-Identifier: MIT
// One-line-per-event builders for tiny inline fixtures: most tests need no file.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace testutil {

// Builds a Kineto (Chrome trace) JSON document.
class KinetoBuilder
{
public:
    static constexpr int64_t kPid = 100;
    // CPU op on thread `tid`; ext/rf < 0 are omitted.
    KinetoBuilder &cpu(const std::string &name, int64_t tid, double ts, double dur, int64_t ext = -1, int64_t rf = -1,
                       const std::string &cat = "cpu_op");
    KinetoBuilder &annotation(const std::string &name, int64_t tid, double ts, double dur, int64_t ext = -1,
                              int64_t rf = -1);
    KinetoBuilder &runtime(const std::string &name, int64_t tid, double ts, double dur, int64_t corr, int64_t ext = -1);
    KinetoBuilder &gpu(const std::string &cat, const std::string &name, int64_t stream, double ts, double dur,
                       int64_t corr, int64_t ext = -1, int64_t device = 0);
    KinetoBuilder &kernel(const std::string &name, int64_t stream, double ts, double dur, int64_t corr, int64_t ext = -1)
    {
        return gpu("kernel", name, stream, ts, dur, corr, ext);
    }
    // cuda_sync row: kind "Stream Sync" / "Context Sync" / "Event Sync" / "Stream Wait Event".
    KinetoBuilder &sync(const std::string &kind, int64_t stream, double ts, double dur, int64_t corr,
                        int64_t waitOnStream = -1, int64_t waitOnRecordCorr = -1);
    KinetoBuilder &raw(const std::string &eventJson);
    KinetoBuilder &topLevel(const std::string &key, const std::string &rawValue);
    std::string json() const;

private:
    std::vector<std::string> m_events;
    std::vector<std::pair<std::string, std::string>> m_top;
};

// Builds a host execution trace (schema 1.1.0 nested layout unless flat).
class HostBuilder
{
public:
    explicit HostBuilder(bool flat = false);
    // Adds the process root (id 1) automatically; thread roots with `thread()`.
    HostBuilder &thread(int64_t id, int64_t etTid);
    HostBuilder &op(int64_t id, const std::string &name, int64_t parent, int64_t rfId, int64_t etTid = 1);
    HostBuilder &schema(const std::string &s);
    std::string json() const;

private:
    bool m_flat;
    std::string m_schema;
    std::vector<std::string> m_nodes;
};

} // namespace testutil
