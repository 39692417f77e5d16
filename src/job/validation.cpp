#include "job/validation.hpp"

#include <vramscope/job/lengths.hpp>

#include <vramscope/job/job_names.hpp>

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <utility>

#include "job/field_table.hpp"

namespace vramscope::job::detail {

namespace {

constexpr unsigned bit(strategy s) { return 1u << static_cast<unsigned>(s); }
constexpr unsigned any_zero = bit(strategy::zero1) | bit(strategy::zero2) | bit(strategy::zero3);
constexpr unsigned any_fsdp = bit(strategy::fsdp1) | bit(strategy::fsdp2);

// An option that only one family of strategies has, and when it counts as given: a value other
// than its default (so a written-out default, as to_yaml produces, never trips the rule).
struct strategy_option {
  const char* path;
  bool (*given)(const parallel_spec&);
  unsigned strategies;
  const char* hint;
};

const parallel_spec defaults{};

constexpr std::array<strategy_option, 25> strategy_options{{
    {"parallel.offload_param", [](const parallel_spec& p) { return p.offload_param; },
     bit(strategy::zero3), "for fsdp1/fsdp2 use parallel.cpu_offload"},
    {"parallel.offload_optimizer", [](const parallel_spec& p) { return p.offload_optimizer; },
     any_zero, "for fsdp1/fsdp2 use parallel.cpu_offload"},
    {"parallel.cpu_offload", [](const parallel_spec& p) { return p.cpu_offload; }, any_fsdp,
     "for ZeRO use parallel.offload_optimizer and parallel.offload_param"},
    {"parallel.float8_all_gather", [](const parallel_spec& p) { return p.float8_all_gather; },
     bit(strategy::fsdp2) | bit(strategy::megatron),
     "torchao's float8 all-gather is an FSDP2 (fully_shard) extension; Megatron-LM's "
     "--fp8-param-gather keeps float8 parameters"},
    {"parallel.reshard_after_forward",
     [](const parallel_spec& p) { return p.reshard_after_forward != 1; }, bit(strategy::fsdp2),
     "for fsdp1 use parallel.fsdp_sharding"},
    {"parallel.fsdp_sharding",
     [](const parallel_spec& p) { return p.fsdp_sharding != sharding::full_shard; },
     bit(strategy::fsdp1),
     "for fsdp2 use parallel.reshard_after_forward and parallel.dp_replicate"},
    {"parallel.backward_prefetch",
     [](const parallel_spec& p) { return p.backward_prefetch != prefetch::pre; },
     bit(strategy::fsdp1), ""},
    {"parallel.forward_prefetch", [](const parallel_spec& p) { return p.forward_prefetch; },
     bit(strategy::fsdp1), ""},
    {"parallel.limit_all_gathers", [](const parallel_spec& p) { return !p.limit_all_gathers; },
     bit(strategy::fsdp1), ""},
    {"parallel.use_orig_params", [](const parallel_spec& p) { return !p.use_orig_params; },
     bit(strategy::fsdp1), ""},
    {"parallel.sync_module_states", [](const parallel_spec& p) { return p.sync_module_states; },
     bit(strategy::fsdp1), ""},
    {"parallel.device_id", [](const parallel_spec& p) { return !p.device_id; },
     bit(strategy::fsdp1), ""},
    {"parallel.wrap", [](const parallel_spec& p) { return p.wrap != "block"; }, any_fsdp, ""},
    {"parallel.shard_separately",
     [](const parallel_spec& p) { return !p.shard_separately.empty(); }, bit(strategy::fsdp2),
     "torchtune's custom_sharded_layers are fully_shard (FSDP2) calls"},
    {"parallel.no_sync", [](const parallel_spec& p) { return p.no_sync; },
     any_fsdp | bit(strategy::ddp), "ZeRO reduces every micro-batch into its partition"},
    {"parallel.bucket_cap_mb", [](const parallel_spec& p) { return p.bucket_cap_mb.has_value(); },
     bit(strategy::ddp), "for ZeRO use parallel.reduce_bucket_size"},
    {"parallel.gradient_as_bucket_view",
     [](const parallel_spec& p) { return p.gradient_as_bucket_view; }, bit(strategy::ddp), ""},
    {"parallel.static_graph", [](const parallel_spec& p) { return p.static_graph; },
     bit(strategy::ddp), ""},
    {"parallel.reduce_bucket_size",
     [](const parallel_spec& p) { return p.reduce_bucket_size != defaults.reduce_bucket_size; },
     any_zero, "for ddp use parallel.bucket_cap_mb"},
    {"parallel.allgather_bucket_size",
     [](const parallel_spec& p) {
       return p.allgather_bucket_size != defaults.allgather_bucket_size;
     },
     bit(strategy::zero1) | bit(strategy::zero2), "for zero3 use parallel.prefetch_bucket_size"},
    {"parallel.prefetch_bucket_size",
     [](const parallel_spec& p) { return p.prefetch_bucket_size != defaults.prefetch_bucket_size; },
     bit(strategy::zero3), ""},
    {"parallel.max_live_parameters",
     [](const parallel_spec& p) { return p.max_live_parameters != defaults.max_live_parameters; },
     bit(strategy::zero3), ""},
    {"parallel.contiguous_gradients",
     [](const parallel_spec& p) { return !p.contiguous_gradients; }, any_zero, ""},
    {"parallel.fsdp_devices", [](const parallel_spec& p) { return p.fsdp_devices != 1; },
     bit(strategy::jax), ""},
    {"parallel.distributed_optimizer",
     [](const parallel_spec& p) { return p.distributed_optimizer; }, bit(strategy::megatron),
     "for DeepSpeed's equivalent use parallel.strategy zero1"},
}};

std::string strategies_text(unsigned mask) {
  std::vector<std::string> names;
  for (unsigned i = 0; i <= static_cast<unsigned>(strategy::megatron); ++i)
    if ((mask & (1u << i)) != 0) names.emplace_back(name_of(static_cast<strategy>(i)));
  return join(names);
}

// parallel.shard_separately names modules by their role: the token embedding and the head.
maybe_error check_shard_separately(const job_spec& job) {
  for (const auto& name : job.parallel.shard_separately)
    if (name != "embedding" && name != "head")
      return field_error(job, "parallel.shard_separately",
                         fmt::format("\"{}\" is not a module it shards: expected embedding or "
                                     "head (torchtune's tok_embeddings and output)",
                                     name));
  return std::nullopt;
}

maybe_error check_strategy_options(const job_spec& job) {
  if (auto err = check_shard_separately(job)) return err;
  const auto kind = job.parallel.kind;
  for (const auto& o : strategy_options) {
    if (!o.given(job.parallel) || (o.strategies & bit(kind)) != 0) continue;
    std::string message = fmt::format("applies to {} only (parallel.strategy is {})",
                                      strategies_text(o.strategies), name_of(kind));
    if (*o.hint != '\0') message += fmt::format("; {}", o.hint);
    return field_error(job, o.path, message);
  }
  return std::nullopt;
}

// What each schedule's constructor in torch.distributed.pipelining (schedules.py) and
// torchtitan's stage setup (pipeline_parallel.py, _get_pipeline_metadata and
// _get_pp_rank_to_stage_indices_mapping) accept.
maybe_error check_pipeline_schedule(const job_spec& job, warnings& notes) {
  const auto& p = job.parallel;
  const auto name = name_of(p.pp_sched);
  const int micro = std::max(1, job.training.gradient_accumulation);
  if (p.pp_layers_per_stage > 0 && is_set(job, "parallel.pp_stages_per_rank"))
    return field_error(
        job, "parallel.pp_layers_per_stage",
        "sizes the virtual stages itself: set it or parallel.pp_stages_per_rank, not both");
  // With pp_layers_per_stage the count needs the model's blocks: check_against_model checks it.
  if (p.pp_stages_per_rank != 0)
    if (auto err = check_stages_per_rank(job, p.pp_stages_per_rank, "parallel.pp_stages_per_rank"))
      return err;
  if (p.pp_sched == pp_schedule::interleaved_1f1b && micro % p.pp != 0)
    return field_error(job, "training.gradient_accumulation",
                       fmt::format("interleaved_1f1b runs the micro-batches in rounds of "
                                   "parallel.pp {}; {} micro-batches is not a multiple", p.pp, micro));
  // ScheduleInterleavedZeroBubble: max(1, m / pp) rounds of equal size.
  const int rounds = std::max(1, micro / p.pp);
  if (p.pp_sched == pp_schedule::interleaved_zero_bubble && micro % rounds != 0)
    return field_error(job, "training.gradient_accumulation",
                       fmt::format("interleaved_zero_bubble runs the micro-batches in {} equal "
                                   "rounds (micro-batches / parallel.pp {}); {} is not a multiple "
                                   "of {}", rounds, p.pp, micro, rounds));
  if (p.pp_sched == pp_schedule::dualpipev && micro < 2 * p.pp)
    return field_error(job, "training.gradient_accumulation",
                       fmt::format("dualpipev needs at least as many micro-batches as stages "
                                   "(2 x parallel.pp = {}), got {}", 2 * p.pp, micro));
  if (splits_backward(p.pp_sched) && job.training.compile)
    notes.push_back(field_error(job, "training.compile",
                                fmt::format("{} splits backward around eager autograd nodes; "
                                            "compiled blocks are planned as if eager", name)));
  return std::nullopt;
}

// Pipeline parallelism as torch.distributed.pipelining runs it: with no data-parallel wrapper,
// DDP or FSDP2 (torchtitan's combinations), on the schedules the planner models.
maybe_error check_pipeline(const job_spec& job, warnings& notes) {
  const auto& p = job.parallel;
  if (p.pp <= 1) {
    for (const char* path :
         {"parallel.pp_schedule", "parallel.pp_stages_per_rank", "parallel.pp_layers_per_stage"})
      if (is_set(job, path)) notes.push_back(field_error(job, path, "has no effect without parallel.pp > 1"));
    return std::nullopt;
  }
  if (p.kind != strategy::single && p.kind != strategy::ddp && p.kind != strategy::fsdp2 &&
      p.kind != strategy::megatron)
    return field_error(job, "parallel.pp",
                       fmt::format("pipeline parallelism is planned with strategy single, ddp or "
                                   "fsdp2, as torchtitan combines it, or megatron "
                                   "(parallel.strategy is {})",
                                   name_of(p.kind)));
  if (auto err = check_pipeline_schedule(job, notes)) return err;
  if (job.training.activation_offloading)
    return field_error(job, "training.activation_offloading",
                       "is not planned with pipeline parallelism (parallel.pp > 1)");
  if (job.lora.enabled)
    return field_error(job, "parallel.pp", "LoRA and other PEFT methods are not planned with "
                                           "pipeline parallelism");
  return std::nullopt;
}

// Context and expert parallelism are planned as torchtitan composes them, under FSDP2 and
// without PEFT adapters, or as Megatron-LM does (which check_parallel refuses adapters for).
// Context parallelism also as DeepSpeed-Ulysses splits the sequence under ZeRO (`with_zero`):
// ZeRO shards over the sequence-data-parallel group, dp x sp (engine.py seq_data_parallel_group).
// `path` is the degree's field, `what` the parallelism's name.
maybe_error check_dimension_strategy(const job_spec& job, const char* path, const char* what,
                                     bool with_zero = false) {
  const strategy kind = job.parallel.kind;
  if (kind == strategy::megatron) return std::nullopt;
  if (kind != strategy::fsdp2 && !(with_zero && is_zero(kind)))
    return field_error(job, path,
                       fmt::format("{} is planned with strategy fsdp2, as torchtitan combines it, "
                                   "{}or megatron (parallel.strategy is {})",
                                   what, with_zero ? "zero1/zero2/zero3 (DeepSpeed-Ulysses), " : "",
                                   name_of(kind)));
  if (job.lora.enabled)
    return field_error(job, path, fmt::format("LoRA and other PEFT methods are not planned with {}", what));
  return std::nullopt;
}

// Context parallelism: FSDP2 over dp_shard x cp (torchtitan), or Megatron-LM's with its
// distributed optimizer over the same ranks; the sequence cut into 2 x cp chunks so that causal
// attention balances across ranks.
maybe_error check_context(const job_spec& job) {
  const auto& p = job.parallel;
  if (p.cp <= 1) return std::nullopt;
  if (auto err = check_dimension_strategy(job, "parallel.cp", "context parallelism", true))
    return err;
  const auto chunks = static_cast<std::uint64_t>(2 * p.cp);
  if (job.training.seq_len % chunks != 0)
    return field_error(job, "training.seq_len",
                       fmt::format("{} tokens do not split into 2 x parallel.cp = {} equal chunks "
                                   "(context parallelism's load-balanced causal sharding)",
                                   job.training.seq_len, chunks));
  return std::nullopt;
}

// Expert parallelism: the experts split over ranks borrowed from the data- and context-parallel
// ones (torchtitan under FSDP2; Megatron-LM's expert-model-parallel group likewise), and from the
// tensor-parallel ones where the experts' own tensor-parallel degree (parallel.etp) is below tp:
// ep x etp divides dp_shard x cp x tp (torchtitan's ParallelDims, which takes etp 1 or tp only;
// Megatron-LM's parallel_state, expert_tensor_model_pipeline_parallel size).
maybe_error check_experts(const job_spec& job, warnings& notes) {
  const auto& p = job.parallel;
  if (p.ep <= 1) {
    if (p.etp > 0 && p.etp != std::max(1, p.tp))
      notes.push_back(field_error(job, "parallel.etp", "has no effect without ep > 1"));
    return std::nullopt;
  }
  if (auto err = check_dimension_strategy(job, "parallel.ep", "expert parallelism")) return err;
  const int tp = std::max(1, p.tp), etp = expert_tp(p);
  if (p.kind == strategy::fsdp2 && etp != 1 && etp != tp)
    return field_error(job, "parallel.etp",
                       fmt::format("{}: torchtitan takes 1 or the tensor-parallel degree {} "
                                   "(ParallelDims: \"Currently we only support ETP=TP or ETP=1\")",
                                   etp, tp));
  if (etp == tp) {
    const int borrowed = p.dp_shard * p.cp;
    if (borrowed % p.ep != 0)
      return field_error(job, "parallel.ep",
                         fmt::format("{} must divide dp_shard {} x cp {} = {}: expert-parallel "
                                     "ranks are taken from those",
                                     p.ep, p.dp_shard, p.cp, borrowed));
    return std::nullopt;
  }
  const long long ranks = static_cast<long long>(p.dp_shard) * p.cp * tp;
  const long long used = static_cast<long long>(p.ep) * etp;
  if (ranks % used != 0 || (p.kind == strategy::fsdp2 && used % tp != 0))
    return field_error(
        job, "parallel.ep",
        fmt::format("{} x etp {} = {} must divide dp_shard {} x cp {} x tp {} = {}{}: "
                    "with etp below tp, expert-parallel ranks are taken from "
                    "those",
                    p.ep, etp, used, p.dp_shard, p.cp, tp, ranks,
                    p.kind == strategy::fsdp2 ? " and be a multiple of tp" : ""));
  return std::nullopt;
}

maybe_error check_mesh(const job_spec& job, warnings& notes) {
  if (auto err = check_pipeline(job, notes)) return err;
  if (auto err = check_context(job)) return err;
  if (auto err = check_experts(job, notes)) return err;
  const auto& p = job.parallel;
  const bool hsdp = p.kind == strategy::fsdp2 ||
                    (p.kind == strategy::fsdp1 && p.fsdp_sharding == sharding::hybrid_shard);
  if (p.dp_replicate > 1 && !hsdp)
    return field_error(job, "parallel.dp_replicate",
                       fmt::format("replica groups (HSDP) need strategy fsdp2, or fsdp1 with "
                                   "fsdp_sharding: hybrid_shard (parallel.strategy is {})",
                                   name_of(p.kind)));
  const int n = p.reshard_after_forward;
  if (n >= 2 && (n >= p.dp_shard || p.dp_shard % n != 0))
    return field_error(job, "parallel.reshard_after_forward",
                       fmt::format("a reshard group of {} must divide the shard group "
                                   "(parallel.dp_shard {}) and be smaller than it", n, p.dp_shard));
  if (p.kind != strategy::jax) return std::nullopt;
  if (p.tp != 1)
    return field_error(job, "parallel.tp", "tensor parallelism is not modelled for jax jobs; "
                                           "the mesh is set by parallel.fsdp_devices");
  if (p.dp_replicate != 1)
    return field_error(job, "parallel.dp_replicate", "not used by jax jobs; the mesh is set by "
                                                     "parallel.fsdp_devices");
  if (job.world_size() % p.fsdp_devices != 0)
    return field_error(job, "parallel.fsdp_devices",
                       fmt::format("{} does not divide the job's {} GPUs", p.fsdp_devices,
                                   job.world_size()));
  return std::nullopt;
}

}  // namespace

maybe_error check_stages_per_rank(const job_spec& job, int per_rank, const std::string& path) {
  const auto sched = job.parallel.pp_sched;
  const auto name = name_of(sched);
  if (!multi_stage(sched) && per_rank != 1)
    return field_error(job, path,
                       fmt::format("{} runs one stage per rank; use pp_schedule: interleaved_1f1b "
                                   "for {} virtual stages",
                                   name, per_rank));
  if (v_shaped(sched) && per_rank != 2)
    return field_error(
        job, path,
        fmt::format("{} places exactly 2 stages per rank in a V, got {}", name, per_rank));
  if (multi_stage(sched) && per_rank < 2)
    return field_error(
        job, path,
        fmt::format("{} needs at least 2 virtual stages per rank, got {}", name, per_rank));
  return std::nullopt;
}

diagnostic where_set(const job_spec& job, const std::string& path) {
  const auto& set_at = job.provenance.set_at;
  if (auto it = set_at.find(path); it != set_at.end()) return it->second;
  if (auto it = set_at.find(section_of(path)); it != set_at.end()) return it->second;
  return diagnostic{job.provenance.source, 0, 0, "", ""};
}

diagnostic field_error(const job_spec& job, const std::string& path, const std::string& message) {
  diagnostic d = where_set(job, path);
  d.message = path + ": " + message;
  return d;
}

bool is_set(const job_spec& job, const std::string& path) {
  return job.provenance.set_at.count(path) != 0;
}

maybe_error check_parallel(const job_spec& job, warnings& notes) {
  if (auto err = check_strategy_options(job)) return err;
  if (auto err = check_mesh(job, notes)) return err;
  const auto& p = job.parallel;
  if (p.tp > job.hardware.gpus_per_node)
    notes.push_back(field_error(job, "parallel.tp",
                                fmt::format("{} is more than hardware.gpus_per_node {}: "
                                            "tensor-parallel collectives cross nodes",
                                            p.tp, job.hardware.gpus_per_node)));
  if (p.sequence_parallel && p.tp == 1)
    notes.push_back(field_error(job, "parallel.sequence_parallel", "has no effect without tp > 1"));
  for (const auto& [path, sharded] : {std::pair{"parallel.tp_embedding", p.tp_embedding},
                                      std::pair{"parallel.tp_head", p.tp_head}})
    if (!sharded && p.tp == 1)
      notes.push_back(field_error(job, path, "has no effect without tp > 1"));
  if (p.loss_parallel) {
    if (p.tp == 1)
      notes.push_back(field_error(job, "parallel.loss_parallel", "has no effect without tp > 1"));
    else if (p.kind == strategy::megatron && !*p.loss_parallel)
      return field_error(
          job, "parallel.loss_parallel",
          "Megatron's cross-entropy is always vocabulary-parallel (false is not possible)");
    else if (*p.loss_parallel && !p.tp_head)
      return field_error(job, "parallel.loss_parallel",
                         "works on the head's vocabulary shards: it needs parallel.tp_head true");
    else if (*p.loss_parallel && job.training.loss != loss_impl::hf &&
             job.training.loss != loss_impl::torchtitan)
      return field_error(
          job, "parallel.loss_parallel",
          fmt::format("is planned for the hf and torchtitan losses (training.loss is {})",
                      name_of(job.training.loss)));
  }
  if (p.async_tp) {
    // torchtitan (parallelize.py, maybe_enable_async_tp) turns on inductor's micro-pipeline TP
    // pass and symmetric memory for the TP group; the pass rewrites compiled graphs only.
    if (p.tp <= 1)
      return field_error(job, "parallel.async_tp", "needs tensor parallelism (parallel.tp > 1)");
    if (!job.training.compile)
      return field_error(job, "parallel.async_tp",
                         "rewrites compiled graphs only: it needs training.compile (torchtitan "
                         "refuses async TP without compile)");
    if (p.kind != strategy::fsdp2 && p.kind != strategy::ddp && p.kind != strategy::single)
      return field_error(job, "parallel.async_tp",
                         fmt::format("is torchtitan's: planned with fsdp2, ddp or single "
                                     "(parallel.strategy is {})", name_of(p.kind)));
  }
  // Megatron-LM pretrains full models: adapters belong to NeMo's PEFT, which is not modelled.
  // (A JAX framework with it is refused with the other strategies: framework.name jax needs
  // parallel.strategy jax.)
  if (p.kind == strategy::megatron && job.lora.enabled)
    return field_error(job, "parallel.strategy",
                       "megatron plans full training; LoRA and other PEFT methods are not "
                       "planned with it");
  // An expert capacity is Megatron-LM's (moe_utils.apply_router_token_dropping); transformers'
  // and torchtitan's MoE layers send every token to its experts, and Megatron pads to a
  // capacity only when one is set (arguments.py asserts it).
  const auto& t = job.training;
  if (t.moe_capacity_factor && p.kind != strategy::megatron)
    return field_error(job, "training.moe_capacity_factor",
                       fmt::format("is Megatron-LM's --moe-expert-capacity-factor: transformers' "
                                   "and torchtitan's MoE layers drop no tokens (parallel.strategy "
                                   "is {})",
                                   name_of(p.kind)));
  if (t.moe_pad_to_capacity && !t.moe_capacity_factor)
    return field_error(job, "training.moe_pad_to_capacity",
                       "pads each expert's input to its capacity: it needs "
                       "training.moe_capacity_factor");
  return std::nullopt;
}

// PEFT methods the planner models; the others are refused rather than planned as LoRA.
static maybe_error check_peft_method(const job_spec& job, warnings& notes) {
  const auto& lora = job.lora;
  static const std::array<const char*, 7> unmodelled{"boft", "lokr", "osf", "fourierft",
                                                     "hra", "bone", "p_tuning"};
  for (const char* m : unmodelled)
    if (lora.method == m)
      return field_error(job, "lora.method",
                         fmt::format("{} is not modelled yet; modelled methods: lora, dora, "
                                     "lora_fa, adalora, loha, vera, oft, ia3, prompt_tuning, "
                                     "prefix_tuning, ln_tuning", m));
  const bool virtual_tokens = lora.method == "prompt_tuning" || lora.method == "prefix_tuning";
  if (is_set(job, "lora.virtual_tokens") && !virtual_tokens)
    notes.push_back(field_error(job, "lora.virtual_tokens",
                                fmt::format("has no effect with lora.method {}", lora.method)));
  return std::nullopt;
}

// Quantised frozen bases (QLoRA): what bitsandbytes' options apply to, and what FSDP1 can
// flatten.
static maybe_error check_quantisation(const job_spec& job, warnings& notes) {
  const auto& lora = job.lora;
  const bool four_bit = lora.base_quantization && *lora.base_quantization != dtype::i8;
  if (lora.quantizer == "torchao") {
    if (lora.base_quantization && *lora.base_quantization != dtype::nf4)
      return field_error(job, "lora.base_quantization",
                         fmt::format("torchao quantizes to nf4 only (got {})",
                                     name_of(*lora.base_quantization)));
    if (job.parallel.kind == strategy::fsdp1 || job.parallel.kind == strategy::zero3)
      return field_error(job, "lora.quantizer",
                         fmt::format("torchao's NF4Tensor shards under FSDP2 only (parallel.strategy "
                                     "is {}); use bitsandbytes with lora.quant_storage: bf16",
                                     name_of(job.parallel.kind)));
  }
  for (const char* path : {"lora.quantizer", "lora.double_quant", "lora.quant_storage"})
    if (is_set(job, path) && !four_bit)
      notes.push_back(field_error(job, path, "has no effect unless lora.base_quantization is nf4 or int4"));
  // FlatParamHandle flattens a unit into one tensor of one dtype ("Must flatten tensors with
  // uniform dtype", torch/distributed/fsdp/_flat_param.py): 4-bit weights packed as uint8 beside
  // the unit's float parameters stop FSDP1 at wrapping. The FSDP + QLoRA recipe therefore sets
  // bnb_4bit_quant_storage to the model's dtype.
  if (four_bit && job.parallel.kind == strategy::fsdp1 && lora.quant_storage == dtype::u8 &&
      job.parallel.fsdp_sharding != sharding::no_shard)
    return field_error(job, "lora.quant_storage",
                       fmt::format("FSDP1 cannot flatten 4-bit weights packed as uint8 with the "
                                   "unit's {} parameters (it needs one dtype per unit); set "
                                   "lora.quant_storage: {} as the FSDP + QLoRA recipe does "
                                   "(bnb_4bit_quant_storage)",
                                   name_of(job.precision.master), name_of(job.precision.master)));
  return std::nullopt;
}

// Float8 training. torchao's Float8Linear swaps the model's nn.Linear layers (torchtitan's
// float8 converter, convert_to_float8_training), so it is a full-training PyTorch feature; the
// FSDP2 float8 all-gather exists for tensorwise scaling only (torchao/float8/fsdp_utils.py:
// WeightWithDynamicFloat8CastTensor). Under strategy megatron the linears are Transformer
// Engine modules, whose recipes are per tensor, per block or MXFP8 (Megatron-LM's
// --fp8-recipe), and --fp8-param-gather (parallel.float8_all_gather) works with each.
static maybe_error check_float8(const job_spec& job, warnings& notes) {
  const auto recipe = job.precision.float8;
  const bool te = job.parallel.kind == strategy::megatron;
  if (job.parallel.float8_all_gather && recipe == float8_recipe::none)
    return field_error(job, "parallel.float8_all_gather", "needs precision.float8 (it is none)");
  if (!te && job.parallel.float8_all_gather && recipe != float8_recipe::tensorwise)
    return field_error(job, "parallel.float8_all_gather",
                       fmt::format("needs precision.float8: tensorwise (torchao all-gathers "
                                   "float8 weights for tensorwise scaling only; it is {})",
                                   name_of(recipe)));
  if (recipe == float8_recipe::none) return std::nullopt;
  const bool torchao_recipe = recipe == float8_recipe::tensorwise ||
                              recipe == float8_recipe::rowwise ||
                              recipe == float8_recipe::rowwise_with_gw_hp;
  const bool te_recipe = recipe == float8_recipe::tensorwise ||
                         recipe == float8_recipe::blockwise || recipe == float8_recipe::mxfp8;
  if (te && !te_recipe)
    return field_error(job, "precision.float8",
                       fmt::format("{} is a torchao recipe; under strategy megatron float8 is "
                                   "Transformer Engine's: tensorwise, blockwise or mxfp8",
                                   name_of(recipe)));
  if (!te && !torchao_recipe)
    return field_error(job, "precision.float8",
                       fmt::format("{} is a Transformer Engine recipe, planned under strategy "
                                   "megatron; torchao's are tensorwise, rowwise and "
                                   "rowwise_with_gw_hp",
                                   name_of(recipe)));
  if (job.framework.name != "torch")
    return field_error(job, "precision.float8",
                       fmt::format("is {}: it needs framework.name: torch (framework.name is {})",
                                   te ? "Transformer Engine's float8" : "torchao's Float8Linear",
                                   job.framework.name));
  if (job.lora.enabled)
    return field_error(job, "precision.float8",
                       "float8 training of adapter (LoRA / PEFT) jobs is not modelled: torchao "
                       "converts the nn.Linear layers of a fully trained model");
  // Float8 matmuls need Ada or Hopper (compute capability 8.9); MXFP8's block scales are a
  // Blackwell (10.0) tensor-core format (Transformer Engine's check_mxfp8_support).
  const int cc = job.hardware.compute_capability;
  const int needed = recipe == float8_recipe::mxfp8 ? 100 : 89;
  if (cc > 0 && cc < needed)
    notes.push_back(field_error(
        job, "precision.float8",
        fmt::format("{} float8 matmuls need compute capability {}.{} or later ({}); {} is {}.{}: "
                    "planned all the same",
                    name_of(recipe), needed / 10, needed % 10,
                    needed == 100 ? "B200, GB200" : "H100, L4, RTX 4090", job.hardware.gpu, cc / 10,
                    cc % 10)));
  return std::nullopt;
}

// torchtune's memory features, with the combinations its recipes accept.
static maybe_error check_torchtune_features(const job_spec& job, warnings& notes) {
  const auto& t = job.training;
  if (is_set(job, "training.loss_chunks") && t.loss != loss_impl::chunked)
    notes.push_back(field_error(
        job, "training.loss_chunks",
        fmt::format("has no effect unless training.loss is chunked (it is {})", name_of(t.loss))));
  const std::array<std::pair<const char*, bool>, 2> hooks{
      {{"optimizer.in_backward", job.optimizer.in_backward},
       {"training.activation_offloading", t.activation_offloading}}};
  for (const auto& [path, on] : hooks)
    if (on && job.framework.name != "torch")
      return field_error(job, path, fmt::format("is a PyTorch hook: it needs framework.name: torch "
                                                "(framework.name is {})", job.framework.name));
  // torchtune's recipes refuse offloading without checkpointing; OffloadActivations itself
  // works either way, and is planned as it would run.
  if (t.activation_offloading && t.activation_checkpointing == checkpointing::none)
    notes.push_back(field_error(
        job, "training.activation_offloading",
        "torchtune's recipes refuse it without activation checkpointing; planned as "
        "OffloadActivations runs, every saved tensor offloaded"));
  if (!job.optimizer.in_backward) return std::nullopt;
  // recipes/full_finetune_single_device.py refuses gradient accumulation with optimizer_in_bwd;
  // the distributed recipe runs it under FSDP2 (fully_shard) only.
  if (t.gradient_accumulation > 1)
    return field_error(job, "optimizer.in_backward",
                       fmt::format("steps the optimizer in every backward, so it cannot accumulate "
                                   "gradients (training.gradient_accumulation is {})",
                                   t.gradient_accumulation));
  const auto kind = job.parallel.kind;
  if (kind != strategy::single && kind != strategy::fsdp2)
    return field_error(job, "optimizer.in_backward",
                       fmt::format("torchtune runs it on a single device or under fsdp2 only "
                                   "(parallel.strategy is {})", name_of(kind)));
  return std::nullopt;
}

// The phases outside the training step (checkpoint.*, eval.*): planned for PyTorch's loops,
// evaluation outside pipeline schedules; a sub-option without its phase is a warning.
static maybe_error check_outside_phases(const job_spec& job, warnings& notes) {
  const auto& c = job.checkpoint;
  const auto& e = job.eval;
  for (const auto& [path, on] : std::array<std::pair<const char*, bool>, 2>{
           {{"checkpoint.resume", c.resume}, {"eval.enabled", e.enabled}}}) {
    if (on && job.framework.name != "torch")
      return field_error(job, path, fmt::format("is planned for PyTorch training loops: it needs "
                                                "framework.name: torch (framework.name is {})",
                                                job.framework.name));
  }
  if (e.enabled && job.parallel.pp > 1)
    return field_error(job, "eval.enabled",
                       fmt::format("evaluation is not planned under pipeline parallelism "
                                   "(parallel.pp is {})", job.parallel.pp));
  const auto unused = [&](const char* path, bool on, const std::string& why) {
    if (is_set(job, path) && !on)
      notes.push_back(field_error(job, path, "has no effect unless " + why));
  };
  const bool full = c.save == state_dict_kind::full;
  unused("checkpoint.offload_to_cpu", full, "checkpoint.save is full");
  unused("checkpoint.rank0_only", full, "checkpoint.save is full");
  unused("checkpoint.resume_map_location", c.resume, "checkpoint.resume is true");
  unused("checkpoint.resume_kept", c.resume, "checkpoint.resume is true");
  // The plan reads bitsandbytes' version only for an int8 LoRA base it quantises (its save).
  unused("framework.bitsandbytes",
         job.lora.enabled && job.lora.base_quantization == dtype::i8 &&
             job.lora.quantizer == "bitsandbytes",
         "lora.base_quantization is int8 (quantised by bitsandbytes)");
  for (const char* path : {"eval.micro_batch", "eval.steps", "eval.no_grad",
                           "eval.accumulate_logits", "eval.accumulation_steps"})
    unused(path, e.enabled, "eval.enabled is true");
  if (e.enabled) unused("eval.accumulation_steps", e.accumulate_logits,
                        "eval.accumulate_logits is true");
  return std::nullopt;
}

// Variable lengths (training.lengths): the fields of another distribution have no effect; the
// pipeline driver and JAX's plan take one length.
static maybe_error check_lengths(const job_spec& job, warnings& notes) {
  const auto& t = job.training;
  const auto unused = [&](const char* path, const char* kind) {
    if (is_set(job, path) && t.lengths != kind)
      notes.push_back(field_error(job, path, fmt::format("has no effect unless training.lengths "
                                                         "is {} (it is {})", kind, t.lengths)));
  };
  unused("training.seq_len_min", "uniform");
  unused("training.length_buckets", "buckets");
  unused("training.length_file", "histogram");
  if (t.lengths == "fixed") {
    if (is_set(job, "training.length_seed"))
      notes.push_back(field_error(job, "training.length_seed",
                                  "has no effect with fixed lengths (training.lengths)"));
    return std::nullopt;
  }
  if (job.parallel.pp > 1)
    return field_error(job, "training.lengths",
                       fmt::format("variable lengths are not planned under pipeline parallelism "
                                   "(parallel.pp is {})", job.parallel.pp));
  if (job.framework.name != "torch")
    return field_error(job, "training.lengths",
                       fmt::format("variable lengths are replayed through PyTorch's caching "
                                   "allocator: they need framework.name: torch (it is {})",
                                   job.framework.name));
  if (t.lengths == "histogram") {
    if (t.length_file.empty())
      return field_error(job, "training.length_file",
                         "histogram lengths need a file of length,count rows (CSV or JSON)");
    return std::nullopt;  // the file is read when the job is planned
  }
  auto d = length_distribution_of(job);
  if (!d) return d.error();
  return std::nullopt;
}

maybe_error check_training(const job_spec& job, warnings& notes) {
  const auto& lora = job.lora;
  if (lora.enabled && lora.targets.empty())
    return field_error(job, "lora.targets", "expected at least one module name");
  if (!lora.enabled && lora.base_quantization)
    return field_error(job, "lora.base_quantization",
                       "quantized base weights need LoRA (lora.enabled is false)");
  if (auto err = check_quantisation(job, notes)) return err;
  if (auto err = check_peft_method(job, notes)) return err;
  if (job.init.early_tensors > 0 && job.init.set_device_first)
    return field_error(job, "init.early_tensors",
                       "tensors made before set_device need init.set_device_first: false");
  const auto& t = job.training;
  if (t.checkpoint_every != 2 && t.activation_checkpointing != checkpointing::selective)
    notes.push_back(field_error(job, "training.checkpoint_every",
                                fmt::format("has no effect unless activation_checkpointing is "
                                            "selective (it is {})",
                                            name_of(t.activation_checkpointing))));
  if (t.checkpoint_blocks != 0 && t.activation_checkpointing != checkpointing::full)
    notes.push_back(field_error(job, "training.checkpoint_blocks",
                                fmt::format("has no effect unless activation_checkpointing is "
                                            "full (it is {})",
                                            name_of(t.activation_checkpointing))));
  if (auto err = check_torchtune_features(job, notes)) return err;
  if (auto err = check_outside_phases(job, notes)) return err;
  if (auto err = check_lengths(job, notes)) return err;
  if (auto err = check_float8(job, notes)) return err;
  for (const auto& [path, on] : std::array<std::pair<const char*, bool>, 2>{
           {{"training.compile", job.training.compile},
            {"training.compile_loss", job.training.compile_loss}}})
    if (on && job.framework.name != "torch")
      return field_error(job, path,
                         fmt::format("is torch.compile: it needs framework.name: torch "
                                     "(framework.name is {}; a JAX step is always compiled)",
                                     job.framework.name));
  const auto kind = job.optimizer.kind;
  if (is_bitsandbytes(kind) && job.framework.name != "torch")
    return field_error(job, "optimizer.name",
                       fmt::format("{} is a bitsandbytes optimizer: it needs framework.name: "
                                   "torch (framework.name is {})",
                                   name_of(kind), job.framework.name));
  if (is_set(job, "optimizer.state") && (is_bitsandbytes(kind) || kind == optimizer_kind::sgd))
    notes.push_back(field_error(
        job, "optimizer.state",
        fmt::format("ignored: {} keeps {}", name_of(kind),
                    kind == optimizer_kind::sgd         ? "no state"
                    : kind == optimizer_kind::paged_adamw ? "fp32 state (bitsandbytes)"
                                                          : "8-bit state")));
  return std::nullopt;
}

int version_key(const std::string& version) {
  int major = 0;
  int minor = 0;
  const char* p = version.data();
  const char* end = p + version.size();
  auto r = std::from_chars(p, end, major);
  if (r.ec != std::errc() || r.ptr == end || *r.ptr != '.') return -1;
  if (std::from_chars(r.ptr + 1, end, minor).ec != std::errc()) return -1;
  return major * 100 + std::min(minor, 99);
}

}  // namespace vramscope::job::detail

namespace vramscope::job {

std::vector<std::string> drop_options_of_other_strategies(job_spec& job) {
  std::vector<std::string> reset;
  const job_spec fresh{};
  for (const auto& option : detail::strategy_options) {
    if ((option.strategies & detail::bit(job.parallel.kind)) != 0 || !option.given(job.parallel))
      continue;
    if (const auto* field = detail::find_field(option.path)) {
      field->copy(job, fresh);
      reset.emplace_back(option.path);
    }
  }
  return reset;
}

}  // namespace vramscope::job
