// SPDX-License-Identifier: MIT
// A whole job (syncscope.load_job): discovery, every rank through the per-rank
// pipeline (the job runner), the cross-rank analysis and the job report, as
// `syncscope --batch --job` runs them.
#pragma once

#include "columns.h"
#include "pyrequest.h"

#include "batchjob.h"
#include "job/jobanalysis.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace syncscope::py {

class PyJob
{
public:
    static std::shared_ptr<PyJob> load(const std::vector<std::string> &argv, pybind11::object progress);

    pybind11::dict ranks() const;
    pybind11::dict collectives() const;
    pybind11::dict arrivals() const;
    pybind11::dict rootCauses() const;
    pybind11::dict delays() const;
    pybind11::dict stragglers() const;
    pybind11::tuple criticalPath() const; // (rows, bound-by summary, facts)
    std::string reportJson() const;
    // The report's straggler_whatif object as JSON; None when loaded without --straggler-whatif.
    std::optional<std::string> stragglerWhatIfJson() const;
    int exitCode() const { return m_exitCode; }
    double seconds() const { return m_timing.totalSeconds; }

private:
    const RankJobStats *statsOf(int64_t rank) const;
    ParsedRequest m_parsed;
    JobCli m_job;
    JobDiscovery m_discovery;
    std::vector<RankSummary> m_ranks;
    JobAnalysis m_analysis;
    JobTiming m_timing;
    int m_exitCode = 0;
};

} // namespace syncscope::py
