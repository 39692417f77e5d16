#include "job/field_table.hpp"

#include <vramscope/job/job_names.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace vramscope::job::detail {

namespace {

constexpr int max_ranks = 1 << 20;

template <typename T>
field make(std::string path, T job_spec::*member, codec<T> c) {
  field f;
  f.path = std::move(path);
  f.expects = c.expects;
  f.allowed = c.allowed;
  f.choices = c.choices;
  f.set = [member, parse = c.parse](job_spec& j, const raw_value& v) { return parse(v, j.*member); };
  f.get = [member, show = c.show](const job_spec& j) { return show(j.*member); };
  f.copy = [member](job_spec& dst, const job_spec& src) { dst.*member = src.*member; };
  return f;
}

template <typename S, typename T>
field make(std::string path, S job_spec::*section, T S::*member, codec<T> c) {
  field f;
  f.path = std::move(path);
  f.expects = c.expects;
  f.allowed = c.allowed;
  f.choices = c.choices;
  f.set = [section, member, parse = c.parse](job_spec& j, const raw_value& v) {
    return parse(v, (j.*section).*member);
  };
  f.get = [section, member, show = c.show](const job_spec& j) { return show((j.*section).*member); };
  f.copy = [section, member](job_spec& dst, const job_spec& src) {
    (dst.*section).*member = (src.*section).*member;
  };
  return f;
}

// `model`: a name or path (the string), or an inline config, which the JSON writer shows as the
// object it is. Setting a name drops an inline config; copying copies both.
field model_field() {
  field f = make("model", &job_spec::model, string_codec());
  f.set = [parse = f.set](job_spec& j, const raw_value& v) {
    job_spec named;  // parsed aside, so that a failure leaves the inline config in place
    std::string problem = parse(named, v);
    if (!problem.empty()) return problem;
    j.model_config.clear();
    j.model = std::move(named.model);
    return problem;
  };
  f.get = [](const job_spec& j) {
    if (j.model_config.empty()) return nlohmann::json(j.model);
    nlohmann::json object = nlohmann::json::object();
    for (const auto& k : j.model_config) object[k.key] = nlohmann::json::parse(k.json, nullptr, false);
    return object;
  };
  f.copy = [](job_spec& dst, const job_spec& src) {
    dst.model = src.model;
    dst.model_config = src.model_config;
  };
  return f;
}

// "fsdp" alone names two different wrappers with different memory behaviour: refuse it.
codec<strategy> strategy_codec() {
  codec<strategy> c = enum_codec<strategy>();
  c.parse = [inner = c.parse](const raw_value& v, strategy& out) -> std::string {
    const std::string key = v.is_list ? "" : normalize_name(v.text);
    if (key == "fsdp")
      return "\"fsdp\" is ambiguous: use fsdp1 (FullyShardedDataParallel) or fsdp2 (fully_shard)";
    if (key == "zero" || key == "deepspeed")
      return fmt::format("\"{}\" needs a ZeRO stage: use zero1, zero2 or zero3", v.text);
    return inner(v, out);
  };
  return c;
}

struct precision_preset {
  std::string_view name;
  dtype params, master, reduce, buffers;
  bool autocast;
};

// The shorthands of docs/job-spec.md ("precision: bf16-mixed"). The first spellings follow
// Lightning's precision flags; "bf16-param" is FSDP MixedPrecision(param_dtype=bf16,
// reduce_dtype=fp32), torchtitan's default.
constexpr std::array<precision_preset, 10> precision_presets{{
    {"fp32", dtype::f32, dtype::f32, dtype::f32, dtype::f32, false},
    {"bf16-true", dtype::bf16, dtype::bf16, dtype::bf16, dtype::bf16, false},
    {"fp16-true", dtype::f16, dtype::f16, dtype::f16, dtype::f16, false},
    {"bf16-mixed", dtype::bf16, dtype::f32, dtype::f32, dtype::f32, true},
    {"fp16-mixed", dtype::f16, dtype::f32, dtype::f32, dtype::f32, true},
    {"bf16-param", dtype::bf16, dtype::f32, dtype::f32, dtype::f32, false},
    {"32-true", dtype::f32, dtype::f32, dtype::f32, dtype::f32, false},
    {"16-true", dtype::f16, dtype::f16, dtype::f16, dtype::f16, false},
    {"16-mixed", dtype::f16, dtype::f32, dtype::f32, dtype::f32, true},
    {"fp32-true", dtype::f32, dtype::f32, dtype::f32, dtype::f32, false},
}};

field precision_shorthand() {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < 6; ++i) names.emplace_back(precision_presets[i].name);
  field f;
  f.path = "precision";
  f.expects = "a map or one of: " + join(names);
  f.allowed = "one of: " + join(names) + " (sets the precision.* fields)";
  f.choices = names;
  f.set = [names](job_spec& j, const raw_value& v) -> std::string {
    for (const auto& p : precision_presets) {
      if (v.is_list || normalize_name(p.name) != normalize_name(v.text)) continue;
      j.precision = {p.params, p.master, p.reduce, p.buffers, p.autocast};
      return "";
    }
    if (v.is_list) return "expected a map or one of: " + join(names) + ", got a list";
    return fmt::format("invalid value \"{}\" (expected a map or one of: {})", v.text, join(names));
  };
  f.get = [](const job_spec&) { return nlohmann::json(); };
  f.copy = [](job_spec& dst, const job_spec& src) { dst.precision = src.precision; };
  f.written = false;
  return f;
}

field optimizer_shorthand() {
  field f = make("optimizer", &job_spec::optimizer, &optimizer_spec::kind,
                 enum_codec<optimizer_kind>());
  f.expects = "a map or " + f.expects;
  f.allowed += " (sets optimizer.name)";
  f.written = false;
  return f;
}

field sized(field f) {
  f.is_size = true;
  return f;
}

field listed(field f) {
  f.is_list = true;
  return f;
}

std::vector<field> build_table() {
  const std::vector<dtype> float_types{dtype::f32, dtype::bf16, dtype::f16};
  const std::vector<dtype> quant_types{dtype::i8, dtype::nf4, dtype::int4};
  using j = job_spec;
  using hw = hardware_spec;
  using par = parallel_spec;
  using pre = precision_spec;
  using opt = optimizer_spec;
  using tr = training_spec;
  using lo = lora_spec;
  using in = init_spec;
  using fw = framework_spec;
  return {
      model_field(),
      make("hardware.gpu", &j::hardware, &hw::gpu, string_codec()),
      sized(make("hardware.gpu_memory", &j::hardware, &hw::capacity, size_codec(MiB))),
      sized(make("hardware.driver_reserved", &j::hardware, &hw::driver_reserved, size_codec())),
      make("hardware.margin", &j::hardware, &hw::margin, margin_codec()),
      make("hardware.compute_capability", &j::hardware, &hw::compute_capability,
           compute_capability_codec()),
      make("hardware.gpus_per_node", &j::hardware, &hw::gpus_per_node, int_codec(1, 1024)),
      make("hardware.nodes", &j::hardware, &hw::nodes, int_codec(1, 100000)),
      make("parallel.strategy", &j::parallel, &par::kind, strategy_codec()),
      make("parallel.dp_replicate", &j::parallel, &par::dp_replicate, int_codec(1, max_ranks)),
      make("parallel.dp_shard", &j::parallel, &par::dp_shard, int_codec(0, max_ranks)),
      make("parallel.tp", &j::parallel, &par::tp, int_codec(1, 1024)),
      make("parallel.sequence_parallel", &j::parallel, &par::sequence_parallel, bool_codec()),
      make("parallel.tp_embedding", &j::parallel, &par::tp_embedding, bool_codec()),
      make("parallel.tp_head", &j::parallel, &par::tp_head, bool_codec()),
      make("parallel.loss_parallel", &j::parallel, &par::loss_parallel, optional_bool_codec()),
      make("parallel.pp", &j::parallel, &par::pp, int_codec(1, 1024)),
      make("parallel.pp_schedule", &j::parallel, &par::pp_sched, enum_codec<pp_schedule>()),
      make("parallel.pp_stages_per_rank", &j::parallel, &par::pp_stages_per_rank, int_codec(0, 64)),
      make("parallel.pp_layers_per_stage", &j::parallel, &par::pp_layers_per_stage,
           int_codec(0, 1024)),
      make("parallel.cp", &j::parallel, &par::cp, int_codec(1, 1024)),
      make("parallel.ep", &j::parallel, &par::ep, int_codec(1, 1024)),
      make("parallel.etp", &j::parallel, &par::etp, int_codec(0, 1024)),
      make("parallel.fsdp_sharding", &j::parallel, &par::fsdp_sharding, enum_codec<sharding>()),
      make("parallel.backward_prefetch", &j::parallel, &par::backward_prefetch,
           enum_codec<prefetch>()),
      make("parallel.forward_prefetch", &j::parallel, &par::forward_prefetch, bool_codec()),
      make("parallel.limit_all_gathers", &j::parallel, &par::limit_all_gathers, bool_codec()),
      make("parallel.use_orig_params", &j::parallel, &par::use_orig_params, bool_codec()),
      make("parallel.sync_module_states", &j::parallel, &par::sync_module_states, bool_codec()),
      make("parallel.device_id", &j::parallel, &par::device_id, bool_codec()),
      make("parallel.wrap", &j::parallel, &par::wrap, choice_codec({"block", "none"})),
      listed(make("parallel.shard_separately", &j::parallel, &par::shard_separately,
                  list_codec(true))),
      make("parallel.reshard_after_forward", &j::parallel, &par::reshard_after_forward,
           reshard_codec()),
      make("parallel.no_sync", &j::parallel, &par::no_sync, bool_codec()),
      make("parallel.cpu_offload", &j::parallel, &par::cpu_offload, bool_codec()),
      make("parallel.float8_all_gather", &j::parallel, &par::float8_all_gather, bool_codec()),
      make("parallel.async_tp", &j::parallel, &par::async_tp, bool_codec()),
      make("parallel.offload_optimizer", &j::parallel, &par::offload_optimizer, bool_codec()),
      make("parallel.offload_param", &j::parallel, &par::offload_param, bool_codec()),
      make("parallel.bucket_cap_mb", &j::parallel, &par::bucket_cap_mb,
           optional_real_codec(0, 1e6)),
      make("parallel.gradient_as_bucket_view", &j::parallel, &par::gradient_as_bucket_view,
           bool_codec()),
      make("parallel.static_graph", &j::parallel, &par::static_graph, bool_codec()),
      make("parallel.distributed_optimizer", &j::parallel, &par::distributed_optimizer,
           bool_codec()),
      make("parallel.reduce_bucket_size", &j::parallel, &par::reduce_bucket_size,
           count_codec(1, 10'000'000'000'000)),
      // 0 is DeepSpeed's own "every parameter a sub-group of its own" (stage3.py,
      // _create_fp16_sub_groups closes a group once it holds sub_group_size elements); configs
      // write 1e14 and more for "one group" (transformers' ds_config_zero3.json).
      make("parallel.sub_group_size", &j::parallel, &par::sub_group_size,
           count_codec(0, 1'000'000'000'000'000'000)),
      make("parallel.allgather_bucket_size", &j::parallel, &par::allgather_bucket_size,
           count_codec(1, 10'000'000'000'000)),
      // 0, as DeepSpeed's ZeRO-3 templates write them: nothing prefetched ahead of the module in
      // use, no gathered parameter kept beyond the ones in use.
      make("parallel.prefetch_bucket_size", &j::parallel, &par::prefetch_bucket_size,
           count_codec(0, 10'000'000'000'000)),
      make("parallel.max_live_parameters", &j::parallel, &par::max_live_parameters,
           count_codec(0, 10'000'000'000'000)),
      make("parallel.contiguous_gradients", &j::parallel, &par::contiguous_gradients, bool_codec()),
      make("parallel.fsdp_devices", &j::parallel, &par::fsdp_devices, int_codec(1, max_ranks)),
      precision_shorthand(),
      make("precision.params", &j::precision, &pre::params, dtype_codec(float_types)),
      make("precision.master", &j::precision, &pre::master, dtype_codec(float_types)),
      make("precision.reduce", &j::precision, &pre::reduce, dtype_codec(float_types)),
      make("precision.buffers", &j::precision, &pre::buffers, dtype_codec(float_types)),
      make("precision.autocast", &j::precision, &pre::autocast, bool_codec()),
      make("precision.float8", &j::precision, &pre::float8, enum_codec<float8_recipe>()),
      optimizer_shorthand(),
      make("optimizer.name", &j::optimizer, &opt::kind, enum_codec<optimizer_kind>()),
      make("optimizer.state", &j::optimizer, &opt::state, dtype_codec(float_types)),
      make("optimizer.fused", &j::optimizer, &opt::fused, bool_codec()),
      make("optimizer.foreach", &j::optimizer, &opt::foreach_impl, bool_codec()),
      make("optimizer.in_backward", &j::optimizer, &opt::in_backward, bool_codec()),
      make("training.micro_batch", &j::training, &tr::micro_batch, count_codec(1, 1'000'000)),
      make("training.seq_len", &j::training, &tr::seq_len, count_codec(1, 1 << 24)),
      make("training.gradient_accumulation", &j::training, &tr::gradient_accumulation,
           int_codec(1, 1'000'000)),
      make("training.activation_checkpointing", &j::training, &tr::activation_checkpointing,
           enum_codec<checkpointing>()),
      make("training.checkpoint_every", &j::training, &tr::checkpoint_every, int_codec(1, 10000)),
      make("training.checkpoint_blocks", &j::training, &tr::checkpoint_blocks,
           int_codec(0, 100000)),
      make("training.attention", &j::training, &tr::attention, enum_codec<attention_impl>()),
      make("training.loss", &j::training, &tr::loss, enum_codec<loss_impl>()),
      make("training.model_code", &j::training, &tr::model_code, enum_codec<model_impl>()),
      make("training.loss_chunks", &j::training, &tr::loss_chunks, int_codec(1, 1024)),
      make("training.liger_kernels", &j::training, &tr::liger_kernels, bool_codec()),
      make("training.compile", &j::training, &tr::compile, bool_codec()),
      make("training.compile_loss", &j::training, &tr::compile_loss, bool_codec()),
      make("training.padding_mask", &j::training, &tr::padding_mask, bool_codec()),
      make("training.activation_offloading", &j::training, &tr::activation_offloading,
           bool_codec()),
      make("training.moe_capacity_factor", &j::training, &tr::moe_capacity_factor,
           optional_real_codec(0, 1e6, "dropless")),
      make("training.moe_pad_to_capacity", &j::training, &tr::moe_pad_to_capacity, bool_codec()),
      make("training.steps", &j::training, &tr::steps, int_codec(1, 100'000)),
      make("training.lengths", &j::training, &tr::lengths,
           choice_codec({"fixed", "uniform", "buckets", "histogram"})),
      make("training.seq_len_min", &j::training, &tr::seq_len_min, count_codec(0, 1 << 24)),
      listed(make("training.length_buckets", &j::training, &tr::length_buckets, list_codec(true))),
      make("training.length_file", &j::training, &tr::length_file, string_codec(true)),
      make("training.length_seed", &j::training, &tr::length_seed, int_codec(0, 2'147'483'647)),
      make("lora.enabled", &j::lora, &lo::enabled, bool_codec()),
      make("lora.method", &j::lora, &lo::method,
           choice_codec({"lora", "dora", "lora_fa", "adalora", "loha", "vera", "oft", "ia3",
                         "prompt_tuning", "prefix_tuning", "ln_tuning", "boft", "lokr", "osf",
                         "fourierft", "hra", "bone", "p_tuning"})),
      make("lora.virtual_tokens", &j::lora, &lo::virtual_tokens, int_codec(1, 1'000'000)),
      make("lora.rank", &j::lora, &lo::rank, int_codec(1, 65536)),
      make("lora.alpha", &j::lora, &lo::alpha, real_codec(0, 1e6)),
      make("lora.dropout", &j::lora, &lo::dropout, probability_codec()),
      listed(make("lora.targets", &j::lora, &lo::targets, list_codec())),
      make("lora.base_quantization", &j::lora, &lo::base_quantization,
           optional_dtype_codec(quant_types)),
      make("lora.quantizer", &j::lora, &lo::quantizer, choice_codec({"bitsandbytes", "torchao"})),
      make("lora.double_quant", &j::lora, &lo::double_quant, bool_codec()),
      listed(make("lora.quantize_skip", &j::lora, &lo::quantize_skip, list_codec())),
      make("lora.quant_storage", &j::lora, &lo::quant_storage,
           dtype_codec({dtype::u8, dtype::bf16, dtype::f16, dtype::f32})),
      make("init.meta_device", &j::init, &in::meta_device, bool_codec()),
      make("init.load", &j::init, &in::load, enum_codec<weight_load>()),
      make("init.map_location", &j::init, &in::map_location, choice_codec({"cpu", "cuda", "none"})),
      make("init.set_device_first", &j::init, &in::set_device_first, bool_codec()),
      sized(make("init.early_tensors", &j::init, &in::early_tensors, size_codec())),
      make("checkpoint.save", &j::checkpoint, &checkpoint_spec::save,
           enum_codec<state_dict_kind>()),
      make("checkpoint.offload_to_cpu", &j::checkpoint, &checkpoint_spec::offload_to_cpu,
           bool_codec()),
      make("checkpoint.rank0_only", &j::checkpoint, &checkpoint_spec::rank0_only, bool_codec()),
      make("checkpoint.resume", &j::checkpoint, &checkpoint_spec::resume, bool_codec()),
      make("checkpoint.resume_map_location", &j::checkpoint, &checkpoint_spec::resume_map_location,
           choice_codec({"cpu", "cuda", "none"})),
      make("checkpoint.resume_kept", &j::checkpoint, &checkpoint_spec::resume_kept, bool_codec()),
      make("eval.enabled", &j::eval, &eval_spec::enabled, bool_codec()),
      make("eval.micro_batch", &j::eval, &eval_spec::micro_batch, int_codec(0, 1'000'000)),
      make("eval.steps", &j::eval, &eval_spec::steps, int_codec(1, 10'000)),
      make("eval.no_grad", &j::eval, &eval_spec::no_grad, bool_codec()),
      make("eval.accumulate_logits", &j::eval, &eval_spec::accumulate_logits, bool_codec()),
      make("eval.accumulation_steps", &j::eval, &eval_spec::accumulation_steps,
           int_codec(0, 10'000)),
      make("framework.name", &j::framework, &fw::name, choice_codec({"torch", "jax"})),
      make("framework.version", &j::framework, &fw::version, version_codec()),
      make("framework.cuda", &j::framework, &fw::cuda, version_codec()),
      make("framework.transformers", &j::framework, &fw::transformers, version_codec()),
      make("framework.jaxlib", &j::framework, &fw::jaxlib, version_codec(true)),
      make("framework.litgpt", &j::framework, &fw::litgpt, version_codec(true)),
      make("framework.bitsandbytes", &j::framework, &fw::bitsandbytes, version_codec(true)),
  };
}

}  // namespace

const std::vector<field>& fields() {
  static const std::vector<field> table = build_table();
  return table;
}

const field* find_field(std::string_view path) {
  for (const auto& f : fields())
    if (f.path == path) return &f;
  return nullptr;
}

const std::vector<std::string>& section_names() {
  static const std::vector<std::string> names{"model",    "hardware", "parallel",  "precision",
                                              "optimizer", "training", "lora",      "init",
                                              "checkpoint", "eval",     "framework", "env"};
  return names;
}

std::string section_of(std::string_view path) {
  const auto dot = path.find('.');
  return dot == std::string_view::npos ? "" : std::string(path.substr(0, dot));
}

std::vector<std::string> keys_of(std::string_view section) {
  std::vector<std::string> keys;
  for (const auto& f : fields())
    if (section_of(f.path) == section) keys.push_back(f.path.substr(section.size() + 1));
  return keys;
}

// Where else a key could have been meant: other sections' keys (as dotted paths) and the
// sections themselves.
void other_places(const std::string& section, std::vector<std::string>& tails,
                  std::vector<std::string>& paths) {
  for (const auto& name : section_names()) {
    if (name == section) continue;
    tails.push_back(name);
    paths.push_back(name);
  }
  for (const auto& f : fields()) {
    const std::string s = section_of(f.path);
    if (s.empty() || s == section) continue;
    tails.push_back(f.path.substr(s.size() + 1));
    paths.push_back(f.path);
  }
}

std::string suggest_key(const std::string& key, const std::string& section) {
  std::vector<std::string> tails;
  std::vector<std::string> paths;
  other_places(section, tails, paths);
  // The exact key elsewhere beats a near miss here ("tp" under hardware is parallel.tp).
  if (const auto it = std::find(tails.begin(), tails.end(), key); it != tails.end())
    return paths[static_cast<std::size_t>(it - tails.begin())];
  const std::vector<std::string> here = section.empty() ? section_names() : keys_of(section);
  if (std::string near = did_you_mean(key, here); !near.empty()) return near;
  const std::string near = did_you_mean(key, tails);
  if (near.empty()) return "";
  const auto at = std::find(tails.begin(), tails.end(), near) - tails.begin();
  return paths[static_cast<std::size_t>(at)];
}

}  // namespace vramscope::job::detail
