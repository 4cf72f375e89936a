// SPDX-License-Identifier: MIT
// Every command-line flag in one table, shared by the GUI and batch mode; the
// same table produces --help and the man page.
#pragma once

#include "session/exitcodes.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace syncscope {


enum CliOptionFlag : unsigned {
    CliRepeatable = 1,    // may be given several times (CliArgs::all)
    CliOptionalValue = 2, // the value may be left out (job mode: "--chakra-et" alone)
};

struct CliOption {
    const char *name;      // "--host"
    const char *valueName; // "FILE", or nullptr for a switch
    const char *section;   // "Batch", "Linking", ...
    const char *help;
    unsigned flags = 0;    // CliOptionFlag
};

const std::vector<CliOption> &cliOptions();

struct CliArgs {
    std::map<std::string, std::string> values; // option -> value ("" for switches; the last one when repeated)
    std::map<std::string, std::vector<std::string>> repeated; // CliRepeatable options: every value, in order
    std::vector<std::string> positional;
    std::string error; // non-empty: usage error

    bool has(const std::string &name) const { return values.count(name) != 0; }
    std::string value(const std::string &name, const std::string &fallback = {}) const
    {
        auto it = values.find(name);
        return it == values.end() ? fallback : it->second;
    }
    std::vector<std::string> all(const std::string &name) const
    {
        auto it = repeated.find(name);
        return it == repeated.end() ? std::vector<std::string>{} : it->second;
    }
};

CliArgs parseCli(const std::vector<std::string> &args);

std::string helpText();        // --help
std::string manPage();         // roff, generated from the same table
std::string versionText();     // --version

} // namespace syncscope
