// SPDX-License-Identifier: MIT
#include "uitestutil.h"

#include "parse/traceloader.h"
#include "testutil.h"

#include <QTest>

namespace uitest {

std::string sampleHost()
{
    return std::string(SYNCSCOPE_SAMPLE_DIR) + "/sample.et.json.gz";
}

std::string sampleDevice()
{
    return std::string(SYNCSCOPE_SAMPLE_DIR) + "/sample.kineto.json.gz";
}

std::shared_ptr<syncscope::Analysis> sampleAnalysis()
{
    syncscope::AnalysisRequest req;
    req.hostPath = sampleHost();
    req.devicePath = sampleDevice();
    req.keepRawEvents = true;
    return syncscope::runAnalysis(req);
}

std::shared_ptr<const syncscope::KinetoTrace> loadKineto(const std::string &json)
{
    const std::string path = testutil::tempDir() + "/trace.kineto.json";
    testutil::writeText(path, json);
    syncscope::Diagnostics diag;
    syncscope::LoadOptions opts;
    opts.keepRawEvents = true;
    syncscope::LoadedTrace t = syncscope::loadTrace(path, diag, opts);
    return t.device;
}

} // namespace uitest
