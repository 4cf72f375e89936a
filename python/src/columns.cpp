// SPDX-License-Identifier: MIT
#include "columns.h"

#include <pybind11/numpy.h>

namespace syncscope::py {

namespace pyb = pybind11;

template <typename T>
std::vector<T> &Columns::add(const std::string &name)
{
    m_columns.emplace_back(name, std::vector<T>{});
    return std::get<std::vector<T>>(m_columns.back().second);
}

std::vector<double> &Columns::f64(const std::string &name) { return add<double>(name); }
std::vector<int64_t> &Columns::i64(const std::string &name) { return add<int64_t>(name); }
std::vector<uint8_t> &Columns::boolean(const std::string &name) { return add<uint8_t>(name); }
std::vector<std::string> &Columns::text(const std::string &name) { return add<std::string>(name); }

void Columns::reserve(size_t rows)
{
    for (auto &[name, column] : m_columns)
        std::visit([rows](auto &v) { v.reserve(rows); }, column);
}

pyb::str pyText(std::string_view text)
{
    PyObject *o = PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
    if (!o)
        throw pyb::error_already_set();
    return pyb::reinterpret_steal<pyb::str>(o);
}

namespace {

template <typename T>
pyb::array numbers(const std::vector<T> &v)
{
    pyb::array_t<T> a(static_cast<pyb::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

} // namespace

pyb::dict Columns::toPython() const
{
    pyb::dict out;
    for (const auto &[name, column] : m_columns) {
        if (const auto *d = std::get_if<std::vector<double>>(&column)) {
            out[pyb::str(name)] = numbers(*d);
        } else if (const auto *i = std::get_if<std::vector<int64_t>>(&column)) {
            out[pyb::str(name)] = numbers(*i);
        } else if (const auto *b = std::get_if<std::vector<uint8_t>>(&column)) {
            pyb::array_t<bool> a(static_cast<pyb::ssize_t>(b->size()));
            bool *p = a.mutable_data();
            for (size_t k = 0; k < b->size(); ++k)
                p[k] = (*b)[k] != 0;
            out[pyb::str(name)] = std::move(a);
        } else {
            const auto &s = std::get<std::vector<std::string>>(column);
            pyb::list l(s.size());
            for (size_t k = 0; k < s.size(); ++k)
                l[k] = pyText(s[k]);
            out[pyb::str(name)] = std::move(l);
        }
    }
    return out;
}

} // namespace syncscope::py
