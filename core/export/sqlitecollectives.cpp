// SPDX-License-Identifier: MIT
// What the SQLite export keeps of a rank's collectives for the job tables
// (job/jobsqlite.cpp): each kernel's .et type and nccl-tests message size, taken
// while the rank's traces are loaded (core/analysis/busbw.h).
#include "sqliteinternal.h"

#include "analysis/busbw.h"
#include "analysis/chakracommkind.h"
#include "analysis/rankanalysis.h"
#include "analysis/ranksummary.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace syncscope {

std::vector<SqliteCollectiveExtra> sqliteCollectiveExtras(const Analysis &a, const RankSummary &summary)
{
    std::vector<SqliteCollectiveExtra> out(summary.collectives.size());
    if (!a.device)
        return out;
    const ChakraKernelKinds kinds(a.host.get(), *a.device, a.link ? &*a.link : nullptr);
    for (size_t k = 0; k < out.size(); ++k) {
        const RankCollective &c = summary.collectives[k];
        if (c.event >= a.device->events.size())
            continue;
        const std::string et = chakraCommKindName(kinds.of(c.event));
        out[k].etType = et.empty() ? "COMP_NODE" : et;
        // The type busbw is measured as: the .et's, else the collective's, else the kernel's name.
        CollectiveType type = collectiveTypeOf(et);
        if (type == CollectiveType::Unknown)
            type = collectiveTypeOf(c.collectiveName);
        if (type == CollectiveType::Unknown)
            type = collectiveTypeOf(c.kernelName);
        out[k].busBwType = uint8_t(type);
        out[k].bytes = kernelMessageBytes(*a.device, a.link ? &*a.link : nullptr, c.event, type);
    }
    return out;
}

} // namespace syncscope
