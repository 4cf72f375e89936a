// SPDX-License-Identifier: MIT
// Trace.breakdown_json(): HTA's breakdowns of the loaded trace, whole and per
// ProfilerStep, as the report's `breakdown` objects (report/breakdownreport.h),
// plus the launch-stats rows HTA's get_cuda_kernel_launch_stats returns, by column.
#include "pytrace.h"

#include "report/breakdownreport.h"

#include <nlohmann/json.hpp>

namespace syncscope::py {

namespace pyb = pybind11;

std::string PyTrace::breakdownJson() const
{
    const Analysis &a = analysis();
    if (!a.device)
        throw AnalysisError("breakdowns need the device (Kineto) trace");
    std::string text;
    {
        pyb::gil_scoped_release release;
        std::lock_guard<std::mutex> lock(m_breakdownMutex);
        if (!m_breakdown) {
            auto b = std::make_shared<ReportBreakdown>();
            if (a.breakdown) {
                *b = *a.breakdown;
            } else {
                computeWholeBreakdown(*a.device, *b);
                computeStepBreakdowns(*a.device, profilerStepSpans(*a.device), *b);
            }
            m_breakdown = std::move(b);
        }
        const ReportBreakdown &b = *m_breakdown;
        nlohmann::ordered_json j;
        j["whole"] = syncscope::breakdownJson(b.whole);
        nlohmann::ordered_json launch = {{"correlation", nlohmann::ordered_json::array()},
                                         {"cpu_duration", nlohmann::ordered_json::array()},
                                         {"gpu_duration", nlohmann::ordered_json::array()},
                                         {"launch_delay", nlohmann::ordered_json::array()}};
        for (const KernelLaunchRow &r : b.whole.launch.rows) {
            launch["correlation"].push_back(r.correlation);
            launch["cpu_duration"].push_back(r.cpu_duration_us);
            launch["gpu_duration"].push_back(r.gpu_duration_us);
            launch["launch_delay"].push_back(r.launch_delay_us);
        }
        j["launch_rows"] = std::move(launch);
        nlohmann::ordered_json stepsJson = nlohmann::ordered_json::array();
        for (const StepBreakdown &s : b.steps)
            stepsJson.push_back({{"name", s.name},
                                 {"start_us", s.startUs},
                                 {"end_us", s.endUs},
                                 {"exposed_comm_us", s.set.comm.exposed_us},
                                 {"breakdown", syncscope::breakdownJson(s.set)}});
        j["steps"] = std::move(stepsJson);
        text = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
    return text;
}

} // namespace syncscope::py
