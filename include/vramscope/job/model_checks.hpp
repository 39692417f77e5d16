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

/// The pipeline's virtual stages per rank: parallel.pp_stages_per_rank, or, sized by
/// parallel.pp_layers_per_stage, ceil((blocks + 2) / layers per stage) / pp (torchtitan's
/// pipeline_llm). 1 without a pipeline.
int stages_per_rank(const job_spec& job, const model::model_spec& model);

/// Fills what the job leaves to the model it names (parallel.pp_stages_per_rank from
/// parallel.pp_layers_per_stage), marked derived. Run after the model is loaded, before
/// check_against_model.
void complete_with_model(job_spec& job, const model::model_spec& model);

}  // namespace vramscope::job
