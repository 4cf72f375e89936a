// SPDX-License-Identifier: MIT
#include "diffreport.h"

#include "analysis/stepwindow.h"

#include "json/utf8.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace syncscope {

using ojson = nlohmann::ordered_json;

namespace {

ojson side(const DiffSide &s, bool withMean = false, bool withSelf = false)
{
    ojson j;
    j["count"] = s.count;
    j["total_us"] = s.totalUs;
    if (withMean)
        j["mean_us"] = s.meanUs();
    if (withSelf)
        j["self_us"] = s.selfUs;
    return j;
}

ojson bounds(const std::vector<CpSummaryRow> &rows)
{
    ojson j = ojson::object();
    for (const auto &r : rows)
        j[r.boundBy.empty() ? "dependency" : r.boundBy] = r.percent;
    return j;
}

ojson gpuList(const TraceDiff &d, const std::vector<GpuDiff> &rows, bool withPath, bool withCategory)
{
    ojson list = ojson::array();
    for (const GpuDiff &r : rows) {
        ojson j;
        if (withCategory)
            j["category"] = r.category;
        j["name"] = r.name;
        if (withPath)
            j["launch_path"] = d.pathText(r.launchPath);
        j["baseline"] = side(r.baseline);
        j["candidate"] = side(r.candidate);
        j["delta_us"] = r.deltaUs();
        list.push_back(std::move(j));
    }
    return list;
}

ojson syncList(const TraceDiff &d, const std::vector<SyncDiff> &rows, bool withWaiter)
{
    ojson list = ojson::array();
    for (const SyncDiff &r : rows) {
        ojson j;
        j["kind"] = r.kind;
        if (withWaiter) {
            j["call"] = r.call;
            j["waiter"] = d.pathText(r.waiter);
        }
        j["baseline"] = {{"count", r.baseline.count}, {"wait_us", r.baseline.totalUs}};
        j["candidate"] = {{"count", r.candidate.count}, {"wait_us", r.candidate.totalUs}};
        j["delta_us"] = r.deltaUs();
        list.push_back(std::move(j));
    }
    return list;
}

ojson cpKeys(const TraceDiff &d, const std::vector<CpKeyDiff> &rows, bool candidate)
{
    ojson list = ojson::array();
    for (const CpKeyDiff &r : rows) {
        const DiffSide &s = candidate ? r.candidate : r.baseline;
        list.push_back({{"category", r.category},
                        {"name", r.name},
                        {"path", d.pathText(r.path)},
                        {"count", s.count},
                        {"time_us", s.totalUs}});
    }
    return list;
}

ojson runJson(const Analysis &a)
{
    // File names need not be UTF-8; the report must stay valid JSON (and dumpable).
    return {{"device", validUtf8(a.devicePath)}, {"host", validUtf8(a.hostPath)}};
}

} // namespace

ojson diffReportJson(const TraceDiff &d)
{
    ojson j;
    j["tool"] = "syncscope";
    j["version"] = SYNCSCOPE_VERSION;
    j["baseline"] = runJson(*d.baseline);
    j["candidate"] = runJson(*d.candidate);
    // Which window the counts and critical paths cover: the whole trace unless --step or
    // --annotation/--instance narrowed both runs (README "Steps and HTA instances").
    const ojson baseWindow = windowJson(*d.baseline);
    j["window"] = {{"kind", baseWindow.is_object() ? baseWindow["kind"] : ojson(nullptr)},
                   {"baseline", baseWindow},
                   {"candidate", windowJson(*d.candidate)}};
    ojson steps = ojson::array();
    for (const StepDiff &s : d.steps) {
        ojson st;
        st["index"] = s.index;
        auto one = [](bool present, const std::string &name, double us, double cp,
                      const std::vector<CpSummaryRow> &b) -> ojson {
            if (!present)
                return nullptr;
            return {{"name", name}, {"step_us", us}, {"critical_path_us", cp}, {"bound_by", bounds(b)}};
        };
        st["baseline"] = one(s.inBaseline, s.baselineName, s.baselineUs, s.baselineCpUs, s.baselineBound);
        st["candidate"] = one(s.inCandidate, s.candidateName, s.candidateUs, s.candidateCpUs, s.candidateBound);
        st["delta_us"] = s.inBaseline && s.inCandidate ? ojson(s.deltaUs()) : ojson(nullptr);
        steps.push_back(std::move(st));
    }
    j["steps"] = steps;
    ojson ops = ojson::array(), added = ojson::array(), removed = ojson::array();
    for (const OpDiff &r : d.ops) {
        ojson o;
        o["path"] = d.paths.path(r.path);
        o["name"] = d.paths.leaf(r.path);
        o["baseline"] = side(r.baseline, true, true);
        o["candidate"] = side(r.candidate, true, true);
        o["matched"] = r.matched;
        o["added"] = r.added;
        o["removed"] = r.removed;
        o["delta_us"] = r.deltaUs();
        ops.push_back(std::move(o));
        if (r.added)
            added.push_back({{"path", d.paths.path(r.path)}, {"count", r.added}});
        if (r.removed)
            removed.push_back({{"path", d.paths.path(r.path)}, {"count", r.removed}});
    }
    j["ops"] = ops;
    j["ops_added"] = added;
    j["ops_removed"] = removed;
    j["kernels"] = gpuList(d, d.kernels, false, false);
    j["kernels_by_op"] = gpuList(d, d.kernelsByOp, true, false);
    j["memcpys"] = gpuList(d, d.memcpys, false, true);
    j["memcpys_by_op"] = gpuList(d, d.memcpysByOp, true, true);
    j["sync_waits"] = {{"by_kind", syncList(d, d.syncByKind, false)},
                       {"by_waiter", syncList(d, d.syncByWaiter, true)}};
    ojson cp;
    cp["available"] = d.criticalPathBoth;
    if (d.criticalPathBoth) {
        cp["baseline_us"] = d.baselineCpUs;
        cp["candidate_us"] = d.candidateCpUs;
        cp["delta_us"] = d.candidateCpUs - d.baselineCpUs;
        ojson b = ojson::array();
        for (const BoundDiff &r : d.bound)
            b.push_back({{"bound_by", r.boundBy},
                         {"baseline_percent", r.baselinePercent},
                         {"candidate_percent", r.candidatePercent},
                         {"delta_percent", r.candidatePercent - r.baselinePercent},
                         {"baseline_us", r.baselineUs},
                         {"candidate_us", r.candidateUs}});
        cp["bound_by"] = b;
        cp["entered"] = cpKeys(d, d.cpEntered, true);
        cp["left"] = cpKeys(d, d.cpLeft, false);
    }
    j["critical_path"] = cp;
    ojson top = ojson::array();
    for (size_t i = 0; i < d.top.size(); ++i) {
        const TopChange &c = d.top[i];
        top.push_back({{"position", i + 1},
                       {"category", c.category},
                       {"name", c.name},
                       {"where", c.where},
                       {"baseline_us", c.baselineUs},
                       {"candidate_us", c.candidateUs},
                       {"delta_us", c.deltaUs()}});
    }
    j["top_changes"] = top;
    return j;
}

namespace {

std::string numText(double v, bool sign = false)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, sign ? "%+.1f" : "%.1f", v);
    return buf;
}

std::string pct(double v, bool sign = false)
{
    char buf[48];
    std::snprintf(buf, sizeof buf, sign ? "%+.1f%%" : "%.1f%%", v);
    return buf;
}

std::string pad(std::string s, size_t w)
{
    if (s.size() < w)
        s.insert(0, w - s.size(), ' ');
    return s;
}

std::string shorten(const std::string &s, size_t max = 90)
{
    return s.size() <= max ? s : s.substr(0, max - 3) + "...";
}

std::string dominant(const std::vector<CpSummaryRow> &rows)
{
    const CpSummaryRow *best = nullptr;
    for (const auto &r : rows)
        if (!best || r.percent > best->percent)
            best = &r;
    return best ? (best->boundBy.empty() ? "dependency" : best->boundBy) + " " + pct(best->percent) : "-";
}

} // namespace

std::string formatDiffSummary(const TraceDiff &d)
{
    std::string s = "syncscope diff (times in us)\n  baseline  " + d.baseline->devicePath + "\n  candidate " +
                    d.candidate->devicePath + "\n";
    if (!d.steps.empty()) {
        s += "\nsteps: step time baseline -> candidate (delta), critical path, top bound-by\n";
        for (const StepDiff &st : d.steps) {
            s += "  " + pad(std::to_string(st.index), 3) + "  ";
            if (!st.inBaseline || !st.inCandidate) {
                s += st.inBaseline ? "only in baseline (" + st.baselineName + ")\n"
                                   : "only in candidate (" + st.candidateName + ")\n";
                continue;
            }
            s += pad(numText(st.baselineUs), 11) + " -> " + pad(numText(st.candidateUs), 11) + " (" +
                 numText(st.deltaUs(), true) + ")   cp " + numText(st.baselineCpUs) + " -> " + numText(st.candidateCpUs) +
                 "   " + dominant(st.baselineBound) + " -> " + dominant(st.candidateBound) + "\n";
        }
    }
    if (d.criticalPathBoth) {
        s += "\ncritical path: " + numText(d.baselineCpUs) + " -> " + numText(d.candidateCpUs) + " (" +
             numText(d.candidateCpUs - d.baselineCpUs, true) + ")\n";
        for (const BoundDiff &b : d.bound)
            s += "  " + b.boundBy + ": " + pct(b.baselinePercent) + " -> " + pct(b.candidatePercent) + " (" +
                 pct(b.candidatePercent - b.baselinePercent, true) + ")\n";
        auto keys = [&](const char *title, const std::vector<CpKeyDiff> &rows, bool candidate) {
            if (rows.empty())
                return;
            std::vector<const CpKeyDiff *> sorted;
            for (const auto &r : rows)
                sorted.push_back(&r);
            auto t = [&](const CpKeyDiff *r) { return candidate ? r->candidate.totalUs : r->baseline.totalUs; };
            std::stable_sort(sorted.begin(), sorted.end(), [&](auto *x, auto *y) { return t(x) > t(y); });
            s += std::string("  ") + title + " (" + std::to_string(rows.size()) + "):\n";
            for (size_t i = 0; i < sorted.size() && i < 10; ++i)
                s += "    " + pad(numText(t(sorted[i])), 11) + "  " + sorted[i]->category + "  " +
                     shorten(sorted[i]->name) +
                     (sorted[i]->path == kNoPath || sorted[i]->category == "op"
                          ? std::string()
                          : "  @ " + shorten(d.paths.path(sorted[i]->path), 60)) +
                     "\n";
        };
        keys("entered the path", d.cpEntered, true);
        keys("left the path", d.cpLeft, false);
    }
    s += "\ntop changes by time effect (ops: self time):\n";
    if (d.top.empty())
        s += "  none\n";
    for (size_t i = 0; i < d.top.size(); ++i) {
        const TopChange &c = d.top[i];
        s += "  " + pad(std::to_string(i + 1), 2) + ". " + pad(numText(c.deltaUs(), true), 11) + "  " +
             pad(numText(c.baselineUs), 10) + " -> " + pad(numText(c.candidateUs), 10) + "  " + c.category + "  " +
             shorten(c.name) + (c.where.empty() || c.category == "op" ? "" : "  @ " + shorten(c.where, 60)) +
             (c.category == "op" ? "  [" + shorten(c.where, 80) + "]" : "") + "\n";
    }
    int64_t matched = 0, added = 0, removed = 0;
    for (const OpDiff &r : d.ops) {
        matched += r.matched;
        added += r.added;
        removed += r.removed;
    }
    s += "\nops: " + std::to_string(d.ops.size()) + " call paths, " + std::to_string(matched) + " matched, " +
         std::to_string(added) + " added, " + std::to_string(removed) + " removed\n";
    auto unmatched = [&](const char *title, bool candidate) {
        std::vector<const OpDiff *> rows;
        for (const OpDiff &r : d.ops)
            if (candidate ? r.added : r.removed)
                rows.push_back(&r);
        if (rows.empty())
            return;
        s += std::string("  ") + title + ":\n";
        for (size_t i = 0; i < rows.size() && i < 10; ++i)
            s += "    " + pad(std::to_string(candidate ? rows[i]->added : rows[i]->removed), 6) + "x  " +
                 shorten(d.paths.path(rows[i]->path), 110) + "\n";
        if (rows.size() > 10)
            s += "    ... " + std::to_string(rows.size() - 10) + " more in --diff-report\n";
    };
    unmatched("added", true);
    unmatched("removed", false);
    if (!d.syncByKind.empty()) {
        s += "\nsync waits (calls, wait):\n";
        for (const SyncDiff &r : d.syncByKind)
            s += "  " + r.kind + ": " + std::to_string(r.baseline.count) + " calls " + numText(r.baseline.totalUs) +
                 " -> " + std::to_string(r.candidate.count) + " calls " + numText(r.candidate.totalUs) + " (" +
                 numText(r.deltaUs(), true) + ")\n";
    }
    return s;
}

} // namespace syncscope
