// SPDX-License-Identifier: MIT
// The UI benchmark's hang view line (issue 29) and what its parts share.
#pragma once

#include <QString>

#include <fstream>
#include <string>

namespace uibench {

// Peak resident memory of this process (VmHWM), MB.
inline double rssMb()
{
    std::ifstream st("/proc/self/status");
    std::string line;
    while (std::getline(st, line))
        if (line.rfind("VmHWM:", 0) == 0)
            return std::stod(line.substr(6)) / 1024.0;
    return 0;
}

// Child process: opens DIR through the main window (File > Open job...) and prints
// "loaded_s stall_ms rss_mb paint_ms ranks groups suspects".
int hangFirstPaint(const QString &dir);
// Generates 10,000-rank dump sets (JSON, pickle) under WORK and runs hangFirstPaint on each.
void hangBench(const QString &self, const QString &work);

} // namespace uibench
