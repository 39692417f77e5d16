#pragma once
// Importers of real framework configs into a job spec, so that `plan` can start from the file a
// user already has: an accelerate config YAML (`accelerate config` output: distributed_type,
// fsdp_config, deepspeed_config, mixed_precision, num_processes, ...), a DeepSpeed JSON config
// (zero_optimization, bf16/fp16, batch sizes, optimizer), a torchtitan TOML job file
// ([model], [training], [parallelism], [activation_checkpoint], [optimizer], ...) and a
// torchtune recipe config YAML (model._component_, batch_size, dtype, optimizer_in_bwd, ...).
// docs/importers.md tables every option and what it becomes.
//
// Nothing is dropped silently. Every option of the file ends up in one of three places:
//   - `mapped`: it set a job field (also recorded in job.provenance.set_at with its line), or
//   - `no_effect`: read and ignored because it does not change GPU memory (ports, paths,
//     learning rate, logging), or
//   - `notes`: options that would change memory but vramscope does not model, unknown options
//     (with a did-you-mean), "auto" values left at vramscope's default, and assumptions about
//     what the file does not say (the GPU type, the model, the node count); validation warnings
//     of the resolved job come last.
// Values the job spec cannot take (zero_optimization.stage: 7) are errors, with the file's line.
// Thread-safe: no shared state.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/result.hpp>
#include <vramscope/job/job_spec.hpp>

namespace vramscope::job {

/// One option of the imported file that set a job field.
struct import_mapping {
  std::string option;  // the file's key, nested keys joined with '.': "fsdp_config.fsdp_version"
  std::string field;   // the job field it set: "parallel.strategy"
  diagnostic where;    // its location in the file (message empty)
};

/// The HF Trainer's arguments that fill a DeepSpeed config's "auto" values at launch
/// (transformers, integrations/deepspeed.py, HfTrainerDeepSpeedConfig.trainer_config_process).
/// The defaults are TrainingArguments' defaults. `--set trainer.NAME=VALUE` gives them.
struct trainer_args {
  bool bf16 = false;                                // --bf16: fills bf16.enabled
  bool fp16 = false;                                // --fp16: fills fp16.enabled
  std::uint64_t per_device_train_batch_size = 8;    // fills train_micro_batch_size_per_gpu
  std::uint64_t gradient_accumulation_steps = 1;    // fills gradient_accumulation_steps
  bool batch_given = false;  // either batch argument given (--set trainer.NAME), not defaulted
};

/// Reads the `trainer.NAME=VALUE` items of `overrides` into `args` and moves every other item
/// to `rest`. An unknown NAME or a bad VALUE is an error naming the item ("--set trainer.x").
status take_trainer_args(const std::vector<std::string>& overrides, trainer_args& args,
                         std::vector<std::string>& rest);

/// A DeepSpeed "auto" that the Trainer fills from the model's hidden size once the model is
/// loaded (trainer_config_finalize): reduce_bucket_size = hidden_size^2 and, under ZeRO-3,
/// stage3_prefetch_bucket_size = 0.9 x hidden_size^2.
struct hidden_size_auto {
  std::string option;  // "zero_optimization.reduce_bucket_size"
  std::string field;   // "parallel.reduce_bucket_size"
  double factor = 1;   // of hidden_size^2
  diagnostic where;
};

/// A value the framework needs that the file leaves to the launch's command line: accelerate's
/// num_processes, which a config may leave to `accelerate launch --num_processes N`. The import
/// keeps every fact the file fixes; planning refuses with `refusal` unless --set gives
/// `settled_by`.
struct unsettled_value {
  std::string settled_by;  // the job field whose --set settles it: "hardware.gpus_per_node"
  diagnostic refusal;      // where the file needed it, what stops without it, what to give
};

/// A resolved job built from a framework config, with everything the import had to say.
struct imported_job {
  job_spec job;
  std::string format;  // "accelerate", "deepspeed", "torchtitan", "torchtune" or "megatron"
  std::vector<import_mapping> mapped;  // options that set job fields, in the file's order
  warnings notes;      // unknown and unmodelled options, "auto" values, assumptions, warnings
  warnings no_effect;  // options read and ignored because they do not affect GPU memory
  std::vector<hidden_size_auto> hidden_size_autos;  // filled by fill_hidden_size_autos
  std::vector<unsettled_value> unsettled;           // refused by a plan unless --set gives them
};

/// Fills the hidden-size "auto" values as the Trainer does, from the model's hidden size
/// (`hidden` = 0: the model has none; the fields keep vramscope's defaults, noted). A field that
/// `overrides` (--set items, "path=value") sets is left alone. Each value filled is noted.
void fill_hidden_size_autos(job_spec& job, const std::vector<hidden_size_auto>& autos,
                            std::uint64_t hidden, const std::vector<std::string>& overrides,
                            warnings* notes);

enum class config_format { accelerate, deepspeed, torchtitan, torchtune, megatron, unknown };

/// The formats import_config reads, as the help of --from (plan, compare, fit, explain) says them.
inline constexpr const char* import_formats_help =
    "import an accelerate YAML, DeepSpeed JSON, torchtitan TOML, torchtune YAML config or a "
    "Megatron-LM launch script or argument list";

/// Decides the format from the content (never the file name): a JSON object is accelerate's
/// when it has accelerate's distributed_type or compute_environment, else DeepSpeed's; a
/// TOML file with [model] / [training] / [parallelism] tables is torchtitan; a YAML file with a
/// `_component_: torchtune....` is a torchtune recipe config; a YAML map with distributed_type
/// or compute_environment is accelerate; otherwise a file with a `pretrain_*.py` word or a
/// `--num-layers` argument is Megatron-LM's arguments.
config_format detect_format(std::string_view text);

/// Reads the file, detects its format and imports it. An accelerate config that names a
/// deepspeed_config_file has that file imported too (a relative path is taken relative to the
/// accelerate config's folder, then to the working directory). Fails with core's read_file
/// message, with "<path>: not an accelerate YAML, DeepSpeed JSON or torchtitan TOML config",
/// with a syntax error of the format, or with a value the job spec cannot take.
result<imported_job> import_config(const std::string& path, const trainer_args& trainer = {});

/// The same on text already read; `source` names it in messages. `base_dir` is where an
/// accelerate config's relative deepspeed_config_file is looked for ("" = working directory).
result<imported_job> import_config_text(std::string_view text, const std::string& source,
                                        const std::string& base_dir = "",
                                        const trainer_args& trainer = {});

/// The three importers, for callers that know the format.
result<imported_job> import_accelerate(std::string_view text, const std::string& source,
                                       const std::string& base_dir = "",
                                       const trainer_args& trainer = {});
result<imported_job> import_deepspeed(std::string_view text, const std::string& source,
                                      const trainer_args& trainer = {});
result<imported_job> import_torchtitan(std::string_view text, const std::string& source);
/// A torchtune recipe config (recipes/configs/*.yaml): the model builder and its LoRA
/// arguments, batch, accumulation, dtype, checkpointing, activation offloading, optimizer in
/// backward, chunked cross-entropy; FSDP2 when it has fsdp_* keys, else one GPU.
result<imported_job> import_torchtune(std::string_view text, const std::string& source);
/// Megatron-LM's pretrain_gpt.py arguments: a plain list of `--flag value` words, or a launch
/// script (shell variables and arrays, a torchrun line; see src/import/shell_launch.hpp). Strategy
/// megatron; the model is built inline from --num-layers, --hidden-size, ... (model_config).
/// Fails on a value Megatron would refuse, a global batch that does not divide, a vocabulary it
/// cannot know (a tokenizer file without --vocab-size), naming the file, line and flag.
result<imported_job> import_megatron(std::string_view text, const std::string& source);

}  // namespace vramscope::job
