// SPDX-License-Identifier: MIT
#include "stepwindow.h"

#include <charconv>

namespace syncscope {

using ojson = nlohmann::ordered_json;

namespace {

std::string eventName(const KinetoTrace &trace, int64_t event)
{
    if (event < 0 || static_cast<size_t>(event) >= trace.events.size())
        return {};
    return std::string(trace.str(trace.events[static_cast<size_t>(event)].name));
}

// The index among profilerStepEvents() of the first step named ProfilerStep#n, -1 none.
int stepIndex(const KinetoTrace &trace, const std::vector<uint32_t> &steps, int64_t n)
{
    for (size_t k = 0; k < steps.size(); ++k)
        if (profilerStepNumber(trace.str(trace.events[steps[k]].name)) == n)
            return static_cast<int>(k);
    return -1;
}

CriticalPathResult stepNotFound(const KinetoTrace &trace, const AnalysisRequest &request, size_t stepCount,
                                std::string why, Diagnostics &diag)
{
    CriticalPathResult out;
    out.window.profilerSteps = true;
    out.window.instanceCount = static_cast<int>(stepCount);
    std::string asked = std::to_string(request.stepFirst);
    if (request.stepLast >= 0 && request.stepLast != request.stepFirst)
        asked.append(",").append(std::to_string(request.stepLast)); // (gcc 12's -Wrestrict misfires on "," + string&&)
    out.reason = "--step " + asked + ": " + why + "; the steps are " + stepNamesText(trace);
    diag.error("cpa.step_not_found", trace.path + ": " + out.reason, trace.path);
    return out;
}

} // namespace

int64_t profilerStepNumber(std::string_view name)
{
    constexpr std::string_view prefix = "ProfilerStep#";
    if (name.substr(0, prefix.size()) != prefix || name.size() == prefix.size())
        return -1;
    int64_t n = -1;
    const char *end = name.data() + name.size();
    const auto [ptr, ec] = std::from_chars(name.data() + prefix.size(), end, n);
    return ec == std::errc() && ptr == end && n >= 0 ? n : -1;
}

bool defaultKeepsHtaWindow(const AnalysisRequest &r)
{
    return isHtaExact(r.cpa) || r.mode == LinkMode::Chakra || r.cpa.annotation != "ProfilerStep" ||
           r.cpa.instanceFirst != 0 || r.cpa.instanceLast != 0;
}

WindowKind requestedWindowKind(const AnalysisRequest &r)
{
    if (r.window != WindowKind::Default)
        return r.window;
    return defaultKeepsHtaWindow(r) ? WindowKind::HtaInstance : WindowKind::Step;
}

const char *windowKindName(WindowKind kind)
{
    return kind == WindowKind::HtaInstance ? "hta_instance" : "step";
}

std::string stepNamesText(const KinetoTrace &trace, size_t limit)
{
    const std::vector<uint32_t> steps = profilerStepEvents(trace);
    if (steps.empty())
        return "none (the trace has no ProfilerStep#N annotation)";
    std::string s;
    for (size_t k = 0; k < steps.size() && k < limit; ++k)
        s += (k ? ", " : "") + eventName(trace, steps[k]);
    if (steps.size() > limit)
        s += ", ... (" + std::to_string(steps.size()) + " in all)";
    return s;
}

CriticalPathResult analyzeRequestedWindow(const KinetoTrace &trace, const AnalysisRequest &request,
                                          const CriticalPathOptions &cpa, Diagnostics &diag, WindowKind &used)
{
    const std::vector<uint32_t> steps = profilerStepEvents(trace);
    used = requestedWindowKind(request);
    // The default on a trace without steps stays what it was: HTA's window, which is
    // the whole trace when no event name contains ProfilerStep.
    if (used == WindowKind::Step && steps.empty() && request.stepFirst < 0)
        used = WindowKind::HtaInstance;
    if (used == WindowKind::HtaInstance)
        return analyzeCriticalPath(trace, cpa, diag);
    int first = 0, last = 0; // the first step in time, unless numbers were given
    if (request.stepFirst >= 0) {
        const int64_t lastNumber = request.stepLast >= 0 ? request.stepLast : request.stepFirst;
        first = stepIndex(trace, steps, request.stepFirst);
        last = stepIndex(trace, steps, lastNumber);
        if (first < 0 || last < 0)
            return stepNotFound(trace, request, steps.size(),
                                "the trace has no ProfilerStep#" + std::to_string(first < 0 ? request.stepFirst : lastNumber),
                                diag);
        if (last < first)
            return stepNotFound(trace, request, steps.size(),
                                "ProfilerStep#" + std::to_string(lastNumber) + " comes before ProfilerStep#" +
                                    std::to_string(request.stepFirst),
                                diag);
    }
    return analyzeSteps(trace, cpa, first, last, diag);
}

ojson windowJson(const Analysis &a)
{
    if (!a.criticalPath || !a.device)
        return nullptr;
    const KinetoTrace &t = *a.device;
    const CpWindow &w = a.criticalPath->window;
    ojson j;
    const bool step = a.window == WindowKind::Step;
    j["kind"] = w.wholeTrace ? "whole_trace" : windowKindName(a.window);
    j["default"] = a.windowByDefault;
    auto numberOrNull = [](int64_t n) { return n >= 0 ? ojson(n) : ojson(nullptr); };
    if (w.wholeTrace) {
        j["reason"] = a.request.cpa.annotation.empty()
                          ? std::string("annotation \"\"")
                          : "no event name contains \"" + a.request.cpa.annotation + "\"";
        return j;
    }
    if (step && !a.criticalPath->success && w.firstEvent < 0) { // a --step the trace lacks
        j["step"] = numberOrNull(a.request.stepFirst);
        if (a.request.stepLast >= 0 && a.request.stepLast != a.request.stepFirst)
            j["step_last"] = a.request.stepLast;
        return j;
    }
    if (step) {
        const std::vector<uint32_t> steps = profilerStepEvents(t);
        auto nameAt = [&](int k) {
            return k >= 0 && static_cast<size_t>(k) < steps.size() ? eventName(t, steps[static_cast<size_t>(k)])
                                                                    : std::string();
        };
        j["step"] = numberOrNull(profilerStepNumber(nameAt(w.instanceFirst)));
        j["index"] = w.instanceFirst; // position among the steps in time, as steps[].step
        j["name"] = nameAt(w.instanceFirst);
        if (w.instanceLast != w.instanceFirst) {
            j["step_last"] = numberOrNull(profilerStepNumber(nameAt(w.instanceLast)));
            j["index_last"] = w.instanceLast;
            j["name_last"] = nameAt(w.instanceLast);
        }
    } else {
        j["annotation"] = a.request.cpa.annotation;
        j["instance"] = w.instanceFirst;
        if (w.instanceLast != w.instanceFirst)
            j["instance_last"] = w.instanceLast;
        const std::string row = eventName(t, w.firstEvent);
        const bool gpuCopy = w.firstEvent >= 0 && static_cast<size_t>(w.firstEvent) < t.events.size() &&
                             t.events[static_cast<size_t>(w.firstEvent)].kind == EventKind::GpuUserAnnotation;
        j["name"] = gpuCopy ? row + " (GPU copy)" : row;
        const bool cpuStep = w.firstEvent >= 0 && static_cast<size_t>(w.firstEvent) < t.events.size() &&
                             t.events[static_cast<size_t>(w.firstEvent)].kind == EventKind::UserAnnotation;
        j["step"] = numberOrNull(cpuStep ? profilerStepNumber(row) : -1);
    }
    if (a.criticalPath->success) {
        j["start_us"] = w.startAbsUs;
        j["duration_us"] = w.endUs - w.startUs;
    }
    return j;
}

std::string windowText(const Analysis &a)
{
    if (!a.criticalPath || !a.device)
        return {};
    const KinetoTrace &t = *a.device;
    const CpWindow &w = a.criticalPath->window;
    if (w.wholeTrace)
        return "whole trace";
    if (a.window == WindowKind::Step) {
        const std::vector<uint32_t> steps = profilerStepEvents(t);
        auto nameAt = [&](int k) {
            return k >= 0 && static_cast<size_t>(k) < steps.size() ? eventName(t, steps[static_cast<size_t>(k)])
                                                                    : std::string("?");
        };
        const int64_t first = profilerStepNumber(nameAt(w.instanceFirst));
        const int64_t last = profilerStepNumber(nameAt(w.instanceLast));
        std::string s = nameAt(w.instanceFirst);
        std::string option = first >= 0 ? std::string("--step ").append(std::to_string(first)) : std::string("the first step");
        if (w.instanceLast != w.instanceFirst) {
            s += " .. " + nameAt(w.instanceLast);
            if (first >= 0 && last >= 0)
                option.append(",").append(std::to_string(last));
        }
        return s + (w.instanceLast != w.instanceFirst ? ", whole steps, " : ", whole step, ") +
               (a.windowByDefault ? "default " : "") + option;
    }
    std::string s = "\"" + a.request.cpa.annotation + "\" HTA instance " + std::to_string(w.instanceFirst);
    if (w.firstEvent >= 0 && static_cast<size_t>(w.firstEvent) < t.events.size()) {
        s += " = " + eventName(t, w.firstEvent);
        if (t.events[static_cast<size_t>(w.firstEvent)].kind == EventKind::GpuUserAnnotation)
            s += " (GPU copy)";
    }
    return s;
}

} // namespace syncscope
