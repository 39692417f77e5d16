// CKPT001, CKPT002, EVAL001, OPTIM001: an out-of-memory error outside the training step, placed
// by the traceback before the message (doctor/oom_facts.cpp names the frames): saving a
// checkpoint, loading one to resume, evaluating, or the optimizer creating its state at the first
// step. Each has a known fix that no change to the step itself gives.
#include <fmt/format.h>

#include "doctor/likelihood.hpp"
#include "doctor/oom_facts.hpp"
#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

struct phase_rule {
  oom_phase phase;
  const char* id;
  const char* cause_class;
  const char* cause;
  const char* fix;
};

constexpr phase_rule phase_rules[] = {
    {oom_phase::checkpoint_save, "CKPT001", "checkpoint_save",
     "saving gathers what training keeps sharded or on the CPU: FSDP's full state dict materialises every "
     "unit's full parameters (and keeps a copy on rank 0 unless offloaded), DeepSpeed ZeRO-3 gathers the "
     "16-bit weights; on top of what the step left cached this needs memory the step never did",
     "gather off the GPU: FSDP FullStateDictConfig(offload_to_cpu=True, rank0_only=True), or save a sharded "
     "state dict (SHARDED_STATE_DICT, torch.distributed.checkpoint); DeepSpeed: "
     "stage3_gather_16bit_weights_on_model_save=false and convert with zero_to_fp32.py afterwards"},
    {oom_phase::checkpoint_resume, "CKPT002", "checkpoint_resume",
     "torch.load restores each tensor to the device it was saved from (cuda:0 for a checkpoint saved "
     "there), and the loaded dict stays alive beside the model's own copy while training starts",
     "torch.load(path, map_location=\"cpu\"), load_state_dict, then drop the loaded dict (del checkpoint) "
     "before the first step"},
    {oom_phase::eval, "EVAL001", "eval",
     "evaluation runs a forward the step's memory plan did not: without torch.no_grad() it keeps every "
     "activation for a backward that never comes, an evaluation batch larger than the training one needs "
     "more, and predictions or logits kept on the GPU grow with every evaluation step",
     "evaluate under torch.no_grad() (or torch.inference_mode(); model.eval() alone keeps the graph), "
     "with an evaluation batch no larger than the training one, moving predictions to the CPU "
     "(Trainer: eval_accumulation_steps, per_device_eval_batch_size)"},
    {oom_phase::optimizer_state_init, "OPTIM001", "first_optimizer_step",
     "the optimizer creates its state at its first step (Adam: exp_avg and exp_avg_sq, two tensors the "
     "size of the parameters), on top of the gradients that are still alive: the first step needs more "
     "than the forward and backward did",
     "leave room for the optimizer's state: shard it (ZeRO / FSDP), an 8-bit or paged optimizer "
     "(bitsandbytes AdamW8bit, PagedAdamW), or a smaller micro-batch; foreach=False lowers the step's "
     "temporaries"},
};

std::vector<finding> phase_findings(const doctor_input& in, oom_phase phase) {
  if (!in.observed) return {};
  const phase_rule* rule = nullptr;
  for (const auto& r : phase_rules)
    if (r.phase == phase) rule = &r;
  std::vector<finding> out;
  for (const auto& o : in.observed->ooms) {
    const auto facts = facts_of(o);
    if (facts.phase != phase) continue;
    finding f{rule->id, {}, severity::error, {}, rule->cause, rule->fix, {}, {},
              rule->cause_class, likelihood::decisive, {}, {}};
    f.evidence.push_back(fmt::format("{}: tried to allocate {}", where(o), size_or_unknown(o.requested)));
    f.evidence.push_back(fmt::format("traceback line {}", facts.phase_line));
    f.support.push_back(fmt::format("the traceback places the failure there (line {})",
                                    facts.phase_line.substr(0, facts.phase_line.find(':'))));
    out.push_back(std::move(f));
    break;
  }
  return out;
}

}  // namespace

std::vector<finding> checkpoint_save(const doctor_input& in) {
  return phase_findings(in, oom_phase::checkpoint_save);
}
std::vector<finding> checkpoint_resume(const doctor_input& in) {
  return phase_findings(in, oom_phase::checkpoint_resume);
}
std::vector<finding> evaluation(const doctor_input& in) { return phase_findings(in, oom_phase::eval); }
std::vector<finding> first_optimizer_step(const doctor_input& in) {
  return phase_findings(in, oom_phase::optimizer_state_init);
}

}  // namespace vramscope::doctor::rules
