#pragma once
// Replays a rank's event program through an allocator model and records the peaks, the
// breakdown at the allocated peak, the first OOM and (optionally) the curve.

#include <array>
#include <memory>
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
  /// Per phase of outside_phase_names: its highest levels from its first event to the next
  /// phase (the first "optimizer" phase for first_optimizer_step; every other by its name).
  struct outside_phase {
    bool reached = false, oom = false;
    levels peak;  // device left 0
  };
  std::array<outside_phase, outside_phase_names.size()> outside{};
  /// Per training step the program marks (schedule::program::steps), in order: its highest
  /// allocated and reserved bytes, from the first step's first forward (or the end of the step
  /// before) to its end. Reserved memory a step begins with counts: the caching allocator keeps
  /// what earlier steps reserved. A step cut short by an out-of-memory failure has none.
  struct step_peak {
    bytes allocated = 0, reserved = 0;
  };
  std::vector<step_peak> steps;
};

/// Copies the replay's figures into a rank's prediction (levels, phases, breakdown, OOM, curve).
void fill_rank(rank_prediction& r, const replay_result& rr, const schedule::program& p);

/// Requires: `program` is well formed (every free names a live tensor).
replay_result replay(const schedule::program& program, alloc::allocator_model& allocator,
                     std::size_t timeline_points = 0);

/// The replay of a program while build_program builds it (no curve): each phase boundary
/// replays the events so far, and the first allocation that fails stops the build, since
/// nothing after it changes the replay's figures. Pass it to build_program, then call finish()
/// with the program built: the result is replay(program, allocator) of the whole program; where
/// steady() said true (period_repeats() other than 0), of the program built without the steps
/// and micro-batches (pipeline periods) it left out,
/// whose figures are the whole program's (tests/predict/steady_state_test.cpp).
/// Where the program equals one replayed earlier on this thread after the same init (event by
/// event, under the same allocator options), the figures are that replay's and the events
/// after init are not replayed: the allocator's state afterwards is then the one after init.
class replay_while_built final : public schedule::program_watcher {
 public:
  explicit replay_while_built(alloc::allocator_model& allocator);  // must outlive this
  ~replay_while_built() override;
  bool grown(const schedule::program& so_far) override;
  /// True where the replay is back in the state (allocator, live tensors) the previous step or
  /// micro-batch left it in: every further one would replay to it again and raise no figure,
  /// so the program leaves them out and the figures are those of the whole program. Never
  /// with an allocator model that gives no state key (alloc::allocator_model::state_key).
  bool steady(const schedule::program& so_far, schedule::boundary kind) override;
  /// At the end of a pipeline schedule's steady period: how many periods back (within the
  /// step, up to 64) the replay was in the state it is in now, compared as steady() compares;
  /// 0 for none. A ring of micro-batches in flight comes back to its state once each has
  /// taken the place of the oldest: after as many periods as the ring holds.
  std::size_t period_repeats(const schedule::program& so_far) override;
  /// Replays what is left of `program` (the one the build returned) and gives the figures.
  replay_result finish(const schedule::program& program);
  /// The same, for a caller that reads none of the program's events afterwards: where the
  /// replay keeps them for the programs that follow on this thread (a program it had not kept
  /// yet), it takes them without a copy and leaves `program.events` empty.
  replay_result finish_taking_events(schedule::program& program);

 private:
  struct state;
  std::unique_ptr<state> state_;
};

}  // namespace vramscope::predict
