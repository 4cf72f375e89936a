// SPDX-License-Identifier: MIT
// Writes the linked ("ET+", "host+device") Chakra execution trace as JSON: the
// host ET's top-level keys in their order, its nodes renumbered from 0 with GPU
// nodes right after their launching node, and the added fields in Chakra's key
// order (trace_link_spec 3.8). In Chakra mode the layout is exactly
// chakra_trace_link's json.dump(indent=4); in default mode each node is one
// line of compact JSON (values copied from the host ET as they are), about a
// third of the size and much faster to write and read.
#pragma once

#include "link/linkresult.h"
#include "model/hosttrace.h"
#include "model/kinetotrace.h"

#include <string>
#include <vector>

namespace syncscope {

class OutputFile;

// Streams the document into `out` (which the caller commits).
void writeEtPlus(OutputFile &out, const HostTrace &host, const KinetoTrace &device, const LinkResult &link);

// Atomic write to `path`; never overwrites one of `inputs`. Throws OutputError.
void writeEtPlusFile(const std::string &path, const HostTrace &host, const KinetoTrace &device,
                     const LinkResult &link, const std::vector<std::string> &inputs);

// The whole document as a string (tests, small traces).
std::string etPlusToString(const HostTrace &host, const KinetoTrace &device, const LinkResult &link);

} // namespace syncscope
