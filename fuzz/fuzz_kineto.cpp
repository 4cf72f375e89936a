// SPDX-License-Identifier: MIT
// Kineto device trace loader, then everything batch mode does with a device
// trace: sync edges, critical path, link against a small host ET, ET+.
#include "fuzzinput.h"

#include "export/etpluswriter.h"
#include "session/analysis.h"

using namespace syncscope;

extern "C" int SYNCSCOPE_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    fuzz::MemFile device(data, size);
    AnalysisRequest req;
    req.hostPath = SYNCSCOPE_PAIR_DIR "/host.0.json";
    req.devicePath = device.path();
    req.keepRawEvents = true; // the GUI's path through the loader
    const auto a = runAnalysis(req);
    if (a->inputsOk && a->link)
        (void)etPlusToString(*a->host, *a->device, *a->link);
    return 0;
}
