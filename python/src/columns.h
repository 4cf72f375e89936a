// SPDX-License-Identifier: MIT
// A table built in C++ in one pass, column by column, handed to Python as a dict
// of numpy arrays (numbers, booleans) and lists (text), in column order; the
// Python half makes it a pandas DataFrame.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <deque>
#include <variant>
#include <vector>

namespace syncscope::py {

class Columns
{
public:
    // Each returns the column to push_back into; names must be unique.
    std::vector<double> &f64(const std::string &name);
    std::vector<int64_t> &i64(const std::string &name);
    std::vector<uint8_t> &boolean(const std::string &name);
    std::vector<std::string> &text(const std::string &name);
    void reserve(size_t rows);

    pybind11::dict toPython() const;

private:
    using Column = std::variant<std::vector<double>, std::vector<int64_t>, std::vector<uint8_t>, std::vector<std::string>>;
    std::deque<std::pair<std::string, Column>> m_columns; // deque: the references add() returns stay valid
    template <typename T>
    std::vector<T> &add(const std::string &name);
};

// A Python str from bytes that may not be valid UTF-8 (names from a trace): bad
// bytes become U+FFFD, as in the JSON reports.
pybind11::str pyText(std::string_view text);

} // namespace syncscope::py
