// CKPT001, CKPT002, EVAL001, OPTIM001: an out-of-memory error outside the training step, placed
// by the traceback before the message (doctor/oom_facts.cpp names the frames): saving a
// checkpoint, loading one to resume, evaluating, or the optimizer creating its state at the first
// step. Each has a known fix that no change to the step itself gives.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

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
  const char* plan_phase;  // predict::phase_peak::name of the phase in a plan
  const char* cause;
  const char* fix;
};

constexpr phase_rule phase_rules[] = {
    {oom_phase::checkpoint_save, "CKPT001", "checkpoint_save", "checkpoint_save",
     "saving gathers what training keeps sharded or on the CPU: FSDP's full state dict "
     "materialises every "
     "unit's full parameters (and keeps a copy on rank 0 unless offloaded), DeepSpeed ZeRO-3 "
     "gathers the "
     "16-bit weights; on top of what the step left cached this needs memory the step never did",
     "gather off the GPU: FSDP FullStateDictConfig(offload_to_cpu=True, rank0_only=True), or save "
     "a sharded "
     "state dict (SHARDED_STATE_DICT, torch.distributed.checkpoint); DeepSpeed: "
     "stage3_gather_16bit_weights_on_model_save=false and convert with zero_to_fp32.py afterwards"},
    {oom_phase::checkpoint_resume, "CKPT002", "checkpoint_resume", "resume",
     "torch.load restores each tensor to the device it was saved from (cuda:0 for a checkpoint "
     "saved "
     "there), and the loaded dict stays alive beside the model's own copy while training starts",
     "torch.load(path, map_location=\"cpu\"), load_state_dict, then drop the loaded dict (del "
     "checkpoint) "
     "before the first step"},
    {oom_phase::eval, "EVAL001", "eval", "eval",
     "evaluation runs a forward the step's memory plan did not: without torch.no_grad() it keeps "
     "every "
     "activation for a backward that never comes, an evaluation batch larger than the training one "
     "needs "
     "more, and predictions or logits kept on the GPU grow with every evaluation step",
     "evaluate under torch.no_grad() (or torch.inference_mode(); model.eval() alone keeps the "
     "graph), "
     "with an evaluation batch no larger than the training one, moving predictions to the CPU "
     "(Trainer: eval_accumulation_steps, per_device_eval_batch_size); split inputs larger than "
     "training's (tiles or crops of large images, chunks of long audio, volumes or sequences)"},
    {oom_phase::optimizer_state_init, "OPTIM001", "first_optimizer_step", "first_optimizer_step",
     "the optimizer creates its state at its first step (Adam: exp_avg and exp_avg_sq, two tensors "
     "the "
     "size of the parameters), on top of the gradients that are still alive: the first step needs "
     "more "
     "than the forward and backward did",
     "leave room for the optimizer's state: shard it (ZeRO / FSDP), an 8-bit or paged optimizer "
     "(bitsandbytes AdamW8bit, PagedAdamW), or a smaller micro-batch; foreach=False lowers the "
     "step's "
     "temporaries"},
};

// "[10000,32,28,28]"
std::string shape_text(const std::vector<std::int64_t>& dims) {
  return fmt::format("[{}]", fmt::join(dims, ","));
}

// The change that makes the job's own phase fit, as the job spec writes it.
std::vector<std::string> plan_fix(oom_phase phase, const job::job_spec& j) {
  switch (phase) {
    case oom_phase::checkpoint_save:
      if (j.saves_int8_copies()) return {"framework.bitsandbytes=0.39.1"};
      return {"checkpoint.offload_to_cpu=true", "checkpoint.rank0_only=true"};
    case oom_phase::checkpoint_resume: return {"checkpoint.resume_map_location=cpu", "checkpoint.resume_kept=false"};
    case oom_phase::eval:
      if (!j.eval.no_grad) return {"eval.no_grad=true"};
      if (j.eval.accumulate_logits && j.eval.accumulation_steps == 0) return {"eval.accumulation_steps=1"};
      if (j.eval.micro_batch > static_cast<int>(j.training.micro_batch))
        return {fmt::format("eval.micro_batch={}", j.training.micro_batch)};
      return {};
    case oom_phase::optimizer_state_init: return {"optimizer.name=adamw_8bit"};
    case oom_phase::unknown: break;
  }
  return {};
}

// A plan whose rank runs out of memory in the phase, or exceeds its GPU there.
std::optional<std::string> planned_failure(const doctor_input& in, const phase_rule& rule) {
  if (!in.prediction) return std::nullopt;
  for (const auto& r : in.prediction->ranks)
    for (const auto& ph : r.phases)
      if (ph.name == rule.plan_phase && ph.reached && (ph.oom || !ph.fits))
        return fmt::format("plan: rank {} {} in {} ({} on its GPU)", r.rank,
                           ph.oom ? "runs out of memory" : "exceeds its GPU", ph.name, format_bytes(ph.peak.device));
  return std::nullopt;
}

std::vector<finding> phase_findings(const doctor_input& in, oom_phase phase) {
  const phase_rule* rule = nullptr;
  for (const auto& r : phase_rules)
    if (r.phase == phase) rule = &r;
  finding f{rule->id, {}, severity::error, {}, rule->cause, rule->fix, {}, {},
            rule->cause_class, likelihood::decisive, {}, {}};
  // An int8 LoRA base under bitsandbytes 0.38.0 to 0.39.0: the save's copies are the library's
  // (job_spec::saves_int8_copies), whatever the strategy gathers.
  if (phase == oom_phase::checkpoint_save && in.job && in.job->saves_int8_copies()) {
    f.cause = fmt::format(
        "bitsandbytes {} copies every int8 weight twice while a state dict is built "
        "(Linear8bitLt._save_to_state_dict clones the weight and keeps a row-major copy of it), "
        "and a PEFT adapter save builds the whole model's state dict: the save needs twice the "
        "quantised base on top of what the step holds",
        in.job->framework.bitsandbytes);
    f.fix =
        "upgrade bitsandbytes to 0.39.1 or later (it saves the weights in the layout they are "
        "held in, without copies); or save only the adapter: pass save_pretrained a state_dict= "
        "of the LoRA parameters, which never calls the base's state dict";
  }
  const observe::oom_report* failed = nullptr;  // the message the finding reads
  if (in.observed)
    for (const auto& o : in.observed->ooms) {
      const auto facts = facts_of(o);
      if (facts.phase != phase) continue;
      failed = &o;
      const std::string line = facts.phase_line.substr(0, facts.phase_line.find(':'));
      f.evidence.push_back(fmt::format("{}: tried to allocate {}", where(o), size_or_unknown(o.requested)));
      switch (facts.placed_by) {
        case phase_source::frame:
        case phase_source::none:
          f.evidence.push_back(fmt::format("traceback line {}", facts.phase_line));
          f.support.push_back(
              fmt::format("the traceback places the failure there (line {})", line));
          break;
        case phase_source::script:
          // The script's name is its author's word for what it runs, not the call that failed.
          f.likelihood = likelihood::strong;
          f.evidence.push_back(fmt::format("traceback line {}", facts.phase_line));
          f.support.push_back(
              fmt::format("the traceback starts in an evaluation or inference script (line {}) and "
                          "no frame between it and the error trains or runs backward",
                          line));
          f.against.push_back("only the script's name says it evaluates: no frame names the loop");
          break;
        case phase_source::module:
          // The package names what the code is for, not which loop called it.
          f.likelihood = likelihood::strong;
          f.evidence.push_back(fmt::format("traceback line {}", facts.phase_line));
          f.support.push_back(
              fmt::format("the traceback passes through the program's evaluation code (line {}) and no "
                          "frame below it trains or runs backward",
                          line));
          f.against.push_back("only the file's place says it evaluates: no frame names the loop");
          break;
        case phase_source::progress:
          // The bar's format names the loop that printed it, not the call that failed.
          f.likelihood = likelihood::strong;
          f.evidence.push_back(fmt::format("progress line {}", facts.phase_line));
          f.support.push_back(fmt::format(
              "the last progress before the error (line {}) is mmcv's ProgressBar ({}/{}, task/s), "
              "which mmcv's test loops print per sample; its training loop logs through its "
              "logger, "
              "and no frame below it trains or runs backward",
              line, facts.progress->done, facts.progress->total));
          f.against.push_back(
              "only the bar's format says it evaluates: mmcv's track_progress prints the same bar "
              "for data preparation");
          break;
        case phase_source::generation:
          // Generation is inference's, but a training loop may generate too (an RL rollout).
          f.likelihood = likelihood::strong;
          f.evidence.push_back(fmt::format("traceback line {}", facts.phase_line));
          f.support.push_back(
              fmt::format("the traceback fails while generating or sampling outputs (line {}), and "
                          "no frame in it trains or runs backward",
                          line));
          f.against.push_back(
              "a training loop that generates (an RL rollout, a periodic sample grid) fails in "
              "the same frames; only the missing training frames say it is inference");
          break;
        case phase_source::status:
          // The log's words for the phase it was in, not the call that failed.
          f.likelihood = likelihood::strong;
          f.evidence.push_back(fmt::format("status line {}", facts.phase_line));
          f.support.push_back(fmt::format(
              "the log's last status before the error (line {}) names the phase, and no "
              "frame below it runs backward",
              line));
          f.against.push_back(
              "only the log's status line names the phase: no traceback frame shows the call that "
              "failed");
          break;
        case phase_source::batch_shape: {
          f.likelihood = likelihood::likely;
          f.evidence.push_back(fmt::format("line {}: the failed tensor's shape {}", line,
                                           shape_text(facts.tensor_shape)));
          f.support.push_back(
              fmt::format("its batch of {} is a whole evaluation split (at least {} samples), two "
                          "orders above a training step's batch on one GPU",
                          facts.tensor_shape.front(), likelihood::whole_split_min));
          f.against.push_back("training on the whole data set in one batch builds the same tensor");
          f.cause = "the whole evaluation split is fed to the model as one batch: its "
                    "activations for every sample at once need more than the GPU has";
          f.fix = "evaluate in batches: batch the evaluation input (dataset.batch(n), or the "
                  "batch_size of evaluate / predict) instead of feeding the whole split in one "
                  "tensor";
          break;
        }
      }
      break;
    }
  // Figures the paste itself measured in the phase ("Reserved after load: 14,362 MB"): what the
  // phase left on the GPU, read as the paste names it. Reserved far above allocated there is the
  // phase's own memory, freed into the cache (or still referenced) instead of returned: the fix of
  // the phase gives it back.
  if (f.evidence.empty() && in.observed)
    for (const auto& s : in.observed->stats) {
      if (s.origin != observe::stats_origin::log_figures || s.after_change || phase_of_label(s.label) != phase)
        continue;
      const auto reserved = s.reserved.current ? s.reserved.current : s.reserved.peak;
      const auto allocated = s.allocated.current ? s.allocated.current : s.allocated.peak;
      if (!reserved || !allocated || *reserved <= *allocated) continue;
      const bytes left = *reserved - *allocated;
      f.likelihood = likelihood::strong;
      f.evidence.push_back(fmt::format("{} line {}: \"{}\": {} reserved, {} allocated", s.source,
                                       s.raw.count("line") ? s.raw.at("line") : 0, s.label, format_bytes(*reserved),
                                       format_bytes(*allocated)));
      f.support.push_back(fmt::format("the paste measured these figures in the phase ({}): {} held beyond the "
                                      "live tensors is what the phase left on the GPU",
                                      s.label, format_bytes(left)));
      f.against.push_back("no out-of-memory traceback places a failure there: the paste's own label does");
      f.saving = static_cast<std::int64_t>(left);
      f.saving_basis = "the reserved - allocated the paste measured in the phase: what the phase left on the GPU";
      break;
    }
  // A memory summary of a load: nothing allocated beyond the peak (no step ran) and a copy of
  // at least half the tensors kept freed after it (likelihood.hpp): the loaded state dict on
  // the GPU beside the model. A finding of its own figures, no message needed.
  if (phase == oom_phase::checkpoint_resume && f.evidence.empty() && in.observed)
    for (const auto& s : in.observed->stats) {
      if (s.after_change || !s.allocated.current || !s.allocated.peak) continue;
      const auto total = s.raw.find("allocated_bytes.all.allocated");
      const auto freed = s.raw.find("allocated_bytes.all.freed");
      if (total == s.raw.end() || freed == s.raw.end()) continue;
      const bytes kept = *s.allocated.current, peak = *s.allocated.peak;
      if (kept == 0 || freed->second == 0 ||
          static_cast<double>(total->second) > likelihood::load_total_over_peak_max * static_cast<double>(peak) ||
          static_cast<double>(freed->second) < likelihood::load_copy_min * static_cast<double>(kept))
        continue;
      f.likelihood = likelihood::likely;
      f.level = severity::warning;
      f.evidence.push_back(fmt::format("{}: allocated {} now, {} at peak, {} allocated in all and {} freed",
                                       s.source, format_bytes(kept), format_bytes(peak),
                                       format_bytes(total->second), format_bytes(freed->second)));
      f.support.push_back(fmt::format("nothing was allocated beyond the peak, so no training step ran; {} was "
                                      "freed after it, a copy of {} of the {} kept: the loaded state dict "
                                      "beside the model's own tensors",
                                      format_bytes(freed->second),
                                      fmt::format("{:.0f} %", 100.0 * static_cast<double>(freed->second) /
                                                                  static_cast<double>(kept)),
                                      format_bytes(kept)));
      f.against.push_back("the paste does not name the load: a model built on the GPU from a copy made there "
                          "(a .to() of a GPU copy, a conversion) peaks the same way");
      f.cause = "the checkpoint was loaded onto the GPU (torch.load without map_location), so its tensors and the "
                "model's parameters were both on the GPU while load_state_dict copied one into the other: the "
                "load's peak is twice the model";
      f.saving = static_cast<std::int64_t>(freed->second);
      f.saving_basis = "the copy freed after the load's peak";
      break;
    }
  // Evaluation with nothing to place the message: an evaluation that keeps its graphs (no
  // no_grad) or runs a larger batch fills the GPU as a step that does not fit does; the paste
  // cannot tell, and the finding says so below the job's size. A traceback through autograd's
  // backward is a training step, which no evaluation runs.
  if (phase == oom_phase::eval && f.evidence.empty() && in.observed)
    for (const auto& o : in.observed->ooms) {
      // TensorFlow's pool runs out the same way in an evaluation or prediction that keeps every
      // batch's outputs on the GPU or feeds a larger batch than training's.
      const bool tensorflow = o.kind == observe::oom_kind::xla && o.tensorflow;
      if ((o.kind != observe::oom_kind::torch && !tensorflow) || o.origin != observe::oom_origin::allocator)
        continue;
      const auto facts = facts_of(o);
      if (facts.phase != oom_phase::unknown || facts.in_backward) continue;
      f.likelihood = likelihood::weak - likelihood::step;
      f.level = severity::warning;
      failed = &o;
      f.evidence.push_back(fmt::format("{}: tried to allocate {}", where(o), size_or_unknown(o.requested)));
      f.against.push_back("no traceback frame places it in an evaluation: nothing in the paste tells it from a step "
                          "that does not fit; the traceback above the message decides (a frame in evaluate, "
                          "validation_step or predict, an evaluation script at its root)");
      if (tensorflow) {
        f.cause = "an evaluation or prediction that keeps every batch's outputs on the GPU, or feeds a larger "
                  "batch than training's, fills TensorFlow's pool as a step that does not fit does";
        f.fix = "evaluate in batches no larger than training's and move each batch's outputs off the GPU "
                "(.numpy(), or the batch_size of evaluate / predict)";
      } else {
        f.cause =
            "evaluation without no_grad() keeps activations no backward uses, or runs whole large "
            "inputs at once";
        f.fix =
            "no_grad() / inference_mode(); batches no larger than training's; tile or chunk large "
            "inputs; "
            "outputs to the CPU";
      }
      break;
    }
  if (const auto planned = planned_failure(in, *rule)) {
    f.evidence.push_back(*planned);
    f.support.push_back("the plan of the job fails in that phase");
  }
  // A checkpoint restored onto the GPU and kept fails later, in the step it crowds: the job's
  // resume is the cause when the plan does not fit and the same job loading to the CPU does.
  if (phase == oom_phase::checkpoint_resume && in.job && in.prediction && !in.prediction->fits &&
      in.job->checkpoint.resume && in.job->checkpoint.resume_map_location != "cpu" &&
      in.job->checkpoint.resume_kept)
    if (auto after = replan(in, plan_fix(phase, *in.job)); after && after->after.fits) {
      f.evidence.push_back(fmt::format("job: checkpoint.resume_map_location={}, resume_kept=true: the loaded copy "
                                       "stays on the GPU through training",
                                       in.job->checkpoint.resume_map_location));
      f.support.push_back("the plan fits when the checkpoint is loaded to the CPU and dropped");
      if (f.evidence.size() == 1) f.likelihood = likelihood::strong;  // the job alone, not a traceback
    }
  if (f.evidence.empty()) return {};
  // Without a job to re-plan, an evaluation's saving is bounded by the message: torch.no_grad()
  // frees the activations kept for a backward that never comes, which are part of what PyTorch
  // had allocated when it failed (the weights, also part of it, stay).
  if (phase == oom_phase::eval && !f.saving && failed && failed->allocated_by_pytorch) {
    f.saving = static_cast<std::int64_t>(*failed->allocated_by_pytorch);
    f.saving_basis = "at most what PyTorch had allocated at the failure: no_grad frees the activations kept "
                     "for backward, the weights stay";
  }
  if (phase == oom_phase::checkpoint_resume && f.saving)
    f.fix += "; if the optimizer state is offloaded to the CPU after loading, drop the loaded state dict's GPU "
             "copies and call torch.cuda.empty_cache()";
  if (in.job)
    if (const auto settings = plan_fix(phase, *in.job); !settings.empty())
      if (auto after = replan(in, settings); after && after->saving > 0) {
        f.saving = after->saving;
        f.saving_basis = replan_basis(settings);
      }
  return {f};
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
