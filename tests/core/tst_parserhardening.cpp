// SPDX-License-Identifier: MIT
// Hostile inputs for the readers (issue 11): duplicate keys, numbers out of
// range, invalid JSON the old scanner accepted, size claims that must not be
// trusted, and error messages that name the right entry and byte.
#include "export/chakrafields.h"
#include "export/chakrareader.h"
#include "io/bytesource.h"
#include "parse/hostparser.h"
#include "parse/traceloader.h"
#include "testutil.h"

#include <QtTest>

using namespace syncscope;

class TestParserHardening : public QObject
{
    Q_OBJECT
private slots:
    void duplicateIdKeysLastWins();
    void duplicateTimeAndArgKeysLastWins();
    void duplicateTopLevelKeys();
    void hugeNumbersAreRejected();
    void schemaVersionOverflow();
    void commSizeOverflow();
    void invalidJsonIsRejected_data();
    void invalidJsonIsRejected();
    void invalidUtf8TopLevelValue();
    void byteOrderMarkPlainAndGzip();
    void gzipZeroPadding();
    void gzipSizeClaimIsNotTrusted();
    void hugeValueIsRefused();
    void etMessageTooLarge();
    void errorNamesTheRightEntry();
};


namespace {

std::string writeTemp(const std::string &name, const std::string &content)
{
    const std::string path = testutil::tempDir() + "/" + name;
    testutil::writeText(path, content);
    return path;
}

std::string kineto(const std::string &events, const std::string &extra = {})
{
    return R"({"schemaVersion": 1)" + extra + R"(, "traceEvents": [)" + events + "]}";
}

LoadedTrace load(const std::string &content, Diagnostics &diag, const std::string &name = "t.json")
{
    return loadTrace(writeTemp(name, content), diag);
}

bool hasCode(const Diagnostics &diag, const std::string &code)
{
    return diag.find(code) != nullptr;
}

std::string codes(const Diagnostics &diag)
{
    std::string out;
    for (const auto &d : diag.items())
        out += d.code + ": " + d.message + "\n";
    return out;
}

const char *kKernel = R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 10, "dur": 2})";

} // namespace

// Item 1: "tid" as a string, then as a number: the number wins and is not a StrId.
void TestParserHardening::duplicateIdKeysLastWins()
{
    Diagnostics diag;
    auto t = load(kineto(R"({"ph":"X","cat":"cpu_op","name":"a","pid":"p","pid":12,"tid":"main","tid":4000000000,"ts":1,"dur":2})"),
                  diag);
    QVERIFY2(t.complete, codes(diag).c_str());
    const KinetoEvent &e = t.device->events.at(0);
    QVERIFY(!e.has(KinetoEvent::TidIsString));
    QVERIFY(!e.has(KinetoEvent::PidIsString));
    QCOMPARE(e.tid, int64_t(4000000000));
    QCOMPARE(e.pid, int64_t(12));
    QVERIFY(hasCode(diag, "kineto.duplicate_key"));
    // And the other way round: the string wins.
    Diagnostics diag2;
    auto t2 = load(kineto(R"({"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":5,"tid":"main","ts":1,"dur":2})"), diag2);
    const KinetoEvent &e2 = t2.device->events.at(0);
    QVERIFY(e2.has(KinetoEvent::TidIsString));
    QCOMPARE(t2.device->str(static_cast<StrId>(e2.tid)), std::string_view("main"));
}

void TestParserHardening::duplicateTimeAndArgKeysLastWins()
{
    Diagnostics diag;
    auto t = load(kineto(R"({"ph":"X","cat":"kernel","name":"k","pid":1,"tid":1,"ts":2,"ts":1.5,"dur":3,)"
                         R"("args":{"External id":"x","External id":5,"correlation":9,"stream":7}})"),
                  diag);
    QVERIFY2(t.complete, codes(diag).c_str());
    const KinetoEvent &e = t.device->events.at(0);
    QCOMPARE(e.tsNs, int64_t(1500));
    QVERIFY(!e.has(KinetoEvent::TsIsInteger));
    QVERIFY(e.has(KinetoEvent::HasExternalId));
    QCOMPARE(e.externalId, int64_t(5));
    // A second "args" object replaces the first one entirely.
    Diagnostics diag2;
    auto t2 = load(kineto(R"({"ph":"X","cat":"kernel","name":"k","pid":1,"tid":1,"ts":2,"dur":3,)"
                          R"("args":{"correlation":9,"stream":7},"args":{"device":0}})"),
                   diag2);
    const KinetoEvent &e2 = t2.device->events.at(0);
    QVERIFY(!e2.has(KinetoEvent::HasCorrelation));
    QCOMPARE(e2.stream, int64_t(-1));
    QCOMPARE(e2.device, int64_t(0));
    QVERIFY(hasCode(diag2, "kineto.duplicate_key"));
}

// A repeated top-level key keeps its first position and the last value; a
// second "traceEvents" array is refused.
void TestParserHardening::duplicateTopLevelKeys()
{
    Diagnostics diag;
    auto t = load(R"({"schemaVersion": 1, "distributedInfo": {"rank": 3}, "schemaVersion": 2, "traceEvents": []})",
                  diag);
    QVERIFY(t.device);
    QCOMPARE(t.device->schemaVersion.value_or(-1), int64_t(2));
    int count = 0;
    for (const auto &kv : t.device->topLevel)
        count += kv.first == "schemaVersion";
    QCOMPARE(count, 1);
    QVERIFY(hasCode(diag, "json.duplicate_key"));
    Diagnostics diag2;
    auto t2 = load(R"({"traceEvents": [)" + std::string(kKernel) + R"(], "traceEvents": []})", diag2);
    QVERIFY(!t2.complete);
    QVERIFY2(hasCode(diag2, "json.duplicate_array"), codes(diag2).c_str());
}

// Item 3: numbers that would overflow are rejected with a warning, never wrapped.
void TestParserHardening::hugeNumbersAreRejected()
{
    Diagnostics diag;
    auto t = load(kineto(R"({"ph":"X","cat":"kernel","name":"a","pid":1,"tid":1,"ts":9300000000000000,"dur":1},)"
                         R"({"ph":"X","cat":"kernel","name":"b","pid":1,"tid":1,"ts":1,"dur":9.3e15},)"
                         R"({"ph":"X","cat":"kernel","name":"c","pid":1,"tid":1,"ts":1e300,"dur":1},)"
                         R"({"ph":"X","cat":"kernel","name":"d","pid":1,"tid":1,"ts":"1e300","dur":1},)"
                         R"({"ph":"X","cat":"kernel","name":"e","pid":1e300,"tid":1,"ts":1,"dur":1,)"
                         R"("args":{"External id":1e300,"correlation":18446744073709551615,"stream":1e300}})",
                         R"(, "baseTimeNanoseconds": 1e300)"),
                  diag);
    QVERIFY2(t.complete, codes(diag).c_str());
    const auto &ev = t.device->events;
    QCOMPARE(ev.size(), size_t(5));
    QVERIFY(!ev[0].has(KinetoEvent::HasTs));
    QVERIFY(!ev[1].has(KinetoEvent::HasDur));
    QVERIFY(!ev[2].has(KinetoEvent::HasTs));
    QVERIFY(!ev[3].has(KinetoEvent::HasTs));
    QVERIFY(!ev[4].has(KinetoEvent::HasExternalId));
    QVERIFY(!ev[4].has(KinetoEvent::HasCorrelation));
    QCOMPARE(ev[4].stream, int64_t(-1));
    QCOMPARE(ev[4].pid, int64_t(0));
    QVERIFY(!t.device->baseTimeNanoseconds.has_value());
    QVERIFY(hasCode(diag, "kineto.ts_out_of_range"));
    QVERIFY(hasCode(diag, "kineto.dur_out_of_range"));
    QVERIFY(hasCode(diag, "kineto.bad_external_id"));
    // The largest accepted values still add up without overflow.
    QVERIFY(t.device->maxEndNs >= t.device->minTsNs);
}

void TestParserHardening::schemaVersionOverflow()
{
    QCOMPARE(classifySchema("1.1.99999999999"), SchemaSupport::Unsupported);
    QCOMPARE(classifySchema("1.99999999999999999999.0"), SchemaSupport::Unsupported);
    QCOMPARE(classifySchema("1.2.0"), SchemaSupport::NewerMinor);
}

void TestParserHardening::commSizeOverflow()
{
    // numel 2^62 x 8 bytes does not fit int64.
    const auto size = chakraCommSize(R"([[1, 2, 0, 4611686018427387904, 8, "cuda:0"]])", R"x(["Tensor(float)"])x");
    QVERIFY(!size.has_value());
    const auto ok = chakraCommSize(R"([[1, 2, 0, 1024, 4, "cuda:0"]])", R"x(["Tensor(float)"])x");
    QCOMPARE(ok.value_or(-1), int64_t(4096));
}

// Item 16: what Python's json.load rejects is rejected.
void TestParserHardening::invalidJsonIsRejected_data()
{
    QTest::addColumn<QString>("content");
    QTest::addColumn<QString>("code");
    const std::string k = kKernel;
    QTest::newRow("trailing comma in array") << QString::fromStdString(kineto(k + ",")) << "json.invalid";
    QTest::newRow("leading comma in array") << QString::fromStdString(kineto("," + k)) << "json.invalid";
    QTest::newRow("double comma") << QString::fromStdString(kineto(k + ",," + k)) << "json.invalid";
    QTest::newRow("missing comma") << QString::fromStdString(kineto(k + " " + k)) << "json.invalid";
    QTest::newRow("trailing comma in object")
        << QString::fromStdString(R"({"traceEvents": [], "schemaVersion": 1,})") << "json.invalid";
    QTest::newRow("leading comma in object") << QString::fromStdString(R"({, "traceEvents": []})") << "json.invalid";
    QTest::newRow("missing comma in object")
        << QString::fromStdString(R"({"schemaVersion": 1 "traceEvents": []})") << "json.invalid";
    QTest::newRow("trailing garbage") << QString::fromStdString(kineto(k) + " x") << "json.trailing_data";
    QTest::newRow("two documents") << QString::fromStdString(kineto(k) + kineto(k)) << "json.trailing_data";
    QTest::newRow("bad literal") << QString::fromStdString(kineto(k, R"(, "x": tru)")) << "json.invalid";
    QTest::newRow("bad nesting") << QString::fromStdString(kineto(k, R"(, "x": {])")) << "json.invalid";
    QTest::newRow("bad number") << QString::fromStdString(kineto(k, R"(, "x": 01)")) << "json.invalid";
}
void TestParserHardening::invalidJsonIsRejected()
{
    QFETCH(QString, content);
    QFETCH(QString, code);
    Diagnostics diag;
    auto t = load(content.toStdString(), diag);
    QVERIFY(!t.complete);
    QVERIFY2(hasCode(diag, code.toStdString()), codes(diag).c_str());
}

// Item 15: invalid UTF-8 in a value that outputs copy verbatim is refused.
void TestParserHardening::invalidUtf8TopLevelValue()
{
    Diagnostics diag;
    auto t = load(kineto(kKernel, ", \"x\": \"\xff\xfe\""), diag);
    QVERIFY(!t.complete);
    QVERIFY2(hasCode(diag, "json.invalid"), codes(diag).c_str());
    Diagnostics hostDiag;
    auto h = load("{\"schema\": \"1.0.1\", \"time\": \"\xc3\x28\", \"nodes\": []}", hostDiag, "et.json");
    QVERIFY(!h.complete);
    QVERIFY2(hasCode(hostDiag, "json.invalid"), codes(hostDiag).c_str());
}

void TestParserHardening::byteOrderMarkPlainAndGzip()
{
    const std::string doc = "\xEF\xBB\xBF" + kineto(kKernel);
    Diagnostics diag;
    auto plain = loadTrace(writeTemp("bom.json", doc), diag);
    QVERIFY2(plain.complete, codes(diag).c_str());
    QCOMPARE(plain.device->events.size(), size_t(1));
    Diagnostics diag2;
    auto gz = loadTrace(writeTemp("bom.json.gz", testutil::gzipped(doc)), diag2);
    QVERIFY2(gz.complete, codes(diag2).c_str());
    QCOMPARE(gz.device->events.size(), size_t(1));
}

// `gzip -d` accepts zero padding after the last member.
void TestParserHardening::gzipZeroPadding()
{
    const std::string gz = testutil::gzipped(kineto(kKernel)) + std::string(4096, '\0');
    Diagnostics diag;
    auto t = loadTrace(writeTemp("padded.json.gz", gz), diag);
    QVERIFY2(t.complete, codes(diag).c_str());
    QCOMPARE(t.device->events.size(), size_t(1));
    Diagnostics diag2;
    auto bad = loadTrace(writeTemp("garbage.json.gz", testutil::gzipped(kineto(kKernel)) + std::string("\0\0garbage", 9)), diag2);
    QVERIFY(!bad.complete);
}

// Item 5: a trailer claiming 4 GiB must not size any allocation.
void TestParserHardening::gzipSizeClaimIsNotTrusted()
{
    std::string gz = testutil::gzipped(kineto(kKernel));
    gz[gz.size() - 4] = gz[gz.size() - 3] = gz[gz.size() - 2] = gz[gz.size() - 1] = '\xff';
    Diagnostics diag;
    // zlib checks ISIZE, so the file is corrupt, but nothing was reserved for it.
    auto t = loadTrace(writeTemp("liar.json.gz", gz), diag);
    QVERIFY(!t.complete);
    QVERIFY(!t.device || t.device->events.capacity() < 1000);
}

// Item 6: one enormous value is refused with a clear message, not buffered.
void TestParserHardening::hugeValueIsRefused()
{
    std::string doc = R"({"traceEvents": [{"name": ")";
    doc.append(size_t(300) << 20, 'a');
    doc += R"("}]})";
    Diagnostics diag;
    auto t = loadTrace(writeTemp("huge.json.gz", testutil::gzipped(doc)), diag);
    doc.clear();
    QVERIFY(!t.complete);
    QVERIFY2(hasCode(diag, "json.value_too_large"), codes(diag).c_str());
    QVERIFY(diag.find("json.value_too_large")->message.find("huge.json.gz") != std::string::npos);
}

void TestParserHardening::etMessageTooLarge()
{
    std::string et;
    et += '\x03';
    et += "\x0a\x01x"; // GlobalMetadata{version: "x"}
    et += "\x80\x80\x80\x80\x04"; // a varint32 length of 1 GiB
    et += std::string(64, '\0');
    const std::string path = writeTemp("huge.et", et);
    try {
        ChakraEtReader reader(path);
        ChakraProtoMsg::Node node;
        while (reader.next(node)) {
        }
        QFAIL("a 1 GiB message was accepted");
    } catch (const InputError &e) {
        QCOMPARE(e.code(), std::string("chakra_et.message_too_large"));
    }
}

// Item 18: the error names the entry that is wrong and the byte where it starts.
void TestParserHardening::errorNamesTheRightEntry()
{
    std::string events;
    for (int i = 0; i < 7000; ++i)
        events += std::string(kKernel) + ",";
    const size_t badAt = std::string(R"({"schemaVersion": 1, "traceEvents": [)").size() + events.size();
    events += R"({"ph": "X", "name": tru})";
    Diagnostics diag;
    auto t = load(kineto(events), diag);
    QVERIFY(!t.complete);
    const Diagnostic *d = diag.find("json.invalid");
    QVERIFY2(d, codes(diag).c_str());
    QVERIFY2(d->message.find("entry 7000 ") != std::string::npos, d->message.c_str());
    QVERIFY2(d->message.find("byte " + std::to_string(badAt)) != std::string::npos, d->message.c_str());
    QCOMPARE(d->offset, int64_t(badAt));
}

QTEST_GUILESS_MAIN(TestParserHardening)
#include "tst_parserhardening.moc"
