// SPDX-License-Identifier: MIT
// CPU<->GPU and GPU<->GPU synchronisation edges inferred from Kineto's cuda_sync
// rows with HTA's rules (critical_path_spec.md 2.7): Context Sync, Stream Sync,
// Event Sync (cudaEventSynchronize and cudaEventQuery) and Stream Wait Event,
// where an awaited cudaEventRecord stands for the last work launched onto the
// recorded stream before it (HTA #117). The same sweep drives the critical-path
// GPU pass; this header is the whole-trace entry point for the linker and GUI.
#pragma once

#include "model/diagnostics.h"
#include "model/kinetotrace.h"

#include <array>
#include <cstdint>
#include <vector>

namespace syncscope {

// BlockingCopy: a device-to-host or pageable copy (cudaMemcpy, cudaMemcpyAsync DtoH, ...)
// whose runtime call returned only after its own copy ended. Kineto writes no
// cuda_sync row for it, so its edges are always inferred.
enum class SyncKind : uint8_t { StreamSync, EventSync, ContextSync, StreamWaitEvent, BlockingCopy };
constexpr int kSyncKindCount = 5;

// Kineto's cuda_sync row name for the kind: "Stream Sync", "Event Sync", ...
// ("Blocking Copy" for the kind Kineto has no row for).
const char *syncKindName(SyncKind k);

// One inferred dependency. All indices are positions in traceEvents.
//  src       = the GPU activity (kernel, memcpy, memset) that was waited for;
//  dst       = the CPU runtime call that waited (GPU->CPU: cudaStreamSynchronize,
//              cudaDeviceSynchronize, cudaEventSynchronize, cudaEventQuery), or the
//              first activity launched onto the waiting stream (GPU->GPU, cudaStreamWaitEvent);
//  syncEvent = the cuda_sync row the edge comes from; for an inferred edge the
//              runtime call that shows the wait (the blocking call, or the
//              cudaStreamWaitEvent / cudaEventRecord behind a GPU->GPU wait).
// inferred: false = from a cuda_sync row (HTA's rules), true = inferred from
// the runtime calls and GPU timing (syncinfer.h; never with --hta-exact).
// waitUs is how long the waiter sat idle because of this edge, in µs:
//  GPU->CPU: from the start of the runtime call until the awaited activity ended,
//            clamped to the call: clamp(end(src) - ts(dst), 0, dur(dst));
//  GPU->GPU: the part of the gap before dst during which dst could otherwise have
//            run: max(0, min(end(src), ts(dst)) - ready) where ready = the later of
//            the start of dst's launching runtime call and the end of the previous
//            activity on dst's stream (0 when neither is known).
struct SyncEdge {
    uint32_t src = 0;
    uint32_t dst = 0;
    uint32_t syncEvent = 0;
    SyncKind kind = SyncKind::StreamSync;
    bool gpuToGpu = false;
    bool inferred = false;
    double waitUs = 0;
};

// Per kind: edges, distinct sync calls, and idle time. A call with several
// edges (Context Sync over many streams) counts its largest wait once.
struct SyncKindTotals {
    size_t edges = 0;
    size_t calls = 0;
    double waitUs = 0;
    size_t recorded = 0; // edges from cuda_sync rows
    size_t inferred = 0; // edges inferred from runtime calls
};
struct SyncWaitTotals {
    std::array<SyncKindTotals, kSyncKindCount> byKind{};
    double totalWaitUs() const;
    size_t inferredEdges() const;
};

// Stream Wait Event and Event Sync rows that do not name the event record they
// wait on (-1 or absent): no recorded edge can come from them, so their calls
// are inferred like calls without a row.
size_t unresolvedCudaSyncRows(const KinetoTrace &trace);

struct SyncOptions {
    // HTA f4d0062 exactly: cuda_sync rows only, nothing inferred.
    bool htaExact = false;
};

// All sync edges of the trace: first those of the cuda_sync rows, ordered by sync
// handling order (the sweep of 2.7.3 over the whole trace: no window, no
// last-step filter, no ns rounding), then (unless options.htaExact) the inferred
// ones of syncinfer.h, by destination. Streams are told apart by (device pid,
// stream) here, and a Context Sync only covers the streams of its own device;
// HTA's CPA keys by stream number only. Adds kineto.no_cuda_sync when the trace
// has no cuda_sync rows, and sync.inferred when edges were inferred.
std::vector<SyncEdge> findAllSyncEdges(const KinetoTrace &trace, Diagnostics &diag,
                                       const SyncOptions &options = SyncOptions());

// Only the edges of the cuda_sync rows (HTA's rules), as above; no diagnostic
// about missing rows. everyWait: every Stream Wait Event of a kernel (a join of
// several streams) is an edge, each charged the delay beyond the ones that ended
// before it; false: HTA's last one only.
std::vector<SyncEdge> findRecordedSyncEdges(const KinetoTrace &trace, Diagnostics &diag, bool everyWait = true);

// Sums the waits per kind.
SyncWaitTotals syncWaitTotals(const std::vector<SyncEdge> &edges);

// True when the trace has cuda_sync rows.
bool hasCudaSyncRows(const KinetoTrace &trace);
// True when the trace has cuda_sync rows; otherwise adds the Warning
// kineto.no_cuda_sync saying how to record them (and, unless htaExact, that the
// edges are inferred), and returns false.
bool checkCudaSyncPresent(const KinetoTrace &trace, Diagnostics &diag, bool htaExact = false);

} // namespace syncscope
