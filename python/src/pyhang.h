// SPDX-License-Identifier: MIT
// Why a job hung (syncscope.hang): a folder of NCCL flight recorder dumps read and
// analysed as `syncscope --batch --flight-recorder DIR` does (core/hang).
#pragma once

#include "columns.h"

#include "hang/hanganalysis.h"
#include "hang/hangfolder.h"

#include <memory>
#include <string>

namespace syncscope::py {

class PyHang
{
public:
    static std::shared_ptr<PyHang> read(const std::string &dir, pybind11::object progress);

    std::string summary() const;              // the batch's text summary, root cause first
    std::string analysisJson() const;         // the report's `hang` object
    pybind11::dict suspects() const;          // one row per suspect, root cause first
    pybind11::dict groups() const;            // one row per (group, member)
    pybind11::dict entries(int64_t rank) const; // the rank's entries, with their stack frames
    pybind11::dict inputs() const;            // the dumps read, missing ranks, world size, refused files

private:
    std::shared_ptr<HangFolder> m_folder;
    HangAnalysis m_analysis;
};

} // namespace syncscope::py
