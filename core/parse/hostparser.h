// SPDX-License-Identifier: MIT
// Fills a HostTrace from batches of ET "nodes" elements (every schema from 1.0.1).
#pragma once

#include "model/diagnostics.h"
#include "model/hosttrace.h"
#include "json/jsonstream.h"

#include <memory>

namespace syncscope {

class HostNodeSink
{
public:
    HostNodeSink(HostTrace &trace, Diagnostics &diagnostics);
    ~HostNodeSink();
    void addBatch(const ElementBatch &batch);
    void addTopLevel(const std::string &key, std::string_view raw);
    // Checks the schema and the node graph once everything is read.
    void finish();

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

// Known ET schema versions and how we read them.
enum class SchemaSupport { Known, NewerMinor, Unsupported };
SchemaSupport classifySchema(const std::string &schema);

} // namespace syncscope
