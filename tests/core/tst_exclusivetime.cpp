// SPDX-License-Identifier: MIT
// Exclusive time, Chakra's rule and ours, on hand-made thread timelines.
#include "link/exclusivetime.h"
#include "parse/traceloader.h"
#include "testutil.h"
#include "tracebuilder.h"

#include <QtTest>

#include <algorithm>

using namespace syncscope;

namespace {

struct Span {
    double ts, dur;
};

// Exclusive times for ops given as (ts, dur), in the order of `spans`, sorted per `chakraOrder`.
std::vector<double> exclusiveOf(const std::vector<Span> &spans, bool chakraOrder)
{
    testutil::KinetoBuilder b;
    for (size_t i = 0; i < spans.size(); ++i)
        b.cpu("op" + std::to_string(i), 1, spans[i].ts, spans[i].dur);
    const std::string path = testutil::tempDir() + "/t.json";
    testutil::writeText(path, b.json());
    Diagnostics diag;
    LoadedTrace t = loadTrace(path, diag);
    std::vector<uint32_t> ops;
    for (uint32_t i = 0; i < spans.size(); ++i)
        ops.push_back(i);
    const auto &ev = t.device->events;
    std::stable_sort(ops.begin(), ops.end(), [&](uint32_t a, uint32_t c) {
        if (ev[a].ts != ev[c].ts)
            return ev[a].ts < ev[c].ts;
        return chakraOrder ? ev[a].dur < ev[c].dur : ev[a].dur > ev[c].dur;
    });
    std::vector<PyNumber> excl(spans.size());
    computeExclusiveTimes(*t.device, ops, excl);
    std::vector<double> out;
    for (const auto &e : excl)
        out.push_back(e.value);
    return out;
}

} // namespace

class TestExclusiveTime : public QObject
{
    Q_OBJECT
private slots:
    void chakraCases_data();
    void chakraCases();
    void equalStartQuirk();
    void floatsStayFloats();
    void deepNesting();
};

void TestExclusiveTime::chakraCases_data()
{
    QTest::addColumn<QList<double>>("spans"); // ts, dur pairs
    QTest::addColumn<QList<double>>("expected");
    // Chakra's tests/trace_link/test_chakra_device_trace_loader.py cases.
    QTest::newRow("nested chain") << QList<double>{100, 10, 105, 3, 108, 1} << QList<double>{6, 3, 1};
    QTest::newRow("two children") << QList<double>{100, 20, 105, 5, 110, 5} << QList<double>{10, 5, 5};
    // Overlapping and touching children merge before subtracting (merge_overlapping_intervals cases).
    QTest::newRow("overlap merge") << QList<double>{0, 20, 1, 2, 2, 4, 8, 2, 15, 3}
                                   << QList<double>{20 - 5 - 2 - 3, 2, 4, 2, 3};
    QTest::newRow("touching merge") << QList<double>{0, 10, 1, 3, 4, 1} << QList<double>{6, 3, 1};
    QTest::newRow("grandchild inside child") << QList<double>{0, 100, 10, 50, 20, 10, 70, 10}
                                             << QList<double>{40, 40, 10, 10};
    QTest::newRow("partial overlap is not a child") << QList<double>{0, 10, 5, 10} << QList<double>{10, 10};
    QTest::newRow("zero length at the end is contained") << QList<double>{0, 10, 10, 0} << QList<double>{10, 0};
}

void TestExclusiveTime::chakraCases()
{
    QFETCH(QList<double>, spans);
    QFETCH(QList<double>, expected);
    std::vector<Span> s;
    for (int i = 0; i + 1 < spans.size(); i += 2)
        s.push_back({spans[i], spans[i + 1]});
    const auto got = exclusiveOf(s, true);
    QCOMPARE(QList<double>(got.begin(), got.end()), expected);
}

void TestExclusiveTime::equalStartQuirk()
{
    // parent(100,10) + child(100,4) + child(106,4): Chakra 6 (same-start child sorts first), ours 2.
    const std::vector<Span> s{{100, 10}, {100, 4}, {106, 4}};
    QCOMPARE(exclusiveOf(s, true)[0], 6.0);
    QCOMPARE(exclusiveOf(s, false)[0], 2.0);
}

void TestExclusiveTime::floatsStayFloats()
{
    testutil::KinetoBuilder b;
    b.cpu("parent", 1, 1000, 10.25).cpu("child", 1, 1001, 2.5);
    const std::string path = testutil::tempDir() + "/f.json";
    testutil::writeText(path, b.json());
    Diagnostics diag;
    LoadedTrace t = loadTrace(path, diag);
    std::vector<PyNumber> excl(2);
    computeExclusiveTimes(*t.device, {0, 1}, excl);
    QCOMPARE(excl[0].value, 7.75);
    QVERIFY(!excl[0].isInt);
    QCOMPARE(pyFloat(excl[0].value), std::string("7.75"));
}

void TestExclusiveTime::deepNesting()
{
    // 20k ops nested 20k deep (Chakra's forward scan would take 2e8 steps here).
    std::vector<Span> s;
    for (int i = 0; i < 20000; ++i)
        s.push_back({double(i), double(2 * (20000 - i))});
    const auto got = exclusiveOf(s, true);
    QCOMPARE(got.front(), 2.0); // 40000 - the child's 39998
    QCOMPARE(got.back(), 2.0);
    QVERIFY(std::all_of(got.begin(), got.end(), [](double v) { return v == 2.0; }));
}

QTEST_GUILESS_MAIN(TestExclusiveTime)
#include "tst_exclusivetime.moc"
