#pragma once
// Predictions: for every rank the four levels of docs/design.md at their peaks, where the peak
// happens and what it is made of; for every GPU what nvidia-smi will show, process by process.

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/alloc/allocator_model.hpp>
#include <vramscope/core/result.hpp>
#include <vramscope/job/job_spec.hpp>
#include <vramscope/model/model_spec.hpp>
#include <vramscope/schedule/event.hpp>

namespace vramscope::predict {

/// The four levels, in bytes.
struct levels {
  bytes allocated = 0;
  bytes active = 0;
  bytes reserved = 0;
  bytes device = 0;
};

/// What the peak is made of (docs/design.md, "Breakdown categories"): live bytes per category, and
/// fragmentation = reserved - active, at the moment of the allocated peak. `managed` is paged
/// optimizer state resident on the GPU (CUDA unified memory): outside allocated and reserved,
/// inside device.
struct breakdown {
  bytes parameters = 0, gradients = 0, optimizer = 0, activations = 0, communication = 0,
        temporary = 0, fragmentation = 0, cuda_context = 0, nccl = 0, other_processes = 0,
        managed = 0;
};

/// One point of the allocated / reserved curve. `live` splits `allocated` by what the live
/// tensors are (schedule::category order: parameters, gradients, optimizer, activations,
/// communication, temporary), each tensor counted at its allocator block's size.
struct timeline_point {
  std::uint64_t event = 0;
  bytes allocated = 0, active = 0, reserved = 0;
  std::uint32_t phase = 0;
  std::array<bytes, schedule::category_count> live{};
  bool operator==(const timeline_point&) const = default;
};

/// A phase outside the training step (docs/schedule.md, "Outside the training step"), where
/// the job runs it: its highest levels on one rank. `device` adds what lies outside the
/// allocator on the rank's GPU at its peak (context, NCCL, managed memory, other processes).
struct phase_peak {
  /// "resume", "first_optimizer_step", "eval" or "checkpoint_save" (outside_phase_names).
  std::string name;
  levels peak;
  bool reached = true;  // false: the rank ran out of memory before the phase began
  bool oom = false;     // the rank ran out of memory in this phase
  bool fits = true;     // reached, no out-of-memory failure and device within the GPU
};

/// The phases outside the training step, in program order.
inline constexpr std::array<const char*, 4> outside_phase_names{
    "resume", "first_optimizer_step", "eval", "checkpoint_save"};

struct rank_prediction {
  int rank = 0;
  int gpu = 0;                   // global GPU index the rank runs on
  int like_rank = 0;             // the representative rank whose program was simulated
  levels peak;                   // device: everything on this rank's GPU
  std::string peak_phase;        // phase of the allocated peak
  std::string reserved_peak_phase;
  std::string init_phase_peak;   // allocated peak during init, as text for reports
  bytes init_allocated = 0;      // peak allocated during init
  bytes init_reserved = 0;
  breakdown parts;
  bytes context = 0, nccl = 0;   // outside the allocator, this rank's process
  bytes managed = 0;             // paged optimizer state of this rank (CUDA unified memory)
  bytes managed_resident = 0;    // the part of it the GPU holds at the peak (the rest evicted)
  std::optional<alloc::oom_info> oom;
  std::string oom_phase;
  /// The phases outside the training step this rank runs (phase_peak), in program order:
  /// resume (checkpoint.resume), the first optimizer step (where the optimizer creates its
  /// state), eval (eval.enabled) and checkpoint_save (checkpoint.save: full where the strategy
  /// gathers). A phase the rank did not reach (an earlier out-of-memory failure) is listed
  /// with reached false when the job turns it on.
  std::vector<phase_peak> phases;
  std::vector<timeline_point> timeline;       // filled when asked for
  std::vector<std::string> phase_names;       // for timeline points
};

/// Variable-length training (training.lengths other than fixed): rank 0's steps replayed at
/// their drawn lengths through one allocator configuration.
struct length_replay {
  bool expandable_segments = false;
  int steps_replayed = 0;  // the others repeat the last replayed step of their length
  /// Of the steps' reserved peaks: the first step's, the median and 99th percentile (nearest
  /// rank) over every step of training.steps, and the highest.
  bytes first = 0, p50 = 0, p99 = 0, highest = 0;
  int last_growth_step = 1;  // 1-based: the last step whose reserved peak exceeds every earlier one
  std::optional<int> oom_step;  // 1-based: the step that ran out of memory (figures up to it)
  /// How much the reserved peak grew after the first step.
  [[nodiscard]] bytes growth() const { return highest - first; }
};

struct length_figures {
  std::string distribution;  // job::describe: "uniform 512..8192"
  int steps = 0;             // training.steps
  std::uint64_t seed = 0;    // training.length_seed
  std::uint64_t shortest = 0, median = 0, longest = 0;  // of the lengths drawn
  length_replay without_expandable, with_expandable;
};

/// A process's share of one GPU.
struct process_share {
  int rank = -1;            // -1: not a rank of this job (another process)
  std::string what;         // "rank 3", "rank 3: CUDA context before set_device", "JAX pool"
  bytes device = 0;
};

struct gpu_prediction {
  int index = 0;
  bytes capacity = 0;
  bytes device = 0;         // sum of processes
  std::vector<process_share> processes;
};

/// Ranks, and the GPUs they run on, alike in every figure (prediction::classes): a rank's
/// figures and its GPU's, as the class's first rank and GPU have them.
struct rank_class {
  rank_prediction rank;
  gpu_prediction gpu;
};

/// Ranks first .. first + count - 1, on the GPUs of the same numbers, are of classes[cls]; with
/// a period, ranks first + j * period .. first + j * period + count - 1 for every j below
/// `times` (the same local ranks of `times` nodes in a row, `period` the GPUs of a node).
/// prediction::ranges are ordered by `first`; ranges with a period come as a node's block: the
/// ranges that follow one another with the same period and times, whose firsts lie within one
/// period of the block's first, hold every rank of [first, first + period * times) once.
struct rank_range {
  int first = 0;
  int count = 0;
  std::uint32_t cls = 0;
  int period = 0;  // 0: ranks first .. first + count - 1 only
  int times = 1;
};

struct prediction {
  job::job_spec job;
  std::string model_name;
  std::uint64_t parameters = 0;
  std::string allocator;        // "torch-caching", "xla-bfc", "exact"
  bool fits = true;             // no rank runs out of memory and no GPU is over its capacity
  bytes margin = 0;             // job::margin_bytes(job.hardware): below it, a fit is "tight"
  /// What the whole step needs on the busiest GPU (device bytes), for a job that does not fit:
  /// its plan ends at the first out-of-memory error, so the figures above say what failed, not
  /// how far the job is from fitting. Filled by fill_whole_step_need(), not by plan().
  std::optional<bytes> whole_step_need;
  std::vector<rank_prediction> ranks;
  std::vector<gpu_prediction> gpus;
  /// The same ranks and GPUs as ranges of alike ones (torch plans; empty for JAX): every rank
  /// of a range has the figures of its class's rank and its GPU those of the class's GPU, but
  /// for its own rank and GPU numbers, which the processes' ranks and names carry too. Classes
  /// are in the order of their first rank, whose numbers they carry. With
  /// predict_options::rank_ranges, `ranks` and `gpus` are left empty and these stand for them.
  std::vector<rank_class> classes;
  std::vector<rank_range> ranges;
  bytes cpu_memory = 0;         // host memory for offloaded state, per rank
  /// schedule::split_parameters(model, job), found on the way when planning built rank 0's
  /// program (jobs without pipeline stages), so that callers need not lay the model out again.
  std::optional<schedule::parameter_split> parameters_split;
  std::vector<std::string> notes;  // assumptions worth telling the user
  /// JAX: the pool fraction XLA_PYTHON_CLIENT_MEM_FRACTION is set to (or defaults to), and the
  /// smallest fraction that holds this job's working set with 10 % headroom.
  std::optional<double> jax_fraction, jax_recommended_fraction;
  /// Variable-length jobs: rank 0's reserved memory over its steps, with and without
  /// expandable segments (whatever PYTORCH_CUDA_ALLOC_CONF says; its other options kept).
  std::optional<length_figures> lengths;
};

struct predict_options {
  bool timeline = false;     // keep the allocated/reserved curve per representative rank
  std::size_t timeline_points = 4000;
  /// Only the figures a what-if row reads (fits, each rank's levels and out-of-memory facts,
  /// each GPU's processes and device total, cpu_memory, parameters_split): the prediction's
  /// job, its notes, the processes' names and the out-of-memory messages may be left empty.
  bool figures_only = false;
  /// Only prediction::classes and ranges, not a rank_prediction and a gpu_prediction for every
  /// rank: the cost follows the number of distinct ranks, not the world size. busiest_rank,
  /// verdict_of and state_of read either form.
  bool rank_ranges = false;
  /// The model, where the caller shares it as a constant object (schedule_options::shared_model).
  std::shared_ptr<const model::model_spec> shared_model = nullptr;
};

/// Plans the job. Fails on combinations it cannot model (message names the field).
result<prediction> plan(const model::model_spec& model, const job::job_spec& job,
                        const predict_options& options = {});

/// The worst rank (largest device figure, then reserved; the first of equals). From
/// p.classes where p.ranks is empty.
const rank_prediction& busiest_rank(const prediction& p);

/// The phase after the training steps (checkpoint_save or eval) in which the plan runs out of
/// memory, when every rank that runs out does so in such a phase: the steps ran, and that
/// phase, not the step, is what does not fit. Empty otherwise. From p.classes where p.ranks is
/// empty.
std::string failing_phase_after_steps(const prediction& p);

/// A verdict in three states. `tight`: the job fits as planned, but its busiest GPU keeps less
/// headroom than the safety margin (job::safety_margin), inside which run-to-run variation and
/// allocator behaviour the model cannot see decide whether it runs.
enum class fit_state { fits, tight, does_not_fit };

/// "fits", "tight", "does_not_fit" (the JSON spelling).
std::string_view name_of(fit_state s);

/// Why a tight verdict is not a fit, in one sentence for every report.
inline constexpr std::string_view margin_reason =
    "the margin covers run-to-run variation and allocator behaviour the plan cannot see "
    "(hardware.margin; default the larger of 5 % of usable memory and 1 GiB)";

/// What the one-line verdict of a plan rests on (report::verdict_line words it), small enough
/// for each of thousands of what-if rows to keep.
struct verdict_facts {
  struct out_of_memory {
    int rank = 0;
    std::string phase;
    bytes requested = 0, reserved = 0, capacity = 0;
  };
  std::optional<out_of_memory> oom;  // the first rank that ran out of memory
  std::optional<int> busiest_gpu;    // otherwise the GPU with the most device memory, if any
  bytes busiest_device = 0, busiest_capacity = 0;
  bytes margin = 0;                  // prediction::margin

  /// does_not_fit with an out-of-memory error or a GPU over capacity; tight when the busiest
  /// GPU's headroom is below `margin`; fits otherwise (also with nothing to place).
  [[nodiscard]] fit_state state() const;
};

verdict_facts verdict_of(const prediction& p);

/// verdict_of(p).state().
fit_state state_of(const prediction& p);

/// For a prediction that does not fit: plans the job again on a GPU without limit
/// (job::with_unlimited_memory) and sets p.whole_step_need to the larger of its busiest GPU and
/// p's, when that is more than the usable memory. Leaves it empty otherwise, or where the
/// unlimited plan fails.
void fill_whole_step_need(const model::model_spec& model, const job::job_spec& job,
                          prediction& p);

}  // namespace vramscope::predict
