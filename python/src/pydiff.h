// SPDX-License-Identifier: MIT
// Two runs compared (syncscope.diff): both analysed as `syncscope --batch --diff`
// analyses them (diffRunRequest: whole trace, every step), then core/diff.
#pragma once

#include "columns.h"
#include "pyrequest.h"

#include "diff/tracediff.h"

#include <memory>
#include <string>
#include <vector>

namespace syncscope::py {

class PyDiff
{
public:
    // argv: `--diff BASE CAND` and the options, as the CLI takes them.
    static std::shared_ptr<PyDiff> run(const std::vector<std::string> &argv, pybind11::object progress);

    pybind11::dict steps() const;
    pybind11::dict ops() const;
    pybind11::dict gpu(bool memcpys, bool byOp) const;
    pybind11::dict syncWaits(bool byWaiter) const;
    pybind11::dict boundBy() const;
    pybind11::dict topChanges() const;
    std::string reportJson() const; // the --diff-report text
    int exitCode() const { return m_exitCode; }

private:
    std::unique_ptr<TraceDiff> m_diff;
    int m_exitCode = 0;
};

} // namespace syncscope::py
