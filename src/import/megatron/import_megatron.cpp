// Megatron-LM's pretrain_gpt.py arguments (a plain list, or a launch script in the style of
// Megatron's examples/gpt3 and examples/llama) -> job spec with parallel.strategy megatron.
// Flag names and defaults from megatron/training/arguments.py and the TransformerConfig /
// DistributedDataParallelConfig / OptimizerConfig fields it exposes as flags (NVIDIA/Megatron-LM
// at d98e8a6); what each one becomes is tabled in docs/importers.md, "Megatron-LM".
#include <vramscope/import/importers.hpp>

#include <fmt/format.h>

#include <algorithm>

#include "import/megatron/megatron_args.hpp"
#include "import/megatron/megatron_arguments.hpp"
#include "import/shell_launch.hpp"
#include "job/source_text.hpp"

namespace vramscope::job {

namespace detail {

namespace {

using maybe_error = std::optional<diagnostic>;

bool is_flag(const std::string& word) { return word.size() > 2 && word.rfind("--", 0) == 0; }

// Where `flag` is written when the script writes it exactly once, outside comments, as a word
// of its own ("--flag", "--flag=..."): a flag that reached the command through a string variable
// (`options="... --tokenizer-type X ..."`, then `torchrun ... ${options}`) is located at its own
// line rather than at the command's. {0, 0} when it is written more than once, or not at all.
std::pair<int, int> sole_occurrence(std::string_view text, std::string_view flag) {
  std::pair<int, int> found{0, 0};
  int line = 1;
  for (std::size_t start = 0; start < text.size();) {
    const auto end = std::min(text.find('\n', start), text.size());
    const std::string_view row = text.substr(start, end - start);
    const auto first = row.find_first_not_of(" \t");
    if (first != std::string_view::npos && row[first] != '#') {
      for (auto at = row.find(flag); at != std::string_view::npos; at = row.find(flag, at + 1)) {
        const char before = at == 0 ? ' ' : row[at - 1];
        const char after = at + flag.size() < row.size() ? row[at + flag.size()] : ' ';
        const bool word_start = before == ' ' || before == '\t' || before == '"' ||
                                before == '\'' || before == '(';
        const bool word_end = after == ' ' || after == '\t' || after == '=' || after == '"' ||
                              after == '\'' || after == '\\' || after == ')' || after == '\r';
        if (!word_start || !word_end) continue;
        if (found.first != 0) return {0, 0};
        found = {line, static_cast<int>(at) + 1};
      }
    }
    start = end + 1;
    ++line;
  }
  return found;
}

// Each "--flag" with the words after it up to the next flag ("--flag=value" holds its value).
// argparse keeps the last of a repeated flag; so does this, with a note.
void read_flags(import_context& ctx, std::string_view text, const std::vector<shell_word>& words) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    const shell_word& w = words[i];
    diagnostic where = location(ctx.source, text, w.line, w.column);
    if (is_flag(w.text)) {
      const auto [line, column] = sole_occurrence(text, w.text.substr(0, w.text.find('=')));
      if (line != 0 && line != w.line) where = location(ctx.source, text, line, column);
    }
    if (!is_flag(w.text)) {
      ctx.note(entry{w.text, {}, false, where},
               fmt::format("\"{}\" follows no flag; ignored", w.text));
      continue;
    }
    entry e;
    e.where = where;
    const auto equals = w.text.find('=');
    e.key = w.text.substr(0, equals);
    if (equals != std::string::npos) e.value.items.push_back(w.text.substr(equals + 1));
    while (equals == std::string::npos && i + 1 < words.size() && !is_flag(words[i + 1].text))
      e.value.items.push_back(words[++i].text);
    e.value.text = join(e.value.items, " ");
    e.value.is_list = e.value.items.size() > 1;
    const auto old = std::find_if(ctx.entries.begin(), ctx.entries.end(),
                                  [&](const entry& o) { return o.key == e.key; });
    if (old != ctx.entries.end()) {
      ctx.note(e, fmt::format("{} is given again (first on line {}): the last value is used, as "
                              "argparse does",
                              e.key, old->where.line));
      ctx.entries.erase(old);
    }
    ctx.entries.push_back(std::move(e));
  }
}

// torchrun (or python -m torch.distributed.run / launch): --nproc_per_node x --nnodes GPUs.
// torchrun's own defaults are one process on one node. Returns the world size, 0 when unknown.
long long read_launcher(import_context& ctx, std::string_view text, const shell_launch& launch,
                        maybe_error& error) {
  const auto& words = launch.launcher;
  const auto where = [&](const shell_word& w) {
    return location(ctx.source, text, w.line, w.column);
  };
  const bool torchrun = std::any_of(words.begin(), words.end(), [](const shell_word& w) {
    return w.text == "torchrun" || w.text.ends_with("/torchrun") ||
           w.text == "torch.distributed.run" || w.text == "torch.distributed.launch";
  });
  // `python pretrain_gpt.py ...` (Megatron's single-GPU examples): one process, one GPU.
  const bool plain_python =
      !words.empty() && std::all_of(words.begin(), words.end(), [](const shell_word& w) {
        const auto slash = w.text.rfind('/');
        const std::string name = slash == std::string::npos ? w.text : w.text.substr(slash + 1);
        return name.rfind("python", 0) == 0 || (w.text.rfind('-', 0) == 0 && w.text != "-m");
      });
  // `srun [flags] sh -c "python pretrain_*.py ..."`: srun starts the command once per task, a
  // task a GPU (srun(1): --ntasks-per-node, -N/--nodes; without them the #SBATCH allocation's).
  const auto srun = std::find_if(launch.outer.begin(), launch.outer.end(), [](const shell_word& w) {
    return w.text == "srun" || w.text.ends_with("/srun");
  });
  if (!torchrun && plain_python && srun != launch.outer.end()) {
    shell_word per_node = launch.sbatch_tasks_per_node, nodes = launch.sbatch_nodes;
    for (auto w = srun; w != launch.outer.end(); ++w) {
      std::string key = w->text, value;
      const auto eq = key.find('=');
      if (eq != std::string::npos) value = key.substr(eq + 1), key.resize(eq);
      else if (w + 1 != launch.outer.end()) value = (w + 1)->text;
      if (key == "--ntasks-per-node") per_node = shell_word{value, w->line, w->column, false};
      if (key == "--nodes" || key == "-N") nodes = shell_word{value, w->line, w->column, false};
    }
    if (per_node.text.empty()) {
      ctx.note(entry{"srun", {}, false, where(*srun)},
               "srun runs the command once per task, and neither srun nor #SBATCH gives "
               "--ntasks-per-node: the number of GPUs is not read from it");
      return 0;
    }
    long long counts[] = {1, 1};
    const shell_word* given[] = {&per_node, &nodes};
    static const char* fields[] = {"hardware.gpus_per_node", "hardware.nodes"};
    for (int k = 0; k < 2; ++k) {
      if (given[k]->text.empty()) continue;
      const entry e{k == 0 ? "srun --ntasks-per-node" : "srun --nodes",
                    {given[k]->text, {}, false}, false, where(*given[k])};
      ctx.entries.push_back(e);
      counts[k] = flag_int(ctx, e.key, 1, 1, error, max_megatron_degree);
      ctx.entries.pop_back();
      if (error) return 0;
      if (auto problem = ctx.set(fields[k], std::to_string(counts[k]), e); !problem.empty()) {
        error = at(e.where, problem);
        return 0;
      }
    }
    ctx.note(entry{"srun", {}, false, where(*srun)},
             fmt::format("srun starts {} once per task: {} task(s) a node x {} node(s), a GPU "
                         "each", words[0].text, counts[0], counts[1]));
    return counts[0] * counts[1];
  }
  if (!torchrun && plain_python) {
    const entry e{words[0].text, {"1", {}, false}, false, where(words[0])};
    ctx.note(e, fmt::format("{} runs the script as one process: one GPU", words[0].text));
    for (const char* field : {"hardware.gpus_per_node", "hardware.nodes"})
      if (auto problem = ctx.set(field, "1", e); !problem.empty()) {
        error = at(e.where, problem);
        return 0;
      }
    return 1;
  }
  if (!torchrun) {
    const std::string name = words.empty() ? launch.script.text : words[0].text;
    ctx.note(entry{name, {}, false, where(words.empty() ? launch.script : words[0])},
             fmt::format("{} is not torchrun: the number of GPUs is not read from it", name));
    return 0;
  }
  static const std::pair<const char*, const char*> fields[] = {
      {"--nproc_per_node", "hardware.gpus_per_node"}, {"--nnodes", "hardware.nodes"}};
  long long counts[] = {1, 1};
  bool given[] = {false, false};
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string key = words[i].text, value;
    diagnostic at_word = where(words[i]);
    if (!is_flag(key)) continue;
    // A launcher flag that reached the command through a string (`CMD="torchrun ${ARGS[@]} ..."`
    // run by `bash -c "$CMD"`) is located where it is written, as the script's flags are.
    if (const auto [line, column] = sole_occurrence(text, key.substr(0, key.find('=')));
        line != 0 && line != words[i].line)
      at_word = location(ctx.source, text, line, column);
    if (const auto eq = key.find('='); eq != std::string::npos) {
      value = key.substr(eq + 1);
      key = key.substr(0, eq);
    } else if (i + 1 < words.size() && !is_flag(words[i + 1].text)) {
      value = words[++i].text;
    }
    ctx.entries.push_back(entry{"torchrun " + key, {value, {}, false}, false, at_word});
    std::string canonical = key;
    std::replace(canonical.begin() + 2, canonical.end(), '-', '_');  // --nproc-per-node too
    std::size_t k = 0;
    while (k < 2 && canonical != fields[k].first) ++k;
    if (k == 2) {
      ctx.ignore(ctx.entries.back());
    } else if (counts[k] = flag_int(ctx, ctx.entries.back().key, 1, 1, error, max_megatron_degree);
               !error) {
      given[k] = true;
      if (auto problem = ctx.set(fields[k].second, std::to_string(counts[k]), ctx.entries.back());
          !problem.empty())
        error = at(at_word, problem);
    }
    ctx.entries.pop_back();
  }
  if (!given[0] && !error) {
    (void)ctx.set("hardware.gpus_per_node", "1", entry{"", {}, false, where(words[0])});
    ctx.note(entry{"torchrun", {}, false, where(words[0])},
             "torchrun without --nproc_per_node runs one process a node: planned so");
  }
  return counts[0] * counts[1];
}

// Flags the importer's own code reads (parallelism, batch, precision, recompute); the model's
// are megatron_model_flags.
constexpr const char* read_by_code[] = {"--tensor-model-parallel-size",
                                        "--pipeline-model-parallel-size",
                                        "--context-parallel-size",
                                        "--cp-comm-type",
                                        "--expert-model-parallel-size",
                                        "--sequence-parallel",
                                        "--use-distributed-optimizer",
                                        "--num-layers-per-virtual-pipeline-stage",
                                        "--virtual-pipeline-model-parallel-size",
                                        "--num-virtual-stages-per-pipeline-rank",
                                        "--micro-batch-size",
                                        "--global-batch-size",
                                        "--batch-size",  // the micro batch, to 2020-12
                                        "--model-parallel-size",  // tp, to 2020-10
                                        "--num-microbatches-in-minibatch",  // to 2020-12
                                        "--seq-length",
                                        "--bf16",
                                        "--fp16",
                                        "--grad-reduce-in-bf16",
                                        "--accumulate-allreduce-grads-in-fp32",
                                        "--recompute-granularity",
                                        "--recompute-activations",
                                        "--checkpoint-activations",
                                        "--checkpoint-num-layers",
                                        "--recompute-method",
                                        "--recompute-num-layers",
                                        "--recompute-modules",
                                        "--moe-expert-capacity-factor",
                                        "--moe-pad-expert-input-to-capacity",
                                        "--sgd-momentum"};

// Megatron flags that do not change GPU memory: learning-rate schedule, data, checkpoint paths,
// logging, profiling, kernel fusions that keep the same tensors, communication overlap.
constexpr const char* without_effect[] = {"--use-mcore-models",
                                          "--logging-level",
                                          "--data-impl",  // the dataset's file format (to 2022)
                                          "--use-legacy-models",
                                          "--transformer-impl",
                                          "--overlap-grad-reduce",
                                          "--overlap-param-gather",
                                          "--align-param-gather",
                                          "--align-grad-reduce",
                                          "--ddp-bucket-size",
                                          "--ddp-average-in-collective",
                                          "--overlap-p2p-communication",
                                          "--defer-embedding-wgrad-compute",
                                          "--check-for-nan-in-loss-and-grad",
                                          "--no-check-for-nan-in-loss-and-grad",
                                          "--no-gradient-accumulation-fusion",
                                          "--no-masked-softmax-fusion",
                                          "--no-bias-gelu-fusion",
                                          "--no-bias-swiglu-fusion",
                                          "--no-bias-dropout-fusion",
                                          "--no-rope-fusion",
                                          "--no-persist-layer-norm",
                                          "--apply-layernorm-1p",
                                          "--attention-softmax-in-fp32",
                                          "--rotary-base",
                                          "--rotary-percent",
                                          "--rotary-seq-len-interpolation-factor",
                                          "--use-rope-scaling",
                                          "--rope-scaling-factor",
                                          "--norm-epsilon",
                                          "--init-method-std",
                                          "--init-method-xavier-uniform",
                                          "--use-cpu-initialization",
                                          "--lr",
                                          "--min-lr",
                                          "--lr-decay-style",
                                          "--lr-decay-iters",
                                          "--lr-decay-samples",
                                          "--lr-warmup-fraction",
                                          "--lr-warmup-iters",
                                          "--lr-warmup-samples",
                                          "--lr-warmup-init",
                                          "--decoupled-lr",
                                          "--decoupled-min-lr",
                                          "--weight-decay",
                                          "--start-weight-decay",
                                          "--end-weight-decay",
                                          "--weight-decay-incr-style",
                                          "--clip-grad",
                                          "--adam-beta1",
                                          "--adam-beta2",
                                          "--adam-eps",
                                          "--loss-scale",
                                          "--initial-loss-scale",
                                          "--min-loss-scale",
                                          "--loss-scale-window",
                                          "--hysteresis",
                                          "--train-iters",
                                          "--train-samples",
                                          "--exit-interval",
                                          "--exit-duration-in-mins",
                                          "--exit-signal-handler",
                                          "--seed",
                                          "--rampup-batch-size",
                                          "--step-batch-size-schedule",
                                          "--calculate-per-token-loss",
                                          "--manual-gc",
                                          "--manual-gc-interval",
                                          "--manual-gc-eval",
                                          "--data-path",
                                          "--train-data-path",
                                          "--valid-data-path",
                                          "--test-data-path",
                                          "--split",
                                          "--vocab-file",
                                          "--merge-file",
                                          "--tokenizer-model",
                                          "--data-cache-path",
                                          "--mock-data",
                                          "--num-workers",
                                          "--no-create-attention-mask-in-dataloader",
                                          "--no-mmap-bin-files",
                                          "--tiktoken-pattern",
                                          "--reset-position-ids",
                                          "--reset-attention-mask",
                                          "--eod-mask-loss",
                                          "--dataloader-type",
                                          "--save",
                                          "--load",
                                          "--save-interval",
                                          "--ckpt-format",
                                          "--no-save-optim",
                                          "--no-save-rng",
                                          "--no-load-optim",
                                          "--no-load-rng",
                                          "--finetune",
                                          "--pretrained-checkpoint",
                                          "--use-checkpoint-args",
                                          "--use-dist-ckpt",
                                          "--auto-detect-ckpt-format",
                                          "--ckpt-fully-parallel-save",
                                          "--ckpt-fully-parallel-load",
                                          "--async-save",
                                          "--ckpt-assume-constant-structure",
                                          "--log-interval",
                                          "--log-params-norm",
                                          "--log-num-zeros-in-grad",
                                          "--log-throughput",
                                          "--log-timers-to-tensorboard",
                                          "--log-validation-ppl-to-tensorboard",
                                          "--log-memory-to-tensorboard",
                                          "--log-world-size-to-tensorboard",
                                          "--log-loss-scale-to-tensorboard",
                                          "--log-batch-size-to-tensorboard",
                                          "--timing-log-level",
                                          "--timing-log-option",
                                          "--tensorboard-dir",
                                          "--tensorboard-log-interval",
                                          "--tensorboard-queue-size",
                                          "--wandb-project",
                                          "--wandb-exp-name",
                                          "--wandb-save-dir",
                                          "--eval-iters",
                                          "--eval-interval",
                                          "--skip-train",
                                          "--profile",
                                          "--profile-step-start",
                                          "--profile-step-end",
                                          "--profile-ranks",
                                          "--use-pytorch-profiler",
                                          "--distributed-backend",
                                          "--distributed-timeout-minutes",
                                          "--deterministic-mode",
                                          "--log-progress",
                                          "--moe-router-load-balancing-type",
                                          "--moe-aux-loss-coeff",
                                          "--moe-z-loss-coeff",
                                          "--moe-token-dispatcher-type",
                                          // which tokens an expert over capacity drops, not
                                          // how many it takes
                                          "--moe-token-drop-policy",
                                          "--moe-grouped-gemm",
                                          "--moe-shared-expert-overlap",
                                          "--moe-permute-fusion",
                                          "--moe-router-dtype"};

// Flags that change memory in ways strategy megatron does not plan.
const std::vector<option>& not_modelled_rows() {
  static const std::vector<option> rows = [] {
    std::vector<option> out;
    const auto add = [&](std::initializer_list<const char*> flags, const char* reason) {
      for (const char* f : flags) out.push_back({f, not_modelled(reason)});
    };
    add({"--fp8-format", "--fp8-recipe", "--fp8-margin", "--fp8-interval", "--fp8-amax-history-len",
         "--fp8-amax-compute-algo", "--fp8-param-gather", "--first-last-layers-bf16",
         "--fp4-format", "--fp4-recipe", "--fp4-param"},
        "Transformer Engine FP8/FP4 training: float8 weight copies and activations");
    add({"--tp-comm-overlap"},
        "Transformer Engine's userbuffers for overlapped tensor-parallel "
        "communication");
    add({"--cross-entropy-loss-fusion"}, "the fused cross-entropy keeps no fp32 logits");
    add({"--empty-unused-memory-level"}, "torch.cuda.empty_cache() between phases");
    add({"--cpu-offloading", "--cpu-offloading-num-layers", "--cpu-offloading-activations",
         "--cpu-offloading-weights"},
        "activation and weight offloading to the CPU");
    add({"--optimizer-cpu-offload", "--optimizer-offload-fraction",
         "--use-precision-aware-optimizer", "--main-grads-dtype", "--main-params-dtype",
         "--exp-avg-dtype", "--exp-avg-sq-dtype"},
        "optimizer state placement and dtypes");
    add({"--distribute-saved-activations"}, "saved activations split over tensor-parallel ranks");
    add({"--expert-tensor-parallel-size"},
        "expert tensor parallelism other than the tensor-parallel size");
    add({"--decoder-first-pipeline-num-layers", "--decoder-last-pipeline-num-layers",
         "--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split",
         "--pipeline-model-parallel-layout"},
        "uneven pipeline splits");
    add({"--mtp-num-layers"}, "multi-token prediction layers");
    add({"--hybrid-override-pattern", "--hybrid-layer-pattern"}, "Mamba hybrid layers");
    add({"--squared-relu", "--quick-geglu", "--qk-layernorm"}, "other layer shapes");
    add({"--use-torch-fsdp2", "--use-megatron-fsdp", "--data-parallel-sharding-strategy"},
        "Megatron's FSDP; strategy megatron plans its DDP with the distributed optimizer");
    // Megatron-FSDP's buffers (megatron/core/distributed/fsdp, arguments.py 2025-2026).
    add({"--fsdp-double-buffer", "--use-nccl-ub", "--fsdp-manual-registration"},
        "Megatron-FSDP's communication buffers");
    add({"--init-model-with-meta-device"}, "weights created on the meta device, then sharded");
    add({"--record-memory-history"}, "the allocator's history of allocations, kept on the host");
    add({"--decoder-seq-length"}, "encoder-decoder lengths");
    return out;
  }();
  return rows;
}

// Megatron-DeepSpeed's own arguments (tests/data/options/megatron_deepspeed_options.txt: the
// flags of bigscience-workshop/Megatron-DeepSpeed's megatron/arguments.py that Megatron-LM does
// not have, and DeepSpeed's add_config_arguments), each classified: a launch of that fork is a
// Megatron launch whose optimizer DeepSpeed runs (read_megatron_deepspeed).
const std::vector<option>& megatron_deepspeed_rows() {
  static const std::vector<option> rows = [] {
    std::vector<option> out;
    const auto quiet = [&](std::initializer_list<const char*> flags) {
      for (const char* f : flags) out.push_back({f, no_effect()});
    };
    const auto unplanned = [&](std::initializer_list<const char*> flags, const char* reason) {
      for (const char* f : flags) out.push_back({f, not_modelled(reason)});
    };
    out.push_back({"--deepspeed", handled()});
    out.push_back({"--zero-stage", handled()});
    out.push_back({"--pad-vocab-size-to", handled()});  // megatron_model.cpp, read_vocab
    // The DeepSpeed JSON: its ZeRO stage is taken from --zero-stage (read_megatron_deepspeed).
    quiet({"--deepspeed_config", "--deepscale", "--deepscale_config"});
    // DeepSpeed's activation checkpointing in place of Megatron's: the same full recompute.
    quiet({"--deepspeed-activation-checkpointing", "--contigious-checkpointing",
           "--synchronize-each-layer", "--profile-backward"});
    unplanned({"--partition-activations", "--distribute-checkpointed-activations"},
              "checkpointed activations split over the tensor-parallel ranks");
    unplanned({"--checkpoint-in-cpu"}, "checkpointed activations kept in host memory");
    unplanned({"--checkpoint-num-layers"}, "checkpoints of several layers at once");
    unplanned({"--zero-reduce-scatter", "--zero-contigious-gradients", "--zero-reduce-bucket-size",
               "--zero-allgather-bucket-size"},
              "ZeRO's communication buckets");
    unplanned({"--remote-device", "--use-pin-memory"}, "ZeRO-3 parameter offload");
    unplanned({"--cpu-optimizer", "--cpu_torch_adam"}, "the optimizer stepping on the CPU");
    unplanned({"--use-bnb-optimizer"}, "bitsandbytes' 8-bit Adam states");
    unplanned({"--scattered-embeddings", "--split-transformers", "--memory-centric-tiled-linear",
               "--tile-factor"},
              "DeepSpeed's memory-centric tiling");
    unplanned({"--glu-activation"}, "GLU MLPs (two input projections)");
    unplanned({"--embed-layernorm"}, "a layer norm after the embedding");
    unplanned({"--pp-partition-method"}, "uneven pipeline splits");
    unplanned({"--DDP-impl", "--use-contiguous-buffers-in-ddp"},
              "the data-parallel wrapper's gradient buffers");
    quiet({"--layernorm-epsilon", "--sync-tp-duplicated-parameters", "--kill-switch-path",
           "--log-level", "--log-level-replica", "--log-batch-size-to-tensorboard",
           "--no-log-learnig-rate-to-tensorboard", "--train-tokens", "--codecarbon-dir",
           "--eval-only", "--skip-train-iteration-range", "--inference",
           "--abort-on-unmet-fused-kernel-constraints", "--lr-decay-tokens",
           "--override-lr-scheduler", "--use-checkpoint-lr-scheduler", "--universal-checkpoint",
           "--no-query-key-layer-scaling", "--local_rank", "--train-weighted-split-paths",
           "--valid-weighted-split-paths", "--test-weighted-split-paths",
           "--train-weighted-split-paths-path", "--valid-weighted-split-paths-path",
           "--test-weighted-split-paths-path", "--log-path", "--mmap-warmup",
           "--valid-num-workers", "--tokenizer-name-or-path", "--data-impl",
           "--loss-on-targets-only", "--reweight-loss-based-on-position-frequency",
           "--noise-density", "--mean-noise-span-length", "--img-dim"});
    return out;
  }();
  return rows;
}

// Every other argument of Megatron-LM (megatron_arguments.hpp), classified by the argparse group
// that adds it: groups of logging, checkpoints, data, schedules, tokenizer files, restarts and
// inference have no effect on a training step's GPU memory; the others (training loop,
// distributed, model shape, MoE, precision, other models' options) may, and vramscope does not
// model the flag: noted when it is on. The rows above come first, so a flag vramscope reads keeps
// its own row.
const std::vector<option>& group_rows() {
  static const std::vector<option> rows = [] {
    static constexpr std::pair<std::string_view, std::string_view> no_effect_groups[] = {
        {"_add_logging_args", ""},          {"_add_checkpointing_args", ""},
        {"_add_learning_rate_args", ""},    {"_add_autoresume_args", ""},
        {"_add_one_logger_args", ""},       {"_add_ft_package_args", ""},
        {"_add_inprocess_restart_args", ""}, {"_add_msc_args", ""},
        {"_add_workload_inspector_server_args", ""}, {"_add_straggler_detector_args", ""},
        {"_add_rerun_machine_args", ""},    {"_add_validation_args", ""},
        {"_add_config_logger_args", ""},    {"_add_initialization_args", ""},
        {"_add_tokenizer_args", ""},        {"_add_data_args", ""},
        {"_add_inference_args", ""},        {"_add_sft_args", ""},
        {"_add_regularization_args", ""},  // optimizer hyper-parameters; dropouts are read above
    };
    static constexpr std::pair<std::string_view, std::string_view> reasons[] = {
        {"_add_training_args", "a training-loop option"},
        {"_add_distributed_args", "a distributed-training option"},
        {"_add_network_size_args", "a model-shape option the GPT layout does not read"},
        {"_add_moe_args", "a mixture-of-experts option"},
        {"_add_mla_args", "a multi-latent-attention option"},
        {"_add_mixed_precision_args", "a precision option"},
        {"_add_transformer_engine_args", "a Transformer Engine option"},
        {"_add_kitchen_quantization_arguments", "quantized training"},
        {"_add_experimental_args", "an experimental option"},
        {"_add_experimental_attention_variant_args", "an attention variant"},
        {"_add_heterogeneous_args", "layers of different shapes"},
        {"_add_logits_distillation_args", "a teacher model for distillation"},
        {"_add_rl_args", "the reinforcement-learning loop"},
        {"_add_vision_args", "a vision model's option (the vision scripts are refused)"},
        {"_add_biencoder_args", "the ICT retriever's option (pretrain_ict.py is refused)"},
        {"_add_retro_args", "RETRO's option (pretrain_retro.py is refused)"},
    };
    std::vector<option> out;
    for (const auto& argument : megatron_arguments) {
      // Named, not a structured binding: clang 14 (the fuzz build) cannot capture one.
      const auto& flag = argument.first;
      const auto& group = argument.second;
      const auto quiet = std::find_if(std::begin(no_effect_groups), std::end(no_effect_groups),
                                      [&](const auto& g) { return g.first == group; });
      if (quiet != std::end(no_effect_groups)) {
        out.push_back({std::string(flag), no_effect()});
        continue;
      }
      const auto why = std::find_if(std::begin(reasons), std::end(reasons),
                                    [&](const auto& r) { return r.first == group; });
      out.push_back({std::string(flag),
                     not_modelled(why != std::end(reasons) ? std::string(why->second)
                                                           : "a Megatron-LM option")});
    }
    return out;
  }();
  return rows;
}

const std::vector<option>& megatron_table() {
  static const std::vector<option> table = [] {
    std::vector<option> rows{{"--attention-backend", custom(read_megatron_attention)},
                             {"--use-flash-attn", custom(read_megatron_attention)},
                             {"--optimizer", custom(read_megatron_optimizer)}};
    for (const char* f : read_by_code) rows.push_back({f, handled()});
    for (const char* f : megatron_model_flags) rows.push_back({f, handled()});
    for (const char* f : without_effect) rows.push_back({f, no_effect()});
    const auto& more = not_modelled_rows();
    rows.insert(rows.end(), more.begin(), more.end());
    const auto& fork = megatron_deepspeed_rows();
    rows.insert(rows.end(), fork.begin(), fork.end());
    const auto& by_group = group_rows();
    rows.insert(rows.end(), by_group.begin(), by_group.end());
    return rows;
  }();
  return table;
}

std::string script_name(const std::string& path) {
  const auto slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Megatron-LM's pretraining scripts that build other models than GPT, and what they build.
std::string other_model_script(const std::string& script) {
  static constexpr std::pair<std::string_view, std::string_view> others[] = {
      {"pretrain_bert.py", "BERT (a bidirectional encoder with masked-LM and binary heads)"},
      {"pretrain_t5.py", "T5 (an encoder-decoder)"},
      {"pretrain_ict.py", "an ICT retriever (two BERT encoders)"},
      {"pretrain_retro.py", "RETRO (a GPT with a retrieval encoder)"},
      {"pretrain_mamba.py", "a hybrid Mamba model"},
      {"pretrain_vlm.py", "a vision-language model"},
      {"pretrain_vision_classify.py", "a vision transformer"},
      // The name Megatron-LM's examples/pretrain_vision_classify.sh runs (b49249803e, 2023-09),
      // where the repository's script is pretrain_vision_classify.py.
      {"pretrain_vision_classification.py", "a vision transformer"},
      {"pretrain_vision_dino.py", "a vision transformer"},
      {"pretrain_vision_inpaint.py", "a vision transformer"},
  };
  for (const auto& [name, what] : others)
    if (script == name) return std::string(what);
  return "";
}

}  // namespace

const std::vector<option>& megatron_options() { return megatron_table(); }

}  // namespace detail

result<imported_job> import_megatron(std::string_view text, const std::string& source) {
  auto launch = detail::read_shell_launch(text, source);
  if (!launch) return launch.error();
  detail::import_context ctx("megatron", source);
  ctx.out.notes = launch->notes;
  detail::read_flags(ctx, text, launch->args);
  // Where a refusal of the whole launch points: the script's word, else (a plain argument list)
  // its first argument, else the first line.
  const detail::shell_word* anchor = !launch->script.text.empty() ? &launch->script
                                     : !launch->args.empty()      ? &launch->args.front()
                                                                  : nullptr;
  const diagnostic script_at = anchor != nullptr
                                   ? detail::location(source, text, anchor->line, anchor->column)
                                   : detail::location(source, text, 1, 1);
  const std::string script = detail::script_name(launch->script.text);
  if (const auto other = detail::other_model_script(script); !other.empty())
    return detail::at(script_at,
                      fmt::format("{} builds {}, which vramscope does not plan from Megatron-LM "
                                  "arguments (it plans pretrain_gpt.py's GPT models); to plan it, "
                                  "write a job spec with the model's config.json "
                                  "(docs/job-spec.md)",
                                  script, other));
  if (ctx.find("--num-layers") == nullptr) {
    std::string unset;
    for (const auto& w : launch->args)
      if (w.unresolved && unset.empty()) unset = w.text;
    return detail::at(
        script_at,
        "no --num-layers among the Megatron-LM arguments (Megatron requires "
        "--num-layers, --hidden-size, --num-attention-heads and "
        "--max-position-embeddings)" +
            (unset.empty() ? std::string()
                           : fmt::format("; the arguments include {}, which the script does not "
                                         "set: write the arguments into the script",
                                         unset)));
  }
  // pretrain_gpt.py's tokenizer when none is named: GPT-2's BPE (args_defaults
  // {'tokenizer_type': 'GPT2BPETokenizer'}, from 2021's pretrain_gpt.py to today's).
  if (ctx.find("--tokenizer-type") == nullptr && ctx.find("--vocab-size") == nullptr &&
      (script.rfind("pretrain_gpt", 0) == 0 || script.rfind("finetune_gpt", 0) == 0)) {
    detail::entry gpt2{"--tokenizer-type", {"GPT2BPETokenizer", {}, false}, false, script_at};
    ctx.note(gpt2, fmt::format("no --tokenizer-type: {}'s default, GPT2BPETokenizer (50,257 "
                               "tokens, padded to --make-vocab-size-divisible-by x tensor "
                               "parallel size)",
                               script));
    ctx.entries.push_back(std::move(gpt2));
  }
  for (const auto& [name, value] : launch->exports) {
    // Exported variables reach the training processes: the job's environment.
    const detail::entry e{"export " + name,
                          {value.text, {}, false},
                          true,
                          detail::location(source, text, value.line, value.column)};
    if (auto problem = ctx.set("env." + name, value.text, e); !problem.empty())
      return detail::at(e.where, problem);
  }
  std::optional<diagnostic> error;
  const long long world =
      launch->script.text.empty() ? 0 : detail::read_launcher(ctx, text, *launch, error);
  if (error) return *error;
  detail::megatron_mesh mesh;
  if (auto err = detail::read_megatron_parallelism(ctx, world, mesh)) return *err;
  if (auto err = detail::read_megatron_model(ctx, mesh)) return *err;
  if (auto err = detail::read_megatron_batch(ctx, mesh)) return *err;
  if (auto err = detail::read_megatron_interleaving(ctx, mesh)) return *err;
  if (auto err = detail::read_megatron_precision(ctx)) return *err;
  if (auto err = detail::read_megatron_recompute(ctx, mesh)) return *err;
  if (auto err = detail::read_megatron_capacity(ctx)) return *err;
  if (ctx.find("--optimizer") == nullptr)  // Megatron's default: Adam (FusedAdam)
    (void)ctx.set("optimizer.name", "adam", detail::entry{"", {}, false, {source, 0, 0, "", ""}});
  if (auto err = detail::apply_options(ctx, detail::megatron_table())) return *err;
  return detail::finish(ctx, true);  // a GPU count not given was assumed and noted above
}

}  // namespace vramscope::job
