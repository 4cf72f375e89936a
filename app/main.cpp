// SPDX-License-Identifier: MIT
// Entry point: batch mode never creates a Q(Gui)Application, so it needs no display.
#include "batch.h"
#include "batchdiff.h"
#include "cliargs.h"
#include "clirequest.h"
#include "io/outputfile.h"

#include <exception>
#include <iostream>

#ifdef SYNCSCOPE_HAVE_GUI
#include "guimain.h"
#endif

int main(int argc, char **argv)
{
    using namespace syncscope;
    installOutputSignalHandlers(); // SIGXFSZ -> EFBIG (exit 5); Ctrl-C removes temporary files
    std::vector<std::string> args(argv + 1, argv + argc);
    const CliArgs cli = parseCli(args);
    if (!cli.error.empty()) {
        std::cerr << "syncscope: " << cli.error << "\nTry 'syncscope --help' for more information.\n";
        return ExitUsage;
    }
    if (cli.has("--help")) {
        std::cout << helpText();
        return ExitOk;
    }
    if (cli.has("--version")) {
        std::cout << versionText();
        return ExitOk;
    }
    if (cli.has("--job") && !cli.has("--batch")) {
        std::cerr << "syncscope: --job needs --batch (the inspector opens a job as: syncscope DIR)\nTry 'syncscope --help' for more "
                     "information.\n";
        return ExitUsage;
    }
    if (cli.has("--flight-recorder") && !cli.has("--batch")) {
        std::cerr << "syncscope: --flight-recorder needs --batch\nTry 'syncscope --help' for more information.\n";
        return ExitUsage;
    }
    CliRequest request;
    std::string error;
    if (!buildCliRequest(cli, argc > 0 ? argv[0] : nullptr, request, error)) {
        std::cerr << "syncscope: " << error << "\nTry 'syncscope --help' for more information.\n";
        return ExitUsage;
    }
    try {
#ifdef SYNCSCOPE_HAVE_GUI
        if (!cli.has("--batch")) {
            GuiOptions gui;
            gui.request = request.request;
            gui.hasInputs = request.hasInputs;
            gui.screenshot = request.screenshot;
            gui.width = request.width;
            gui.height = request.height;
            gui.select = request.select;
            gui.rankOrder = request.rankOrder;
            gui.theme = request.theme;
            gui.openPair = request.openPair;
            if (cli.has("--diff")) { // the compare window
                DiffSideSpec base, cand;
                if (!diffSides(cli, base, cand, error) || base.jobFolder || cand.jobFolder) {
                    std::cerr << "syncscope: "
                              << (error.empty() ? "the compare window takes two runs, not job folders (use --batch --diff for those)" : error)
                              << "\nTry 'syncscope --help' for more information.\n";
                    return ExitUsage;
                }
                gui.diff = true;
                gui.diffBaseline = diffRequest(request, cli, base);
                gui.diffCandidate = diffRequest(request, cli, cand);
            }
            return runGui(argc, argv, gui);
        }
#else
        if (!cli.has("--batch")) {
            std::cerr << "syncscope: this build has no GUI; use --batch\n";
            return ExitUsage;
        }
#endif
        return runBatch(cli, request);
    } catch (const std::bad_alloc &) {
        std::cerr << "syncscope: out of memory\n";
        return ExitInternal;
    } catch (const std::exception &e) {
        std::cerr << "syncscope: internal error: " << e.what() << "\n";
        return ExitInternal;
    }
}
