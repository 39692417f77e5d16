#pragma once
// The terminal view of `vramscope watch`: a pure function from a frame to text, so tests can
// compare it exactly. One block per refresh:
//
//   vramscope watch  2025-11-21 10:00:00  nvml  every 1 s, peaks over 4 samples
//   GPU  NAME                      USED / TOTAL               UTIL  PEAK       MAX
//   0    NVIDIA H100 80GB HBM3     70.00 GiB / 79.65 GiB  88%   97%   71.20 GiB  72.00 GiB
//        PID      RANK  NAME              MEMORY      PEAK
//        4242     0     python3           69.50 GiB   70.70 GiB
//   alerts:
//     [shared_gpu] GPU 0 holds 2 processes: ...
//
// PEAK is the highest figure since the previous refresh, MAX since watch started.

#include <chrono>
#include <string>

#include <vramscope/watch/peak_tracker.hpp>
#include <vramscope/watch/sampler.hpp>

namespace vramscope::watch {

struct view_options {
  /// Start the block with ANSI "clear screen, cursor home" so it redraws in place; for TTYs.
  bool clear_screen = false;
  std::chrono::milliseconds interval{1000};  // shown in the title
  bool utc = false;                          // timestamps in UTC instead of local time
};

/// The block for one frame. Lines end with '\n'.
std::string render_frame(const frame& f, const peak_tracker& peaks, const view_options& options);

}  // namespace vramscope::watch
