// SPDX-License-Identifier: MIT
// Reading .et files (Chakra's feeder sample, the golden file, broken files),
// the --inspect summary, and the Python str() rendering of IOInfo strings.
#include "export/chakrareader.h"
#include "export/chakrasummary.h"
#include "io/bytesource.h"
#include "json/pystr.h"
#include "testutil.h"

#include <QtTest>

using namespace syncscope;

class TestChakraEtIo : public QObject
{
    Q_OBJECT
private slots:
    void pyStr_data();
    void pyStr();
    void pyStrRejectsInvalidJson();
    void feederSample();
    void goldenSummary();
    void badFiles_data();
    void badFiles();
};

void TestChakraEtIo::pyStr_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("python");
    // Real converter output (trace_link_spec 5.3).
    QTest::newRow("mixed") << R"([[1],6,0,"cpu",false,"<None>"])" << R"([[1], 6, 0, 'cpu', False, '<None>'])";
    QTest::newRow("nested") << R"([[[20,21,0,1024,4,"cuda:0"]],7,["0","default_pg"],"allreduce"])"
                            << R"([[[20, 21, 0, 1024, 4, 'cuda:0']], 7, ['0', 'default_pg'], 'allreduce'])";
    QTest::newRow("types") << R"(["GenericList[Tensor(float)]","Int","Tuple[String,String]","String"])"
                           << R"(['GenericList[Tensor(float)]', 'Int', 'Tuple[String,String]', 'String'])";
    QTest::newRow("empty") << "[]" << "[]";
    QTest::newRow("empty nested") << "[[],[[],[]],{}]" << "[[], [[], []], {}]";
    QTest::newRow("null") << "[null,true]" << "[None, True]";
    // Floats in repr form; integers of any size; "-0" is the int 0.
    QTest::newRow("floats") << "[0.000000,1.000000,1.5,1e-05,1e16,1E5,-0.0,0.1,123456789.125]"
                            << "[0.0, 1.0, 1.5, 1e-05, 1e+16, 100000.0, -0.0, 0.1, 123456789.125]";
    QTest::newRow("ints") << "[-0,12345678901234567890123,-7]" << "[0, 12345678901234567890123, -7]";
    QTest::newRow("special floats") << "[NaN,Infinity,-Infinity,1e999]" << "[nan, inf, -inf, inf]";
    // Quotes: single unless the text has ' and no ".
    QTest::newRow("apostrophe") << R"(["it's"])" << R"(["it's"])";
    QTest::newRow("both quotes") << R"(["it's \"x\""])" << R"(['it\'s "x"'])";
    QTest::newRow("double quote") << R"(["say \"hi\""])" << R"(['say "hi"'])";
    QTest::newRow("escapes") << R"(["a\\b\n\t\r\u0001\u007f"])" << R"(['a\\b\n\t\r\x01\x7f'])";
    // Printable non-ASCII stays UTF-8; non-printable characters are escaped.
    QTest::newRow("unicode") << QString::fromUtf8(R"(["héllo \u00e9 ☃ 😀 \ud83d\ude00"])")
                             << QString::fromUtf8(R"(['héllo é ☃ 😀 😀'])");
    QTest::newRow("unicode escapes") << R"(["\u00a0\u00ad\u200b\u2028\ue000\ud800"])"
                                     << R"(['\xa0\xad\u200b\u2028\ue000\ud800'])";
    QTest::newRow("dict") << R"({"k":[1,"v"],"a":null})" << R"({'k': [1, 'v'], 'a': None})";
    QTest::newRow("dict duplicate key") << R"({"a":1,"b":2,"a":3})" << R"({'a': 3, 'b': 2})";
    QTest::newRow("whitespace") << " [ 1 , [ 2 ] ] " << "[1, [2]]";
    QTest::newRow("scalar string") << R"("x")" << "'x'";
}

void TestChakraEtIo::pyStr()
{
    QFETCH(QString, json);
    QFETCH(QString, python);
    QCOMPARE(QString::fromStdString(syncscope::pyStr(json.toStdString())), python);
}

void TestChakraEtIo::pyStrRejectsInvalidJson()
{
    std::string out;
    QVERIFY(!appendPyStr(out, "[1,"));
    QVERIFY(!appendPyStr(out, "[1]]"));
    QVERIFY(!appendPyStr(out, "{\"a\" 1}"));
    QVERIFY(!appendPyStr(out, "\"abc"));
    QVERIFY(!appendPyStr(out, ""));
    // Deep nesting is fine (no recursion).
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    out.clear();
    QVERIFY(appendPyStr(out, deep));
    QCOMPARE(out, deep);
}

void TestChakraEtIo::feederSample()
{
    // Chakra's feeder test trace (older converter): GlobalMetadata schema 1.0.1,
    // bool_list attrs, ctrl_deps to nodes that are not in the file.
    const std::string path = testutil::fixture("chakra_feeder_sample.0.et.gz");
    const ChakraEtFile file = readChakraEt(path);
    QCOMPARE(file.nodes.size(), size_t(3664));
    int comp = 0, coll = 0, boolLists = 0;
    for (const auto &n : file.nodes) {
        comp += n.type() == ChakraProtoMsg::COMP_NODE;
        coll += n.type() == ChakraProtoMsg::COMM_COLL_NODE;
        for (const auto &a : n.attr())
            boolLists += a.value_case() == ChakraProtoMsg::AttributeProto::kBoolList;
    }
    QCOMPARE(comp, 3643);
    QCOMPARE(coll, 21);
    QCOMPARE(boolLists, 7);
    QCOMPARE(file.nodes.front().id(), uint64_t(216));
    QCOMPARE(file.nodes.front().ctrl_deps_size(), 1);
    QCOMPARE(file.nodes.front().ctrl_deps(0), uint64_t(3));
    QCOMPARE(file.metadata.attr(0).string_val(), std::string("1.0.1"));

    const ChakraEtSummary s = summarizeChakraEt(path);
    QVERIFY(s.compressed);
    QCOMPARE(s.nodes, int64_t(3664));
    QCOMPARE(s.byType.at("COMP_NODE"), int64_t(3643));
    QCOMPARE(s.byType.at("COMM_COLL_NODE"), int64_t(21));
    QCOMPARE(s.gpuNodes, int64_t(1216));
    QVERIFY(s.missingCtrlDeps > 0);
    QCOMPARE(s.missingDataDeps, int64_t(0));
    const std::string text = formatChakraEtSummary(s);
    QVERIFY(text.find("nodes: 3664 (1216 GPU, ids 216..7022, ascending)") != std::string::npos);
    QVERIFY(text.find("  schema = '1.0.1'") != std::string::npos);
}

void TestChakraEtIo::goldenSummary()
{
    const ChakraEtSummary s = summarizeChakraEt(testutil::fixture("golden/trace_link/chakra.0.et"));
    const std::string text = formatChakraEtSummary(s);
    for (const char *expected : {"nodes: 17 (4 GPU, ids 1..17, ascending)\n", "  COMM_COLL_NODE: 1\n",
                                 "  COMP_NODE: 16\n", "  comm_type ALL_REDUCE: 1\n",
                                 "data_deps: 20 on 15 nodes (at most 2 on one node)\n", "ctrl_deps: 17\n",
                                 "roots (no data_deps): 2, first ids 1 11\n", "  pid = 4242\n",
                                 "problem: 2 ctrl_deps name a node that is not in the file"})
        QVERIFY2(text.find(expected) != std::string::npos, expected);
}

void TestChakraEtIo::badFiles_data()
{
    const std::string good = testutil::readText(testutil::fixture("golden/trace_link/chakra.0.et"));
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("code");
    auto bytes = [](const std::string &s) { return QByteArray(s.data(), static_cast<qsizetype>(s.size())); };
    QTest::newRow("truncated in a node") << bytes(good.substr(0, good.size() / 2)) << "chakra_et.truncated";
    QTest::newRow("truncated in a length") << bytes(good.substr(0, 103) + "\x80") << "chakra_et.truncated";
    QTest::newRow("json") << QByteArray("{\"schema\": \"1.0.3-chakra.0.0.4\", \"nodes\": []}") << "chakra_et.not_et";
    QTest::newRow("text") << QByteArray("hello, this is not a trace at all\n") << "chakra_et.not_et";
    QTest::newRow("empty") << QByteArray() << "chakra_et.empty";
    QTest::newRow("zero length") << bytes(good.substr(0, 103) + std::string(1, '\0')) << "chakra_et.bad_length";
    QTest::newRow("garbage length") << bytes(good.substr(0, 103) + "\xff\xff\xff\xff\xff\xff") << "chakra_et.bad_length";
    QTest::newRow("huge length") << bytes(good.substr(0, 103) + "\xff\xff\xff\x7f") << "chakra_et.message_too_large"; // 256 MiB declared: refused before buffering
    QTest::newRow("bad node") << bytes(good.substr(0, 103) + "\x03\xff\xff\xff") << "chakra_et.bad_message";
}

void TestChakraEtIo::badFiles()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, code);
    const std::string path = testutil::tempDir() + "/bad.et";
    testutil::writeText(path, bytes.toStdString());
    try {
        (void)summarizeChakraEt(path);
        QFAIL("no error");
    } catch (const InputError &e) {
        QCOMPARE(QString::fromStdString(e.code()), code);
        const std::string what = e.what();
        QVERIFY2(what.find(path) != std::string::npos, e.what()); // names the file
    }
}

QTEST_GUILESS_MAIN(TestChakraEtIo)
#include "tst_chakraetio.moc"
