// SPDX-License-Identifier: MIT
// Host execution trace loader, then linking against a small Kineto
// trace in both modes, the ET+ writer (compact and json.dump(indent=4)) and
// the Chakra .et converter.
#include "fuzzinput.h"

#include "export/chakraconvert.h"
#include "export/chakrawriter.h"
#include "export/etpluswriter.h"
#include "session/analysis.h"

using namespace syncscope;

extern "C" int SYNCSCOPE_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    fuzz::MemFile host(data, size);
    for (LinkMode mode : {LinkMode::Default, LinkMode::Chakra}) {
        AnalysisRequest req;
        req.hostPath = host.path();
        req.devicePath = SYNCSCOPE_PAIR_DIR "/device.0.json";
        req.mode = mode;
        req.criticalPath = mode == LinkMode::Chakra; // the sync edges Chakra mode needs
        const auto a = runAnalysis(req);
        if (!a->inputsOk || !a->link)
            return 0;
        (void)etPlusToString(*a->host, *a->device, *a->link);
        ChakraGraph graph;
        Diagnostics diag;
        if (buildChakraGraph(*a->host, *a->device, *a->link, graph, diag))
            (void)chakraEtBytes(graph, *a->host, *a->device, *a->link);
    }
    return 0;
}
