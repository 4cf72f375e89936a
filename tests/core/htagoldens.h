// SPDX-License-Identifier: MIT
// The goldens of HTA f4d0062's breakdown analyzers (tests/data/golden/hta_breakdowns,
// made by make_goldens.py there) and how tst_htabreakdown and tst_htalaunch compare
// with them.
#pragma once

#include "testutil.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace htagolden {

// HTA f4d0062's own outputs on the shared traces (tests/data/golden/hta_breakdowns,
// made by make_goldens.py there). Tolerance: 0.1 % or 1 µs, whichever is larger.
inline const char *const kHtaGoldens[] = {"hta_nccl_data", "hta_cpa_alexnet", "hta_cpa_simple_add", "hta_ns_resolution",
                                   "hta_amd_mi250_rocm6.2", "hta_cuda_event_sync",
                                   "hta_cuda_event_sync_multi_stream", "hta_simple_add", "param_dlrm_rank0"};

inline nlohmann::json loadGolden(const std::string &key)
{
    return nlohmann::json::parse(testutil::readText(testutil::fixture("golden/hta_breakdowns/" + key + ".json")));
}

// null in the golden (pandas NaN) must be NaN here.
struct Mismatches {
    std::vector<std::string> list;
    void num(const std::string &what, double ours, const nlohmann::json &golden, double absTol = 1.0)
    {
        if (golden.is_null()) {
            if (!std::isnan(ours))
                list.push_back(what + ": ours " + std::to_string(ours) + ", HTA NaN");
            return;
        }
        const double g = golden.get<double>();
        if (std::isnan(ours) || std::fabs(ours - g) > std::max(1e-3 * std::fabs(g), absTol))
            list.push_back(what + ": ours " + std::to_string(ours) + ", HTA " + std::to_string(g));
    }
    void count(const std::string &what, size_t ours, size_t golden)
    {
        if (ours != golden)
            list.push_back(what + ": ours " + std::to_string(ours) + ", HTA " + std::to_string(golden));
    }
    std::string text() const
    {
        std::string s;
        for (const std::string &m : list)
            s += "\n  " + m.substr(0, 400);
        return s;
    }
};

} // namespace htagolden
