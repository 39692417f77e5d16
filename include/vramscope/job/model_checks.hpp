#pragma once
// Validation of a resolved job against the model it names: the checks resolve_job cannot make
// because they need the model's inventory. Run after the model is loaded (cli/planning.cpp).

#include <vramscope/core/result.hpp>
#include <vramscope/job/job_spec.hpp>
#include <vramscope/model/model_spec.hpp>

namespace vramscope::job {

/// Checks that every LoRA target names modules of `model` that LoRA can adapt (see
/// model::lora_targets for the matching rules). The error names the field and points at the
/// line that set it, as resolve_job's do:
///   job.yaml:9:9: lora.targets: "q_projj" matches no module of llama-3.1-8b (did you mean
///   "q_proj"?); LoRA can target embed_tokens, q_proj, ... (or "all-linear")
/// Passes when LoRA is off. Thread-safe.
status check_against_model(const job_spec& job, const model::model_spec& model);

}  // namespace vramscope::job
