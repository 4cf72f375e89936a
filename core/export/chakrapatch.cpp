// SPDX-License-Identifier: MIT
#include "chakrapatch.h"

#include "chakrareader.h"
#include "chakrawriter.h"
#include "io/outputfile.h"

#include <algorithm>

namespace syncscope {

namespace {

void dropAttr(ChakraProtoMsg::Node &node, const char *name)
{
    auto *attrs = node.mutable_attr();
    for (int k = attrs->size() - 1; k >= 0; --k)
        if (attrs->Get(k).name() == name)
            attrs->DeleteSubrange(k, 1);
}

} // namespace

void setRankStartOffset(const std::string &path, int64_t micros)
{
    // First pass: a free id for the delay node (or the one an earlier patch gave it).
    uint64_t maxId = 0;
    bool anyNode = false, hadDelay = false;
    uint64_t delayId = 0;
    {
        ChakraEtReader scan(path);
        ChakraProtoMsg::Node node;
        while (scan.next(node)) {
            if (node.name() == kRankStartDelayName) {
                hadDelay = true;
                delayId = node.id();
                continue;
            }
            maxId = anyNode ? std::max(maxId, node.id()) : node.id();
            anyNode = true;
        }
    }
    if (!hadDelay)
        delayId = anyNode ? maxId + 1 : 0;
    const bool delay = micros > 0 && anyNode;

    ChakraEtReader in(path);
    OutputFile out(path, {}, in.compressed() ? OutputFile::Compression::Gzip : OutputFile::Compression::None);
    std::string buf;
    appendEtMessage(buf, in.metadata());
    if (delay) {
        // The rank's start as a node a simulator cannot miss: every node that depends on
        // nothing waits for it, so the rank's work starts `micros` later.
        ChakraProtoMsg::Node d;
        d.set_id(delayId);
        d.set_name(kRankStartDelayName);
        d.set_type(ChakraProtoMsg::COMP_NODE);
        d.set_duration_micros(static_cast<uint64_t>(micros));
        ChakraProtoMsg::AttributeProto *cpu = d.add_attr();
        cpu->set_name("is_cpu_op");
        cpu->set_bool_val(true);
        ChakraProtoMsg::AttributeProto *a = d.add_attr();
        a->set_name(kRankStartOffsetAttr);
        a->set_int64_val(micros);
        appendEtMessage(buf, d);
    }
    ChakraProtoMsg::Node node;
    bool first = true;
    while (in.next(node)) {
        if (node.name() == kRankStartDelayName)
            continue; // patched again: the new delay node replaces it
        dropAttr(node, kRankStartOffsetAttr);
        if (delay) {
            if (node.data_deps_size() == 0) // (a node of an earlier patch keeps its dep on the same id)
                node.add_data_deps(delayId);
        } else if (hadDelay) {
            auto *deps = node.mutable_data_deps();
            deps->erase(std::remove(deps->begin(), deps->end(), delayId), deps->end());
        }
        if (first && !delay && micros > 0) { // a file with no node to delay keeps the plain attribute
            ChakraProtoMsg::AttributeProto *a = node.add_attr();
            a->set_name(kRankStartOffsetAttr);
            a->set_int64_val(micros);
        }
        first = false;
        appendEtMessage(buf, node);
        if (buf.size() >= (1 << 20)) {
            out.write(buf);
            buf.clear();
        }
    }
    out.write(buf);
    out.commit();
}

} // namespace syncscope
