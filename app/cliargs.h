// SPDX-License-Identifier: MIT
// Every command-line flag in one table, shared by the GUI and batch mode; the
// same table produces --help and the man page.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace syncscope {

// Documented exit codes.
enum ExitCode : int {
    ExitOk = 0,
    ExitInternal = 1,     // unexpected failure (a bug: please report it)
    ExitUsage = 2,        // bad command line
    ExitBadInput = 3,     // an input is missing, unreadable, of the wrong kind or invalid
    ExitLinkedNothing = 4,// the pair loaded but not a single host op could be linked
    ExitOutput = 5,       // an output could not be written
    ExitAnalysis = 6,     // the requested analysis failed (e.g. --compat chakra on a trace without ProfilerStep)
};

struct CliOption {
    const char *name;      // "--host"
    const char *valueName; // "FILE", or nullptr for a switch
    const char *section;   // "Batch", "Linking", ...
    const char *help;
};

const std::vector<CliOption> &cliOptions();

struct CliArgs {
    std::map<std::string, std::string> values; // option -> value ("" for switches)
    std::vector<std::string> positional;
    std::string error; // non-empty: usage error

    bool has(const std::string &name) const { return values.count(name) != 0; }
    std::string value(const std::string &name, const std::string &fallback = {}) const
    {
        auto it = values.find(name);
        return it == values.end() ? fallback : it->second;
    }
};

CliArgs parseCli(const std::vector<std::string> &args);

std::string helpText();        // --help
std::string manPage();         // roff, generated from the same table
std::string versionText();     // --version

} // namespace syncscope
