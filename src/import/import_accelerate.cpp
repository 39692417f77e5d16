// accelerate config YAML (the file `accelerate config` writes) -> job spec. Key names from
// accelerate's config file and its FullyShardedDataParallelPlugin / DeepSpeedPlugin; what each
// one becomes is tabled in docs/importers.md.
#include <vramscope/import/importers.hpp>

#include <vramscope/core/io.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "import/import_common.hpp"
#include "job/source_text.hpp"

namespace vramscope::job {

namespace detail {

namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

// FSDP1 sharding strategies by name or by accelerate's older numbering.
std::string read_sharding(import_context& ctx, const entry& e) {
  const std::string v = upper(e.value.text);
  if (ctx.out.job.parallel.kind == strategy::fsdp2) {
    if (v == "FULL_SHARD" || v == "1") return ctx.set("parallel.reshard_after_forward", "true", e);
    if (v == "SHARD_GRAD_OP" || v == "2") return ctx.set("parallel.reshard_after_forward", "false", e);
    ctx.note(e, fmt::format("{} with FSDP2 is not modelled; ignored", e.value.text));
    return "";
  }
  // _HYBRID_SHARD_ZERO2 is SHARD_GRAD_OP inside each shard group and replication across them;
  // FSDP's default groups (torch/distributed/fsdp/_init_utils.py, _init_intra_and_inter_node_
  // groups) shard within a node. On one machine that is one group of every rank: SHARD_GRAD_OP.
  const entry* machines = ctx.find("num_machines");
  if ((v == "HYBRID_SHARD_ZERO2" || v == "5") && machines != nullptr &&
      machines->value.text == "1") {
    ctx.note(e,
             "HYBRID_SHARD_ZERO2 on one machine: its shard group is every rank, so it shards "
             "as SHARD_GRAD_OP");
    return ctx.set("parallel.fsdp_sharding", "shard_grad_op", e);
  }
  if (v == "HYBRID_SHARD_ZERO2" || v == "5") {
    ctx.note(e, "HYBRID_SHARD_ZERO2 is modelled as HYBRID_SHARD, which frees parameters after "
                "forward: the prediction is low");
    return ctx.set("parallel.fsdp_sharding", "hybrid_shard", e);
  }
  const std::vector<std::pair<std::string, std::string>> names{
      {"FULL_SHARD", "1"}, {"SHARD_GRAD_OP", "2"}, {"NO_SHARD", "3"}, {"HYBRID_SHARD", "4"}};
  for (const auto& [name, number] : names)
    if (v == name || v == number) return ctx.set("parallel.fsdp_sharding", name, e);
  return fmt::format("{}: invalid value \"{}\" (expected one of: FULL_SHARD, SHARD_GRAD_OP, "
                     "NO_SHARD, HYBRID_SHARD, HYBRID_SHARD_ZERO2)", e.key, e.value.text);
}

// FSDP2: true / false. FSDP1 (newer accelerate): a sharding strategy name, or true / false
// for FULL_SHARD / SHARD_GRAD_OP.
std::string read_reshard(import_context& ctx, const entry& e) {
  if (ctx.out.job.parallel.kind == strategy::fsdp2)
    return ctx.set("parallel.reshard_after_forward", e.value.text, e);
  bool on = false;
  if (parse_bool_text(e.value.text, on).empty())
    return ctx.set("parallel.fsdp_sharding", on ? "full_shard" : "shard_grad_op", e);
  return read_sharding(ctx, e);
}

// What a key the file leaves out stands for, as accelerate reads it: its default `value`, from
// the file as a whole (no line of its own).
entry left_out(const import_context& ctx, const char* key, const char* value) {
  entry e{key, {}, true, diagnostic{ctx.source, 0, 0, "", ""}};
  e.value.text = value;
  return e;
}

// The job fields a key the file leaves out of `section` sets at accelerate's default `written`,
// with a note saying so; an error names the file.
maybe_error set_left_out(import_context& ctx, const char* section, const char* written,
                         std::initializer_list<std::pair<const char*, const char*>> fields,
                         const std::string& note) {
  const entry absent = left_out(ctx, section, written);
  for (const auto& [path, value] : fields)
    if (auto problem = ctx.set(path, value, absent); !problem.empty())
      return at(absent.where, problem);
  ctx.note(note);
  return std::nullopt;
}

// A switch accelerate reads with str_to_bool (utils/environment.py), which raises on any other
// word: the problem, naming the key and what it takes, or "" with `on` set.
std::string read_switch(const entry& e, bool& on) {
  if (parse_bool_text(e.value.text, on).empty()) return "";
  return fmt::format("{}: invalid value \"{}\" (expected true or false)", e.key, e.value.text);
}

std::string read_ram_efficient(import_context& ctx, const entry& e) {
  bool on = false;
  if (auto problem = read_switch(e, on); !problem.empty()) return problem;
  if (!on) return "";
  if (auto problem = ctx.set("init.meta_device", "true", e); !problem.empty()) return problem;
  return ctx.set("init.load", "rank0", e);
}

// gradient_accumulation_steps: a number, or "auto": accelerate's DeepSpeedPlugin then takes the
// accumulation the training script gives the Accelerator (utils/dataclasses.py __post_init__:
// ACCELERATE_GRADIENT_ACCUMULATION_STEPS, "auto" when unset), which the file does not say.
std::string read_ds_accumulation(import_context& ctx, const entry& e) {
  if (e.value.text == "auto") {
    ctx.note(e, "gradient_accumulation_steps auto: the training script's accumulation "
                "(Accelerator(gradient_accumulation_steps=...)) is used, which the file does not "
                "give; planned with vramscope's (--set training.gradient_accumulation=N)");
    return "";
  }
  return ctx.set("training.gradient_accumulation", e.value.text, e);
}

std::string read_zero3_init(import_context& ctx, const entry& e) {
  bool on = false;
  if (auto problem = read_switch(e, on); !problem.empty()) return problem;
  if (!on) return "";
  // DeepSpeedPlugin.__post_init__ (accelerate utils/dataclasses.py): "zero3_init_flag=True is
  // only applicable for ZeRO Stage-3. Setting it to False."
  if (ctx.out.job.parallel.kind != strategy::zero3) {
    ctx.note(e,
             "zero3_init_flag applies at ZeRO stage 3 only; accelerate turns it off at a lower "
             "stage, and so does the plan");
    return "";
  }
  ctx.note(e, "zero.Init (parameters partitioned as they are created) is modelled as "
              "meta-device initialisation");
  return ctx.set("init.meta_device", "true", e);
}

std::string read_wrap_policy(import_context& ctx, const entry& e) {
  const std::string v = upper(e.value.text);
  // The size policy with a minimum of 0 (or less) wraps nothing: the plugin keeps it only `if
  // self.min_num_params > 0` and otherwise sets auto_wrap_policy None ("If zero, we silently
  // ignore it"; utils/dataclasses.py, in every release since 0.20), so the whole model is one
  // FSDP unit. Left out, launch's --fsdp_min_num_params is 1e8.
  if (v == "SIZE_BASED_WRAP") {
    const std::string prefix = e.key.substr(0, e.key.rfind('.') + 1);
    if (const entry* min = ctx.find(prefix + "fsdp_min_num_params")) {
      long long n = 0;
      const std::string& t = min->value.text;
      const auto [end, failed] = std::from_chars(t.data(), t.data() + t.size(), n);
      if (failed == std::errc() && end == t.data() + t.size() && !t.empty() && n <= 0) {
        ctx.note(*min, fmt::format("SIZE_BASED_WRAP with fsdp_min_num_params {}: accelerate "
                                   "then wraps nothing (auto_wrap_policy None), so the whole "
                                   "model is one FSDP unit, gathered whole for forward and "
                                   "backward",
                                   n));
        return ctx.set("parallel.wrap", "none", e);
      }
    }
    ctx.note(e, "SIZE_BASED_WRAP is planned as one FSDP unit per transformer block");
  }
  if (v == "TRANSFORMER_BASED_WRAP" || v == "SIZE_BASED_WRAP") return ctx.set("parallel.wrap", "block", e);
  if (v == "NO_WRAP") return ctx.set("parallel.wrap", "none", e);
  return fmt::format("{}: invalid value \"{}\" (expected one of: TRANSFORMER_BASED_WRAP, "
                     "SIZE_BASED_WRAP, NO_WRAP)", e.key, e.value.text);
}

// An offload device written as YAML's null: accelerate's DeepSpeedPlugin takes its default,
// none (utils/dataclasses.py, DeepSpeedPlugin.__post_init__: the
// ACCELERATE_DEEPSPEED_OFFLOAD_*_DEVICE variable, else "none").
action null_offload_is_none(action inner) {
  return custom([inner](import_context& ctx, const entry& e) -> std::string {
    if (!e.value.is_list && e.value.text.empty()) {
      ctx.ignore(e);
      return "";
    }
    return inner.apply(ctx, e);
  });
}

// use_cpu reaches the training only through the simple launcher, which exports it as
// ACCELERATE_USE_CPU (utils/launch.py, prepare_simple_launcher_cmd_env: `args.cpu or
// args.use_cpu`). accelerate launch picks the DeepSpeed, FSDP, Megatron-LM and multi-GPU launchers
// by `not args.cpu`, the --cpu flag, which the config's use_cpu does not set (commands/launch.py,
// launch_command; _validate_launch_command copies config keys by name, use_cpu to args.use_cpu),
// and those launchers do not export it: with one of those distributed types the key is ignored.
// So its value is checked only where the simple launcher exports it (str_to_bool then raises on
// a word other than true or false): with another launcher, a value that is no switch (`falsed`)
// is never read either.
std::string read_use_cpu(import_context& ctx, const entry& e) {
  const entry* type = ctx.find("distributed_type");
  const std::string launcher = type == nullptr ? "" : upper(type->value.text);
  const bool simple = launcher == "NO" || launcher.empty();
  bool on = false;
  if (auto problem = read_switch(e, on); !problem.empty()) {
    if (simple) return problem;
    ctx.note(e, fmt::format("use_cpu: \"{}\" is no switch (true or false), but only accelerate's "
                            "single-process launcher reads it; distributed_type {} starts its own "
                            "launcher, which does not pass it on: ignored, the job trains on the "
                            "GPUs",
                            e.value.text, type->value.text));
    ctx.ignore(e);
    return "";
  }
  if (on && simple)
    return "use_cpu: true trains on the CPU, which uses no GPU memory; set use_cpu: false to plan "
           "the job on GPUs";
  if (on)
    ctx.note(e, fmt::format("use_cpu: true is read only by accelerate's single-process launcher; "
                            "distributed_type {} starts its own launcher, which does not pass "
                            "it on (the --cpu flag would): the job trains on the GPUs",
                            type->value.text));
  ctx.ignore(e);
  return "";
}

// Under distributed_type DEEPSPEED the dynamo options never reach the training processes: launch
// exports ACCELERATE_DYNAMO_* from prepare_simple_launcher_cmd_env and prepare_multi_gpu_env only,
// not from prepare_deepspeed_cmd_env (utils/launch.py, every release since dynamo came in 0.15),
// and the Accelerator's TorchDynamoPlugin reads its backend from that variable (default NO).
bool dynamo_not_passed_on(import_context& ctx, const entry& e) {
  const entry* type = ctx.find("distributed_type");
  if (type == nullptr || lower_case(type->value.text) != "deepspeed") return false;
  const std::string v = lower_case(e.value.text);
  if (v != "no" && v != "default" && !v.empty())
    ctx.note(e, fmt::format("{} {}: accelerate launch does not pass the dynamo options on to a "
                            "DeepSpeed launch, so nothing is compiled unless the script asks "
                            "Accelerator for it",
                            e.key, e.value.text));
  ctx.ignore(e);
  return true;
}

// dynamo_config: accelerate wraps the model in torch.compile with this backend (INDUCTOR fuses
// the pointwise chains, which training.compile plans; NO leaves it eager). The modes that capture
// CUDA graphs keep a private memory pool, not modelled.
std::string read_dynamo_backend(import_context& ctx, const entry& e) {
  const std::string v = lower_case(e.value.text);
  if (dynamo_not_passed_on(ctx, e)) return "";
  if (v == "no") {
    ctx.ignore(e);
    return "";
  }
  if (v == "inductor") return set_compile(ctx, e, "true", "true");  // the whole model and loss
  return other_compile_backend(ctx, e);
}

std::string read_dynamo_mode(import_context& ctx, const entry& e) {
  const std::string v = lower_case(e.value.text);
  if (dynamo_not_passed_on(ctx, e)) return "";
  if (v == "default" || v.empty()) {
    ctx.ignore(e);
    return "";
  }
  return not_modelled(fmt::format("torch.compile mode {} captures CUDA graphs, which keep a "
                                  "private memory pool", e.value.text))
      .apply(ctx, e);
}

// A mesh dimension planned as more data-parallel ranks: an explicit dp_shard grows by its size.
std::string multiply_dp_shard(import_context& ctx, const entry& e) {
  long long n = 0;
  try {
    n = std::stoll(e.value.text);
  } catch (...) {
    return fmt::format("{}: invalid value \"{}\" (expected a whole number)", e.key, e.value.text);
  }
  if (n < 1 || n > 1024) return fmt::format("{}: {} is out of range 1-1024", e.key, n);
  const auto shard = ctx.out.job.parallel.dp_shard;
  if (shard == 0) return "";
  return ctx.set("parallel.dp_shard", std::to_string(static_cast<long long>(shard) * n), e);
}

// parallelism_config_cp_size: torch's context parallelism (ring attention over the sequence,
// accelerate/parallelism_config.py, cp_backend "torch"), vramscope's parallel.cp under FSDP2.
// Under other strategies it is noted and planned without it.
std::string read_cp_size(import_context& ctx, const entry& e) {
  if (e.value.text == "1") {
    ctx.ignore(e);
    return "";
  }
  if (ctx.out.job.parallel.kind == strategy::fsdp2) return ctx.set("parallel.cp", e.value.text, e);
  ctx.note(e, fmt::format("context parallelism of {} is planned only under FSDP2: planned as {} "
                          "more data-parallel ranks each holding the whole sequence",
                          e.value.text, e.value.text));
  return multiply_dp_shard(ctx, e);
}

// parallelism_config_sp_size: DeepSpeed's Ulysses sequence parallelism (ALST, sp_backend
// "deepspeed"). The ranks of the job are dp_replicate x dp_shard x tp x cp x sp
// (ParallelismConfig.total_size). Under ZeRO it is vramscope's parallel.cp: each rank holds
// seq_len / sp tokens outside attention, and ZeRO shards over the sequence-data-parallel group,
// dp x sp (DeepSpeed engine.py, seq_data_parallel_group). Attention's all-to-alls are planned
// with the ring's buffers, the same tensors' size. Without ZeRO (accelerate accepts sp_backend
// "deepspeed" only with DeepSpeed) the sp ranks are planned as data-parallel ranks, noted.
std::string read_sp_size(import_context& ctx, const entry& e) {
  if (e.value.text == "1") {
    ctx.ignore(e);
    return "";
  }
  const strategy kind = ctx.out.job.parallel.kind;
  if (job::is_zero(kind) && ctx.out.job.parallel.cp <= 1) {
    ctx.note(e, fmt::format("sequence parallelism of {} (Ulysses) is planned as context "
                            "parallelism of {}: each rank holds the sequence / {} tokens outside "
                            "attention, and ZeRO shards over the data- and sequence-parallel "
                            "ranks together",
                            e.value.text, e.value.text, e.value.text));
    return ctx.set("parallel.cp", e.value.text, e);
  }
  ctx.note(e, fmt::format("sequence parallelism of {} (Ulysses) is not modelled: planned as {} "
                          "more data-parallel ranks each holding the whole sequence",
                          e.value.text, e.value.text));
  return multiply_dp_shard(ctx, e);
}

// deepspeed_config.zero3_save_16bit_model: launch passes the text on as an environment variable
// and DeepSpeedPlugin compares it, lower-cased, with "true" (utils/launch.py and
// utils/dataclasses.py, ACCELERATE_DEEPSPEED_ZERO3_SAVE_16BIT_MODEL): any other text is false.
std::string read_save_16bit(import_context& ctx, const entry& e) {
  const std::string text = lower_case(e.value.text);
  if (text != "true" && text != "false")
    ctx.note(e, fmt::format("{}: \"{}\" is not true: accelerate compares the text with \"true\", "
                            "so it is false (each rank saves its shard)",
                            e.key, e.value.text));
  return ctx.set("checkpoint.save", text == "true" ? "full" : "sharded", e);
}

// Options FSDP2 does not have: applied for FSDP1, noted and skipped for FSDP2, whose plugin sets
// them to None with a warning ("sync_module_states is obsolete in FSDP2", "use_orig_params is
// obsolete in FSDP2", "backward_prefetch is not supported in FSDP2"; utils/dataclasses.py,
// FullyShardedDataParallelPlugin.__post_init__, from accelerate's first FSDP2 release, d7c741a6).
action fsdp1_only(action inner) {
  return custom([inner](import_context& ctx, const entry& e) -> std::string {
    if (ctx.out.job.parallel.kind == strategy::fsdp1) return inner.apply(ctx, e);
    ctx.note(e, fmt::format("\"{}\" is an FSDP1 option: under fsdp_version 2 accelerate's "
                            "plugin sets it to None (obsolete in FSDP2), whatever the file says",
                            e.key));
    return "";
  });
}

// fsdp_backward_prefetch_policy is the name `accelerate config` wrote from 0.12 to 0.25; launch
// read it up to 0.34 (from 0.26 with a FutureWarning, huggingface/accelerate 848ed800) and 1.0
// dropped it ("The Great Deprecation", 79a84264), reading only fsdp_backward_prefetch, so the
// plugin's backward_prefetch stays None. The writer that wrote the old name numbered the
// sharding strategy; 848ed800 made it write names, and the plugin before it parsed the strategy
// with int(), so a named strategy cannot have run there. A file holding a spelling of 0.26 or
// later (a named fsdp_sharding_strategy, fsdp_backward_prefetch, fsdp_activation_checkpointing
// of 0.31, fsdp_version of 1.6) is planned at the current release, which ignores the old key;
// anything else as the release whose writer wrote it read it.
std::string read_old_backward_prefetch(import_context& ctx, const entry& e) {
  const std::string fsdp = "fsdp_config.";
  const entry* newer = nullptr;
  if (const entry* s = ctx.find(fsdp + "fsdp_sharding_strategy");
      s != nullptr && !s->value.text.empty() &&
      !std::all_of(s->value.text.begin(), s->value.text.end(),
                   [](unsigned char c) { return std::isdigit(c) != 0; }))
    newer = s;
  for (const char* key :
       {"fsdp_backward_prefetch", "fsdp_activation_checkpointing", "fsdp_version"})
    if (newer == nullptr) newer = ctx.find(fsdp + key);
  if (newer == nullptr) return ctx.set("parallel.backward_prefetch", e.value.text, e);
  ctx.note(e, fmt::format("{} is the name accelerate read only before 1.0 (79a84264); the file "
                          "also has {} {} (line {}), a spelling of 0.26 or later, so it is planned "
                          "at the current release, which ignores the old name: no backward "
                          "prefetch (0.26 to 0.34 still applied it); write "
                          "fsdp_backward_prefetch: {} to plan the prefetch",
                          e.key, newer->key, newer->value.text, newer->where.line, e.value.text));
  if (ctx.find(fsdp + "fsdp_backward_prefetch") != nullptr) return "";
  return ctx.set("parallel.backward_prefetch", "none", e);
}

// accelerate's Megatron-LM plugin (distributed_type MEGATRON_LM): the config's megatron_lm_config
// keys are `accelerate launch` arguments (commands/launch.py, "--megatron_lm_*"), handed to
// MegatronLMPlugin (utils/dataclasses.py) through MEGATRON_LM_* variables; the plugin passes them
// to Megatron-LM's own arguments (megatron_lm_default_args: tensor_model_parallel_size,
// pipeline_model_parallel_size, sequence_parallel, use_distributed_optimizer, clip_grad, ...).
// huggingface/accelerate 16cb6eb8, and v0.16.0 to v1.12.0 for the seven keys those had.

// megatron_lm_sequence_parallelism: Megatron turns sequence parallelism off without tensor
// parallelism (validate_args), so it acts only with megatron_lm_tp_degree > 1.
std::string read_megatron_sequence_parallel(import_context& ctx, const entry& e) {
  // accelerate config writes the keys sorted, this one before megatron_lm_tp_degree.
  const entry* tp = ctx.find("megatron_lm_config.megatron_lm_tp_degree");
  if (tp != nullptr && tp->value.text != "1")
    return ctx.set("parallel.sequence_parallel", e.value.text, e);
  bool on = false;
  if (auto problem = read_switch(e, on); !problem.empty()) return problem;
  if (on)
    ctx.note(e, "sequence parallelism without tensor parallelism (megatron_lm_tp_degree 1): "
                "Megatron turns it off");
  else
    ctx.ignore(e);
  return "";
}

// megatron_lm_recompute_activations: up to accelerate 1.12 true sets Megatron's
// recompute_granularity "selective" (MegatronLMPlugin.__post_init__); from 1.13 (7e384699) the
// plugin no longer reads it and megatron_lm_recompute_granularity decides.
std::string read_megatron_recompute_activations(import_context& ctx, const entry& e) {
  bool on = false;
  if (auto problem = read_switch(e, on); !problem.empty()) return problem;
  if (!on) return ctx.set("training.activation_checkpointing", "none", e);
  return plan_core_attention_recompute(ctx, e);
}

// megatron_lm_recompute_granularity (accelerate >= 1.13): Megatron's --recompute-granularity.
// full recomputes whole layers (megatron_lm_recompute_method uniform, groups of
// megatron_lm_recompute_num_layers, the plugin's defaults uniform and 1).
std::string read_megatron_recompute_granularity(import_context& ctx, const entry& e) {
  const std::string g = lower_case(e.value.text);
  if (g == "selective") return plan_core_attention_recompute(ctx, e);
  if (g != "full")
    return fmt::format("{}: invalid value \"{}\" (expected one of: full, selective)", e.key,
                       e.value.text);
  if (const entry* method = ctx.find("megatron_lm_config.megatron_lm_recompute_method");
      method != nullptr && lower_case(method->value.text) == "block")
    ctx.note(*method, "block recompute (the first megatron_lm_recompute_num_layers layers of "
                      "each stage) is planned as every layer recomputed");
  return ctx.set("training.activation_checkpointing", "full", e);
}

const std::vector<option>& accelerate_table() {
  const std::string fsdp = "fsdp_config.";
  const std::string ds = "deepspeed_config.";
  const std::string mg = "megatron_lm_config.megatron_lm_";
  static const std::vector<option> table{
      {"distributed_type", handled()},
      {"num_processes", handled()},
      {"num_machines", handled()},
      {"mixed_precision", handled()},
      {"fp16", handled()},  // accelerate's first name of it, read by read_mixed_precision
      {"use_cpu", custom(read_use_cpu)},
      {fsdp + "fsdp_version", handled()},
      {fsdp + "fsdp_sharding_strategy", custom(read_sharding)},
      {fsdp + "fsdp_reshard_after_forward", custom(read_reshard)},
      {fsdp + "fsdp_offload_params", maps_to("parallel.cpu_offload")},
      {fsdp + "fsdp_auto_wrap_policy", custom(read_wrap_policy)},
      {fsdp + "fsdp_transformer_layer_cls_to_wrap", custom([](import_context& ctx, const entry& e) {
         if (ctx.find("fsdp_config.fsdp_auto_wrap_policy") == nullptr)
           ctx.note(e, fmt::format("{} is read only under fsdp_auto_wrap_policy "
                                   "TRANSFORMER_BASED_WRAP, which the file does not set",
                                   e.key));
         else
           ctx.note(e, fmt::format("wrapping {}: vramscope wraps each transformer block of the "
                                   "model", e.value.text));
         return std::string();
       })},
      {fsdp + "fsdp_min_num_params", not_modelled("size-based wrapping")},
      {fsdp + "fsdp_backward_prefetch", fsdp1_only(maps_to("parallel.backward_prefetch"))},
      {fsdp + "fsdp_backward_prefetch_policy", fsdp1_only(custom(read_old_backward_prefetch))},
      {fsdp + "fsdp_forward_prefetch", fsdp1_only(maps_to("parallel.forward_prefetch"))},
      {fsdp + "fsdp_sync_module_states", fsdp1_only(maps_to("parallel.sync_module_states"))},
      {fsdp + "fsdp_use_orig_params", fsdp1_only(maps_to("parallel.use_orig_params"))},
      {fsdp + "fsdp_state_dict_type",
       maps_with("checkpoint.save", {{"FULL_STATE_DICT", "full"},
                                     {"SHARDED_STATE_DICT", "sharded"},
                                     {"LOCAL_STATE_DICT", "sharded"}})},
      {fsdp + "fsdp_cpu_ram_efficient_loading", custom(read_ram_efficient)},
      {fsdp + "fsdp_activation_checkpointing",
       maps_with("training.activation_checkpointing", {{"true", "full"}, {"false", "none"}})},
      {ds + "zero_stage", handled()},
      {ds + "deepspeed_config_file", handled()},
      {ds + "offload_optimizer_device",
       null_offload_is_none(zero_stages_1_to_3(maps_offload_device("parallel.offload_optimizer")))},
      // accelerate hands offload_param_device to DeepSpeed as zero_optimization.offload_param,
      // which only the stage-3 optimizer reads (utils/dataclasses.py, DeepSpeedPlugin).
      {ds + "offload_param_device",
       null_offload_is_none(stage3_only(maps_offload_device("parallel.offload_param")))},
      {ds + "gradient_accumulation_steps", custom(read_ds_accumulation)},
      {ds + "zero3_init_flag", custom(read_zero3_init)},
      {ds + "zero3_save_16bit_model", custom(read_save_16bit)},
      {ds + "deepspeed_moe_layer_cls_names", not_modelled("mixture-of-experts layers")},
      {ds + "gradient_clipping", no_effect()},
      {ds + "deepspeed_multinode_launcher", no_effect()},
      {ds + "deepspeed_hostfile", no_effect()},
      {ds + "deepspeed_inclusion_filter", no_effect()},
      {ds + "deepspeed_exclusion_filter", no_effect()},
      {ds + "offload_optimizer_nvme_path", no_effect()},
      {ds + "offload_param_nvme_path", no_effect()},
      // The dtype of Ulysses' all-to-all (accelerate >= 1.10, DeepSpeed's ALST).
      {ds + "seq_parallel_communication_data_type", no_effect()},
      // accelerate >= 1.10 N-D parallelism (accelerate/parallelism_config.py, ParallelismConfig):
      // the mesh sizes of FSDP2's HSDP replicas and shards and of tensor parallelism.
      {"parallelism_config.parallelism_config_tp_size", maps_to("parallel.tp")},
      {"parallelism_config.parallelism_config_dp_replicate_size", maps_to("parallel.dp_replicate")},
      {"parallelism_config.parallelism_config_dp_shard_size", maps_to("parallel.dp_shard")},
      {"parallelism_config.parallelism_config_cp_size", custom(read_cp_size)},
      {"parallelism_config.parallelism_config_sp_size", custom(read_sp_size)},
      {"parallelism_config.parallelism_config_cp_backend", no_effect()},
      {"parallelism_config.parallelism_config_cp_comm_strategy",
       not_modelled("the ring's key and value exchange; planned as p2p")},
      {"parallelism_config.parallelism_config_sp_backend", no_effect()},
      {"parallelism_config.parallelism_config_sp_seq_length", no_effect()},
      {"parallelism_config.parallelism_config_sp_seq_length_is_variable", no_effect()},
      {"parallelism_config.parallelism_config_sp_attn_implementation", no_effect()},
      // accelerate before 0.16 wrote the backend at the top level (config_args.py converts it).
      {"dynamo_backend", custom(read_dynamo_backend)},
      {"dynamo_config.dynamo_backend", custom(read_dynamo_backend)},
      {"dynamo_config.dynamo_mode", custom(read_dynamo_mode)},
      {"dynamo_config.dynamo_use_fullgraph", no_effect()},
      {"dynamo_config.dynamo_use_dynamic", no_effect()},
      {"dynamo_config.dynamo_use_regional_compilation", no_effect()},
      {"dynamo_config.*", not_modelled("a torch.compile option vramscope does not know")},
      // MegatronLMPlugin's launch arguments (the seven of accelerate 0.16 to 1.12 first).
      {mg + "tp_degree", maps_to("parallel.tp")},
      {mg + "pp_degree", maps_to("parallel.pp")},
      // set_training_args: global batch = micro batch x data-parallel size x num_micro_batches.
      {mg + "num_micro_batches", maps_to("training.gradient_accumulation")},
      {mg + "sequence_parallelism", custom(read_megatron_sequence_parallel)},
      {mg + "recompute_activations", custom(read_megatron_recompute_activations)},
      {mg + "use_distributed_optimizer", maps_to("parallel.distributed_optimizer")},
      {mg + "gradient_clipping", no_effect()},
      {mg + "recompute_granularity", custom(read_megatron_recompute_granularity)},
      {mg + "recompute_method", handled()},  // read with recompute_granularity
      {mg + "recompute_num_layers",
       not_modelled("groups of layers recomputed together; planned as every layer on its own")},
      {mg + "context_parallel_size", maps_to("parallel.cp")},
      {mg + "expert_model_parallel_size", maps_to("parallel.ep")},
      {mg + "expert_tensor_parallel_size",
       not_modelled("expert tensor parallelism other than the tensor-parallel size")},
      {mg + "use_custom_fsdp",
       not_modelled("Megatron's FSDP; planned as its DDP with the distributed optimizer")},
      {mg + "optimizer_cpu_offload", not_modelled("the optimizer's state kept on the CPU")},
      {mg + "use_precision_aware_optimizer",
       not_modelled("optimizer state in lower-precision dtypes")},
      {mg + "decoder_last_pipeline_num_layers",
       not_modelled("an uneven split of layers over pipeline stages")},
      {mg + "overlap_cpu_optimizer_d2h_h2d", no_effect()},
      {mg + "no_load_optim", no_effect()},
      {mg + "no_save_optim", no_effect()},
      {mg + "eod_mask_loss", no_effect()},
      {mg + "attention_backend", no_effect()},
      {mg + "attention_dropout", not_modelled("the dropout masks of the plugin's rate")},
      {mg + "hidden_dropout", not_modelled("the dropout masks of the plugin's rate")},
      {mg + "attention_softmax_in_fp32", no_effect()},
      {mg + "calculate_per_token_loss", no_effect()},
      {mg + "use_rotary_position_embeddings", no_effect()},
      {"fp8_config.*", not_modelled("fp8 training")},
      {"compute_environment", no_effect()},
      {"debug", no_effect()},
      {"downcast_bf16", no_effect()},
      {"enable_cpu_affinity", no_effect()},
      {"machine_rank", no_effect()},
      {"main_process_ip", no_effect()},
      {"main_process_port", no_effect()},
      {"main_training_function", no_effect()},
      {"rdzv_backend", no_effect()},
      {"same_network", no_effect()},
      {"gpu_ids", no_effect()},
      {"tpu_env", no_effect()},
      {"tpu_use_cluster", no_effect()},
      {"tpu_use_sudo", no_effect()},
      {"tpu_name", no_effect()},
      {"tpu_vm", no_effect()},
      {"tpu_zone", no_effect()},
      {"commands", no_effect()},
      {"command_file", no_effect()},
      {"ipex_config.*", no_effect()},
      {"mpirun_config.*", no_effect()},
  };
  return table;
}

// The devices of accelerate's other distributed types (utils/dataclasses.py, DistributedType, at
// 16cb6eb8; TPU is XLA's name before accelerate 0.28), or "" for a type that is not one.
std::string other_device(const std::string& type) {
  static const std::vector<std::pair<std::string, std::string>> devices{
      {"XLA", "TPUs through torch_xla"},
      {"TPU", "TPUs through torch_xla"},
      {"MULTI_CPU", "CPUs"},
      {"MULTI_NPU", "Ascend NPUs"},
      {"MULTI_MLU", "Cambricon MLUs"},
      {"MULTI_SDAA", "SDAA accelerators"},
      {"MULTI_MUSA", "Moore Threads MUSA GPUs"},
      {"MULTI_XPU", "Intel XPUs"},
      {"MULTI_HPU", "Intel Gaudi HPUs"},
      {"MULTI_NEURON", "AWS Neuron cores"},
  };
  for (const auto& [name, device] : devices)
    if (type == name) return device;
  return "";
}

// The deepspeed_config_file a config names, or nullptr. "none" is accelerate's word for no file:
// launch passes it on (ACCELERATE_DEEPSPEED_CONFIG_FILE), and DeepSpeedPlugin, whose default it
// is, reads every value but "none" as a config (utils/dataclasses.py, __post_init__).
const entry* named_deepspeed_file(const import_context& ctx) {
  const entry* e = ctx.find("deepspeed_config.deepspeed_config_file");
  return e != nullptr && e->value.text == "none" ? nullptr : e;
}

// distributed_type written empty (YAML null), which ClusterConfig keeps as None.
bool null_distributed_type(const entry& e) {
  return !e.is_string && (e.value.text.empty() || e.value.text == "none");
}

maybe_error read_strategy(import_context& ctx) {
  const entry* e = ctx.find("distributed_type");
  if (e == nullptr) {
    ctx.note("no distributed_type: assumed MULTI_GPU (ddp)");
    ctx.out.job.parallel.kind = strategy::ddp;
    return std::nullopt;
  }
  // Written empty (YAML null): ClusterConfig keeps None (__post_init__ converts strings only),
  // launch's distributed_type comparisons are all false, and the simple launcher runs one process,
  // as for NO (commands/launch.py, _validate_launch_command).
  const bool null_type = null_distributed_type(*e);
  if (null_type)
    ctx.note(*e,
             "distributed_type is empty (null): accelerate launch matches no type and runs "
             "its single-process launcher, as for NO");
  const std::string type = null_type ? std::string("NO") : upper(e->value.text);
  std::string kind;
  if (type == "NO") {
    kind = "single";
    // distributed_type NO sends accelerate launch to its simple launcher, one process whatever
    // num_processes says (commands/launch.py, launch_command; multi_gpu and use_fsdp come from
    // distributed_type alone when a config file is given); its other sections are noted above.
    const entry* procs = ctx.find("num_processes");
    std::uint64_t n = 0;
    if (procs != nullptr && parse_count_text(procs->value.text, 1, 1ULL << 20, n).empty() && n > 1)
      return at(e->where,
                fmt::format("distributed_type: {} starts one process (accelerate's single-process "
                            "launcher), but num_processes is {} (line {}): accelerate launch "
                            "ignores it; set distributed_type to MULTI_GPU, FSDP or DEEPSPEED for "
                            "{} processes, or num_processes to 1, to plan it",
                            e->value.text, n, procs->where.line, n));
  }
  if (type == "MULTI_GPU") {
    // launch runs MULTI_GPU through torchrun (multi_gpu_launcher), one process too, so the state
    // is MULTI_GPU (state.py: LOCAL_RANK is set). Until accelerate 1.10 (9359a019, pull/3682,
    // 2025-07-30) prepare_model wrapped every MULTI_GPU model in DistributedDataParallel; since
    // then only a state of more than one process (Accelerator.multi_device, use_distributed).
    // One process is planned as the releases before 1.10 run it (DDP's gradient buckets beside
    // the gradients), the larger of the two, noted.
    const entry* procs = ctx.find("num_processes");
    kind = "ddp";
    if (procs != nullptr && procs->value.text == "1")
      ctx.note(*e,
               "distributed_type MULTI_GPU with num_processes 1: accelerate before 1.10 wraps "
               "the one process in DistributedDataParallel, planned so (its gradient "
               "buckets); 1.10 and later leave it unwrapped: --set parallel.strategy=single "
               "plans that");
  }
  if (type == "FSDP") {
    const entry* version = ctx.find("fsdp_config.fsdp_version");
    kind = version != nullptr && version->value.text == "2" ? "fsdp2" : "fsdp1";
    if (version != nullptr && version->value.text != "1" && version->value.text != "2")
      return at(version->where, fmt::format("fsdp_config.fsdp_version: invalid value \"{}\" "
                                            "(expected one of: 1, 2)", version->value.text));
    if (version != nullptr) ctx.mapped_to(*version, "parallel.strategy");
  }
  if (type == "DEEPSPEED") {
    const entry* stage = ctx.find("deepspeed_config.zero_stage");
    const std::string s = stage == nullptr ? "" : stage->value.text;
    if (stage != nullptr && s != "0" && s != "1" && s != "2" && s != "3")
      return at(stage->where, fmt::format("deepspeed_config.zero_stage: invalid value \"{}\" "
                                          "(expected one of: 0, 1, 2, 3)", s));
    kind = s.empty() || s == "0" ? "ddp" : "zero" + s;
    if (stage != nullptr) ctx.mapped_to(*stage, "parallel.strategy");
    // Without zero_stage and without a DeepSpeed JSON, DeepSpeedPlugin takes
    // ACCELERATE_DEEPSPEED_ZERO_STAGE or 2 (utils/dataclasses.py); a DeepSpeed-JSON map nested in
    // deepspeed_config (zero_optimization: stage: 1) is no launch argument and is never read.
    if (stage == nullptr && named_deepspeed_file(ctx) == nullptr) {
      kind = "zero2";
      ctx.note(*e,
               "no deepspeed_config.zero_stage: accelerate's DeepSpeedPlugin default, ZeRO "
               "stage 2");
    }
  }
  // MegatronLMPlugin trains through Megatron-LM's model, DDP and optimizer.
  if (type == "MEGATRON_LM") kind = "megatron";
  if (const std::string device = other_device(type); kind.empty() && !device.empty())
    return at(e->where, fmt::format("distributed_type: {} trains on {}, whose memory vramscope "
                                    "does not plan (it plans CUDA GPUs); set distributed_type: "
                                    "MULTI_GPU (or FSDP, DEEPSPEED, MEGATRON_LM) to plan the same "
                                    "training on GPUs",
                                    e->value.text, device));
  if (kind.empty())
    return at(e->where, fmt::format("distributed_type: {} is not a GPU training setup vramscope "
                                    "plans (expected one of: NO, MULTI_GPU, FSDP, DEEPSPEED, "
                                    "MEGATRON_LM)",
                                    e->value.text));
  const std::string problem = ctx.set("parallel.strategy", kind, *e);
  return problem.empty() ? std::nullopt : maybe_error(at(e->where, problem));
}

// MegatronLMPlugin's defaults for what megatron_lm_config leaves out. Its launch arguments of
// accelerate 0.16 to 1.12 (tp and pp degree 1, one micro-batch, no sequence parallelism, no
// recompute, no distributed optimizer) are those `accelerate config` writes; from 1.13 (7e384699)
// the plugin also takes context_parallel_size (default 2) and recompute_granularity (default
// "full", every layer), and no longer reads recompute_activations. A file with a key only 1.13
// has is read with 1.13's defaults; any other with 1.12's, noted.
maybe_error read_megatron_lm_defaults(import_context& ctx) {
  if (ctx.out.job.parallel.kind != strategy::megatron) return std::nullopt;
  const std::string mg = "megatron_lm_config.megatron_lm_";
  const entry* type = ctx.find("distributed_type");
  const diagnostic type_at = type->where;  // the entries may be erased below
  const entry* newer = nullptr;
  for (const char* key :
       {"recompute_granularity", "recompute_method", "recompute_num_layers",
        "context_parallel_size", "expert_model_parallel_size", "expert_tensor_parallel_size",
        "use_custom_fsdp", "optimizer_cpu_offload", "use_precision_aware_optimizer",
        "decoder_last_pipeline_num_layers", "overlap_cpu_optimizer_d2h_h2d", "no_load_optim",
        "no_save_optim", "eod_mask_loss", "attention_backend", "attention_dropout",
        "hidden_dropout", "attention_softmax_in_fp32", "calculate_per_token_loss",
        "use_rotary_position_embeddings"})
    if (newer == nullptr) newer = ctx.find(mg + key);
  std::string problem;
  if (newer == nullptr) {
    ctx.note(*type, "MEGATRON_LM: read with accelerate 0.16 to 1.12's plugin defaults (tensor and "
                    "pipeline parallel sizes 1, no recompute); accelerate 1.13 and later default "
                    "to context parallel size 2 and full recompute of every layer, and ignore "
                    "megatron_lm_recompute_activations");
    if (ctx.find(mg + "recompute_activations") == nullptr)
      problem = ctx.set("training.activation_checkpointing", "none", *type);
  } else {
    if (ctx.find(mg + "context_parallel_size") == nullptr) {
      ctx.note(*newer, fmt::format("{} is a key of accelerate 1.13 or later, whose plugin "
                                   "defaults context_parallel_size to 2: planned with context "
                                   "parallelism 2",
                                   newer->key));
      problem = ctx.set("parallel.cp", "2", *newer);
    }
    if (problem.empty() && ctx.find(mg + "recompute_granularity") == nullptr) {
      ctx.note(*newer, fmt::format("{} is a key of accelerate 1.13 or later, whose plugin "
                                   "defaults recompute_granularity to full: every layer "
                                   "recomputed",
                                   newer->key));
      problem = ctx.set("training.activation_checkpointing", "full", *newer);
    }
    if (const entry* old = ctx.find(mg + "recompute_activations")) {
      ctx.note(*old, fmt::format("{} is a key of accelerate 1.13 or later, whose plugin no "
                                 "longer reads megatron_lm_recompute_activations",
                                 newer->key));
      const std::string key = old->key;
      std::erase_if(ctx.entries, [&](const entry& x) { return x.key == key; });
    }
  }
  return problem.empty() ? std::nullopt : maybe_error(at(type_at, problem));
}

// num_processes counts every process of the job; num_machines the nodes.
maybe_error read_processes(import_context& ctx, bool& has_world_size) {
  const entry* procs = ctx.find("num_processes");
  const entry* machines = ctx.find("num_machines");
  if (procs == nullptr) {
    // accelerate launch fills what the command line leaves out from the config file, and
    // ClusterConfig's num_processes defaults to -1, on which it stops: "You need to manually
    // pass in `--num_processes` using this config yaml." (commands/launch.py,
    // _validate_launch_command; older releases, where the field had no default, stop building
    // ClusterConfig). Only distributed_type NO gets 1 (config_args.py, load_config_from_file),
    // and only a LOCAL_MACHINE config is copied onto the launch. Such a file is made for
    // `accelerate launch --num_processes N`: the import keeps its facts and the plan asks for N.
    const entry* type = ctx.find("distributed_type");
    const entry* environment = ctx.find("compute_environment");
    const bool local = environment == nullptr || upper(environment->value.text) == "LOCAL_MACHINE";
    if (type != nullptr && upper(type->value.text) != "NO" && local)
      ctx.out.unsettled.push_back(
          {"hardware.gpus_per_node",
           at(type->where,
              fmt::format("distributed_type {} with no num_processes: accelerate launch stops "
                          "on this file unless its command line gives --num_processes (\"You "
                          "need to manually pass in `--num_processes` using this config "
                          "yaml.\", commands/launch.py), so the job's size is not in it; write "
                          "num_processes: N in the file, or give --set "
                          "hardware.gpus_per_node=N (the processes of one machine{}), to plan it",
                          type->value.text,
                          machines != nullptr ? ", with num_machines of them" : ""))});
    return std::nullopt;
  }
  std::uint64_t p = 0;
  std::uint64_t m = 1;
  if (machines != nullptr)
    if (auto problem = parse_count_text(machines->value.text, 1, 100000, m); !problem.empty())
      return at(machines->where,
                "num_machines: " + problem + "; write the number of machines there to plan it");
  // accelerate copies num_processes onto the launch unchecked (ClusterConfig annotates it int but
  // does not validate it). On one machine it becomes torchrun's --nproc_per_node as written
  // (utils/launch.py, prepare_multi_gpu_env and prepare_deepspeed_cmd_env: str(num_processes)),
  // and torchrun reads `auto` as one process per GPU visible when the job starts, a count the
  // file does not fix: the import keeps the file's facts and the plan asks for the count. On
  // several machines it is divided by num_machines first, which a word cannot be (a TypeError).
  if (procs->value.text == "auto" && m == 1) {
    ctx.out.unsettled.push_back(
        {"hardware.gpus_per_node",
         at(procs->where,
            "num_processes: auto is torchrun's one process per GPU visible when "
            "the job starts, which the file does not fix; write the job's number "
            "of processes there (or --set hardware.gpus_per_node=N) to plan it")});
    return std::nullopt;
  }
  if (auto problem = parse_count_text(procs->value.text, 1, 1 << 24, p); !problem.empty())
    return at(procs->where,
              procs->value.text == "auto"
                  ? fmt::format("num_processes: auto on {} machines: accelerate divides it by "
                                "num_machines for each machine's share, which a word cannot be "
                                "(Python stops with a TypeError); write the job's number of "
                                "processes there to plan it",
                                m)
                  : "num_processes: " + problem +
                        "; write the job's number of processes there "
                        "to plan it");
  if (machines != nullptr)
    if (auto problem = parse_count_text(machines->value.text, 1, 100000, m); !problem.empty())
      return at(machines->where,
                "num_machines: " + problem + "; write the number of machines there to plan it");
  if (p % m != 0)
    return at(procs->where,
              fmt::format("num_processes {} is not a multiple of num_machines {}: num_processes "
                          "counts the processes of all machines, and each machine starts an "
                          "equal share of them; write the total over all machines (a multiple "
                          "of {}) to plan it",
                          p, m, m));
  has_world_size = true;
  std::string problem = ctx.set("hardware.gpus_per_node", std::to_string(p / m), *procs);
  if (problem.empty() && machines != nullptr)
    problem = ctx.set("hardware.nodes", std::to_string(m), *machines);
  return problem.empty() ? std::nullopt : maybe_error(at(procs->where, problem));
}

// accelerate's mixed_precision; for FSDP it becomes MixedPrecision(param, reduce and buffer
// dtype all 16-bit), for DDP torch.autocast, for DeepSpeed the bf16 / fp16 section.
maybe_error read_mixed_precision(import_context& ctx) {
  const entry* e = ctx.find("mixed_precision");
  if (ctx.precision_from_file) return std::nullopt;
  // `fp16: true`, what `accelerate config` wrote before mixed_precision came (huggingface/
  // accelerate 4fc586f5, #247, 2022-02): process_config turns it into mixed_precision "fp16"
  // where the file has no mixed_precision, and drops it (commands/config/config_args.py).
  const entry* legacy = ctx.find("fp16");
  bool legacy_on = false;
  if (legacy != nullptr) {
    if (auto problem = read_switch(*legacy, legacy_on); !problem.empty())
      return at(legacy->where, problem);
    if (e != nullptr)
      ctx.note(*legacy, fmt::format("fp16 beside mixed_precision (line {}): accelerate reads "
                                    "mixed_precision and drops fp16",
                                    e->where.line));
    else if (legacy_on)
      ctx.note(*legacy, "fp16: true is accelerate's older name of mixed_precision: fp16, read so");
  }
  const bool legacy_fp16 = e == nullptr && legacy_on;
  if (legacy_fp16) e = legacy;
  if (e == nullptr) {
    // accelerate's own default (commands/config/config_args.py, BaseConfig.mixed_precision "no";
    // `accelerate launch` without --mixed_precision takes the config's): fp32 throughout.
    ctx.note("no mixed_precision: accelerate's default \"no\", planned in fp32");
    const entry absent = left_out(ctx, "mixed_precision", "no");
    const std::string problem = ctx.set("precision", "fp32", absent);
    return problem.empty() ? std::nullopt : maybe_error(error_at(ctx.source, problem));
  }
  std::string mp = legacy_fp16 ? "fp16" : lower_case(e->value.text);
  if (mp == "fp8") {
    ctx.note(*e, "fp8 training is not modelled: planned as bf16");
    mp = "bf16";
  }
  if (mp != "no" && mp != "bf16" && mp != "fp16")
    return at(e->where, fmt::format("mixed_precision: invalid value \"{}\" (expected one of: no, "
                                    "fp16, bf16, fp8)", e->value.text));
  const auto kind = ctx.out.job.parallel.kind;
  std::string problem;
  if (mp == "no") {
    problem = ctx.set("precision", "fp32", *e);
  } else if (kind == strategy::megatron) {
    // MegatronLMPlugin.set_mixed_precision: Megatron's --fp16 / --bf16, 16-bit weights with fp32
    // main parameters in the optimizer; gradients reduced in fp32 under bf16 (validate_args'
    // accumulate_allreduce_grads_in_fp32), in fp16 under fp16.
    for (const auto& [path, value] :
         {std::pair{"precision.params", mp}, std::pair{"precision.master", std::string("fp32")},
          std::pair{"precision.reduce", mp == "bf16" ? std::string("fp32") : mp}})
      if (problem.empty()) problem = ctx.set(path, value, *e);
  } else if (kind == strategy::ddp || kind == strategy::single) {
    problem = ctx.set("precision", mp + "-mixed", *e);
  } else {
    for (const char* path : {"precision.params", "precision.reduce", "precision.buffers"})
      if (problem.empty()) problem = ctx.set(path, mp, *e);
    if (problem.empty()) problem = ctx.set("precision.autocast", "false", *e);
  }
  return problem.empty() ? std::nullopt : maybe_error(at(e->where, problem));
}

// The evidence that an accelerate release before 0.21 wrote the file (see read_fsdp1_defaults):
// a key only older writers wrote (`old_spelling`: an unprefixed key the import renamed, or
// nullptr), and none of a later release; nullptr when there is none.
const entry* written_before_0_21(const import_context& ctx, const entry* old_spelling) {
  const std::string fsdp = "fsdp_config.";
  static const char* const since_0_21[] = {
      "fsdp_use_orig_params",   "fsdp_sync_module_states",
      "fsdp_forward_prefetch",  "fsdp_cpu_ram_efficient_loading",
      "fsdp_backward_prefetch", "fsdp_activation_checkpointing",
      "fsdp_version",           "fsdp_reshard_after_forward"};
  bool newer = false;
  for (const char* key : since_0_21) newer = newer || ctx.find(fsdp + key) != nullptr;
  for (const auto& e : ctx.entries)
    newer = newer || e.key.starts_with("parallelism_config.") || e.key.starts_with("fp8_config.") ||
            e.key.starts_with("dynamo_config.") || e.key == "enable_cpu_affinity";
  if (newer) return nullptr;
  const entry* evidence = old_spelling;
  if (evidence == nullptr) evidence = ctx.find(fsdp + "fsdp_backward_prefetch_policy");
  if (evidence == nullptr) evidence = ctx.find("dynamo_backend");
  return evidence;
}

// The FSDP1 switches a config leaves out take the defaults of the accelerate release that wrote
// it (huggingface/accelerate history): before 0.21 neither `accelerate config` nor `accelerate
// launch` had use_orig_params or sync_module_states (FullyShardedDataParallelPlugin's field of
// 0.18 defaults to False; before that FSDP's own False applies); from 0.21 the config writer
// always writes both; launch's --fsdp_sync_module_states defaults to "true" from 0.22 and
// --fsdp_use_orig_params from 0.25 (commands/launch.py). A file shows a release before 0.21 when
// it has no key of 0.21 or later and one only older writers wrote: an fsdp_config key without
// the fsdp_ prefix (0.10 and 0.11), fsdp_backward_prefetch_policy (0.12 to 0.25, which from 0.21
// also wrote use_orig_params) or a top-level dynamo_backend. Anything else plans the current
// launch defaults, both true. `old_writer` is that evidence (written_before_0_21), or nullptr.
maybe_error read_fsdp1_defaults(import_context& ctx, const entry* old_writer) {
  if (ctx.out.job.parallel.kind != strategy::fsdp1) return std::nullopt;
  const std::string fsdp = "fsdp_config.";
  // No backward prefetch key: in every release launch sets no FSDP_BACKWARD_PREFETCH, the
  // plugin's backward_prefetch stays None (NO_PREFETCH) and prepare_model hands FSDP that
  // None (accelerator.py, "backward_prefetch": fsdp_plugin.backward_prefetch): no prefetch.
  if (ctx.find(fsdp + "fsdp_backward_prefetch") == nullptr &&
      ctx.find(fsdp + "fsdp_backward_prefetch_policy") == nullptr) {
    const entry none = left_out(ctx, "fsdp_config", "none");
    if (auto problem = ctx.set("parallel.backward_prefetch", "none", none); !problem.empty())
      return at(none.where, problem);
    ctx.note("fsdp_config has no fsdp_backward_prefetch: accelerate then gives FSDP none "
             "(backward_prefetch=None), planned without backward prefetch");
  }
  const entry* orig = ctx.find(fsdp + "fsdp_use_orig_params");
  const entry* sync = ctx.find(fsdp + "fsdp_sync_module_states");
  if (orig != nullptr && sync != nullptr) return std::nullopt;
  const entry* evidence = old_writer;
  const bool old = evidence != nullptr;
  entry absent = left_out(ctx, "fsdp_config", "");
  if (old) absent.where = evidence->where;
  const std::string value = old ? "false" : "true";
  std::vector<std::string> set;
  for (const auto& [row, path] : {std::pair{orig, "parallel.use_orig_params"},
                                  std::pair{sync, "parallel.sync_module_states"}}) {
    if (row != nullptr) continue;
    absent.value.text = value;
    if (auto problem = ctx.set(path, value, absent); !problem.empty())
      return at(absent.where, problem);
    set.push_back(std::string(path).substr(std::string("parallel.").size()));
  }
  const std::string names = set.size() == 2 ? set[0] + " and " + set[1] : set[0];
  if (old)
    ctx.note(*evidence, fmt::format("{} is how accelerate before 0.21 wrote its FSDP options, "
                                    "and the file has none of a later release: {} planned false, "
                                    "as accelerate then had no such option and FSDP's default "
                                    "applies", evidence->key, names));
  else
    ctx.note(fmt::format("fsdp_config has no {}: planned true, accelerate launch's default "
                         "(sync_module_states from 0.22, use_orig_params from 0.25)", names));
  return std::nullopt;
}

// fsdp_cpu_ram_efficient_loading: from 0.24 (pull/2037) `accelerate launch` passes
// --fsdp_cpu_ram_efficient_loading, default "true", on as FSDP_CPU_RAM_EFFICIENT_LOADING whatever
// the config leaves out (commands/launch.py; utils/launch.py, prepare_multi_gpu_env), so a file
// without the key loads the weights on rank 0 and builds the others on the meta device, as one
// with `true` does. Launch then raises "When using `--fsdp_cpu_ram_efficient_loading` set
// `--fsdp_sync_module_states` to `True`" when that value is truthy in Python and
// fsdp_sync_module_states is false: a YAML boolean false, not the quoted string, which Python
// reads as true. A file an older release wrote (before 0.21, written_before_0_21) gets neither.
maybe_error read_ram_efficient_default(import_context& ctx, const entry* old_writer) {
  const auto kind = ctx.out.job.parallel.kind;
  if (kind != strategy::fsdp1 && kind != strategy::fsdp2) return std::nullopt;
  if (old_writer != nullptr) return std::nullopt;
  const entry* efficient = ctx.find("fsdp_config.fsdp_cpu_ram_efficient_loading");
  bool on = true;
  if (efficient != nullptr) {
    if (efficient->is_string)
      on = !efficient->value.text.empty();
    else if (!parse_bool_text(efficient->value.text, on).empty())
      return std::nullopt;
  }
  if (const entry* sync = ctx.find("fsdp_config.fsdp_sync_module_states"); sync != nullptr && on) {
    bool synced = true;
    if (!sync->is_string && parse_bool_text(sync->value.text, synced).empty() && !synced)
      return at(sync->where,
                fmt::format("fsdp_sync_module_states false beside {}: accelerate launch stops "
                            "(\"When using `--fsdp_cpu_ram_efficient_loading` set "
                            "`--fsdp_sync_module_states` to `True`\", utils/launch.py), as rank "
                            "0's weights reach the other ranks only by that broadcast; write "
                            "fsdp_sync_module_states: true, or fsdp_cpu_ram_efficient_loading: "
                            "false, to plan it",
                            efficient == nullptr
                                ? "no fsdp_cpu_ram_efficient_loading (launch's default true)"
                                : "fsdp_cpu_ram_efficient_loading " + efficient->value.text));
  }
  if (efficient != nullptr) return std::nullopt;
  return set_left_out(
      ctx, "fsdp_config", "true", {{"init.meta_device", "true"}, {"init.load", "rank0"}},
      "fsdp_config has no fsdp_cpu_ram_efficient_loading: accelerate launch's default true "
      "(from 0.24): rank 0 loads the weights and the other ranks start on the meta device "
      "(planned with init.load rank0)");
}

// No fsdp_auto_wrap_policy (or no fsdp_config at all): launch's --fsdp_auto_wrap_policy defaults
// to None and sets no FSDP_AUTO_WRAP_POLICY, and FullyShardedDataParallelPlugin then takes
// "NO_WRAP" (utils/dataclasses.py, __post_init__; set_auto_wrap_policy from 0.12 on): FSDP1
// wraps the whole model as one unit, and FSDP2 calls fully_shard on the root module only
// (fsdp2_prepare_auto_wrap_policy returns None). A class list without a policy is not read.
maybe_error read_fsdp_wrap_default(import_context& ctx) {
  const auto kind = ctx.out.job.parallel.kind;
  if (kind != strategy::fsdp1 && kind != strategy::fsdp2) return std::nullopt;
  if (ctx.find("fsdp_config.fsdp_auto_wrap_policy") != nullptr) return std::nullopt;
  return set_left_out(
      ctx, "fsdp_config", "NO_WRAP", {{"parallel.wrap", "none"}},
      "no fsdp_config.fsdp_auto_wrap_policy: accelerate's FSDP plugin then takes NO_WRAP, so the "
      "whole model is one FSDP unit (planned with parallel.wrap none); write "
      "fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP for one unit per block");
}

// No fsdp_state_dict_type: launch sets no FSDP_STATE_DICT_TYPE and FullyShardedDataParallelPlugin
// takes FULL_STATE_DICT under FSDP1 and SHARDED_STATE_DICT under FSDP2 (utils/dataclasses.py,
// __post_init__), the full one with offload_to_cpu and rank0_only on, as checkpoint.save full
// plans it by default: that is how the plugin's save_state and save_model save.
maybe_error read_state_dict_default(import_context& ctx) {
  const auto kind = ctx.out.job.parallel.kind;
  if (!is_fsdp(kind)) return std::nullopt;
  if (ctx.find("fsdp_config.fsdp_state_dict_type") != nullptr) return std::nullopt;
  const bool v1 = kind == strategy::fsdp1;
  return set_left_out(
      ctx, "fsdp_config", v1 ? "FULL_STATE_DICT" : "SHARDED_STATE_DICT",
      {{"checkpoint.save", v1 ? "full" : "sharded"}},
      v1 ? "no fsdp_config.fsdp_state_dict_type: accelerate's FSDP plugin saves FULL_STATE_DICT "
           "under FSDP1 (each unit gathered, offloaded to rank 0's host memory), planned with "
           "checkpoint.save full"
         : "no fsdp_config.fsdp_state_dict_type: accelerate's FSDP plugin saves "
           "SHARDED_STATE_DICT under FSDP2, planned with checkpoint.save sharded");
}

// ZeRO stage 3 with no zero3_init_flag: DeepSpeedPlugin.__post_init__ takes it from
// ACCELERATE_DEEPSPEED_ZERO3_INIT, which accelerate launch exports only for a flag the file (or
// the command line) gives, else from hf_ds_config.is_zero3(), true at stage 3
// (utils/dataclasses.py since e60f3cab, 0.16, 2023-01): zero.Init partitions the parameters as
// the model is built, planned as meta-device initialisation as the flag itself is.
maybe_error read_zero3_init_default(import_context& ctx) {
  if (ctx.out.job.parallel.kind != strategy::zero3) return std::nullopt;
  const entry* type = ctx.find("distributed_type");
  if (type == nullptr || upper(type->value.text) != "DEEPSPEED") return std::nullopt;
  if (ctx.find("deepspeed_config.zero3_init_flag") != nullptr) return std::nullopt;
  return set_left_out(
      ctx, "deepspeed_config", "true", {{"init.meta_device", "true"}},
      "deepspeed_config has no zero3_init_flag: accelerate's DeepSpeed plugin turns it on at "
      "ZeRO stage 3 (from 0.16), so zero.Init partitions the parameters as the model is built "
      "(planned as meta-device initialisation); write zero3_init_flag: false to plan it off");
}

// The DeepSpeed JSON a deepspeed_config_file names, read and checked as DeepSpeedPlugin does
// when the training script builds it (the file, then the YAML keys it makes void): a failure
// of the launch itself, so it is looked at before the process count. No file named: nullopt.
struct deepspeed_file {
  std::string text;
  std::string path;
};

result<std::optional<deepspeed_file>> load_deepspeed_file(import_context& ctx,
                                                          const std::string& base_dir) {
  const entry* e = named_deepspeed_file(ctx);
  if (const entry* none = ctx.find("deepspeed_config.deepspeed_config_file");
      none != nullptr && e == nullptr)
    ctx.note(*none,
             "deepspeed_config_file: none is accelerate's word for no file (DeepSpeed's "
             "plugin reads any other value as a config): the deepspeed_config keys are "
             "read");
  // The empty string (not YAML's null): launch passes it on (ACCELERATE_DEEPSPEED_CONFIG_FILE=""),
  // and DeepSpeedPlugin reads every value but "none" as a config (utils/dataclasses.py,
  // __post_init__), which HfDeepSpeedConfig("") finds neither as a file nor as base64 JSON.
  if (e != nullptr && e->value.text.empty() && e->is_string)
    return at(e->where,
              "deepspeed_config_file is the empty string: accelerate passes it to DeepSpeed's "
              "plugin, which reads any value but \"none\" as a config and stops (\"Expected a "
              "string path to an existing deepspeed config\"); write the DeepSpeed JSON's path, "
              "or remove the key, to plan it");
  if (e == nullptr || e->value.text.empty()) return std::optional<deepspeed_file>();
  const std::filesystem::path given(e->value.text);
  std::string path = e->value.text;
  std::error_code unreadable;  // the non-throwing overload: a bad path is read_file's to report
  if (given.is_relative() && !base_dir.empty() &&
      std::filesystem::exists(std::filesystem::path(base_dir) / given, unreadable))
    path = (std::filesystem::path(base_dir) / given).string();
  auto text = read_file(path);
  if (!text)
    return at(e->where, fmt::format("deepspeed_config_file: {}; put the DeepSpeed JSON there (a "
                                    "relative path is read from the config's folder, then the "
                                    "working directory) to plan it",
                                    text.error().to_string()));
  // Beside a deepspeed_config_file, accelerate launch lists the deepspeed_config keys the YAML
  // also sets, and mixed_precision when the YAML gives one, in ACCELERATE_CONFIG_DS_FIELDS
  // (commands/launch.py), and DeepSpeedPlugin, once it has read the file, raises "When using
  // `deepspeed_config_file`, the following accelerate config variables will be ignored" for any
  // of these (utils/dataclasses.py, _deepspeed_config_checks; since huggingface/accelerate
  // e60f3cab, 0.16, 2022-12).
  const entry* twice = nullptr;
  for (const char* key :
       {"mixed_precision", "deepspeed_config.gradient_accumulation_steps",
        "deepspeed_config.gradient_clipping", "deepspeed_config.zero_stage",
        "deepspeed_config.offload_optimizer_device", "deepspeed_config.offload_param_device",
        "deepspeed_config.offload_param_nvme_path", "deepspeed_config.offload_optimizer_nvme_path",
        "deepspeed_config.zero3_save_16bit_model"}) {
    const entry* x = ctx.find(key);
    if (x == nullptr || (x->key == "mixed_precision" && x->value.text.empty())) continue;
    if (twice == nullptr || x->where.line < twice->where.line) twice = x;
  }
  if (twice != nullptr)
    return at(twice->where,
              fmt::format("{} beside deepspeed_config_file (line {}): accelerate's DeepSpeed "
                          "plugin stops (\"When using `deepspeed_config_file`, the following "
                          "accelerate config variables will be ignored\"); write it in the "
                          "DeepSpeed JSON and remove it here to plan it",
                          twice->key, e->where.line));
  return std::optional<deepspeed_file>(deepspeed_file{std::move(*text), path});
}

// accelerate launch loads the file with ClusterConfig.from_yaml_file (SageMakerConfig's under
// compute_environment AMAZON_SAGEMAKER; commands/config/config_args.py), which first runs
// process_config: `if "distributed_type" not in config_dict: raise ValueError("A
// `distributed_type` must be specified in the config file.")` (since huggingface/accelerate
// #3029, 2024-08), and then rejects every top-level key that is no field of the dataclass
// ("had unknown keys", the extra_keys check). The fields of both dataclasses over the releases
// (0.12 to 1.12: tp_config and parallelism_config came and went; fp16 and dynamo_backend are
// converted by process_config before the check; use_mps_device was a field before 0.20).
std::optional<diagnostic> cluster_config_keys(const YAML::Node& root, const std::string& source,
                                              std::string_view text) {
  static const std::set<std::string> fields{
      // BaseConfig
      "compute_environment", "distributed_type", "mixed_precision", "use_cpu", "debug",
      "use_mps_device", "fp16", "dynamo_backend",
      // ClusterConfig
      "num_processes", "machine_rank", "num_machines", "gpu_ids", "main_process_ip",
      "main_process_port", "rdzv_backend", "same_network", "main_training_function",
      "enable_cpu_affinity", "fp8_config", "deepspeed_config", "fsdp_config", "tp_config",
      "megatron_lm_config", "ipex_config", "mpirun_config", "parallelism_config", "downcast_bf16",
      "tpu_name", "tpu_zone", "tpu_use_cluster", "tpu_use_sudo", "command_file", "commands",
      "tpu_vm", "tpu_env", "dynamo_config",
      // SageMakerConfig
      "ec2_instance_type", "iam_role_name", "image_uri", "profile", "region", "base_job_name",
      "pytorch_version", "transformers_version", "py_version", "sagemaker_inputs_file",
      "sagemaker_metrics_file", "additional_args"};
  const diagnostic none{source, 0, 0, "", ""};
  if (!root["distributed_type"]) {
    // Where it was meant to be: a commented-out `distributed_type:` line, else the first line.
    int line = 1;
    for_each_line(text, [&](std::string_view row, int number) {
      const auto hash = row.find_first_not_of(" \t");
      if (hash == std::string_view::npos || row[hash] != '#') return true;
      const auto name = row.find_first_not_of(" \t#", hash);
      if (name == std::string_view::npos || !row.substr(name).starts_with("distributed_type"))
        return true;
      line = number;
      return false;
    });
    return at(location(source, text, line, 1),
              line > 1 ? "distributed_type is commented out: accelerate launch refuses a config "
                         "file without it (\"A `distributed_type` must be specified in the "
                         "config file.\", config_args.py, process_config); write "
                         "distributed_type: (NO, MULTI_GPU, FSDP, DEEPSPEED or MEGATRON_LM) to "
                         "plan it"
                       : "the file has no distributed_type: accelerate launch refuses a config "
                         "file without it (\"A `distributed_type` must be specified in the "
                         "config file.\", config_args.py, process_config); write "
                         "distributed_type: (NO, MULTI_GPU, FSDP, DEEPSPEED or MEGATRON_LM) to "
                         "plan it");
  }
  // load_config_from_file reads a compute_environment other than LOCAL_MACHINE as a
  // SageMakerConfig, whose ComputeEnvironment (utils/dataclasses.py: LOCAL_MACHINE,
  // AMAZON_SAGEMAKER) refuses any other value and whose required fields (ec2_instance_type,
  // iam_role_name) a cluster file lacks: the launch fails there.
  if (const YAML::Node env = root["compute_environment"]; env && env.IsScalar() &&
                                                          env.Scalar() != "LOCAL_MACHINE" &&
                                                          env.Scalar() != "AMAZON_SAGEMAKER")
    return at(location(source, text, env, none),
              fmt::format("compute_environment: {} is none of accelerate's (LOCAL_MACHINE, "
                          "AMAZON_SAGEMAKER; ComputeEnvironment): accelerate launch reads the "
                          "file as a SageMaker config and fails; write LOCAL_MACHINE (a cluster "
                          "job on its machines is one) to plan it",
                          env.Scalar()));
  for (const auto& item : root) {
    const std::string key = item.first.IsScalar() ? item.first.Scalar() : "";
    if (fields.contains(key)) continue;
    std::string where_instead;
    if (key.starts_with("deepspeed"))
      where_instead = " (DeepSpeed's options go under deepspeed_config:)";
    else if (key.starts_with("fsdp"))
      where_instead = " (FSDP's options go under fsdp_config:)";
    else if (key.starts_with("megatron_lm"))
      where_instead = " (Megatron-LM's options go under megatron_lm_config:)";
    return at(location(source, text, item.first, none),
              fmt::format("{}: accelerate launch refuses a config file with a top-level key that "
                          "is no field of its ClusterConfig (\"had unknown keys\", "
                          "config_args.py, from_yaml_file){}; remove the key or move it into its "
                          "section to plan it",
                          key, where_instead));
  }
  // gpu_ids on one machine becomes CUDA_VISIBLE_DEVICES (utils/launch.py, prepare_multi_gpu_env
  // and prepare_deepspeed_cmd_env), and each of num_processes processes takes the device of its
  // local rank: with fewer GPUs listed than processes, a process finds no device (torch's
  // "invalid device ordinal") and the launch fails.
  const YAML::Node ids = root["gpu_ids"];
  const YAML::Node processes = root["num_processes"];
  const YAML::Node machines = root["num_machines"];
  if (ids && ids.IsScalar() && processes && processes.IsScalar() &&
      (!machines || (machines.IsScalar() && machines.Scalar() == "1"))) {
    const std::string list = ids.Scalar();
    long long count = list.empty() || list == "all" ? 0 : 1;
    for (const char c : list) {
      if (c == ',') ++count;
      if (c != ',' && c != ' ' && std::isdigit(static_cast<unsigned char>(c)) == 0) count = 0;
      if (count == 0) break;
    }
    char* end = nullptr;
    const long long n = std::strtoll(processes.Scalar().c_str(), &end, 10);
    if (count > 0 && end != nullptr && *end == '\0' && n > count)
      return at(location(source, text, ids, none),
                fmt::format("gpu_ids {} lists {} GPU(s) for num_processes {} (line {}): "
                            "accelerate makes them CUDA_VISIBLE_DEVICES, and the processes past "
                            "the {} listed find no GPU, so the launch fails; list a GPU for "
                            "every process, or lower num_processes, to plan it",
                            list, count, n, processes.Mark().line + 1, count));
  }
  return std::nullopt;
}

}  // namespace

const std::vector<option>& accelerate_options() { return accelerate_table(); }

}  // namespace detail

result<imported_job> import_accelerate(std::string_view text, const std::string& source,
                                       const std::string& base_dir, const trainer_args& trainer) {
  auto parsed = detail::parse_yaml(source, text);
  if (!parsed) return detail::with_remedy(parsed.error(), detail::syntax_remedy);
  const YAML::Node& root = *parsed;
  if (!root.IsMap()) return error_at(source, "expected a YAML map of accelerate options");
  // accelerate's sections are maps of options; one written as a value (or an alias to one) is
  // a broken config, not a set of unknown options to skip. Except deepspeed_config written as a
  // path (`deepspeed_config: ./ds.json`, for deepspeed_config: {deepspeed_config_file: ...}):
  // accelerate launch copies only map-valued ClusterConfig fields onto its arguments
  // (commands/launch.py, _validate_launch_command), so the string is never read; under
  // distributed_type DEEPSPEED, launch_command then calls defaults.deepspeed_config.keys() on it
  // and fails (huggingface/accelerate 16cb6eb8).
  std::optional<diagnostic> deepspeed_path;
  std::string deepspeed_path_text;
  for (const auto& item : root) {
    const std::string key = item.first.IsScalar() ? item.first.Scalar() : "";
    const bool section = key == "fsdp_config" || key == "deepspeed_config" ||
                         key == "megatron_lm_config" || key == "dynamo_config" ||
                         key == "fp8_config" || key == "ipex_config" || key == "mpirun_config" ||
                         key == "parallelism_config";
    const YAML::Node& value = item.second;
    if (key == "deepspeed_config" && value.IsScalar()) {
      deepspeed_path = detail::location(source, text, item.first, {source, 0, 0, "", ""});
      deepspeed_path_text = value.Scalar();
      continue;
    }
    if (section && !value.IsMap() && !value.IsNull())
      return detail::at(detail::location(source, text, item.first, {source, 0, 0, "", ""}),
                        fmt::format("{}: expected a map of options, got {}", key,
                                    value.IsSequence() ? "a list" : "\"" + value.Scalar() + "\""));
  }
  if (auto d = detail::template_placeholder(root, source, text, "accelerate")) return *d;
  detail::import_context ctx("accelerate", source);
  ctx.trainer = trainer;
  if (!detail::flatten_yaml(root, "", ctx, text))
    return error_at(source, fmt::format("more than {} options or {} levels of nesting: not an "
                                        "accelerate config", detail::max_yaml_entries,
                                        detail::max_yaml_depth));
  if (auto err = detail::cluster_config_keys(root, source, text)) return *err;
  // A key written twice: accelerate reads the file with PyYAML (yaml.safe_load), which keeps the
  // last one. A section written twice is replaced whole by the later mapping: the earlier one's
  // keys are not read, also those the later one does not repeat.
  {
    std::map<std::string, std::vector<int>, std::less<>> lines;
    for (const auto& item : root)
      if (item.first.IsScalar() && item.second.IsMap())
        lines[item.first.Scalar()].push_back(item.first.Mark().line + 1);
    for (const auto& written : lines) {
      // Named, not a structured binding: the lambdas below capture it (clang 14 cannot).
      const std::string& key = written.first;
      const std::vector<int>& at = written.second;
      if (at.size() < 2) continue;
      const int last = at.back();
      std::vector<std::string> dropped;
      std::erase_if(ctx.entries, [&](const detail::entry& e) {
        const bool earlier = e.key.starts_with(key + ".") && e.where.line < last;
        if (earlier) dropped.push_back(e.key.substr(key.size() + 1));
        return earlier;
      });
      std::vector<std::string> only;  // keys the later mapping does not write again
      for (const auto& d : dropped)
        if (std::none_of(ctx.entries.begin(), ctx.entries.end(),
                         [&](const detail::entry& e) { return e.key == key + "." + d; }))
          only.push_back(d);
      const auto later = std::find_if(ctx.entries.begin(), ctx.entries.end(),
                                      [&](const auto& e) { return e.key.starts_with(key + "."); });
      if (!only.empty() && later != ctx.entries.end())
        ctx.note(*later,
                 fmt::format("{} is written twice (lines {} and {}): PyYAML keeps the later "
                             "mapping whole, so {} of the earlier one {} not read",
                             key, at.front(), last, fmt::join(only, ", "),
                             only.size() == 1 ? "is" : "are"));
    }
  }
  for (std::size_t i = ctx.entries.size(); i-- > 0;) {
    const auto& later = ctx.entries[i];
    for (std::size_t j = 0; j < i; ++j) {
      if (ctx.entries[j].key != later.key) continue;
      ctx.note(later, fmt::format("{} is written twice (lines {} and {}): accelerate reads the "
                                  "file with PyYAML, which keeps the last",
                                  later.key, ctx.entries[j].where.line, later.where.line));
      ctx.entries.erase(ctx.entries.begin() + static_cast<std::ptrdiff_t>(j));
      --i;
      break;
    }
  }
  // accelerate launch gives an fsdp_config key without the fsdp prefix one
  // (commands/launch.py, _validate_launch_command: `if name == "fsdp_config" and not
  // key.startswith("fsdp"): key = "fsdp_" + key`), so `sync_module_states` is
  // fsdp_sync_module_states. A key that is no option with the prefix either keeps its spelling.
  std::optional<detail::entry> unprefixed;  // as accelerate config wrote it before 0.12
  for (auto& e : ctx.entries) {
    const std::string section = "fsdp_config.";
    if (!e.key.starts_with(section) || e.key.compare(section.size(), 4, "fsdp") == 0) continue;
    const std::string prefixed = section + "fsdp_" + e.key.substr(section.size());
    const auto& table = detail::accelerate_table();
    if (!std::any_of(table.begin(), table.end(),
                     [&](const detail::option& row) { return row.key == prefixed; }))
      continue;
    if (!unprefixed) unprefixed = e;
    e.key = prefixed;
  }
  if (deepspeed_path) {
    std::erase_if(ctx.entries, [](const detail::entry& e) { return e.key == "deepspeed_config"; });
    const detail::entry* type = ctx.find("distributed_type");
    if (type != nullptr && detail::upper(type->value.text) == "DEEPSPEED")
      return detail::at(*deepspeed_path,
                        fmt::format("deepspeed_config: \"{}\" is a path, where accelerate expects "
                                    "a map of options: accelerate launch copies only a map onto "
                                    "its arguments and then fails on the string under "
                                    "distributed_type DEEPSPEED; write deepspeed_config: "
                                    "{{deepspeed_config_file: {}}} to plan it",
                                    deepspeed_path_text, deepspeed_path_text));
    diagnostic note = *deepspeed_path;
    note.message = fmt::format("deepspeed_config: \"{}\" is a path, where accelerate expects a "
                               "map of options: accelerate launch copies only a map onto its "
                               "arguments, so the file is not read, and distributed_type {} "
                               "does not run DeepSpeed",
                               deepspeed_path_text, type != nullptr ? type->value.text : "(none)");
    ctx.out.notes.push_back(std::move(note));
  }
  // accelerate launch copies fsdp_config and deepspeed_config onto its arguments whatever the
  // distributed_type, but reads the FSDP ones only with use_fsdp (distributed_type FSDP) and the
  // DeepSpeed ones only with use_deepspeed (DEEPSPEED) (commands/launch.py, launch_command and
  // _validate_launch_command; huggingface/accelerate 16cb6eb8): another type's section has no
  // effect.
  if (const detail::entry* type = ctx.find("distributed_type")) {
    const std::string kind = detail::upper(type->value.text);
    // A name accelerate does not have stays, to be reported as unknown.
    const auto& table = detail::accelerate_table();
    using section_owner = std::pair<std::string, std::string>;
    for (const section_owner& pair :
         {section_owner{"fsdp_config.", "FSDP"}, section_owner{"deepspeed_config.", "DEEPSPEED"},
          section_owner{"megatron_lm_config.", "MEGATRON_LM"}}) {
      // Named, not a structured binding: the lambdas below capture them (clang 14 cannot).
      const std::string& section = pair.first;
      const std::string& owner = pair.second;
      if (kind == owner) continue;
      const auto of_section = [&](const detail::entry& e) {
        return e.key.starts_with(section) &&
               std::any_of(table.begin(), table.end(), [&](const detail::option& row) {
                 return detail::option_matches(row.key, e.key);
               });
      };
      const auto unused = std::count_if(ctx.entries.begin(), ctx.entries.end(), of_section);
      if (unused == 0) continue;
      // Written empty (null), the type runs one plain process (read_strategy); a file that fills
      // a strategy's section beside it meant that strategy, which never runs: refused.
      if (detail::null_distributed_type(*type)) {
        const auto first = std::find_if(ctx.entries.begin(), ctx.entries.end(), of_section);
        return detail::at(
            type->where,
            fmt::format("distributed_type is empty (null), but the file fills {} "
                        "(line {}): accelerate launch matches no type and runs one "
                        "plain process, dropping that section; set distributed_type "
                        "to {} (or NO) to plan it",
                        section.substr(0, section.size() - 1), first->where.line, owner));
      }
      ctx.note(*type, fmt::format("distributed_type {}: accelerate reads {} only under "
                                  "distributed_type {}, so its {} option(s) have no effect",
                                  type->value.text, section.substr(0, section.size() - 1), owner,
                                  unused));
      std::erase_if(ctx.entries, [&](const detail::entry& e) {
        if (!of_section(e)) return false;
        ctx.ignore(e);
        return true;
      });
    }
  }
  bool has_world_size = false;
  if (auto err = detail::read_strategy(ctx)) return *err;
  auto ds_file = detail::load_deepspeed_file(ctx, base_dir);
  if (!ds_file) return ds_file.error();
  // The launch's process count before the JSON is read: DeepSpeed's world size, from which it
  // derives what the JSON leaves out of train_batch_size = micro batch x accumulation x world.
  if (auto err = detail::read_processes(ctx, has_world_size)) return *err;
  if (*ds_file)
    if (auto err = detail::read_deepspeed(ctx, (*ds_file)->text, (*ds_file)->path, has_world_size))
      return *err;
  if (auto err = detail::read_mixed_precision(ctx)) return *err;
  if (auto err = detail::read_megatron_lm_defaults(ctx)) return *err;
  // The evidence of a writer before 0.21, whose defaults the FSDP keys it leaves out take.
  const detail::entry* old_writer =
      detail::written_before_0_21(ctx, unprefixed ? &*unprefixed : nullptr);
  if (auto err = detail::read_fsdp1_defaults(ctx, old_writer)) return *err;
  if (auto err = detail::read_ram_efficient_default(ctx, old_writer)) return *err;
  if (auto err = detail::read_fsdp_wrap_default(ctx)) return *err;
  if (auto err = detail::read_state_dict_default(ctx)) return *err;
  if (auto err = detail::read_zero3_init_default(ctx)) return *err;
  if (auto err = detail::apply_options(ctx, detail::accelerate_table())) return *err;
  return detail::finish(ctx, has_world_size);
}

}  // namespace vramscope::job
