// SPDX-License-Identifier: MIT
// Hands memory freed by a finished rank back to the system.
#pragma once

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace syncscope {

// glibc keeps freed memory in the per-thread arenas of the worker and loader threads,
// which adds up over a job's ranks; malloc_trim returns it. Under AddressSanitizer
// malloc is ASan's and glibc's arenas were never set up: malloc_trim would read them
// (a crash seen in CI), so it is skipped there.
inline void releaseFreedMemory()
{
#if defined(__SANITIZE_ADDRESS__)
    return;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return;
#endif
#endif
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

} // namespace syncscope
