#pragma once
// The memory events one rank performs, in program order. A schedule is not a formula: it is the
// ordered list of allocations, frees, cross-stream uses and synchronisation points that the
// rank's framework issues, so that lifetimes and overlaps decide the peak when an allocator
// model replays them.

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/units.hpp>

namespace vramscope::schedule {

/// What a tensor is, for the breakdown (docs/design.md, "Breakdown categories").
enum class category : std::uint8_t {
  parameters, gradients, optimizer, activations, communication, temporary,
};
inline constexpr int category_count = 6;
std::string_view name_of(category c);

/// CUDA streams as the schedule numbers them.
namespace streams {
inline constexpr std::uint32_t compute = 0;
inline constexpr std::uint32_t unshard = 1;        // FSDP1 unshard / FSDP2 all-gather copy-in
inline constexpr std::uint32_t pre_unshard = 2;    // FSDP1 mixed-precision shard cast
inline constexpr std::uint32_t reduce = 3;         // FSDP1 post-backward / FSDP2 reduce-scatter
inline constexpr std::uint32_t nccl = 4;           // ProcessGroupNCCL's internal stream
inline constexpr std::uint32_t offload = 5;        // activation offloading's copy stream (torchtune)
}  // namespace streams

enum class event_kind : std::uint8_t {
  alloc,          // tensor `tensor` of `size` bytes on `stream`
  free,           // the user drops `tensor`
  record_stream,  // `tensor` is used by `stream` (Tensor.record_stream)
  sync,           // the GPU has caught up with the CPU on `stream` (all its events complete)
  phase,          // a new phase begins: phase_names[phase]
  empty_cache,    // torch.cuda.empty_cache()
};

/// One event. Plain data, 16 bytes, so a program of millions of events stays cheap (a what-if
/// grid builds one program a row and keeps the last few dozen to compare the next ones with).
/// An event belongs to the phase that the last phase event before it began; the events before
/// any belong to phase 0, "init" (phase_after follows them).
struct event {
  event_kind kind;
  category cat;
  std::uint16_t stream;
  std::uint32_t tensor;  // index of the tensor, unique within the program; of a phase event, the
                         // phase it begins (an index into program::phase_names)
  bytes size;
  // Programs compare event by event: two that are equal replay to the same figures. (Written
  // out: on the what-if grid it runs in fewer instructions than the defaulted comparison.)
  friend bool operator==(const event& a, const event& b) {
    return a.kind == b.kind && a.cat == b.cat && a.stream == b.stream && a.tensor == b.tensor &&
           a.size == b.size;
  }
};
static_assert(sizeof(event) == 16);

/// Whether the events [first, last) equal those from `other` on, compared as bytes: an event
/// has no padding, so equal bytes are equal events (a quarter of the instructions of comparing
/// them field by field, for the what-if memo that compares every row's program with kept ones).
inline bool same_events(const event* first, const event* last, const event* other) {
  static_assert(std::has_unique_object_representations_v<event>);
  return first == last ||
         std::memcmp(first, other, static_cast<std::size_t>(last - first) * sizeof(event)) == 0;
}
inline bool same_events(const std::vector<event>& a, const std::vector<event>& b) {
  return a.size() == b.size() && same_events(a.data(), a.data() + a.size(), b.data());
}

/// The phase of the events from `e` on, given the phase of the events before it.
inline std::uint32_t phase_after(const event& e, std::uint32_t phase) {
  return e.kind == event_kind::phase ? e.tensor : phase;
}

/// What a rank holds before data-parallel sharding, after the tensor-parallel split: the
/// values that train (adapters for LoRA) and the bytes of the frozen base as stored
/// (quantised and packed for QLoRA, quantisation constants included).
struct parameter_split {
  std::uint64_t trainable = 0;
  bytes frozen = 0;
};

/// A rank's program: its events and the names of its phases.
struct program {
  std::vector<event> events;
  std::vector<std::string> phase_names;  // "init", "forward:layers.3", "backward:layers.3", ...
  std::uint32_t tensors = 0;             // number of tensor ids used
  /// CUDA unified memory the rank allocates outside the allocator (bitsandbytes paged optimizer
  /// state), from the first optimizer step on. Resident on the GPU unless the driver evicts it.
  bytes managed = 0;
  /// Saved activations one micro-batch's forward moves to pinned host memory (activation
  /// offloading); the events hold only what stays on, or comes back to, the GPU.
  bytes offloaded = 0;
  /// False when building read nothing of the rank's place in the mesh (its rank, local rank,
  /// pipeline or expert rank), only the job's sizes: every rank of the job has this program.
  bool rank_specific = true;
  /// The parameters of the rank's layout; for rank 0 of a job without pipeline stages,
  /// split_parameters(model, job). Unset for pipeline stages.
  std::optional<parameter_split> parameters;
  /// Variable lengths (job::length_distribution_of, training.lengths other than fixed): each
  /// training step built, in order, with its sequence length and `end`, the index of the event
  /// after its last. Empty for fixed lengths. Fewer than training.steps where the builder left
  /// the rest out (program_watcher::steady): every later step repeats the last one built of its
  /// length.
  struct step_mark {
    std::uint64_t seq_len = 0;
    std::size_t end = 0;
  };
  std::vector<step_mark> steps;
  /// False when a program_watcher stopped building: the events are the rank's program up to a
  /// phase boundary, and `tensors`, `managed` and `offloaded` count only them (`rank_specific`
  /// may also count a read made while the build wound down).
  bool complete = true;
};

/// Where a program_watcher is asked whether the rank has reached a steady state.
enum class boundary : std::uint8_t { step, micro_batch };

/// Reads a program while build_program builds it, and may end it early: predict replays the
/// events as they come and stops a rank that has run out of memory, since no later event
/// changes its figures. Called on the building thread.
class program_watcher {
 public:
  virtual ~program_watcher() = default;
  /// Called with the program so far each time a new phase is about to begin; false ends the
  /// program there (the next phase and everything after it are left out).
  virtual bool grown(const program& so_far) = 0;
  /// Where a training step or a micro-batch ends (`so_far` holds its last event) and another
  /// of the same kind follows: true when the watcher finds the rank in the state it was in
  /// where the previous one ended, so that every further one would repeat this one, to the
  /// same state; the builder then leaves them out (all but a step's last micro-batch, all but
  /// none of the steps) and goes on with what follows them. Only a watcher that reads nothing
  /// of the program but the figures its state gives may say true: the events, tensor count and
  /// phase names are then those of the shorter program. The default never does. With variable
  /// lengths (program::steps) a true answer says only that this step, of its length, left the
  /// state as it found it: the builder leaves the further steps out once every length they
  /// draw has done so since the state last changed.
  virtual bool steady(const program& so_far, boundary kind) {
    (void)so_far;
    (void)kind;
    return false;
  }
  /// Where a period of a pipeline schedule's steady phase ends (`so_far` holds its last event)
  /// and more periods follow, each the same passes as the one before on micro-batches one
  /// period later: how many of the periods that ended since the last steady(boundary::step)
  /// call, counted back from this one, the rank was last in the state it is in now. Its
  /// micro-batches in flight take the places of those then (a ring of them, each period's new
  /// one where the oldest was), so that the periods after this one repeat those since then, to
  /// the same states; the builder leaves whole repeats of them out. 0: in no such state (or the
  /// watcher cannot say). As for steady(), only a watcher that reads nothing of the program but
  /// the figures its state gives may answer other than 0; the default never does.
  virtual std::size_t period_repeats(const program& so_far) {
    (void)so_far;
    return 0;
  }

 protected:
  program_watcher() = default;
  program_watcher(const program_watcher&) = default;
  program_watcher& operator=(const program_watcher&) = default;
};

}  // namespace vramscope::schedule
