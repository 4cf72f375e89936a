// SPDX-License-Identifier: MIT
// The bad-input corpus (tests/data/bad/cases.txt): every file goes through batch
// mode and the GUI's screenshot mode. Whatever the file, the process exits
// normally (< 128) with the documented code and message, a rejected input leaves
// no export behind, no temporary file survives, and the input is unchanged.
#include "testutil.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

struct Case {
    std::string file, role, fragment;
    int exitCode = 0;
    QStringList extra;
};

std::string trim(std::string s)
{
    const auto ws = " \t\r\n";
    s.erase(0, s.find_first_not_of(ws));
    const auto end = s.find_last_not_of(ws);
    s.erase(end == std::string::npos ? 0 : end + 1);
    return s;
}

std::vector<Case> readCases()
{
    std::vector<Case> cases;
    std::ifstream in(testutil::fixture("bad/cases.txt"));
    std::string line;
    while (std::getline(in, line)) {
        if (trim(line).empty() || trim(line)[0] == '#')
            continue;
        std::vector<std::string> parts;
        std::stringstream ss(line);
        std::string part;
        while (std::getline(ss, part, '|'))
            parts.push_back(trim(part));
        if (parts.size() < 4)
            continue;
        Case c{parts[0], parts[1], parts[3], std::stoi(parts[2]), {}};
        if (parts.size() > 4)
            c.extra = QString::fromStdString(parts[4]).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        cases.push_back(std::move(c));
    }
    return cases;
}

struct Run {
    int code = -1; // -1: did not finish; >= 128: killed by a signal
    QString err;
};

Run run(const QStringList &args, int timeoutMs)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SYNCSCOPE_BINARY), args);
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        return {};
    }
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : 128 + p.exitCode(),
            QString::fromUtf8(p.readAllStandardError())};
}

QByteArray bytesOf(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Names of leftover temporary files (OutputFile writes ".NAME.tmp-XXXXXX").
QStringList temporaries(const QString &dir)
{
    QStringList out;
    for (const QString &name : QDir(dir).entryList(QDir::Files | QDir::Hidden))
        if (name.contains(QLatin1String(".tmp")))
            out << name;
    return out;
}

} // namespace

class TestBadCorpus : public QObject
{
    Q_OBJECT
private slots:
    void batch_data();
    void batch();
    void screenshot_data();
    void screenshot();
};

void TestBadCorpus::batch_data()
{
    QTest::addColumn<int>("index");
    const auto cases = readCases();
    QVERIFY2(cases.size() >= 10, "tests/data/bad/cases.txt is missing or nearly empty");
    for (size_t i = 0; i < cases.size(); ++i)
        QTest::newRow(cases[i].file.c_str()) << int(i);
}

void TestBadCorpus::batch()
{
    QFETCH(int, index);
    const Case c = readCases().at(static_cast<size_t>(index));
    const QString dir = QString::fromStdString(testutil::tempDir());
    const QString input = dir + QLatin1Char('/') + QString::fromStdString(c.file);
    QVERIFY(QFile::copy(QString::fromStdString(testutil::fixture("bad/" + c.file)), input));
    const QByteArray before = bytesOf(input);

    QStringList args{QStringLiteral("--batch")};
    if (c.role == "host") {
        args << QStringLiteral("--host") << input << QStringLiteral("--device")
             << QString::fromStdString(testutil::fixture("golden/trace_link/device.0.json"))
             << QStringLiteral("--output") << dir + QStringLiteral("/linked.json") << QStringLiteral("--chakra-et")
             << dir + QStringLiteral("/trace.et");
    } else {
        args << QStringLiteral("--device") << input;
    }
    const QStringList exports{dir + QStringLiteral("/cp.json"), dir + QStringLiteral("/overlay.json"),
                              dir + QStringLiteral("/linked.json"), dir + QStringLiteral("/trace.et")};
    args << QStringLiteral("--critical-path") << exports[0] << QStringLiteral("--overlay") << exports[1]
         << QStringLiteral("--report") << dir + QStringLiteral("/report.json") << c.extra;

    const Run r = run(args, 120000);
    QVERIFY2(r.code >= 0, "batch mode did not finish within 120 s");
    QVERIFY2(r.code < 128, qPrintable(QStringLiteral("killed by a signal: ") + r.err));
    QVERIFY2(r.code == c.exitCode,
             qPrintable(QStringLiteral("exit %1, expected %2: %3").arg(r.code).arg(c.exitCode).arg(r.err)));
    QVERIFY2(r.err.contains(QString::fromStdString(c.fragment)),
             qPrintable(QStringLiteral("stderr lacks \"%1\": %2").arg(QString::fromStdString(c.fragment), r.err)));
    if (c.exitCode == 3)
        for (const QString &out : exports)
            QVERIFY2(!QFile::exists(out), qPrintable(out + QStringLiteral(" was written for a rejected input")));
    QVERIFY2(temporaries(dir).isEmpty(), qPrintable(temporaries(dir).join(QLatin1Char(' '))));
    QVERIFY2(bytesOf(input) == before, "the input was modified");
}

void TestBadCorpus::screenshot_data()
{
    batch_data();
}

void TestBadCorpus::screenshot()
{
#ifndef SYNCSCOPE_HAVE_GUI
    QSKIP("built without the GUI");
#else
    QFETCH(int, index);
    const Case c = readCases().at(static_cast<size_t>(index));
    if (c.role != "device")
        QSKIP("the screenshot check opens device traces alone");
    const QString dir = QString::fromStdString(testutil::tempDir());
    const QString input = dir + QLatin1Char('/') + QString::fromStdString(c.file);
    QVERIFY(QFile::copy(QString::fromStdString(testutil::fixture("bad/" + c.file)), input));
    const QByteArray before = bytesOf(input);
    const Run r = run({input, QStringLiteral("--screenshot"), dir + QStringLiteral("/shot.png")}, 120000);
    QVERIFY2(r.code >= 0, "screenshot mode did not finish within 120 s");
    QVERIFY2(r.code < 128, qPrintable(QStringLiteral("killed by a signal: ") + r.err));
    // A rejected input is shown as diagnostics (exit 3); a readable one renders (exit 0).
    QCOMPARE(r.code == 3, c.exitCode == 3);
    QVERIFY2(temporaries(dir).isEmpty(), qPrintable(temporaries(dir).join(QLatin1Char(' '))));
    QVERIFY2(bytesOf(input) == before, "the input was modified");
#endif
}

QTEST_GUILESS_MAIN(TestBadCorpus)
#include "tst_badcorpus.moc"
