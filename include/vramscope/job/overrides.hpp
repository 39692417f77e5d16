#pragma once
// Command-line overrides of single fields: `--set parallel.tp=4`, `--set precision=bf16-mixed`,
// `--set env.TORCH_NCCL_AVOID_RECORD_STREAMS=1`, `--set lora.targets=q_proj,v_proj`.
// The key is a dotted path from field_paths() (or env.NAME); the value is read exactly as the
// same value in YAML would be, with the same messages, under the source name "--set" and with
// the override text as context:
//
//   --set: parallel.tp: expected an integer, got "four"
//   parallel.tp=four
//               ^ near here
//
// Thread-safe: no shared state.

#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/job/job_spec.hpp>

namespace vramscope::job {

/// Sets one field from "path=value" and records it in job.provenance as set by --set (so
/// resolve_job will not re-derive it). Does not resolve: call resolve_job afterwards, once for
/// several overrides. Writing any lora.* field other than lora.enabled turns LoRA on.
/// On failure `job` is unchanged.
status set_field(job_spec& job, std::string_view key_eq_value);

/// set_field, then resolve_job: derived values are re-derived (a new hardware.gpu brings its
/// own memory, a new parallel.tp a new dp_shard) and every rule is checked again. On failure
/// `job` is unchanged. Warnings are appended to `notes` when given.
status apply_override(job_spec& job, std::string_view key_eq_value, warnings* notes = nullptr);

/// Several overrides, applied in order, then one resolve_job. On failure `job` is unchanged.
status apply_overrides(job_spec& job, const std::vector<std::string>& overrides,
                       warnings* notes = nullptr);

/// Every settable dotted key, in the order of docs/job-spec.md: "model", "hardware.gpu", ...,
/// including the shorthands "precision" and "optimizer". Environment variables are set as
/// "env.NAME" for any NAME and are not listed.
std::vector<std::string> field_paths();

}  // namespace vramscope::job
