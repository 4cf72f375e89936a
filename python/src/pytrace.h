// SPDX-License-Identifier: MIT
// One analysed pair (syncscope.load): the per-rank pipeline's result
// (runRankPipeline, as `syncscope --batch` runs it) and the tables, report,
// what-if and exports read from it.
#pragma once

#include "columns.h"
#include "pyrequest.h"

#include "session/rankpipeline.h"

#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace syncscope::py {

class PyTrace
{
public:
    // `argv`: the CLI arguments (--host/--device and options). GIL released while it runs.
    static std::shared_ptr<PyTrace> load(const std::vector<std::string> &argv, pybind11::object progress);

    const Analysis &analysis() const { return *m_run.analysis; }
    const std::vector<std::string> &argv() const { return m_argv; }
    const AnalysisRequest &request() const { return m_parsed.cli.request; }
    int exitCode() const { return m_run.exitCode; }
    double seconds() const { return m_seconds; }
    pybind11::dict info() const;

    // Tables (pytracetables.cpp).
    pybind11::dict events() const;
    pybind11::dict links() const;
    pybind11::dict syncEdges() const;
    // The critical path of the loaded window (step: none) or of ProfilerStep#N:
    // (rows in path order, bound-by summary, facts such as weight_us and the window).
    pybind11::tuple criticalPath(std::optional<int64_t> step);
    // HTA's window (annotation, instance range) for the HTA alias; None when HTA
    // would return None (the annotation is in no event name).
    pybind11::object htaCriticalPath(const std::string &annotation, int first, int last);
    pybind11::dict steps();

    // The --report JSON text, exactly as the CLI builds it for this run.
    std::string reportJson() const;
    // The report's what_if object for these rules (JSON text); raises on a bad rule.
    std::string whatIfJson(const std::vector<std::string> &rules) const;
    // kind: et_plus, chakra_et, overlay, critical_path. Raises OutputError with the CLI's message.
    void exportFile(const std::string &kind, const std::string &path, bool overlayAllEvents) const;
    // The SQLite database of this run (core/export/sqlitedb.h, as --sqlite). Raises OutputError.
    void toSqlite(const std::string &path) const;
    // HTA's breakdowns, whole trace and per step, as JSON text (pybreakdown.cpp); computed once.
    std::string breakdownJson() const;

private:
    std::vector<std::string> m_argv;
    ParsedRequest m_parsed;
    RankRun m_run;
    double m_seconds = 0;
    std::mutex m_stepsMutex;
    std::optional<std::vector<StepResult>> m_steps; // computed on first use (as --step all)
    mutable std::mutex m_breakdownMutex;
    mutable std::shared_ptr<const ReportBreakdown> m_breakdown; // computed on first use
    CriticalPathOptions sessionOptions() const;
    const std::vector<StepResult> &allSteps();
};

pybind11::dict criticalPathRows(const KinetoTrace &trace, const CriticalPathResult &cp);
pybind11::dict boundBySummary(const std::vector<CpSummaryRow> &rows);

} // namespace syncscope::py
