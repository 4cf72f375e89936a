// SPDX-License-Identifier: MIT
#include "cliargs.h"

#include <cctype>
#include <cstring>

namespace syncscope {

const std::vector<CliOption> &cliOptions()
{
    static const std::vector<CliOption> options = {
        {"--batch", nullptr, "Mode", "Run headless: load, link, analyse and export, then exit. Needs no display."},
        {"--sample", nullptr, "Mode", "Use the sample trace pair that ships with Syncscope."},
        {"--inspect", "FILE.et", "Mode",
         "With --batch: print a summary of a Chakra protobuf execution trace (nodes by type, dependency counts, "
         "roots, metadata, references to missing nodes) and exit. Reads .et and .et.gz."},
        {"--open-pair", nullptr, "Mode",
         "Start the inspector with its Open pair dialog (the desktop entry's \"Open Trace Pair\" action)."},
        {"--host", "FILE", "Inputs", "Host execution trace (PyTorch ExecutionTraceObserver JSON, .json or .json.gz)."},
        {"--device", "FILE", "Inputs", "Kineto device trace (torch.profiler Chrome trace JSON, .json or .json.gz)."},
        {"--rank", "N", "Inputs", "Rank of this pair (0 to 2147483647); checked against the trace's distributedInfo."},
        {"--compat", "chakra", "Linking",
         "Reproduce chakra_trace_link exactly, including its known bugs. Default: the same output schema with "
         "the bugs fixed and fallbacks for traces without Record function ids."},
        {"--annotation", "TEXT", "Critical path",
         "Window of the critical-path analysis: events whose name contains TEXT (default ProfilerStep). "
         "With no match, or with --annotation \"\", the whole trace is the window."},
        {"--instance", "N|A,B|all", "Critical path",
         "Which match of the annotation (default 0; 0 to 2147483647); A,B spans matches A to B; 'all' also "
         "computes one critical path per ProfilerStep and prints a per-step table."},
        {"--zero-weight-launch-edges", nullptr, "Critical path",
         "Add HTA's zero-weight causal launch edges (CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1)."},
        {"--output", "FILE", "Outputs", "Write the linked Chakra execution trace (ET+ JSON)."},
        {"--chakra-et", "FILE", "Outputs",
         "Write the Chakra protobuf execution trace (.et) that ASTRA-sim and other simulators replay (gzip when "
         "FILE ends in .gz). Follows --compat: chakra reproduces chakra_converter PyTorch exactly; the default "
         "fixes its dependency bugs."},
        {"--critical-path", "FILE", "Outputs", "Write the critical-path graph, path, sync edges and summary (JSON)."},
        {"--overlay", "FILE", "Outputs",
         "Write the device trace with critical events marked and critical-path flows added, for Perfetto "
         "(gzip when FILE ends in .gz)."},
        {"--overlay-all-events", nullptr, "Outputs",
         "Keep the non-critical events in the overlay (HTA only_show_critical_events=False)."},
        {"--report", "FILE", "Outputs",
         "Write a machine-readable JSON report of the run; it lists every output as written, failed or skipped."},
        {"--quiet", nullptr, "Outputs", "Print nothing on stderr except errors."},
        {"--screenshot", "FILE", "Window",
         "Load the traces, render the inspector window offscreen to FILE (PNG) and exit. Needs no display."},
        {"--size", "WxH", "Window", "Window size for --screenshot, e.g. 1600x1000 (the default)."},
        {"--select", "NAME", "Window",
         "Select the earliest op named NAME (else the first whose name contains it) and show its details."},
        {"--help", nullptr, "Other", "Show this help and exit."},
        {"--version", nullptr, "Other", "Show the version and exit."},
    };
    return options;
}

namespace {

const CliOption *findOption(const std::string &name)
{
    for (const auto &o : cliOptions())
        if (name == o.name)
            return &o;
    return nullptr;
}

} // namespace

CliArgs parseCli(const std::vector<std::string> &args)
{
    CliArgs out;
    for (size_t i = 0; i < args.size(); ++i) {
        std::string arg = args[i];
        if (arg == "--") {
            for (++i; i < args.size(); ++i)
                out.positional.push_back(args[i]);
            break;
        }
        if (arg.size() < 2 || arg[0] != '-' ) {
            out.positional.push_back(arg);
            continue;
        }
        std::string value;
        bool inlineValue = false;
        if (auto eq = arg.find('='); eq != std::string::npos && arg.rfind("--", 0) == 0) {
            value = arg.substr(eq + 1);
            arg = arg.substr(0, eq);
            inlineValue = true;
        }
        const CliOption *opt = findOption(arg);
        if (!opt) {
            out.error = "unknown option " + arg + " (see --help)";
            return out;
        }
        if (opt->valueName) {
            if (!inlineValue) {
                if (i + 1 >= args.size()) {
                    out.error = std::string(opt->name) + " needs a value (" + opt->valueName + ")";
                    return out;
                }
                value = args[++i];
            }
        } else if (inlineValue) {
            out.error = std::string(opt->name) + " takes no value";
            return out;
        }
        if (out.values.count(arg) && opt->valueName) {
            out.error = std::string(opt->name) + " was given twice";
            return out;
        }
        out.values[arg] = value;
    }
    return out;
}

std::string versionText()
{
    return std::string("syncscope ") + SYNCSCOPE_VERSION + "\n";
}

namespace {

// Word-wraps `text` to `width` columns, continuation lines indented by `indent`.
std::string wrap(const std::string &text, size_t indent, size_t width)
{
    std::string out;
    size_t column = indent;
    size_t i = 0;
    while (i < text.size()) {
        size_t end = text.find(' ', i);
        if (end == std::string::npos)
            end = text.size();
        const std::string word = text.substr(i, end - i);
        if (column > indent && column + 1 + word.size() > width) {
            out += "\n" + std::string(indent, ' ');
            column = indent;
        } else if (column > indent) {
            out += ' ';
            ++column;
        }
        out += word;
        column += word.size();
        i = end + 1;
    }
    return out;
}

} // namespace

std::string helpText()
{
    std::string s =
        "Usage:\n"
        "  syncscope [HOST_ET] [DEVICE_TRACE]        open a trace pair (either order) in the inspector\n"
        "  syncscope --sample                         open the bundled sample pair\n"
        "  syncscope --batch --host HOST_ET --device DEVICE_TRACE [options]\n"
        "\n"
        "Syncscope links a PyTorch host execution trace with its Kineto device trace the way\n"
        "Chakra's chakra_trace_link does, infers CPU-GPU synchronisation and the critical path\n"
        "the way Holistic Trace Analysis does, shows them on a timeline and exports the results.\n";
    const char *section = "";
    for (const auto &o : cliOptions()) {
        if (std::strcmp(section, o.section) != 0) {
            section = o.section;
            s += std::string("\n") + section + ":\n";
        }
        std::string left = std::string("  ") + o.name + (o.valueName ? std::string(" ") + o.valueName : "");
        if (left.size() < 30)
            left.append(30 - left.size(), ' ');
        else
            left += "\n" + std::string(30, ' ');
        s += left + wrap(o.help, 30, 100) + "\n";
    }
    s += "\nOutput files:\n"
         "  Written to a temporary file and renamed, so a failed run leaves no partial file; never over an\n"
         "  input (compared by device and inode); two outputs may not name the same file (exit 2). A symlink\n"
         "  is kept and its target replaced; a FIFO or device (/dev/null) is written through. New files\n"
         "  follow the umask, a replaced file keeps its mode. One failed output does not stop the others.\n"
         "  Inputs must be regular files (not FIFOs or devices): they are read more than once.\n";
    s += "\nExit status:\n"
         "  0  success\n"
         "  1  internal error (please report it)\n"
         "  2  usage error (also: a value out of range, an empty file name, two outputs naming one file)\n"
         "  3  an input is missing, unreadable, not a regular file, invalid or of the wrong kind\n"
         "  4  the pair loaded but nothing could be linked (0 % coverage)\n"
         "  5  an output could not be written\n"
         "  6  the requested analysis could not be done on this input\n"
         "  The highest code wins when several apply. On SIGINT/SIGTERM temporary files are removed first.\n";
    return s;
}

std::string manPage()
{
    auto esc = [](const std::string &t) {
        std::string o;
        for (char c : t) {
            if (c == '-')
                o += "\\-";
            else if (c == '\\')
                o += "\\e";
            else
                o.push_back(c);
        }
        return o;
    };
    std::string s = ".TH SYNCSCOPE 1 \"\" \"syncscope " SYNCSCOPE_VERSION "\" \"User Commands\"\n"
                    ".SH NAME\nsyncscope \\- inspect, link and analyse PyTorch execution and Kineto traces\n"
                    ".SH SYNOPSIS\n.B syncscope\n[\\fIHOST_ET\\fR] [\\fIDEVICE_TRACE\\fR]\n.br\n"
                    ".B syncscope \\-\\-batch \\-\\-host\n\\fIHOST_ET\\fR \\fB\\-\\-device\\fR \\fIDEVICE_TRACE\\fR "
                    "[\\fIoptions\\fR]\n"
                    ".SH DESCRIPTION\nSyncscope links a PyTorch host execution trace with its Kineto device trace "
                    "the way Chakra's chakra_trace_link does, infers CPU\\-GPU synchronisation and the critical "
                    "path the way Holistic Trace Analysis does, shows them on a timeline and exports the results.\n";
    const char *section = "";
    for (const auto &o : cliOptions()) {
        if (std::strcmp(section, o.section) != 0) {
            section = o.section;
            std::string heading = esc(section);
            for (char &c : heading) // man pages use upper-case section headings
                c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            s += ".SH " + heading + "\n";
        }
        s += ".TP\n.B " + esc(o.name) + (o.valueName ? std::string(" \\fI") + esc(o.valueName) + "\\fR" : "") + "\n" +
             esc(o.help) + "\n";
    }
    s += ".SH OUTPUT FILES\nOutputs are written to a temporary file and renamed, so a failed run leaves no partial "
         "file, and never over an input (compared by device and inode); two outputs may not name the same file. "
         "A symlink is kept and its target replaced; a FIFO or device is written through. New files follow the "
         "umask, a replaced file keeps its mode. One failed output does not stop the others. Inputs must be "
         "regular files: they are read more than once.\n";
    s += ".SH EXIT STATUS\n.TP\n0\nsuccess\n.TP\n1\ninternal error\n.TP\n2\nusage error\n.TP\n3\nan input is "
         "missing, unreadable, not a regular file, invalid or of the wrong kind\n.TP\n4\nnothing could be linked\n.TP\n5\nan output "
         "could not be written\n.TP\n6\nthe requested analysis could not be done on this input\n";
    return s;
}

} // namespace syncscope
