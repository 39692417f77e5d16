#pragma once
// Replays a rank's event program through an allocator model and records the peaks, the
// breakdown at the allocated peak, the first OOM and (optionally) the curve.

#include <array>
#include <optional>
#include <vector>

#include <vramscope/alloc/allocator_model.hpp>
#include <vramscope/predict/prediction.hpp>
#include <vramscope/schedule/event.hpp>

namespace vramscope::predict {

struct replay_result {
  levels peak;  // device left 0: replay sees only the allocator
  std::uint32_t allocated_peak_phase = 0, reserved_peak_phase = 0;
  std::array<bytes, schedule::category_count> at_peak{};  // live bytes per category
  bytes fragmentation = 0;  // reserved - active at the allocated peak
  bytes init_allocated = 0, init_reserved = 0;
  std::optional<alloc::oom_info> oom;
  std::uint32_t oom_phase = 0;
  std::vector<timeline_point> timeline;
};

/// Copies the replay's figures into a rank's prediction (levels, phases, breakdown, OOM, curve).
void fill_rank(rank_prediction& r, const replay_result& rr, const schedule::program& p);

/// Requires: `program` is well formed (every free names a live tensor).
replay_result replay(const schedule::program& program, alloc::allocator_model& allocator,
                     std::size_t timeline_points = 0);

}  // namespace vramscope::predict
