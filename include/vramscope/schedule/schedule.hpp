#pragma once
// Turns a model and a job into the program of memory events one rank performs: init (weights
// reaching the GPU, the wrapper's state), an optional resume, then `training.steps` training
// steps (forward and backward unit by unit, gradient reduction, optimizer step), an optional
// evaluation and an optional checkpoint save.

#include <memory>
#include <string>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/core/version.hpp>
#include <vramscope/job/job_spec.hpp>
#include <vramscope/model/model_spec.hpp>
#include <vramscope/schedule/event.hpp>

namespace vramscope::schedule {

struct schedule_options {
  bytes cublas_workspace = 32_MiB;  // per stream that runs GEMMs; by GPU generation (predict)
  /// The model build_program is given, where the caller shares it as a constant object (the
  /// what-if engine's rows): the per-thread caches of layouts then know it by its address and
  /// hold it, instead of keeping a copy and comparing it whole on every call. Ignored unless it
  /// is the same object as the model argument.
  std::shared_ptr<const model::model_spec> shared_model = nullptr;
};

/// The event program of `rank`. Requires: the job validated and 0 <= rank < world size.
/// Fails for combinations the schedule cannot express (e.g. strategy jax, handled by predict).
result<program> build_program(const model::model_spec& model, const job::job_spec& job, int rank,
                              const schedule_options& options = {});

/// The same, shown to `watcher` phase by phase (program_watcher::grown); when it says stop, the
/// result is the program up to there, with program::complete false.
result<program> build_program(const model::model_spec& model, const job::job_spec& job, int rank,
                              const schedule_options& options, program_watcher& watcher);

/// Ranks whose programs differ, one representative each (usually rank 0 and rank 1): every
/// other rank behaves like `representative_of(rank)`.
std::vector<int> representative_ranks(const job::job_spec& job);

/// What rank 0 holds before data-parallel sharding (parameter_split). Requires a job whose
/// LoRA targets resolve against `model` (build_program checks them).
parameter_split split_parameters(const model::model_spec& model, const job::job_spec& job);
int representative_of(const job::job_spec& job, int rank);

/// The dtype the strategy stores the model's weights in: `precision.master` for FSDP shards,
/// JAX, and DDP or one GPU under autocast; `precision.params` otherwise. A LoRA job's frozen
/// base is held in it too (docs/job-spec.md, "LoRA"), unless quantised (QLoRA).
dtype stored_dtype(const job::job_spec& job);

/// True when collectives of this job free their buffers through record_stream (torch < 2.8
/// without TORCH_NCCL_AVOID_RECORD_STREAMS=1, and not async TP's fused collectives), which keeps
/// them `active` until the GPU catches up.
bool collectives_record_stream(const job::job_spec& job);

/// What the memory features a framework brings change (torchtune's chunked cross-entropy,
/// optimizer in backward and activation offloading, of `offloaded` bytes of saved activations a
/// micro-batch), said once in a plan: appended to `notes`.
void framework_notes(const job::job_spec& job, bytes offloaded, std::vector<std::string>& notes);


}  // namespace vramscope::schedule
