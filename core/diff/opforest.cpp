// SPDX-License-Identifier: MIT
#include "opforest.h"

#include "analysis/criticalpath.h"

#include <algorithm>
#include <map>

namespace syncscope {

uint32_t PathTable::intern(const std::string &path)
{
    auto [it, added] = m_ids.try_emplace(path, static_cast<uint32_t>(m_paths.size()));
    if (added) {
        m_paths.push_back(path);
        const auto sep = path.rfind(" > ");
        m_leaves.push_back(sep == std::string::npos ? path : path.substr(sep + 3));
    }
    return it->second;
}

uint32_t OpForest::callerPath(uint32_t runtimeEvent) const
{
    auto it = runtimeParent.find(runtimeEvent);
    return it == runtimeParent.end() || it->second < 0 ? kNoPath : pathId[it->second];
}

uint32_t OpForest::launchPath(const KinetoTrace &trace, uint32_t gpuEvent) const
{
    const KinetoEvent &e = trace.events[gpuEvent];
    if (e.correlation < 0)
        return kNoPath;
    auto it = runtimeByCorrelation.find(e.correlation);
    return it == runtimeByCorrelation.end() ? kNoPath : callerPath(it->second);
}

namespace {

bool isOp(const KinetoEvent &e)
{
    return isCpuSideOp(e.kind) && e.ph == 'X';
}

// "ProfilerStep#12" -> "ProfilerStep": the step number differs between runs.
std::string pathName(const KinetoTrace &trace, const KinetoEvent &e)
{
    const std::string_view name = trace.str(e.name);
    if (e.kind == EventKind::UserAnnotation && name.rfind("ProfilerStep#", 0) == 0)
        return "ProfilerStep";
    return std::string(name);
}

} // namespace

OpForest buildOpForest(const KinetoTrace &trace, PathTable &paths)
{
    OpForest f;
    f.stepEvents = profilerStepEvents(trace);
    // Events per thread, with the thread's first op time (thread ordinals).
    std::map<std::pair<int64_t, int64_t>, std::vector<uint32_t>> threads;
    for (uint32_t i = 0; i < trace.events.size(); ++i) {
        const KinetoEvent &e = trace.events[i];
        if (isOp(e) || (e.kind == EventKind::Runtime && e.ph == 'X'))
            threads[{e.pid, e.tid}].push_back(i);
        if (e.kind == EventKind::Runtime && e.correlation >= 0)
            f.runtimeByCorrelation.emplace(e.correlation, i);
    }
    struct ThreadEvents {
        int64_t firstNs;
        std::pair<int64_t, int64_t> key;
        std::vector<uint32_t> *events;
    };
    std::vector<ThreadEvents> order;
    for (auto &[key, events] : threads) {
        std::sort(events.begin(), events.end(), [&](uint32_t a, uint32_t b) {
            const KinetoEvent &x = trace.events[a], &y = trace.events[b];
            if (x.tsNs != y.tsNs)
                return x.tsNs < y.tsNs;
            if (x.durNs != y.durNs)
                return x.durNs > y.durNs; // the enclosing op first
            const bool rx = x.kind == EventKind::Runtime, ry = y.kind == EventKind::Runtime;
            if (rx != ry)
                return ry; // ops before runtime calls
            return a < b;
        });
        int64_t first = INT64_MAX;
        for (uint32_t i : events)
            if (isOp(trace.events[i])) {
                first = trace.events[i].tsNs;
                break;
            }
        if (first != INT64_MAX)
            order.push_back({first, key, &events});
    }
    std::sort(order.begin(), order.end(), [](const ThreadEvents &a, const ThreadEvents &b) {
        return a.firstNs != b.firstNs ? a.firstNs < b.firstNs : a.key < b.key;
    });

    std::unordered_map<uint64_t, uint32_t> childPath; // (parent path, name id) -> path
    std::vector<int64_t> stepStarts;
    for (uint32_t s : f.stepEvents)
        stepStarts.push_back(trace.events[s].tsNs);
    std::map<std::pair<int, int>, std::vector<uint32_t>> groups;
    for (size_t t = 0; t < order.size(); ++t) {
        std::vector<int32_t> stack; // open nodes
        for (uint32_t i : *order[t].events) {
            const KinetoEvent &e = trace.events[i];
            while (!stack.empty() && trace.events[f.event[stack.back()]].endNs() <= e.tsNs)
                stack.pop_back();
            const int32_t parent = stack.empty() ? -1 : stack.back();
            if (!isOp(e)) {
                f.runtimeParent.emplace(i, parent);
                continue;
            }
            const uint32_t parentPath = parent < 0 ? kNoPath : f.pathId[parent];
            const uint64_t key = (uint64_t(parentPath) << 32) | e.name;
            auto it = childPath.find(key);
            if (it == childPath.end()) {
                const std::string name = pathName(trace, e);
                const uint32_t id = paths.intern(parent < 0 ? name : paths.path(parentPath) + " > " + name);
                it = childPath.emplace(key, id).first;
            }
            const int32_t node = static_cast<int32_t>(f.event.size());
            f.event.push_back(i);
            f.parent.push_back(parent);
            f.pathId.push_back(it->second);
            f.selfUs.push_back(e.dur);
            if (parent >= 0)
                f.selfUs[parent] -= e.dur;
            else {
                const int step = static_cast<int>(std::upper_bound(stepStarts.begin(), stepStarts.end(), e.tsNs) -
                                                  stepStarts.begin()) - 1;
                groups[{step, static_cast<int>(t)}].push_back(static_cast<uint32_t>(node));
            }
            stack.push_back(node);
        }
    }
    for (double &s : f.selfUs)
        s = std::max(0.0, s);
    // Children lists (CSR); nodes were created in ts order per thread.
    const size_t n = f.event.size();
    f.childBegin.assign(n + 1, 0);
    for (size_t i = 0; i < n; ++i)
        if (f.parent[i] >= 0)
            ++f.childBegin[f.parent[i] + 1];
    for (size_t i = 0; i < n; ++i)
        f.childBegin[i + 1] += f.childBegin[i];
    f.childIds.resize(f.childBegin[n]);
    std::vector<uint32_t> fill(f.childBegin.begin(), f.childBegin.end() - 1);
    for (size_t i = 0; i < n; ++i)
        if (f.parent[i] >= 0)
            f.childIds[fill[f.parent[i]]++] = static_cast<uint32_t>(i);
    for (auto &[key, roots] : groups)
        f.groups.push_back({key.first, key.second, std::move(roots)});
    return f;
}

} // namespace syncscope
