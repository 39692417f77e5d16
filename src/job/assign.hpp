#pragma once
// Setting one field of a job from a value the user wrote, shared by the YAML reader and --set:
// the same parsing, the same messages, the same provenance records. Private to the job module.

#include <optional>
#include <string>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/job/job_spec.hpp>

#include "job/field_codecs.hpp"

namespace vramscope::job::detail {

/// True for "env.NAME" with NAME a valid environment variable name.
bool is_env_path(const std::string& path);

/// True when `name` is [A-Za-z_][A-Za-z0-9_]*.
bool is_env_name(const std::string& name);

/// Sets `path` (a field path or env.NAME; Requires: one of those) to `value`. On success records
/// `where` in job.provenance.set_at[path], drops `path` from provenance.derived and returns
/// nullopt; applies the LoRA rule (any lora.* field but lora.enabled turns LoRA on unless
/// lora.enabled was given). On failure returns `where` with the message "<path>: <problem>"
/// and leaves `job` unchanged.
std::optional<diagnostic> assign(job_spec& job, const std::string& path, const raw_value& value,
                                 const diagnostic& where);

}  // namespace vramscope::job::detail
