// SPDX-License-Identifier: MIT
// Collective bandwidth in the job report and the job's text summary
// (collectivebw.h; docs/breakdowns.md "Job mode"):
//
//   collectives[k] gains {"bus_type": "all_reduce", "group_size": 4, "message_bytes": S | null,
//                         "transfer_us": mean over ranks | null, "transfer_us_by_rank": {"0": t, ...},
//                         "algbw_gbps": x | null, "busbw_gbps": x | null,
//                         "median_busbw_gbps": the job's for the same type and S | null, "slow_busbw": bool}
//   job.collective_bandwidth = {"slow_busbw_ratio": 0.5, "slow_busbw_count": n, "slow_busbw": [k, ...],
//                           "by_type": [{"type", "instances", "median_busbw_gbps", "slow", "worst"}]}
#pragma once

#include "collectivebw.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace syncscope {

nlohmann::ordered_json collectiveBandwidthJson(const CollectiveBandwidth &b);
nlohmann::ordered_json jobBandwidthJson(const std::vector<CollectiveBandwidth> &bandwidths);

// "Collective busbw" lines: per type its median, and where instances are slow their
// count and the one furthest below its median. Empty when no instance has a busbw.
std::string formatJobBandwidth(const std::vector<CollectiveBandwidth> &bandwidths);

} // namespace syncscope
