// DeepSpeed "auto" values, resolved the way the Hugging Face Trainer resolves them at launch.
// Source of the rules: transformers, src/transformers/integrations/deepspeed.py,
// HfTrainerDeepSpeedConfig: trainer_config_process fills train_micro_batch_size_per_gpu from
// per_device_train_batch_size, gradient_accumulation_steps from the argument of that name,
// train_batch_size = world_size x both, bf16.enabled from --bf16 and fp16.enabled from --fp16;
// trainer_config_finalize fills reduce_bucket_size = hidden_size^2 and, under ZeRO-3,
// stage3_prefetch_bucket_size = 0.9 x hidden_size^2 and stage3_param_persistence_threshold =
// 10 x hidden_size (hidden_size, else max(hidden_sizes), of the model's config).
#include <vramscope/import/importers.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "import/import_common.hpp"

namespace vramscope::job {

namespace detail {

namespace {

bool is_auto(const entry& e) { return e.is_string && e.value.text == "auto"; }

void fill(import_context& ctx, entry& e, std::uint64_t value, const char* argument,
          const char* field) {
  e.value.text = std::to_string(value);
  e.is_string = false;
  ctx.note(e, fmt::format("\"{}\" is \"auto\": the HF Trainer fills it from {} (assumed {}, "
                          "TrainingArguments' default unless --set trainer.{} gives it); "
                          "set {} to plan another",
                          e.key, argument, value, argument, field));
}

}  // namespace

void resolve_trainer_autos(import_context& ctx) {
  const bool zero3 = ctx.find("zero_optimization.stage") != nullptr &&
                     ctx.find("zero_optimization.stage")->value.text == "3";
  // A fixed train_batch_size beside an "auto" micro batch or accumulation: the Trainer fills
  // those from its arguments and stops unless the total is GPUs x micro x accumulation
  // (fill_match: "Please correct the following DeepSpeed config values that mismatch
  // TrainingArguments values"), so a run that starts has arguments that make the total. Not
  // given them, the factors are left for DeepSpeed's derivation from the total (read_world), not
  // taken from TrainingArguments' defaults, which the total may contradict.
  const entry* total = ctx.find("train_batch_size");
  const bool fixed_total = total != nullptr && !is_auto(*total) && !ctx.trainer.batch_given;
  std::vector<entry> kept;
  for (auto& e : ctx.entries) {
    if (!is_auto(e)) {
      kept.push_back(std::move(e));
      continue;
    }
    if (fixed_total &&
        (e.key == "train_micro_batch_size_per_gpu" || e.key == "gradient_accumulation_steps")) {
      ctx.note(e, fmt::format("\"{}\" is \"auto\" beside train_batch_size {}: the HF Trainer "
                              "fills it from its arguments and stops unless they make that "
                              "total, so it is derived from the total (--set "
                              "trainer.per_device_train_batch_size and "
                              "trainer.gradient_accumulation_steps give the arguments)",
                              e.key, total->value.text));
      continue;
    }
    if (e.key == "train_micro_batch_size_per_gpu") {
      fill(ctx, e, ctx.trainer.per_device_train_batch_size, "per_device_train_batch_size",
           "training.micro_batch");
    } else if (e.key == "gradient_accumulation_steps") {
      fill(ctx, e, ctx.trainer.gradient_accumulation_steps, "gradient_accumulation_steps",
           "training.gradient_accumulation");
    } else if (e.key == "train_batch_size") {
      ctx.note(e, "\"train_batch_size\" is \"auto\": the HF Trainer fills it with the number of "
                  "GPUs x micro batch x gradient accumulation, so it does not give the number "
                  "of GPUs");
      // Without train_micro_batch_size_per_gpu, DeepSpeed divides that filled total by the
      // accumulation and the GPUs: the Trainer's per-device batch again.
      if (ctx.find("train_micro_batch_size_per_gpu") == nullptr) {
        const auto micro = ctx.trainer.per_device_train_batch_size;
        ctx.note(e, fmt::format("no train_micro_batch_size_per_gpu: DeepSpeed divides the filled "
                                "train_batch_size by the accumulation and the GPUs, leaving "
                                "per_device_train_batch_size (assumed {})",
                                micro));
        (void)ctx.set("training.micro_batch", std::to_string(micro), e);
      }
    } else if (e.key == "zero_optimization.reduce_bucket_size" ||
               (zero3 && e.key == "zero_optimization.stage3_prefetch_bucket_size")) {
      const bool reduce = e.key == "zero_optimization.reduce_bucket_size";
      ctx.out.hidden_size_autos.push_back(
          {e.key, reduce ? "parallel.reduce_bucket_size" : "parallel.prefetch_bucket_size",
           reduce ? 1.0 : 0.9, e.where});
      ctx.note(e, fmt::format("\"{}\" is \"auto\": the HF Trainer fills it with {}hidden_size^2 "
                              "of the model; so does plan once the model is loaded",
                              e.key, reduce ? "" : "0.9 x "));
      continue;  // noted here; not an option for the table any more
    }
    kept.push_back(std::move(e));
  }
  ctx.entries = std::move(kept);
}

}  // namespace detail

status take_trainer_args(const std::vector<std::string>& overrides, trainer_args& args,
                         std::vector<std::string>& rest) {
  const std::string prefix = "trainer.";
  for (const auto& item : overrides) {
    if (item.rfind(prefix, 0) != 0) {
      rest.push_back(item);
      continue;
    }
    const auto eq = item.find('=');
    const std::string name = item.substr(prefix.size(), eq == std::string::npos
                                                            ? std::string::npos
                                                            : eq - prefix.size());
    const std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    std::string problem;
    if (name == "bf16" || name == "fp16") {
      bool on = false;
      problem = detail::parse_bool_text(value, on);
      (name == "bf16" ? args.bf16 : args.fp16) = on;
    } else if (name == "per_device_train_batch_size" || name == "gradient_accumulation_steps") {
      std::uint64_t n = 0;
      problem = detail::parse_count_text(value, 1, 1ULL << 40, n);
      (name == "per_device_train_batch_size" ? args.per_device_train_batch_size
                                             : args.gradient_accumulation_steps) = n;
      args.batch_given = true;
    } else {
      problem = "unknown trainer argument (known: bf16, fp16, per_device_train_batch_size, "
                "gradient_accumulation_steps)";
    }
    if (!problem.empty()) return error_at("--set " + item, problem);
  }
  if (args.bf16 && args.fp16)
    return error_at("--set trainer.bf16 / trainer.fp16",
                    "both on; the HF Trainer takes at most one of them");
  return ok();
}

void fill_hidden_size_autos(job_spec& job, const std::vector<hidden_size_auto>& autos,
                            std::uint64_t hidden, const std::vector<std::string>& overrides,
                            warnings* notes) {
  for (const auto& a : autos) {
    const bool overridden = std::any_of(overrides.begin(), overrides.end(), [&](const auto& o) {
      return o.rfind(a.field + "=", 0) == 0;
    });
    if (overridden) continue;
    diagnostic note = a.where;
    if (hidden == 0) {
      note.message = fmt::format("\"{}\" is \"auto\" and the model has no hidden size: {} keeps "
                                 "vramscope's default", a.option, a.field);
    } else {
      const auto value = static_cast<std::uint64_t>(a.factor * static_cast<double>(hidden) *
                                                    static_cast<double>(hidden));
      (a.field == "parallel.reduce_bucket_size" ? job.parallel.reduce_bucket_size
                                                : job.parallel.prefetch_bucket_size) = value;
      note.message = fmt::format("\"{}\" is \"auto\": filled as the HF Trainer does from the "
                                 "model's hidden size {}: {} = {}",
                                 a.option, hidden, a.field, value);
    }
    if (notes != nullptr) notes->push_back(std::move(note));
  }
}

}  // namespace vramscope::job
