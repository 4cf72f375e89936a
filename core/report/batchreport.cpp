// SPDX-License-Identifier: MIT
#include "batchreport.h"

#include "whatifreport.h"
#include "collectivesreport.h"

#include "analysis/graphcapture.h"
#include "analysis/stepwindow.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>

namespace syncscope {

using ojson = nlohmann::ordered_json;

namespace {

std::shared_ptr<const ReportBreakdown> breakdownOf(const ReportContext &ctx)
{
    if (ctx.breakdown)
        return ctx.breakdown;
    if (ctx.skipBreakdowns)
        return std::make_shared<const ReportBreakdown>(); // --no-breakdowns: none in the report
    return std::make_shared<const ReportBreakdown>(computeReportBreakdown(*ctx.analysis));
}

std::string percent(int64_t part, int64_t whole)
{
    if (whole <= 0)
        return "n/a";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
    return buf;
}

ojson hostJson(const Analysis &a)
{
    ojson j;
    j["path"] = a.hostPath;
    if (!a.host)
        return j;
    j["kind"] = "host_execution_trace";
    j["schema"] = a.host->schema;
    j["pid"] = a.host->pid;
    j["nodes"] = a.host->nodes.size();
    j["bytes"] = a.host->inputBytes;
    j["gzip"] = a.host->compressed;
    return j;
}

ojson deviceJson(const Analysis &a)
{
    ojson j;
    j["path"] = a.devicePath;
    if (!a.device)
        return j;
    const KinetoTrace &d = *a.device;
    j["kind"] = "kineto_device_trace";
    j["schema_version"] = d.schemaVersion ? ojson(*d.schemaVersion) : ojson(nullptr);
    j["pid"] = a.devicePid;
    j["events"] = d.events.size();
    j["bytes"] = d.inputBytes;
    j["gzip"] = d.compressed;
    j["rank"] = d.distributed.rank ? ojson(*d.distributed.rank) : ojson(nullptr);
    j["world_size"] = d.distributed.worldSize ? ojson(*d.distributed.worldSize) : ojson(nullptr);
    return j;
}

const char *modeName(LinkMode m)
{
    return m == LinkMode::Chakra ? "chakra" : "default";
}

// The report's name of a bound-by bucket: HTA's "" (dependency and sync edges) gets a name.
std::string boundByKey(const std::string &boundBy)
{
    return boundBy.empty() ? std::string("dependency") : boundBy;
}

// A duration for a person to read: µs below 1 ms, then ms, then s.
std::string humanUs(double us)
{
    char buf[48];
    if (us < 1000)
        std::snprintf(buf, sizeof buf, "%.1f us", us);
    else if (us < 1e6)
        std::snprintf(buf, sizeof buf, "%.3f ms", us / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%.3f s", us / 1e6);
    return buf;
}

// 4097 -> "4,097"
std::string formatCount(size_t n)
{
    std::string digits = std::to_string(n), out;
    for (size_t k = 0; k < digits.size(); ++k) {
        if (k > 0 && (digits.size() - k) % 3 == 0)
            out += ',';
        out += digits[k];
    }
    return out;
}

// The innermost CPU op on the call's thread that encloses it, -1 when none.
int64_t enclosingOp(const KinetoTrace &t, uint32_t call)
{
    const KinetoEvent &c = t.events[call];
    int64_t best = -1;
    for (uint32_t i = 0; i < t.events.size(); ++i) {
        const KinetoEvent &e = t.events[i];
        if (e.kind != EventKind::CpuOp || e.pid != c.pid || e.tid != c.tid || e.ts > c.ts || e.end() < c.end())
            continue;
        if (best < 0 || e.ts > t.events[static_cast<size_t>(best)].ts ||
            (e.ts == t.events[static_cast<size_t>(best)].ts && e.dur < t.events[static_cast<size_t>(best)].dur))
            best = i;
    }
    return best;
}

// The longest waits, each with what waited and for what ("  top waits" lines).
std::string topWaits(const KinetoTrace &t, const std::vector<SyncEdge> &edges)
{
    constexpr size_t kTop = 5;
    std::vector<size_t> order;
    for (size_t k = 0; k < edges.size(); ++k)
        if (edges[k].waitUs > 0)
            order.push_back(k);
    const size_t n = std::min(kTop, order.size());
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                      [&](size_t a, size_t b) {
                          return edges[a].waitUs != edges[b].waitUs ? edges[a].waitUs > edges[b].waitUs : a < b;
                      });
    std::string s;
    auto shortName = [&](uint32_t ev) {
        std::string name(t.str(t.events[ev].name));
        return name.size() > 60 ? name.substr(0, 57) + "..." : name;
    };
    for (size_t k = 0; k < n; ++k) {
        const SyncEdge &e = edges[order[k]];
        std::string waiter = shortName(e.dst);
        if (!e.gpuToGpu)
            if (const int64_t op = enclosingOp(t, e.dst); op >= 0)
                waiter += " in " + shortName(static_cast<uint32_t>(op));
        char line[512];
        std::snprintf(line, sizeof line, "           %s%s  %s waited for %s%s\n", k == 0 ? "top waits " : "          ",
                      humanUs(e.waitUs).c_str(), waiter.c_str(), shortName(e.src).c_str(),
                      e.inferred ? " (inferred)" : "");
        s += line;
    }
    return s;
}

// What an HTA instance number selected: "ProfilerStep#0" or "ProfilerStep#0 (GPU copy)".
std::string instanceRowName(const Analysis &a, const CpWindow &w)
{
    if (!a.device || w.firstEvent < 0 || static_cast<size_t>(w.firstEvent) >= a.device->events.size())
        return {};
    const KinetoEvent &e = a.device->events[static_cast<size_t>(w.firstEvent)];
    std::string name(a.device->str(e.name));
    if (e.kind == EventKind::GpuUserAnnotation)
        name += " (GPU copy)";
    return name;
}

} // namespace

std::string formatBytes(uint64_t bytes)
{
    char buf[32];
    if (bytes >= (1ull << 30))
        std::snprintf(buf, sizeof buf, "%.2f GB", static_cast<double>(bytes) / 1e9);
    else if (bytes >= (1ull << 20))
        std::snprintf(buf, sizeof buf, "%.1f MB", static_cast<double>(bytes) / 1e6);
    else if (bytes >= 1024)
        std::snprintf(buf, sizeof buf, "%.1f KB", static_cast<double>(bytes) / 1e3);
    else
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    return buf;
}

ojson diagnosticsJson(const Diagnostics &diagnostics)
{
    ojson diags = ojson::array();
    for (const auto &d : diagnostics.items()) {
        ojson dj;
        dj["severity"] = severityName(d.severity);
        dj["code"] = d.code;
        dj["message"] = d.message;
        if (!d.file.empty())
            dj["file"] = d.file;
        if (d.offset >= 0)
            dj["offset"] = d.offset;
        if (d.count > 1)
            dj["count"] = d.count;
        diags.push_back(dj);
    }
    return diags;
}

std::string buildReportJson(const ReportContext &ctx)
{
    const Analysis &a = *ctx.analysis;
    const std::shared_ptr<const ReportBreakdown> breakdown = breakdownOf(ctx);
    ojson r;
    r["syncscope"] = {{"version", SYNCSCOPE_VERSION}};
    ojson inputs;
    inputs["host"] = a.request.hostPath.empty() ? ojson(nullptr) : hostJson(a);
    inputs["device"] = deviceJson(a);
    inputs["rank"] = a.request.rank ? ojson(*a.request.rank)
                                    : (a.device && a.device->distributed.rank ? ojson(*a.device->distributed.rank)
                                                                              : ojson(nullptr));
    inputs["pid"] = a.devicePid >= 0 ? ojson(a.devicePid) : (a.host ? ojson(a.host->pid) : ojson(nullptr));
    inputs["swapped"] = a.swapped;
    r["inputs"] = inputs;

    if (a.link) {
        const LinkCounts &c = a.link->counts;
        ojson l;
        l["mode"] = modeName(a.link->mode);
        l["strategy"] = matchStrategyName(a.link->strategy);
        l["host_ops"] = c.hostOps;
        l["host_ops_linked"] = c.hostOpsLinked;
        l["host_ops_with_twin"] = c.hostOpsWithTwin;
        l["coverage_percent"] =
            c.hostOpsWithTwin > 0 ? 100.0 * static_cast<double>(c.hostOpsLinked) / static_cast<double>(c.hostOpsWithTwin)
                                  : 0.0;
        l["kineto_cpu_ops"] = c.kinetoCpuOps;
        l["kineto_cpu_ops_linked"] = c.kinetoCpuOpsLinked;
        l["gpu_ops"] = c.gpuOps;
        l["gpu_ops_linked"] = c.gpuOpsLinked;
        l["gpu_ops_without_launcher"] = c.gpuOpsWithoutLauncher;
        l["gpu_ops_without_parent"] = c.gpuOpsWithoutParent;
        l["inter_thread_deps"] = c.interThreadDeps;
        l["sync_deps"] = c.syncDeps;
        l["et_plus_nodes"] = c.etPlusNodes;
        r["link"] = l;
    } else {
        r["link"] = nullptr;
    }

    if (a.device) {
        const SyncWaitTotals totals = syncWaitTotals(a.syncEdges);
        ojson s;
        s["edges"] = a.syncEdges.size();
        s["inferred_edges"] = totals.inferredEdges();
        s["blocking_copies"] = totals.byKind[static_cast<size_t>(SyncKind::BlockingCopy)].calls;
        s["cuda_sync_events"] = hasCudaSyncRows(*a.device);
        s["unresolved_cuda_sync_rows"] = unresolvedCudaSyncRows(*a.device);
        s["hta_exact"] = isHtaExact(a.request.cpa);
        ojson kinds = ojson::object();
        for (int k = 0; k < kSyncKindCount; ++k) {
            const SyncKindTotals &t = totals.byKind[static_cast<size_t>(k)];
            kinds[syncKindName(static_cast<SyncKind>(k))] = {{"edges", t.edges},
                                                             {"recorded", t.recorded},
                                                             {"inferred", t.inferred},
                                                             {"calls", t.calls},
                                                             {"wait_us", t.waitUs}};
        }
        s["by_kind"] = kinds;
        s["total_wait_us"] = totals.totalWaitUs();
        r["sync"] = s;
    }
    if (a.graphCapture) {
        const GraphCaptureLink &g = *a.graphCapture;
        r["graph_capture"] = {{"path", g.capturePath},
                              {"method", g.method},
                              {"captures", g.captures},
                              {"captured_launches", g.capturedLaunches},
                              {"graph_launches", g.graphLaunches},
                              {"replayed_ops", g.replayedOps},
                              {"matched", g.matched},
                              {"verified_by_name", g.verified},
                              {"name_mismatches", g.nameMismatches}};
    }

    if (a.criticalPath) {
        const CriticalPathResult &cp = *a.criticalPath;
        ojson c;
        c["hta_version"] = htaVersionName(a.request.cpa.htaVersion);
        c["hta_exact"] = cp.htaExact;
        c["sync_edges_inferred"] = cp.syncEdgesInferred.size();
        c["annotation"] = a.request.cpa.annotation;
        // HTA's instance numbering counts every row containing the annotation (GPU copies
        // too); a --step window numbers the ProfilerStep#N steps (positions, as steps[].step).
        const bool step = a.window == WindowKind::Step;
        const int first = step ? cp.window.instanceFirst : a.request.cpa.instanceFirst;
        const int last = step ? cp.window.instanceLast : a.request.cpa.instanceLast;
        c["instance"] = a.request.allSteps ? ojson("all")
                        : first == last    ? ojson(first)
                                           : ojson::array({first, last});
        c["instance_numbering"] = step ? "profiler_steps" : "hta";
        if (const std::string row = instanceRowName(a, cp.window); !row.empty())
            c["instance_row"] = row;
        c["window"] = windowJson(a); // which of the two, and which step
        c["success"] = cp.success;
        if (!cp.success)
            c["reason"] = cp.reason;
        c["whole_trace"] = cp.window.wholeTrace;
        c["weight_us"] = cp.weightUs;
        c["nodes"] = cp.pathNodes.size();
        c["events"] = cp.criticalEvents.size();
        ojson summary = ojson::object();
        for (const auto &row : cp.summary)
            summary[boundByKey(row.boundBy)] = row.percent;
        c["summary"] = summary;
        if (a.request.allSteps) {
            ojson steps = ojson::array();
            for (size_t k = 0; k < a.steps.size(); ++k) {
                const StepResult &st = a.steps[k];
                ojson sj;
                sj["step"] = st.instance; // position among the ProfilerStep#N steps
                sj["name"] = st.name;
                const int64_t number = profilerStepNumber(st.name); // N of ProfilerStep#N (--step N)
                sj["number"] = number >= 0 ? ojson(number) : ojson(nullptr);
                sj["success"] = st.success;
                sj["weight_us"] = st.weightUs;
                sj["duration_us"] = st.endUs - st.startUs;
                ojson split = ojson::object();
                for (const auto &row : st.summary)
                    split[boundByKey(row.boundBy)] = row.percent;
                sj["summary"] = split;
                if (const StepBreakdown *sb = findStepBreakdown(*breakdown, st)) {
                    sj["exposed_comm_us"] = sb->set.comm.exposed_us;
                    sj["breakdown"] = breakdownJson(sb->set);
                }
                steps.push_back(sj);
            }
            c["steps"] = steps;
        }
        r["critical_path"] = c;
    }
    if (ctx.whatIf && a.device && a.criticalPath) {
        r["what_if"] = whatIfJson(*a.device, *a.criticalPath, *ctx.whatIf);
        r["what_if"]["window"] = windowJson(a); // the window whose graph the rules re-timed
    }

    if (breakdown->computed)
        r["breakdown"] = breakdownJson(breakdown->whole);
    // The rank's collective kernels by type and size (lower bounds of busbw: one rank
    // cannot take its wait for the others out; job mode does).
    if (a.device)
        r["collectives"] = singleRankCollectivesJson(singleRankCollectives(a));

    ojson outs = ojson::array();
    for (const auto &o : ctx.outputs) {
        ojson oj = {{"kind", o.kind}, {"path", o.path}, {"bytes", o.bytes}, {"status", o.status}};
        if (!o.reason.empty())
            oj["reason"] = o.reason;
        if (o.writeSeconds >= 0)
            oj["write_s"] = o.writeSeconds;
        if (o.kind == "chakra_et") {
            ojson rp = ojson::array();
            for (const auto &w : o.replay) {
                rp.push_back({{"window", w.window},
                              {"measured_us", w.measuredUs >= 0 ? ojson(w.measuredUs) : ojson(nullptr)},
                              {"replayed_us", w.replayedUs},
                              {"error_pct", w.measuredUs > 0 ? ojson(w.errorPct()) : ojson(nullptr)},
                              {"et_coverage_pct", w.etCoveragePct >= 0 ? ojson(w.etCoveragePct) : ojson(nullptr)}});
                if (!w.note.empty())
                    rp.back()["note"] = w.note;
            }
            oj["replay"] = rp;
        }
        outs.push_back(oj);
    }
    r["outputs"] = outs;

    r["diagnostics"] = diagnosticsJson(a.diagnostics);
    r["timing"] = {{"load_s", a.times.loadSeconds},
                   {"sync_s", a.times.syncSeconds},
                   {"critical_path_s", a.times.criticalPathSeconds},
                   {"link_s", a.times.linkSeconds},
                   // Time of the breakdowns' own task (one thread, beside the critical path and the link).
                   {"breakdown_s", breakdown->wholeCpuSeconds + breakdown->stepsCpuSeconds},
                   {"breakdown_steps_s", breakdown->stepsCpuSeconds},
                   {"total_s", ctx.totalSeconds}};
    r["exit_code"] = ctx.exitCode;
    // Paths, keys and messages come from argv and the traces and need not be UTF-8:
    // invalid bytes become U+FFFD instead of failing the whole report.
    return r.dump(2, ' ', false, ojson::error_handler_t::replace) + "\n";
}

std::string formatSummary(const ReportContext &ctx)
{
    const Analysis &a = *ctx.analysis;
    std::string s;
    char line[512];
    s += "syncscope " SYNCSCOPE_VERSION " batch\n";
    if (!a.request.hostPath.empty()) {
        if (a.host)
            std::snprintf(line, sizeof line, "  host     %s (ET %s, %zu nodes, pid %lld, %s)\n", a.hostPath.c_str(),
                          a.host->schema.c_str(), a.host->nodes.size(), static_cast<long long>(a.host->pid),
                          formatBytes(a.host->inputBytes).c_str());
        else
            std::snprintf(line, sizeof line, "  host     %s (not loaded)\n", a.hostPath.c_str());
        s += line;
    }
    if (a.device) {
        std::string rank;
        if (a.device->distributed.rank)
            rank = ", rank " + std::to_string(*a.device->distributed.rank) +
                   (a.device->distributed.worldSize ? " of " + std::to_string(*a.device->distributed.worldSize) : "");
        std::snprintf(line, sizeof line, "  device   %s (Kineto, %zu events%s, pid %lld, %s)\n", a.devicePath.c_str(),
                      a.device->events.size(), rank.c_str(), static_cast<long long>(a.devicePid),
                      formatBytes(a.device->inputBytes).c_str());
    } else {
        std::snprintf(line, sizeof line, "  device   %s (not loaded)\n", a.devicePath.c_str());
    }
    s += line;
    if (a.link) {
        const LinkCounts &c = a.link->counts;
        std::snprintf(line, sizeof line, "  link     %s mode, matched by %s\n", modeName(a.link->mode),
                      matchStrategyName(a.link->strategy));
        s += line;
        std::snprintf(line, sizeof line,
                      "           host ops        %7lld / %-7lld linked  (%s of %lld with a Kineto twin)\n",
                      static_cast<long long>(c.hostOpsLinked), static_cast<long long>(c.hostOps),
                      percent(c.hostOpsLinked, c.hostOpsWithTwin).c_str(), static_cast<long long>(c.hostOpsWithTwin));
        s += line;
        std::snprintf(line, sizeof line, "           Kineto CPU ops  %7lld / %-7lld linked  (%s)\n",
                      static_cast<long long>(c.kinetoCpuOpsLinked), static_cast<long long>(c.kinetoCpuOps),
                      percent(c.kinetoCpuOpsLinked, c.kinetoCpuOps).c_str());
        s += line;
        std::snprintf(line, sizeof line, "           GPU ops         %7lld / %-7lld linked  (%s)\n",
                      static_cast<long long>(c.gpuOpsLinked), static_cast<long long>(c.gpuOps),
                      percent(c.gpuOpsLinked, c.gpuOps).c_str());
        s += line;
        std::snprintf(line, sizeof line, "           sync deps %lld, inter-thread deps %lld, ET+ nodes %lld\n",
                      static_cast<long long>(c.syncDeps), static_cast<long long>(c.interThreadDeps),
                      static_cast<long long>(c.etPlusNodes));
        s += line;
        if (c.hostOpsLinked == 0)
            s += "  LINKED NOTHING: no host op could be matched to a Kineto op (see the warnings)\n";
    }
    if (a.device) {
        const SyncWaitTotals totals = syncWaitTotals(a.syncEdges);
        const size_t inferred = totals.inferredEdges();
        std::string source;
        if (inferred > 0) {
            const size_t copies = totals.byKind[static_cast<size_t>(SyncKind::BlockingCopy)].inferred;
            source = " (" + formatCount(inferred) + " inferred" +
                     (copies > 0 ? ", " + formatCount(copies) + " from blocking copies" : std::string()) + ")";
        }
        std::snprintf(line, sizeof line, "  sync     %s edges%s, %s waited", formatCount(a.syncEdges.size()).c_str(),
                      source.c_str(), humanUs(totals.totalWaitUs()).c_str());
        s += line;
        std::string kinds;
        for (int k = 0; k < kSyncKindCount; ++k) {
            const SyncKindTotals &t = totals.byKind[static_cast<size_t>(k)];
            if (t.edges == 0)
                continue;
            std::snprintf(line, sizeof line, "%s%s %zu (%s)", kinds.empty() ? ": " : ", ",
                          syncKindName(static_cast<SyncKind>(k)), t.edges, humanUs(t.waitUs).c_str());
            kinds += line;
        }
        s += kinds + "\n";
        s += topWaits(*a.device, a.syncEdges);
    }
    if (a.graphCapture) {
        const GraphCaptureLink &g = *a.graphCapture;
        s += "  graph    " + formatCount(g.matched) + " of " + formatCount(g.replayedOps) +
             " replayed ops matched to their captured launch (" + g.method + ", " + formatCount(g.verified) +
             " by kernel name) in " + g.capturePath + "\n";
    }
    if (a.criticalPath) {
        const CriticalPathResult &cp = *a.criticalPath;
        if (cp.success) {
            std::string window = windowText(a);
            if (a.request.cpa.htaVersion != HtaVersion::F4d0062)
                window += std::string(", HTA ") + htaVersionName(a.request.cpa.htaVersion);
            std::snprintf(line, sizeof line, "  critical path  %s over %zu nodes / %zu events (%s)\n",
                          humanUs(cp.weightUs).c_str(), cp.pathNodes.size(), cp.criticalEvents.size(), window.c_str());
            s += line;
            std::string split;
            double dependency = 0; // HTA's "" bucket: waits on dependencies and syncs (a GPU that started late)
            for (const auto &row : cp.summary) {
                if (row.boundBy.empty()) {
                    dependency += row.percent;
                    continue;
                }
                std::snprintf(line, sizeof line, "%s%s %.1f %%", split.empty() ? "" : ", ", row.boundBy.c_str(),
                              row.percent);
                split += line;
            }
            if (dependency >= 0.05) { // so the line adds up to 100 %
                std::snprintf(line, sizeof line, "%sdependency %.1f %%", split.empty() ? "" : ", ", dependency);
                split += line;
            }
            s += "           bound by: " + (split.empty() ? std::string("-") : split) + "\n";
        } else {
            s += "  critical path  not computed: " + cp.reason + "\n";
        }
    }
    if (!a.steps.empty()) {
        s += "  steps    name               critical path        span   cpu %  compute %   comm %  launch %  kernel-gap %\n";
        for (const auto &st : a.steps) {
            auto pct = [&](const char *bucket) {
                for (const auto &row : st.summary)
                    if (row.boundBy == bucket)
                        return row.percent;
                return 0.0;
            };
            std::snprintf(line, sizeof line, "           %-18s %13s %11s %7.1f %10.1f %8.1f %9.1f %13.1f%s\n",
                          st.name.c_str(), humanUs(st.weightUs).c_str(), humanUs(st.endUs - st.startUs).c_str(),
                          pct("cpu_bound"),
                          pct("gpu_compute_bound"), pct("gpu_communication_bound"), pct("gpu_kernel_launch_overhead"),
                          pct("gpu_kernel_kernel_overhead"), st.success ? "" : "  (failed)");
            s += line;
        }
    }
    // The breakdown lines when the caller computed them (a report, or --step all): a plain
    // run does not pay for them (about 16 % of the load for the whole trace).
    if (ctx.breakdown) {
        std::unordered_map<std::string, std::string> capturedIn; // kernel name -> the op of its first replay
        if (a.graphCapture && a.device) {
            std::vector<std::pair<uint32_t, uint32_t>> byEvent(a.graphCapture->originOf.begin(),
                                                               a.graphCapture->originOf.end());
            std::sort(byEvent.begin(), byEvent.end());
            for (const auto &[event, origin] : byEvent)
                capturedIn.try_emplace(std::string(a.device->str(a.device->events[event].name)),
                                       a.graphCapture->origins[origin].opName);
        }
        s += formatBreakdown(*ctx.breakdown, capturedIn.empty() ? nullptr : &capturedIn);
    }
    for (const auto &extra : ctx.extraLines)
        s += extra;
    const auto &items = a.diagnostics.items();
    int shown = 0;
    for (const auto &d : items) {
        if (d.severity == Severity::Info)
            continue;
        if (shown++ == 0)
            s += "  problems\n";
        s += std::string("    ") + severityName(d.severity) + ": " + d.message;
        if (d.count > 1)
            s += " (x" + std::to_string(d.count) + ")";
        s += "\n";
        if (shown == 12) {
            s += "    ... (see --report for the full list)\n";
            break;
        }
    }
    for (const auto &o : ctx.outputs) {
        if (o.status == "written")
            s += "  wrote    " + o.path + " (" + o.kind + ", " + formatBytes(o.bytes) + ")\n";
        else
            s += std::string(o.status == "failed" ? "  FAILED   " : "  skipped  ") + o.path + " (" + o.kind +
                 "): " + o.reason + "\n";
    }
    std::snprintf(line, sizeof line, "  time     %.3f s (load %.3f, sync %.3f, critical path %.3f, link %.3f)\n",
                  ctx.totalSeconds, a.times.loadSeconds, a.times.syncSeconds, a.times.criticalPathSeconds,
                  a.times.linkSeconds);
    s += line;
    return s;
}

} // namespace syncscope
