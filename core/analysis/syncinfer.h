// SPDX-License-Identifier: MIT
// CPU<->GPU and GPU<->GPU waits inferred from the runtime calls and the GPU
// timing of a trace recorded without cuda_sync rows (torch.profiler's default),
// or for the calls Kineto writes no row for (blocking copies). The rules and
// their measured recall/precision: docs/sync_inference.md. Background:
// shared/docs/sync_as_recorded.md (what the CUDA runtime guarantees about when
// its calls return).
#pragma once

#include "syncedges.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace syncscope {

// What a CUDA runtime / driver or HIP call does, from its name. Version and
// per-thread-stream suffixes (_v7000, _ptsz, _ptds) are ignored.
enum class RuntimeApi : uint8_t {
    Other,
    KernelLaunch,    // cudaLaunchKernel, cuLaunchKernelEx, hipModuleLaunchKernel, hipExtLaunchKernel, ...
    GraphLaunch,     // cudaGraphLaunch, cuGraphLaunch, hipGraphLaunch: one correlation, many GPU ops
    Copy,            // cudaMemcpy, hipMemcpy, cudaMemcpy2D, ...: synchronous w.r.t. the host
    CopyAsync,       // cudaMemcpyAsync, hipMemcpyAsync, hipMemcpyWithStream, ...
    Memset,          // cudaMemset*, hipMemset*, cuMemset*
    StreamSync,      // cudaStreamSynchronize, cuStreamSynchronize, hipStreamSynchronize
    DeviceSync,      // cudaDeviceSynchronize, cuCtxSynchronize, hipDeviceSynchronize
    EventSync,       // cudaEventSynchronize, cuEventSynchronize, hipEventSynchronize
    EventQuery,      // cudaEventQuery, hipEventQuery (does not block)
    EventRecord,     // cudaEventRecord(WithFlags), cuEventRecord, hipEventRecord
    StreamWaitEvent, // cudaStreamWaitEvent, cuStreamWaitEvent, hipStreamWaitEvent
};
RuntimeApi classifyRuntimeApi(std::string_view name);

// classifyRuntimeApi by name id, each name classified once, on first use: a trace has
// hundreds of thousands of runtime rows and a few dozen names.
class RuntimeApiTable
{
public:
    explicit RuntimeApiTable(const KinetoTrace &trace)
        : m_trace(&trace), m_api(trace.strings.size(), RuntimeApi::Other), m_known(trace.strings.size(), 0)
    {
    }
    RuntimeApi of(StrId name)
    {
        if (name >= m_api.size())
            return RuntimeApi::Other;
        if (!m_known[name]) {
            m_api[name] = classifyRuntimeApi(m_trace->strings.view(name));
            m_known[name] = 1;
        }
        return m_api[name];
    }
    // A runtime or driver call's API; Other for every other event.
    RuntimeApi of(const KinetoEvent &e)
    {
        return e.kind == EventKind::Runtime || e.kind == EventKind::Driver ? of(e.name) : RuntimeApi::Other;
    }

private:
    const KinetoTrace *m_trace;
    std::vector<RuntimeApi> m_api;
    std::vector<uint8_t> m_known;
};
// The name without a trailing _v<digits>, _ptsz or _ptds.
std::string_view runtimeBaseName(std::string_view name);

// Whether a GPU copy of this name (Kineto's gpu_memcpy row) makes an async copy
// call block the host: device-to-host, or to/from pageable host memory.
bool copyBlocksHost(std::string_view gpuCopyName);
// Device-to-device or peer copies never block the host.
bool copyIsDeviceToDevice(std::string_view gpuCopyName);

struct SyncInferenceOptions {
    // GPU->GPU: the waiting op starts at most this long after the awaited op ends (ROCm
    // resolves a cross-stream wait 10-15 us after the awaited op: MI300X DDP in tests/data/real).
    double streamWaitSlackUs = 20;
    // The ops of other streams a queued op's window examines, latest end first. A real
    // window holds a handful; a hostile trace of N ops ending together made the scan
    // N x N (40,000 kernels: 10 s, issue 40).
    size_t maxWaitCandidates = 256;
    // GPU->GPU: the waiting op was ready (launched, its stream idle) at least this
    // long before it started.
    double minQueuedUs = 5;
};

struct SyncInferenceStats {
    size_t blockingCopies = 0;     // copy calls that waited for their own copy
    size_t stagedCopies = 0;       // blocking-kind copies that returned before their copy ended
    size_t waitScansCut = 0;       // queued ops whose stream-wait window held more candidates than are examined
};

// Infers the waits that `recorded` (the edges of the cuda_sync rows) lacks:
//  GPU->CPU: a blocking call (stream/device/event synchronize, a synchronous or a
//            blocking async copy) -> the GPU op whose end explains its return;
//  GPU->GPU: a queued op that started right after an op on another stream ended,
//            with a stream wait / event record on its launching thread between the
//            two launches, or within one graph replay.
// Calls and GPU ops that already have a recorded edge get none. Edges are ordered
// by destination (event index), inferred = true.
std::vector<SyncEdge> inferSyncEdges(const KinetoTrace &trace, const std::vector<SyncEdge> &recorded,
                                     const SyncInferenceOptions &options = SyncInferenceOptions(),
                                     SyncInferenceStats *stats = nullptr);

} // namespace syncscope
