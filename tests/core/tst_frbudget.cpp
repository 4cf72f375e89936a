// SPDX-License-Identifier: MIT
// Issue 40, class 3: the memory a folder of flight recorder dumps may take is held per
// folder (not per reading thread), and the process groups the analysis takes from
// pg_config are bounded in all.
#include "hang/flightrecorder.h"
#include "hang/hanganalysis.h"
#include "hang/hangfolder.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <string>

using namespace syncscope;

namespace {

// A JSON dump of `entries` completed all_reduces in group "0" of 8 ranks.
std::string jsonDump(int rank, int entries)
{
    std::string s = "{\"version\":\"2.4\",\"rank\":" + std::to_string(rank) +
                    ",\"pg_config\":{\"0\":{\"name\":\"0\",\"desc\":\"default_pg\",\"ranks\":\"[0, 1, 2, 3, 4, 5, 6, 7]\"}}"
                    ",\"entries\":[";
    for (int k = 0; k < entries; ++k) {
        if (k)
            s += ',';
        s += "{\"record_id\":" + std::to_string(k) + ",\"pg_id\":0,\"process_group\":[\"0\",\"default_pg\"]," +
             "\"collective_seq_id\":" + std::to_string(k + 1) +
             ",\"p2p_seq_id\":0,\"op_id\":" + std::to_string(k + 1) +
             ",\"profiling_name\":\"nccl:all_reduce\",\"time_created_ns\":1,\"input_sizes\":[[1024]],"
             "\"output_sizes\":[[1024]],\"state\":\"completed\"}";
    }
    return s + "]}";
}

size_t countCode(const HangFolder &folder, const std::string &code, const std::string &part)
{
    size_t n = 0;
    for (const HangFolderDiag &d : folder.diags)
        n += d.code == code && d.message.find(part) != std::string::npos;
    return n;
}

} // namespace

class TestFrBudget : public QObject
{
    Q_OBJECT
private slots:
    void folderHoldsAtMostItsBudget();
    void aDumpOverTheBudgetIsRefusedAlone();
    void groupMembershipsAreBounded();
};

// Eight dumps of about 0.6 MB each (each charged about 10 MB: simdjson's document and the
// values) read by eight threads under a 16 MiB budget: every dump is read, and at no time
// did the dumps being read hold more than the budget (those that did not fit alongside the
// others were read again alone).
void TestFrBudget::folderHoldsAtMostItsBudget()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const std::string dir = tmp.path().toStdString();
    for (int r = 0; r < 8; ++r)
        std::ofstream(dir + "/nccl_trace_rank_" + std::to_string(r) + ".json") << jsonDump(r, 2500);
    HangFolderOptions options;
    options.threads = 8;
    options.memoryBudgetBytes = size_t(16) << 20;
    HangFolder folder;
    std::string error;
    QVERIFY2(readHangFolder(dir, folder, error, options), error.c_str());
    QCOMPARE(folder.dumps.size(), size_t(8));
    QVERIFY(folder.refused.empty());
    QVERIFY2(folder.readPeakBytes <= options.memoryBudgetBytes, std::to_string(folder.readPeakBytes).c_str());
    QVERIFY2(folder.readPeakBytes >= (size_t(8) << 20), std::to_string(folder.readPeakBytes).c_str()); // counted
    QCOMPARE(folder.dumps[3].entries.size(), size_t(2500));
    // Under the default budget the same folder is read at once.
    HangFolder all;
    options.memoryBudgetBytes = kFrFolderMemoryBytes;
    QVERIFY2(readHangFolder(dir, all, error, options), error.c_str());
    QCOMPARE(all.readAlone, size_t(0));
    QCOMPARE(all.dumps.size(), size_t(8));
}

// A dump that needs more than the budget by itself is refused naming the file and the
// budget (after one try alongside the others and one alone); a small one beside it is read.
void TestFrBudget::aDumpOverTheBudgetIsRefusedAlone()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const std::string dir = tmp.path().toStdString();
    std::ofstream(dir + "/nccl_trace_rank_0.json") << jsonDump(0, 2500);
    std::ofstream(dir + "/nccl_trace_rank_1.json") << jsonDump(1, 2);
    HangFolderOptions options;
    options.memoryBudgetBytes = size_t(4) << 20;
    HangFolder folder;
    std::string error;
    QVERIFY2(readHangFolder(dir, folder, error, options), error.c_str());
    QCOMPARE(folder.dumps.size(), size_t(1));
    QCOMPARE(*folder.dumps[0].rank, int64_t(1));
    QCOMPARE(folder.readAlone, size_t(1));
    QCOMPARE(countCode(folder, "hang.dump_unreadable", "nccl_trace_rank_0.json: byte 0: reading it needs more than "
                                                       "the folder's memory budget of 4 MiB"),
             size_t(1));
    QCOMPARE(countCode(folder, "hang.read_alone", "1 dumps were read one at a time"), size_t(1));
    QVERIFY(folder.readPeakBytes <= options.memoryBudgetBytes);
    QCOMPARE(folder.missing, (std::vector<int64_t>{0, 2, 3, 4, 5, 6, 7}));
}

// 200 groups of 10,000 ranks (2,000,000 memberships, one shared list): the first 104 are
// taken (1,040,000 <= kFrMaxMemberships), the rest left out with one warning; the same
// config written by a second rank adds nothing.
void TestFrBudget::groupMembershipsAreBounded()
{
    std::vector<int64_t> ranks(10000);
    for (size_t k = 0; k < ranks.size(); ++k)
        ranks[k] = int64_t(k);
    const FrRanks shared(ranks);
    std::vector<FrDump> dumps(2);
    for (int64_t r = 0; r < 2; ++r) {
        dumps[size_t(r)].rank = r;
        for (int g = 0; g < 200; ++g)
            dumps[size_t(r)].pgConfig.push_back({std::to_string(g), "d", shared});
    }
    const HangAnalysis a = analyzeHang(dumps, {}, 10000);
    size_t members = 0;
    for (const HangGroupStatus &g : a.groups)
        members += g.members.size();
    QVERIFY2(members <= kFrMaxMemberships, std::to_string(members).c_str());
    QCOMPARE(a.groups.size(), size_t(kFrMaxMemberships / 10000));
    bool said = false;
    for (const std::string &w : a.warnings)
        said |= w.find("96 process group(s) of pg_config left out (first: pg 104)") != std::string::npos;
    QVERIFY2(said, a.warnings.empty() ? "no warning" : a.warnings.front().c_str());
}

QTEST_GUILESS_MAIN(TestFrBudget)
#include "tst_frbudget.moc"
