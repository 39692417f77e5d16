// How Megatron-LM's arguments set the job: parallelism, batch, interleaving, precision,
// recomputation, attention and optimizer (the values and defaults of
// megatron/training/arguments.py, validate_args). See docs/importers.md, "Megatron-LM".
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "import/megatron/megatron_args.hpp"

namespace vramscope::job::detail {

namespace {

// A world size the arguments do not give: the smallest that holds one copy of the model
// parallelism, or one node of 8 GPUs when that holds it.
long long assume_world(import_context& ctx, long long model_parallel) {
  const long long world = 8 % model_parallel == 0 ? 8 : model_parallel;
  const long long per_node = world % 8 == 0 ? 8 : world;
  // A count the job spec cannot take is refused by its validation, located at the file.
  (void)ctx.set("hardware.gpus_per_node", std::to_string(per_node), file_entry(ctx));
  (void)ctx.set("hardware.nodes", std::to_string(world / per_node), file_entry(ctx));
  ctx.note(
      fmt::format("the arguments do not give the number of GPUs (torchrun --nproc_per_node "
                  "and --nnodes): assumed {}, so {} data-parallel rank(s) for "
                  "--global-batch-size; set hardware.nodes and hardware.gpus_per_node (the "
                  "gradient accumulation stays as derived here)",
                  world, world / model_parallel));
  return world;
}

// Sets `path` from `flag` when the arguments give it (an error names the flag's line).
void set_from(import_context& ctx, const std::string& flag, const std::string& path,
              const std::string& value, maybe_error& error) {
  const entry* e = ctx.find(flag);
  if (e == nullptr || error) return;
  if (auto problem = ctx.set(path, value, *e); !problem.empty()) error = at(e->where, problem);
}

// Selective recompute of core attention (the attention's softmax, its dropout and the
// scores, s x s a head): activation_checkpointing core_attention. --recompute-modules (default
// core_attn, megatron/training/arguments.py) chooses the modules: without core_attn the
// attention is kept whole (none); modules other than core_attn are noted.
maybe_error read_selective(import_context& ctx, const entry& from) {
  const entry* modules = ctx.find("--recompute-modules");
  std::vector<std::string> others;
  bool core = modules == nullptr;
  if (modules != nullptr)
    for (const auto& m : modules->value.items) {
      if (m == "core_attn")
        core = true;
      else
        others.push_back(m);
    }
  const std::string problem = core ? plan_core_attention_recompute(ctx, from)
                                   : ctx.set("training.activation_checkpointing", "none", *modules);
  if (!problem.empty()) return at(from.where, problem);
  if (modules == nullptr) return std::nullopt;
  if (others.empty())
    ctx.mapped_to(*modules, "training.activation_checkpointing");
  else
    ctx.note(*modules,
             fmt::format("recomputing {} is not modelled: planned as kept", join(others, ", ")));
  return std::nullopt;
}

// Megatron-LM up to 8af3dae72a (2024-08-05) and Megatron-DeepSpeed at every release (to f4157bea,
// 2024-12) clamp the parallel degrees to the world before checking it (validate_args:
// tensor_model_parallel_size = min(tp, world_size), pipeline_model_parallel_size = min(pp,
// world_size // tp)); since 8af3dae72a Megatron-LM asserts the world divisible instead. A script
// runs on a clamping release when it passes a flag only those have: one of Megatron-DeepSpeed's
// own, or one that every Megatron-LM release from 8af3dae72a on refuses as unrecognized
// (arguments.py at monthly commits from 2020-11 to 2024-08, less those at 8af3dae72a, 2024-10,
// 2025-01, 2025-06, 2026-01 and d98e8a64dd). The first such flag's entry, or nullptr.
const entry* clamping_release_flag(const import_context& ctx) {
  static constexpr std::string_view flags[] = {
      // Megatron-DeepSpeed's
      "--deepspeed", "--deepspeed_config", "--zero-stage", "--deepspeed-activation-checkpointing",
      "--no-pipeline-parallel", "--ds-sequence-parallel-size",
      // removed from Megatron-LM before 8af3dae72a
      "--DDP-impl", "--activations-checkpoint-method", "--activations-checkpoint-num-layers",
      "--bias-dropout-fusion", "--bias-gelu-fusion", "--checkpoint-num-layers", "--data-impl",
      "--distribute-checkpointed-activations", "--faiss-use-gpu", "--fp32-allreduce", "--fp8-e4m3",
      "--fp8-hybrid", "--img-dim", "--layernorm-epsilon", "--log-batch-size-to-tensorboard",
      "--min-scale", "--mmap-warmup", "--multi-query-attention",
      "--no-contiguous-buffers-in-local-ddp", "--no-query-key-layer-scaling", "--num-unique-layers",
      "--override-lr-scheduler", "--param-sharing-style", "--report-topk-accuracies",
      "--retro-workdir", "--scaled-upper-triang-masked-softmax-fusion",
      "--use-checkpoint-lr-scheduler", "--use-contiguous-buffers-in-ddp"};
  for (std::string_view flag : flags)
    if (const entry* e = ctx.find(std::string(flag))) return e;
  return nullptr;
}

}  // namespace

maybe_error read_megatron_deepspeed(import_context& ctx);

maybe_error read_megatron_parallelism(import_context& ctx, long long world, megatron_mesh& m) {
  maybe_error error;
  // Megatron-LM before 52a5f2f (2020-10-20) had one model-parallel degree, --model-parallel-size,
  // its tensor-parallel layers (arguments.py: "Size of the model parallel."); later releases
  // refuse it (validate_args, 2623551d, 2020-12-10). Read as tensor parallelism when the script
  // has no --tensor-model-parallel-size.
  const char* tp_flag = ctx.find("--tensor-model-parallel-size") == nullptr &&
                                ctx.find("--model-parallel-size") != nullptr
                            ? "--model-parallel-size"
                            : "--tensor-model-parallel-size";
  // The model's depth first: a refusal names what decides the model before its layout.
  m.layers = flag_int(ctx, "--num-layers", 1, 1, error);
  m.tp = flag_int(ctx, tp_flag, 1, 1, error, max_megatron_degree);
  // DeepSpeedExamples' Megatron-LM-v1.1.5-3D_parallelism names the pipeline degree
  // --pipe-parallel-size, 0 (its default) without pipelining (arguments.py at ed2f9c56;
  // initialize.py builds the pipeline topology only when it is above 0).
  const bool pipe_size = ctx.find("--pipeline-model-parallel-size") == nullptr &&
                         ctx.find("--pipe-parallel-size") != nullptr;
  if (pipe_size) m.pp_flag = "--pipe-parallel-size";
  const char* pp_flag = m.pp_flag;
  m.pp = std::max(1LL, flag_int(ctx, pp_flag, 1, pipe_size ? 0 : 1, error, max_megatron_degree));
  m.cp = flag_int(ctx, "--context-parallel-size", 1, 1, error, max_megatron_degree);
  m.ep = flag_int(ctx, "--expert-model-parallel-size", 1, 1, error, max_megatron_degree);
  if (error) return error;
  if (world == 0) {
    world = assume_world(ctx, m.tp * m.pp * m.cp);
    m.gpus_assumed = true;
  }
  if (m.nodes_open) {
    // The fewest nodes of `world` GPUs that hold whole model-parallel groups.
    const long long nodes = m.tp * m.pp * m.cp / std::gcd(m.tp * m.pp * m.cp, world);
    (void)ctx.set("hardware.nodes", std::to_string(nodes), file_entry(ctx));
    ctx.note(fmt::format("the node count is not in the file: planned on {} node(s) of {} GPUs, "
                         "the fewest that hold tensor x pipeline x context parallel {}; that "
                         "fixes the data-parallel size and the gradient accumulation derived "
                         "from --global-batch-size: set hardware.nodes to plan more",
                         nodes, world, m.tp * m.pp * m.cp));
    world *= nodes;
  }
  if (const entry* old = clamping_release_flag(ctx);
      old != nullptr && world % (m.tp * m.pp * m.cp) != 0) {
    const long long tp = std::min(m.tp, world);
    const long long pp = std::min(m.pp, std::max(1LL, world / tp));
    if (world % tp == 0 && (tp != m.tp || pp != m.pp)) {
      ctx.note(*old, fmt::format("{} runs on Megatron-DeepSpeed or a Megatron-LM before 8af3dae72a "
                                 "(2024-08-05), whose validate_args clamps the parallel degrees to "
                                 "the world of {} GPUs: tensor parallel {} -> {}, pipeline "
                                 "parallel {} -> {}",
                                 old->key, world, m.tp, tp, m.pp, pp));
      m.tp = tp;
      m.pp = pp;
    }
  }
  if (world % (m.tp * m.pp * m.cp) != 0) {
    ctx.framework_refuses = true;
    // Pointed at the size the world does not hold (else any above 1), as written.
    const entry* e = nullptr;
    for (const bool dividing : {false, true})
      for (const auto& [flag, size] : {std::pair<const char*, long long>{tp_flag, m.tp},
                                       {pp_flag, m.pp},
                                       {"--context-parallel-size", m.cp}})
        if (e == nullptr && size > 1 && (dividing || world % size != 0)) e = ctx.find(flag);
    return at(e != nullptr ? e->where : file_entry(ctx).where,
              fmt::format("the world of {} GPUs (torchrun --nproc_per_node x --nnodes) is not "
                          "divisible by tensor x pipeline x context parallel sizes {} x {} x {}, "
                          "which Megatron refuses; launch a multiple of {} GPUs (or give smaller "
                          "sizes) to plan it",
                          world, m.tp, m.pp, m.cp, m.tp * m.pp * m.cp));
  }
  m.dp = world / (m.tp * m.pp * m.cp);
  if (auto problem = ctx.set("parallel.strategy", "megatron", file_entry(ctx)); !problem.empty())
    return at(file_entry(ctx).where, problem);
  set_from(ctx, tp_flag, "parallel.tp", std::to_string(m.tp), error);
  set_from(ctx, pp_flag, "parallel.pp", std::to_string(m.pp), error);
  // Megatron turns sequence parallelism off without tensor parallelism (validate_args).
  if (m.tp > 1)
    set_from(ctx, "--sequence-parallel", "parallel.sequence_parallel", "true", error);
  else if (const entry* e = ctx.find("--sequence-parallel"))
    ctx.ignore(*e);
  set_from(ctx, "--use-distributed-optimizer", "parallel.distributed_optimizer", "true", error);
  // With --save every rank writes what it holds (checkpointing.py save_checkpoint: its model
  // shard as mp_rank_XX files, or its share of a torch_dist/fsdp_dtensor distributed
  // checkpoint); no rank gathers the whole model.
  set_from(ctx, "--save", "checkpoint.save", "sharded", error);
  // Megatron-LLaMA's (alibaba, 2023) --overlapped-distributed-optimizer: its
  // OverlappedDistributedOptimizer shards the fp32 main weights and Adam's moments over the
  // data-parallel ranks as the distributed optimizer does, reducing gradients in its own buckets
  // (megatron/optimizer/__init__.py; arguments.py turns the contiguous DDP buffer off for it).
  if (const entry* e = ctx.find("--overlapped-distributed-optimizer");
      e != nullptr && ctx.find("--use-distributed-optimizer") == nullptr) {
    set_from(ctx, e->key, "parallel.distributed_optimizer", "true", error);
    ctx.note(*e,
             "Megatron-LLaMA's overlapped distributed optimizer shards the main weights and "
             "optimizer states over the data-parallel ranks: planned as the distributed "
             "optimizer (its gradient buckets as the distributed optimizer's buffer)");
  }
  if (!error) error = read_megatron_deepspeed(ctx);
  // Context parallelism: each rank holds 2 of the sequence's 2 x cp chunks
  // (get_batch_on_this_cp_rank) and Transformer Engine's attention passes the keys and values
  // round the cp ranks (--cp-comm-type p2p, the default); the distributed optimizer shards over
  // the data- and context-parallel ranks together, as parallel.cp plans it.
  set_from(ctx, "--context-parallel-size", "parallel.cp", std::to_string(m.cp), error);
  if (const entry* e = ctx.find("--cp-comm-type"); e != nullptr && m.cp > 1) {
    bool ring = true;
    for (const auto& item : e->value.is_list ? e->value.items : std::vector{e->value.text})
      ring = ring && lower_case(item) == "p2p";
    if (ring)
      ctx.mapped_to(*e, "parallel.cp");
    else
      ctx.note(*e, fmt::format("--cp-comm-type {} is planned as p2p, the ring of key and value "
                               "exchanges (all-to-all and all-gather hold other buffers)",
                               e->value.text));
  } else if (e != nullptr) {
    ctx.ignore(*e);
  }
  // Expert parallelism: the routed experts split over ep of the data- and context-parallel
  // ranks, their optimizer state over the dp x cp / ep expert-data-parallel ranks. With
  // --expert-tensor-parallel-size (Megatron-core 0.10 and later; tp when not given, arguments.py)
  // each expert splits over that many ranks, and ep x etp ranks may take tensor-parallel ones
  // too (parallel folding: parallel_state's expert groups over world / pp ranks).
  set_from(ctx, "--expert-model-parallel-size", "parallel.ep", std::to_string(m.ep), error);
  if (const entry* e = ctx.find("--expert-tensor-parallel-size"); e != nullptr && !error) {
    const long long etp =
        flag_int(ctx, "--expert-tensor-parallel-size", 0, 1, error, max_megatron_degree);
    if (!error && m.ep > 1)
      set_from(ctx, "--expert-tensor-parallel-size", "parallel.etp", std::to_string(etp), error);
    else if (!error)
      ctx.ignore(*e);
  }
  return error;
}

// Megatron-DeepSpeed (--deepspeed): DeepSpeed's engine runs the optimizer. ZeRO stage 1 shards
// the fp32 master weights and Adam states over the data-parallel ranks, as Megatron's
// distributed optimizer does; with --bf16 at stage 0 DeepSpeed's BF16_Optimizer shards them the
// same way (deepspeed/runtime/bf16_optimizer.py partitions its fp32 groups over the dp group;
// BigScience's scripts: "bf16 must use z0! it implements its own zero stage 1 equivalent"); fp16
// at stage 0 keeps them whole. The stage DeepSpeed uses is the JSON's (--deepspeed_config), which
// the scripts write from the same variable as --zero-stage; the JSON is not read.
maybe_error read_megatron_deepspeed(import_context& ctx) {
  const entry* ds = ctx.find("--deepspeed");
  const entry* stage_flag = ctx.find("--zero-stage");
  if (ds == nullptr) {
    if (stage_flag != nullptr)
      ctx.note(*stage_flag, "--zero-stage without --deepspeed: Megatron's own optimizer runs");
    return std::nullopt;
  }
  ctx.ignore(*ds);
  // The JSON chosen when the script runs (`--deepspeed_config $1`, a caller's argument): the ZeRO
  // stage and any offload of parameters or optimizer states are that file's, so nothing here says
  // what a GPU holds.
  if (const entry* json = ctx.find("--deepspeed_config");
      json != nullptr && stage_flag == nullptr) {
    const diagnostic* chosen = chosen_by_arguments(ctx, json->value.text);
    if (chosen == nullptr) chosen = run_time_value(ctx, json->value.text);
    if (chosen != nullptr || positional(json->value.text))
      return at(
          chosen != nullptr ? *chosen : json->where,
          fmt::format("--deepspeed_config \"{}\" is chosen when the script runs{}; the "
                      "DeepSpeed JSON it names sets the ZeRO stage and any offload, and the "
                      "launch gives no --zero-stage: write the config's path (or --zero-stage "
                      "N) into the script to plan it",
                      json->value.text, chosen != nullptr ? " (" + chosen->message + ")" : ""));
  }
  if (stage_flag == nullptr) {
    ctx.note(*ds, "--deepspeed without --zero-stage: the ZeRO stage is the DeepSpeed JSON's "
                  "(--deepspeed_config), which is not read; planned without ZeRO sharding "
                  "(--set parallel.distributed_optimizer=true plans stage 1's)");
    return std::nullopt;
  }
  maybe_error error;
  const long long stage = flag_int(ctx, "--zero-stage", 0, 0, error, 3);
  if (error) return error;
  const bool bf16 = ctx.find("--bf16") != nullptr;
  const bool sharded = stage >= 1 || bf16;
  if (sharded)
    if (auto problem = ctx.set("parallel.distributed_optimizer", "true", *stage_flag);
        !problem.empty())
      return at(stage_flag->where, problem);
  if (stage == 0 && bf16)
    ctx.note(*stage_flag, "--zero-stage 0 with --bf16: DeepSpeed's BF16_Optimizer shards the "
                          "fp32 master weights and optimizer states over the data-parallel "
                          "ranks, planned as the distributed optimizer");
  else if (stage == 0)
    ctx.ignore(*stage_flag);
  if (stage >= 2)
    ctx.note(*stage_flag, fmt::format("--zero-stage {}: planned as stage 1's sharded optimizer "
                                      "states; ZeRO-{} also shards the {} over the "
                                      "data-parallel ranks, which the plan keeps whole",
                                      stage, stage, stage == 2 ? "gradients" : "gradients and "
                                                                                "parameters"));
  return std::nullopt;
}

// Micro-batches: --global-batch-size / (--micro-batch-size x data-parallel size), the number
// Megatron's schedules run per step (megatron/core/num_microbatches_calculator.py).
maybe_error read_megatron_batch(import_context& ctx, const megatron_mesh& m) {
  maybe_error error;
  // Megatron-LM before 9019bbf (2020-12-06) named the micro batch --batch-size ("Batch size per
  // model instance") and the micro-batches of a step --num-microbatches-in-minibatch (training.py
  // runs that many forward and backward passes before the optimizer step); later releases refuse
  // --batch-size (validate_args) and count micro-batches from --global-batch-size.
  const char* micro_flag = ctx.find("--micro-batch-size") == nullptr &&
                                   ctx.find("--batch-size") != nullptr
                               ? "--batch-size"
                               : "--micro-batch-size";
  // The same era's DeepSpeedExamples 3D example runs --gas micro-batches a pipelined step
  // (training.py: the global batch is --batch-size x data-parallel size x --gas; "pipeline
  // parallelism only", its help says), read where --pipe-parallel-size pipelines.
  const char* count_flag = "--num-microbatches-in-minibatch";
  if (ctx.find(count_flag) == nullptr && ctx.find("--gas") != nullptr && m.pp > 1 &&
      ctx.find("--pipe-parallel-size") != nullptr)
    count_flag = "--gas";
  const bool old_count =
      ctx.find("--global-batch-size") == nullptr && ctx.find(count_flag) != nullptr;
  const long long micro = flag_int(ctx, micro_flag, 1, 1, error, max_megatron_degree);
  const long long count =
      old_count ? flag_int(ctx, count_flag, 1, 1, error, max_megatron_degree) : 1;
  const long long global = flag_int(ctx, "--global-batch-size", micro * m.dp * count, 1, error);
  if (error) return error;
  if (const entry* old = ctx.find("--batch-size"); old != nullptr && micro_flag != old->key)
    ctx.note(*old, "--batch-size is Megatron-LM's name for the micro batch before December 2020; "
                   "with --micro-batch-size newer releases refuse it: --micro-batch-size is read");
  // With a GPU count the file does not give, the global batch is checked against an assumed
  // data-parallel size: what is missing is the count, located where the script counts its GPUs
  // when it runs (`num_gpus=$(nvidia-smi ... | wc -l)`), if it does.
  if (global % (micro * m.dp) != 0 && (m.gpus_assumed || m.nodes_open)) {
    const diagnostic* counted = nullptr;
    for (const auto& [value, where] : ctx.chosen_by_arguments)
      if (value.starts_with(run_time_marker) && value.find("nvidia-smi") != std::string::npos) {
        counted = &where;
        break;
      }
    const std::string what = fmt::format(
        "--global-batch-size {} is not divisible by --micro-batch-size {} x data-parallel size {} "
        "on the {} GPUs assumed, and the file does not give the number of GPUs",
        global, micro, m.dp, m.dp * m.tp * m.pp * m.cp);
    const std::string remedy = "give the launcher the GPU and node counts the run has to plan it";
    return counted != nullptr
               ? at(*counted, fmt::format("{}: the script counts them when it runs ({}); {}", what,
                                          counted->message, remedy))
               : at(ctx.find("--global-batch-size")->where, fmt::format("{}; {}", what, remedy));
  }
  if (global % (micro * m.dp) != 0)
    return at(ctx.find("--global-batch-size")->where,
              fmt::format("--global-batch-size {} is not divisible by --micro-batch-size {} x "
                          "data-parallel size {} (the world / (tp {} x pp {} x cp {})), which "
                          "Megatron refuses; give a global batch that is a multiple of {} to "
                          "plan it",
                          global, micro, m.dp, m.tp, m.pp, m.cp, micro * m.dp));
  set_from(ctx, micro_flag, "training.micro_batch", std::to_string(micro), error);
  set_from(ctx, old_count ? count_flag : "--global-batch-size", "training.gradient_accumulation",
           std::to_string(global / (micro * m.dp)), error);
  set_from(ctx, "--seq-length", "training.seq_len", flag_text(ctx, "--seq-length", ""), error);
  return error;
}

// Virtual pipeline stages (interleaved 1F1B): --num-layers-per-virtual-pipeline-stage N gives
// layers / pp / N of them; --virtual-pipeline-model-parallel-size (older) and
// --num-virtual-stages-per-pipeline-rank give the count (validate_args).
maybe_error read_megatron_interleaving(import_context& ctx, const megatron_mesh& m) {
  maybe_error error;
  const entry* per_stage = ctx.find("--num-layers-per-virtual-pipeline-stage");
  const entry* count = ctx.find("--num-virtual-stages-per-pipeline-rank");
  if (count == nullptr) count = ctx.find("--virtual-pipeline-model-parallel-size");
  long long stages = 1;
  if (per_stage != nullptr) {
    const long long n = flag_int(ctx, per_stage->key, 1, 1, error);
    if (!error && (m.layers % m.pp != 0 || (m.layers / m.pp) % n != 0))
      return at(per_stage->where, fmt::format("{} {}: --num-layers {} / --pipeline-model-parallel-"
                                              "size {} is not a multiple of it",
                                              per_stage->key, n, m.layers, m.pp));
    stages = m.layers / m.pp / n;
  } else if (count != nullptr) {
    stages = flag_int(ctx, count->key, 1, 1, error);
  }
  const entry* from = per_stage != nullptr ? per_stage : count;
  if (error || from == nullptr) return error;
  if (stages <= 1 || m.pp <= 1) {
    ctx.ignore(*from);
    return std::nullopt;
  }
  set_from(ctx, from->key, "parallel.pp_schedule", "interleaved_1f1b", error);
  set_from(ctx, from->key, "parallel.pp_stages_per_rank", std::to_string(stages), error);
  return error;
}

// --use-precision-aware-optimizer: Transformer Engine's FusedAdam keeps the main parameters in
// --main-params-dtype (fp32 or fp16), the moments in --exp-avg-dtype / --exp-avg-sq-dtype (fp32,
// fp16, bf16 or fp8) and reads the gradients in --main-grads-dtype (fp32 or bf16), each fp32 by
// default (megatron/training/arguments.py, _add_training_args and validate_args; the optimizer's
// state in megatron/core/optimizer/__init__.py). Without the flag they are not read. The job
// spec holds one dtype for both moments: two different ones are planned at the wider, noted;
// fp8 moments are planned at 16 bits, noted.
maybe_error read_precision_aware_optimizer(import_context& ctx) {
  const entry* aware = ctx.find("--use-precision-aware-optimizer");
  const char* dtype_flags[] = {"--main-params-dtype", "--exp-avg-dtype", "--exp-avg-sq-dtype",
                               "--main-grads-dtype"};
  if (aware == nullptr) {
    for (const char* flag : dtype_flags)
      if (const entry* e = ctx.find(flag)) {
        ctx.note(*e, fmt::format("{} is read only with --use-precision-aware-optimizer, which the "
                                 "launch does not give: the optimizer keeps fp32",
                                 flag));
        ctx.ignore(*e);
      }
    return std::nullopt;
  }
  const auto value = [&](const char* flag, std::initializer_list<std::string_view> allowed,
                         std::string& out) -> maybe_error {
    out = flag_text(ctx, flag, "fp32");
    if (std::find(allowed.begin(), allowed.end(), out) != allowed.end()) return std::nullopt;
    const entry* e = ctx.find(flag);
    return at(e->where, fmt::format("{}: expected one of {}, got \"{}\"", flag,
                                    fmt::join(allowed, ", "), out));
  };
  std::string main, avg, sq, grads;
  if (auto err = value("--main-params-dtype", {"fp32", "fp16"}, main)) return err;
  if (auto err = value("--exp-avg-dtype", {"fp32", "fp16", "bf16", "fp8"}, avg)) return err;
  if (auto err = value("--exp-avg-sq-dtype", {"fp32", "fp16", "bf16", "fp8"}, sq)) return err;
  if (auto err = value("--main-grads-dtype", {"fp32", "bf16"}, grads)) return err;
  const auto bits = [](const std::string& d) { return d == "fp32" ? 32 : d == "fp8" ? 8 : 16; };
  const bool wider_avg = bits(avg) >= bits(sq);
  std::string state = wider_avg ? avg : sq;
  if (avg != sq)
    ctx.note(*aware, fmt::format("--exp-avg-dtype {} and --exp-avg-sq-dtype {}: both moments "
                                 "planned as {}, the wider",
                                 avg, sq, state));
  if (state == "fp8") {
    state = "fp16";
    ctx.note(*aware, "fp8 moments are planned at 16 bits (the job spec's narrowest state)");
  }
  const entry* main_at = ctx.find("--main-params-dtype");
  const entry* state_at = ctx.find(wider_avg ? "--exp-avg-dtype" : "--exp-avg-sq-dtype");
  const entry* grads_at = ctx.find("--main-grads-dtype");
  for (const auto& [path, v, from] : {std::tuple{"precision.master", main, main_at},
                                      std::tuple{"optimizer.state", state, state_at},
                                      std::tuple{"precision.reduce", grads, grads_at}})
    if (from != nullptr || path != std::string_view("precision.reduce"))
      if (auto problem = ctx.set(path, v, from != nullptr ? *from : *aware); !problem.empty())
        return at((from != nullptr ? from : aware)->where, problem);
  return std::nullopt;
}

// Float8 training through Transformer Engine (megatron/core/transformer/transformer_config.py:
// fp8, fp8_recipe, fp8_param). --fp8-format e4m3 or hybrid turns it on (before 2023-08 the
// switches were --fp8-e4m3 and --fp8-hybrid); --fp8-recipe picks the scaling, "delayed" by
// default: delayed and tensorwise keep one scale per tensor (precision.float8 tensorwise),
// blockwise and mxfp8 are their own. --fp8-param-gather keeps the weights as float8 tensors
// (parallel.float8_all_gather). Without a format the recipe and the parameter switch are read
// by nothing.
maybe_error read_megatron_fp8(import_context& ctx) {
  const entry* format = ctx.find("--fp8-format");
  for (const char* old : {"--fp8-hybrid", "--fp8-e4m3"})
    if (format == nullptr) format = ctx.find(old);
  const entry* recipe_at = ctx.find("--fp8-recipe");
  const entry* params = ctx.find("--fp8-param-gather");
  if (format == nullptr) {
    for (const entry* e : {recipe_at, params})
      if (e != nullptr) {
        ctx.note(*e, fmt::format("{} takes effect only with --fp8-format, which the launch does "
                                 "not give: planned without float8",
                                 e->key));
        ctx.ignore(*e);
      }
    return std::nullopt;
  }
  if (format->key == "--fp8-format" && format->value.text != "e4m3" &&
      format->value.text != "hybrid")
    return at(format->where,
              fmt::format("--fp8-format: expected e4m3 or hybrid, got \"{}\"", format->value.text));
  const std::string recipe = flag_text(ctx, "--fp8-recipe", "delayed");
  std::string planned;
  if (recipe == "delayed" || recipe == "tensorwise") {
    planned = "tensorwise";
  } else if (recipe == "blockwise" || recipe == "mxfp8") {
    planned = recipe;
  } else if (recipe == "custom") {
    planned = "tensorwise";
    ctx.note(*recipe_at,
             "--fp8-recipe custom (a quantizer factory's recipe): planned as one "
             "float8 scale per tensor");
  } else {
    return at(recipe_at->where,
              fmt::format("--fp8-recipe: expected delayed, tensorwise, mxfp8, blockwise or "
                          "custom, got \"{}\"",
                          recipe));
  }
  if (auto problem = ctx.set("precision.float8", planned, *format); !problem.empty())
    return at(format->where, problem);
  if (recipe_at != nullptr) ctx.mapped_to(*recipe_at, "precision.float8");
  if (params != nullptr)
    if (auto problem = ctx.set("parallel.float8_all_gather", "true", *params); !problem.empty())
      return at(params->where, problem);
  return std::nullopt;
}

// --bf16 / --fp16 cast the model (Float16Module). The main_grad buffer is fp32 under bf16
// (validate_args turns accumulate_allreduce_grads_in_fp32 on) unless --grad-reduce-in-bf16; under
// fp16 it is fp16 unless --accumulate-allreduce-grads-in-fp32. The optimizer keeps fp32 main
// parameters in both.
maybe_error read_megatron_precision(import_context& ctx) {
  const entry* bf16 = ctx.find("--bf16");
  const entry* fp16 = ctx.find("--fp16");
  if (bf16 != nullptr && fp16 != nullptr) {
    ctx.framework_refuses = true;
    return at(fp16->where,
              "--fp16 and --bf16 are both given (Megatron refuses that); keep one of "
              "them to plan it");
  }
  maybe_error error;
  if (bf16 == nullptr && fp16 == nullptr) {
    set_from(ctx, "--accumulate-allreduce-grads-in-fp32", "precision.reduce", "fp32", error);
    if (auto problem = ctx.set("precision", "fp32", file_entry(ctx)); !problem.empty())
      return at(file_entry(ctx).where, problem);
    if (!error) error = read_megatron_fp8(ctx);
    return error;
  }
  const entry& on = bf16 != nullptr ? *bf16 : *fp16;
  const std::string dtype = bf16 != nullptr ? "bf16" : "fp16";
  const bool fp32_grads = bf16 != nullptr ? !flag_given(ctx, "--grad-reduce-in-bf16")
                                          : flag_given(ctx, "--accumulate-allreduce-grads-in-fp32");
  for (const auto& [path, value] :
       {std::pair{"precision.params", dtype}, std::pair{"precision.master", std::string("fp32")},
        std::pair{"precision.reduce", fp32_grads ? std::string("fp32") : dtype}})
    if (auto problem = ctx.set(path, value, on); !problem.empty()) return at(on.where, problem);
  set_from(ctx, "--grad-reduce-in-bf16", "precision.reduce", dtype, error);
  set_from(ctx, "--accumulate-allreduce-grads-in-fp32", "precision.reduce", "fp32", error);
  if (!error) error = read_precision_aware_optimizer(ctx);
  if (!error) error = read_megatron_fp8(ctx);
  return error;
}

// --recompute-granularity full recomputes whole layers: --recompute-method uniform checkpoints
// groups of --recompute-num-layers (1) layers, block the first --recompute-num-layers layers of
// each (virtual) pipeline stage (training.checkpoint_blocks). selective recomputes core attention
// only (megatron/core/transformer/transformer_block.py, _checkpointed_forward).
maybe_error read_megatron_recompute(import_context& ctx, const megatron_mesh& m) {
  std::string granularity = flag_text(ctx, "--recompute-granularity", "");
  const entry* from = ctx.find("--recompute-granularity");
  if (granularity.empty() && (from = ctx.find("--recompute-activations")) != nullptr)
    granularity = "selective";
  // Megatron-LM before 2.6 (2021): --checkpoint-activations recomputed whole layers in groups of
  // --checkpoint-num-layers (1), the later --recompute-granularity full, method uniform.
  if (granularity.empty() && (from = ctx.find("--checkpoint-activations")) != nullptr) {
    granularity = "full";
    if (const entry* n = ctx.find("--checkpoint-num-layers"); n != nullptr && n->value.text != "1")
      ctx.note(*n, fmt::format("--checkpoint-num-layers {}: groups of layers are planned as every "
                               "layer checkpointed on its own",
                               n->value.text));
  }
  // The method and layer count act under full recompute only, the modules under selective.
  for (const char* flag : {"--recompute-method", "--recompute-num-layers", "--recompute-modules"}) {
    const entry* e = ctx.find(flag);
    const bool acts = e != nullptr && (e->key == "--recompute-modules" ? granularity == "selective"
                                                                       : granularity == "full");
    if (e != nullptr && !acts) ctx.ignore(*e);
  }
  maybe_error error;
  if (from == nullptr) return std::nullopt;
  if (granularity == "selective") return read_selective(ctx, *from);
  if (granularity != "full")
    return at(from->where, fmt::format("--recompute-granularity: invalid value \"{}\" (expected "
                                       "full or selective)",
                                       granularity));
  const std::string method = flag_text(ctx, "--recompute-method", "uniform");
  const long long n = flag_int(ctx, "--recompute-num-layers", 1, 0, error);
  if (error) return error;
  const long long stages =
      std::max(1LL, static_cast<long long>(ctx.out.job.parallel.pp_stages_per_rank));
  const long long per_stage = std::max(1LL, m.layers / m.pp / stages);
  std::string mode = "full";
  if (method == "uniform" && n > 1)
    ctx.note(*ctx.find("--recompute-num-layers"),
             fmt::format("uniform recompute of {}-layer groups is planned as every layer "
                         "checkpointed on its own (Megatron keeps one input per group, and "
                         "recomputes a group's activations at once)",
                         n));
  if (method == "block" && n == 0) mode = "none";
  if (method == "block" && n > 0 && n < per_stage) {
    const entry* count = ctx.find("--recompute-num-layers");
    const entry& anchor = count != nullptr ? *count : *from;
    if (auto problem = ctx.set("training.checkpoint_blocks", std::to_string(n), anchor);
        !problem.empty())
      return at(anchor.where, problem);
  }
  if (method != "uniform" && method != "block")
    return at(ctx.find("--recompute-method")->where,
              fmt::format("--recompute-method: invalid value \"{}\" (expected uniform or block)",
                          method));
  if (auto problem = ctx.set("training.activation_checkpointing", mode, *from); !problem.empty())
    return at(from->where, problem);
  set_from(ctx, "--recompute-method", "training.activation_checkpointing", mode, error);
  return error;
}

// Megatron-LM's expert capacity (moe_utils.apply_router_token_dropping), read only for a model
// with experts: without --num-experts Megatron builds no router and never reads the flags.
maybe_error read_megatron_capacity(import_context& ctx) {
  maybe_error error;
  const bool experts = flag_int(ctx, "--num-experts", 0, 0, error) > 0;
  if (error) return error;
  for (const char* flag : {"--moe-expert-capacity-factor", "--moe-pad-expert-input-to-capacity"})
    if (const entry* e = ctx.find(flag); e != nullptr && !experts) ctx.ignore(*e);
  if (!experts) return std::nullopt;
  set_from(ctx, "--moe-expert-capacity-factor", "training.moe_capacity_factor",
           flag_text(ctx, "--moe-expert-capacity-factor", ""), error);
  set_from(ctx, "--moe-pad-expert-input-to-capacity", "training.moe_pad_to_capacity", "true",
           error);
  return error;
}

// --attention-backend: flash, fused (cuDNN) and auto keep what flash attention keeps; unfused and
// local run the softmax in PyTorch and keep the s x s scores and probabilities (planned as SDPA's
// math backend; selective recompute, core_attention, recomputes them instead).
std::string read_megatron_attention(import_context& ctx, const entry& e) {
  const std::string v = lower_case(e.value.text);
  // --use-flash-attn, and Megatron-DeepSpeed's --use-flash-attn-v2 / -triton / -builder
  if (v == "flash" || v == "fused" || v == "auto" || e.key.rfind("--use-flash-attn", 0) == 0)
    return ctx.set("training.attention", "flash", e);
  if (v == "unfused" || v == "local") return ctx.set("training.attention", "math", e);
  // A fork's --use-memory-attn (ZhangDY-6483/Megatron-LM at 0a59063d, megatron/model/
  // transformer.py: xformers.ops.memory_efficient_attention), a kernel that keeps no score matrix.
  if (e.key == "--use-memory-attn") return ctx.set("training.attention", "efficient", e);
  return fmt::format(
      "{}: invalid value \"{}\" (expected one of: flash, fused, unfused, local, "
      "auto)",
      e.key, e.value.text);
}

// --optimizer adam (Megatron's default) or sgd (momentum 0.9 unless --sgd-momentum 0); other
// optimizers are planned as adamw, noted. Megatron's "adam" is AdamW: megatron/core/optimizer
// builds Transformer Engine's or apex's FusedAdam (adam_w_mode true by default) or else
// torch.optim.AdamW, all imported as Adam (Megatron-LM since fda81a21, 2021; the config's
// decoupled_weight_decay, default true, 03fd0b41b3 2025-09-23, has no command-line flag).
std::string read_megatron_optimizer(import_context& ctx, const entry& e) {
  const std::string v = lower_case(e.value.text);
  if (v == "adam") return ctx.set("optimizer.name", "adamw", e);
  if (v == "sgd") {
    const entry* m = ctx.find("--sgd-momentum");
    const bool plain = m != nullptr && std::strtod(m->value.text.c_str(), nullptr) == 0.0;
    if (m != nullptr) ctx.mapped_to(*m, "optimizer.name");
    return ctx.set("optimizer.name", plain ? "sgd" : "sgd_momentum", e);
  }
  ctx.note(e, fmt::format("--optimizer {} is not modelled: planned as adamw", e.value.text));
  return ctx.set("optimizer.name", "adamw", e);
}

}  // namespace vramscope::job::detail
