// DeepSpeed JSON config -> job spec. Option names and defaults from DeepSpeed's configuration
// documentation (deepspeed.ai/docs/config-json); what each one becomes is tabled in
// docs/importers.md.
#include <vramscope/import/importers.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

#include "import/hjson.hpp"
#include "import/import_common.hpp"
#include "job/source_text.hpp"

namespace vramscope::job {

namespace detail {

namespace {

// Scalars as text. Nested lists and objects inside lists are not DeepSpeed options vramscope
// reads; they are not dumped, since dumping is recursive and input nesting is unbounded.
std::string text_of(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "none";
  if (v.is_structured()) return v.is_array() ? "[...]" : "{...}";
  return v.dump();
}

// DeepSpeed configs nest three levels deep; a bound keeps the recursion safe on any input.
constexpr std::size_t max_depth = 32;

bool flatten(const nlohmann::json& object, std::vector<std::string>& path, import_context& ctx,
             const hjson_document& doc, std::string_view text, const std::string& source) {
  if (path.size() > max_depth) return false;
  for (const auto& [key, value] : object.items()) {
    path.push_back(key);
    if (value.is_object() && !value.empty()) {
      if (!flatten(value, path, ctx, doc, text, source)) return false;
    } else {
      entry e;
      e.key = join(path, ".");
      e.is_string = value.is_string();
      e.value.is_list = value.is_array();
      if (value.is_array())
        for (const auto& item : value) e.value.items.push_back(text_of(item));
      e.value.text = value.is_array() ? join(e.value.items, ",") : text_of(value);
      // Where the parser found the key (every key of an object outside arrays is recorded).
      const auto where = doc.keys.find(path);
      e.where = where == doc.keys.end()
                    ? diagnostic{source, 0, 0, "", ""}
                    : location(source, text, where->second.first, where->second.second);
      ctx.entries.push_back(std::move(e));
    }
    path.pop_back();
  }
  return true;
}

// bf16.enabled / fp16.enabled: an explicit value, or for "auto" what fills it at launch: the
// HF Trainer's --bf16 / --fp16 (trainer_config_process), or under accelerate its
// mixed_precision, which read_mixed_precision applies afterwards.
bool enabled(import_context& ctx, const std::string& key, bool trainer_value) {
  const entry* e = ctx.find(key);
  if (e == nullptr) return false;
  if (e->value.text != "auto") {
    ctx.precision_from_file = true;
    return e->value.text == "true";
  }
  const std::string flag = key.substr(0, 4);
  if (ctx.out.format == "accelerate")
    ctx.note(*e, fmt::format("\"{}\" is \"auto\": accelerate fills it from mixed_precision",
                             key));
  else
    ctx.note(*e, fmt::format("\"{}\" is \"auto\": the HF Trainer fills it from --{} (assumed "
                             "{}{}; --set trainer.{}={} says otherwise)", key, flag,
                             trainer_value ? "on" : "off",
                             trainer_value ? "" : ", TrainingArguments' default", flag,
                             trainer_value ? "false" : "true"));
  return trainer_value;
}

// Strategy from zero_optimization.stage; DeepSpeed's default stage is 0 (plain data parallel).
std::optional<diagnostic> read_stage(import_context& ctx) {
  const entry* e = ctx.find("zero_optimization.stage");
  // The first releases' boolean form, still read (runtime/zero/config.py, get_zero_config ->
  // read_zero_config_deprecated at 38327e07f: stage 1 if true else 0, with a deprecation warning).
  if (const entry* flag = ctx.find("zero_optimization"); e == nullptr && flag != nullptr) {
    const std::string v = lower_case(flag->value.text);
    if (v != "true" && v != "false")
      return at(flag->where, fmt::format("zero_optimization: invalid value \"{}\" (expected a "
                                         "section, or true / false in the old boolean form)",
                                         flag->value.text));
    ctx.note(*flag, fmt::format("\"zero_optimization\": {} is DeepSpeed's deprecated boolean "
                                "form, read as stage {}",
                                v, v == "true" ? 1 : 0));
    const std::string problem = ctx.set("parallel.strategy", v == "true" ? "zero1" : "ddp", *flag);
    return problem.empty() ? std::nullopt : std::optional(at(flag->where, problem));
  }
  if (e == nullptr) {
    ctx.note("no zero_optimization.stage: DeepSpeed's default stage 0 (plain data parallel), "
             "modelled as ddp");
    ctx.out.job.parallel.kind = strategy::ddp;
    return std::nullopt;
  }
  const std::string& stage = e->value.text;
  if (stage != "0" && stage != "1" && stage != "2" && stage != "3")
    return at(e->where, fmt::format("{}: invalid value \"{}\" (expected one of: 0, 1, 2, 3)",
                                    e->key, stage));
  if (stage == "0") ctx.note(*e, "stage 0 (plain data parallel) is modelled as ddp");
  const std::string problem = ctx.set("parallel.strategy", stage == "0" ? "ddp" : "zero" + stage, *e);
  return problem.empty() ? std::nullopt : std::optional(at(e->where, problem));
}

// torch_autocast (DeepSpeed >= 0.17.2, runtime/torch_autocast.py and the TorchAutocastConfig of
// runtime/config.py): with neither the bf16 nor the fp16 section on, the engine keeps the model
// and its optimizer in fp32 and runs the forward under torch.autocast(dtype): fp32 weights,
// matmuls in the 16-bit dtype, as the job spec's bf16-mixed / fp16-mixed. A dtype left out is
// noted and the forward planned in fp32.
std::optional<diagnostic> read_torch_autocast(import_context& ctx) {
  const entry* on = ctx.find("torch_autocast.enabled");
  if (on == nullptr || on->value.text != "true") return std::nullopt;
  const entry* type = ctx.find("torch_autocast.dtype");
  if (type == nullptr) {
    ctx.note(*on,
             "torch_autocast without a dtype: the forward's autocast dtype is not planned "
             "(fp32); set precision=bf16-mixed or fp16-mixed to give it");
    return std::nullopt;
  }
  const std::string t = lower_case(type->value.text);
  std::string mixed;
  if (t == "float16" || t == "fp16" || t == "half" || t == "torch.float16") mixed = "fp16-mixed";
  if (t == "bfloat16" || t == "bf16" || t == "torch.bfloat16") mixed = "bf16-mixed";
  if (mixed.empty())
    return at(type->where, fmt::format("torch_autocast.dtype: invalid value \"{}\" (expected one "
                                       "of: bfloat16, float16)",
                                       type->value.text));
  const std::string problem = ctx.set("precision", mixed, *type);
  return problem.empty() ? std::nullopt : std::optional(at(type->where, problem));
}

// bf16 / fp16: the model is held in 16 bits with an fp32 master copy in the optimizer, and
// gradients are reduced in the 16-bit dtype unless communication_data_type says otherwise.
// Without either section DeepSpeed trains in fp32.
std::optional<diagnostic> read_precision(import_context& ctx) {
  const bool bf16 = enabled(ctx, "bf16.enabled", ctx.trainer.bf16);
  const bool fp16 = enabled(ctx, "fp16.enabled", ctx.trainer.fp16);
  const entry* e = ctx.find(bf16 ? "bf16.enabled" : "fp16.enabled");
  if (bf16 && fp16) return at(e->where, "bf16.enabled and fp16.enabled are both on; DeepSpeed "
                                        "takes one");
  if (!bf16 && !fp16) {
    ctx.out.job.precision = {dtype::f32, dtype::f32, dtype::f32, dtype::f32, false};
    return read_torch_autocast(ctx);
  }
  const std::string half = bf16 ? "bf16" : "fp16";
  for (const auto& [path, value] : {std::pair{"precision.params", half}, {"precision.reduce", half},
                                    {"precision.buffers", half}, {"precision.master", std::string("fp32")},
                                    {"precision.autocast", std::string("false")}})
    if (auto problem = ctx.set(path, value, *e); !problem.empty()) return at(e->where, problem);
  return std::nullopt;
}

// A batch size written as null is one not given: DeepSpeedConfig reads the three with
// get_scalar_param, dict.get with the default None (runtime/config.py, get_train_batch_size and
// its siblings), and _set_batch_related_parameters derives what is None from the others.
void drop_null_batch_sizes(import_context& ctx) {
  std::erase_if(ctx.entries, [&](const entry& e) {
    const bool batch = e.key == "train_batch_size" || e.key == "train_micro_batch_size_per_gpu" ||
                       e.key == "gradient_accumulation_steps";
    if (!batch || e.is_string || e.value.is_list || e.value.text != "none") return false;
    ctx.note(e, fmt::format("{}: null is DeepSpeed's \"not given\" (get_scalar_param reads it as "
                            "None): derived from the other batch sizes",
                            e.key));
    ctx.ignore(e);
    return true;
  });
}

// A JSON boolean in one of the ZeRO config's number fields: DeepSpeedZeroConfig is a pydantic
// model validated in lax mode, where a bool is a valid int (True is 1, False is 0), so
// `"reduce_bucket_size": true` runs with a bucket of one element (runtime/zero/config.py; pydantic
// v1's int validator did the same). Read as DeepSpeed reads it, noted.
void read_booleans_as_counts(import_context& ctx) {
  static constexpr std::string_view counts[] = {
      "reduce_bucket_size",          "allgather_bucket_size",
      "prefetch_bucket_size",        "param_persistence_threshold",
      "model_persistence_threshold", "max_live_parameters",
      "max_reuse_distance",          "sub_group_size",
      "zero_hpz_partition_size",     "mics_shard_size"};
  for (auto& e : ctx.entries) {
    if (e.is_string || e.value.is_list || (e.value.text != "true" && e.value.text != "false"))
      continue;
    if (!e.key.starts_with("zero_optimization.")) continue;
    std::string_view name =
        std::string_view(e.key).substr(std::string_view("zero_optimization.").size());
    if (name.starts_with("stage3_")) name.remove_prefix(std::string_view("stage3_").size());
    if (std::find(std::begin(counts), std::end(counts), name) == std::end(counts)) continue;
    const std::string as = e.value.text == "true" ? "1" : "0";
    ctx.note(e, fmt::format("{}: {} in a number field, which DeepSpeed's config model reads as {} "
                            "(pydantic takes a boolean as an integer); planned as {}",
                            e.key, e.value.text, as, as));
    e.value.text = as;
  }
}

// "bfloat16" is DeepSpeed's older name of the bf16 section, still read where the file has no
// "bf16" (constants.py BFLOAT16_OLD, "keeping for backwards compatibility"; get_bfloat16_enabled
// in runtime/config.py, get_bfloat16_config in precision_config.py since): each of its keys is
// read as bf16's. Beside a "bf16" section DeepSpeed never looks at it.
void read_old_bf16_name(import_context& ctx) {
  const bool has_bf16 = std::any_of(ctx.entries.begin(), ctx.entries.end(),
                                    [](const entry& e) { return option_matches("bf16.*", e.key); });
  for (auto& e : ctx.entries) {
    if (!option_matches("bfloat16.*", e.key)) continue;
    if (has_bf16) {
      ctx.note(e, fmt::format("{}: the older name of the bf16 section, which DeepSpeed does not "
                              "read beside bf16; ignored",
                              e.key));
      ctx.ignore(e);
      continue;
    }
    const std::string now = "bf16" + e.key.substr(std::string_view("bfloat16").size());
    ctx.note(e, fmt::format("{} is DeepSpeed's older name of {}: read as such", e.key, now));
    e.key = now;
  }
}

// ZeRO-3 swaps to NVMe in a folder under offload_param.nvme_path / offload_optimizer.nvme_path,
// whose default is None (runtime/zero/offload_config.py) and which no validator requires: the
// folder is os.path.join(nvme_path, 'zero_stage_3', ...) (swap_tensor/partitioned_param_swapper.py
// _configure_aio, zero/stage3.py _configure_tensor_swapping), a TypeError on None before the
// first step.
std::optional<diagnostic> nvme_without_path(import_context& ctx) {
  if (ctx.out.job.parallel.kind != strategy::zero3) return std::nullopt;
  for (const char* part : {"offload_param", "offload_optimizer"}) {
    const std::string section = std::string("zero_optimization.") + part;
    const entry* device = ctx.find(section + ".device");
    if (device == nullptr || lower_case(device->value.text) != "nvme") continue;
    const entry* path = ctx.find(section + ".nvme_path");
    if (path != nullptr && !path->value.text.empty() && path->value.text != "null") continue;
    return at(device->where,
              fmt::format("{}.device nvme without {}.nvme_path: ZeRO-3 builds its swap folder "
                          "from the path (os.path.join(None, ...) raises a TypeError) before "
                          "the first step; add nvme_path (a folder on a local NVMe drive), or "
                          "set device to cpu, to plan it",
                          section, section));
  }
  return std::nullopt;
}

// tensor_parallel.autotp_size N > 1: DeepSpeed's AutoTP training splits the model's linear layers
// over N ranks (engine.py, _configure_tensor_parallel) and ZeRO runs over the remaining
// data-parallel ranks; 0 (the default) and 1 are off.
std::optional<diagnostic> read_autotp(import_context& ctx) {
  const entry* e = ctx.find("tensor_parallel.autotp_size");
  if (e == nullptr) return std::nullopt;
  std::uint64_t n = 0;
  if (auto problem = parse_count_text(e->value.text, 0, 4096, n); !problem.empty())
    return at(e->where, fmt::format("{}: {}", e->key, problem));
  if (n <= 1) {
    ctx.ignore(*e);
    return std::nullopt;
  }
  // engine.py, _configure_tensor_parallel_states: assert zero_optimization_stage() <= 2 (AutoTP
  // with ZeRO-3 "has not been validated"): such a file stops at initialize.
  if (ctx.out.job.parallel.kind == strategy::zero3) {
    const entry* stage = ctx.find("zero_optimization.stage");
    return at(
        e->where,
        fmt::format("{} {} with ZeRO stage 3{}: DeepSpeed's AutoTP training runs with ZeRO "
                    "stages 0 to 2 only (the engine asserts it at initialize); set "
                    "zero_optimization.stage 1 or 2, or drop {}, to plan it",
                    e->key, n,
                    stage != nullptr ? fmt::format(" (line {})", stage->where.line) : std::string(),
                    e->key));
  }
  const std::string problem = ctx.set("parallel.tp", std::to_string(n), *e);
  return problem.empty() ? std::nullopt : std::optional(at(e->where, problem));
}

// The tensor-parallel degree AutoTP gives (1 without it): DeepSpeed's batch sizes count
// data-parallel ranks, the world over it (runtime/config.py, world_size from the mpu's data
// parallel group).
std::uint64_t tp_degree(const import_context& ctx) {
  return static_cast<std::uint64_t>(std::max(1, static_cast<int>(ctx.out.job.parallel.tp)));
}

// Without train_micro_batch_size_per_gpu DeepSpeed derives it from train_batch_size, gradient
// accumulation and the world size (deepspeed/runtime/config.py, _set_batch_related_parameters);
// the file does not give the world size, so the assumed one is used, and said.
std::string derive_micro_batch(import_context& ctx, const entry& total, const entry* accumulation,
                               bool launch_gives_world) {
  std::uint64_t t = 0, a = 1;
  if (!parse_count_text(total.value.text, 1, 1ULL << 40, t).empty() ||
      (accumulation != nullptr && !parse_count_text(accumulation->value.text, 1, 1ULL << 40, a).empty()))
    return "";  // "auto": the other rows note it
  // DeepSpeed's derived micro batch is train_batch_size // (accumulation x world): below one
  // on any GPU count when the total is smaller than the accumulation, and _batch_assertion stops
  // ("Micro batch size per gpu: 0 has to be greater than 0").
  if (t < a)
    return fmt::format(
        "train_batch_size {} is smaller than gradient_accumulation_steps {}: "
        "DeepSpeed derives a micro batch of {} // ({} x GPUs) = 0 on any GPU count "
        "and stops; make train_batch_size micro batch x accumulation x GPUs (or "
        "give train_micro_batch_size_per_gpu) to plan it",
        t, a, t, a);
  const auto world = static_cast<std::uint64_t>(ctx.out.job.hardware.gpus_per_node) *
                     static_cast<std::uint64_t>(ctx.out.job.hardware.nodes) / tp_degree(ctx);
  const char* whose = launch_gives_world ? "the launch's" : "the assumed";
  if (world == 0 || t % (a * world) != 0) {
    if (launch_gives_world)
      return fmt::format("train_batch_size {} is not a multiple of gradient_accumulation_steps {} "
                         "x the launch's {} GPUs (DeepSpeed's batch assertion fails)",
                         t, a, world);
    ctx.note(total, fmt::format("train_batch_size {} is not a multiple of gradient_accumulation_steps {} x "
                                "{} {} GPUs: micro batch left at its default",
                                t, a, whose, world));
    return "";
  }
  ctx.note(total, fmt::format("no train_micro_batch_size_per_gpu: {} / (gradient_accumulation_steps {} x {} "
                              "GPUs {}) = {}, as DeepSpeed derives it",
                              t, a, world, launch_gives_world ? "of the launch" : "assumed",
                              t / (a * world)));
  return ctx.set("training.micro_batch", std::to_string(t / (a * world)), total);
}

// With one of micro batch and accumulation left out, DeepSpeed derives it as train_batch_size //
// world // the other one given (1 when neither is: the accumulation is then set to 1), and
// _batch_assertion (runtime/config.py, _set_batch_related_parameters) requires the derived value
// above 0 and train_batch_size = micro x accumulation x world. When train_batch_size equals the
// factor given (or is 1 with none), any world above 1 derives 0: the file runs on one data-
// parallel rank only. Returns nullopt when the batch sizes allow more, else "" or the problem.
std::optional<std::string> only_world_one(import_context& ctx, const entry& total,
                                          const entry* factor) {
  std::uint64_t t = 0, f = 1;
  if (!parse_count_text(total.value.text, 1, 1ULL << 40, t).empty() ||
      (factor != nullptr && !parse_count_text(factor->value.text, 1, 1ULL << 40, f).empty()) ||
      t != f)
    return std::nullopt;
  ctx.note(total,
           fmt::format("train_batch_size {}{}: DeepSpeed derives the missing batch "
                       "factor as {} // GPUs{}, which is 0 on more than one data-parallel "
                       "rank, so the file runs on one",
                       t, factor == nullptr ? " alone" : fmt::format(" = {} {}", factor->key, f), t,
                       factor == nullptr ? "" : fmt::format(" // {}", f)));
  return set_world(ctx, static_cast<long long>(tp_degree(ctx)), total);
}

// train_batch_size = micro batch x gradient accumulation x data-parallel ranks.
std::string read_world(import_context& ctx, bool& has_world_size) {
  const entry* total = ctx.find("train_batch_size");
  const entry* micro = ctx.find("train_micro_batch_size_per_gpu");
  const entry* accumulation = ctx.find("gradient_accumulation_steps");
  // has_world_size on entry: the launch gave the GPU count (accelerate's num_processes), which
  // DeepSpeed's world size is; the file's batch sizes are then checked against it.
  const bool launch_gives_world = has_world_size;
  if (!launch_gives_world && total != nullptr && (micro == nullptr || accumulation == nullptr))
    if (auto only = only_world_one(ctx, *total, micro != nullptr ? micro : accumulation); only) {
      if (!only->empty()) return *only;
      has_world_size = true;
      std::string problem;
      if (micro == nullptr) problem = ctx.set("training.micro_batch", "1", *total);
      if (problem.empty() && accumulation == nullptr)
        problem = ctx.set("training.gradient_accumulation", "1", *total);
      return problem;
    }
  if (total != nullptr && micro == nullptr)
    return derive_micro_batch(ctx, *total, accumulation, launch_gives_world);
  if (total == nullptr || micro == nullptr) return "";
  std::uint64_t t = 0, m = 0, a = 1;
  if (!parse_count_text(total->value.text, 1, 1ULL << 40, t).empty() ||
      !parse_count_text(micro->value.text, 1, 1ULL << 40, m).empty() ||
      (accumulation != nullptr &&
       !parse_count_text(accumulation->value.text, 1, 1ULL << 40, a).empty()))
    return "";  // "auto" somewhere: the other rows note it
  if (t % (m * a) != 0)
    return fmt::format("train_batch_size {} is not a multiple of train_micro_batch_size_per_gpu "
                       "{} x gradient_accumulation_steps {}, which DeepSpeed refuses too; make it "
                       "micro batch x accumulation x data-parallel size to plan it",
                       t, m, a);
  const auto world = static_cast<std::uint64_t>(ctx.out.job.hardware.gpus_per_node) *
                     static_cast<std::uint64_t>(ctx.out.job.hardware.nodes) / tp_degree(ctx);
  if (launch_gives_world && accumulation == nullptr && world > 0 && t % (m * world) == 0) {
    // DeepSpeed derives the accumulation from the world size (_set_batch_related_parameters).
    ctx.note(*total, fmt::format("no gradient_accumulation_steps: train_batch_size {} / (micro "
                                 "batch {} x the launch's {} GPUs) = {}, as DeepSpeed derives it",
                                 t, m, world, t / (m * world)));
    return ctx.set("training.gradient_accumulation", std::to_string(t / (m * world)), *total);
  }
  if (launch_gives_world && (accumulation == nullptr || t != m * a * world))
    return fmt::format("train_batch_size {} is not train_micro_batch_size_per_gpu {} x "
                       "gradient_accumulation_steps {} x the launch's {} GPUs (DeepSpeed's batch "
                       "assertion fails); make the three agree",
                       t, m, accumulation == nullptr ? "(derived)" : accumulation->value.text,
                       world);
  if (launch_gives_world) return "";
  if (accumulation == nullptr) {
    // DeepSpeed infers the missing one of the three from the launcher's world size
    // (runtime/config.py, _set_batch_related_parameters): here the accumulation, so the file
    // does not fix the GPU count.
    ctx.note(*total, fmt::format("train_batch_size {} without gradient_accumulation_steps: "
                                 "DeepSpeed divides it by the micro batch and the GPU count, "
                                 "which the file does not give; planned with accumulation 1",
                                 total->value.text));
    return "";
  }
  has_world_size = true;
  return set_world(ctx, static_cast<long long>(t / (m * a) * tp_degree(ctx)), *total);
}

bool nonzero(const entry* e) {
  return e != nullptr && e->value.text != "0" && e->value.text != "0.0" &&
         e->value.text != "false";
}

// optimizer.params: when DeepSpeed builds the optimizer from this section (no client optimizer
// passed to deepspeed.initialize: the Hugging Face Trainer's and accelerate's way with such a
// section; Megatron-DeepSpeed passes its own, and the section is not read), it hands them to the
// constructor as keyword arguments (engine.py, _configure_basic_optimizer), after refusing
// max_grad_norm ("'max_grad_norm' is not supported as an optimizer parameter", since 0.3.0). For
// Adam and AdamW it takes torch_adam and adam_w_mode out first, then builds FusedAdam,
// DeepSpeedCPUAdam (ZeRO's CPU offload) or torch's Adam/AdamW: a name none of them takes (a
// misspelt "weight-decay") is a TypeError there. Which program passes the file is not in it, so
// such a name is noted, not refused. The values do not change GPU memory.
action optimizer_param() {
  return {action_kind::no_effect, [](import_context& ctx, const entry& e) {
            ctx.ignore(e);
            const std::string name = e.key.substr(std::string("optimizer.params.").size());
            const entry* type = ctx.find("optimizer.type");
            const std::string kind = type != nullptr ? lower_case(type->value.text) : "";
            static const std::set<std::string> adam_keywords = {
                // FusedAdam, DeepSpeedCPUAdam and torch.optim.Adam/AdamW, and the two DeepSpeed
                // takes out first.
                "lr",           "bias_correction", "betas",         "eps",
                "weight_decay", "amsgrad",         "set_grad_none", "fp32_optimizer_states",
                "maximize",     "foreach",         "capturable",    "differentiable",
                "fused",        "torch_adam",      "adam_w_mode"};
            if (name == "max_grad_norm")
              ctx.note(e,
                       "optimizer.params.max_grad_norm: DeepSpeed stops on it when it builds "
                       "the optimizer from this section (\"'max_grad_norm' is not supported as "
                       "an optimizer parameter\", engine.py); a program that passes its own "
                       "optimizer (Megatron-DeepSpeed) never reads it. gradient_clipping is "
                       "DeepSpeed's name");
            else if ((kind == "adam" || kind == "adamw") && name.find('.') == std::string::npos &&
                     !adam_keywords.contains(name))
              ctx.note(e, fmt::format("optimizer.params.{}: none of the {} constructors DeepSpeed "
                                      "builds from this section (FusedAdam, DeepSpeedCPUAdam, "
                                      "torch's) takes {}, so it stops with a TypeError when it "
                                      "builds the optimizer itself; a program that passes its "
                                      "own never reads it",
                                      name, type->value.text, name));
            return std::string();
          }};
}

// optimizer.type: one of DeepSpeed's own optimizers, in any case (runtime/config.py,
// DEEPSPEED_OPTIMIZERS, lower-cased), else a torch.optim class looked up as written
// (engine.py, _configure_basic_optimizer: getattr(torch.optim, name)); deepspeedai/DeepSpeed
// edaa7221 (2026-08), the list of microsoft/DeepSpeed 38327e07 (2025-02) less muon. The plan
// keeps what memory depends on: the number of parameter-sized states each one holds.
std::string read_optimizer(import_context& ctx, const entry& e) {
  const std::string type = lower_case(e.value.text);
  const auto modelled_as = [&](const std::string& name, const std::string& why) {
    ctx.note(e, fmt::format("optimizer type \"{}\": {}; planned as {}", e.value.text, why, name));
    return ctx.set("optimizer.name", name, e);
  };
  if (type == "adam" || type == "adamw") {
    // "Optimizer name of Adam forces AdamW logic unless adam_w_mode is explicitly set": FusedAdam,
    // DeepSpeedCPUAdam or (torch_adam) torch's AdamW, with adam_w_mode default true since
    // DeepSpeed 0.3.13 (microsoft/DeepSpeed dd03cff2, 2021-03).
    const entry* mode = ctx.find("optimizer.params.adam_w_mode");
    const bool adam = type == "adam" && mode != nullptr && mode->value.text == "false";
    if (type == "adam" && !adam)
      ctx.note(e, "optimizer type Adam: DeepSpeed builds it in AdamW mode (adam_w_mode, default "
                  "true) unless params.adam_w_mode is false; planned as adamw");
    return ctx.set("optimizer.name", adam ? "adam" : "adamw", e);
  }
  if (type == "muadam" || type == "muadamw")  // mup's MuAdam / MuAdamW: torch Adam / AdamW
    return ctx.set("optimizer.name", type.substr(2), e);
  const bool torch_sgd = e.value.text == "SGD";
  if (type == "musgd" || torch_sgd)
    return ctx.set("optimizer.name",
                   nonzero(ctx.find("optimizer.params.momentum")) ? "sgd_momentum" : "sgd", e);
  if (type == "onebitadam" || type == "zerooneadam" || type == "onebitlamb") {
    // engine.py: assert not self.zero_optimization(), "1bit-Adam is not compatible with ZeRO"
    // (and 0/1 Adam, 1-bit Lamb).
    const auto kind = ctx.out.job.parallel.kind;
    if (job::is_zero(kind))
      return fmt::format("optimizer type \"{}\" is not compatible with ZeRO (DeepSpeed asserts "
                         "it at initialize); set zero_optimization.stage 0, or use type Adam, to "
                         "plan it", e.value.text);
    return modelled_as("adamw", "two moments per parameter; the compressed communication's "
                                "error-feedback buffers are not modelled");
  }
  if (type == "lamb")  // FusedLamb: exp_avg and exp_avg_sq
    return modelled_as("adamw", "FusedLamb keeps two moments per parameter, as AdamW");
  if (type == "lion")  // FusedLion / DeepSpeedCPULion: exp_avg
    return modelled_as("sgd_momentum", "Lion keeps one moment per parameter");
  if (type == "adagrad")  // torch.optim.Adagrad / DeepSpeedCPUAdagrad: state sum
    return modelled_as("sgd_momentum", "Adagrad keeps one sum of squares per parameter");
  if (type == "muon")
    return modelled_as("adamw", "MuonWithAuxAdam keeps one momentum per hidden matrix and two "
                                "Adam moments for the other parameters; planning two for every "
                                "parameter bounds it from above");
  const std::string& name = e.value.text;
  if (name == "Adafactor")  // torch.optim.Adafactor (torch >= 2.5): factored second moment
    return ctx.set("optimizer.name", "adafactor", e);
  if (name == "Adadelta" || name == "Adamax" || name == "NAdam" || name == "RAdam" ||
      name == "Rprop")
    return modelled_as("adamw", "torch's implementation keeps two states per parameter");
  if (name == "ASGD")
    return modelled_as("sgd_momentum", "torch's ASGD keeps one average per parameter");
  if (name == "RMSprop") {
    const bool momentum = nonzero(ctx.find("optimizer.params.momentum"));
    const bool centered = nonzero(ctx.find("optimizer.params.centered"));
    if (!momentum && !centered)
      return modelled_as("sgd_momentum", "RMSprop keeps one square average per parameter");
    return modelled_as("adamw", momentum && centered
                                    ? "RMSprop with momentum and centered keeps three states "
                                      "per parameter, the plan two (low by one)"
                                    : "RMSprop with momentum or centered keeps two states per "
                                      "parameter");
  }
  return modelled_as("adamw", "neither one of DeepSpeed's optimizers (Adam, AdamW, Lamb, Lion, "
                              "Adagrad, OneBitAdam, ZeroOneAdam, OneBitLamb, Muon, MuAdam, "
                              "MuAdamW, MuSGD; any case) nor a torch.optim class as spelled "
                              "(SGD, RMSprop, ...), so DeepSpeed fails to build it unless the "
                              "script passes its own optimizer; two states per parameter");
}

// ZeRO-3's element counts written 0 (axolotl's and DeepSpeed's own ZeRO-3 templates):
// max_live_parameters 0 keeps no gathered parameter beyond the ones in use; prefetch_bucket_size
// 0 prefetches nothing ahead (PartitionedParameterCoordinator fetches while the bucket has
// room); sub_group_size 0 closes a sub-group after every parameter (stage3.py,
// _create_fp16_sub_groups: `local_sub_group_size >= sub_group_size`). The job spec holds the 0 as
// written; the note says what it means.
action zero_noted(std::string path, std::string meaning) {
  return custom([path, meaning](import_context& ctx, const entry& e) -> std::string {
    if (e.value.text == "0") ctx.note(e, fmt::format("{} 0: {}", e.key, meaning));
    return ctx.set(path, e.value.text, e);
  });
}

// zero_optimization.offload_optimizer / offload_param written as null or {}: DeepSpeedZeroConfig
// types both Optional[...] = None (runtime/zero/config.py), so null is the default, and an empty
// object validates to an offload config whose device defaults to "none": no offload either way.
// Any other scalar fails pydantic's validation at initialize.
std::string read_offload_section(import_context& ctx, const entry& e) {
  if (!e.is_string && (e.value.text == "none" || e.value.text == "{...}")) {
    ctx.ignore(e);
    return "";
  }
  return fmt::format(
      "{}: found {} where DeepSpeed's config model takes an object or null; write "
      "null for no offload, or {{\"device\": \"cpu\"}}, to plan it",
      e.key, e.value.text);
}

// bf16's optimizer options (runtime/precision_config.py): bf16_master_weights_and_grads keeps
// no fp32 master copy, the weights the optimizer steps and their gradients are bf16;
// bf16_optimizer_states keeps Adam's moments in bf16 too (DeepSpeed accepts it only beside the
// first, runtime/config.py). Only a true value changes the plan.
std::string read_bf16_flag(import_context& ctx, const entry& e, const char* path) {
  bool on = false;
  if (auto problem = parse_bool_text(e.value.text, on); !problem.empty())
    return fmt::format("{}: {}", e.key, problem);
  return on ? ctx.set(path, "bf16", e) : "";
}

}  // namespace

namespace {

const std::vector<option>& deepspeed_table() {
  const std::string zero = "zero_optimization.";
  const action prefetch = zero_noted("parallel.prefetch_bucket_size",
                                     "nothing is prefetched ahead of the module in use");
  const action max_live = zero_noted("parallel.max_live_parameters",
                                     "no gathered parameters kept beyond the module in use");
  static const std::vector<option> table{
      {zero + "stage", handled()},
      {"zero_optimization", handled()},  // the old boolean form (read_stage)
      {zero + "offload_optimizer.device",
       zero_stages_1_to_3(maps_offload_device("parallel.offload_optimizer"))},
      {zero + "offload_param.device", stage3_only(maps_offload_device("parallel.offload_param"))},
      {zero + "offload_optimizer", custom(read_offload_section)},
      {zero + "offload_param", custom(read_offload_section)},
      {zero + "offload_optimizer.ratio", not_modelled("partial optimizer offload")},
      {zero + "offload_optimizer.*", no_effect()},
      {zero + "offload_param.*", no_effect()},
      {zero + "cpu_offload", zero_stages_1_to_3(maps_to("parallel.offload_optimizer"))},
      {zero + "reduce_bucket_size", zero_stages_1_to_3(maps_to("parallel.reduce_bucket_size"))},
      {zero + "allgather_bucket_size", zero12_only(maps_to("parallel.allgather_bucket_size"))},
      // DeepSpeedZeroConfig (deepspeed/runtime/zero/config.py) takes each ZeRO-3 option under
      // its own name and under the stage3_-prefixed alias; both spellings are rows here.
      {zero + "stage3_prefetch_bucket_size", zero3_engine_only(prefetch)},
      {zero + "prefetch_bucket_size", zero3_engine_only(prefetch)},
      {zero + "stage3_max_live_parameters", zero3_engine_only(max_live)},
      {zero + "max_live_parameters", zero3_engine_only(max_live)},
      {zero + "contiguous_gradients", zero_stages_1_to_3(maps_to("parallel.contiguous_gradients"))},
      {zero + "stage3_gather_16bit_weights_on_model_save", maps_gathered_save()},
      {zero + "gather_16bit_weights_on_model_save", maps_gathered_save()},
      // The deprecated name of the same switch (config.py: stage3_gather_fp16_weights_...).
      {zero + "stage3_gather_fp16_weights_on_model_save", maps_gathered_save()},
      {zero + "overlap_comm", not_modelled("overlapped reduction keeps extra gradient buckets")},
      {zero + "stage3_max_reuse_distance", not_modelled("gathered parameters kept for reuse")},
      {zero + "max_reuse_distance", not_modelled("gathered parameters kept for reuse")},
      {zero + "stage3_param_persistence_threshold",
       not_modelled("small parameters stay unsharded")},
      {zero + "param_persistence_threshold", not_modelled("small parameters stay unsharded")},
      {zero + "stage3_model_persistence_threshold", not_modelled("small models stay unsharded")},
      {zero + "model_persistence_threshold", not_modelled("small models stay unsharded")},
      {zero + "stage3_module_granularity_threshold", not_modelled("small modules fetched as one")},
      {zero + "module_granularity_threshold", not_modelled("small modules fetched as one")},
      {zero + "stage3_use_all_reduce_for_fetch_params", no_effect()},
      {zero + "use_all_reduce_for_fetch_params", no_effect()},
      {zero + "cpu_offload_param", stage3_only(maps_to("parallel.offload_param"))},
      // ZeRO-3's first releases (deepspeed/runtime/zero/constants.py from 599258f97, 2021-03,
      // until 0c1802cc8, 2021-06): the same switch, named with an s.
      {zero + "cpu_offload_params", stage3_only(maps_to("parallel.offload_param"))},
      {zero + "cpu_offload_use_pin_memory", no_effect()},
      {zero + "zero_quantized_nontrainable_weights", not_modelled("ZeRO++ quantized weights")},
      {zero + "zeropp_loco_param.*", not_modelled("ZeRO++ LoCo error feedback")},
      {zero + "pipeline_loading_checkpoint", no_effect()},
      {zero + "override_module_apply", no_effect()},
      {zero + "log_trace_cache_warnings", no_effect()},
      {zero + "sub_group_size",
       zero_noted("parallel.sub_group_size", "every parameter is a sub-group of its own")},
      {zero + "reduce_scatter", not_modelled("choice of gradient reduction collective")},
      {zero + "allgather_partitions", not_modelled("choice of parameter gather collective")},
      {zero + "zero_hpz_partition_size", not_modelled("ZeRO++ secondary partition")},
      {zero + "zero_quantized_weights", not_modelled("ZeRO++ quantized weights")},
      {zero + "zero_quantized_gradients", not_modelled("ZeRO++ quantized gradients")},
      {zero + "mics_shard_size", not_modelled("MiCS sharding groups")},
      {zero + "mics_hierarchical_params_gather", not_modelled("MiCS sharding groups")},
      {zero + "memory_efficient_linear", not_modelled("ZeRO-3 linear layer implementation")},
      {zero + "round_robin_gradients", no_effect()},
      {zero + "elastic_checkpoint", no_effect()},
      {zero + "load_from_fp32_weights", no_effect()},
      {zero + "ignore_unused_parameters", no_effect()},
      {zero + "legacy_stage1", no_effect()},
      {zero + "use_multi_rank_bucket_allreduce", no_effect()},
      // deepspeedai/DeepSpeed edaa7221 (2026-08): runtime/zero/config.py's newer fields.
      {zero + "allgather_sequential",
       not_modelled("parameters gathered one by one without the flat bucket; planned bucketed")},
      {zero + "stage3_allgather_sequential",
       not_modelled("parameters gathered one by one without the flat bucket; planned bucketed")},
      {zero + "enable_sanity_checks", no_effect()},
      {zero + "save_muon_momentum_buffer_in_memory", no_effect()},  // NVMe offload only
      {zero + "leaf_module.*", not_modelled("modules ZeRO-3 fetches whole as leaves")},
      {zero + "zenflow.*", not_modelled("ZenFlow's offloaded, delayed optimizer updates")},
      {"bf16.enabled", handled()},
      {"fp16.enabled", handled()},
      {"bf16.bf16_master_weights_and_grads", custom([](import_context& ctx, const entry& e) {
         return read_bf16_flag(ctx, e, "precision.master");
       })},
      {"bf16.bf16_optimizer_states", custom([](import_context& ctx, const entry& e) {
         return read_bf16_flag(ctx, e, "optimizer.state");
       })},
      {"bf16.*", no_effect()},
      {"bfloat16.*", handled()},  // read_old_bf16_name: renamed to bf16's, or ignored beside it
      {"fp16.auto_cast", not_modelled("fp16 autocast of inputs")},
      {"fp16.*", no_effect()},
      {"communication_data_type", maps_to("precision.reduce")},
      {"data_types.grad_accum_dtype", not_modelled("gradient accumulation buffer dtype")},
      {"train_batch_size", handled()},
      {"train_micro_batch_size_per_gpu", maps_to("training.micro_batch")},
      {"gradient_accumulation_steps", maps_to("training.gradient_accumulation")},
      {"optimizer.type", custom(read_optimizer)},
      {"optimizer.params.*", optimizer_param()},
      {"zero_allow_untested_optimizer", no_effect()},
      {"zero_force_ds_cpu_optimizer", no_effect()},
      {"activation_checkpointing.*",
       not_modelled("applies to models that call deepspeed.checkpointing; set "
                    "training.activation_checkpointing")},
      {"amp.*", not_modelled("apex AMP")},
      {"compression_training.*", not_modelled("compression training")},
      {"data_efficiency.*", not_modelled("data efficiency pipeline")},
      {"scheduler.*", no_effect()},
      {"gradient_clipping", no_effect()},
      {"prescale_gradients", no_effect()},
      {"gradient_predivide_factor", no_effect()},
      {"steps_per_print", no_effect()},
      {"wall_clock_breakdown", no_effect()},
      {"dump_state", no_effect()},
      {"flops_profiler.*", no_effect()},
      // Monitors (deepspeed/monitor/config.py): at the top level or under monitor_config.
      {"tensorboard.*", no_effect()},
      {"wandb.*", no_effect()},
      {"csv_monitor.*", no_effect()},
      {"comet.*", no_effect()},
      {"monitor_config.*", no_effect()},
      {"memory_breakdown", no_effect()},
      {"timers.*", no_effect()},
      {"nebula.*", no_effect()},
      {"eigenvalue.*", no_effect()},  // the eigenvalue estimate of quantization's schedule
      {"quantize_training.*", not_modelled("MoQ quantization of the weights during training")},
      {"progressive_layer_drop.*", not_modelled("layers skipped during training")},
      {"curriculum_learning.*", not_modelled("sequence lengths that grow during training")},
      {"sparse_attention.*", not_modelled("block-sparse attention")},
      {"pipeline.*", no_effect()},
      {"compile.*", not_modelled("DeepSpeed's torch.compile of the engine")},
      {"hybrid_engine.*", not_modelled("the RLHF hybrid engine")},
      {"weight_quantization.*", not_modelled("weight quantization")},
      // AutoTP training (deepspeed/runtime/tensor_parallel/config.py, TPTrainingConfig, since
      // f04649d2, 2025-02): autotp_size is the tensor-parallel degree (engine.py, autotp_size()
      // and _configure_tensor_parallel; read by read_autotp); the rest say which layers split
      // and how, or are inference AutoTP's (the nested tp / tensor_parallel config, whose tp_size
      // the training engine replaces with autotp_size).
      {"tensor_parallel.autotp_size", handled()},
      {"tensor_parallel.dtype", no_effect()},  // the engine's dtype is bf16 / fp16 / fp32's
      {"tensor_parallel.tp_overlap_comm", no_effect()},
      {"tensor_parallel.tp.*", no_effect()},
      {"tensor_parallel.tensor_parallel.*", no_effect()},
      {"tensor_parallel.injection_policy_tuple", no_effect()},
      {"tensor_parallel.partition_config.*", no_effect()},
      {"tensor_parallel.preset_model", no_effect()},
      {"tensor_parallel.keep_module_on_host", no_effect()},
      {"tensor_parallel.replace_with_kernel_inject", no_effect()},
      {"tensor_parallel.kernel_inject", no_effect()},
      {"sequence_parallel_size", not_modelled("Ulysses sequence parallelism")},
      {"seq_parallel_communication_data_type", no_effect()},
      {"graph_harvesting", no_effect()},
      {"dataloader_drop_last", no_effect()},
      {"sparse_gradients", no_effect()},
      {"disable_allgather", no_effect()},
      {"fp16_master_weights_and_grads", not_modelled("fp16 master weights")},
      {"load_universal", no_effect()},
      {"use_node_local_storage", no_effect()},
      {"use_data_before_expert_parallelism", no_effect()},
      {"vocabulary_size", no_effect()},
      {"comms_logger.*", no_effect()},
      {"checkpoint.*", no_effect()},
      {"aio.*", no_effect()},
      {"elasticity.*", no_effect()},
      {"autotuning.*", no_effect()},
      {"managed_gradient_accumulation", no_effect()},  // who calls the step, not what it keeps
      {"gradient_allreduce_op", no_effect()},
      {"log_level", no_effect()},
      {"torch_autocast.enabled", handled()},  // read_torch_autocast
      {"torch_autocast.dtype", handled()},
      {"torch_autocast.*", not_modelled("torch.autocast of the engine's forward")},
      {"expert_parallel.*", not_modelled("DeepSpeed AutoEP expert parallelism")},
  };
  return table;
}

// Hugging Face TrainingArguments fields (transformers training_args.py) that a training-arguments
// JSON (HfArgumentParser.parse_json_file) carries and a DeepSpeed config never does.
bool is_training_argument(const std::string& key) {
  static const char* const names[] = {
      "output_dir", "overwrite_output_dir", "do_train", "do_eval", "do_predict",
      "per_device_train_batch_size", "per_device_eval_batch_size", "learning_rate",
      "num_train_epochs", "max_steps", "warmup_steps", "warmup_ratio", "lr_scheduler_type",
      "logging_steps", "save_steps", "eval_steps", "evaluation_strategy", "eval_strategy",
      "save_strategy", "save_total_limit", "logging_dir", "report_to", "run_name",
      "gradient_checkpointing", "optim", "adafactor", "max_grad_norm", "deepspeed",
      "predict_with_generate", "load_best_model_at_end", "per_gpu_train_batch_size"};
  return std::any_of(std::begin(names), std::end(names),
                     [&](const char* name) { return key == name; });
}

// The keys of a program's own config under which it carries the DeepSpeed settings
// (nested_deepspeed_block).
constexpr std::string_view nested_block_names[] = {"deepspeed", "deepspeed_config", "ds_config"};

// The file's entries in the order it writes them (ctx.entries is ordered by key).
std::vector<const entry*> entries_by_line(const import_context& ctx) {
  std::vector<const entry*> by_line;
  for (const auto& e : ctx.entries) by_line.push_back(&e);
  std::stable_sort(by_line.begin(), by_line.end(),
                   [](const entry* a, const entry* b) { return a->where.line < b->where.line; });
  return by_line;
}

// Where the top-level key holding `e` is written: `e`'s own place for a key of the top level, else
// the line before it that opens its section ("zero_optimization": { or zero_optimization:).
diagnostic section_start(const import_context& ctx, std::string_view text, const entry& e) {
  diagnostic start = e.where;
  const std::string head = e.key.substr(0, e.key.find('.'));
  if (head == e.key) return start;
  for_each_line(text, [&](std::string_view line, int number) {
    if (number >= e.where.line) return false;
    auto at = line.find('"' + head + '"');
    if (at == std::string_view::npos) {
      if (!line.starts_with(head + ":")) return true;  // a YAML mapping's top-level key
      at = 0;
    }
    start = location(ctx.source, text, number, static_cast<int>(at) + 1);
    return false;
  });
  return start;
}

// A JSON object none of whose keys DeepSpeed reads is another program's file, most often the
// TrainingArguments JSON of a Hugging Face script whose "deepspeed" key names the DeepSpeed
// config: planning it would plan DeepSpeed's defaults, not the job. Keys both have
// (gradient_accumulation_steps, dataloader_drop_last) are no evidence either way.
std::optional<diagnostic> not_a_deepspeed_config(const import_context& ctx,
                                                 const std::vector<option>& table,
                                                 std::string_view text) {
  if (ctx.entries.empty()) return std::nullopt;
  const entry* first = nullptr;
  std::vector<std::string> arguments;
  for (const auto& e : ctx.entries) {
    if (e.key == "gradient_accumulation_steps" || e.key == "dataloader_drop_last") continue;
    if (std::any_of(table.begin(), table.end(),
                    [&](const option& row) { return option_matches(row.key, e.key); }))
      return std::nullopt;
  }
  const std::vector<const entry*> by_line = entries_by_line(ctx);
  first = by_line.front();
  for (const entry* e : by_line)
    if (is_training_argument(e->key)) arguments.push_back(e->key);
  // A run file of its own program that names the DeepSpeed config in a key (DeepSpeed's
  // examples/opsd config.py: "deepspeed_config": "configs/ds_zero3.json") beside the models it
  // runs: refused at that key, saying which other models and engines it holds.
  const auto last_part = [](const std::string& key) {
    const auto dot = key.rfind('.');
    return dot == std::string::npos ? key : key.substr(dot + 1);
  };
  const entry* named_config = nullptr;
  std::vector<std::string> others;
  for (const entry* e : by_line) {
    const std::string leaf = last_part(e->key);
    if (named_config == nullptr && e->is_string && e->value.text.ends_with(".json") &&
        (leaf == "deepspeed_config" || leaf == "ds_config" || leaf == "deepspeed_config_file"))
      named_config = e;
    const std::string head = e->key.substr(0, e->key.find('.'));
    const bool second_model = head == "teacher" || head == "teacher_model" || head == "ref_model" ||
                              head == "reference_model" || head == "reward_model" ||
                              head == "critic";
    if ((second_model && (leaf == "model_name_or_path" || leaf == "model" || leaf == "path")) ||
        (leaf == "engine" && e->is_string))
      others.push_back(fmt::format("{} {} (line {})", e->key, e->value.text, e->where.line));
  }
  if (arguments.empty() && named_config != nullptr)
    return at(named_config->where,
              fmt::format("not a DeepSpeed config: its program's own run file, whose \"{}\" key "
                          "names the DeepSpeed config, {}{}; vramscope plans one trained model's "
                          "step: give that file to plan it{}",
                          named_config->key, named_config->value.text,
                          others.empty() ? "" : fmt::format(", beside {}", join(others, ", ")),
                          others.empty() ? ""
                                         : ", and plan each other model (a teacher's weights "
                                           "and forward, an inference engine's share of the "
                                           "GPU) on its own"));
  // Pointed at the key the file starts with (a section's own line, not its first field's).
  const diagnostic start = section_start(ctx, text, *first);
  if (arguments.empty())
    return at(start,
              "not a DeepSpeed config: none of its keys is a DeepSpeed option "
              "(zero_optimization, train_micro_batch_size_per_gpu, bf16, "
              "optimizer, ...); give the DeepSpeed JSON the launch reads to plan it");
  std::string named;
  if (const entry* ds = ctx.find("deepspeed"); ds != nullptr && ds->is_string)
    named = fmt::format("its \"deepspeed\" key names the DeepSpeed config, {} (line {}): give "
                        "that file to plan it",
                        ds->value.text, ds->where.line);
  else
    named = "give the DeepSpeed JSON its script passes as --deepspeed to plan it";
  // What this file sets that fills the DeepSpeed file's "auto" values.
  std::vector<std::string> sets;
  for (const char* name : {"per_device_train_batch_size", "gradient_accumulation_steps"})
    if (const entry* e = ctx.find(name); e != nullptr && !e->is_string)
      sets.push_back(fmt::format("--set trainer.{}={}", name, e->value.text));
  for (const char* name : {"bf16", "fp16"})
    if (const entry* e = ctx.find(name); e != nullptr && e->value.text == "true")
      sets.push_back(fmt::format("--set trainer.{}=true", name));
  if (!sets.empty()) named += fmt::format(", with {} for what this file sets", join(sets, " "));
  if (arguments.size() > 4) arguments.resize(4);
  return at(first->where,
            fmt::format("not a DeepSpeed config: a Hugging Face TrainingArguments JSON ({}, ...), "
                        "none of whose keys DeepSpeed reads; {}",
                        join(arguments, ", "), named));
}

// A program's own config that carries the DeepSpeed settings as one of its values ("deepspeed":
// {...}: the dict its script hands to deepspeed.initialize(config=...), or TrainingArguments'
// deepspeed given as a dict) beside options of its own. DeepSpeed reading the file itself sees
// none of the nested settings (it would run stage 0 on the top level's train_batch_size, if
// any), and which of the two the launch reads is the script's choice: refused at the block,
// which planned as a file of its own is the job.
std::optional<diagnostic> nested_deepspeed_block(const import_context& ctx,
                                                 const std::vector<option>& table,
                                                 std::string_view text) {
  const entry* nested = nullptr;
  std::vector<std::string> own;  // the program's own keys, in the file's order
  for (const entry* p : entries_by_line(ctx)) {
    const entry& e = *p;
    const auto dot = e.key.find('.');
    const std::string head = e.key.substr(0, dot);
    if (head == "zero_optimization") return std::nullopt;  // a DeepSpeed config of its own
    const bool block = std::find(std::begin(nested_block_names), std::end(nested_block_names),
                                 head) != std::end(nested_block_names);
    if (block && dot != std::string::npos) {
      const std::string inner = e.key.substr(dot + 1);
      if (nested == nullptr && std::any_of(table.begin(), table.end(), [&](const option& row) {
            return option_matches(row.key, inner);
          }))
        nested = &e;
    } else if (!block && std::find(own.begin(), own.end(), head) == own.end()) {
      own.push_back(head);
    }
  }
  if (nested == nullptr || own.empty()) return std::nullopt;
  const std::string head = nested->key.substr(0, nested->key.find('.'));
  const diagnostic block = section_start(ctx, text, *nested);
  const std::size_t listed = std::min<std::size_t>(own.size(), 4);
  return at(block,
            fmt::format("the DeepSpeed settings sit under \"{}\" (line {}) in another program's "
                        "config ({}{}): DeepSpeed reading this file itself sees none of them, and "
                        "which of the two the launch reads is its script's choice; give the "
                        "\"{}\" block as a file of its own to plan it",
                        head, block.line,
                        join(std::vector<std::string>(
                                 own.begin(), own.begin() + static_cast<std::ptrdiff_t>(listed)),
                             ", "),
                        own.size() > listed ? ", ..." : "", head));
}

// fp16 and bf16 (and bf16's first name, bfloat16) are sections, {"enabled": true, ...}: DeepSpeed
// reads their switch with get_scalar_param, which calls .get on the value (runtime/config.py,
// get_fp16_enabled, get_bfloat16_enabled), and so does the Trainer's HfDeepSpeedConfig on
// "bf16.enabled"; a bare value (true, "auto") stops the launch with an AttributeError.
std::optional<diagnostic> precision_written_as_value(const import_context& ctx) {
  for (const auto& e : ctx.entries)
    if ((e.key == "fp16" || e.key == "bf16" || e.key == "bfloat16") && e.value.text != "{...}") {
      const std::string value = e.is_string ? "\"" + e.value.text + "\"" : e.value.text;
      return at(e.where, fmt::format("\"{0}\": {1}: DeepSpeed reads {0} as a section and stops on "
                                     "a bare value (runtime/config.py calls .get on it); write "
                                     "\"{0}\": {{\"enabled\": {1}}} to plan it",
                                     e.key, value));
    }
  return std::nullopt;
}

// The Hugging Face Trainer (--deepspeed, through transformers' HfTrainerDeepSpeedConfig) and
// accelerate (deepspeed_config_file) read a DeepSpeed config file with Python's json.load
// (accelerate/utils/deepspeed.py, HfDeepSpeedConfig.__init__) and hand DeepSpeed the dict, so
// the file must be strict JSON there: no comments, trailing commas, quoteless text or root
// without braces. A config read that way is refused where strict JSON fails, as json.load
// refuses it: accelerate's, and one whose batch sizes are "auto". DeepSpeed itself cannot run
// those (runtime/config.py, _batch_assertion compares them with 0), so only the Trainer or
// accelerate, which fill them, launch such a file. Other "auto" values are no evidence: a file
// for DeepSpeed alone may carry them for a program of its own to fill. DeepSpeed reads its
// config with Hjson since 0.8.1 (4079077c, 2023-02; json.load before), so a file for DeepSpeed
// alone that is not strict JSON is planned, with a note saying where json.load stops.
std::optional<diagnostic> json_load_refusal(import_context& ctx, std::string_view text,
                                            const std::string& source) {
  const entry* auto_value = nullptr;
  for (const char* name :
       {"train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps"})
    if (const entry* e = ctx.find(name);
        e != nullptr && e->is_string && e->value.text == "auto" &&
        (auto_value == nullptr || e->where.line < auto_value->where.line))
      auto_value = e;
  const bool accelerate = ctx.out.format == "accelerate";
  try {
    const nlohmann::json strict = nlohmann::json::parse(text);
    (void)strict;
    return std::nullopt;
  } catch (const nlohmann::json::parse_error& e) {
    std::string_view before = text.substr(0, std::min(e.byte > 0 ? e.byte - 1 : 0, text.size()));
    std::string what = e.what();
    if (const auto colon = what.find(": ", what.find("column")); colon != std::string::npos)
      what = what.substr(colon + 2);
    // A trailing comma: the parser stops at the closing brace or bracket after it, where the
    // comma is the fault; pointed at the comma.
    const std::size_t last = before.find_last_not_of(" \t\r\n");
    if (e.byte > 0 && e.byte - 1 < text.size() &&
        (text[e.byte - 1] == '}' || text[e.byte - 1] == ']') && last != std::string_view::npos &&
        before[last] == ',') {
      before = before.substr(0, last);
      what = fmt::format("a trailing comma before the closing '{}'", text[e.byte - 1]);
    }
    const int line = 1 + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
    const auto start = before.rfind('\n');
    const auto column = before.size() - (start == std::string_view::npos ? 0 : start + 1) + 1;
    const diagnostic where = location(source, text, line, static_cast<int>(column));
    if (!accelerate && auto_value == nullptr) {
      ctx.out.notes.push_back(
          at(where, fmt::format("not strict JSON ({}): DeepSpeed 0.8.1 (2023-02) and later read "
                                "the file with Hjson, which takes it; DeepSpeed before 0.8.1, "
                                "and the Hugging Face Trainer or accelerate at every release, "
                                "read it with Python's json.load, which stops here",
                                what)));
      return std::nullopt;
    }
    const std::string reader =
        accelerate ? "accelerate reads its deepspeed_config_file"
                   : fmt::format(
                         "its \"auto\" batch size ({}, line {}) is filled by the Hugging "
                         "Face Trainer or accelerate, which read the file",
                         auto_value->key, auto_value->where.line);
    return with_remedy(
        at(where, fmt::format("json syntax error: {}: {} with Python's json.load (accelerate's "
                              "HfDeepSpeedConfig), which takes strict JSON only (no comments, "
                              "trailing commas or unquoted text; DeepSpeed's own Hjson reader "
                              "would take them)",
                              what, reader)),
        syntax_remedy);
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // a number too large: json.load reads it as inf
  }
}

// DeepSpeed's zero_optimization section is a pydantic model that forbids fields it does not
// have (DeepSpeedZeroConfig, deepspeed/runtime/zero/config.py, on DeepSpeedConfigModel whose
// extra is "forbid", runtime/config_utils.py; every release since 0.7, 2022): deepspeed.initialize
// stops at such a key. The first one in the file is refused, with the field it is near. A file
// that writes a spelling only the DeepSpeed of before that model read (ZeRO-3's first
// `cpu_offload_params`, 2021-03 to 2021-06) was written for a release that ignored unknown keys:
// there they are noted, not refused.
std::optional<diagnostic> zero_field_refusal(const import_context& ctx,
                                             const std::vector<option>& table) {
  const std::string zero = "zero_optimization.";
  if (ctx.find(zero + "cpu_offload_params") != nullptr) return std::nullopt;
  std::vector<std::string> names;
  for (const auto& row : table) names.push_back(row.key);
  for (const auto& e : ctx.entries) {
    if (!e.key.starts_with(zero) || e.key.find('.', zero.size()) != std::string::npos) continue;
    if (std::any_of(table.begin(), table.end(),
                    [&](const option& row) { return option_matches(row.key, e.key); }))
      continue;
    const std::string near = near_option(e.key, names);
    const std::string field = e.key.substr(zero.size());
    // A field of the offload sections written one level up ("device" beside "stage").
    std::vector<std::string> sections;
    for (const auto& name : names)
      if (name.starts_with(zero) && name.ends_with("." + field) &&
          name.size() > zero.size() + field.size() + 1)
        sections.push_back(name.substr(0, name.size() - field.size() - 1));
    std::string hint;
    if (!sections.empty())
      hint = fmt::format("move it into {} to plan it", fmt::join(sections, " or "));
    else if (!near.empty())
      hint =
          fmt::format("write \"{}\" (the field it is near) to plan it", near.substr(zero.size()));
    else
      hint = "remove it to plan it (a field added after 2025-02 needs that newer DeepSpeed)";
    return with_remedy(
        at(e.where, fmt::format("\"{}\" is not a field of DeepSpeed's ZeRO config, which refuses "
                                "fields it does not have (DeepSpeedZeroConfig forbids extra "
                                "fields since DeepSpeed 0.7): deepspeed.initialize stops here",
                                e.key)),
        hint);
  }
  return std::nullopt;
}

// scheduler.type: DeepSpeed builds the schedule a config names when the caller passes none of
// its own (the HF Trainer passes none when the config has a scheduler; engine.py,
// _configure_lr_scheduler), from its own schedules (runtime/lr_schedules.py,
// VALID_LR_SCHEDULES) or a class of torch.optim.lr_scheduler, each as spelled
// (_scheduler_from_config: hasattr, then `assert ..., "DeepSpeed does not recognize LR scheduler
// ..."`). Another name stops deepspeed.initialize unless the script passes its own schedule; a
// schedule holds no GPU memory, so the plan goes on, and the note names the nearest real one (as
// an optimizer type DeepSpeed cannot build is noted, read_optimizer).
void note_unknown_scheduler(import_context& ctx) {
  const entry* e = ctx.find("scheduler.type");
  if (e == nullptr || e->value.text.empty()) return;
  static const std::vector<std::string> schedules{
      // DeepSpeed's (deepspeedai/DeepSpeed edaa7221, 2026-08; WarmupCosineLR since 0.8.1).
      "LRRangeTest", "OneCycle", "WarmupLR", "WarmupDecayLR", "WarmupCosineLR",
      // torch.optim.lr_scheduler's classes (torch 2.x).
      "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR", "LinearLR",
      "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler", "ReduceLROnPlateau",
      "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR", "PolynomialLR", "LRScheduler"};
  if (std::find(schedules.begin(), schedules.end(), e->value.text) != schedules.end()) return;
  // The nearest, for the hint: the one whose words (split where a capital starts) hold all of
  // the name's ("CosineWarmup" of WarmupCosineLR), else one the name misspells (near_option).
  const auto words = [](const std::string& name) {
    std::vector<std::string> out;
    for (char c : name) {
      if (out.empty() || std::isupper(static_cast<unsigned char>(c)) != 0) out.emplace_back();
      out.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return out;
  };
  const auto wrote_words = words(e->value.text);
  const auto holds_them = [&](const std::string& name) {
    const auto have = words(name);
    return std::all_of(wrote_words.begin(), wrote_words.end(), [&](const std::string& w) {
      return std::find(have.begin(), have.end(), w) != have.end();
    });
  };
  const auto by_words = std::find_if(schedules.begin(), schedules.end(), holds_them);
  const std::string near =
      by_words != schedules.end() ? *by_words : near_option(e->value.text, schedules);
  ctx.note(
      *e, fmt::format("scheduler type \"{}\" is neither one of DeepSpeed's schedules "
                      "(LRRangeTest, OneCycle, WarmupLR, WarmupDecayLR, WarmupCosineLR) nor "
                      "a class of torch.optim.lr_scheduler, as spelled: deepspeed.initialize "
                      "stops at it (\"DeepSpeed does not recognize LR scheduler\") unless the "
                      "script passes a schedule of its own{}; a schedule holds no GPU memory",
                      e->value.text,
                      near.empty() ? std::string() : fmt::format(" (did you mean \"{}\"?)", near)));
}

// No DeepSpeed release has a section of adapters: deepspeed.initialize trains the parameters of
// the model it is handed (runtime/config.py reads no "lora" or "peft" key). A config that carries
// one is read by the training program around DeepSpeed, which builds the adapters and freezes the
// base itself; which weights train is then that program's, so the plan of a full fine-tune would
// be wrong, and the section's first field is refused with what would make it plannable.
std::optional<diagnostic> adapter_section_refusal(const import_context& ctx) {
  const entry* first = nullptr;
  for (const auto& e : ctx.entries) {
    const std::string section = e.key.substr(0, e.key.find('.'));
    if (section == e.key) continue;
    if (section != "lora" && section != "peft" && section != "lora_config" &&
        section != "peft_config" && section != "adapter" && section != "adapters")
      continue;
    if (first == nullptr || e.where.line < first->where.line) first = &e;
  }
  if (first == nullptr) return std::nullopt;
  const std::string section = first->key.substr(0, first->key.find('.'));
  return with_remedy(
      at(first->where, fmt::format("\"{}\" is not a DeepSpeed section (no release reads adapters "
                                   "from its config): the training program that reads this "
                                   "file builds them and chooses which weights train",
                                   section)),
      "write the job spec with lora.enabled, lora.rank and lora.targets (docs/job-spec.md) to "
      "plan it");
}

// DeepSpeed's batch sizes are whole numbers; a string other than "auto" (which the Hugging Face
// Trainer and accelerate fill) stops DeepSpeed's batch assertion (runtime/config.py,
// _batch_assertion compares it with 0). The first such value in the file is refused, so a
// template's placeholder ("train_batch_size": GB_SIZE, a quoteless Hjson string) is named.
std::optional<diagnostic> batch_size_placeholder(const import_context& ctx) {
  const entry* first = nullptr;
  for (const char* name :
       {"train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps"}) {
    const entry* e = ctx.find(name);
    std::uint64_t n = 0;
    if (e == nullptr || !e->is_string || e->value.text == "auto" ||
        parse_count_text(e->value.text, 1, 1ULL << 40, n).empty())
      continue;
    if (first == nullptr || e->where.line < first->where.line) first = e;
  }
  if (first == nullptr) return std::nullopt;
  return at(first->where,
            fmt::format("{}: expected a whole number (or \"auto\", which the Hugging Face Trainer "
                        "and accelerate fill), got \"{}\", which DeepSpeed's batch assertion "
                        "cannot compare; put the number there (a template's placeholder filled "
                        "in) to plan it",
                        first->key, first->value.text));
}

// A batch size written as a number below one: DeepSpeed's _batch_assertion stops ("Train batch
// size: 0 has to be greater than 0", runtime/config.py), and the Hugging Face Trainer, which fills
// only "auto", stops first on the mismatch with its own batch size.
std::optional<diagnostic> batch_size_below_one(const import_context& ctx) {
  for (const char* name :
       {"train_batch_size", "train_micro_batch_size_per_gpu", "gradient_accumulation_steps"}) {
    const entry* e = ctx.find(name);
    if (e == nullptr || e->is_string || e->value.is_list) continue;
    char* end = nullptr;
    const double v = std::strtod(e->value.text.c_str(), &end);
    if (end == e->value.text.c_str() || *end != '\0' || v >= 1) continue;
    return at(e->where, fmt::format("{} {}: DeepSpeed's batch assertion stops (\"has to be greater "
                                    "than 0\"); write a whole number of at least 1, or \"auto\" "
                                    "under the Hugging Face Trainer or accelerate, to plan it",
                                    name, e->value.text));
  }
  return std::nullopt;
}

// A plain YAML scalar as YAML 1.2's core schema resolves it (null, booleans, integers, floats
// such as 2.0e+8); a quoted one stays a string ('auto').
nlohmann::json yaml_scalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return text;  // quoted
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL")
    return nullptr;
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  const auto whole = [&](auto parse) {
    std::size_t used = 0;
    try {
      const auto value = parse(text, &used);
      return used == text.size() ? std::optional(value) : std::nullopt;
    } catch (const std::exception&) {
      return decltype(std::optional(parse(text, &used)))();
    }
  };
  if (text.find_first_of(".eE") == std::string::npos)
    if (const auto v = whole([](const std::string& t, std::size_t* n) { return std::stoll(t, n); }))
      return *v;
  if (text.find_first_not_of("+-0123456789.eE") == std::string::npos)
    if (const auto v = whole([](const std::string& t, std::size_t* n) { return std::stod(t, n); }))
      return *v;
  return text;
}

nlohmann::json yaml_value(const YAML::Node& node, std::vector<std::string>& path,
                          hjson_document& doc, int depth) {
  if (depth > max_hjson_depth) throw YAML::Exception(node.Mark(), "nested too deep");
  if (node.IsMap()) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& item : node) {
      const std::string key = item.first.Scalar();
      path.push_back(key);
      doc.keys[path] = {item.first.Mark().line + 1, item.first.Mark().column + 1};
      object[key] = yaml_value(item.second, path, doc, depth + 1);
      path.pop_back();
    }
    return object;
  }
  if (node.IsSequence()) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& item : node) list.push_back(yaml_value(item, path, doc, depth + 1));
    return list;
  }
  if (node.IsScalar()) return yaml_scalar(node);
  return nullptr;
}

// The DeepSpeed options of a YAML mapping, with where each key is written.
result<hjson_document> parse_yaml_options(std::string_view text, const std::string& source) {
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    hjson_document doc;
    std::vector<std::string> path;
    doc.value = yaml_value(root, path, doc, 0);
    return doc;
  } catch (const YAML::Exception& e) {
    const bool placed = !e.mark.is_null();
    return at(location(source, text, placed ? e.mark.line + 1 : 0, placed ? e.mark.column + 1 : 0),
              "yaml syntax error: " + e.msg);
  }
}

}  // namespace

bool deepspeed_yaml(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] == '{' || text[first] == '"') return false;
  // Without the section's name anywhere the mapping cannot have it: most files (every shell
  // script detect_format asks about) are not parsed as YAML at all.
  if (text.find("zero_optimization") == std::string_view::npos) return false;
  // Comments first are YAML's and Hjson's alike; a YAML mapping's keys are what tell.
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    if (!root.IsMap()) return false;
    int sections = 0;
    for (const auto& item : root) {
      if (!item.first.IsScalar()) return false;
      const std::string key = item.first.Scalar();
      for (const auto& row : deepspeed_table())
        if (row.key == key || row.key.starts_with(key + ".")) {
          ++sections;
          break;
        }
    }
    // A script's own YAML config with the DeepSpeed settings as one of its sections
    // (nested_deepspeed_block refuses it at that section).
    const YAML::Node& mapping = root;  // the const lookup, which adds no key
    for (const std::string_view block : nested_block_names)
      if (const YAML::Node section = mapping[std::string(block)];
          section.IsDefined() && section.IsMap() && section["zero_optimization"].IsDefined())
        return true;
    return sections >= 2 && root["zero_optimization"].IsDefined();
  } catch (const YAML::Exception&) {
    return false;
  }
}

std::optional<diagnostic> read_deepspeed(import_context& ctx, std::string_view text,
                                         const std::string& source, bool& has_world_size) {
  // DeepSpeed reads its config file as Hjson (import/hjson.hpp says where), comments, quoteless
  // keys and values and a root without braces included, and refuses a repeated key. A config
  // written as a YAML mapping (a Hydra or Lightning config group that the script hands to
  // deepspeed.initialize(config=dict)) is read as the dict it becomes.
  const bool yaml = deepspeed_yaml(text);
  auto parsed = yaml ? parse_yaml_options(text, source) : parse_hjson(text, source);
  if (!parsed) return parsed.error();
  if (!parsed->value.is_object())
    return diagnostic{source, 1, 1, "expected a JSON object of DeepSpeed options",
                      line_at(text, 1)};
  std::vector<entry> outer = std::move(ctx.entries);
  ctx.entries.clear();
  std::vector<std::string> path;
  if (!flatten(parsed->value, path, ctx, *parsed, text, source)) {
    ctx.entries = std::move(outer);
    return diagnostic{source, 0, 0,
                      fmt::format("options nested more than {} levels deep: not a DeepSpeed "
                                  "config", max_depth), ""};
  }
  std::optional<diagnostic> error = nested_deepspeed_block(ctx, deepspeed_table(), text);
  if (!error) error = not_a_deepspeed_config(ctx, deepspeed_table(), text);
  if (!error && !yaml) error = json_load_refusal(ctx, text, source);
  if (!error) error = zero_field_refusal(ctx, deepspeed_table());
  if (!error) error = adapter_section_refusal(ctx);
  if (!error) error = precision_written_as_value(ctx);
  if (!error) error = batch_size_placeholder(ctx);
  if (!error) error = batch_size_below_one(ctx);
  if (error) {
    ctx.entries = std::move(outer);
    return error;
  }
  read_old_bf16_name(ctx);
  read_booleans_as_counts(ctx);
  drop_null_batch_sizes(ctx);
  resolve_trainer_autos(ctx);
  note_unknown_scheduler(ctx);
  error = read_stage(ctx);
  if (!error) error = nvme_without_path(ctx);
  if (!error) error = read_precision(ctx);
  if (!error) error = read_autotp(ctx);
  if (!error)
    if (std::string problem = read_world(ctx, has_world_size); !problem.empty())
      error = at(ctx.find("train_batch_size")->where, problem);
  if (!error) error = apply_options(ctx, deepspeed_table());
  ctx.entries = std::move(outer);
  return error;
}

const std::vector<option>& deepspeed_options() { return deepspeed_table(); }

}  // namespace detail

result<imported_job> import_deepspeed(std::string_view text, const std::string& source,
                                      const trainer_args& trainer) {
  detail::import_context ctx("deepspeed", source);
  ctx.trainer = trainer;
  bool has_world_size = false;
  if (auto err = detail::read_deepspeed(ctx, text, source, has_world_size)) return *err;
  return detail::finish(ctx, has_world_size);
}

}  // namespace vramscope::job
