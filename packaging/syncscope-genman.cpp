// SPDX-License-Identifier: MIT
// Build-time tool: writes the syncscope(1) man page, generated from the same
// option table as `syncscope --help` (app/cliargs.cpp). A path ending in .gz is
// gzip-compressed with a fixed header (no name, no time stamp), so the output is
// reproducible.
#include "cliargs.h"

#include <zlib.h>

#include <cstdio>
#include <string>

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: syncscope-genman OUTPUT(.1|.1.gz)\n");
        return 2;
    }
    const std::string out = argv[1];
    const std::string page = syncscope::manPage();
    const bool gz = out.size() > 3 && out.compare(out.size() - 3, 3, ".gz") == 0;
    if (gz) {
        gzFile f = gzopen(out.c_str(), "wb9");
        if (!f || gzwrite(f, page.data(), static_cast<unsigned>(page.size())) != static_cast<int>(page.size())
            || gzclose(f) != Z_OK) {
            std::fprintf(stderr, "syncscope-genman: cannot write %s\n", out.c_str());
            return 1;
        }
        return 0;
    }
    std::FILE *f = std::fopen(out.c_str(), "wb");
    if (!f || std::fwrite(page.data(), 1, page.size(), f) != page.size() || std::fclose(f) != 0) {
        std::fprintf(stderr, "syncscope-genman: cannot write %s\n", out.c_str());
        return 1;
    }
    return 0;
}
