#pragma once
// The validation rules run by resolve_job after the derived values are filled. Each check
// returns the first error it finds, or nullopt, and may append warnings. The list of rules, with
// their messages, is in docs/job-spec.md ("Validation"). Private to the job module.

#include <optional>
#include <string>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/job/job_spec.hpp>

namespace vramscope::job::detail {

/// Where `path` was set (YAML line or --set), else where its section or shorthand was set,
/// else the job's source file without a line. Message empty.
diagnostic where_set(const job_spec& job, const std::string& path);

/// where_set(job, path) with message "<path>: <message>".
diagnostic field_error(const job_spec& job, const std::string& path, const std::string& message);

/// True when `path` was written by the user (YAML or --set), as opposed to defaulted.
bool is_set(const job_spec& job, const std::string& path);

/// Options that belong to other strategies, HSDP and reshard groups, jax mesh, tp warnings.
maybe_error check_parallel(const job_spec& job, warnings& notes);

/// LoRA, training and hardware rules.
maybe_error check_training(const job_spec& job, warnings& notes);

/// Environment variables vramscope reads (PYTORCH_CUDA_ALLOC_CONF, TORCH_NCCL_AVOID_RECORD_STREAMS,
/// XLA_*): invalid values are errors, near-misses of known names are warnings.
maybe_error check_env(const job_spec& job, warnings& notes);

/// The virtual stages per rank `per_rank` that the job's pipeline schedule accepts (one for a
/// single-stage schedule, two for a V, at least two for the other multi-stage ones); the error
/// names `path`.
maybe_error check_stages_per_rank(const job_spec& job, int per_rank, const std::string& path);

/// Records that `path` was filled in by resolution, not given (job_provenance::derived).
void mark_derived(job_spec& job, const std::string& path);

/// "2.6" -> 206, "0.4.35" -> 4; -1 when unreadable. Compares major.minor only.
int version_key(const std::string& version);

}  // namespace vramscope::job::detail
