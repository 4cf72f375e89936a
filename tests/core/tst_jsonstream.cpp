// SPDX-License-Identifier: MIT
#include "io/bytesource.h"
#include "json/batchparse.h"
#include "json/jsonstream.h"
#include "json/numbers.h"
#include "testutil.h"

#include <QtTest>

#include <chrono>
#include <thread>

using namespace syncscope;

namespace {

class StringSource : public ByteSource
{
public:
    StringSource(std::string data, size_t chunk) : m_data(std::move(data)), m_chunk(chunk) {}
    size_t read(char *dst, size_t n) override
    {
        const size_t k = std::min({n, m_chunk, m_data.size() - m_pos});
        std::memcpy(dst, m_data.data() + m_pos, k);
        m_pos += k;
        return k;
    }
    uint64_t consumed() const override { return m_pos; }
    uint64_t fileSize() const override { return m_data.size(); }
    bool compressed() const override { return false; }

private:
    std::string m_data;
    size_t m_chunk;
    size_t m_pos = 0;
};

// Records what the streamer reports, as text, so tests compare one string.
class Recorder : public JsonStreamHandler
{
public:
    std::string streamKey = "traceEvents";
    std::string log;
    bool streamArray(std::string_view key) override { return key == streamKey; }
    void topLevelValue(std::string_view key, std::string_view raw) override
    {
        log += "top " + std::string(key) + "=" + std::string(raw) + "\n";
    }
    void arrayBegin(std::string_view key) override { log += "begin " + std::string(key) + "\n"; }
    void arrayEnd(std::string_view key) override { log += "end " + std::string(key) + "\n"; }
    void elementBatch(ElementBatch &batch) override
    {
        QVERIFY(batch.json.size() >= batch.length + 64);
        QCOMPARE(batch.json[0], '[');
        QCOMPARE(batch.json[batch.length - 1], ']');
        for (const auto &span : batch.spans)
            log += "elem " + std::string(batch.json.data() + span.offset, span.length) + "\n";
    }
};

std::string run(const std::string &json, size_t chunk, const std::string &key = "traceEvents")
{
    StringSource src(json, chunk);
    Recorder rec;
    rec.streamKey = key;
    streamJson(src, "mem.json", rec);
    return rec.log;
}

// Reads {"v": N} elements by parsing each batch whole, as the trace sinks do, slowly
// when asked (a worker that falls behind the scanner).
class WholeBatchReader : public JsonStreamHandler
{
public:
    bool whole = true;
    int delayMs = 0;
    size_t batches = 0, preParsed = 0, elements = 0;
    int64_t sum = 0;
    bool streamArray(std::string_view key) override { return key == "traceEvents"; }
    void topLevelValue(std::string_view, std::string_view) override {}
    void arrayBegin(std::string_view) override {}
    void arrayEnd(std::string_view) override {}
    bool parsesBatchesWhole() const override { return whole; }
    void elementBatch(ElementBatch &batch) override
    {
        ++batches;
        preParsed += batch.parsed && batch.parsed->ok ? 1 : 0;
        if (delayMs > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(delayMs));
        try {
            for (simdjson::dom::element v : parseBatch(batch, m_parser).get_array()) {
                sum += int64_t(v["v"]);
                ++elements;
            }
        } catch (const simdjson::simdjson_error &e) {
            throw invalidJsonEntry("mem.json", "traceEvents entry", elements, batch, e.what());
        }
    }

private:
    simdjson::dom::parser m_parser;
};

std::string numberedEvents(int n, int bad = -1)
{
    std::string json = R"({"traceEvents": [)";
    for (int i = 0; i < n; ++i) {
        if (i > 0)
            json += ',';
        if (i == bad) {
            json += R"({"v": nul})";
        } else {
            json += R"({"v": )";
            json += std::to_string(i);
            json += '}';
        }
    }
    json += "]}";
    return json;
}

// Streams through AsyncJsonStreamHandler; the error text, or "" when none.
std::string runAsync(const std::string &json, WholeBatchReader &reader)
{
    StringSource src(json, 1u << 20);
    try {
        AsyncJsonStreamHandler async(reader);
        streamJson(src, "mem.json", async);
        async.finish();
    } catch (const InputError &e) {
        return e.code() + ": " + e.what();
    }
    return {};
}

} // namespace

class TestJsonStream : public QObject
{
    Q_OBJECT
private slots:
    void topLevelAndElements_data();
    void bareArrayAndTrailingComma();
    void errors_data();
    void numbers_data();
    void parsesAheadWhileTheWorkerIsBehind();
    void aBadBatchParsedAheadFailsAsBefore();
};

void TestJsonStream::parsesAheadWhileTheWorkerIsBehind()
{
    // ~3.4 MB: the batches grow to 1 MiB, several of them. A worker 20 ms per batch
    // behind makes the scanning thread parse the next ones itself (issue 40, class 11).
    const int n = 300000;
    const std::string json = numberedEvents(n);
    WholeBatchReader slow;
    slow.delayMs = 20;
    QCOMPARE(runAsync(json, slow), std::string());
    QCOMPARE(slow.elements, size_t(n));
    QCOMPARE(slow.sum, int64_t(n) * (n - 1) / 2);
    QVERIFY2(slow.batches >= 4, std::to_string(slow.batches).c_str());
    QVERIFY(slow.preParsed > 0);
    QVERIFY(slow.preParsed < slow.batches); // the first ones never wait
    // Nor while another stream is being read (a pair's other trace, a job's ranks).
    WholeBatchReader idle, alongside;
    alongside.delayMs = 20;
    {
        AsyncJsonStreamHandler other(idle);
        QCOMPARE(runAsync(json, alongside), std::string());
    }
    QCOMPARE(alongside.elements, size_t(n));
    QCOMPARE(alongside.preParsed, size_t(0));
    // A handler that parses its batches another way never gets them parsed.
    WholeBatchReader other;
    other.whole = false;
    other.delayMs = 20;
    QCOMPARE(runAsync(json, other), std::string());
    QCOMPARE(other.elements, size_t(n));
    QCOMPARE(other.preParsed, size_t(0));
}

void TestJsonStream::aBadBatchParsedAheadFailsAsBefore()
{
    // simdjson rejects a late batch: the scanning thread's parse fails, the worker
    // parses it again and reports it exactly as a one-thread read does.
    const std::string json = numberedEvents(300000, 280000);
    WholeBatchReader oneThread;
    oneThread.whole = false;
    StringSource src(json, 1u << 20);
    std::string expected;
    try {
        streamJson(src, "mem.json", oneThread);
    } catch (const InputError &e) {
        expected = e.code() + ": " + e.what();
    }
    QVERIFY(expected.find("280000") != std::string::npos);
    WholeBatchReader slow;
    slow.delayMs = 20;
    QCOMPARE(runAsync(json, slow), expected);
    QVERIFY(slow.preParsed > 0);
}

void TestJsonStream::topLevelAndElements_data()
{
    QTest::addColumn<int>("chunk");
    for (int chunk : {1, 2, 3, 7, 64, 1 << 20})
        QTest::newRow(qPrintable(QString::number(chunk))) << chunk;
}

void TestJsonStream::bareArrayAndTrailingComma()
{
    QCOMPARE(QString::fromStdString(run("[{\"a\":1},{\"b\":2}]", 3, {})),
             QStringLiteral("begin \nelem {\"a\":1}\nelem {\"b\":2}\nend \n"));
    // Python's json.load rejects a trailing comma, and so do we (issue 11).
    bool threw = false;
    try {
        run("[{\"a\":1},{\"b\":2},]", 3, {});
    } catch (const InputError &e) {
        threw = e.code() == "json.invalid";
    }
    QVERIFY(threw);
}

void TestJsonStream::errors_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("code");
    QTest::newRow("empty") << "" << "json.empty";
    QTest::newRow("blank") << "  \n " << "json.empty";
    QTest::newRow("not json") << "hello" << "json.not_json";
    QTest::newRow("truncated events") << R"({"traceEvents": [{"a": 1}, {"b": )" << "json.truncated";
    QTest::newRow("truncated object") << R"({"traceEvents": [], "x": )" << "json.truncated";
    QTest::newRow("truncated string") << R"({"traceEvents": [{"a": "abc)" << "json.truncated";
    QTest::newRow("bad key") << R"({traceEvents: []})" << "json.invalid";
    QTest::newRow("trailing comma") << R"({"traceEvents": [{"a": 1},]})" << "json.invalid";
    QTest::newRow("empty element") << R"({"traceEvents": [{"a": 1},,{"b": 2}]})" << "json.invalid";
    QTest::newRow("comma in object") << R"({"x": 1,, "traceEvents": []})" << "json.invalid";
    QTest::newRow("extra data") << R"({"traceEvents": []} {})" << "json.trailing_data";
    QTest::newRow("bad top-level value") << R"({"traceEvents": [], "x": nul})" << "json.invalid";
}

void TestJsonStream::numbers_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("nanos");
    QTest::addColumn<bool>("isInteger");
    QTest::newRow("int") << "1200" << qint64(1200000) << true;
    QTest::newRow("ns fraction") << "4458677009853.422" << qint64(4458677009853422) << false;
    QTest::newRow("one digit") << "1712195495507268.2" << qint64(1712195495507268200) << false;
    QTest::newRow("round half up") << "1.2345" << qint64(1235) << false;
    QTest::newRow("negative") << "-1.5" << qint64(-1500) << false;
    QTest::newRow("float zero") << "1000.0" << qint64(1000000) << false;
    QTest::newRow("exponent") << "1.5e3" << qint64(1500000) << false;
}

QTEST_GUILESS_MAIN(TestJsonStream)
#include "tst_jsonstream.moc"
