// SPDX-License-Identifier: MIT
// Helpers shared by the critical-path and sync-edge tests.
#pragma once

#include "analysis/criticalpath.h"
#include "parse/traceloader.h"
#include "testutil.h"

#include <QtTest>

#include <cstdio>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace cptest {

// Loads a device trace; fails the calling test (returns null) when it does not load.
inline std::shared_ptr<syncscope::KinetoTrace> load(const std::string &path, syncscope::Diagnostics &diag)
{
    syncscope::LoadedTrace t = syncscope::loadTrace(path, diag);
    if (!t.complete || !t.device)
        return nullptr;
    return t.device;
}

// Writes `json` to a fresh temp file and loads it.
inline std::shared_ptr<syncscope::KinetoTrace> loadInline(const std::string &json, syncscope::Diagnostics &diag,
                                                          const std::string &name = "inline.json")
{
    const std::string path = testutil::tempDir() + "/" + name;
    testutil::writeText(path, json);
    return load(path, diag);
}

// "src->dst kind[ gpu][ inferred] wait" per sync edge, "; "-separated, in order.
inline std::string syncEdgeList(const std::vector<syncscope::SyncEdge> &edges)
{
    std::string s;
    for (const syncscope::SyncEdge &e : edges) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "%u->%u %s%s%s %g", e.src, e.dst, syncscope::syncKindName(e.kind),
                      e.gpuToGpu ? " gpu" : "", e.inferred ? " inferred" : "", e.waitUs);
        s += (s.empty() ? "" : "; ") + std::string(buf);
    }
    return s;
}

// The golden text from its "NODES" line on (the header names HTA's environment).
inline std::string goldenBody(const std::string &path)
{
    const std::string text = testutil::readText(path);
    const size_t at = text.find("NODES (");
    return at == std::string::npos ? text : text.substr(at);
}

// Line-by-line comparison that reports the first difference.
inline bool sameText(const std::string &actual, const std::string &expected, std::string &firstDiff)
{
    std::istringstream a(actual), e(expected);
    std::string la, le;
    for (int line = 1;; ++line) {
        const bool ha = static_cast<bool>(std::getline(a, la));
        const bool he = static_cast<bool>(std::getline(e, le));
        if (!ha && !he)
            return true;
        if (!ha || !he || la != le) {
            firstDiff = "line " + std::to_string(line) + ": got \"" + (ha ? la : "<end>") + "\" expected \"" +
                        (he ? le : "<end>") + "\"";
            return false;
        }
    }
}

// "OP/DEP/LAUNCH/KK/SYNC" counts as a string, for compact comparisons.
inline std::string counts(const std::vector<size_t> &c)
{
    std::string s;
    for (size_t k = 0; k < c.size(); ++k)
        s += (k ? "/" : "") + std::to_string(c[k]);
    return s;
}

inline std::string syncList(const std::vector<std::pair<uint32_t, uint32_t>> &edges)
{
    std::vector<std::pair<uint32_t, uint32_t>> sorted(edges);
    std::sort(sorted.begin(), sorted.end());
    std::string s;
    for (const auto &[a, b] : sorted)
        s += (s.empty() ? "" : " ") + std::to_string(a) + "->" + std::to_string(b);
    return s;
}

} // namespace cptest
