// SPDX-License-Identifier: MIT
// The memory the flight recorder dumps being read at once may hold (issue 40). Internal to core/hang.
#pragma once

#include <atomic>
#include <cstddef>

namespace syncscope {

// Shared by the threads reading one folder, so a folder of hostile dumps holds at most the
// limit whatever the number of cores (each dump's own bounds are per dump). Counted: a
// file's bytes, its inflated bytes, the JSON parser's document, the value tree and the
// strings it copies. Not counted: the dumps read (the result) and what a thread keeps
// for its next dump (a few MB).
class FrMemoryBudget
{
public:
    explicit FrMemoryBudget(size_t limitBytes) : m_limit(limitBytes) {}
    size_t limit() const { return m_limit; }
    size_t peak() const { return m_peak.load(std::memory_order_relaxed); }
    // Takes `bytes` if the total stays within the limit.
    bool take(size_t bytes)
    {
        size_t used = m_used.load(std::memory_order_relaxed);
        do {
            if (bytes > m_limit - used)
                return false;
        } while (!m_used.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
        size_t peak = m_peak.load(std::memory_order_relaxed);
        while (used + bytes > peak && !m_peak.compare_exchange_weak(peak, used + bytes, std::memory_order_relaxed)) {
        }
        return true;
    }
    void give(size_t bytes) { m_used.fetch_sub(bytes, std::memory_order_relaxed); }

private:
    size_t m_limit;
    std::atomic<size_t> m_used{0}, m_peak{0};
};

// Thrown by a charge past the budget; the reader catches it and refuses the dump (or
// leaves it to be read alone).
struct FrOverBudget {
};

// What one dump's read holds of a budget (none: not counted), given back when destroyed.
class FrBudgetShare
{
public:
    explicit FrBudgetShare(FrMemoryBudget *budget) : m_budget(budget) {}
    ~FrBudgetShare()
    {
        if (m_budget)
            m_budget->give(m_held);
    }
    FrBudgetShare(const FrBudgetShare &) = delete;
    FrBudgetShare &operator=(const FrBudgetShare &) = delete;
    void charge(size_t bytes)
    {
        if (!m_budget)
            return;
        if (!m_budget->take(bytes))
            throw FrOverBudget{};
        m_held += bytes;
    }

private:
    FrMemoryBudget *m_budget;
    size_t m_held = 0;
};

} // namespace syncscope
