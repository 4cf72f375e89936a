// SPDX-License-Identifier: MIT
// JSON data written as a protocol-2 pickle the way torch::jit::Pickler writes a flight
// recorder dump (tag_aggregates off): dicts as EMPTY_DICT MARK ... SETITEMS, lists as
// EMPTY_LIST MARK ... APPENDS, every distinct string once (BINUNICODE + BINPUT) and
// then by reference (BINGET), which keeps repeated keys, names and file names small.
#include "tracegenpickle.h"

#include <cstring>
#include <unordered_map>

namespace tracegen {

namespace {

class PickleWriter
{
public:
    explicit PickleWriter(std::string &out) : m_out(out) {}

    void value(const nlohmann::json &j, bool asTuple = false)
    {
        switch (j.type()) {
        case nlohmann::json::value_t::null: m_out += 'N'; break;
        case nlohmann::json::value_t::boolean: m_out += char(j.get<bool>() ? 0x88 : 0x89); break;
        case nlohmann::json::value_t::number_integer:
        case nlohmann::json::value_t::number_unsigned: integer(j.get<int64_t>()); break;
        case nlohmann::json::value_t::number_float: real(j.get<double>()); break;
        case nlohmann::json::value_t::string: string(j.get_ref<const std::string &>()); break;
        case nlohmann::json::value_t::array:
            if (asTuple) {
                m_out += '(';
                for (const auto &v : j)
                    value(v);
                m_out += 't';
                break;
            }
            m_out += ']';
            if (!j.empty()) {
                m_out += '(';
                for (const auto &v : j)
                    value(v);
                m_out += 'e';
            }
            break;
        case nlohmann::json::value_t::object:
            m_out += '}';
            if (!j.empty()) {
                m_out += '(';
                for (auto it = j.begin(); it != j.end(); ++it) {
                    string(it.key());
                    value(it.value(), it.key() == "process_group"); // a std::tuple in torch
                }
                m_out += 'u';
            }
            break;
        default: m_out += 'N'; break;
        }
    }

private:
    std::string &m_out;
    std::unordered_map<std::string, uint32_t> m_memo;

    void le(uint64_t v, int bytes)
    {
        for (int k = 0; k < bytes; ++k)
            m_out += char((v >> (8 * k)) & 0xff);
    }
    void integer(int64_t v)
    {
        if (v >= 0 && v < 256) {
            m_out += 'K';
            le(uint64_t(v), 1);
        } else if (v >= 0 && v < 65536) {
            m_out += 'M';
            le(uint64_t(v), 2);
        } else if (v >= INT32_MIN && v <= INT32_MAX) {
            m_out += 'J';
            le(uint64_t(uint32_t(int32_t(v))), 4);
        } else {
            m_out += char(0x8a); // LONG1, 8 bytes two's complement
            m_out += char(8);
            le(uint64_t(v), 8);
        }
    }
    void real(double d)
    {
        uint64_t bits;
        std::memcpy(&bits, &d, 8);
        m_out += 'G';
        for (int k = 7; k >= 0; --k)
            m_out += char((bits >> (8 * k)) & 0xff);
    }
    void string(const std::string &s)
    {
        const auto it = m_memo.find(s);
        if (it != m_memo.end()) {
            if (it->second < 256) {
                m_out += 'h';
                le(it->second, 1);
            } else {
                m_out += 'j';
                le(it->second, 4);
            }
            return;
        }
        m_out += 'X';
        le(s.size(), 4);
        m_out += s;
        const uint32_t id = uint32_t(m_memo.size());
        m_memo.emplace(s, id);
        if (id < 256) {
            m_out += 'q';
            le(id, 1);
        } else {
            m_out += 'r';
            le(id, 4);
        }
    }
};

} // namespace

std::string toTorchPickle(const nlohmann::json &value)
{
    std::string out = "\x80\x02";
    PickleWriter(out).value(value);
    out += '.';
    return out;
}

} // namespace tracegen
