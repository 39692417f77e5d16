#pragma once
// What a PyTorch out-of-memory message says once its figures are put together: who held the
// GPU's memory when the allocation failed, whether the allocator's cache could have served it,
// and where in the program it happened. Every rule that weighs a cause against a message reads
// these facts, so the differential compares causes on the same arithmetic.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/observe/observation.hpp>

namespace vramscope::doctor {

/// Where the traceback before a message places the failure.
enum class oom_phase { unknown, checkpoint_save, checkpoint_resume, eval, optimizer_state_init };

/// What placed it, strongest first: a frame's function or a code line that names the phase
/// (`in evaluate`, `torch.load(`), or a logging record's function; the script the traceback
/// starts in (`evaluate.py` at `<module>`), with no frame between it and the error that trains
/// or runs backward; the failed tensor's shape (TensorFlow names it), whose batch is a whole
/// evaluation split. `module`: a frame's file lies in the program's evaluation code (an
/// `evaluation/` package, `evaluator.py`), with no training frame or backward below it.
/// `progress`: the log's last progress line before the error is mmcv's ProgressBar ("20/76, 0.3
/// task/s"), which mmcv's test loops print per sample, with no training frame or backward below.
/// `status`: the log's last status line before the error names the phase: a progress bar's
/// description ("Validation DataLoader 0:  35%|"), or a framework's announcement with no bar
/// after it ("***** Running Evaluation *****", "Saving model checkpoint to ...", "Resuming from
/// checkpoint"); no backward below it (nor a training frame, for an evaluation).
/// `generation`: a frame that generates or samples (generate, _sample, sample_loop,
/// sample_images), with no training frame anywhere in the traceback and no backward.
enum class phase_source { none, frame, script, module, batch_shape, progress, status, generation };

/// The last progress indicator the log printed before the message: tqdm's bar ("  0%|   | 1/9565
/// [00:19<50:33:46, 19.03s/it]"), mmcv's ProgressBar ("[>>>   ] 20/76, 0.3 task/s, elapsed: 59s"),
/// or a trainer's counter ("iter 420/20642", "step 3/100"). `per_task`: mmcv's form.
struct progress_mark {
  std::int64_t done = 0, total = 0;
  bool per_task = false;
  /// A bar whose description names work other than a step (loading or downloading weights,
  /// saving, preparing or tokenizing data: "Loading checkpoint shards", datasets' "Map"): its
  /// count is not the training loop's.
  bool other_work = false;
  std::string line;  // "LINE: text" as the report's context keeps it
};

/// Where the failed allocation was made, as the failure's own words tell it: by the runtime or a
/// framework's allocator for the device (cudaMalloc, a pool growing), by a CUDA library for its
/// own buffers (cuDNN's or cuBLAS's workspace), or by the creation of a context.
enum class failure_kind { device_allocation, library_workspace, context_creation };

/// What a rule proposes, to be worded in the allocator's own terms (runtime_fix).
enum class fix_kind { release_cache, does_not_fit, other_processes };

struct oom_facts {
  const observe::oom_report* report = nullptr;
  /// Whose figures these are: the same fields below hold the same kind of figure for every
  /// allocator (a pool's limit as capacity, its live buffers as allocated, what it holds from the
  /// driver as reserved), and a rule words its cause and fix for this one (runtime_fix).
  observe::oom_allocator allocator = observe::oom_allocator::torch_caching;
  std::optional<bytes> capacity, free, requested, allocated, reserved;
  /// Reserved but unallocated: split segments the request missed (PyTorch); a BFC pool's regions
  /// less its chunks in use, free chunks none of which held the request (bfc_allocator.cc looks
  /// for one free chunk at least the request's size and cannot join chunks of two regions).
  std::optional<bytes> cached;
  /// What this process holds on the GPU, PyTorch's cache and the rest (context, libraries):
  /// torch >= 2.1 says it ("this process has X memory in use"); older messages give only the
  /// cache, so own_estimated is set and own is the cache plus one context at most.
  std::optional<bytes> own;
  bool own_estimated = false;
  /// capacity - free - own: memory on the GPU that is not this process's: other processes,
  /// their contexts, memory a crashed run left behind.
  std::optional<bytes> outside;
  /// The processes the message names besides this one, with their use.
  std::vector<observe::oom_process> others;
  oom_phase phase = oom_phase::unknown;
  phase_source placed_by = phase_source::none;
  std::string phase_line;  // the traceback line that placed it ("123: File ... in save_model")
  /// TensorFlow's "OOM when allocating tensor with shape[N,...]": the failed tensor's dimensions.
  std::vector<std::int64_t> tensor_shape;
  /// The lines before the message show autograd's backward (a frame or a call): the failure is in
  /// a training step, never in an evaluation, which runs no backward.
  bool in_backward = false;
  /// The innermost frames are torch.nn.Module's move of its tensors to the device (Module.to /
  /// .cuda() run _apply(convert), torch/nn/modules/module.py): the failure is in placing a model's
  /// weights, before any step. The frame line, empty when not.
  std::string placing_model;
  std::optional<progress_mark> progress;
  /// The failure's kind, the library whose allocation failed ("cudnn", "cublas"; empty for the
  /// runtime's or an allocator's) and the runtime the paste names ("caffe", "rapids", "torch";
  /// empty when none): what a rule of another runtime's reservations or a library's workspace
  /// weighs when the message has no figures.
  failure_kind failure = failure_kind::device_allocation;
  std::string library, runtime;
  /// The paste lacks the message or its figures (a traceback cut before its error line, counts
  /// elided as "..."): what is read stands, what is missing is undecided.
  bool message_cut = false;

  /// free + cached >= requested: a perfect allocator had the bytes.
  bool cache_covers() const;
  /// PyTorch's "reserved >> allocated" (likelihood::reserved_over_allocated_fragmented): the
  /// cache the request missed is at least as large as the live tensors.
  bool reserved_far_above_allocated() const;
  /// The live tensors are all small-pool blocks and the cache is more than the small segments
  /// they could pin (likelihood.hpp, small_request_max): what is cached is not held by
  /// fragmentation but by blocks waiting on another stream (record_stream, NCCL).
  bool cache_beyond_what_live_blocks_pin() const;
  /// outside + free >= requested and outside is more than outside_floor(): freeing the memory
  /// of others would have served the request.
  bool outside_covers() const;
  /// Below this, memory outside the process may be its own: a context (and, where own is an
  /// estimate, NCCL's buffers).
  bytes outside_floor() const;
  /// Own is an estimate and the memory outside it would have served the request, but it is no
  /// more than what a distributed job's NCCL buffers (this process's own, in no message) take:
  /// other processes are possible, not shown.
  bool outside_within_nccl() const;
  /// The other processes the message names are all context-sized (other ranks' contexts).
  bool others_are_contexts() const;
  /// CuPy's pool with a limit refused a request that fits under the limit alone: the pool's
  /// total, cached free blocks included, plus the request passed the limit. CuPy compares the
  /// limit with the pool's total before it releases any cached block (cupy/cuda/memory.pyx,
  /// _try_malloc: the limit check comes first and raises; free_all_blocks() and gc.collect() are
  /// tried only when cudaMalloc itself fails, up to cupy#7679, 2023), so cached blocks may be what
  /// filled the limit.
  bool pool_limit_counts_cache() const;
  /// A pool whose figures give its limit and what was in use but not its regions' total
  /// (total_region_allocated_bytes_; in-use figures come from a BFC dump, TensorFlow's or XLA's),
  /// and whose limit left at least the request beyond what was in use: that room. The pool grows
  /// its regions up to its limit before it refuses (bfc_allocator.cc, Extend), so the room sat in
  /// free chunks too small for the request, or in a region the driver refused (allow_growth).
  /// Empty otherwise.
  std::optional<bytes> bfc_room_in_limit() const;
  /// CuPy 5 and older (the "out of memory to allocate N bytes (total T bytes)" wording): on a
  /// failed cudaMalloc the pool released its cache, then ran gc.collect() and retried without
  /// releasing what the collection had just returned to it (memory.pyx, _malloc; cupy#1984, 2019,
  /// added the second free_all_blocks, "for Python 2", where arrays in reference cycles are freed
  /// only by the collector). Arrays freed that way stay cached when the error is raised.
  bool retry_kept_collected_blocks() const;
  /// The figures come from an allocator with a cache of its own whose share of what it held is
  /// known (PyTorch's caching allocator, a BFC pool with its dump): the cache rules can weigh it.
  bool cache_figures() const;
  /// The progress before the message is at its loop's first iteration (at most 1 of more): the
  /// loop failed before anything could be kept from one iteration to the next.
  bool at_first_iteration() const;
  /// The progress before the message counts iterations completed (more than 1, short of the
  /// total) in a loop no log line or frame places outside the step: the same step ran that many
  /// times before it failed.
  bool after_iterations() const;
};

/// The progress indicator one log line shows (progress_mark), if any. Dates ("04/01") and
/// ratios are not read: only tqdm's "n/total [", mmcv's "n/total, x task/s" and a counter
/// named "iter" or "step" before it.
std::optional<progress_mark> progress_of(std::string_view line);

/// The phase a pasted figure's own words name ("Reserved after load", "- after resume", "eval
/// peak"): loading or resuming a checkpoint, saving one, or evaluating; unknown otherwise. Whole
/// words only, so "download" or "workload" name nothing.
oom_phase phase_of_label(std::string_view label);

/// The fix for `kind` in the allocator's own terms, from its documentation (sources in
/// oom_facts.cpp); empty where the runtime has none of its own (PyTorch's: the rules' own text).
std::string runtime_fix(observe::oom_allocator allocator, fix_kind kind);

/// The facts of one message (torch or XLA; an XLA report has no outside/own figures).
oom_facts facts_of(const observe::oom_report& report);

/// "CUDA out of memory at line 12 (GPU 0)" for evidence lines.
std::string where(const observe::oom_report& report);

}  // namespace vramscope::doctor
