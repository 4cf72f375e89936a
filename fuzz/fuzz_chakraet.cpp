// SPDX-License-Identifier: MIT
// The Chakra protobuf .et reader, through --inspect's summary.
#include "fuzzinput.h"

#include "export/chakrasummary.h"
#include "io/bytesource.h"

using namespace syncscope;

extern "C" int SYNCSCOPE_FUZZ_ENTRY(const uint8_t *data, size_t size)
{
    fuzz::MemFile et(data, size);
    try {
        (void)formatChakraEtSummary(summarizeChakraEt(et.path()));
    } catch (const InputError &) {
        // rejected with a message: fine
    }
    return 0;
}
