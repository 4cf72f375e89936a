// SPDX-License-Identifier: MIT
#include "chakrareader.h"

#include <google/protobuf/stubs/logging.h>

namespace syncscope {

namespace {

constexpr size_t kChunk = 1 << 20;
// A real node is a few hundred bytes, the metadata a few KB; a crafted length of
// 1 GiB must not make us buffer it before the message fails to parse.
constexpr uint64_t kMaxMessageBytes = uint64_t(64) << 20;

} // namespace

ChakraEtReader::ChakraEtReader(const std::string &path) : m_path(path), m_source(openByteSource(path))
{
    const int first = readByte();
    if (first < 0)
        fail("chakra_et.empty", "is empty: a .et starts with its GlobalMetadata message");
    if (first == '{' || first == '[' || first == ' ' || first == '\n' || first == '\r' || first == '\t')
        fail("chakra_et.not_et", "looks like JSON (a host trace or ET+?), not a Chakra protobuf .et file");
    --m_pos; // give the byte back (it is still in the buffer)
    --m_offset;
    try {
        if (!readMessage(m_scratch))
            fail("chakra_et.empty", "has no GlobalMetadata message");
    } catch (const InputError &e) {
        if (e.code() == "chakra_et.empty")
            throw;
        // Broken from the first message on: most likely some other kind of file.
        throw InputError("chakra_et.not_et",
                         std::string(e.what()) + " (it does not start with a GlobalMetadata message: it is not a "
                                                 "Chakra .et file, or it is truncated)",
                         e.offset());
    }
    google::protobuf::LogSilencer quiet; // invalid UTF-8 would otherwise be logged on stderr
    if (!m_metadata.ParseFromString(m_scratch) ||
        !m_metadata.GetReflection()->GetUnknownFields(m_metadata).empty())
        fail("chakra_et.not_et",
             "does not start with a Chakra GlobalMetadata message; it is not a .et file (or it is corrupt)");
}

ChakraEtReader::~ChakraEtReader() = default;

bool ChakraEtReader::compressed() const
{
    return m_source->compressed();
}

uint64_t ChakraEtReader::fileSize() const
{
    return m_source->fileSize();
}

void ChakraEtReader::fail(const char *code, const std::string &what) const
{
    throw InputError(code, m_path + " " + what, static_cast<int64_t>(m_offset));
}

int ChakraEtReader::readByte()
{
    if (m_pos >= m_buffer.size()) {
        m_buffer.resize(kChunk);
        const size_t got = m_source->read(m_buffer.data(), kChunk);
        m_buffer.resize(got);
        m_pos = 0;
        if (got == 0)
            return -1;
    }
    ++m_offset;
    return static_cast<unsigned char>(m_buffer[m_pos++]);
}

bool ChakraEtReader::readMessage(std::string &bytes)
{
    const uint64_t start = m_offset;
    const std::string where = "message " + std::to_string(m_messages) + " (offset " + std::to_string(start) + ")";
    int b = readByte();
    if (b < 0)
        return false;
    uint64_t length = 0;
    for (int count = 0;; ++count) {
        length |= static_cast<uint64_t>(b & 0x7f) << (7 * count);
        if (!(b & 0x80))
            break;
        if (count == 4)
            fail("chakra_et.bad_length", "has a length prefix longer than 5 bytes at " + where +
                                             ": this is not a .et stream or it is corrupt");
        b = readByte();
        if (b < 0)
            fail("chakra_et.truncated", "ends inside the length prefix of " + where + ": the file is truncated");
    }
    if (length == 0)
        fail("chakra_et.bad_length", "has a zero length at " + where +
                                         ": no Chakra writer produces that; the file is corrupt or not a .et");
    if (length > 0xffffffffu)
        fail("chakra_et.bad_length", "declares " + std::to_string(length) + " bytes at " + where +
                                         ", more than a varint32 length allows: not a .et stream");
    if (length > kMaxMessageBytes)
        fail("chakra_et.message_too_large",
             "declares " + std::to_string(length) + " bytes at " + where + "; no Chakra node or metadata is larger than " +
                 std::to_string(kMaxMessageBytes >> 20) + " MiB, so the file is refused as corrupt");
    bytes.clear();
    while (bytes.size() < length) {
        if (m_pos >= m_buffer.size()) {
            m_buffer.resize(kChunk);
            m_buffer.resize(m_source->read(m_buffer.data(), kChunk));
            m_pos = 0;
            if (m_buffer.empty())
                fail("chakra_et.truncated", "ends inside " + where + ", which declares " + std::to_string(length) +
                                                " bytes but only " + std::to_string(bytes.size()) +
                                                " follow: the file is truncated");
        }
        const size_t take = std::min<size_t>(length - bytes.size(), m_buffer.size() - m_pos);
        bytes.append(m_buffer, m_pos, take);
        m_pos += take;
        m_offset += take;
    }
    ++m_messages;
    return true;
}

bool ChakraEtReader::next(ChakraProtoMsg::Node &node)
{
    const uint64_t start = m_offset;
    if (!readMessage(m_scratch))
        return false;
    google::protobuf::LogSilencer quiet;
    if (!node.ParseFromString(m_scratch))
        fail("chakra_et.bad_message", "has a message " + std::to_string(m_messages - 1) + " (offset " +
                                          std::to_string(start) + ") that is not a valid Chakra Node");
    return true;
}

ChakraEtFile readChakraEt(const std::string &path)
{
    ChakraEtReader reader(path);
    ChakraEtFile file;
    file.metadata = reader.metadata();
    ChakraProtoMsg::Node node;
    while (reader.next(node))
        file.nodes.push_back(node);
    return file;
}

} // namespace syncscope
