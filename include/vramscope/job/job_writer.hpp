#pragma once
// Writing a job spec back out: every field, with the section and key names of the YAML, in the
// order of docs/job-spec.md. to_json is the "job" object of `plan --json` (a stable format that
// scripts read); to_yaml is a spec that parse_job_yaml reads back to an equal job.
//
// Value forms (the same in both, except sizes):
//   enums and dtypes      their canonical names ("fsdp2", "bf16")
//   hardware.gpu_memory,  JSON: integer bytes; YAML: an exact binary size ("81559MiB") or
//   init.early_tensors    the integer when no binary unit divides it
//   reshard_after_forward true, false or the group size N
//   compute_capability    "9.0"
//   lora.base_quantization "none" or the dtype
//   env                   a map of strings (empty map when none)
// Shorthands (precision: bf16-mixed, optimizer: adamw) are written expanded. The provenance
// is not written. Pure functions; thread-safe.

#include <string>

#include <vramscope/job/job_spec.hpp>

#include <nlohmann/json.hpp>

namespace vramscope::job {

/// The job as YAML text (block style, two-space indent, ends with a newline).
std::string to_yaml(const job_spec& job);

/// The job as a JSON object: {"model": ..., "hardware": {...}, ..., "env": {...}}.
nlohmann::json to_json(const job_spec& job);

}  // namespace vramscope::job
