#pragma once
// Importers of real framework configs into a job spec, so that `plan` can start from the file a
// user already has: an accelerate config YAML (`accelerate config` output: distributed_type,
// fsdp_config, deepspeed_config, mixed_precision, num_processes, ...), a DeepSpeed JSON config
// (zero_optimization, bf16/fp16, batch sizes, optimizer) and a torchtitan TOML job file
// ([model], [training], [parallelism], [activation_checkpoint], [optimizer], ...).
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

/// A resolved job built from a framework config, with everything the import had to say.
struct imported_job {
  job_spec job;
  std::string format;  // "accelerate", "deepspeed" or "torchtitan"
  std::vector<import_mapping> mapped;  // options that set job fields, in the file's order
  warnings notes;      // unknown and unmodelled options, "auto" values, assumptions, warnings
  warnings no_effect;  // options read and ignored because they do not affect GPU memory
};

enum class config_format { accelerate, deepspeed, torchtitan, unknown };

/// Decides the format from the content (never the file name): a JSON object is DeepSpeed; a
/// TOML file with [model] / [training] / [parallelism] tables is torchtitan; a YAML map with
/// distributed_type or compute_environment is accelerate.
config_format detect_format(std::string_view text);

/// Reads the file, detects its format and imports it. An accelerate config that names a
/// deepspeed_config_file has that file imported too (a relative path is taken relative to the
/// accelerate config's folder, then to the working directory). Fails with core's read_file
/// message, with "<path>: not an accelerate YAML, DeepSpeed JSON or torchtitan TOML config",
/// with a syntax error of the format, or with a value the job spec cannot take.
result<imported_job> import_config(const std::string& path);

/// The same on text already read; `source` names it in messages. `base_dir` is where an
/// accelerate config's relative deepspeed_config_file is looked for ("" = working directory).
result<imported_job> import_config_text(std::string_view text, const std::string& source,
                                        const std::string& base_dir = "");

/// The three importers, for callers that know the format.
result<imported_job> import_accelerate(std::string_view text, const std::string& source,
                                       const std::string& base_dir = "");
result<imported_job> import_deepspeed(std::string_view text, const std::string& source);
result<imported_job> import_torchtitan(std::string_view text, const std::string& source);

}  // namespace vramscope::job
