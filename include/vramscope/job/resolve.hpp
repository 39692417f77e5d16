#pragma once
// Resolution and validation of a job spec: fills the values that follow from others and checks
// that the whole makes sense, so that the simulator can trust every field.
//
// A GPU found in the catalog is renamed to its catalog spelling ("h100" -> "H100-80GB").
// Derived values (recorded in job.provenance.derived, and re-derived on every call, so that an
// override of hardware.gpu or parallel.tp is followed):
//   hardware.gpu_memory         from the GPU catalog (unless given); an unknown GPU without
//                               gpu_memory is an error listing the catalog
//   hardware.compute_capability from the catalog; 8.0 with a warning for an unlisted GPU
//   hardware.gpus_per_node      1 for strategy single, unless given
//   parallel.dp_shard           world / (tp x dp_replicate) when 0
//   parallel.dp_replicate       fsdp1 hybrid_shard: the node count (one shard group per node),
//                               unless given
//   framework.name / version    jax / 0.5.0 for strategy jax, unless given
//   framework.jaxlib            framework.version, for jax
//   precision.autocast          true for ddp / single when params and master dtypes differ
//                               (the only way those wrappers compute in a lower precision),
//                               unless given
//   optimizer.state             the dtype of the weights the optimizer steps: precision.master
//                               (fp32 for DeepSpeed ZeRO, whose master partition is fp32),
//                               unless given
//
// Errors (the first one found is returned; it names the field and, when the field came from
// YAML or --set, points at that line): world size not equal to tp x dp_replicate x dp_shard,
// options given for a strategy that does not have them (offload_param outside zero3,
// reshard_after_forward outside fsdp2, fsdp_sharding outside fsdp1, ...), framework and
// strategy disagreeing about jax, a reshard group that does not divide the shard group,
// LoRA without targets, invalid values of known environment variables.
// Warnings: tensor parallelism spanning nodes, sequence_parallel without tp, checkpoint_every
// without selective checkpointing, environment variables that look like a known one mistyped.
// The full list is in docs/job-spec.md ("Validation"). Thread-safe: no shared state.

#include <string>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/result.hpp>
#include <vramscope/job/job_spec.hpp>

namespace vramscope::job {

/// Fills derived values and validates. On success `job` is resolved; on failure `job` may hold
/// partially derived values and should be discarded or fixed and resolved again.
/// Warnings are appended to `notes` when it is given.
status resolve_job(job_spec& job, warnings* notes = nullptr);

/// Resets to their defaults the parallel options that belong to strategies other than the job's
/// (a ZeRO-2 config's allgather_bucket_size under zero3, DDP's bucket_cap_mb under fsdp2), which
/// resolve_job refuses: what a user drops when switching strategy. For a what-if that switches
/// the strategy of a job written for another; the returned paths are the options reset.
std::vector<std::string> drop_options_of_other_strategies(job_spec& job);

}  // namespace vramscope::job
