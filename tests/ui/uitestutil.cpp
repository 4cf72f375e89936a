// SPDX-License-Identifier: MIT
#include "uitestutil.h"

#include "parse/traceloader.h"
#include "testutil.h"
#include "tracebuilder.h"

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

std::string writeKineto(const std::string &json, const std::string &name)
{
    const std::string path = testutil::tempDir() + "/" + name + ".kineto.json";
    testutil::writeText(path, json);
    return path;
}

std::shared_ptr<syncscope::Analysis> analyseKineto(const std::string &json, bool htaExact)
{
    syncscope::AnalysisRequest req;
    req.devicePath = writeKineto(json, htaExact ? "analysed-exact" : "analysed");
    req.keepRawEvents = true;
    req.cpa.htaExact = htaExact;
    return syncscope::runAnalysis(req);
}

std::string inferredSyncTrace()
{
    return testutil::KinetoBuilder()
        .runtime("cudaLaunchKernel", 1, 100, 5, 1)                            // 0
        .kernel("a", 7, 106, 30, 1)                                           // 1
        .runtime("cudaStreamSynchronize", 1, 110, 29, 2)                      // 2
        .runtime("cudaLaunchKernel", 1, 150, 5, 3)                            // 3
        .kernel("gemm", 7, 156, 50, 3)                                        // 4
        .gpu("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 7, 206, 4, 4) // 5
        .runtime("cudaMemcpyAsync", 1, 160, 53, 4)                            // 6
        .runtime("cudaGraphLaunch", 1, 220, 10, 5)                            // 7
        .kernel("g0", 7, 232, 10, 5)                                          // 8
        .kernel("g1", 7, 242, 10, 5)                                          // 9
        .kernel("g2", 7, 252, 10, 5)                                          // 10
        .runtime("cudaLaunchKernel", 1, 300, 5, 6)                            // 11
        .kernel("k", 7, 306, 30, 6)                                           // 12
        .runtime("cudaStreamSynchronize", 1, 310, 29, 7)                      // 13
        .sync("Stream Sync", 7, 310, 29, 7)                                   // 14
        .json();
}

} // namespace uitest
