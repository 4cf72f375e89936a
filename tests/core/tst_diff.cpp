// SPDX-License-Identifier: MIT
// The run diff (core/diff): alignment, hand-built pairs with a known truth (an
// inserted op, a slower kernel, a removed sync), generated A/B pairs whose
// injected changes must come out on top, and the aggregates against a plain
// re-aggregation of each trace.
#include "testutil.h"
#include "tracebuilder.h"

#include "diff/align.h"
#include "diff/diffreport.h"
#include "diff/jobdiff.h"
#include "tracegen.h"

#include <QtTest>

#include <map>
#include <nlohmann/json.hpp>

using namespace syncscope;

class TestDiff : public QObject
{
    Q_OBJECT
private slots:
    void alignInsertionsAndRemovals();
    void alignLargeIsNearLinear();
    void insertedOp();
    void insertedOpOfAnExistingName();
    void slowerKernel();
    void removedSync();
    void identicalRunsHaveNoChanges();
    void generatedPairInjectedChangesOnTop();
    void aggregatesEqualPlainReaggregation();
    void windowNarrowsBothSides();
    void deterministic();
    void jobDiffMergesRanks();
};

namespace {

struct PairSpec {
    bool insertAdd = false;   // an extra aten::add (with its kernel) in step 0
    bool insertRelu = false;  // an extra aten::relu before the first one
    double gemmUs = 100;
    bool sync = true;         // aten::item with a cudaStreamSynchronize waiting for the gemm
};

// Step 0: linear (gemm kernel), [add], relu, [item + stream sync], relu; step 1: linear.
std::string kineto(const PairSpec &p)
{
    testutil::KinetoBuilder b;
    b.annotation("ProfilerStep#7", 1, 0, 1000);
    b.cpu("aten::linear", 1, 10, 100).runtime("cudaLaunchKernel", 1, 20, 5, 1).kernel("gemm", 7, 30, p.gemmUs, 1);
    if (p.insertAdd)
        b.cpu("aten::add", 1, 120, 20).runtime("cudaLaunchKernel", 1, 125, 5, 5).kernel("add_kernel", 7, 400, 5, 5);
    if (p.insertRelu)
        b.cpu("aten::relu", 1, 150, 20).runtime("cudaLaunchKernel", 1, 155, 5, 6).kernel("relu_kernel", 7, 420, 7, 6);
    b.cpu("aten::relu", 1, 200, 50).runtime("cudaLaunchKernel", 1, 210, 5, 2).kernel("relu_kernel", 7, 450, 10, 2);
    if (p.sync)
        b.cpu("aten::item", 1, 300, 400)
            .runtime("cudaStreamSynchronize", 1, 310, 380, 3)
            .sync("Stream Sync", 7, 310, 380, 3);
    b.cpu("aten::relu", 1, 750, 30).runtime("cudaLaunchKernel", 1, 760, 5, 4).kernel("relu_kernel", 7, 770, 10, 4);
    b.annotation("ProfilerStep#8", 1, 1000, 500);
    b.cpu("aten::linear", 1, 1010, 100).runtime("cudaLaunchKernel", 1, 1020, 5, 8).kernel("gemm", 7, 1030, 100, 8);
    return b.json();
}

std::shared_ptr<const Analysis> analyse(const std::string &dir, const std::string &name, const std::string &json)
{
    const std::string path = dir + "/" + name + ".kineto.json";
    testutil::writeText(path, json);
    AnalysisRequest r;
    r.devicePath = path;
    r.allSteps = true;
    r.cpa.annotation.clear(); // whole trace, as batch --diff does by default
    return runAnalysis(r);
}

std::unique_ptr<TraceDiff> diffPair(const PairSpec &a, const PairSpec &b)
{
    const std::string dir = testutil::tempDir();
    auto x = analyse(dir, "a", kineto(a));
    auto y = analyse(dir, "b", kineto(b));
    if (!x->inputsOk || !y->inputsOk)
        return nullptr;
    return diffRuns(x, y);
}

const OpDiff *op(const TraceDiff &d, const std::string &path)
{
    for (const auto &r : d.ops)
        if (d.paths.path(r.path) == path)
            return &r;
    return nullptr;
}

const GpuDiff *gpu(const std::vector<GpuDiff> &rows, const std::string &name)
{
    for (const auto &r : rows)
        if (r.name == name)
            return &r;
    return nullptr;
}

int64_t totalAdded(const TraceDiff &d)
{
    int64_t n = 0;
    for (const auto &r : d.ops)
        n += r.added;
    return n;
}

int64_t totalRemoved(const TraceDiff &d)
{
    int64_t n = 0;
    for (const auto &r : d.ops)
        n += r.removed;
    return n;
}

tracegen::Result generatePair(const std::string &prefix, uint64_t seed, int steps, const std::string &slow = {},
                              double scale = 1, bool extraSync = false)
{
    tracegen::Options o;
    o.prefix = prefix;
    o.steps = steps;
    o.layers = 4;
    o.seed = seed;
    o.slowKernel = slow;
    o.slowKernelScale = scale;
    o.extraSync = extraSync;
    return tracegen::generate(o);
}

std::shared_ptr<const Analysis> analysePair(const tracegen::Result &g)
{
    AnalysisRequest r;
    r.devicePath = g.devicePath;
    r.hostPath = g.hostPath;
    r.allSteps = true;
    r.cpa.annotation.clear();
    return runAnalysis(r);
}

} // namespace

void TestDiff::alignInsertionsAndRemovals()
{
    // a: 1 2 3 2 4 5 ; b: 1 9 2 3 2 2 5 (9 and one 2 inserted, 4 removed)
    const auto m = alignSequences({1, 2, 3, 2, 4, 5}, {1, 9, 2, 3, 2, 2, 5});
    const std::vector<std::pair<uint32_t, uint32_t>> want = {{0, 0}, {1, 2}, {2, 3}, {3, 4}, {5, 6}};
    QCOMPARE(m, want);
    QVERIFY(alignSequences({}, {1, 2}).empty());
    QCOMPARE(alignSequences({7, 7, 7}, {7, 7}).size(), size_t(2));
}

void TestDiff::alignLargeIsNearLinear()
{
    // 200k keys from a small alphabet (no unique anchors in most ranges), with an
    // insertion every 1000 keys: all but the inserted keys must match, quickly.
    std::vector<uint32_t> a, b;
    for (uint32_t i = 0; i < 200000; ++i) {
        a.push_back(i % 13);
        b.push_back(i % 13);
        if (i % 1000 == 500)
            b.push_back(99);
    }
    QElapsedTimer t;
    t.start();
    const auto m = alignSequences(a, b);
    QCOMPARE(m.size(), a.size());
    for (size_t k = 1; k < m.size(); ++k)
        QVERIFY(m[k].first > m[k - 1].first && m[k].second > m[k - 1].second);
    QVERIFY2(t.elapsed() < 5000, "alignment is not near-linear");
}

void TestDiff::insertedOp()
{
    PairSpec a, b;
    b.insertAdd = true;
    auto d = diffPair(a, b);
    QVERIFY(d);
    const OpDiff *add = op(*d, "ProfilerStep > aten::add");
    QVERIFY(add);
    QCOMPARE(add->added, int64_t(1));
    QCOMPARE(add->baseline.count, int64_t(0));
    QCOMPARE(totalAdded(*d), int64_t(1));
    QCOMPARE(totalRemoved(*d), int64_t(0));
    const OpDiff *relu = op(*d, "ProfilerStep > aten::relu");
    QVERIFY(relu);
    QCOMPARE(relu->matched, int64_t(2));
    const GpuDiff *k = gpu(d->kernels, "add_kernel");
    QVERIFY(k);
    QCOMPARE(k->candidate.count, int64_t(1));
    QCOMPARE(k->baseline.count, int64_t(0));
    // The launching op of the new kernel is the inserted op.
    const GpuDiff *byOp = gpu(d->kernelsByOp, "add_kernel");
    QVERIFY(byOp);
    QCOMPARE(d->pathText(byOp->launchPath), std::string("ProfilerStep > aten::add"));
    // Two steps, matched by ordinal whatever their numbers.
    QCOMPARE(d->steps.size(), size_t(2));
    QVERIFY(d->steps[0].inBaseline && d->steps[0].inCandidate);
    QCOMPARE(d->steps[0].baselineUs, 1000.0);
}

void TestDiff::insertedOpOfAnExistingName()
{
    PairSpec a, b;
    b.insertRelu = true;
    auto d = diffPair(a, b);
    QVERIFY(d);
    const OpDiff *relu = op(*d, "ProfilerStep > aten::relu");
    QVERIFY(relu);
    QCOMPARE(relu->matched, int64_t(2));
    QCOMPARE(relu->added, int64_t(1));
    QCOMPARE(totalAdded(*d), int64_t(1));
    QCOMPARE(totalRemoved(*d), int64_t(0));
    // The item after it still matches its counterpart.
    QCOMPARE(op(*d, "ProfilerStep > aten::item")->matched, int64_t(1));
}

void TestDiff::slowerKernel()
{
    PairSpec a, b;
    a.sync = b.sync = false;
    b.gemmUs = 300;
    auto d = diffPair(a, b);
    QVERIFY(d);
    const GpuDiff *g = gpu(d->kernels, "gemm");
    QVERIFY(g);
    QCOMPARE(g->deltaUs(), 200.0);
    QCOMPARE(g->baseline.count, int64_t(2));
    QVERIFY(!d->top.empty());
    QCOMPARE(d->top[0].category, std::string("kernel"));
    QCOMPARE(d->top[0].name, std::string("gemm"));
    QCOMPARE(d->top[0].where, std::string("ProfilerStep > aten::linear"));
    QCOMPARE(d->top[0].deltaUs(), 200.0);
    QCOMPARE(totalAdded(*d) + totalRemoved(*d), int64_t(0));
    QVERIFY(d->criticalPathBoth);
    QVERIFY(d->candidateCpUs > d->baselineCpUs);
}

void TestDiff::removedSync()
{
    PairSpec a, b;
    b.sync = false;
    auto d = diffPair(a, b);
    QVERIFY(d);
    QCOMPARE(d->syncByKind.size(), size_t(1));
    const SyncDiff &s = d->syncByKind[0];
    QCOMPARE(s.kind, std::string("Stream Sync"));
    QCOMPARE(s.baseline.count, int64_t(1));
    QCOMPARE(s.candidate.count, int64_t(0));
    QVERIFY(s.baseline.totalUs > 0);
    QCOMPARE(d->syncByWaiter.size(), size_t(1));
    QCOMPARE(d->pathText(d->syncByWaiter[0].waiter), std::string("ProfilerStep > aten::item"));
    QCOMPARE(d->syncByWaiter[0].call, std::string("cudaStreamSynchronize"));
    const OpDiff *item = op(*d, "ProfilerStep > aten::item");
    QVERIFY(item);
    QCOMPARE(item->removed, int64_t(1));
    QCOMPARE(totalRemoved(*d), int64_t(1));
    // The waiting call's wait is the largest change (item's self time equals the sync wait here... or more).
    QVERIFY(!d->top.empty());
    QVERIFY(std::fabs(d->top[0].deltaUs()) >= s.baseline.totalUs);
}

void TestDiff::identicalRunsHaveNoChanges()
{
    const std::string dir = testutil::tempDir();
    const auto g = generatePair(dir + "/a", 5, 2);
    auto x = analysePair(g), y = analysePair(g);
    QVERIFY(x->inputsOk && y->inputsOk);
    auto d = diffRuns(x, y);
    QVERIFY(d->top.empty());
    QCOMPARE(totalAdded(*d) + totalRemoved(*d), int64_t(0));
    QVERIFY(d->cpEntered.empty() && d->cpLeft.empty());
    for (const auto &k : d->kernels)
        QCOMPARE(k.deltaUs(), 0.0);
}

void TestDiff::generatedPairInjectedChangesOnTop()
{
    const std::string dir = testutil::tempDir();
    const std::string threshold = "threshold_kernel_impl";
    const auto ga = generatePair(dir + "/a", 3, 4);
    const auto gb = generatePair(dir + "/b", 3, 4, threshold, 4.0, true);
    auto x = analysePair(ga), y = analysePair(gb);
    QVERIFY(x->inputsOk && y->inputsOk);
    auto d = diffRuns(x, y);
    // The slower kernel: on top among the kernels, and among the top changes.
    const GpuDiff *worst = nullptr;
    for (const auto &k : d->kernels)
        if (!worst || k.deltaUs() > worst->deltaUs())
            worst = &k;
    QVERIFY(worst && worst->name.find(threshold) != std::string::npos);
    bool kernelInTop = false, syncInTop = false;
    for (size_t i = 0; i < d->top.size() && i < 5; ++i) {
        kernelInTop |= d->top[i].category == "kernel" && d->top[i].name.find(threshold) != std::string::npos;
        syncInTop |= d->top[i].category == "sync" && d->top[i].where == "ProfilerStep > aten::item > aten::_local_scalar_dense" &&
                     d->top[i].deltaUs() > 0;
    }
    QVERIFY2(kernelInTop, formatDiffSummary(*d).c_str());
    QVERIFY2(syncInTop, formatDiffSummary(*d).c_str());
    // The extra loss.item(): one added per step, nothing removed.
    const OpDiff *item = op(*d, "ProfilerStep > aten::item");
    QVERIFY(item);
    QCOMPARE(item->added, int64_t(4));
    QCOMPARE(item->matched, int64_t(4));
    QCOMPARE(totalRemoved(*d), int64_t(0));
    QCOMPARE(totalAdded(*d), int64_t(8)); // aten::item and aten::_local_scalar_dense
    // One more Stream Sync call per step.
    for (const auto &s : d->syncByKind)
        if (s.kind == "Stream Sync")
            QCOMPARE(s.candidate.count - s.baseline.count, int64_t(4));
}

void TestDiff::aggregatesEqualPlainReaggregation()
{
    const std::string dir = testutil::tempDir();
    const auto ga = generatePair(dir + "/a", 11, 3);
    const auto gb = generatePair(dir + "/b", 12, 2, "gemm", 2.0, true);
    auto x = analysePair(ga), y = analysePair(gb);
    auto d = diffRuns(x, y);
    const auto report = diffReportJson(*d);
    // Plain re-aggregation of each file: per category and name, count and total dur.
    using Agg = std::map<std::pair<std::string, std::string>, std::pair<int64_t, double>>;
    auto plain = [](const std::string &path) {
        Agg agg;
        const auto j = nlohmann::json::parse(testutil::readText(path));
        for (const auto &e : j.at("traceEvents")) {
            if (e.value("ph", "") != "X")
                continue;
            std::string cat = e.value("cat", ""), name = e.value("name", "");
            if (cat == "gpu_memcpy" || cat == "gpu_memset")
                cat = cat.substr(4);
            else if (cat == "cpu_op" || cat == "user_annotation") {
                if (cat == "user_annotation" && name.rfind("ProfilerStep#", 0) == 0)
                    name = "ProfilerStep";
                cat = "op";
            } else if (cat != "kernel")
                continue;
            auto &[n, t] = agg[{cat, name}];
            ++n;
            t += e.value("dur", 0.0);
        }
        return agg;
    };
    const Agg want[2] = {plain(ga.devicePath), plain(gb.devicePath)};
    Agg got[2];
    for (int k = 0; k < 2; ++k) {
        const char *side = k ? "candidate" : "baseline";
        for (const char *list : {"kernels", "memcpys"})
            for (const auto &r : report.at(list)) {
                const std::string cat = r.contains("category") ? r.at("category").get<std::string>() : "kernel";
                const auto &s = r.at(side);
                if (s.at("count").get<int64_t>() == 0)
                    continue;
                got[k][{cat, r.at("name").get<std::string>()}] = {s.at("count").get<int64_t>(),
                                                                  s.at("total_us").get<double>()};
            }
        for (const auto &r : report.at("ops")) { // per path, summed per name
            const auto &s = r.at(side);
            if (s.at("count").get<int64_t>() == 0)
                continue;
            auto &[n, t] = got[k][{"op", r.at("name").get<std::string>()}];
            n += s.at("count").get<int64_t>();
            t += s.at("total_us").get<double>();
        }
        QCOMPARE(got[k].size(), want[k].size());
        for (const auto &[key, v] : want[k]) {
            QVERIFY2(got[k].count(key), key.second.c_str());
            QCOMPARE(got[k][key].first, v.first);
            QVERIFY2(std::fabs(got[k][key].second - v.second) <= 1e-6 * std::max(1.0, v.second), key.second.c_str());
        }
    }
}

void TestDiff::windowNarrowsBothSides()
{
    const std::string dir = testutil::tempDir();
    const auto ga = generatePair(dir + "/a", 21, 3);
    const auto gb = generatePair(dir + "/b", 22, 3);
    auto run = [](const tracegen::Result &g) {
        AnalysisRequest r;
        r.devicePath = g.devicePath;
        r.cpa.annotation = "ProfilerStep";
        r.cpa.instanceFirst = r.cpa.instanceLast = 1;
        return std::shared_ptr<const Analysis>(runAnalysis(r));
    };
    auto x = run(ga), y = run(gb);
    DiffOptions o;
    o.baselineWindow = windowOf(*x);
    o.candidateWindow = windowOf(*y);
    QVERIFY(std::isfinite(o.baselineWindow.startUs) && std::isfinite(o.baselineWindow.endUs));
    qDebug() << o.baselineWindow.startUs << o.baselineWindow.endUs << x->criticalPath->window.startUs << x->criticalPath->window.endUs << x->criticalPath->window.firstEvent;
    for (uint32_t s : profilerStepEvents(*x->device)) qDebug() << x->device->events[s].ts << x->device->events[s].dur;
    auto narrow = diffRuns(x, y, o);
    auto whole = diffRuns(x, y);
    // HTA's instance 1 (GPU-side step copies count as instances): the kernels
    // starting inside it, counted by hand, on both sides.
    auto inWindow = [](const Analysis &a, const DiffWindow &w) {
        int64_t n = 0;
        for (const auto &e : a.device->events)
            n += e.kind == EventKind::Kernel && w.contains(e.ts);
        return n;
    };
    auto kernels = [](const TraceDiff &d, bool candidate) {
        int64_t n = 0;
        for (const auto &k : d.kernels)
            n += candidate ? k.candidate.count : k.baseline.count;
        return n;
    };
    QCOMPARE(kernels(*narrow, false), inWindow(*x, o.baselineWindow));
    QCOMPARE(kernels(*narrow, true), inWindow(*y, o.candidateWindow));
    QVERIFY(kernels(*narrow, false) > 0);
    QVERIFY(kernels(*narrow, false) < kernels(*whole, false));
}

void TestDiff::deterministic()
{
    const std::string dir = testutil::tempDir();
    const auto ga = generatePair(dir + "/a", 31, 2);
    const auto gb = generatePair(dir + "/b", 32, 2, "gemm", 1.5);
    const std::string one = diffReportJson(*diffRuns(analysePair(ga), analysePair(gb))).dump();
    const std::string two = diffReportJson(*diffRuns(analysePair(ga), analysePair(gb))).dump();
    QCOMPARE(one, two);
    QVERIFY(formatDiffSummary(*diffRuns(analysePair(ga), analysePair(gb))).find("top changes") != std::string::npos);
}

void TestDiff::jobDiffMergesRanks()
{
    // Two 2-rank jobs from one seed; in the candidate rank 1 computes 3x slower.
    const std::string dir = testutil::tempDir();
    tracegen::JobOptions o;
    o.ranks = 2;
    o.steps = 2;
    o.gzip = false;
    o.seed = 9;
    o.dir = dir + "/a";
    const auto a = tracegen::generateJob(o);
    o.dir = dir + "/b";
    o.straggler = 1;
    o.stragglerScale = 3;
    const auto b = tracegen::generateJob(o);
    std::vector<RankDiffReport> reports;
    for (int r = 0; r < 2; ++r) {
        auto d = diffRuns(analysePair(a.ranks[r]), analysePair(b.ranks[r]));
        reports.push_back({r, diffReportJson(*d)});
    }
    const auto job = mergeRankDiffs(reports, {}, {3});
    QCOMPARE(job.at("ranks").size(), size_t(2));
    QCOMPARE(job.at("ranks_only_in_candidate"), nlohmann::ordered_json::array({3}));
    // Every per-name aggregate is the sum of the ranks'.
    for (const auto &k : job.at("kernels")) {
        int64_t count = 0;
        double total = 0;
        for (const auto &r : reports)
            for (const auto &x : r.report.at("kernels"))
                if (x.at("name") == k.at("name")) {
                    count += x.at("candidate").at("count").get<int64_t>();
                    total += x.at("candidate").at("total_us").get<double>();
                }
        QCOMPARE(k.at("candidate").at("count").get<int64_t>(), count);
        QVERIFY(std::fabs(k.at("candidate").at("total_us").get<double>() - total) < 1e-6);
    }
    // The straggler's compute kernels changed on rank 1 only.
    auto gemmDelta = [](const nlohmann::ordered_json &report) {
        double d = 0;
        for (const auto &k : report.at("kernels"))
            if (k.at("name").get<std::string>().find("gemm") != std::string::npos)
                d += k.at("delta_us").get<double>();
        return d;
    };
    QCOMPARE(gemmDelta(reports[0].report), 0.0);
    QVERIFY(gemmDelta(reports[1].report) > 0);
    QVERIFY(std::fabs(gemmDelta(job) - gemmDelta(reports[1].report)) < 1e-6);
    const auto &top = job.at("top_changes");
    QVERIFY(!top.empty());
    for (size_t i = 1; i < top.size(); ++i)
        QVERIFY(std::fabs(top[i - 1].at("delta_us").get<double>()) >= std::fabs(top[i].at("delta_us").get<double>()));
    for (const auto &t : top)
        if (t.at("category") == "kernel" && t.at("name").get<std::string>().find("gemm") != std::string::npos)
            QCOMPARE(t.at("rank").get<int64_t>(), int64_t(1));
    // The slowest rank of each step in the candidate is the straggler or waits on it.
    QVERIFY(formatJobDiffSummary(job).find("rank 1") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestDiff)
#include "tst_diff.moc"
