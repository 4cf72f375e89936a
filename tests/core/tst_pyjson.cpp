// SPDX-License-Identifier: MIT
// Python json.dump compatibility: the ET+ writer must reproduce the reference byte for byte.
#include "json/jsonscan.h"
#include "json/pyjson.h"

#include <QtTest>

using namespace syncscope;

class TestPyJson : public QObject
{
    Q_OBJECT
private slots:
    void floatRepr_data();
    void floatRepr();
    void strings_data();
    void strings();
    void reformat_data();
    void reformat();
    void members();
    void nestingLimit();
};

void TestPyJson::floatRepr_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("expected");
    // Expected strings are Python 3 repr() results.
    QTest::newRow("half") << 1.5 << "1.5";
    QTest::newRow("integral") << 2.0 << "2.0";
    QTest::newRow("small") << 1e-05 << "1e-05";
    QTest::newRow("boundary small") << 0.0001 << "0.0001";
    QTest::newRow("big") << 1e16 << "1e+16";
    QTest::newRow("below 1e16") << 1234567890123456.0 << "1234567890123456.0";
    QTest::newRow("ns timestamp") << 4458677009853.422 << "4458677009853.422";
    QTest::newRow("epoch us") << 1712195495507268.2 << "1712195495507268.2";
    QTest::newRow("seventeen digits") << 0.1 + 0.2 << "0.30000000000000004";
    QTest::newRow("negative") << -7.75 << "-7.75";
    QTest::newRow("negative zero") << -0.0 << "-0.0";
    QTest::newRow("huge") << 1.2345678901234568e+17 << "1.2345678901234568e+17";
    QTest::newRow("tiny") << 5e-324 << "5e-324";
}

void TestPyJson::floatRepr()
{
    QFETCH(double, value);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(pyFloat(value)), expected);
}

void TestPyJson::strings_data()
{
    QTest::addColumn<QByteArray>("utf8");
    QTest::addColumn<QString>("expected");
    QTest::newRow("plain") << QByteArray("aten::mm") << "\"aten::mm\"";
    QTest::newRow("quote and backslash") << QByteArray("a\"b\\c") << "\"a\\\"b\\\\c\"";
    QTest::newRow("controls") << QByteArray("\n\t\r\b\f\x01") << "\"\\n\\t\\r\\b\\f\\u0001\"";
    QTest::newRow("latin") << QByteArray("caf\xc3\xa9") << "\"caf\\u00e9\"";
    QTest::newRow("emoji") << QByteArray("\xf0\x9f\x98\x80") << "\"\\ud83d\\ude00\"";
}

void TestPyJson::strings()
{
    QFETCH(QByteArray, utf8);
    QFETCH(QString, expected);
    std::string out;
    appendPyJsonString(out, utf8.toStdString());
    QCOMPARE(QString::fromStdString(out), expected);
}

void TestPyJson::reformat_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected");
    QTest::newRow("empty containers") << R"({"a":[],"b":{}})" << "{\n    \"a\": [],\n    \"b\": {}\n}";
    QTest::newRow("nested") << R"([[1,2],{"x":"y"}])"
                            << "[\n    [\n        1,\n        2\n    ],\n    {\n        \"x\": \"y\"\n    }\n]";
    QTest::newRow("floats become repr") << R"([0.000000,1.0,1e5,-0])" << "[\n    0.0,\n    1.0,\n    100000.0,\n    0\n]";
    QTest::newRow("escapes are normalised") << R"(["\/\u00e9"])" << "[\n    \"/\\u00e9\"\n]";
    QTest::newRow("literals") << R"([true,false,null])" << "[\n    true,\n    false,\n    null\n]";
    QTest::newRow("big int kept") << R"(18446744073709551615)" << "18446744073709551615";
}

void TestPyJson::reformat()
{
    QFETCH(QString, input);
    QFETCH(QString, expected);
    std::string out;
    QVERIFY(appendPyJson(out, input.toStdString(), 4, 0));
    QCOMPARE(QString::fromStdString(out), expected);
    std::string bad;
    QVERIFY(!appendPyJson(bad, "[1,", 4, 0));
}

void TestPyJson::members()
{
    const auto m = jsonObjectMembers(R"({"id":3,"na\"me":"x,}","a":[1,{"b":2}],"z":null})");
    QCOMPARE(m.size(), size_t(4));
    QCOMPARE(QString::fromStdString(m[1].key), QStringLiteral("na\"me"));
    QCOMPARE(QString::fromStdString(std::string(m[1].value)), QStringLiteral("\"x,}\""));
    QCOMPARE(QString::fromStdString(std::string(m[2].value)), QStringLiteral("[1,{\"b\":2}]"));
    QVERIFY(jsonObjectMembers("[1]").empty());
}

// Re-formatting recursed once per level with no bound: 90,000 nested arrays
// overflowed the stack (issue 11, item 2). Up to kMaxJsonDepth levels are
// re-formatted, deeper values are refused, at any depth.
void TestPyJson::nestingLimit()
{
    auto nested = [](size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); };
    QCOMPARE(jsonNestingDepth("1"), size_t(0));
    QCOMPARE(jsonNestingDepth(R"({"a":["[[[",{}]})"), size_t(3));
    QCOMPARE(jsonNestingDepth(nested(kMaxJsonDepth + 1)), kMaxJsonDepth + 1);

    std::string out;
    QVERIFY(appendPyJson(out, nested(kMaxJsonDepth), 4, 1));
    QVERIFY(out.size() > 2 * kMaxJsonDepth);
    out.clear();
    QVERIFY(!appendPyJson(out, nested(kMaxJsonDepth + 1), 4, 1));
    out.clear();
    QVERIFY(!appendPyJson(out, nested(200000), 4, 1));
    // Siblings do not add up: the limit is on depth, not on the number of containers.
    std::string wide = "[";
    for (int i = 0; i < 2000; ++i) {
        if (i)
            wide += ',';
        wide += nested(10);
    }
    wide += "]";
    out.clear();
    QVERIFY(appendPyJson(out, wide, 4, 1));
}

QTEST_GUILESS_MAIN(TestPyJson)
#include "tst_pyjson.moc"
