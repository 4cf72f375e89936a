// SPDX-License-Identifier: MIT
#include "replicate.h"

#include "io/bytesource.h"
#include "io/outputfile.h"
#include "json/jsonstream.h"

#include <nlohmann/json.hpp>

#include <stdexcept>

namespace tracegen {

using namespace syncscope;
using ojson = nlohmann::ordered_json;

namespace {

// Collects the events and the other top-level members of the input (small enough for a DOM per event).
class Collector : public JsonStreamHandler
{
public:
    std::vector<std::string> events;
    std::vector<std::pair<std::string, std::string>> top;
    bool streamArray(std::string_view key) override { return key == "traceEvents"; }
    void topLevelValue(std::string_view key, std::string_view raw) override { top.emplace_back(key, raw); }
    void arrayBegin(std::string_view) override {}
    void arrayEnd(std::string_view) override {}
    void elementBatch(ElementBatch &batch) override
    {
        for (const auto &s : batch.spans)
            events.emplace_back(batch.json.data() + s.offset, s.length);
    }
};

void offsetInt(ojson &obj, const char *key, int64_t by)
{
    auto it = obj.find(key);
    if (it != obj.end() && it->is_number_integer() && it->get<int64_t>() > 0)
        *it = it->get<int64_t>() + by;
}

} // namespace

ReplicateResult replicateKineto(const std::string &input, const std::string &output, int copies)
{
    auto source = openByteSource(input);
    Collector c;
    streamJson(*source, input, c);
    // Time span and id ranges of one copy.
    double minTs = 1e300, maxEnd = -1e300;
    std::vector<ojson> parsed;
    parsed.reserve(c.events.size());
    int64_t maxId = 0;
    for (const auto &text : c.events) {
        parsed.push_back(ojson::parse(text));
        const ojson &e = parsed.back();
        if (e.contains("ts") && e["ts"].is_number() && e.value("ph", "") != "M") {
            const double ts = e["ts"].get<double>();
            minTs = std::min(minTs, ts);
            maxEnd = std::max(maxEnd, ts + (e.contains("dur") && e["dur"].is_number() ? e["dur"].get<double>() : 0.0));
        }
        if (e.contains("id") && e["id"].is_number_integer())
            maxId = std::max(maxId, e["id"].get<int64_t>());
        if (e.contains("args") && e["args"].is_object())
            for (const char *k : {"correlation", "External id", "Record function id"})
                if (e["args"].contains(k) && e["args"][k].is_number_integer())
                    maxId = std::max(maxId, e["args"][k].get<int64_t>());
    }
    const double span = (maxEnd - minTs) + 1000.0;
    const int64_t idStride = maxId + 1;

    OutputFile out(output, {input});
    ReplicateResult r;
    std::string buf = "{";
    bool firstTop = true;
    for (const auto &[k, v] : c.top) {
        if (!firstTop)
            buf += ",";
        firstTop = false;
        buf += "\n  \"" + k + "\": " + v;
    }
    buf += std::string(firstTop ? "" : ",") + "\n  \"traceEvents\": [";
    bool first = true;
    for (int copy = 0; copy < copies; ++copy) {
        for (const ojson &original : parsed) {
            if (copy > 0 && original.value("ph", "") == "M")
                continue; // lane names once
            ojson e = original;
            if (copy > 0) {
                if (e.contains("ts") && e["ts"].is_number())
                    e["ts"] = e["ts"].get<double>() + span * copy;
                offsetInt(e, "id", idStride * copy);
                if (e.contains("args") && e["args"].is_object())
                    for (const char *k : {"correlation", "External id", "Record function id",
                                          "wait_on_cuda_event_record_corr_id"})
                        offsetInt(e["args"], k, idStride * copy);
            }
            buf += first ? "\n  " : ",\n  ";
            first = false;
            buf += e.dump();
            ++r.events;
            if (buf.size() > (1 << 20)) {
                out.write(buf);
                r.bytes += buf.size();
                buf.clear();
            }
        }
    }
    buf += "\n  ]\n}\n";
    out.write(buf);
    r.bytes += buf.size();
    out.commit();
    return r;
}

} // namespace tracegen
