// SPDX-License-Identifier: MIT
// Build-time tool for packaging.
//   syncscope-genman OUTPUT            write the syncscope(1) man page, generated from the
//                                      same option table as `syncscope --help` (app/cliargs.cpp)
//   syncscope-genman --gzip IN OUTPUT  compress IN (e.g. the Debian changelog)
// An OUTPUT ending in .gz is gzip-compressed with a fixed header (no name, no time
// stamp), so the output is reproducible and needs no gzip program.
#include "cliargs.h"

#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

bool writeFile(const std::string &out, const std::string &data)
{
    const bool gz = out.size() > 3 && out.compare(out.size() - 3, 3, ".gz") == 0;
    if (gz) {
        gzFile f = gzopen(out.c_str(), "wb9");
        if (!f)
            return false;
        const bool ok = data.empty() || gzwrite(f, data.data(), static_cast<unsigned>(data.size())) ==
                                            static_cast<int>(data.size());
        return gzclose(f) == Z_OK && ok;
    }
    std::FILE *f = std::fopen(out.c_str(), "wb");
    if (!f)
        return false;
    const bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
    return std::fclose(f) == 0 && ok;
}

} // namespace

int main(int argc, char **argv)
{
    std::string data, out;
    if (argc == 2) {
        out = argv[1];
        data = syncscope::manPage();
    } else if (argc == 4 && std::string(argv[1]) == "--gzip") {
        std::ifstream in(argv[2], std::ios::binary);
        std::ostringstream ss;
        ss << in.rdbuf();
        if (!in) {
            std::fprintf(stderr, "syncscope-genman: cannot read %s\n", argv[2]);
            return 1;
        }
        data = ss.str();
        out = argv[3];
    } else {
        std::fprintf(stderr, "usage: syncscope-genman OUTPUT(.1|.1.gz)\n"
                             "       syncscope-genman --gzip INPUT OUTPUT.gz\n");
        return 2;
    }
    if (!writeFile(out, data)) {
        std::fprintf(stderr, "syncscope-genman: cannot write %s\n", out.c_str());
        return 1;
    }
    return 0;
}
