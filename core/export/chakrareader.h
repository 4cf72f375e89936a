// SPDX-License-Identifier: MIT
// Reads Chakra protobuf execution traces (.et): a varint32 length before every
// message, GlobalMetadata first, then Nodes (trace_link_spec 5.6). Gzip is
// recognised by its magic bytes, like Chakra's C++ ProtoInputStream.
#pragma once

#include "io/bytesource.h"
#include "proto/et_def.pb.h"

#include <memory>
#include <string>
#include <vector>

namespace syncscope {

// Streams the messages of one file. Every failure throws InputError with a
// sentence naming the file, the message number and its byte offset (in the
// decompressed stream), and one of these codes:
//   chakra_et.not_et     the file is JSON or otherwise not a .et stream (any
//                        failure inside the first message is reported so)
//   chakra_et.empty      no GlobalMetadata at all
//   chakra_et.bad_length a length prefix longer than 5 bytes or zero
//   chakra_et.truncated  the file ends inside a length or a message
//   chakra_et.bad_message the bytes of a message do not parse as its type
class ChakraEtReader
{
public:
    explicit ChakraEtReader(const std::string &path); // also reads the metadata
    ~ChakraEtReader();
    ChakraEtReader(const ChakraEtReader &) = delete;
    ChakraEtReader &operator=(const ChakraEtReader &) = delete;

    const ChakraProtoMsg::GlobalMetadata &metadata() const { return m_metadata; }
    // The next node; false at the clean end of the file.
    bool next(ChakraProtoMsg::Node &node);

    bool compressed() const;
    uint64_t fileSize() const;
    uint64_t offset() const { return m_offset; } // decompressed bytes consumed
    int64_t messagesRead() const { return m_messages; }

private:
    bool readMessage(std::string &bytes); // false at a clean end
    int readByte();                       // -1 at the end
    [[noreturn]] void fail(const char *code, const std::string &what) const;

    std::string m_path;
    std::unique_ptr<ByteSource> m_source;
    std::string m_buffer;
    size_t m_pos = 0;
    uint64_t m_offset = 0;
    int64_t m_messages = 0;
    std::string m_scratch;
    ChakraProtoMsg::GlobalMetadata m_metadata;
};

struct ChakraEtFile {
    ChakraProtoMsg::GlobalMetadata metadata;
    std::vector<ChakraProtoMsg::Node> nodes; // file order
};

// The whole file in memory (tests, small files). Throws InputError.
ChakraEtFile readChakraEt(const std::string &path);

} // namespace syncscope
