#pragma once
// Shared machinery of the three importers. Each importer flattens its file into entries
// ("fsdp_config.fsdp_sharding_strategy" = "FULL_SHARD", with the line it came from) and runs
// them through a table of options: what each one becomes, or why it is ignored. An entry that
// no table row claims is reported by report_unclaimed: as an unknown option when a real option
// is near (naming it), else as a name of no release vramscope knows. Private to the job module.

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/result.hpp>
#include <vramscope/import/importers.hpp>

#include "job/field_codecs.hpp"
#include "job/source_text.hpp"

namespace YAML {
class Node;
}

namespace vramscope::job::detail {

/// A shell command that starts on line `first_line` of `text` and is cut where its writer meant
/// it to go on: a backslash that escapes a blank instead of the line's end (`--seed 1 \  # x`), or
/// a commented-out line inside it (`# --fp16 \`: the comment runs to the line's end, its
/// backslash continues nothing). bash ends the command there, and when the next line starts with
/// an option (`--deepspeed ds.json`) it runs as a command of its own, which fails, so the options
/// after the cut never reach the program. The diagnostic is located at the cut line; nullopt
/// when the command's lines continue properly or it ends as written.
/// Line-based (a quoted string spanning lines is not followed); for launches.
std::optional<diagnostic> cut_continuation(std::string_view text, const std::string& source,
                                           int first_line);

/// A line of `text` that opens `if` or `elif` and ends in `then` with no `;` (or newline) before
/// it: bash reads that `then` as a word of the condition's command, meets `fi` (or `else`)
/// still waiting for the keyword, and stops with a syntax error before the script runs any
/// command. Located at that line; nullopt when there is none. Line-based, like cut_continuation.
std::optional<diagnostic> then_without_separator(std::string_view text, const std::string& source);

/// The words of `text`, lower case, split at every character that is not a letter or a digit
/// ("dpo_training.py" -> dpo, training, py): a script's name or a command line read word by word.
std::vector<std::string> name_words(std::string_view text);

/// One option of the imported file, flattened: nested keys joined with '.'.
struct entry {
  std::string key;     // "zero_optimization.offload_optimizer.device"
  raw_value value;     // scalar text ("true", "5e8", "FULL_SHARD") or list items
  bool is_string = false;  // the file wrote a string (so "auto" is the HF/accelerate placeholder)
  diagnostic where;    // location in the file, message empty
};

class import_context {
 public:
  import_context(std::string format, const std::string& source);

  /// Sets vramscope field `path` from `value` as --set would, recording `e.where` as its origin.
  /// Returns "" or the problem, worded for the imported file ("<key>: ... (for <path>)").
  std::string set(const std::string& path, const std::string& value, const entry& e);

  void note(const entry& e, const std::string& message);  // a warning located at the option
  void note(const std::string& message);                  // an assumption, no location
  void ignore(const entry& e);                            // to no_effect
  void mapped_to(const entry& e, const std::string& path);  // to mapped (set() does this)

  /// The entry with this key, or nullptr.
  const entry* find(const std::string& key) const;

  imported_job out;
  std::vector<entry> entries;
  /// The keys whose value is a map of options ("ref_checkpointer"), each where it is written:
  /// flatten_yaml fills them, for messages about a whole section.
  std::vector<std::pair<std::string, diagnostic>> sections;
  std::string source;
  bool precision_from_file = false;  // a DeepSpeed file said bf16/fp16 on or off explicitly
  trainer_args trainer;              // what fills DeepSpeed "auto" values
  /// Shell variables a launch script sets only in branches its own arguments choose: each name
  /// with where that conditional is written and a message saying so (shell_launch.hpp).
  std::vector<std::pair<std::string, diagnostic>> chosen_by_arguments;
  /// Variables a launch script sets from its own arguments (`NUM_GPUS=$3`), each with where
  /// (shell_launch::set_from_arguments): a conditional on one of them is chosen there.
  std::vector<std::pair<std::string, diagnostic>> set_from_arguments;
  /// Files a launch script sources (`source FILE`) that were not read, a virtualenv's
  /// `activate` and system files aside: each the file's word as expanded and the line of the
  /// command. A variable the script uses and does not set may be set there.
  std::vector<std::pair<std::string, int>> unread_sources;
  /// Names the file itself defines and reads (torchtune's OmegaConf variables, `${name}`): a key
  /// near one of them is a misspelling of it, as of an option.
  std::vector<std::string> own_names;
  /// Set with an error that the framework itself raises when the run starts (a contradiction in
  /// the file, such as Megatron's world not divisible by tp x pp x cp), not one of what vramscope
  /// cannot read: every importer names such an error before an unreadable fact (an unknown
  /// model, a tokenizer's vocabulary), since the launch fails as written whatever vramscope reads.
  bool framework_refuses = false;
};

/// What to do with one option. Returns "" or the problem (an error of the import).
using handler = std::function<std::string(import_context&, const entry&)>;

enum class action_kind { mapped, no_effect, not_modelled, handled };
struct action {
  action_kind kind;
  handler apply;
};

action maps_to(std::string path);  // the value goes through the field's codec unchanged
/// The file's value (compared case-insensitively) is translated first; values not in the list
/// are errors listing the accepted ones.
action maps_with(std::string path, std::vector<std::pair<std::string, std::string>> values);
action custom(handler apply);              // importer-specific mapping
action no_effect();                        // does not change GPU memory
action not_modelled(std::string reason);   // would change memory; vramscope ignores it
action handled();                          // consumed by the importer's own code
/// DeepSpeed's offload device ("none", "cpu" or "nvme") as the job's on/off switch at `path`.
action maps_offload_device(std::string path);
/// DeepSpeed's "gather 16-bit weights on model save" switch (under each of its names, and
/// accelerate's zero3_save_16bit_model) as checkpoint.save: full (gathered) or sharded (ZeRO's
/// per-rank checkpoint).
action maps_gathered_save();
/// Applies `inner` when the plan's strategy is zero3; below it notes that parameter offload is a
/// ZeRO-3 feature DeepSpeed ignores and sets nothing. For DeepSpeed JSON and for accelerate's
/// deepspeed_config, whose offload_param_device DeepSpeed receives.
action stage3_only(action inner);
/// Apply `inner` only at the ZeRO stages whose engine reads the option (stages 1 and 2; stage 3);
/// at another stage they note that DeepSpeed ignores it there and set nothing.
/// DeepSpeedZeroConfig accepts every ZeRO option at every stage.
action zero12_only(action inner);
action zero_stages_1_to_3(action inner);
action zero3_engine_only(action inner);

struct option {
  std::string key;  // flattened key; "optimizer.params.*" claims a whole subtree
  action act;
};

/// Each importer's table, for the test that classifies every option of the framework's own
/// list (tests/data/options/).
const std::vector<option>& accelerate_options();
const std::vector<option>& deepspeed_options();
const std::vector<option>& torchtitan_options();
const std::vector<option>& torchtune_options();
const std::vector<option>& megatron_options();

/// `d` with "; <remedy>" after its message: what would make the refused file plannable (unless the
/// message ends with its own, "... to plan the file").
diagnostic with_remedy(diagnostic d, const std::string& remedy);

/// What makes a file refused for its syntax plannable.
inline constexpr const char* syntax_remedy =
    "fix the file's syntax (a template's placeholders filled in) to plan it";

/// Whether the row `pattern` claims `key`: the same key, or "section.*" for any key under it.
bool option_matches(const std::string& pattern, const std::string& key);

/// The name among `names` that the file's `key` is near enough to be a misspelling of, or "".
/// Near is: the same name but for letter case and the separators '.', '_' and '-'
/// ("fsdp.cpu_offload" of "fsdp_cpu_offload", "--use_flash_attn" of "--use-flash-attn"); in the
/// same section, a last part within a few edits (Damerau: a letter added, dropped, changed, or
/// two neighbours swapped; one edit up to 7 letters, two up to 15, three beyond, none under 3;
/// as few for the part where the two differ, so that "..._dtype" is not "..._steps"), or made
/// of the same words, some shortened ("gc_frequency" of "gc_freq"); the same last part in a
/// section whose name is as near ("bp16.enabled" of "bf16.enabled"); or, when no other
/// name has it, the same last part of 6 letters or more in another section, for a key at the
/// top level or in a section the names have (a section none has is a fork's own layout, as
/// torchtitan forks' [data] and [dataset]). Names with '*'
/// (a table's wildcard rows) are no candidates. Of several, the closest comes first.
std::string near_option(const std::string& key, const std::vector<std::string>& names);

/// What apply_options says of an entry no row of `table` claims. With a real option near it
/// (near_option over the table's names and ctx.own_names): `unknown option "KEY" (did you mean
/// "NEAR"?); ignored`. Otherwise the name may be a fork's, a branch's or a newer release's
/// option as much as a typo, and "unknown" would claim the framework lacks it: the note says it
/// is not among the options of the framework's releases vramscope knows and is ignored.
void report_unclaimed(import_context& ctx, const entry& e, const std::vector<option>& table);

/// One no_effect() row per key of `section` ("" for top-level keys).
std::vector<option> ignored(const std::string& section, std::initializer_list<const char*> keys);

/// torch.compile as a framework config asks for it: training.compile (the blocks) and
/// training.compile_loss (the loss function) set to `blocks` and `loss` ("true", "false" or the
/// file's own text, which the fields' codec checks), both at `e`. Returns "" or the problem.
std::string set_compile(import_context& ctx, const entry& e, const std::string& blocks,
                        const std::string& loss);

/// A torch.compile backend other than inductor (the one whose fusion training.compile plans):
/// noted at `e` as not modelled. Returns "".
std::string other_compile_backend(import_context& ctx, const entry& e);

/// Megatron-LM's selective recompute (core attention's scores, softmax and dropout, recomputed in
/// backward), as both the Megatron-LM and the accelerate MEGATRON_LM importers read it:
/// training.activation_checkpointing core_attention, set at `e` (with a fused attention kernel,
/// which keeps none of those tensors, it plans as none). Returns "" or the problem.
std::string plan_core_attention_recompute(import_context& ctx, const entry& e);

/// The file as a whole, for a value no one option sets (a framework's default, a derived field):
/// an entry with no key at no line of the file.
entry file_entry(const import_context& ctx);

/// Sets the job's GPU count from a world size the file implies: one node up to 8 GPUs, else
/// nodes of 8 (noted as an assumption), else one node of `world`. Returns "" or the problem.
std::string set_world(import_context& ctx, long long world, const entry& e);

/// The DeepSpeed JSON importer's work on an existing context (used for accelerate's
/// deepspeed_config_file too): parses `text`, applies the DeepSpeed table. Sets
/// `has_world_size` when train_batch_size implies the data-parallel size.
/// Whether `text` is a YAML mapping of DeepSpeed options (zero_optimization and at least one
/// other of DeepSpeed's sections at its top): a Hydra or Lightning config group that a script
/// hands to deepspeed.initialize as a dict. read_deepspeed reads it as that dict.
bool deepspeed_yaml(std::string_view text);

std::optional<diagnostic> read_deepspeed(import_context& ctx, std::string_view text,
                                         const std::string& source, bool& has_world_size);

/// Fills the DeepSpeed "auto" values the HF Trainer fills from its arguments (micro batch,
/// gradient accumulation) into the entries, and moves those it fills from the model's hidden
/// size to ctx.out.hidden_size_autos; each is noted. bf16 / fp16 are read_deepspeed's.
void resolve_trainer_autos(import_context& ctx);

/// The YAML importers' walk (accelerate, torchtune): nested maps become dotted keys, lists keep
/// their scalar items. YAML aliases can repeat a map many times over (`b: {x: *a, y: *a}`,
/// nested), so the walk gives up (false) past max_yaml_entries options or max_yaml_depth levels,
/// bounds far above any real config.
constexpr std::size_t max_yaml_entries = 2'000;
constexpr int max_yaml_depth = 16;
bool flatten_yaml(const YAML::Node& map, const std::string& prefix, import_context& ctx,
                  std::string_view text, int depth = 0);

/// The first value of a YAML config (in file order) that is a template's placeholder, not a
/// value: `{NAME}` (Python's str.format) or `{{ NAME }}` (Jinja), which YAML reads as a mapping
/// whose one key has no value. The framework would get that mapping where a path, a number or a
/// name belongs. A refusal at it naming `framework`, or nullopt.
std::optional<diagnostic> template_placeholder(const YAML::Node& root, const std::string& source,
                                               std::string_view text, const std::string& framework);

/// Runs every entry through `table`. "auto" string values of mapped options are noted and left
/// at vramscope's default. Returns the first error.
std::optional<diagnostic> apply_options(import_context& ctx, const std::vector<option>& table);

/// Notes what the file did not say (model, GPU, GPU count, micro batch, sequence length),
/// resolves the job and appends the validation warnings to the notes. Errors of resolution are
/// returned as they are, located at the option that set the field.
result<imported_job> finish(import_context& ctx, bool has_world_size);

/// A shell script launching DeepSpeed-Chat's trainer (`deepspeed .../main.py --model_name_or_path
/// M --zero_stage N --per_device_train_batch_size B ...`), read from the trainer's arguments;
/// nullopt when the script launches no such trainer.
std::optional<result<imported_job>> import_deepspeed_chat(std::string_view text,
                                                          const std::string& source);

}  // namespace vramscope::job::detail
