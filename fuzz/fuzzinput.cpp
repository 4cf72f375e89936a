// SPDX-License-Identifier: MIT
#include "fuzzinput.h"

#include <cstdlib>
#include <sys/mman.h>
#include <unistd.h>

namespace syncscope::fuzz {

MemFile::MemFile(const uint8_t *data, size_t size)
{
    m_fd = memfd_create("syncscope-fuzz", MFD_CLOEXEC);
    if (m_fd < 0)
        std::abort(); // the harness itself is broken, not the code under test
    size_t done = 0;
    while (done < size) {
        const ssize_t n = ::write(m_fd, data + done, size - done);
        if (n <= 0)
            std::abort();
        done += static_cast<size_t>(n);
    }
    m_path = "/proc/self/fd/" + std::to_string(m_fd);
}

MemFile::~MemFile()
{
    ::close(m_fd);
}

} // namespace syncscope::fuzz
