// SPDX-License-Identifier: MIT
// Writes a Chakra protobuf execution trace (.et): varint32-length-delimited
// messages, GlobalMetadata first, then every Node in ascending id order
// (trace_link_spec 5.6). Gzip when the file name ends in ".gz", as Chakra's
// C++ writer does; always atomic (OutputFile).
#pragma once

#include "export/chakraconvert.h"

#include <string>
#include <vector>

namespace google::protobuf {
class MessageLite;
}

namespace syncscope {

class OutputFile;

// Serializes `graph` into `out` (which the caller commits). Node fields the
// graph does not hold (name, IOInfo strings, attrs) come from the host/device
// traces the graph was built from.
// One length-delimited message (varint32 length, then its bytes), as .et files hold them.
void appendEtMessage(std::string &buf, const google::protobuf::MessageLite &message);

void writeChakraEt(OutputFile &out, const ChakraGraph &graph, const HostTrace &host, const KinetoTrace &device,
                   const LinkResult &link);

// The whole (uncompressed) file as bytes; tests and small traces.
std::string chakraEtBytes(const ChakraGraph &graph, const HostTrace &host, const KinetoTrace &device,
                          const LinkResult &link);

// Builds the graph for link.mode and writes `path` atomically, never over one
// of `inputs`. Returns false, writing nothing, when the graph cannot be built
// (Error diagnostics say why: in --compat chakra mode, where the reference
// converter fails). Throws OutputError when the file cannot be written.
// `stats`, when given, receives the conversion counts.
bool exportChakraEt(const std::string &path, const HostTrace &host, const KinetoTrace &device,
                    const LinkResult &link, const std::vector<std::string> &inputs, Diagnostics &diagnostics,
                    ChakraStats *stats = nullptr, bool metadataNodes = false);

} // namespace syncscope
