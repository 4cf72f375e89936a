// SPDX-License-Identifier: MIT
// Makes a bigger Kineto trace out of a real one: the events are written N times,
// each copy shifted past the previous one in time and with its correlation,
// External id, Record function id and flow ids offset so they stay unique.
// Used by the benchmarks to scale HTA's ns_resolution test trace, as HTA's own
// performance figures were measured (critical_path_spec section 6).
#pragma once

#include <cstdint>
#include <string>

namespace tracegen {

struct ReplicateResult {
    uint64_t events = 0;
    uint64_t bytes = 0;
};

ReplicateResult replicateKineto(const std::string &input, const std::string &output, int copies);

} // namespace tracegen
