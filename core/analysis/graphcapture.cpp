// SPDX-License-Identifier: MIT
#include "graphcapture.h"

#include "syncinfer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

namespace syncscope {

namespace {

bool isCaptureBegin(std::string_view api)
{
    return api == "cudaStreamBeginCapture" || api == "hipStreamBeginCapture" || api == "cuStreamBeginCapture" ||
           api == "cudaStreamBeginCaptureToGraph" || api == "hipStreamBeginCaptureToGraph";
}

bool isCaptureEnd(std::string_view api)
{
    return api == "cudaStreamEndCapture" || api == "hipStreamEndCapture" || api == "cuStreamEndCapture";
}

// What a replayed op can have been captured from: a kernel launch, an async copy or a memset.
bool capturedLaunch(RuntimeApi api)
{
    return api == RuntimeApi::KernelLaunch || api == RuntimeApi::CopyAsync || api == RuntimeApi::Memset;
}

// One raw event's args (empty when the trace kept no raw text or it does not parse).
nlohmann::json rawArgs(const KinetoTrace &t, size_t i)
{
    const std::string_view raw = t.rawEvent(i);
    if (raw.empty())
        return {};
    try {
        const nlohmann::json j = nlohmann::json::parse(raw);
        const auto a = j.find("args");
        return a != j.end() && a->is_object() ? *a : nlohmann::json();
    } catch (const std::exception &) {
        return {};
    }
}

struct Window {
    std::vector<uint32_t> launches; // launch calls in ts order
    std::vector<std::string> kernels; // the names the rows give, "" unknown
    bool used = false;
};

struct ThreadKey {
    int64_t pid, tid;
    bool operator<(const ThreadKey &o) const { return pid != o.pid ? pid < o.pid : tid < o.tid; }
};
ThreadKey threadOf(const KinetoEvent &e) { return {e.pid, e.tid}; }

// Capture windows: per thread, the launches between a begin-capture and the end-capture call.
std::vector<Window> captureWindows(const KinetoTrace &t)
{
    std::vector<uint32_t> calls;
    for (uint32_t i = 0; i < t.events.size(); ++i)
        if ((t.events[i].kind == EventKind::Runtime || t.events[i].kind == EventKind::Driver) && t.events[i].ph == 'X')
            calls.push_back(i);
    std::stable_sort(calls.begin(), calls.end(), [&](uint32_t a, uint32_t b) { return t.events[a].ts < t.events[b].ts; });
    std::map<ThreadKey, Window> open;
    std::vector<Window> out;
    RuntimeApiTable apis(t);
    for (uint32_t i : calls) {
        const KinetoEvent &e = t.events[i];
        const std::string_view api = runtimeBaseName(t.str(e.name));
        const ThreadKey k = threadOf(e);
        if (isCaptureBegin(api)) {
            open[k] = Window();
        } else if (isCaptureEnd(api)) {
            auto it = open.find(k);
            if (it != open.end()) {
                if (!it->second.launches.empty())
                    out.push_back(std::move(it->second));
                open.erase(it);
            }
        } else if (auto it = open.find(k); it != open.end() && capturedLaunch(apis.of(e.name))) {
            it->second.launches.push_back(i);
            const nlohmann::json args = rawArgs(t, i);
            const auto kernel = args.find("kernel");
            it->second.kernels.push_back(kernel != args.end() && kernel->is_string() ? kernel->get<std::string>() : "");
        }
    }
    return out;
}

// The python_function frames around each time on a thread, outermost first.
std::string pythonStackAt(const KinetoTrace &t, const std::vector<uint32_t> &frames, double ts)
{
    std::string s;
    for (uint32_t f : frames) {
        const KinetoEvent &e = t.events[f];
        if (e.ts > ts)
            break;
        if (e.ts + std::max(0.0, e.dur) >= ts)
            s += (s.empty() ? "" : " > ") + std::string(t.str(e.name));
    }
    return s;
}

} // namespace

GraphCaptureLink linkGraphCapture(const KinetoTrace &capture, const KinetoTrace &replay, Diagnostics &diag)
{
    GraphCaptureLink link;
    link.capturePath = capture.path;
    std::vector<Window> windows = captureWindows(capture);
    link.captures = windows.size();
    for (const Window &w : windows)
        link.capturedLaunches += w.launches.size();

    // The replay's graph launches and their ops.
    std::map<int64_t, uint32_t> graphLaunchOf; // correlation -> launch call
    RuntimeApiTable apis(replay);
    for (uint32_t i = 0; i < replay.events.size(); ++i) {
        const KinetoEvent &e = replay.events[i];
        if (e.has(KinetoEvent::HasCorrelation) && apis.of(e) == RuntimeApi::GraphLaunch)
            graphLaunchOf.emplace(e.correlation, i);
    }
    link.graphLaunches = graphLaunchOf.size();
    if (graphLaunchOf.empty()) {
        diag.warning("graph_capture.no_graph_launch",
                     replay.path + ": the trace replays no CUDA/HIP graph (no cudaGraphLaunch / hipGraphLaunch); " +
                         capture.path + " was not used",
                     replay.path);
        return link;
    }
    if (windows.empty()) {
        diag.warning("graph_capture.no_capture",
                     capture.path + ": no stream capture (cudaStreamBeginCapture .. EndCapture with launches) was "
                                    "recorded in it; the replayed ops keep no CPU op",
                     capture.path);
        return link;
    }
    std::map<int64_t, std::vector<uint32_t>> opsOf; // correlation -> its GPU ops
    for (uint32_t i = 0; i < replay.events.size(); ++i) {
        const KinetoEvent &e = replay.events[i];
        if (isGpuActivity(e.kind) && e.has(KinetoEvent::HasCorrelation) && graphLaunchOf.count(e.correlation))
            opsOf[e.correlation].push_back(i);
    }

    // The capture's ops by External id, its python frames by thread in start order.
    std::unordered_map<int64_t, uint32_t> opByExternal;
    std::map<ThreadKey, std::vector<uint32_t>> framesOf;
    for (uint32_t i = 0; i < capture.events.size(); ++i) {
        const KinetoEvent &e = capture.events[i];
        if (e.kind == EventKind::CpuOp && e.externalId >= 0)
            opByExternal.try_emplace(e.externalId, i);
        else if (e.kind == EventKind::PythonFunction && e.ph == 'X')
            framesOf[threadOf(e)].push_back(i);
    }
    for (auto &[k, frames] : framesOf)
        std::stable_sort(frames.begin(), frames.end(),
                         [&](uint32_t a, uint32_t b) { return capture.events[a].ts < capture.events[b].ts; });

    size_t unmatched = 0, refused = 0;
    for (auto &[corr, ops] : opsOf) {
        link.replayedOps += ops.size();
        // Start order: the replay's kernels run in the order they were captured on each
        // stream (the trace model keeps no "graph node id"; see docs/graph_capture.md).
        std::stable_sort(ops.begin(), ops.end(),
                         [&](uint32_t a, uint32_t b) { return replay.events[a].ts < replay.events[b].ts; });
        // The unused window of the same size whose named kernels agree best.
        int best = -1;
        size_t bestMismatch = 0;
        for (size_t w = 0; w < windows.size(); ++w) {
            if (windows[w].launches.size() != ops.size())
                continue;
            size_t mismatch = 0;
            for (size_t k = 0; k < ops.size(); ++k)
                mismatch += !windows[w].kernels[k].empty() && windows[w].kernels[k] != replay.str(replay.events[ops[k]].name);
            if (best < 0 || mismatch < bestMismatch || (mismatch == bestMismatch && windows[best].used && !windows[w].used)) {
                best = static_cast<int>(w);
                bestMismatch = mismatch;
            }
        }
        if (best < 0 || bestMismatch * 10 > ops.size()) {
            unmatched += ops.size();
            refused += best >= 0 ? 1 : 0;
            continue;
        }
        Window &w = windows[static_cast<size_t>(best)];
        w.used = true;
        link.nameMismatches += bestMismatch;
        link.verified += static_cast<size_t>(std::count_if(w.kernels.begin(), w.kernels.end(),
                                                           [](const std::string &k) { return !k.empty(); })) -
                         bestMismatch;
        for (size_t k = 0; k < ops.size(); ++k) {
            CapturedOrigin o;
            o.launch = w.launches[k];
            o.kernel = w.kernels[k];
            const KinetoEvent &l = capture.events[o.launch];
            if (const auto op = opByExternal.find(l.externalId); l.externalId >= 0 && op != opByExternal.end()) {
                o.op = static_cast<int32_t>(op->second);
                o.opName = std::string(capture.str(capture.events[op->second].name));
                const nlohmann::json args = rawArgs(capture, op->second);
                if (const auto dims = args.find("Input Dims"); dims != args.end())
                    o.inputDims = dims->dump();
            }
            if (const auto frames = framesOf.find(threadOf(l)); frames != framesOf.end())
                o.pythonStack = pythonStackAt(capture, frames->second, l.ts);
            link.originOf.emplace(ops[k], static_cast<uint32_t>(link.origins.size()));
            link.origins.push_back(std::move(o));
        }
        link.matched += ops.size();
    }
    link.method = "launch order";
    if (link.matched > 0)
        diag.info("graph_capture.linked",
                  replay.path + ": " + std::to_string(link.matched) + " of " + std::to_string(link.replayedOps) +
                      " replayed graph ops took the CPU op, input shapes and Python stack of their launch in " +
                      capture.path + " (matched by " + link.method + "; " + std::to_string(link.verified) +
                      " of them name the same kernel there" +
                      (link.verified == 0 ? ", the capture's launch rows name none: unverified" : "") + ")",
                  replay.path);
    if (unmatched > 0)
        diag.warning("graph_capture.unmatched",
                     replay.path + ": " + std::to_string(unmatched) + " replayed graph ops have no captured launch in " +
                         capture.path + " (" +
                         (refused > 0 ? "the launches of a capture of their size name other kernels"
                                      : "no capture window holds as many launches as their graph launch replays") +
                         "); they keep no CPU op",
                     replay.path);
    return link;
}

bool replaysGraphs(const KinetoTrace &trace)
{
    RuntimeApiTable apis(trace);
    for (const KinetoEvent &e : trace.events)
        if (apis.of(e) == RuntimeApi::GraphLaunch)
            return true;
    return false;
}

std::string findGraphCaptureBeside(const std::string &replayPath)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path replay(replayPath);
    const fs::path dir = replay.has_parent_path() ? replay.parent_path() : fs::path(".");
    std::vector<std::string> found;
    for (const auto &entry : fs::directory_iterator(dir, ec)) {
        if (!entry.is_regular_file(ec) || fs::equivalent(entry.path(), replay, ec))
            continue;
        std::string name = entry.path().filename().string();
        std::string lower = name;
        for (char &c : lower)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const bool json = lower.size() > 5 && (lower.ends_with(".json") || lower.ends_with(".json.gz"));
        if (json && lower.find("capture") != std::string::npos)
            found.push_back(entry.path().string());
    }
    std::sort(found.begin(), found.end());
    return found.size() == 1 ? found.front() : std::string(); // two candidates: none is guessed
}

} // namespace syncscope
