#include <vramscope/job/model_checks.hpp>

#include <vramscope/model/modules.hpp>

#include <fmt/format.h>

#include <algorithm>

#include "job/validation.hpp"

namespace vramscope::job {

namespace {

std::uint64_t blocks_of(const model::model_spec& model) {
  return static_cast<std::uint64_t>(
      std::count_if(model.units.begin(), model.units.end(),
                    [](const auto& u) { return u.kind == model::unit_kind::block; }));
}

// torchtitan's pipeline_llm: ceil((layers + first_stage_less_layers + last_stage_less_layers) /
// pipeline_parallel_layers_per_stage) virtual stages, both weights 1 by default.
std::uint64_t stages_from_layers(const job_spec& job, const model::model_spec& model) {
  const auto per = static_cast<std::uint64_t>(job.parallel.pp_layers_per_stage);
  return (blocks_of(model) + 2 + per - 1) / per;
}

// What pipeline parallelism needs of the model (schedule/pipeline.cpp splits it as torchtitan
// does): one decoder stack, no head tied to the embedding (the first and last stages would both
// hold it), and at least one block in every stage once the embedding and the output count as
// one block each.
status check_pipeline_model(const job_spec& job, const model::model_spec& model) {
  if (job.parallel.pp <= 1) return ok();
  if (job.parallel.pp_layers_per_stage > 0) {
    const auto virtual_stages = stages_from_layers(job, model);
    const auto pp = static_cast<std::uint64_t>(job.parallel.pp);
    if (virtual_stages % pp != 0)
      return detail::field_error(
          job, "parallel.pp_layers_per_stage",
          fmt::format("{} blocks plus the embedding and the output in stages of {} make {} virtual "
                      "stages, not a multiple of parallel.pp {} (torchtitan refuses it too)",
                      blocks_of(model), job.parallel.pp_layers_per_stage, virtual_stages, pp));
    if (auto err = detail::check_stages_per_rank(job, static_cast<int>(virtual_stages / pp),
                                                 "parallel.pp_layers_per_stage"))
      return *err;
  }
  const int per_rank = stages_per_rank(job, model);
  const int stages = job.parallel.pp * per_rank;
  if (model.vision || !model.extra.empty())
    return detail::field_error(job, "parallel.pp",
                               fmt::format("pipeline parallelism is planned for decoder-only models; "
                                           "{} has more than one stack", model.name));
  if (model.text.tied_embeddings)
    return detail::field_error(job, "parallel.pp",
                               fmt::format("{} ties its head to its embedding, which the first and "
                                           "last pipeline stages would both hold; not planned",
                                           model.name));
  for (const auto& u : model.units) {
    if (u.kind != model::unit_kind::block && u.kind != model::unit_kind::embedding &&
        u.kind != model::unit_kind::norm && u.kind != model::unit_kind::head)
      return detail::field_error(job, "parallel.pp",
                                 fmt::format("pipeline parallelism is planned for decoder-only "
                                             "models; {} has a {} unit ({})", model.name,
                                             model::name_of(u.kind), u.name));
  }
  const auto blocks = blocks_of(model);
  if (job.parallel.kind == strategy::megatron) {
    // Megatron-LM splits only the transformer layers, evenly (get_num_layers_to_build).
    const auto n = static_cast<std::uint64_t>(stages);
    if (blocks < n || blocks % n != 0)
      return detail::field_error(
          job, "parallel.pp",
          fmt::format("Megatron-LM gives every pipeline stage the same number of transformer "
                      "layers: {} layers do not divide into {} stages (pp {} x pp_stages_per_rank "
                      "{})",
                      blocks, stages, job.parallel.pp, per_rank));
    return ok();
  }
  if ((blocks + 2) / static_cast<std::uint64_t>(stages) < 2)
    return detail::field_error(
        job, "parallel.pp",
        fmt::format("{} blocks (plus the embedding and the head) cannot fill {} pipeline stages "
                    "(pp {} x pp_stages_per_rank {}) with a block each",
                    blocks, stages, job.parallel.pp, per_rank));
  return ok();
}

}  // namespace

int stages_per_rank(const job_spec& job, const model::model_spec& model) {
  if (job.parallel.pp_stages_per_rank > 0) return job.parallel.pp_stages_per_rank;
  if (job.parallel.pp <= 1 || job.parallel.pp_layers_per_stage <= 0) return 1;
  return static_cast<int>(stages_from_layers(job, model) /
                          static_cast<std::uint64_t>(job.parallel.pp));
}

void complete_with_model(job_spec& job, const model::model_spec& model) {
  if (job.parallel.pp_stages_per_rank != 0 || job.parallel.pp <= 1 ||
      job.parallel.pp_layers_per_stage <= 0)
    return;
  job.parallel.pp_stages_per_rank = stages_per_rank(job, model);
  detail::mark_derived(job, "parallel.pp_stages_per_rank");
}

// Expert parallelism splits each MoE layer's routed experts evenly over the ep ranks; an
// expert capacity needs experts.
status check_expert_model(const job_spec& job, const model::model_spec& model) {
  const auto experts = model.text.experts;
  if (job.training.moe_capacity_factor && experts == 0)
    return detail::field_error(job, "training.moe_capacity_factor",
                               fmt::format("{} has no experts to cap (not a mixture of experts)",
                                           model.name));
  const int ep = job.parallel.ep;
  if (ep <= 1) return ok();
  if (experts == 0)
    return detail::field_error(job, "parallel.ep",
                               fmt::format("{} has no experts to split (not a mixture of experts)",
                                           model.name));
  if (experts % static_cast<std::uint64_t>(ep) != 0)
    return detail::field_error(job, "parallel.ep",
                               fmt::format("{} experts per layer of {} do not split evenly over "
                                           "{} ranks", experts, model.name, ep));
  return ok();
}

status check_against_model(const job_spec& job, const model::model_spec& model) {
  if (auto pipeline = check_pipeline_model(job, model); !pipeline) return pipeline;
  if (auto experts = check_expert_model(job, model); !experts) return experts;
  if (!job.lora.enabled || !job.lora.uses_targets()) return ok();
  if (auto targets = model::lora_targets(model, job.lora.targets); !targets)
    return detail::field_error(job, "lora.targets", targets.error().message);
  return ok();
}

}  // namespace vramscope::job
