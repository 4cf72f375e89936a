// SPDX-License-Identifier: MIT
#include "chakrapatch.h"

#include "chakrareader.h"
#include "chakrawriter.h"
#include "io/outputfile.h"

namespace syncscope {

void setRankStartOffset(const std::string &path, int64_t micros)
{
    ChakraEtReader in(path);
    OutputFile out(path, {}, in.compressed() ? OutputFile::Compression::Gzip : OutputFile::Compression::None);
    std::string buf;
    appendEtMessage(buf, in.metadata());
    ChakraProtoMsg::Node node;
    bool first = true;
    while (in.next(node)) {
        if (first) {
            auto *attrs = node.mutable_attr();
            for (int k = attrs->size() - 1; k >= 0; --k) // once, even when patched twice
                if (attrs->Get(k).name() == kRankStartOffsetAttr)
                    attrs->DeleteSubrange(k, 1);
            ChakraProtoMsg::AttributeProto *a = node.add_attr();
            a->set_name(kRankStartOffsetAttr);
            a->set_int64_val(micros);
            first = false;
        }
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
