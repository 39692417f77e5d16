#pragma once
// Megatron-LM's command-line arguments as the importer reads them (import_megatron.cpp): each
// `--flag` with its values is one entry of the import context, keyed by the flag as written
// ("--num-layers"). Helpers that read typed values with Megatron's defaults, and the model
// Megatron builds from them (megatron_model.cpp). Private to the job module.

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/diagnostic.hpp>

#include "import/import_common.hpp"

namespace vramscope::job::detail {

struct shell_launch;

/// The GPUs a launch starts (torchrun, DeepSpeed's launcher, srun, mpirun words before the
/// script), hardware.gpus_per_node and hardware.nodes set in `ctx` from them; 0 when unknown
/// (noted, or `error` set).
long long launch_world(import_context& ctx, std::string_view text, const shell_launch& launch,
                       maybe_error& error);

/// True when switch `flag` (a store_true argument) is among the arguments.
bool flag_given(const import_context& ctx, const std::string& flag);

/// Where `e`'s value (of `flag`) is one the script leaves unresolved ("$NUM_LAYERS", a value its
/// arguments choose or set at run time): the refusal, at the line that decides it, saying to
/// write the number; nullopt for any other text.
std::optional<diagnostic> unset_value(const import_context& ctx, const entry& e,
                                      const std::string& flag);

/// The integer value of `flag`, or `fallback` when it is absent. A value that is not a whole
/// number from `min` to `max` (or one the script leaves unresolved, "$NUM_LAYERS") sets `error`
/// at the flag's line, naming the flag; later calls keep the first error.
long long flag_int(const import_context& ctx, const std::string& flag, long long fallback,
                   long long min, std::optional<diagnostic>& error, long long max = 1LL << 40);

/// Largest parallel degree, GPU count or micro batch read: far above any real job, and small
/// enough that products of three of them cannot overflow.
constexpr long long max_megatron_degree = 1LL << 20;

/// Marks an entry of ctx.chosen_by_arguments that is a value set at run time
/// (shell_launch::run_time_values): the marker, then the value's text.
constexpr char run_time_marker = '=';

/// The variable of ctx.chosen_by_arguments that `text` expands ("$NAME", "${NAME}"), as its
/// location and message, or nullptr.
const diagnostic* chosen_by_arguments(const import_context& ctx, const std::string& text);

/// Where the script takes the argument that the conditional `chosen` tests (`NUM_GPUS=$3`, then
/// `if [[ $EP_SIZE -gt $NUM_GPUS ]]`): the assignment of the first variable of
/// ctx.set_from_arguments the conditional expands; nullptr when it tests none.
const diagnostic* argument_choosing(const import_context& ctx, const diagnostic& chosen);

/// The value set at run time (an entry of ctx.chosen_by_arguments marked run_time_marker) that
/// `text` holds, the last assignment of it, as its location and message, or nullptr.
const diagnostic* run_time_value(const import_context& ctx, const std::string& text);
/// The files the script sources that were not read (ctx.unread_sources), as a refusal names
/// them: "FILE (line N)", joined with commas.
std::string unread_sources_named(const import_context& ctx);
/// Whether `text` holds a positional parameter of the script ("$1", "${12}").
bool positional(const std::string& text);

/// The text value of `flag`, or `fallback` when it is absent.
std::string flag_text(const import_context& ctx, const std::string& flag,
                      const std::string& fallback);

/// The parallel layout: degrees as given (1 when absent), the data-parallel size they leave, and
/// --num-layers.
struct megatron_mesh {
  long long tp = 1, pp = 1, cp = 1, ep = 1, dp = 1, layers = 1;
  /// The launch gives the GPUs a node but not the node count (`--nnodes $SLURM_NNODES`,
  /// `mpirun -np $WORLD_SIZE -npernode 4`): the world passed is one node's.
  bool nodes_open = false;
  /// The launch does not give the GPU count (torchrun without --nproc_per_node's ranks, deepspeed
  /// without --num_gpus): assumed, noted.
  bool gpus_assumed = false;
  /// The flag the pipeline degree was read from: --pipeline-model-parallel-size, or the 2021
  /// DeepSpeedExamples 3D example's --pipe-parallel-size.
  const char* pp_flag = "--pipeline-model-parallel-size";
};

/// strategy megatron, tp, pp, sequence parallelism, the distributed optimizer; context and expert
/// parallelism noted. `world` is torchrun's GPU count, 0 when unknown (then assumed, noted); with
/// `m.nodes_open` one node's, planned on the fewest nodes whose GPUs tp x pp x cp divides
/// (noted). Fails when tp x pp x cp does not divide the world (ctx.framework_refuses: Megatron
/// refuses it at start). Fills `m`.
std::optional<diagnostic> read_megatron_parallelism(import_context& ctx, long long world,
                                                    megatron_mesh& m);
/// Micro batch, gradient accumulation (--global-batch-size / (micro x dp)) and sequence
/// length. Fails when the global batch is not a multiple of micro x dp.
std::optional<diagnostic> read_megatron_batch(import_context& ctx, const megatron_mesh& m);
/// Interleaved 1F1B from the virtual-pipeline flags.
std::optional<diagnostic> read_megatron_interleaving(import_context& ctx, const megatron_mesh& m);
/// --bf16 / --fp16 and the gradient buffer's dtype.
std::optional<diagnostic> read_megatron_precision(import_context& ctx);
/// --recompute-granularity, --recompute-method, --recompute-num-layers, --recompute-modules.
/// Run after read_megatron_interleaving (block recompute counts layers per virtual stage).
std::optional<diagnostic> read_megatron_recompute(import_context& ctx, const megatron_mesh& m);
/// --moe-expert-capacity-factor and --moe-pad-expert-input-to-capacity, for a model with
/// --num-experts (without experts Megatron never reads them: no effect).
std::optional<diagnostic> read_megatron_capacity(import_context& ctx);
/// Table handlers: --attention-backend / --use-flash-attn, and --optimizer.
std::string read_megatron_attention(import_context& ctx, const entry& e);
std::string read_megatron_optimizer(import_context& ctx, const entry& e);

/// The flags Megatron-LM builds its model from, which read_megatron_model consumes.
inline constexpr std::array<const char*, 31> megatron_model_flags{
    "--num-layers", "--hidden-size", "--num-attention-heads", "--ffn-hidden-size",
    "--kv-channels", "--group-query-attention", "--num-query-groups",
    "--max-position-embeddings", "--position-embedding-type", "--normalization", "--swiglu",
    "--untie-embeddings-and-output-weights", "--disable-bias-linear", "--add-qkv-bias",
    "--vocab-size", "--tokenizer-type", "--make-vocab-size-divisible-by", "--num-experts",
    "--moe-router-topk", "--moe-ffn-hidden-size", "--hidden-dropout", "--attention-dropout",
    "--moe-shared-expert-intermediate-size", "--moe-layer-freq", "--moe-shared-expert-gate",
    "--multi-latent-attention", "--q-lora-rank", "--kv-lora-rank", "--qk-head-dim",
    "--qk-pos-emb-head-dim", "--v-head-dim"};

/// A row for every Megatron-LM argument (tests/data/options/megatron_options.txt) that the
/// importer's own rows do not name, each classified by itself, except the flags of the argparse
/// groups about logging, restarts and the scripts vramscope refuses (megatron_quiet_group),
/// classified by their group (megatron_argument_rows.cpp).
const std::vector<option>& megatron_argument_rows();
/// True for an argparse group ("_add_logging_args") whose every flag has no effect on a training
/// step's GPU memory.
bool megatron_quiet_group(std::string_view group);

/// The model pretrain_gpt.py builds from the arguments (--num-layers, --hidden-size, ...), as
/// the config.json keys of the Hugging Face family with the same tensors (gpt2, gpt_neox, llama,
/// mixtral, qwen2_moe, qwen3_moe or deepseek_v3; docs/importers.md, "Megatron-LM"). Sets ctx.out.job.model and model_config, maps
/// the flags it reads to `model`, and notes what the family approximates. `m.tp` pads the
/// vocabulary as Megatron does. Fails when a required flag is missing or a value is invalid, and
/// when the vocabulary is unknown (a tokenizer read from a file without --vocab-size). Under
/// pipeline parallelism a tied head is planned untied (the last stage's copy).
std::optional<diagnostic> read_megatron_model(import_context& ctx, const megatron_mesh& m);

}  // namespace vramscope::job::detail
