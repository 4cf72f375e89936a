// SPDX-License-Identifier: MIT
// Replays every libFuzzer harness (fuzz/) over its seeds (fuzz/corpus/<harness>/)
// and over the inputs fuzzing once found (tests/data/fuzz-regressions/<harness>/),
// in the normal build and, in CI, under ASan+UBSan: each must run to the end
// without a crash, a hang or a sanitizer report (the harnesses abort on a broken
// invariant). docs/hardening.md says how to add an input.
#include "testutil.h"

#include <QtTest>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>

extern "C" int replayKineto(const uint8_t *data, size_t size);
extern "C" int replayHostEt(const uint8_t *data, size_t size);
extern "C" int replayChakraEt(const uint8_t *data, size_t size);
extern "C" int replayJsonRewrite(const uint8_t *data, size_t size);
extern "C" int replayWhatIfRule(const uint8_t *data, size_t size);
extern "C" int replayJobSummary(const uint8_t *data, size_t size);
extern "C" int replayEtReplay(const uint8_t *data, size_t size);
extern "C" int replayDiff(const uint8_t *data, size_t size);
extern "C" int replayFlightRecorder(const uint8_t *data, size_t size);
extern "C" int replayCliArgs(const uint8_t *data, size_t size);

namespace fs = std::filesystem;

class TestFuzzRegressions : public QObject
{
    Q_OBJECT
private slots:
    void replay_data()
    {
        QTest::addColumn<QString>("harness");
        QTest::addColumn<QString>("file");
        size_t regressions = 0;
        for (const char *harness : {"kineto", "hostet", "chakraet", "jsonrewrite", "whatifrule", "etreplay", "diff", "jobsummary", "flightrecorder", "cliargs"}) {
            const fs::path dirs[] = {fs::path(SYNCSCOPE_FUZZ_DIR) / "corpus" / harness,
                                     fs::path(testutil::fixture("fuzz-regressions")) / harness};
            for (const fs::path &dir : dirs) {
                if (!fs::is_directory(dir))
                    continue;
                for (const auto &entry : fs::directory_iterator(dir)) {
                    if (!entry.is_regular_file() || entry.path().filename() == "README.md")
                        continue;
                    regressions += dir == dirs[1];
                    const std::string tag = std::string(harness) + "/" + entry.path().filename().string();
                    QTest::newRow(tag.c_str())
                        << QString(harness) << QString::fromStdString(entry.path().string());
                }
            }
        }
        QVERIFY2(regressions > 0, "tests/data/fuzz-regressions holds no input");
    }

    void replay()
    {
        QFETCH(QString, harness);
        QFETCH(QString, file);
        std::ifstream in(file.toStdString(), std::ios::binary);
        QVERIFY(in);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const auto *data = reinterpret_cast<const uint8_t *>(bytes.data());
        int rc = -1;
        if (harness == "kineto")
            rc = replayKineto(data, bytes.size());
        else if (harness == "hostet")
            rc = replayHostEt(data, bytes.size());
        else if (harness == "chakraet")
            rc = replayChakraEt(data, bytes.size());
        else if (harness == "jsonrewrite")
            rc = replayJsonRewrite(data, bytes.size());
        else if (harness == "jobsummary")
            rc = replayJobSummary(data, bytes.size());
        else if (harness == "etreplay")
            rc = replayEtReplay(data, bytes.size());
        else if (harness == "diff")
            rc = replayDiff(data, bytes.size());
        else if (harness == "flightrecorder")
            rc = replayFlightRecorder(data, bytes.size());
        else if (harness == "cliargs")
            rc = replayCliArgs(data, bytes.size());
        else
            rc = replayWhatIfRule(data, bytes.size());
        QCOMPARE(rc, 0);
    }
};

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "tst_fuzzregressions.moc"
