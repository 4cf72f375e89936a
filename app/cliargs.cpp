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
        {"--replay", nullptr, "Mode",
         "With --inspect: replay the .et as a simulator would (a node starts when its ctrl_deps and data_deps are "
         "done and its CPU thread or GPU stream is free) and print the replayed time per ProfilerStep and overall "
         "against the measured time. --inspect FOLDER --replay replays a job's PREFIX.RANK.et set, each rank from "
         "its rank_start_offset_micros, and prints the job's replayed time against the measured one."},
        {"--diff", "BASELINE", "Mode",
         "Compare two runs: --diff BASELINE CANDIDATE, each run DEVICE_TRACE[,HOST_ET] (two files in either "
         "order, or a device trace alone; a name that exists as a file is taken whole), or two job folders "
         "(--batch: diffed rank by rank and merged). With --batch: steps, "
         "structurally matched ops, kernels, copies, sync waits, critical path and the top 20 changes on stdout; "
         "without: the compare window. The window is the whole trace unless --step or --annotation/--instance "
         "narrow both runs alike. See docs/diff.md."},
        {"--diff-report", "FILE", "Outputs", "With --diff: write the run diff as JSON (docs/diff.md)."},
        {"--open-pair", nullptr, "Mode",
         "Start the inspector with its Open pair dialog (the desktop entry's \"Open Trace Pair\" action)."},
        {"--host", "FILE", "Inputs", "Host execution trace (PyTorch ExecutionTraceObserver JSON, .json or .json.gz)."},
        {"--device", "FILE", "Inputs", "Kineto device trace (torch.profiler Chrome trace JSON, .json or .json.gz)."},
        {"--rank", "N", "Inputs", "Rank of this pair (0 to 2147483647); checked against the trace's distributedInfo."},
        {"--job", "DIR|LIST", "Job",
         "With --batch: analyse every rank of a distributed job. DIR is searched recursively for .json and "
         ".json.gz traces, classified by content; ranks come from the Kineto distributedInfo (else the file "
         "name: rank-N, rankN, _rank_N, NAME.N.json, NAME_N.pt.trace.json) and host and device traces are "
         "paired by pid and rank. Give it several times, or a LIST file naming one directory or trace per line.",
         CliRepeatable},
        {"--jobs", "N", "Job", "Ranks analysed at once in job mode (default: the number of cores)."},
        {"--clocks", "MODE", "Job",
         "How ranks' clocks meet in job mode: align (the default: shift every rank so matched collective ends "
         "coincide), auto (shift a rank only where its collective ends disagree with the reference rank's beyond "
         "noise) or trust (keep every rank's own clock: one host, or traces already aligned). "
         "docs/job_analysis.md, \"Clocks\"."},
        {"--straggler-whatif", nullptr, "Job",
         "Job mode: the straggler what-if of ByteDance's study: every rank's GPU ops of every step re-simulated "
         "with ideal durations (compute: the mean of the op over ranks and steps; communication: the median "
         "transfer), giving the slowdown S, S per step, per op type, per data-parallel rank and per pipeline "
         "stage, M_W and M_S (report: straggler_whatif). docs/what_if.md, \"Straggler what-if\"."},
        {"--parallelism", "dp=D,pp=P,tp=T", "Job",
         "With --straggler-whatif: the job's data-, pipeline- and tensor-parallel sizes (any subset), ranks in "
         "Megatron-LM's order (tp fastest, then dp, then pp). Default: from distributedInfo.pg_config, else "
         "inferred from the collectives."},
        {"--output-dir", "OUT", "Job",
         "Job mode: write each rank's ET+ as OUT/PREFIX.RANK.json, and with --chakra-et, --critical-path, "
         "--overlay its OUT/PREFIX.RANK.et, .critical_path.json, .overlay.json (the names Chakra and ASTRA-sim "
         "expect). OUT is created; files under it are not taken as inputs (unless a --job path lies in it)."},
        {"--prefix", "NAME", "Job", "Job mode: PREFIX of the per-rank files (default: trace)."},
        {"--flight-recorder", "DIR", "Hang",
         "With --batch: why a job hung. Reads every PyTorch NCCL flight recorder dump under DIR (pickle or JSON, "
         "any file names, searched recursively; the rank from the dump, else the last number in the file name), "
         "matches the ranks' collectives and point-to-point ops per process group and prints the suspects, root "
         "cause first (\"hang: pg ...\"); --report writes them as JSON. A hang found is a result (exit 0); a missing "
         "DIR or one without a readable dump is exit 3. Cannot be combined with other modes or inputs. "
         "docs/hang_diagnosis.md."},
        {"--compat", "chakra", "Linking",
         "Reproduce chakra_trace_link exactly, including its known bugs. Its sync_dep entries come from the "
         "critical path of HTA d731cc2e, the HTA that Chakra pins (whatever --hta-version says). Default: the "
         "same output schema with the bugs fixed, fallbacks for traces without Record function ids, and sync "
         "dependencies from every cuda_sync event."},
        {"--annotation", "TEXT", "Critical path",
         "HTA's window of the critical-path analysis: events whose name contains TEXT (default ProfilerStep), "
         "instance 0 unless --instance says. With no match, or with --annotation \"\", the whole trace is the "
         "window."},
        {"--step", "N|A,B|all", "Critical path",
         "Critical-path window: ProfilerStep#N, the step whose name has the number N (0 to 2147483647), whole, "
         "its last events kept: the figure of the per-step table and of the inspector's step selector. A,B spans "
         "ProfilerStep#A to #B; 'all' takes the first step and adds the per-step table. The default is the first "
         "step in time, or the whole trace when there is no ProfilerStep; with --hta-exact, --hta-version d731cc2e "
         "or --compat chakra it is HTA's instance 0. A step the trace lacks is a usage error (exit 2) naming the "
         "steps. Not with --instance or --annotation."},
        {"--instance", "N|A,B|all", "Critical path",
         "HTA's window: which match of the annotation (0 to 2147483647), counted as HTA does: every event whose "
         "name contains the annotation, the GPU copy of each ProfilerStep#N included, and HTA's loader drops the "
         "last step's events. A,B spans matches A to B; 'all' takes instance 0 and also computes one critical "
         "path per ProfilerStep and prints a per-step table."},
        {"--hta-version", "f4d0062|d731cc2e", "Critical path",
         "Which Holistic Trace Analysis the critical path (--critical-path, --overlay, the per-step table) "
         "reproduces: f4d0062 (default), the current HTA, or d731cc2e (2024-06), the HTA that Chakra pins: "
         "nodes created as its passes reach events, no CUDA-runtime-lock pass (cudaMemcpyAsync counts as 0), "
         "no forward/backward thread merge, no 1.5 ms kernel-kernel limit, no data-loading bucket."},
        {"--graph-capture", "FILE", "Inputs",
         "A Kineto trace of the same process recorded while its CUDA/HIP graphs were captured: each replayed "
         "graph kernel takes the CPU op, input shapes and Python stack of its captured launch (matched by launch "
         "order, checked by kernel name where the capture's rows name kernels). Without it, a file beside the "
         "device trace with 'capture' in its name is used when the device trace replays graphs."},
        {"--chakra-metadata-nodes", nullptr, "Outputs",
         "Default-mode .et: write process_group:init as a METADATA_NODE, as chakra_converter does (released "
         "ASTRA-sim aborts on it, so by default it is a CPU COMP_NODE)."},
        {"--hta-exact", nullptr, "Critical path",
         "Reproduce HTA exactly, misses included: sync edges only from cuda_sync events (none inferred from "
         "runtime calls), HTA's launch names only (graph launches and hipExtLaunchKernel are not launches), one "
         "GPU op per correlation. --hta-version d731cc2e implies it. Default: HTA's graph plus the inferred "
         "sync edges, graph replays and every launch API (docs/critical_path.md)."},
        {"--zero-weight-launch-edges", nullptr, "Critical path",
         "Add HTA's zero-weight causal launch edges (CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1)."},
        {"--output", "FILE", "Outputs", "Write the linked Chakra execution trace (ET+ JSON)."},
        {"--chakra-et", "FILE", "Outputs",
         "Write the Chakra protobuf execution trace (.et) that ASTRA-sim and other simulators replay (gzip when "
         "FILE ends in .gz). Follows --compat: chakra reproduces chakra_converter PyTorch exactly; the default "
         "fixes its dependency bugs. In job mode give no FILE: each rank's goes to --output-dir.",
         CliOptionalValue},
        {"--what-if", "RULE", "Critical path",
         "Project the critical path with changed durations (repeatable): 'SELECTOR*FACTOR' scales, "
         "'SELECTOR=DURATION' sets (us, or ns/us/ms/s; 0 removes the work), 'sync:SELECTOR=drop' removes the waits "
         "of the matching ops. SELECTOR: name~REGEX, name=NAME, cat=kernel|cpu_op|runtime|memcpy|memset, comm, "
         "compute, stream=N, rank=N, event=N, or a name; join terms with '&'. In job mode the rules apply to "
         "every rank's graph (rank=N restricts one to rank N) and the job critical path is recomputed. See "
         "docs/what_if.md.",
         CliRepeatable},
        {"--critical-path", "FILE", "Outputs",
         "Write the critical-path graph, path, sync edges and summary (JSON). In job mode give no FILE: each "
         "rank's goes to --output-dir.",
         CliOptionalValue},
        {"--overlay", "FILE", "Outputs",
         "Write the device trace with critical events marked and critical-path flows added, for Perfetto "
         "(gzip when FILE ends in .gz). In job mode give no FILE: each rank's goes to --output-dir.",
         CliOptionalValue},
        {"--sqlite", "FILE", "Outputs",
         "Write the trace and every analysis as one SQLite database (events, host nodes, links, sync edges, "
         "critical path, steps, bound-by breakdown; in job mode every rank plus collectives, arrivals and delay "
         "costs in one file). Schema and example queries: docs/sqlite.md."},
        {"--overlay-all-events", nullptr, "Outputs",
         "Keep the non-critical events in the overlay (HTA only_show_critical_events=False)."},
        {"--report", "FILE", "Outputs",
         "Write a machine-readable JSON report of the run; it lists every output as written, failed or skipped (in "
         "job mode: the job report, README \"Job report\")."},
        {"--quiet", nullptr, "Outputs", "Print nothing on stderr except errors."},
        {"--no-breakdowns", nullptr, "Outputs",
         "Leave HTA's breakdowns out of the report (and of the --step all summary): nothing computed for them "
         "(docs/breakdowns.md)."},
        {"--screenshot", "FILE", "Window",
         "Load the traces, render the inspector window offscreen to FILE (PNG) and exit. Needs no display."},
        {"--size", "WxH", "Window", "Window size for --screenshot, e.g. 1600x1000 (the default)."},
        {"--theme", "THEME", "Window",
         "light, dark or system (the default: the one saved under View > Theme); for this run only, saved nowhere."},
        {"--select", "NAME", "Window",
         "Select the earliest op named NAME (else the first whose name contains it) and show its details."},
        {"--rank-order", "ORDER", "Window",
         "A job's ranks on the timeline: rank (the default), step (slowest step first) or waits (the ranks that "
         "caused the most collective waits first)."},
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
            const bool optional = (opt->flags & CliOptionalValue) != 0;
            if (!inlineValue && optional && (i + 1 >= args.size() || args[i + 1].rfind("-", 0) == 0)) {
                // no value given: fine in job mode (checked below)
            } else if (!inlineValue) {
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
        if (opt->flags & CliRepeatable)
            out.repeated[arg].push_back(value);
        else if (out.values.count(arg) && opt->valueName) {
            out.error = std::string(opt->name) + " was given twice";
            return out;
        }
        out.values[arg] = value;
    }
    // Outside job mode an optional value is still required.
    if (!out.has("--job"))
        for (const auto &o : cliOptions())
            if ((o.flags & CliOptionalValue) && out.has(o.name) && out.value(o.name).empty()) {
                out.error = std::string(o.name) + " needs a value (" + o.valueName + ")";
                return out;
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
        "  syncscope --batch --job DIR [--jobs N] [--output-dir OUT] [--report FILE] [options]\n"
        "  syncscope [--batch] --diff BASELINE CANDIDATE [--diff-report FILE]   compare two runs\n"
        "  syncscope --batch --flight-recorder DIR [--report FILE] [--quiet]   why a job hung\n"
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
        std::string left = std::string("  ") + o.name;
        if (o.valueName)
            left += (o.flags & CliOptionalValue) ? std::string(" [") + o.valueName + "]" : std::string(" ") + o.valueName;
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
                    "[\\fIoptions\\fR]\n.br\n"
                    ".B syncscope \\-\\-batch \\-\\-job\n\\fIDIR\\fR [\\fIoptions\\fR]\n"
                    ".br\n.B syncscope \\-\\-batch \\-\\-diff\n\\fIBASELINE\\fR \\fICANDIDATE\\fR "
                    "[\\fB\\-\\-diff\\-report\\fR \\fIFILE\\fR]\n"
                    ".br\n.B mpirun \\-np\n\\fIP\\fR \\fBsyncscope\\-mpi \\-\\-job\\fR \\fIDIR\\fR "
                    "\\fB\\-\\-report\\fR \\fIFILE\\fR [\\fIoptions\\fR]\n"
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
        std::string value;
        if (o.valueName)
            value = (o.flags & CliOptionalValue) ? " [\\fI" + esc(o.valueName) + "\\fR]"
                                                 : " \\fI" + esc(o.valueName) + "\\fR";
        s += ".TP\n.B " + esc(o.name) + value + "\n" + esc(o.help) + "\n";
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
