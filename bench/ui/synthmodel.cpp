// SPDX-License-Identifier: MIT
#include "synthmodel.h"

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace uibench {

using namespace syncscope::ui;

namespace {

struct Gen {
    std::mt19937_64 rng;
    std::vector<LayoutItem> items;
    std::vector<int64_t> streamFree;
    std::vector<TimelineEdge> launches;
    int cpuThreads = 0;

    int64_t uniform(int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); }

    // An op [start, start + dur) on `thread` at `depth`; children tile part of it.
    void op(uint32_t thread, int depth, int64_t start, int64_t dur)
    {
        LayoutItem it;
        it.startNs = start;
        it.durNs = dur;
        it.event = static_cast<uint32_t>(items.size());
        it.track = thread;
        it.category = depth == 0 ? Category::CpuOp : Category::CpuOp;
        const bool leaf = depth >= 3 || dur < 4000;
        if (leaf && depth > 0) {
            it.category = Category::Runtime; // a launch
            items.push_back(it);
            const uint32_t stream = static_cast<uint32_t>(uniform(0, int64_t(streamFree.size()) - 1));
            const int64_t kStart = std::max(start + 3000, streamFree[stream]) + uniform(0, 2000);
            const int64_t kDur = uniform(1000, 10000); // the GPUs keep up: launch queues stay short
            streamFree[stream] = kStart + kDur;
            LayoutItem k;
            k.startNs = kStart;
            k.durNs = kDur;
            k.event = static_cast<uint32_t>(items.size());
            k.track = static_cast<uint32_t>(cpuThreads) + stream;
            k.band = 1;
            k.category = uniform(0, 9) == 0 ? Category::Communication : Category::Kernel;
            items.push_back(k);
            TimelineEdge e;
            e.kind = EdgeKind::Launch;
            e.from = it.event;
            e.to = k.event;
            e.fromNs = double(start);
            e.toNs = double(kStart);
            launches.push_back(e);
            return;
        }
        items.push_back(it);
        if (leaf)
            return;
        // Up to four children, with gaps between them.
        const int n = static_cast<int>(uniform(1, 4));
        int64_t t = start + dur / 20;
        const int64_t slot = (dur - dur / 10) / n;
        for (int c = 0; c < n && slot > 1000; ++c) {
            const int64_t d = slot * uniform(50, 90) / 100;
            op(thread, depth + 1, t, d);
            t += slot;
        }
    }
};

} // namespace

std::shared_ptr<TimelineModel> synthModel(const SynthOptions &o)
{
    Gen g;
    g.rng.seed(o.seed);
    g.cpuThreads = o.cpuThreads;
    g.streamFree.assign(static_cast<size_t>(o.gpuStreams), 0);
    g.items.reserve(o.events + 64);
    std::vector<int64_t> threadTime(static_cast<size_t>(o.cpuThreads), 0);
    while (g.items.size() < o.events) {
        // The thread that is furthest behind runs its next top-level op.
        const auto it = std::min_element(threadTime.begin(), threadTime.end());
        const uint32_t thread = static_cast<uint32_t>(it - threadTime.begin());
        const int64_t dur = g.uniform(20'000, 400'000);
        g.op(thread, 0, *it, dur);
        *it += dur + g.uniform(500, 20'000);
    }
    std::vector<TrackInfo> tracks;
    for (int t = 0; t < o.cpuThreads; ++t)
        tracks.push_back({"thread " + std::to_string(t), "python3 (pid 1)", false});
    for (int s = 0; s < o.gpuStreams; ++s)
        tracks.push_back({"stream " + std::to_string(7 + s), "GPU 0", true});
    auto model = std::make_shared<TimelineModel>();
    const size_t n = g.items.size();
    model->layout = buildLaneLayout(std::move(g.items), tracks, n);
    for (const TimelineEdge &e : g.launches)
        model->edges.add(e);
    g.launches = {};
    model->edges.finish();
    return model;
}

} // namespace uibench
