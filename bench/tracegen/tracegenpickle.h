// SPDX-License-Identifier: MIT
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace tracegen {

// `value` as a protocol-2 pickle, as torch's flight recorder writes its dumps.
std::string toTorchPickle(const nlohmann::json &value);

} // namespace tracegen
