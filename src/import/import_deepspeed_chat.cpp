// DeepSpeed-Chat's trainers launched from a shell script: `deepspeed .../main.py
// --model_name_or_path M --zero_stage 2 --per_device_train_batch_size 8 ...`
// (deepspeedai/DeepSpeedExamples, applications/DeepSpeed-Chat: step1_supervised_finetuning and
// step2_reward_model_finetuning main.py, and the many copies of them). The trainer builds its
// DeepSpeed config in code (dschat/utils/ds_utils.py, get_train_ds_config(offload, dtype, stage)),
// so the launch's arguments are the whole job.

#include <vramscope/import/importers.hpp>
#include <vramscope/model/catalog.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "import/import_common.hpp"
#include "import/megatron/megatron_args.hpp"
#include "import/shell_launch.hpp"
#include "job/source_text.hpp"

namespace vramscope::job::detail {

namespace {

struct chat_flag {
  std::string value;
  bool given = false;
  diagnostic where;
};

// A flag's word as the trainer's argparse reads it: `--name value` or `--name=value`; a flag
// followed by another flag (or nothing) is a switch.
std::map<std::string, chat_flag> chat_flags(const import_context& ctx, std::string_view text,
                                            const std::vector<shell_word>& args) {
  std::map<std::string, chat_flag> flags;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& w = args[i].text;
    if (!w.starts_with("--")) continue;
    chat_flag f;
    f.given = true;
    f.where = word_location(ctx.source, text, args[i]);
    std::string key = w;
    if (const auto eq = w.find('='); eq != std::string::npos) {
      key = w.substr(0, eq);
      f.value = w.substr(eq + 1);
    } else if (i + 1 < args.size() && !args[i + 1].text.starts_with("--")) {
      f.value = args[++i].text;
    }
    flags[key] = f;
  }
  return flags;
}

}  // namespace

std::optional<result<imported_job>> import_deepspeed_chat(std::string_view text,
                                                          const std::string& source) {
  auto launch = read_shell_launch(text, source);
  if (!launch || launch->script.text.empty()) return std::nullopt;
  const std::string& script = launch->script.text;
  if (script != "main.py" && !script.ends_with("/main.py")) return std::nullopt;
  import_context ctx("deepspeed", source);
  const auto flags = chat_flags(ctx, text, launch->args);
  // The trainer's own arguments: its model, its per-device batch and the ZeRO stage it writes
  // into the config it builds.
  for (const char* name : {"--model_name_or_path", "--per_device_train_batch_size", "--zero_stage"})
    if (!flags.contains(name)) return std::nullopt;
  const auto get = [&](const char* name) -> const chat_flag* {
    const auto it = flags.find(name);
    return it == flags.end() ? nullptr : &it->second;
  };
  ctx.out.notes = launch->notes;
  ctx.chosen_by_arguments = launch->chosen_by_arguments;
  for (const auto& [value, where] : launch->run_time_values)
    ctx.chosen_by_arguments.emplace_back(run_time_marker + value, where);
  const diagnostic script_at = word_location(source, text, launch->script);
  ctx.note(entry{script, {}, false, script_at},
           fmt::format("{} is read as DeepSpeed-Chat's trainer: it builds its DeepSpeed config in "
                       "code from --zero_stage, --dtype, --offload and the batch arguments",
                       script));
  const auto refuse = [&](const chat_flag& f, const std::string& name, const std::string& why) {
    return result<imported_job>(
        with_remedy(at(f.where, fmt::format("{} {}: {}", name, f.value, why)),
                    "write the value into the script to plan it"));
  };
  // A value the script leaves to its arguments, a command or the environment: refused where
  // the script decides it, as a Megatron-LM launch's is.
  for (const auto& [name, f] : flags) {
    if (f.value.find_first_of("$`") == std::string::npos ||
        !(name == "--model_name_or_path" || name == "--per_device_train_batch_size" ||
          name == "--zero_stage" || name == "--max_seq_len" ||
          name == "--gradient_accumulation_steps" || name == "--dtype" || name == "--lora_dim"))
      continue;
    if (const diagnostic* chosen = chosen_by_arguments(ctx, f.value))
      return result<imported_job>(
          at(*chosen,
             fmt::format("{} (line {}): \"{}\": {}; write the value into the script to plan it",
                         name, f.where.line, f.value, chosen->message)));
    if (const diagnostic* origin = run_time_value(ctx, f.value))
      return result<imported_job>(
          at(*origin,
             fmt::format("{} (line {}): \"{}\": {}; write the value into the script to plan it",
                         name, f.where.line, f.value, origin->message)));
    return refuse(f, name, "a variable or command the script does not set");
  }
  const auto set = [&](const char* path, const std::string& value,
                       const chat_flag& f) -> std::optional<result<imported_job>> {
    if (auto problem = ctx.set(path, value, entry{"", {value, {}, false}, false, f.where});
        !problem.empty())
      return result<imported_job>(with_remedy(at(f.where, problem), "change it there to plan it"));
    return std::nullopt;
  };
  // The model: a Hub id or a local folder named for its model.
  const chat_flag& model = *get("--model_name_or_path");
  std::string named = model.value;
  auto preset = model::preset_named(named);
  if (!preset) {
    std::string last = named;
    while (!last.empty() && last.back() == '/') last.pop_back();
    last = last.substr(last.rfind('/') == std::string::npos ? 0 : last.rfind('/') + 1);
    preset = model::preset_named(last);
  }
  if (auto r = set("model", preset.value_or(named), model)) return r;
  // get_train_ds_config: zero_optimization.stage; stage 0 is DeepSpeed's data parallelism.
  const chat_flag& stage = *get("--zero_stage");
  if (stage.value != "0" && stage.value != "1" && stage.value != "2" && stage.value != "3")
    return refuse(stage, "--zero_stage", "expected 0, 1, 2 or 3");
  if (auto r = set("parallel.strategy", stage.value == "0" ? "ddp" : "zero" + stage.value, stage))
    return r;
  if (auto r = set("training.micro_batch", get("--per_device_train_batch_size")->value,
                   *get("--per_device_train_batch_size")))
    return r;
  // main.py's defaults: --max_seq_len 512, --gradient_accumulation_steps 1, --dtype fp16.
  const chat_flag none{"", false, script_at};
  const chat_flag* seq = get("--max_seq_len");
  if (auto r = set("training.seq_len", seq != nullptr ? seq->value : "512",
                   seq != nullptr ? *seq : none))
    return r;
  if (const chat_flag* ga = get("--gradient_accumulation_steps"))
    if (auto r = set("training.gradient_accumulation", ga->value, *ga)) return r;
  const chat_flag* dtype = get("--dtype");
  const std::string precision = dtype != nullptr ? dtype->value : "fp16";
  if (precision != "fp16" && precision != "bf16" && precision != "fp32")
    return refuse(*dtype, "--dtype", "expected fp16, bf16 or fp32");
  if (auto r = set("precision.params", precision, dtype != nullptr ? *dtype : none)) return r;
  if (auto r = set("precision.master", "fp32", dtype != nullptr ? *dtype : none)) return r;
  // --offload: get_train_ds_config puts both offload sections on the CPU; the parameters' is
  // read only by ZeRO-3. The trainer's optimizer is DeepSpeedCPUAdam or FusedAdam in AdamW mode.
  if (const chat_flag* offload = get("--offload")) {
    if (auto r = set("parallel.offload_optimizer", "true", *offload)) return r;
    if (stage.value == "3")
      if (auto r = set("parallel.offload_param", "true", *offload)) return r;
  }
  if (auto r = set("optimizer.name", "adamw", none)) return r;
  if (const chat_flag* checkpointing = get("--gradient_checkpointing"))
    if (auto r = set("training.activation_checkpointing", "full", *checkpointing)) return r;
  // --lora_dim N > 0 turns every Linear whose name holds --lora_module_name into a LoRA layer
  // (dschat/utils/module/lora.py, convert_linear_layer_to_lora); only --only_optimize_lora
  // freezes the base weights, otherwise the whole model trains beside the adapters.
  if (const chat_flag* lora = get("--lora_dim"); lora != nullptr && lora->value != "0") {
    if (get("--only_optimize_lora") != nullptr) {
      if (auto r = set("lora.enabled", "true", *lora)) return r;
      if (auto r = set("lora.rank", lora->value, *lora)) return r;
      if (auto r = set("lora.targets", "all-linear", *lora)) return r;
    } else {
      ctx.note(entry{"--lora_dim", {lora->value, {}, false}, false, lora->where},
               fmt::format("--lora_dim {} without --only_optimize_lora: the adapters train beside "
                           "the whole model, which is planned as full fine-tuning (the adapters' "
                           "own weights left out)",
                           lora->value));
    }
  }
  maybe_error error;
  const long long world = launch_world(ctx, text, *launch, error);
  if (error) return result<imported_job>(*error);
  return finish(ctx, world > 0);
}

}  // namespace vramscope::job::detail
