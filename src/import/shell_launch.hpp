#pragma once
// Reading a training launch written as a shell script, the way Megatron-LM's examples write them
// (examples/gpt3/train_gpt3_175b_distributed.sh, examples/llama/train_llama3_8b_h100_fp8.sh):
// `NAME=value` assignments, bash arrays (`ARGS=( --num-layers 96 ... )`, `ARGS+=(...)`),
// `$NAME`, `${NAME}`, `${NAME:-default}`, `${ARRAY[@]}`, quotes, backslash continuations and
// comments, and one command that runs a Python script (`torchrun ${DISTRIBUTED_ARGS[@]}
// pretrain_gpt.py ${GPT_MODEL_ARGS[@]} ...`). A file with no such command is a plain list of
// arguments (`--num-layers 24 --hidden-size 1024`, one or many a line).
//
// Not a shell: nothing is run. Arithmetic (`$((...))`) of whole numbers and variables the script
// sets to whole numbers is evaluated (+ - * / %); command substitution (`$(...)`), other
// arithmetic and variables the script does not set (its positional arguments, the environment)
// stay as written and are marked unresolved; a SLURM batch script's `#SBATCH --nodes`,
// `--ntasks-per-node`, `--gpus-per-node` and `--gres=gpu:N` set SLURM_JOB_NUM_NODES /
// SLURM_NNODES, SLURM_NTASKS_PER_NODE, SLURM_GPUS_PER_NODE and SLURM_GPUS_ON_NODE, as sbatch
// does. Conditionals and loops are not evaluated: every branch is read, in file order, and the
// notes say so; except those the script's own arguments choose (a test of `$1`, `$#`, `$@` or of
// a variable set from them, and everything inside one): the script is read as run without
// arguments, so their assignments keep the value set before, and a variable set only there is
// unresolved (shell_launch::chosen_by_arguments). `case` arms' patterns (`-z|--zero-stage)`) are
// not commands. A file that runs no command and has no argument lines is read as the arguments its
// variables hold (a file of `MODEL_ARGS="..."` that launch scripts source). Private to the job
// module; pure functions, thread-safe.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/result.hpp>

namespace vramscope::job::detail {

/// A file the script reads into itself (`source FILE`, `. FILE`) and that was found beside it:
/// the path it was read from and its text. bash runs its statements where the command stands.
struct sourced_file {
  std::string path;
  std::string text;
};

/// One word after expansion, located where it was written (an array element's own line when it
/// came from `${ARRAY[@]}`): in the script itself, or (`file` set) in a file it sources.
struct shell_word {
  std::string text;
  int line = 0;
  int column = 0;
  bool unresolved = false;  // holds $(...), $((...)) or a variable the script does not set
  std::shared_ptr<const sourced_file> file;  // null: written in the script itself
};

/// Where `w` (or its `line` and `column`) is written: in the script (`source`, `text`) or in
/// the sourced file that holds it.
diagnostic word_location(const std::string& source, std::string_view text, const shell_word& w);
diagnostic word_location(const std::string& source, std::string_view text, const shell_word& w,
                         int line, int column);

/// A file the script sources that was not read: the command's word for it, and where it was
/// looked for (empty when it was not: a path known only when the script runs, or outside the
/// script's folder).
struct unread_source {
  shell_word file;
  std::string looked_for;
};

/// A file a script writes from a here-document (`cat <<EOT > $DS_CONFIG`).
struct written_file_entry {
  shell_word path;   // the redirection's target as expanded, located at the command
  std::string text;  // the body, its variables expanded (unless the delimiter was quoted)
  int line = 0;      // the body's first line in the script
};

/// The launch a script describes.
struct shell_launch {
  std::vector<shell_word> launcher;  // the words before the script: torchrun, --nproc_per_node, 8
  /// The launch's first word is `NAME=value` produced by an expansion (`$ENV_ARGS torchrun ...`):
  /// bash takes assignments only as written, so it runs that word as the command's name, and
  /// the launch fails.
  bool name_is_assignment = false;
  /// When the command was read from a `sh -c` / `bash -c` string, the words before the shell
  /// (`srun`, `--ntasks-per-node`, `8`): srun runs the string once per task.
  std::vector<shell_word> outer;
  shell_word sbatch_nodes;           // `#SBATCH --nodes N` / `-N N`; empty text when absent
  shell_word sbatch_tasks_per_node;  // `#SBATCH --ntasks-per-node N`; empty text when absent
  shell_word sbatch_gpus_per_node;   // `#SBATCH --gpus-per-node [type:]N` / `--gres=gpu:N`
  shell_word sbatch_gpus_per_task;   // `#SBATCH --gpus-per-task [type:]N`
  shell_word script;                 // "pretrain_gpt.py"; empty text for a plain argument list
  std::vector<shell_word> args;      // the script's arguments, in order
  /// Variables the script exports (`export NAME=value`, or `export NAME` after setting it), in
  /// order, each with its value where the export is written; the last export of a name wins.
  std::vector<std::pair<std::string, shell_word>> exports;
  /// `sed "s/PLACEHOLDER/value/"` commands the script runs (to fill a config template), in order:
  /// each placeholder with its replacement as expanded, located at the sed script word.
  std::vector<std::pair<std::string, shell_word>> sed_substitutions;
  /// Files the script writes from here-documents, in order.
  std::vector<written_file_entry> written_files;
  /// Variables set only inside a conditional that the script's own arguments choose (`case $1
  /// in`, `while [[ $# -gt 0 ]]`, `if [ $ENV = dsw ]` after `ENV=$1`): each name with where the
  /// conditional is written, its message saying so. Their value is left unresolved ("$NAME").
  std::vector<std::pair<std::string, diagnostic>> chosen_by_arguments;
  /// `bash -c` strings the shell cannot parse (a quote never closed), each located at the
  /// string: nothing in them runs.
  std::vector<diagnostic> failing_strings;
  /// Variables expanded before the script first sets them (a double-quoted argument string
  /// built above the assignments it uses): each name with where it is first expanded, its
  /// message saying where it is set. bash expands it to nothing there.
  std::vector<std::pair<std::string, diagnostic>> expanded_before_set;
  /// Values known only when the script runs, where they are set: each assignment whose value
  /// stays unresolved (`GPUS=$(nvidia-smi -L | wc -l)`, `TP=$7`, `LAYERS=$((PP * 4))` after such
  /// a PP) with its value as expanded and a message at the assignment's line. A word that holds
  /// one of these texts got it from that line (or a later assignment of the same text).
  std::vector<std::pair<std::string, diagnostic>> run_time_values;
  /// Variables set from the script's own arguments (`MODEL_SIZE=$2`, not `X=${2:-7}`), each name
  /// with the assignment's line, in file order: what a conditional on one of them tests is chosen
  /// when the script runs.
  std::vector<std::pair<std::string, diagnostic>> set_from_arguments;
  /// Files the script reads into itself before its launch (`source FILE`, `. FILE`) that were
  /// not read (not found beside the script, outside its folder, or known only when it runs),
  /// each the file's word as expanded, located at the command: what they set is not in the
  /// script.
  std::vector<unread_source> sourced;
  /// Those that were read, as bash reads them (their statements run where the command stands,
  /// with the script's variables): each the command's word, its `file` the text read.
  std::vector<std::pair<shell_word, std::shared_ptr<const sourced_file>>> followed;
  /// Launches the file writes but does not run, in file order: a command only printed (`echo
  /// torchrun ... pretrain_gpt.py ...`), or held in a variable that no command expands
  /// (`run_cmd="deepspeed ... pretrain_gpt.py ..."` and no `eval $run_cmd`), each located where
  /// it is written. A file whose only launches are these starts no training.
  std::vector<diagnostic> unrun_launches;
  /// The read launch and another one stand in different branches of a conditional the script's
  /// arguments choose (`FP_TYPE=$1`, then `if [ "$FP_TYPE" = bf16 ]; then torchrun ...; elif
  /// ...`) and differ in more than paths: which job runs is decided when the script is given its
  /// arguments. Located where the script takes the argument the conditional tests, else at the
  /// conditional.
  std::optional<diagnostic> launch_chosen;
  /// In a file that runs no command, read as the arguments its variables hold (NVIDIA's model-
  /// argument files that launch scripts source): the first such variable, where it is set;
  /// empty text otherwise.
  shell_word arguments_from;
  std::vector<diagnostic> notes;  // branches read as if all were taken, other launches ignored
};

/// Largest script read (words after expansion); a bound far above any real launch, against
/// arrays that expand into themselves many times over.
constexpr std::size_t max_shell_words = 100'000;

/// Longest word after expansion, and the most expanded text (all words and assignments
/// together) a script may produce beyond four times its own size: bounds far above any real
/// launch, against a variable doubled into itself (`X="$X$X"`) until memory runs out.
constexpr std::size_t max_shell_word_bytes = std::size_t{1} << 20;
constexpr std::size_t max_shell_expanded_bytes = std::size_t{16} << 20;
/// Sourced files read inside sourced files, at most; and the largest one read.
constexpr int max_sourced_depth = 4;
constexpr std::size_t max_sourced_bytes = std::size_t{1} << 20;

/// Reads `text`. When `source` names a file on disk, a `source FILE` / `. FILE` before the launch
/// is followed where FILE is a relative path found from the script's folder, or a path inside
/// that folder (`"$(dirname "$0")/env.sh"`, `"${SCRIPT_DIR}/recipes/x.sh"` after
/// `SCRIPT_DIR=$(cd "$(dirname "$0")" && pwd)`: those idioms expand to the script's folder), up
/// to max_sourced_depth files deep; a file read twice in one chain is not read again. Fails on an
/// unterminated quote, `${`, `$(` or array (naming the line where it opened), on more than
/// max_shell_words words and on expansions past max_shell_word_bytes or max_shell_expanded_bytes
/// (naming the line that expands past them).
result<shell_launch> read_shell_launch(std::string_view text, const std::string& source);

/// An entry script named for running a trained model rather than training it (Megatron's
/// tools/generate_samples_gpt.py, tools/run_text_generation_server.py, an evaluation script), by
/// a word of its name.
bool not_training_script(const std::string& script);

/// Where `text` first expands the variable `name` (`$NAME`, `${NAME}`, `${NAME:-...}`), the name
/// whole ($MODE is not $MODEL_SIZE): the index of its `$`, or npos.
std::size_t find_expansion(std::string_view text, std::string_view name);

/// An entry script named for converting a checkpoint between layouts (Megatron-DeepSpeed's
/// tools/hf2megads_weight_converter.py, Megatron-LM's tools/checkpoint/convert.py) or for
/// preparing data (tools/preprocess_data.py): it loads weights or tokens and trains nothing.
bool conversion_script(const std::string& script);

/// True when some line of `text` has, outside a comment, a word ending in `pretrain_gpt.py` /
/// `pretrain_mamba.py` (any `pretrain_*.py`) or the word `--num-layers` (or Megatron-LLM's
/// `--num_layers`, `--tensor_model_parallel_size`): a Megatron launch or
/// argument list. Cheap; for format detection.
bool looks_like_megatron(std::string_view text);

}  // namespace vramscope::job::detail
