// SPDX-License-Identifier: MIT
// Fills a KinetoTrace from batches of traceEvents elements.
#pragma once

#include "model/diagnostics.h"
#include "model/kinetotrace.h"
#include "json/jsonstream.h"

#include <memory>

namespace syncscope {

class KinetoEventSink
{
public:
    KinetoEventSink(KinetoTrace &trace, Diagnostics &diagnostics, bool keepRaw);
    ~KinetoEventSink();
    // Parses "[e1,e2,...]" (padded) and appends one KinetoEvent per element.
    void addBatch(const ElementBatch &batch);
    // Reads the small top-level values (schemaVersion, distributedInfo, ...).
    void addTopLevel(const std::string &key, std::string_view raw);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

EventKind classifyCategory(std::string_view cat, char ph);

} // namespace syncscope
