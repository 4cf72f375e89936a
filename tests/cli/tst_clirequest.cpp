// SPDX-License-Identifier: MIT
// The command line as an analysis request, shared by batch and the GUI: files in
// either order, --sample, options, and the window options (--size, --screenshot).
#include "clirequest.h"

#include <QTest>

using namespace syncscope;

class TestCliRequest : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void files_data();
    void files();
    void options();
    void usageErrors_data();
    void usageErrors();
    void size_data();
    void size();
};

void TestCliRequest::files_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("device");
    QTest::addColumn<bool>("rolesGiven");
    QTest::newRow("two files") << QStringList{"a.json", "b.json"} << "a.json" << "b.json" << false;
    QTest::newRow("device alone") << QStringList{"k.json.gz"} << "" << "k.json.gz" << false;
    QTest::newRow("flags") << QStringList{"--device", "k.json", "--host", "e.json"} << "e.json" << "k.json" << true;
    QTest::newRow("nothing: start page") << QStringList{} << "" << "" << false;
}

void TestCliRequest::files()
{
    QFETCH(QStringList, args);
    QFETCH(QString, host);
    QFETCH(QString, device);
    QFETCH(bool, rolesGiven);
    std::vector<std::string> v;
    for (const QString &a : args)
        v.push_back(a.toStdString());
    CliRequest cli;
    std::string error;
    QVERIFY(buildCliRequest(parseCli(v), nullptr, cli, error));
    QCOMPARE(QString::fromStdString(cli.request.hostPath), host);
    QCOMPARE(QString::fromStdString(cli.request.devicePath), device);
    QCOMPARE(cli.request.rolesGiven, rolesGiven);
    QCOMPARE(cli.hasInputs, !device.isEmpty());
}

void TestCliRequest::options()
{
    CliRequest cli;
    std::string error;
    QVERIFY(buildCliRequest(parseCli({"--sample", "--screenshot", "out.png", "--size", "800x600", "--select",
                                     "aten::mm", "--instance", "1,2", "--compat", "chakra", "--rank", "3"}),
                           nullptr, cli, error));
    QVERIFY(QString::fromStdString(cli.request.hostPath).endsWith(QStringLiteral("sample.et.json.gz")));
    QVERIFY(QString::fromStdString(cli.request.devicePath).endsWith(QStringLiteral("sample.kineto.json.gz")));
    QCOMPARE(QString::fromStdString(cli.screenshot), QStringLiteral("out.png"));
    QCOMPARE(cli.width, 800);
    QCOMPARE(cli.height, 600);
    QCOMPARE(QString::fromStdString(cli.select), QStringLiteral("aten::mm"));
    QCOMPARE(cli.request.cpa.instanceFirst, 1);
    QCOMPARE(cli.request.cpa.instanceLast, 2);
    QVERIFY(cli.request.mode == LinkMode::Chakra);
    QVERIFY(cli.request.cpa.htaVersion == HtaVersion::F4d0062); // --compat chakra leaves the default
    QCOMPARE(*cli.request.rank, int64_t(3));
    QVERIFY(!cli.openPair);
    QVERIFY(buildCliRequest(parseCli({"--open-pair"}), nullptr, cli, error));
    QVERIFY(cli.openPair);
    QVERIFY(buildCliRequest(parseCli({"x.json", "--instance", "all"}), nullptr, cli, error));
    QVERIFY(cli.request.allSteps);
    CliRequest d731;
    QVERIFY(buildCliRequest(parseCli({"x.json", "--hta-version", "d731cc2e"}), nullptr, d731, error));
    QVERIFY(d731.request.cpa.htaVersion == HtaVersion::D731cc2e);
    QVERIFY(d731.request.cpa.htaExact); // d731cc2e is reproduced exactly or not at all
    CliRequest exact;
    QVERIFY(buildCliRequest(parseCli({"x.json"}), nullptr, exact, error));
    QVERIFY(!exact.request.cpa.htaExact); // the default departs from HTA where HTA is wrong
    QVERIFY(buildCliRequest(parseCli({"x.json", "--hta-exact"}), nullptr, exact, error));
    QVERIFY(exact.request.cpa.htaExact);
    // A job's rank order (GUI): rank, step or waits.
    CliRequest job;
    QVERIFY(buildCliRequest(parseCli({"traces/", "--rank-order", "waits"}), nullptr, job, error));
    QCOMPARE(QString::fromStdString(job.rankOrder), QStringLiteral("waits"));
    QCOMPARE(QString::fromStdString(job.request.devicePath), QStringLiteral("traces/"));
    QVERIFY(!buildCliRequest(parseCli({"traces/", "--rank-order", "slowest"}), nullptr, job, error));
    QVERIFY(QString::fromStdString(error).contains(QStringLiteral("--rank-order takes rank, step or waits")));
    // The window's palette for this run (screenshots in both): light, dark or system.
    CliRequest themed;
    QVERIFY(buildCliRequest(parseCli({"x.json", "--theme", "dark"}), nullptr, themed, error));
    QCOMPARE(QString::fromStdString(themed.theme), QStringLiteral("dark"));
    QVERIFY(!buildCliRequest(parseCli({"x.json", "--theme", "blue"}), nullptr, themed, error));
    QVERIFY(QString::fromStdString(error).contains(QStringLiteral("--theme takes light, dark or system")));
}

void TestCliRequest::usageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("error");
    QTest::newRow("three files") << QStringList{"a", "b", "c"} << "too many input files";
    QTest::newRow("bad size") << QStringList{"a", "--size", "10x10"} << "--size";
    QTest::newRow("screenshot without input") << QStringList{"--screenshot", "x.png"} << "--screenshot needs";
    QTest::newRow("bad instance") << QStringList{"a", "--instance", "x"} << "--instance";
    QTest::newRow("bad rank") << QStringList{"a", "--rank", "-1"} << "--rank";
    QTest::newRow("bad hta version") << QStringList{"a", "--hta-version", "head"} << "--hta-version takes";
    // Numbers too big for the option say the allowed range instead of wrapping or "not a number".
    QTest::newRow("instance 2^32") << QStringList{"a", "--instance", "4294967296"}
                                   << "--instance is out of range: 4294967296 (allowed: 0 to 2147483647)";
    QTest::newRow("instance 2^31") << QStringList{"a", "--instance", "2147483648"} << "out of range";
    QTest::newRow("instance range end") << QStringList{"a", "--instance", "0,99999999999"} << "out of range";
    QTest::newRow("instance reversed") << QStringList{"a", "--instance", "3,1"} << "A <= B";
    QTest::newRow("rank 10^20") << QStringList{"a", "--rank", "99999999999999999999"}
                                << "--rank is out of range: 99999999999999999999";
    QTest::newRow("rank junk") << QStringList{"a", "--rank", "x"} << "--rank needs an integer from 0 to";
    QTest::newRow("size 2^64") << QStringList{"a", "--size", "18446744073709551617x100"} << "--size";
    // An empty file name is never "not given".
    for (const char *option : {"--output", "--report", "--chakra-et", "--overlay", "--critical-path", "--screenshot",
                               "--host", "--device", "--inspect"})
        QTest::newRow(option) << QStringList{"a", option, ""} << QString(option) + " needs a file name";
    QTest::newRow("empty positional") << QStringList{"a", ""} << "empty string";
}

void TestCliRequest::usageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(QString, error);
    std::vector<std::string> v;
    for (const QString &a : args)
        v.push_back(a.toStdString());
    CliRequest cli;
    std::string message;
    QVERIFY(!buildCliRequest(parseCli(v), nullptr, cli, message));
    QVERIFY2(QString::fromStdString(message).contains(error), message.c_str());
}

void TestCliRequest::size_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<int>("w");
    QTest::addColumn<int>("h");
    QTest::newRow("plain") << "1600x1000" << true << 1600 << 1000;
    QTest::newRow("capital X") << "640X480" << true << 640 << 480;
    QTest::newRow("too small") << "100x100" << false << 0 << 0;
    QTest::newRow("too big") << "20000x100" << false << 0 << 0;
    QTest::newRow("junk") << "axb" << false << 0 << 0;
    QTest::newRow("trailing") << "800x600px" << false << 0 << 0;
}

void TestCliRequest::size()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    QFETCH(int, w);
    QFETCH(int, h);
    int width = 0, height = 0;
    QCOMPARE(parseSize(text.toStdString(), width, height), ok);
    if (ok) {
        QCOMPARE(width, w);
        QCOMPARE(height, h);
    }
}

QTEST_GUILESS_MAIN(TestCliRequest)
#include "tst_clirequest.moc"
