// SPDX-License-Identifier: MIT
#include "samplepair.h"

#include <cstdlib>
#include <filesystem>
#include <vector>

namespace syncscope {

namespace fs = std::filesystem;

SamplePair findSamplePair(const char *argv0)
{
    std::vector<fs::path> dirs;
    if (const char *env = std::getenv("SYNCSCOPE_SAMPLE_DIR"))
        dirs.emplace_back(env);
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec && argv0)
        exe = fs::absolute(argv0, ec);
    if (!exe.empty())
        dirs.push_back(exe.parent_path().parent_path() / "share" / "syncscope" / "sample");
    dirs.emplace_back(SYNCSCOPE_SAMPLE_INSTALL_DIR);
    dirs.emplace_back(SYNCSCOPE_SAMPLE_SOURCE_DIR);
    for (const auto &dir : dirs) {
        const fs::path host = dir / "sample.et.json.gz";
        const fs::path device = dir / "sample.kineto.json.gz";
        if (fs::exists(host, ec) && fs::exists(device, ec))
            return {host.string(), device.string()};
    }
    return {};
}

} // namespace syncscope
