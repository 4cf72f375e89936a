// SPDX-License-Identifier: MIT
// The timeline's pure maths: time <-> pixel mapping, zoom/pan/clamp, time labels.
#include "timeline/timeformat.h"
#include "timeline/viewport.h"

#include <QTest>

using namespace syncscope::ui;

class TestViewport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void mapping_data();
    void mapping();
    void fit_data();
    void fit();
    void zoomKeepsAnchor_data();
    void zoomKeepsAnchor();
    void pan();
    void clamp_data();
    void clamp();
    void resizedKeepsRange();
    void duration_data();
    void duration();
    void tick_data();
    void tick();
};

void TestViewport::mapping_data()
{
    QTest::addColumn<double>("start");
    QTest::addColumn<double>("nsPerPx");
    QTest::addColumn<double>("t");
    QTest::addColumn<double>("x");
    QTest::newRow("origin") << 0.0 << 1.0 << 0.0 << 0.0;
    QTest::newRow("1ns/px") << 100.0 << 1.0 << 350.0 << 250.0;
    QTest::newRow("1us/px") << 0.0 << 1000.0 << 1.5e6 << 1500.0;
    QTest::newRow("left of view") << 1000.0 << 10.0 << 0.0 << -100.0;
    QTest::newRow("sub-ns") << 5.0 << 0.01 << 5.5 << 50.0;
}

void TestViewport::mapping()
{
    QFETCH(double, start);
    QFETCH(double, nsPerPx);
    QFETCH(double, t);
    QFETCH(double, x);
    Viewport v;
    v.startNs = start;
    v.nsPerPx = nsPerPx;
    v.widthPx = 1000;
    QCOMPARE(v.toX(t), x);
    QCOMPARE(v.toTime(x), t);
}

void TestViewport::fit_data()
{
    QTest::addColumn<double>("t0");
    QTest::addColumn<double>("t1");
    QTest::addColumn<int>("width");
    QTest::addColumn<double>("nsPerPx");
    QTest::newRow("1ms over 1000px") << 0.0 << 1e6 << 1000 << 1000.0;
    QTest::newRow("offset") << 500.0 << 1500.0 << 100 << 10.0;
    QTest::newRow("empty range is 1ns") << 7.0 << 7.0 << 10 << 0.1;
    QTest::newRow("reversed is 1ns") << 7.0 << 3.0 << 10 << 0.1;
    QTest::newRow("zero width is 1px") << 0.0 << 50.0 << 0 << 50.0;
}

void TestViewport::fit()
{
    QFETCH(double, t0);
    QFETCH(double, t1);
    QFETCH(int, width);
    QFETCH(double, nsPerPx);
    const Viewport v = Viewport::fit(t0, t1, width);
    QCOMPARE(v.startNs, t0);
    QCOMPARE(v.nsPerPx, nsPerPx);
    QCOMPARE(v.widthPx, std::max(1, width));
}

void TestViewport::zoomKeepsAnchor_data()
{
    QTest::addColumn<double>("x");
    QTest::addColumn<double>("factor");
    QTest::newRow("in at centre") << 500.0 << 2.0;
    QTest::newRow("out at centre") << 500.0 << 0.5;
    QTest::newRow("in at left edge") << 0.0 << 1.2;
    QTest::newRow("in at right edge") << 1000.0 << 10.0;
    QTest::newRow("out near left") << 37.0 << 0.8;
}

void TestViewport::zoomKeepsAnchor()
{
    QFETCH(double, x);
    QFETCH(double, factor);
    const Viewport v = Viewport::fit(1e6, 2e6, 1000);
    const Viewport z = v.zoomedAt(x, factor);
    QCOMPARE(z.toTime(x), v.toTime(x));
    QCOMPARE(z.nsPerPx, v.nsPerPx / factor);
    QCOMPARE(z.spanNs(), v.spanNs() / factor);
    // Non-positive factors are ignored.
    QCOMPARE(v.zoomedAt(x, 0).nsPerPx, v.nsPerPx);
    QCOMPARE(v.zoomedAt(x, -2).startNs, v.startNs);
}

void TestViewport::pan()
{
    const Viewport v = Viewport::fit(0, 1000, 100); // 10 ns/px
    QCOMPARE(v.panned(25).startNs, 250.0);
    QCOMPARE(v.panned(-25).startNs, -250.0);
    QCOMPARE(v.panned(25).nsPerPx, 10.0);
}

void TestViewport::clamp_data()
{
    QTest::addColumn<double>("t0");
    QTest::addColumn<double>("t1");
    QTest::addColumn<double>("expStart");
    QTest::addColumn<double>("expEnd");
    // Trace [0, 1000], width 100: 5 % margins -> [-50, 1050].
    QTest::newRow("inside") << 100.0 << 200.0 << 100.0 << 200.0;
    QTest::newRow("past the end") << 1000.0 << 1100.0 << 950.0 << 1050.0;
    QTest::newRow("before the start") << -500.0 << -400.0 << -50.0 << 50.0;
    QTest::newRow("wider than all") << -5000.0 << 5000.0 << -50.0 << 1050.0;
    QTest::newRow("deepest zoom") << 10.0 << 10.0001 << 10.0 << 10.1; // 1e-3 ns/px at least
}

void TestViewport::clamp()
{
    QFETCH(double, t0);
    QFETCH(double, t1);
    QFETCH(double, expStart);
    QFETCH(double, expEnd);
    const Viewport v = Viewport::fit(t0, t1, 100).clamped(0, 1000);
    QVERIFY2(qAbs(v.startNs - expStart) < 1e-9, qPrintable(QString::number(v.startNs)));
    QVERIFY2(qAbs(v.endNs() - expEnd) < 1e-9, qPrintable(QString::number(v.endNs())));
}

void TestViewport::resizedKeepsRange()
{
    const Viewport v = Viewport::fit(100, 900, 800).resized(400);
    QCOMPARE(v.startNs, 100.0);
    QCOMPARE(v.endNs(), 900.0);
    QCOMPARE(v.nsPerPx, 2.0);
}

void TestViewport::duration_data()
{
    QTest::addColumn<double>("ns");
    QTest::addColumn<QString>("text");
    QTest::newRow("ns") << 850.0 << QStringLiteral("850 ns");
    QTest::newRow("zero") << 0.0 << QStringLiteral("0 ns");
    QTest::newRow("us 2 decimals") << 1234.0 << QStringLiteral("1.23 \u00b5s");
    QTest::newRow("us 1 decimal") << 12345.0 << QStringLiteral("12.3 \u00b5s");
    QTest::newRow("us 0 decimals") << 123456.0 << QStringLiteral("123 \u00b5s");
    QTest::newRow("ms") << 4.56e6 << QStringLiteral("4.56 ms");
    QTest::newRow("s") << 1.5e9 << QStringLiteral("1.50 s");
    QTest::newRow("rounds up a unit") << 999960.0 << QStringLiteral("1.00 ms");
    QTest::newRow("negative") << -2500.0 << QStringLiteral("-2.50 \u00b5s");
}

void TestViewport::duration()
{
    QFETCH(double, ns);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(formatDuration(ns)), text);
}

void TestViewport::tick_data()
{
    QTest::addColumn<double>("ns");
    QTest::addColumn<double>("step");
    QTest::addColumn<QString>("text");
    QTest::newRow("ns ticks") << 200.0 << 10.0 << QStringLiteral("200 ns");
    QTest::newRow("100 ns ticks in us") << 200.0 << 100.0 << QStringLiteral("0.2 \u00b5s");
    QTest::newRow("us ticks") << 2500.0 << 500.0 << QStringLiteral("2.5 \u00b5s");
    QTest::newRow("ms ticks") << 3e6 << 1e6 << QStringLiteral("3 ms");
    QTest::newRow("fine ms ticks") << 1.25e6 << 0.25e6 << QStringLiteral("1.25 ms");
    QTest::newRow("fine ms ticks, whole") << 1e6 << 0.25e6 << QStringLiteral("1.00 ms");
    QTest::newRow("s ticks") << 2e9 << 1e9 << QStringLiteral("2 s");
    QTest::newRow("zero") << 0.0 << 1e3 << QStringLiteral("0 \u00b5s");
}

void TestViewport::tick()
{
    QFETCH(double, ns);
    QFETCH(double, step);
    QFETCH(QString, text);
    QCOMPARE(QString::fromStdString(formatTick(ns, step)), text);
}

QTEST_GUILESS_MAIN(TestViewport)
#include "tst_viewport.moc"
