#pragma once
// memory_stats arithmetic shared by every model: increase moves current and peak, decrease
// moves current only (torch's increase_stat / decrease_stat).

#include <algorithm>
#include <cassert>

#include <vramscope/alloc/allocator_model.hpp>
#include <vramscope/core/result.hpp>  // VRAMSCOPE_EXPECTS

namespace vramscope::alloc::detail {

inline void increase(stat& s, bytes n) {
  s.current += n;
  s.peak = std::max(s.peak, s.current);
}

inline void decrease(stat& s, bytes n) {
  assert(s.current >= n && "stat would go negative");
  s.current -= n;
}

inline void reset_peak(stat& s) { s.peak = s.current; }

inline void reset_peaks(allocator_stats& s) {
  reset_peak(s.allocated);
  reset_peak(s.active);
  reset_peak(s.reserved);
  reset_peak(s.requested);
}

}  // namespace vramscope::alloc::detail
