// Megatron-LM's pretrain_gpt.py arguments (a plain list, or a launch script in the style of
// Megatron's examples/gpt3 and examples/llama) -> job spec with parallel.strategy megatron.
// Flag names and defaults from megatron/training/arguments.py and the TransformerConfig /
// DistributedDataParallelConfig / OptimizerConfig fields it exposes as flags (NVIDIA/Megatron-LM
// at d98e8a6); what each one becomes is tabled in docs/importers.md, "Megatron-LM".
#include <vramscope/core/io.hpp>
#include <vramscope/import/importers.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <functional>
#include <set>
#include <tuple>

#include "import/hjson.hpp"
#include "import/megatron/megatron_args.hpp"
#include "import/shell_launch.hpp"
#include "job/source_text.hpp"

namespace vramscope::job {

namespace detail {

namespace {

bool is_flag(const std::string& word) { return word.size() > 2 && word.rfind("--", 0) == 0; }

// The last part of a path ("tools/generate_samples_gpt.py" -> generate_samples_gpt.py).
std::string script_name(const std::string& path) {
  const auto slash = path.find_last_of("/\\");
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Where `flag` is written when the script writes it exactly once, outside comments, as a word
// of its own ("--flag", "--flag=..."): a flag that reached the command through a string variable
// (`options="... --tokenizer-type X ..."`, then `torchrun ... ${options}`) is located at its own
// line rather than at the command's. {0, 0} when it is written more than once, or not at all.
std::pair<int, int> sole_occurrence(std::string_view text, std::string_view flag) {
  std::pair<int, int> found{0, 0};
  bool again = false;
  for_each_line(text, [&](std::string_view row, int line) {
    const auto first = row.find_first_not_of(" \t");
    if (first == std::string_view::npos || row[first] == '#') return true;
    for (auto at = row.find(flag); at != std::string_view::npos; at = row.find(flag, at + 1)) {
      const char before = at == 0 ? ' ' : row[at - 1];
      const char after = at + flag.size() < row.size() ? row[at + flag.size()] : ' ';
      // (A file name ends a path: `${DIR}/pretrain_t5.py`.)
      const bool word_start = before == ' ' || before == '\t' || before == '"' || before == '\'' ||
                              before == '(' || before == '/';
      const bool word_end = after == ' ' || after == '\t' || after == '=' || after == '"' ||
                            after == '\'' || after == '\\' || after == ')' || after == '\r';
      if (!word_start || !word_end) continue;
      again = found.first != 0;
      if (again) return false;
      found = {line, static_cast<int>(at) + 1};
    }
    return true;
  });
  return again ? std::pair<int, int>{0, 0} : found;
}

// Where `flag` is written in the assignment of a variable that line `use` expands (`options="...
// --tokenizer-type X ..."` and the launch's `${options}`), when the script writes the flag more
// than once (in another variable, another branch): the assignment the launch takes, the last of
// that name above the use, read to its closing quote or the end of its continued lines. {0, 0}
// when none holds it.
std::pair<int, int> occurrence_in_expanded(std::string_view text, std::string_view flag, int use) {
  std::vector<std::string> rows;
  for_each_line(text, [&](std::string_view row, int) {
    rows.emplace_back(row);
    return true;
  });
  if (use < 1 || static_cast<std::size_t>(use) > rows.size()) return {0, 0};
  const std::string& at_use = rows[static_cast<std::size_t>(use - 1)];
  for (std::size_t d = at_use.find('$'); d != std::string::npos; d = at_use.find('$', d + 1)) {
    std::size_t from = d + 1 + (d + 1 < at_use.size() && at_use[d + 1] == '{' ? 1 : 0);
    std::size_t to = from;
    while (to < at_use.size() &&
           (std::isalnum(static_cast<unsigned char>(at_use[to])) != 0 || at_use[to] == '_'))
      ++to;
    if (to == from) continue;
    const std::string name = at_use.substr(from, to - from);
    for (int line = use - 1; line >= 1; --line) {
      std::string_view row = rows[static_cast<std::size_t>(line - 1)];
      const auto first = row.find_first_not_of(" \t");
      if (first == std::string_view::npos) continue;
      row.remove_prefix(first);
      if (row.starts_with("export ")) row.remove_prefix(7);
      if (!row.starts_with(name + "=")) continue;
      // The assignment's lines: an array's to its `)`, a double-quoted string's until its quotes
      // pair up (blank lines and lines without a continuation included), else to the line that
      // continues nothing.
      const bool array = row.substr(name.size() + 1).starts_with("(");
      std::ptrdiff_t quotes = 0;
      for (int l = line; l < use; ++l) {
        const std::string& r = rows[static_cast<std::size_t>(l - 1)];
        if (const auto [hit, column] = sole_occurrence(r, flag); hit != 0) return {l, column};
        // Inside the open string a line starting with `#` is text, which sole_occurrence skips
        // as a comment.
        if (const auto first = r.find_first_not_of(" \t");
            !array && quotes % 2 == 1 && first != std::string::npos &&
            std::string_view(r).substr(first).starts_with(flag) &&
            (first + flag.size() == r.size() || r[first + flag.size()] == ' ' ||
             r[first + flag.size()] == '\t'))
          return {l, static_cast<int>(first) + 1};
        const bool continued = !r.empty() && r.back() == '\\';
        quotes += std::count(r.begin(), r.end(), '"');
        const bool ends = array
                              ? r.find(')') != std::string::npos
                              : quotes % 2 == 0 && (!continued || r.find('"') != std::string::npos);
        if (ends) break;
      }
      break;  // the last assignment of the name is the one the use takes
    }
  }
  return {0, 0};
}

const std::vector<option>& megatron_table();

bool has_row(const std::string& key) {
  const auto& table = megatron_table();
  return std::any_of(table.begin(), table.end(),
                     [&](const option& row) { return option_matches(row.key, key); });
}

// A flag spelled with underscores (Megatron-LLM's arguments.py: --tensor_model_parallel_size,
// --num_layers) that is no argument of its own but a Megatron-LM one with dashes: that name.
std::string dashed(const std::string& key) {
  if (key.find('_') == std::string::npos || has_row(key)) return key;
  std::string out = key;
  std::replace(out.begin() + 2, out.end(), '_', '-');
  return has_row(out) ? out : key;
}

// Each "--flag" with the words after it up to the next flag ("--flag=value" holds its value).
// argparse keeps the last of a repeated flag; so does this, with a note.
// `$NAME` or `${NAME}` of a variable the script does not set, as a whole word.
bool standalone_variable(const shell_word& w) {
  if (!w.unresolved || w.text.size() < 2 || w.text[0] != '$') return false;
  const bool braces = w.text[1] == '{';
  if (braces && w.text.back() != '}') return false;
  const std::string name = w.text.substr(braces ? 2 : 1, w.text.size() - (braces ? 3 : 1));
  return !name.empty() &&
         (std::isalpha(static_cast<unsigned char>(name[0])) != 0 || name[0] == '_') &&
         std::all_of(name.begin(), name.end(), [](unsigned char c) {
           return std::isalnum(c) != 0 || c == '_';
         });
}

void read_flags(import_context& ctx, std::string_view text, const shell_launch& launch) {
  const std::vector<shell_word>& words = launch.args;
  bool underscores = false;
  // Megatron-LLM spells every argument with underscores; Megatron-LM and its forks with dashes,
  // and argparse matches an option string as written (no '_' for '-'). In a launch whose
  // multi-word flags are mostly dashed, an underscore flag that is no argument under its own
  // spelling (--checkpoint_activations beside --num-layers) is not Megatron-LLM's either: it is
  // kept as written and reported unknown, with the dashed name as the closest.
  std::size_t dashed_flags = 0, underscore_flags = 0;
  for (const auto& w : words) {
    if (!is_flag(w.text)) continue;
    const std::string name = w.text.substr(2, w.text.find('=') - 2);
    if (name.find('-') != std::string::npos)
      ++dashed_flags;
    else if (name.find('_') != std::string::npos && !has_row("--" + name))
      ++underscore_flags;
  }
  const bool dashed_launch = dashed_flags > underscore_flags;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const shell_word& w = words[i];
    diagnostic where = word_location(ctx.source, text, w);
    if (is_flag(w.text)) {
      // In the file the word is written in: the script, or a file it sources.
      const std::string_view in = w.file != nullptr ? std::string_view(w.file->text) : text;
      const std::string flag = w.text.substr(0, w.text.find('='));
      auto [line, column] = sole_occurrence(in, flag);
      if (line == 0) std::tie(line, column) = occurrence_in_expanded(in, flag, w.line);
      if (line != 0 && line != w.line) where = word_location(ctx.source, text, w, line, column);
      // A flag a variable holds that a sourced file sets (`${MODEL_ARGS}` of `source model.sh`):
      // where that file writes it, when it writes it once.
      if (line == 0 && w.file == nullptr)
        for (const auto& [command, file] : launch.followed)
          if (const auto [l, c] = sole_occurrence(file->text, flag); l != 0) {
            where = location(file->path, file->text, l, c);
            break;
          }
    }
    if (!is_flag(w.text)) {
      ctx.note(entry{w.text, {}, false, where},
               standalone_variable(w)
                   ? fmt::format("\"{}\" is a variable the script does not set, standing "
                                 "where arguments would: bash expands it to nothing when it is "
                                 "unset or empty, and arguments the environment gives it are not "
                                 "in the file; ignored",
                                 w.text)
                   : fmt::format("\"{}\" follows no flag; ignored", w.text));
      continue;
    }
    entry e;
    e.where = where;
    const auto equals = w.text.find('=');
    e.key = dashed_launch ? w.text.substr(0, equals) : dashed(w.text.substr(0, equals));
    if (e.key != w.text.substr(0, equals) && !underscores) {
      underscores = true;
      ctx.note(e, fmt::format("{} and the flags after it are spelled with underscores, as "
                              "Megatron-LLM's arguments.py spells them: read as Megatron-LM's {}",
                              w.text.substr(0, equals), e.key));
    }
    if (equals != std::string::npos) e.value.items.push_back(w.text.substr(equals + 1));
    // A flag's value, then more values (a list); a variable the script does not set standing
    // alone after a value (`--pipeline-model-parallel-size $PP $MAYBE_VIRTUAL`) is not one:
    // unset or empty, bash expands it to no word at all.
    while (equals == std::string::npos && i + 1 < words.size() && !is_flag(words[i + 1].text) &&
           !(!e.value.items.empty() && standalone_variable(words[i + 1])))
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

// Training counted in iterations or in samples, never both: validate_args asserts, before any
// model is built, that with --train-iters the sample-based options are off (--train-samples,
// --lr-decay-samples, a non-zero --lr-warmup-samples, and --rampup-batch-size: "expected no
// batch-size rampup for iteration-based training"), and with --train-samples the iteration-based
// ones (--lr-decay-iters, a non-zero --lr-warmup-iters). Megatron-LM from 22ab91bb (2020-12-08)
// to core_v0.17 and Megatron-DeepSpeed (megatron/arguments.py at f4157bea); later Megatron-LM
// drops --rampup-batch-size, which its parser then refuses, and skips the checks under
// --skip-train.
maybe_error training_length_refusal(const import_context& ctx) {
  if (ctx.find("--skip-train") != nullptr) return std::nullopt;
  // A flag set: the warm-ups are compared with 0 (their default), the others with None; a
  // --train-iters of 0 counts nothing (`if args.train_iters:`).
  const auto given = [&](const char* flag) -> const entry* {
    const entry* e = ctx.find(flag);
    if (e == nullptr || e->value.text == "None") return nullptr;
    const bool zero_is_unset = std::string_view(flag).find("warmup") != std::string_view::npos ||
                               std::string_view(flag) == "--train-iters";
    return zero_is_unset && e->value.text == "0" ? nullptr : e;
  };
  const auto refuse = [](const entry& counted, const entry& other, const char* kind,
                         const char* other_kind) {
    return at(other.where,
              fmt::format("{} {} counts training in {}, and {} (line {}) in {}: Megatron's "
                          "validate_args stops the launch before any step (training is counted "
                          "one way); remove one of them to plan it",
                          other.key, other.value.text, other_kind, counted.key, counted.where.line,
                          kind));
  };
  if (const entry* iters = given("--train-iters"))
    for (const char* flag :
         {"--train-samples", "--lr-decay-samples", "--lr-warmup-samples", "--rampup-batch-size"})
      if (const entry* other = given(flag)) return refuse(*iters, *other, "iterations", "samples");
  if (const entry* samples = given("--train-samples"))
    for (const char* flag : {"--lr-decay-iters", "--lr-warmup-iters"})
      if (const entry* other = given(flag))
        return refuse(*samples, *other, "samples", "iterations");
  return std::nullopt;
}

// Megatron's other names for three arguments, read as validate_args reads them:
// --encoder-num-layers is --num-layers and --encoder-seq-length is --seq-length when those are
// absent (both given: Megatron asserts), and --use-rotary-position-embeddings sets
// --position-embedding-type rope (megatron/training/arguments.py at d98e8a64dd).
maybe_error read_other_names(import_context& ctx) {
  static constexpr std::pair<const char*, const char*> same[] = {
      {"--encoder-num-layers", "--num-layers"}, {"--encoder-seq-length", "--seq-length"}};
  for (const auto& pair : same) {
    // Named, not a structured binding: clang 14 (the fuzz build) cannot capture one.
    const char* other = pair.first;
    const char* name = pair.second;
    auto it = std::find_if(ctx.entries.begin(), ctx.entries.end(),
                           [&](const entry& e) { return e.key == other; });
    if (it == ctx.entries.end()) continue;
    if (ctx.find(name) != nullptr)
      return at(it->where, fmt::format("{} and {} are both given, which Megatron refuses; keep "
                                       "one",
                                       other, name));
    ctx.note(*it, fmt::format("{} is read as {} (Megatron's validate_args)", other, name));
    it->key = name;
  }
  // Megatron-LM 2.6's names (arguments.py at 3860e99526, 2021-08-27) of --recompute-method and
  // --recompute-num-layers, which acted with --checkpoint-activations.
  for (const auto& pair :
       {std::pair{"--activations-checkpoint-method", "--recompute-method"},
        std::pair{"--activations-checkpoint-num-layers", "--recompute-num-layers"}}) {
    const char* older = pair.first;
    const char* name = pair.second;
    auto it = std::find_if(ctx.entries.begin(), ctx.entries.end(),
                           [&](const entry& e) { return e.key == older; });
    if (it == ctx.entries.end() || ctx.find(name) != nullptr) continue;
    // The commit that renamed them added --sequence-parallel (cfd2e21607, 2022-04-28): no
    // release takes both, and argparse stops at the one it lacks.
    if (const entry* sp = ctx.find("--sequence-parallel"))
      return at(it->where,
                fmt::format("{} is Megatron-LM 2.6's, renamed {} when --sequence-parallel (line "
                            "{}) came (2022-04): no release takes both, and its argument parser "
                            "stops at the one it lacks; write {} to plan it",
                            older, name, sp->where.line, name));
    ctx.note(*it, fmt::format("{} is Megatron-LM 2.6's name of {}: read as such", older, name));
    it->key = name;
    // Those releases recompute whenever a method is given (validate_args turns
    // --checkpoint-activations into method uniform; ParallelTransformer checkpoints when
    // activations_checkpoint_method is not None): full recompute, the later granularity's name.
    if (std::string(older) == "--activations-checkpoint-method" &&
        ctx.find("--recompute-granularity") == nullptr &&
        ctx.find("--recompute-activations") == nullptr) {
      entry full = *it;
      full.key = "--recompute-granularity";
      full.value = raw_value{"full", {}, false};
      ctx.entries.push_back(std::move(full));
    }
  }
  // microsoft/Megatron-DeepSpeed's names (megatron/arguments.py at f4157bea): DeepSpeed-MoE's
  // --moe-expert-parallel-size, and --num-key-value-heads (grouped-query attention when fewer
  // than the heads).
  for (const auto& pair : {std::pair{"--moe-expert-parallel-size", "--expert-model-parallel-size"},
                           std::pair{"--num-key-value-heads", "--num-query-groups"}}) {
    const char* other = pair.first;
    const char* name = pair.second;
    auto it = std::find_if(ctx.entries.begin(), ctx.entries.end(),
                           [&](const entry& e) { return e.key == other; });
    if (it == ctx.entries.end() || ctx.find(name) != nullptr) continue;
    it->key = name;
    if (std::string(name) == "--num-query-groups" &&
        ctx.find("--group-query-attention") == nullptr) {
      entry gqa = *it;
      gqa.key = "--group-query-attention";
      gqa.value = raw_value{};
      ctx.entries.push_back(std::move(gqa));
    }
  }
  // Megatron-DeepSpeed's DeepSpeed-Ulysses (microsoft/Megatron-DeepSpeed, arguments.py):
  // --ds-sequence-parallel-size N splits each sequence over N ranks between the attention's
  // all-to-alls and takes them from the data-parallel size, as context parallelism does.
  if (auto it = std::find_if(ctx.entries.begin(), ctx.entries.end(),
                             [](const entry& e) { return e.key == "--ds-sequence-parallel-size"; });
      it != ctx.entries.end() && ctx.find("--context-parallel-size") == nullptr) {
    ctx.note(*it,
             "DeepSpeed-Ulysses sequence parallelism is planned as context parallelism of "
             "the same size: each rank holds the sequence / N tokens between the all-to-alls");
    it->key = "--context-parallel-size";
  }
  if (const entry* rotary = ctx.find("--use-rotary-position-embeddings")) {
    entry rope = *rotary;
    rope.key = "--position-embedding-type";
    rope.value = raw_value{"rope", {"rope"}, false};
    std::erase_if(ctx.entries, [](const entry& e) { return e.key == "--position-embedding-type"; });
    ctx.entries.push_back(std::move(rope));
  }
  return std::nullopt;
}

bool is_mpirun(const std::string& word) {
  const std::string name = script_name(word);
  return name == "mpirun" || name == "mpiexec" || name == "mpiexec.hydra";
}

// DLRover's elastic launcher (dlrover/trainer/torch/elastic_run.py, the dlrover-run console
// script) takes torchrun's arguments and starts --nproc_per_node processes a node as torchrun does.
bool is_torchrun(const std::string& word) {
  const std::string name = script_name(word);
  return name == "torchrun" || name == "dlrover-run" || name == "torch.distributed.run" ||
         name == "torch.distributed.launch";
}

// A launcher that starts processes of its own (MPI's, torchrun and python -m
// torch.distributed.*, DeepSpeed's, accelerate's): a command that runs one is no single process.
bool starts_processes(const std::string& word) {
  const std::string name = script_name(word);
  return is_mpirun(word) || name == "orterun" || is_torchrun(word) || name == "deepspeed" ||
         name == "accelerate";
}

// mpirun / mpiexec starting one process a GPU: the processes a node from Open MPI's -npernode /
// --npernode / -N / --map-by ppr:N:node (mpirun(1)) or MPICH / Intel MPI's -ppn / -perhost (and
// Cray PALS's --ppn), and the total from -np / -n / --np; nodes = total / a node. A total the file
// does not give
// (`-np $WORLD_SIZE` of the scheduler's host count) plans one node, noted.
long long read_mpirun(import_context& ctx, std::string_view text,
                      const std::vector<shell_word>& words, bool& nodes_open,
                      maybe_error& error) {
  const auto where = [&](const shell_word& w) { return word_location(ctx.source, text, w); };
  const shell_word* per_node = nullptr;
  const shell_word* total = nullptr;
  std::string per_node_text, total_text;
  for (std::size_t i = 1; i < words.size(); ++i) {
    // `-npernode 1`, or the option and its value in one word (`-npernode=1`, `--np=8`).
    const auto eq = words[i].text.find('=');
    const bool joined = words[i].text.starts_with('-') && eq != std::string::npos;
    if (!joined && i + 1 >= words.size()) break;
    const std::string key = joined ? words[i].text.substr(0, eq) : words[i].text;
    std::string value = joined ? words[i].text.substr(eq + 1) : words[i + 1].text;
    const shell_word* value_word = joined ? &words[i] : &words[i + 1];
    if (key == "-npernode" || key == "--npernode" || key == "-N" || key == "-ppn" ||
        key == "--ppn" || key == "-perhost" || key == "--map-by" || key == "-map-by") {
      if (key.ends_with("map-by")) {  // ppr:N:node
        if (!value.starts_with("ppr:") || !value.ends_with(":node")) continue;
        value = value.substr(4, value.size() - 9);
      }
      per_node = value_word;
      per_node_text = value;
    }
    if (key == "-np" || key == "--np" || key == "-n" || key == "-c") {
      total = value_word;
      total_text = value;
    }
  }
  // The environment mpirun hands the processes: Open MPI's `-x NAME=VALUE` (mpirun(1), "-x
  // <env>") and MPICH / Intel MPI's `-genv NAME VALUE` (mpiexec(1)); `-x NAME` alone passes the
  // launching shell's value, which the exports already give.
  for (std::size_t i = 1; i + 1 < words.size(); ++i) {
    std::string name, value;
    const shell_word* at_word = &words[i + 1];
    if (words[i].text == "-x") {
      const auto eq = words[i + 1].text.find('=');
      if (eq == std::string::npos || eq == 0) continue;
      name = words[i + 1].text.substr(0, eq);
      value = words[i + 1].text.substr(eq + 1);
    } else if (words[i].text == "-genv" && i + 2 < words.size()) {
      name = words[i + 1].text;
      value = words[i + 2].text;
      at_word = &words[i + 2];
    } else {
      continue;
    }
    if (value.find('$') != std::string::npos) continue;
    const entry env{words[0].text + " " + words[i].text + " " + name,
                    {value, {}, false},
                    true,
                    where(*at_word)};
    if (auto problem = ctx.set("env." + name, value, env); !problem.empty()) {
      error = at(env.where, problem);
      return 0;
    }
  }
  const entry mpirun{words[0].text, {}, false, where(words[0])};
  if (per_node == nullptr) {
    ctx.note(mpirun, fmt::format("{} without a processes-a-node option (-npernode, -ppn, --map-by "
                                 "ppr:N:node): the number of GPUs is not read from it",
                                 words[0].text));
    return 0;
  }
  const entry e{words[0].text + " -npernode", {per_node_text, {}, false}, false,
                where(*per_node)};
  ctx.entries.push_back(e);
  const long long a_node = flag_int(ctx, e.key, 1, 1, error, max_megatron_degree);
  ctx.entries.pop_back();
  if (error) return 0;
  long long nodes = 1;
  bool known = false;
  if (total != nullptr && total_text.find('$') == std::string::npos) {
    const entry t{words[0].text + " -np", {total_text, {}, false}, false, where(*total)};
    ctx.entries.push_back(t);
    const long long all = flag_int(ctx, t.key, 1, 1, error, max_megatron_degree * 1024);
    ctx.entries.pop_back();
    if (error) return 0;
    if (all % a_node != 0) {
      error = at(t.where, fmt::format("{} -np {} is not a multiple of {} processes a node; make "
                                      "it one to plan it",
                                      words[0].text, all, a_node));
      return 0;
    }
    nodes = all / a_node;
    known = true;
  }
  for (const auto& [field, value] : {std::pair{"hardware.gpus_per_node", a_node},
                                     std::pair{"hardware.nodes", nodes}})
    if (auto problem = ctx.set(field, std::to_string(value), e); !problem.empty()) {
      error = at(e.where, problem);
      return 0;
    }
  if (known)
    ctx.note(e, fmt::format("{} starts one process a GPU: {} a node x {} node(s)", words[0].text,
                            a_node, nodes));
  else
  {
    nodes_open = true;
    ctx.note(e, fmt::format("{} starts {} process(es) a node, one a GPU; the total ({}) is set "
                            "when the job runs, not in the file",
                            words[0].text, a_node, total == nullptr ? "none" : total_text));
  }
  return a_node * nodes;
}

// HPC sites' own launchers, each starting one process a GPU: the total from one flag, and the
// processes a node or the nodes from another (whichever the line gives; nodes = total / a node).
// `unit` flags multiply both (jsrun starts resource sets of --tasks_per_rs processes each).
//  - IBM Spectrum LSF's jsrun (Summit, Sierra, Lassen; jsrun(1)): -n/--nrs resource sets,
//    -a/--tasks_per_rs processes a set (default 1), -r/--rs_per_host sets a node.
//  - Cray ALPS's aprun (aprun(1)): -n/--pes processes, -N/--pes-per-node a node.
//  - Flux's `flux run` / `flux submit` / `flux mini run` (flux-run(1)): -n/--ntasks,
//    -N/--nodes, --tasks-per-node.
// Values may follow the flag, be attached (`-n48`) or given with `=`.
struct site_launcher {
  const char* name;  // the command ("jsrun"), or "flux run"
  std::pair<const char*, const char*> total, unit, a_node, nodes;  // {short, long}; "" = none
};
constexpr site_launcher site_launchers[] = {
    {"jsrun", {"-n", "--nrs"}, {"-a", "--tasks_per_rs"}, {"-r", "--rs_per_host"}, {"", ""}},
    {"aprun", {"-n", "--pes"}, {"", ""}, {"-N", "--pes-per-node"}, {"", ""}},
    {"flux run", {"-n", "--ntasks"}, {"", ""}, {"", "--tasks-per-node"}, {"-N", "--nodes"}},
};

// The site launcher `words` start with, and how many words name it; nullptr when none.
const site_launcher* site_launcher_of(const std::vector<shell_word>& words, std::size_t& named) {
  if (words.empty()) return nullptr;
  const std::string first = script_name(words[0].text);
  named = 1;
  if (first == "flux") {
    // `flux run`, `flux submit` and the older `flux mini run` / `flux mini submit`.
    std::size_t at = words.size() > 1 && words[1].text == "mini" ? 2 : 1;
    if (at >= words.size() || (words[at].text != "run" && words[at].text != "submit"))
      return nullptr;
    named = at + 1;
    return &site_launchers[2];
  }
  for (const auto& l : site_launchers)
    if (first == l.name) return &l;
  return nullptr;
}

long long read_site_launcher(import_context& ctx, std::string_view text,
                             const std::vector<shell_word>& words, const site_launcher& launcher,
                             std::size_t named, maybe_error& error) {
  const auto where = [&](const shell_word& w) { return word_location(ctx.source, text, w); };
  struct flag {
    std::pair<const char*, const char*> names;
    const shell_word* word = nullptr;
    std::string value;
  };
  flag total{launcher.total, nullptr, {}}, unit{launcher.unit, nullptr, {}},
      a_node{launcher.a_node, nullptr, {}}, nodes{launcher.nodes, nullptr, {}};
  for (std::size_t i = named; i < words.size(); ++i) {
    const std::string& w = words[i].text;
    for (flag* f : {&total, &unit, &a_node, &nodes}) {
      const std::string shorter = f->names.first, longer = f->names.second;
      if ((!longer.empty() && w == longer) || (!shorter.empty() && w == shorter)) {
        if (i + 1 < words.size()) f->word = &words[i + 1], f->value = words[i + 1].text;
      } else if (!longer.empty() && w.rfind(longer + "=", 0) == 0) {
        f->word = &words[i], f->value = w.substr(longer.size() + 1);
      } else if (!shorter.empty() && w.size() > 2 && w.rfind(shorter, 0) == 0 &&
                 std::isdigit(static_cast<unsigned char>(w[2]))) {
        f->word = &words[i], f->value = w.substr(2);
      }
    }
  }
  const std::string name = launcher.name;
  const auto count = [&](const flag& f, long long fallback) -> long long {
    if (f.word == nullptr || error) return fallback;
    const entry e{
        fmt::format("{} {}", name, f.names.second), {f.value, {}, false}, false, where(*f.word)};
    ctx.entries.push_back(e);
    const long long n = flag_int(ctx, e.key, fallback, 1, error, max_megatron_degree * 1024);
    ctx.entries.pop_back();
    return n;
  };
  const long long per_unit = count(unit, 1), all = count(total, 0) * per_unit,
                  per_node_given = count(a_node, 0) * per_unit, nodes_given = count(nodes, 0);
  if (error) return 0;
  const entry said{name, {}, false, where(words[0])};
  const flag& divisor = per_node_given > 0 ? a_node : nodes;
  if (all == 0 || (per_node_given == 0 && nodes_given == 0)) {
    ctx.note(said, fmt::format("{} without {}: the number of GPUs is not read from it", name,
                               all == 0 ? launcher.total.second
                                        : (std::string(launcher.a_node.second) +
                                           (launcher.nodes.second[0] != '\0'
                                                ? std::string(" or ") + launcher.nodes.second
                                                : std::string()))));
    return 0;
  }
  long long per_node = per_node_given, node_count = nodes_given;
  if (per_node_given > 0) {
    node_count = all <= per_node_given ? 1 : all / per_node_given;
    per_node = all <= per_node_given ? all : per_node_given;
    if (all > per_node_given && all % per_node_given != 0) {
      error = at(where(*total.word),
                 fmt::format("{} {} {} does not fill whole nodes of {} processes; make it a "
                             "multiple to plan it",
                             name, launcher.total.second, total.value, per_node_given));
      return 0;
    }
  } else {
    per_node = all / nodes_given;
    if (all % nodes_given != 0) {
      error = at(where(*total.word),
                 fmt::format("{} {} {} processes do not split evenly over {} nodes; make it a "
                             "multiple to plan it",
                             name, launcher.total.second, total.value, nodes_given));
      return 0;
    }
  }
  const entry e{name + " " + divisor.names.second,
                {std::to_string(per_node), {}, false},
                false,
                where(*divisor.word)};
  for (const auto& [field, value] :
       {std::pair{"hardware.gpus_per_node", per_node}, std::pair{"hardware.nodes", node_count}})
    if (auto problem = ctx.set(field, std::to_string(value), e); !problem.empty()) {
      error = at(e.where, problem);
      return 0;
    }
  ctx.note(e, fmt::format("{} starts {} process(es), one a GPU: {} a node x {} node(s)", name, all,
                          per_node, node_count));
  return all;
}

// SLURM's names for the job's nodes (sbatch(1), OUTPUT ENVIRONMENT VARIABLES).
constexpr const char* slurm_node_names[] = {"SLURM_JOB_NODELIST", "SLURM_NODELIST",
                                            "SLURM_JOB_NUM_NODES", "SLURM_NNODES"};

// `python [-u] /path/bin/deepspeed ...`, `python $(which torchrun) ...` or `python -m
// deepspeed.launcher.runner ...`: the interpreter runs the launcher's own script (the console
// scripts of DeepSpeed's and torch's setup.py), so the launcher's words are the command's.
std::vector<shell_word> launcher_run_by_python(const std::vector<shell_word>& words) {
  if (words.empty() || script_name(words[0].text).rfind("python", 0) != 0) return words;
  std::size_t at = 1;
  while (at < words.size() && words[at].text.size() > 1 && words[at].text[0] == '-' &&
         words[at].text != "-m")
    ++at;
  if (at >= words.size()) return words;
  std::vector<shell_word> out(words.begin() + static_cast<std::ptrdiff_t>(at), words.end());
  if (out[0].text == "-m" && out.size() > 1 && out[1].text == "deepspeed.launcher.runner") {
    out.erase(out.begin());
    out[0].text = "deepspeed";
    return out;
  }
  std::string launcher = out[0].text;
  if (launcher.starts_with("$(which ") && launcher.ends_with(")"))
    launcher = launcher.substr(8, launcher.size() - 9);
  const std::string name = script_name(launcher);
  if (name != "deepspeed" && name != "torchrun") return words;
  out[0].text = name;
  return out;
}

// A DeepSpeed config's precision switches as a Megatron-DeepSpeed script decides them: each
// section's "enabled" and where it is written.
struct config_precision {
  std::optional<bool> fp16, bf16;
  diagnostic fp16_at, bf16_at;
};

// Megatron builds the model in the precision of --fp16 / --bf16, and DeepSpeed steps it in the
// one its config enables: a config that turns the model's off steps the half-precision weights
// without DeepSpeed's mixed-precision optimizer, and one that turns the other on mixes two,
// neither of which a plan describes. The refusal of such a contradiction, at the config's switch.
maybe_error precision_contradiction(const import_context& ctx, const config_precision& config,
                                    const std::string& config_name) {
  const entry* fp16 = ctx.find("--fp16");
  const entry* bf16 = ctx.find("--bf16");
  if ((fp16 == nullptr) == (bf16 == nullptr)) return std::nullopt;
  const entry& flag = fp16 != nullptr ? *fp16 : *bf16;
  const bool is_fp16 = fp16 != nullptr;
  const std::string mine = is_fp16 ? "fp16" : "bf16", other = is_fp16 ? "bf16" : "fp16";
  const std::optional<bool> own = is_fp16 ? config.fp16 : config.bf16;
  const bool other_on = (is_fp16 ? config.bf16 : config.fp16).value_or(false);
  if (!other_on && !(own.has_value() && !*own)) return std::nullopt;
  const diagnostic& switch_at = other_on == is_fp16 ? config.bf16_at : config.fp16_at;
  const std::string what =
      other_on ? fmt::format("turns {} on", other) : fmt::format("turns {} off", mine);
  const std::string effect =
      other_on ? fmt::format("would cast it to {} as well", other)
               : std::string(
                     "steps the half-precision weights without its mixed-precision "
                     "optimizer (no fp32 master weights, no loss scaling)");
  return with_remedy(
      at(switch_at, fmt::format("the DeepSpeed config ({}) {} here while {} (line {}) builds the "
                                "model in {}: DeepSpeed {}, a run no plan describes",
                                config_name, what, flag.key, flag.where.line, mine, effect)),
      fmt::format("make the config's {}.enabled true (and the other off) to plan it", mine));
}

// The DeepSpeed config of a Megatron-DeepSpeed launch (--deepspeed with --deepspeed_config), as
// the script makes it: written whole from a here-document (`cat <<EOT > $DS_CONFIG`,
// examples_deepspeed/*/ds_pretrain_*.sh), or filled from Megatron-DeepSpeed's
// ds_config_gpt_TEMPLATE.json by sed (`"enabled": CONFIG_FP16_ENABLED`, `"enabled":
// CONFIG_BF16_ENABLED`). DeepSpeed runs that file's ZeRO stage (it overrides --zero-stage, which
// only Megatron's side reads) and its precision (precision_contradiction). Returns the refusal of
// a contradiction.
maybe_error read_written_deepspeed_config(import_context& ctx, std::string_view text,
                                          const shell_launch& launch) {
  const entry* named = ctx.find("--deepspeed_config");
  if (named == nullptr) named = ctx.find("--deepspeed-config");
  if (named == nullptr || ctx.find("--deepspeed") == nullptr || named->value.text.empty())
    return std::nullopt;
  const written_file_entry* file = nullptr;
  for (const auto& f : launch.written_files)
    if (f.path.text == named->value.text) file = &f;
  // Not written by the script: the JSON beside it (a path relative to the script's folder, or an
  // absolute one that exists), read as DeepSpeed reads it, located in that file.
  std::optional<written_file_entry> on_disk;
  std::string disk_path;
  if (file == nullptr && named->value.text.find('$') == std::string::npos &&
      named->value.text.find('`') == std::string::npos) {
    namespace fs = std::filesystem;
    const fs::path given(named->value.text);
    const fs::path path = given.is_absolute() ? given : fs::path(ctx.source).parent_path() / given;
    std::error_code failed;
    if (fs::is_regular_file(path, failed))
      if (auto read = read_file(path.string(), bytes{max_sourced_bytes})) {
        disk_path = path.string();
        on_disk = written_file_entry{
            shell_word{named->value.text, named->where.line, named->where.column, false, nullptr},
            std::move(*read), 1};
        file = &*on_disk;
      }
  }
  if (file == nullptr) {
    config_precision template_switches;
    for (const auto& [placeholder, value] : launch.sed_substitutions) {
      if (value.text != "true" && value.text != "false") continue;
      const diagnostic at_sed = word_location(ctx.source, text, value);
      if (placeholder == "CONFIG_FP16_ENABLED")
        template_switches.fp16 = value.text == "true", template_switches.fp16_at = at_sed;
      if (placeholder == "CONFIG_BF16_ENABLED")
        template_switches.bf16 = value.text == "true", template_switches.bf16_at = at_sed;
    }
    return precision_contradiction(ctx, template_switches, named->value.text);
  }
  const std::string origin = on_disk ? "beside the script" : "the script writes";
  auto doc = parse_hjson(file->text, on_disk ? disk_path : ctx.source);
  if (!doc || !doc->value.is_object()) {
    ctx.note(*named,
             fmt::format("the DeepSpeed config {} {} but is not read as JSON{}", named->value.text,
                         on_disk ? std::string("is beside the script")
                                 : fmt::format("is written on line {}", file->line),
                         doc ? std::string() : " (" + doc.error().message + ")"));
    return std::nullopt;
  }
  const auto where = [&](const std::vector<std::string>& path) {
    const auto it = doc->keys.find(path);
    if (on_disk)
      return it == doc->keys.end()
                 ? named->where
                 : location(disk_path, file->text, it->second.first, it->second.second);
    return it == doc->keys.end()
               ? word_location(ctx.source, text, file->path, file->line, 1)
               : word_location(ctx.source, text, file->path, file->line + it->second.first - 1,
                               it->second.second);
  };
  const nlohmann::json& json = doc->value;
  const auto enabled = [&](const char* section) -> std::optional<bool> {
    if (!json.contains(section) || !json[section].is_object()) return std::nullopt;
    const auto& on = json[section].value("enabled", nlohmann::json());
    if (on.is_boolean()) return on.get<bool>();
    return std::nullopt;
  };
  const config_precision written{enabled("fp16"), enabled("bf16"), where({"fp16", "enabled"}),
                                 where({"bf16", "enabled"})};
  if (auto d = precision_contradiction(ctx, written, named->value.text)) return d;
  if (json.contains("zero_optimization") && json["zero_optimization"].is_object()) {
    const auto& stage = json["zero_optimization"].value("stage", nlohmann::json());
    if (stage.is_number_integer()) {
      const std::string value = std::to_string(stage.get<long long>());
      const entry from_config{
          "--zero-stage", {value, {}, false}, false, where({"zero_optimization", "stage"})};
      auto given = std::find_if(ctx.entries.begin(), ctx.entries.end(),
                                [](const entry& e) { return e.key == "--zero-stage"; });
      if (given == ctx.entries.end()) {
        ctx.entries.push_back(from_config);
        ctx.note(from_config, fmt::format("the DeepSpeed config {} ({}) says ZeRO stage {}: "
                                          "planned as --zero-stage {}",
                                          origin, named->value.text, value, value));
      } else if (given->value.text != value) {
        ctx.note(from_config,
                 fmt::format("the DeepSpeed config {} ({}) says ZeRO stage {}, "
                             "which DeepSpeed runs; --zero-stage {} (line {}) is only Megatron's: "
                             "planned as stage {}",
                             origin, named->value.text, value, given->value.text, given->where.line,
                             value));
        given->value = from_config.value;
      }
    }
  }
  return std::nullopt;
}

// torchrun (or python -m torch.distributed.run / launch): --nproc_per_node x --nnodes GPUs.
// torchrun's own defaults are one process on one node. Returns the world size, 0 when unknown.
long long read_launcher(import_context& ctx, std::string_view text, const shell_launch& launch,
                        bool& nodes_open, bool& gpus_assumed, maybe_error& error) {
  const std::vector<shell_word> words = launcher_run_by_python(launch.launcher);
  const auto where = [&](const shell_word& w) { return word_location(ctx.source, text, w); };
  const bool torchrun = std::any_of(words.begin(), words.end(),
                                    [](const shell_word& w) { return is_torchrun(w.text); });
  const auto last_python = [&](const std::vector<shell_word>& list) {
    for (std::size_t i = list.size(); i-- > 0;)
      if (script_name(list[i].text).rfind("python", 0) == 0) return i;
    return list.size();
  };
  // `srun [flags] sh -c "python pretrain_*.py ..."`: srun starts the command once per task, a
  // task a GPU (srun(1): --ntasks-per-node, -N/--nodes; without them the #SBATCH allocation's).
  // `srun [flags] python pretrain_*.py ...` written directly: srun's words are those before the
  // interpreter, the task's the rest.
  std::vector<shell_word> srun_words = launch.outer;
  std::vector<shell_word> task = words;
  // Without an interpreter word (a wrapper runs it), srun's words and the task's are read as one.
  if (!words.empty() && script_name(words[0].text) == "srun") {
    if (const auto p = last_python(words); p < words.size()) {
      srun_words.assign(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(p));
      task.assign(words.begin() + static_cast<std::ptrdiff_t>(p), words.end());
    } else if (srun_words.empty()) {
      srun_words = words;
    }
  }
  const auto srun = std::find_if(srun_words.begin(), srun_words.end(), [&](const shell_word& w) {
    return script_name(w.text) == "srun";
  });
  // `python pretrain_gpt.py ...` (Megatron's single-GPU examples): one process, one GPU.
  const bool plain_python =
      !task.empty() && std::all_of(task.begin(), task.end(), [&](const shell_word& w) {
        return script_name(w.text).rfind("python", 0) == 0 ||
               (w.text.rfind('-', 0) == 0 && w.text != "-m");
      });
  // Under srun a task's command may put a binding wrapper before the interpreter (`numactl
  // --cpunodebind=0 python ...`, a site's bind.sh): the wrapper execs the rest, one Python
  // process a task. A wrapper that is itself a process launcher (MPI's) is not one process.
  const std::size_t python_at = last_python(task);
  const bool wrapped_python =
      srun != srun_words.end() && python_at > 0 && python_at < task.size() &&
      std::all_of(
          task.begin() + static_cast<std::ptrdiff_t>(python_at) + 1, task.end(),
          [](const shell_word& w) { return w.text.rfind('-', 0) == 0 && w.text != "-m"; }) &&
      std::none_of(task.begin(), task.begin() + static_cast<std::ptrdiff_t>(python_at),
                   [&](const shell_word& w) {
                     return starts_processes(w.text) || script_name(w.text) == "srun";
                   });
  // A task command without an interpreter word (`srun singularity exec IMAGE ./launch.sh
  // pretrain_gpt.py ...`, a site's launch script that runs Python with the task's rank): one
  // process a task when the allocation gives each task a GPU, #SBATCH --ntasks-per-node equal to
  // the GPUs a node (--gpus-per-node / --gres), and no process launcher is among the task's words.
  const bool task_without_python = srun != srun_words.end() && python_at == task.size() &&
                                   !launch.sbatch_tasks_per_node.text.empty() &&
                                   std::none_of(task.begin(), task.end(), [&](const shell_word& w) {
                                     return starts_processes(w.text);
                                   });
  const bool task_a_gpu =
      task_without_python && launch.sbatch_tasks_per_node.text == launch.sbatch_gpus_per_node.text;
  // A task command without an interpreter word given its own GPUs (#SBATCH --gpus-per-task G,
  // sbatch(1)): a site's per-node launch script (`srun run_pt_on_node.sh "$TRAINING_CMD"`) that
  // starts a process a GPU of its task, torch.distributed.launch --nproc_per_node
  // $SLURM_GPUS_PER_TASK; G processes a task.
  const bool task_gpus =
      task_without_python && !task_a_gpu && !launch.sbatch_gpus_per_task.text.empty();
  // A count written on srun's or #SBATCH's line, read as a flag of that name is.
  const auto count = [&](const char* key, const shell_word& w) {
    ctx.entries.push_back(entry{key, {w.text, {}, false}, false, where(w)});
    const long long n = flag_int(ctx, key, 1, 1, error, max_megatron_degree);
    ctx.entries.pop_back();
    return n;
  };
  long long per_task = 1;
  if (task_gpus) {
    per_task = count("#SBATCH --gpus-per-task", launch.sbatch_gpus_per_task);
    if (error) return 0;
  }
  if (!torchrun && (plain_python || wrapped_python || task_a_gpu || task_gpus) &&
      srun != srun_words.end()) {
    shell_word per_node = launch.sbatch_tasks_per_node, nodes = launch.sbatch_nodes;
    for (auto w = srun; w != srun_words.end(); ++w) {
      std::string key = w->text, value;
      const auto eq = key.find('=');
      if (eq != std::string::npos) value = key.substr(eq + 1), key.resize(eq);
      else if (w + 1 != srun_words.end())
        value = (w + 1)->text;
      if (key == "--ntasks-per-node")
        per_node = shell_word{value, w->line, w->column, false, nullptr};
      if (key == "--nodes" || key == "-N")
        nodes = shell_word{value, w->line, w->column, false, nullptr};
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
      const char* key = k == 0 ? "srun --ntasks-per-node" : "srun --nodes";
      counts[k] = count(key, *given[k]);
      if (error) return 0;
      const entry e{key, {given[k]->text, {}, false}, false, where(*given[k])};
      const long long value = k == 0 ? counts[k] * per_task : counts[k];
      if (auto problem = ctx.set(fields[k], std::to_string(value), e); !problem.empty()) {
        error = at(e.where, problem);
        return 0;
      }
    }
    if (task_gpus) {
      ctx.note(entry{"srun", {}, false, where(*srun)},
               fmt::format("srun starts {} once per task: {} task(s) a node x {} node(s), each "
                           "a launcher of a process for each of its {} GPUs (#SBATCH "
                           "--gpus-per-task): {} GPUs a node",
                           task.empty() ? std::string("its command") : task[0].text, counts[0],
                           counts[1], per_task, counts[0] * per_task));
      return counts[0] * per_task * counts[1];
    }
    ctx.note(
        entry{"srun", {}, false, where(*srun)},
        fmt::format(
            "srun starts {} once per task: {} task(s) a node x {} node(s), a GPU "
            "each",
            plain_python ? task[0].text
            : task_a_gpu && python_at == task.size()
                ? fmt::format("{} (a task a GPU: #SBATCH --ntasks-per-node {} and "
                              "--gpus-per-node {})",
                              script_name(task[0].text) == "srun" ? std::string("its command")
                                                                  : task[0].text,
                              launch.sbatch_tasks_per_node.text, launch.sbatch_gpus_per_node.text)
                : fmt::format("{} (through {})", task[python_at].text, task[0].text),
            counts[0], counts[1]));
    return counts[0] * counts[1];
  }
  // --use-mpi (the Megatron-DeepSpeed fork of ABCI's jobs, kojimano/Megatron-DeepSpeed-ABCI
  // arguments.py): the process takes its rank and the world from Open MPI's environment, so the
  // script itself is started by an mpirun that is not in the file, one process a GPU. The GPU
  // count is then unknown, not one.
  // `mpirun [flags] bash -c "python pretrain_*.py ..."`: MPI starts the string once per process,
  // as it starts a Python command written directly.
  if (!torchrun && !launch.outer.empty() && is_mpirun(launch.outer[0].text))
    return read_mpirun(ctx, text, launch.outer, nodes_open, error);
  if (!torchrun && plain_python) {
    if (const entry* mpi = ctx.find("--use-mpi")) {
      ctx.note(*mpi, fmt::format("--use-mpi: {} takes its rank and world size from the MPI "
                                 "launcher that starts the script (mpirun -np N), which the file "
                                 "does not hold: the number of GPUs is not read from it",
                                 words[0].text));
      return 0;
    }
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
  // DeepSpeed's launcher (deepspeed/launcher/runner.py): --num_gpus (--num_accelerators) a node
  // and --num_nodes; without --num_gpus it runs on every GPU of each node, a count the file does
  // not have (assumed 8 a node, noted); without --num_nodes, on one node unless a --hostfile
  // lists more.
  const bool deepspeed = !words.empty() && (words[0].text == "deepspeed" ||
                                            words[0].text.ends_with("/deepspeed"));
  if (deepspeed) {
    long long counts[] = {0, 0};
    bool given[] = {false, false};
    bool hostfile = false;
    for (std::size_t i = 1; i < words.size(); ++i) {
      std::string key = words[i].text, value;
      // The runner's short options: -H (--hostfile), -i (--include), -e (--exclude).
      const bool short_option = key == "-H" || key == "-i" || key == "-e";
      if (!is_flag(key) && !short_option) continue;
      if (const auto eq = key.find('='); eq != std::string::npos)
        value = key.substr(eq + 1), key.resize(eq);
      else if (i + 1 < words.size() && !is_flag(words[i + 1].text))
        value = words[++i].text;
      std::replace(key.begin() + 2, key.end(), '-', '_');
      hostfile = hostfile || key == "--hostfile" || key == "-H";
      // --include / -i "host:0,1@host2:6,7": these hosts, and on each the slots listed
      // (deepspeed/launcher/runner.py, parse_resource_filter). A host without slots runs on
      // all of its GPUs, which the file does not say; unequal hosts are not one node shape.
      if ((key == "--include" || key == "-i") && !given[0] && !given[1]) {
        std::vector<long long> slots;
        for (std::size_t start = 0; start <= value.size();) {
          const auto end = std::min(value.find('@', start), value.size());
          const std::string host = value.substr(start, end - start);
          start = end + 1;
          const auto colon = host.find(':');
          if (colon == std::string::npos) {
            slots.push_back(0);
            continue;
          }
          const std::string listed = host.substr(colon + 1);
          slots.push_back(1 +
                          static_cast<long long>(std::count(listed.begin(), listed.end(), ',')));
        }
        if (std::find(slots.begin(), slots.end(), 0) == slots.end() &&
            std::adjacent_find(slots.begin(), slots.end(), std::not_equal_to<>()) == slots.end()) {
          const entry e{"deepspeed " + key, {value, {}, false}, false, where(words[i])};
          counts[0] = slots.front();
          counts[1] = static_cast<long long>(slots.size());
          given[0] = given[1] = true;
          std::string problem = ctx.set("hardware.gpus_per_node", std::to_string(counts[0]), e);
          if (problem.empty()) problem = ctx.set("hardware.nodes", std::to_string(counts[1]), e);
          if (!problem.empty()) {
            error = at(e.where, problem);
            return 0;
          }
          ctx.note(e, fmt::format("deepspeed --include {}: {} host(s) of {} GPU(s)", value,
                                  counts[1], counts[0]));
        }
      }
      const int k = key == "--num_gpus" || key == "--num_accelerators" ? 0
                    : key == "--num_nodes"                            ? 1
                                                                      : -1;
      if (k < 0) continue;
      ctx.entries.push_back(entry{"deepspeed " + key, {value, {}, false}, false,
                                  where(words[i])});
      counts[k] = flag_int(ctx, ctx.entries.back().key, 1, 1, error, max_megatron_degree);
      given[k] = true;
      if (error) return 0;
      static const char* fields[] = {"hardware.gpus_per_node", "hardware.nodes"};
      if (auto problem = ctx.set(fields[k], std::to_string(counts[k]), ctx.entries.back());
          !problem.empty()) {
        error = at(ctx.entries.back().where, problem);
        return 0;
      }
      ctx.entries.pop_back();
    }
    if (!given[1] && hostfile) {
      ctx.note(entry{"deepspeed", {}, false, where(words[0])},
               "deepspeed with a --hostfile and no --num_nodes runs on every node the hostfile "
               "lists: the number of nodes is not read from it");
      return 0;
    }
    if (!given[1]) {
      counts[1] = 1;
      (void)ctx.set("hardware.nodes", "1", entry{"", {}, false, where(words[0])});
    }
    if (!given[0]) {
      counts[0] = 8;
      gpus_assumed = true;
      (void)ctx.set("hardware.gpus_per_node", "8", entry{"", {}, false, where(words[0])});
      ctx.note(entry{"deepspeed", {}, false, where(words[0])},
               fmt::format("deepspeed without --num_gpus runs on every GPU of each node, which the "
                           "file does not say: assumed 8 a node x {} node(s); set "
                           "hardware.gpus_per_node",
                           counts[1]));
    }
    return counts[0] * counts[1];
  }
  if (!torchrun && !words.empty() && is_mpirun(words[0].text))
    return read_mpirun(ctx, text, words, nodes_open, error);
  std::size_t named = 0;
  if (const auto* site = torchrun ? nullptr : site_launcher_of(words, named))
    return read_site_launcher(ctx, text, words, *site, named, error);
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
        line != 0 && line != words[i].line && words[i].file == nullptr)
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
    // `--nnodes $(scontrol show hostnames "$SLURM_JOB_NODELIST" | wc -l)`: a command that counts
    // the job's nodes from SLURM's own variables is SLURM_JOB_NUM_NODES by another spelling, the
    // #SBATCH --nodes the script asks for when it has one (sbatch(1)), else set when it runs.
    const bool slurm_count =
        k == 1 && value.starts_with("$(") &&
        std::any_of(std::begin(slurm_node_names), std::end(slurm_node_names),
                    [&](const char* name) { return value.find(name) != std::string::npos; });
    if (slurm_count && !launch.sbatch_nodes.text.empty()) {
      ctx.note(ctx.entries.back(),
               fmt::format("torchrun --nnodes \"{}\" counts the job's nodes: #SBATCH --nodes {} "
                           "(line {})",
                           value, launch.sbatch_nodes.text, launch.sbatch_nodes.line));
      value = launch.sbatch_nodes.text;
      ctx.entries.back().value.text = value;
    }
    // `--nproc_per_node $(nvidia-smi -L | wc -l)` (or `torch.cuda.device_count()`): every GPU of
    // the node, counted when the script runs, which the file does not say; assumed 8, as for
    // deepspeed without --num_gpus.
    if (k == 0 && value.starts_with("$(") && !value.starts_with("$((") &&
        (value.find("nvidia-smi") != std::string::npos ||
         value.find("device_count") != std::string::npos)) {
      counts[0] = 8;
      given[0] = gpus_assumed = true;
      (void)ctx.set("hardware.gpus_per_node", "8", ctx.entries.back());
      ctx.note(ctx.entries.back(),
               fmt::format("torchrun --nproc_per_node \"{}\" counts the node's GPUs when the "
                           "script runs: assumed 8; set hardware.gpus_per_node",
                           value));
      ctx.entries.pop_back();
      continue;
    }
    if (k == 1 && value.find('$') != std::string::npos &&
        (!value.starts_with("$(") || slurm_count)) {
      // `--nnodes $SLURM_NNODES`, `--nnodes $NHOSTS`: the scheduler's count, set when the job
      // runs. The GPUs a node stay the file's; the node count is not in it.
      nodes_open = true;
      ctx.note(ctx.entries.back(),
               fmt::format("torchrun --nnodes \"{}\" is set when the job runs, not in the file",
                           value));
    } else if (k == 2) {
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
constexpr const char* read_by_code[] = {
    "--tensor-model-parallel-size", "--pipeline-model-parallel-size", "--context-parallel-size",
    "--cp-comm-type", "--expert-model-parallel-size", "--expert-tensor-parallel-size",
    "--sequence-parallel", "--use-distributed-optimizer", "--num-layers-per-virtual-pipeline-stage",
    "--overlapped-distributed-optimizer",  // Megatron-LLaMA's
    "--virtual-pipeline-model-parallel-size", "--num-virtual-stages-per-pipeline-rank",
    "--micro-batch-size", "--global-batch-size",
    "--batch-size",                     // the micro batch, to 2020-12
    "--model-parallel-size",            // tp, to 2020-10
    "--num-microbatches-in-minibatch",  // to 2020-12
    "--pipe-parallel-size",             // DeepSpeedExamples' 3D example
    "--gas",
    // 2.6's --recompute-method / --recompute-num-layers
    "--activations-checkpoint-method", "--activations-checkpoint-num-layers", "--seq-length",
    "--bf16", "--fp16", "--grad-reduce-in-bf16", "--accumulate-allreduce-grads-in-fp32",
    // read_megatron_precision: the precision-aware optimizer's dtypes
    "--use-precision-aware-optimizer", "--main-grads-dtype", "--main-params-dtype",
    "--exp-avg-dtype", "--exp-avg-sq-dtype",
    // read_megatron_fp8
    "--fp8-format", "--fp8-recipe", "--fp8-param-gather", "--recompute-granularity",
    "--recompute-activations", "--checkpoint-activations", "--checkpoint-num-layers",
    "--recompute-method", "--recompute-num-layers", "--recompute-modules",
    "--moe-expert-capacity-factor", "--moe-pad-expert-input-to-capacity", "--sgd-momentum",
    // read_pipeline_split
    "--decoder-first-pipeline-num-layers", "--decoder-last-pipeline-num-layers",
    "--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split",
    "--pipeline-model-parallel-layout", "--pp-partition-method", "--save"};  // checkpoint.save

// Megatron flags that do not change GPU memory: learning-rate schedule, data, checkpoint paths,
// logging, profiling, kernel fusions that keep the same tensors, communication overlap.
constexpr const char* without_effect[] = {
    "--use-mcore-models", "--logging-level",
    "--data-impl",  // the dataset's file format (to 2022)
    "--use-legacy-models", "--transformer-impl", "--overlap-grad-reduce", "--overlap-param-gather",
    "--align-param-gather", "--align-grad-reduce", "--ddp-bucket-size",
    "--ddp-average-in-collective", "--overlap-p2p-communication", "--defer-embedding-wgrad-compute",
    "--check-for-nan-in-loss-and-grad", "--no-check-for-nan-in-loss-and-grad",
    "--no-gradient-accumulation-fusion", "--no-masked-softmax-fusion", "--no-bias-gelu-fusion",
    "--no-bias-swiglu-fusion", "--no-bias-dropout-fusion", "--no-rope-fusion",
    "--no-persist-layer-norm", "--apply-layernorm-1p", "--attention-softmax-in-fp32",
    "--rotary-base", "--rotary-percent", "--rotary-seq-len-interpolation-factor",
    "--use-rope-scaling", "--rope-scaling-factor", "--norm-epsilon", "--init-method-std",
    "--init-method-xavier-uniform", "--use-cpu-initialization", "--lr", "--min-lr",
    "--lr-decay-style", "--lr-decay-iters", "--lr-decay-samples", "--lr-warmup-fraction",
    "--lr-warmup-iters", "--lr-warmup-samples", "--lr-warmup-init", "--decoupled-lr",
    "--decoupled-min-lr", "--weight-decay", "--start-weight-decay", "--end-weight-decay",
    "--weight-decay-incr-style", "--clip-grad", "--adam-beta1", "--adam-beta2", "--adam-eps",
    "--loss-scale", "--initial-loss-scale", "--min-loss-scale", "--loss-scale-window",
    "--hysteresis", "--train-iters", "--train-samples", "--exit-interval",
    "--exit-duration-in-mins", "--exit-signal-handler", "--seed", "--rampup-batch-size",
    "--step-batch-size-schedule", "--calculate-per-token-loss", "--manual-gc",
    "--manual-gc-interval", "--manual-gc-eval", "--data-path", "--train-data-path",
    "--valid-data-path", "--test-data-path", "--split", "--vocab-file", "--merge-file",
    "--tokenizer-model", "--data-cache-path", "--mock-data", "--num-workers",
    "--no-create-attention-mask-in-dataloader", "--no-mmap-bin-files", "--tiktoken-pattern",
    "--reset-position-ids", "--reset-attention-mask", "--eod-mask-loss", "--dataloader-type",
    "--load", "--save-interval", "--ckpt-format", "--no-save-optim", "--no-save-rng",
    "--no-load-optim", "--no-load-rng", "--finetune", "--pretrained-checkpoint", "--use-dist-ckpt",
    "--auto-detect-ckpt-format", "--ckpt-fully-parallel-save", "--ckpt-fully-parallel-load",
    "--async-save", "--ckpt-assume-constant-structure", "--log-interval", "--log-params-norm",
    "--log-num-zeros-in-grad", "--log-throughput", "--log-timers-to-tensorboard",
    "--log-validation-ppl-to-tensorboard", "--log-memory-to-tensorboard",
    "--log-world-size-to-tensorboard", "--log-loss-scale-to-tensorboard",
    "--log-batch-size-to-tensorboard", "--timing-log-level", "--timing-log-option",
    "--tensorboard-dir", "--tensorboard-log-interval", "--tensorboard-queue-size",
    "--wandb-project", "--wandb-exp-name", "--wandb-save-dir", "--eval-iters", "--eval-interval",
    "--skip-train", "--profile", "--profile-step-start", "--profile-step-end", "--profile-ranks",
    "--use-pytorch-profiler", "--distributed-backend", "--distributed-timeout-minutes",
    "--deterministic-mode", "--log-progress", "--moe-router-load-balancing-type",
    "--moe-aux-loss-coeff", "--moe-z-loss-coeff", "--moe-token-dispatcher-type",
    // which tokens an expert over capacity drops, not how many it takes
    "--moe-token-drop-policy", "--moe-grouped-gemm", "--moe-shared-expert-overlap",
    "--moe-permute-fusion", "--moe-router-dtype",
    // how Transformer Engine picks float8 scales: an amax history of --fp8-amax-history-len
    // fp32 values a tensor (1 by default), bytes
    "--fp8-margin", "--fp8-interval", "--fp8-amax-history-len", "--fp8-amax-compute-algo"};

// Flags that change memory in ways strategy megatron does not plan.
const std::vector<option>& not_modelled_rows() {
  static const std::vector<option> rows = [] {
    std::vector<option> out;
    const auto add = [&](std::initializer_list<const char*> flags, const char* reason) {
      for (const char* f : flags) out.push_back({f, not_modelled(reason)});
    };
    add({"--first-last-layers-bf16"}, "the first and last layers kept out of float8");
    add({"--fp4-format", "--fp4-recipe", "--fp4-param"},
        "Transformer Engine FP4 training: 4-bit weight copies and activations");
    add({"--tp-comm-overlap"},
        "Transformer Engine's userbuffers for overlapped tensor-parallel "
        "communication");
    add({"--cross-entropy-loss-fusion"}, "the fused cross-entropy keeps no fp32 logits");
    add({"--empty-unused-memory-level"}, "torch.cuda.empty_cache() between phases");
    add({"--cpu-offloading", "--cpu-offloading-num-layers", "--cpu-offloading-activations",
         "--cpu-offloading-weights"},
        "activation and weight offloading to the CPU");
    add({"--optimizer-cpu-offload", "--optimizer-offload-fraction"},
        "optimizer state placed on the CPU");
    add({"--distribute-saved-activations"}, "saved activations split over tensor-parallel ranks");
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
    add({"--use-checkpoint-args"},
        "the model's arguments are read from the checkpoint in --load over the script's; "
        "planned with the script's");
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
    // microsoft/Megatron-DeepSpeed (f4157bea) beyond BigScience's fork.
    // Read under Megatron-LM's names (read_other_names): DeepSpeed-Ulysses as context
    // parallelism, DeepSpeed-MoE's expert-parallel size, grouped-query attention's KV heads.
    out.push_back({"--ds-sequence-parallel-size", handled()});
    out.push_back({"--moe-expert-parallel-size", handled()});
    out.push_back({"--num-key-value-heads", handled()});
    for (const char* f : {"--use-flash-attn-v2", "--use-flash-attn-triton",
                          "--use-flash-attn-builder"})
      out.push_back({f, custom(read_megatron_attention)});
    out.push_back({"--fp8-e4m3", handled()});  // read_megatron_fp8
    out.push_back({"--fp8-hybrid", handled()});
    out.push_back({"--mlp-type", handled()});  // residual refused (read_shape)
    out.push_back({"--topk", handled()});
    out.push_back({"--expert-interval", handled()});
    unplanned(
        {"--num-experts-switch", "--disable-moe-token-dropping", "--moe-train-capacity-factor",
         "--moe-eval-capacity-factor", "--moe-min-capacity", "--enable-expert-tensor-parallelism"},
        "DeepSpeed-MoE's routing and expert capacity");
    unplanned({"--embedding-weights-in-fp32"}, "fp32 embedding weights");
    unplanned({"--random-ltd"}, "random layer-token drop: fewer tokens through the middle layers");
    unplanned({"--ds-sequence-parallel-fpdt", "--ds-sequence-parallel-fpdt-chunk-size",
               "--ds-sequence-parallel-fpdt-offloading"},
              "FPDT: attention over chunks of the sequence, offloaded to the host");
    unplanned({"--no-contiguous-buffers-in-local-ddp"},
              "the data-parallel wrapper's gradient buffers");
    unplanned({"--standalone-embedding-stage"}, "the embedding on a pipeline stage of its own");
    out.push_back({"--kd", handled()});  // refused at its line (import_megatron)
    out.push_back({"--mos", handled()});
    // No effect on memory: retrieval settings of RETRO (refused), RoPE's base, a layer norm
    // kernel (it keeps a tensor of the same size), logging, the MoE loss and parameter groups,
    // kernels of the same tensors (ZB-H1 keeps 1F1B's in-flight activations, tutel, fused Adam),
    // an inference switch, the non-pipelined model of a pipeline size of 1 (Megatron-DeepSpeed
    // asserts it), data files and curricula that only shorten sequences, checkpoint loading, and
    // the distillation settings --kd notes.
    quiet({"--retro-workdir", "--retro-num-neighbors", "--retro-num-retrieved-chunks",
           "--retro-return-doc-ids", "--rotary-position-embeddings-theta",
           "--disable-mem-efficient-ln", "--kill-switch-file",
           "--log-optimizer-states-to-tensorboard",
           "--enable-zbh1-pipeline", "--enable-zbh1-exact-semantics", "--moe-loss-coeff",
           "--create-moe-param-group", "--disable-moe-top2-2nd-expert-sampling", "--ds-inference",
           "--ds_fused_adam", "--no-pipeline-parallel", "--use-tutel",
           "--force-ds-sequence-parallel", "--use-dataset-only", "--lr-warmup-tokens",
           "--load-tag", "--no-load-lr-state", "--aml-data-download-path", "--trust-remote-code",
           "--train-data-exact-num-epochs", "--return-data-index",
           "--data-efficiency-curriculum-learning", "--train-idx-path", "--train-desc-path",
           "--train-doc-idx-path", "--train-sample-idx-path", "--train-shuffle-idx-path",
           "--repeated-dataloader", "--num-layers-teacher", "--num-experts-teacher",
           "--hidden-size-teacher", "--num-attention-heads-teacher", "--kd-alpha-ce",
           "--kd-beta-ce", "--kd-temp", "--reset-iteration", "--load-teacher", "--profile_steps"});
    return out;
  }();
  return rows;
}

// The transformer layers each pipeline stage holds when a flag splits them other than evenly:
// Megatron-LM's --decoder-first/last-pipeline-num-layers (the middle stages share the rest),
// --account-for-embedding/loss-in-pipeline-split (the embedding and the loss count as a layer
// of the first and last stage: (layers + 1 or 2) / pp a stage), and Megatron-DeepSpeed's
// --pp-partition-method (DeepSpeed's PipelineModule: "type:transformer", its default, balances
// the transformer layers; "type:transformer|embedding" also counts the two tied embeddings, so
// (layers + 2) / pp a stage with one layer fewer on the first and last; "uniform" and
// "parameters" balance all the pipeline's modules or their parameters). Strategy megatron plans
// layers / pp on every stage: a split that is even after all is read, one that is not is refused
// at its flag with the --num-layers that would plan its busiest stage.
maybe_error read_pipeline_split(import_context& ctx, const megatron_mesh& m) {
  const long long pp = m.pp, layers = m.layers;
  const entry* first = ctx.find("--decoder-first-pipeline-num-layers");
  const entry* last = ctx.find("--decoder-last-pipeline-num-layers");
  const entry* embedding = ctx.find("--account-for-embedding-in-pipeline-split");
  const entry* loss = ctx.find("--account-for-loss-in-pipeline-split");
  const entry* layout = ctx.find("--pipeline-model-parallel-layout");
  const entry* method = ctx.find("--pp-partition-method");
  const entry* any = first   ? first
                     : last  ? last
                     : embedding ? embedding
                     : loss  ? loss
                     : layout ? layout
                               : method;
  if (any == nullptr || pp <= 1) return std::nullopt;
  const std::string flag = any->key + (any->value.text.empty() ? "" : " " + any->value.text);
  if (layout != nullptr)
    return at(layout->where,
              fmt::format("--pipeline-model-parallel-layout {}: a layout of layers per stage, "
                          "which strategy megatron does not plan (it gives each of the {} stages "
                          "{} / {} layers); remove it to plan an even split",
                          layout->value.text, pp, layers, pp));
  if (ctx.find("--num-layers-per-virtual-pipeline-stage") != nullptr ||
      ctx.find("--num-virtual-stages-per-pipeline-rank") != nullptr ||
      ctx.find("--virtual-pipeline-model-parallel-size") != nullptr)
    return at(any->where, fmt::format("{}: an uneven split over virtual pipeline stages, which "
                                      "strategy megatron does not plan; remove it to plan an "
                                      "even split",
                                      flag));
  // Transformer layers on the first, each middle and the last stage.
  long long head = 0, middle = 0, tail = 0;
  std::string how;
  if (method != nullptr) {
    std::string v = lower_case(method->value.text);
    std::erase_if(v, [](char c) { return c == '\'' || c == '"' || c == ' '; });
    if (v == "type:transformer") return std::nullopt;  // the default: layers / pp (checked later)
    if (v != "type:transformer|embedding" && v != "type:embedding|transformer")
      return at(method->where,
                fmt::format("{}: DeepSpeed balances all the pipeline's modules or their "
                            "parameters, not the transformer layers, which strategy megatron "
                            "plans as {} / {} a stage; use type:transformer to plan it",
                            flag, layers, pp));
    if ((layers + 2) % pp != 0)
      return at(method->where,
                fmt::format("{}: {} layers and the 2 embeddings do not divide into {} stages, so "
                            "DeepSpeed splits them unevenly, which strategy megatron does not "
                            "plan; use type:transformer with --num-layers a multiple of {}",
                            flag, layers, pp, pp));
    middle = (layers + 2) / pp;
    head = tail = middle - 1;
    how = fmt::format("{} layers and the 2 embeddings split into {} stages of {}", layers, pp,
                      middle);
  } else if (first != nullptr || last != nullptr) {
    std::optional<diagnostic> error;
    head = flag_int(ctx, "--decoder-first-pipeline-num-layers", -1, 0, error, layers);
    tail = flag_int(ctx, "--decoder-last-pipeline-num-layers", -1, 0, error, layers);
    if (error) return error;
    const long long given = (head >= 0 ? 1 : 0) + (tail >= 0 ? 1 : 0);
    const long long rest = layers - std::max(head, 0LL) - std::max(tail, 0LL);
    if (pp - given <= 0 || rest < 0 || rest % (pp - given) != 0)
      return at(any->where, fmt::format("{}: the other {} layers do not divide into the other {} "
                                        "stages (Megatron refuses this split)",
                                        flag, rest, pp - given));
    middle = rest / (pp - given);
    if (head < 0) head = middle;
    if (tail < 0) tail = middle;
    how = fmt::format("{} on the first stage, {} on the last, {} on each other", head, tail,
                      middle);
  } else {
    const long long extra = (embedding ? 1 : 0) + (loss ? 1 : 0);
    if ((layers + extra) % pp != 0)
      return at(any->where, fmt::format("{}: {} layers and {} more do not divide into {} stages "
                                        "(Megatron refuses this split)",
                                        flag, layers, extra, pp));
    middle = (layers + extra) / pp;
    head = embedding ? middle - 1 : middle;
    tail = loss ? middle - 1 : middle;
    how = fmt::format("{} layers and {} counted as a layer split into {} stages of {}", layers,
                      embedding && loss ? "the embedding and the loss"
                      : embedding      ? "the embedding"
                                       : "the loss",
                      pp, middle);
  }
  const long long busiest = std::max({head, middle, tail});
  if (pp == 2 ? head == tail : head == middle && tail == middle) {
    ctx.note(*any, fmt::format("{}: {}; every stage holds {} transformer layers, as planned", flag,
                               how, head));
    return std::nullopt;
  }
  return at(any->where,
            fmt::format("{}: {}, so the stages hold {} transformer layers on the first, {} on "
                        "the last and {} on the others: an uneven split, which strategy megatron "
                        "does not plan (it gives every stage --num-layers / pp). To bound the "
                        "busiest stage, plan --num-layers {} ({} on each of the {} stages)",
                        flag, how, head, tail, middle, busiest * pp, busiest, pp));
}

const std::vector<option>& megatron_table() {
  static const std::vector<option> table = [] {
    std::vector<option> rows{{"--attention-backend", custom(read_megatron_attention)},
                             {"--use-flash-attn", custom(read_megatron_attention)},
                             {"--use-memory-attn", custom(read_megatron_attention)},
                             {"--optimizer", custom(read_megatron_optimizer)}};
    for (const char* f : read_by_code) rows.push_back({f, handled()});
    for (const char* f : megatron_model_flags) rows.push_back({f, handled()});
    for (const char* f : without_effect) rows.push_back({f, no_effect()});
    const auto& more = not_modelled_rows();
    rows.insert(rows.end(), more.begin(), more.end());
    const auto& fork = megatron_deepspeed_rows();
    rows.insert(rows.end(), fork.begin(), fork.end());
    const auto& each = megatron_argument_rows();
    rows.insert(rows.end(), each.begin(), each.end());
    return rows;
  }();
  return table;
}

// Megatron-LM's pretraining scripts that build other models than GPT, and what they build.
std::string other_model_script(const std::string& script) {
  static constexpr std::pair<std::string_view, std::string_view> others[] = {
      {"pretrain_bert.py", "BERT (a bidirectional encoder with masked-LM and binary heads)"},
      {"pretrain_t5.py", "T5 (an encoder-decoder)"},
      {"pretrain_ict.py", "an ICT retriever (two BERT encoders)"},
      {"pretrain_retro.py", "RETRO (a GPT with a retrieval encoder)"},
      {"pretrain_mamba.py", "a hybrid Mamba model"},
      // pretrain_mamba.py's name since 2026 (NVIDIA/Megatron-LM, pretrain_mamba.py now a
      // deprecated wrapper of it): megatron.core.models.hybrid's Mamba / attention layers.
      {"pretrain_hybrid.py", "a hybrid Mamba model"},
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
  // An entry script named for a training that runs a second model beside the trained one: a
  // preference or reinforcement-learning trainer (dpo_training.py, train_ppo.py: a frozen
  // reference model, a reward or value model) or a distillation (a teacher), by a word of its
  // name.
  static constexpr std::pair<std::string_view, std::string_view> second_model[] = {
      {"dpo", "a DPO training"},     {"ppo", "a PPO training"},
      {"grpo", "a GRPO training"},   {"rlhf", "an RLHF training"},
      {"orpo", "an ORPO training"},  {"kto", "a KTO training"},
      {"simpo", "a SimPO training"}, {"reward", "a reward-model training"},
      {"distill", "a distillation"}, {"distillation", "a distillation"},
      {"kd", "a distillation"}};
  for (const std::string& word : name_words(script))
    for (const auto& [name, what] : second_model)
      if (word == name)
        return fmt::format(
            "{} (the trained model beside a reference, reward, value or teacher "
            "model it also runs every step)",
            what);
  // A fork's own pretraining script (`pretrain_<name>.py`) whose name is no model family a
  // Megatron GPT covers: its model_provider builds the fork's model, which the arguments do not
  // describe (pretrain_gpt.py's GPT, and the LLaMA-style, Mistral, Qwen, DeepSeek or BLOOM
  // models forks launch through scripts named for them, are planned).
  if (script.starts_with("pretrain_")) {
    static constexpr std::string_view families[] = {
        "gpt",   "llama",  "mistral", "mixtral",  "qwen",     "deepseek",
        "bloom", "falcon", "gemma",   "phi",      "baichuan", "internlm",
        "yi",    "aquila", "moe",     "megatron", "core",     "hybrid"};
    const auto words = name_words(script.substr(0, script.size() - 3));
    const bool named = std::any_of(words.begin() + 1, words.end(), [&](const std::string& w) {
      return std::any_of(std::begin(families), std::end(families),
                         [&](std::string_view f) { return w.starts_with(f); });
    });
    if (words.size() > 1 && !named)
      return "the fork's own model (its name is none of the model families Megatron's GPT "
             "covers; the script's model_provider decides the layers, which the arguments do not "
             "describe)";
  }
  return "";
}

// How fundamental a fact that keeps a launch from a plan is, in the order a user settles them:
// first a contradiction Megatron-LM itself refuses when it starts (the launch fails as written,
// whatever vramscope reads, and the fix may change the rest), then which model the launch
// trains (and which training script builds it), then that model's shape and vocabulary, then
// the GPU count and the launch's other details.
enum class blocking { fails, model, shape, launch };

struct blocking_fact {
  blocking rank = blocking::launch;
  diagnostic where;
};

// The refusal of a launch that `facts` (at least one) block: the most fundamental first (file
// order within a rank) is where it points; the others are listed after its message, each with
// its line, so that one reading shows all that must change.
diagnostic refuse(std::vector<blocking_fact> facts) {
  std::stable_sort(facts.begin(), facts.end(), [](const auto& a, const auto& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.where.line < b.where.line;
  });
  diagnostic first = facts.front().where;
  std::vector<std::string> others;
  for (std::size_t i = 1; i < facts.size(); ++i)
    if (facts[i].where.message != first.message)
      others.push_back(fmt::format("line {}: {}", facts[i].where.line, facts[i].where.message));
  if (!others.empty())
    first.message += fmt::format(". {} more keep{} it from a plan after that: {}", others.size(),
                                 others.size() == 1 ? "s" : "", join(others, "; "));
  return first;
}

// Megatron-LM's training scripts of vision-language models, which take the language model as
// one of their parts: examples/multimodal/train.py (LLaVA-style: a vision encoder and a
// projection before the language model --language-model-type names) and examples/mimo/train.py
// (MIMO: --model-provider builds the modality encoders and the language model). Refused at the
// option that chooses the model, else at the script.
std::optional<diagnostic> vision_language_script(const import_context& ctx,
                                                 const std::string& script_path,
                                                 const diagnostic& script_at) {
  const auto ends_with = [&](std::string_view tail) { return script_path.ends_with(tail); };
  const entry* language = ctx.find("--language-model-type");
  const entry* provider = ctx.find("--model-provider");
  std::string what;
  if (language != nullptr || ends_with("multimodal/train.py"))
    what =
        "examples/multimodal/train.py's vision-language model (a vision encoder and "
        "projection beside the language model)";
  else if (provider != nullptr || ends_with("mimo/train.py"))
    what =
        "examples/mimo/train.py's multimodal model (modality encoders beside the language "
        "model)";
  else
    return std::nullopt;
  const entry* chooser = language != nullptr ? language : provider;
  const std::string head =
      chooser != nullptr ? fmt::format("{} {}", chooser->key, chooser->value.text) : script_path;
  return at(chooser != nullptr ? chooser->where : script_at,
            fmt::format("{}: the launch trains {}, which vramscope does not plan from Megatron-LM "
                        "arguments (it plans pretrain_gpt.py's GPT models); to plan the language "
                        "model alone, give its pretrain_gpt.py arguments, or write a job spec "
                        "with its config.json (docs/job-spec.md)",
                        head, what));
}

// The model's shape chosen by the script's own arguments: a shape flag whose value is set only
// in branches of a conditional on a variable the arguments set (`MODEL_SIZE=$2` and then `if [
// $MODEL_SIZE = 7B ]`). Refused where that variable is set (else at the conditional): which
// model the launch trains is decided there.
std::optional<diagnostic> shape_chosen_by_arguments(const import_context& ctx) {
  for (const char* flag : {"--num-layers", "--hidden-size", "--num-attention-heads"}) {
    const entry* e = ctx.find(flag);
    if (e == nullptr) continue;
    const diagnostic* chosen = chosen_by_arguments(ctx, e->value.text);
    if (chosen == nullptr) continue;
    const std::string fix = fmt::format(
        "write the model's shape (--num-layers, --hidden-size, --num-attention-heads, ...) into "
        "the script to plan it");
    if (const diagnostic* where = argument_choosing(ctx, *chosen))
      return at(*where, fmt::format("{}, and it chooses the model: {} \"{}\" is set only in "
                                    "branches of \"{}\" (line {}); {}",
                                    where->message, flag, e->value.text, chosen->context,
                                    chosen->line, fix));
    return at(*chosen, fmt::format("{} \"{}\": {}, so they choose the model; {}", flag,
                                   e->value.text, chosen->message, fix));
  }
  return std::nullopt;
}

// The files the script sources that were not read, a virtualenv's `activate` and system files
// (/etc/...) aside: what they set is not in the script.
std::vector<const unread_source*> unread_sources(const shell_launch& launch) {
  std::vector<const unread_source*> files;
  for (const auto& unread : launch.sourced) {
    const shell_word& f = unread.file;
    const auto slash = f.text.find_last_of('/');
    const std::string name = slash == std::string::npos ? f.text : f.text.substr(slash + 1);
    if (name == "activate" || f.text.rfind("/etc/", 0) == 0) continue;
    files.push_back(&unread);
  }
  return files;
}

// The refusal of a launch whose model arguments come from a file it sources (see the caller).
std::optional<diagnostic> sourced_model(const import_context& ctx, const shell_launch& launch,
                                        std::string_view text) {
  std::vector<const unread_source*> files = unread_sources(launch);
  if (files.empty()) return std::nullopt;
  // Pointed at the one most likely to hold the arguments: the first whose name says so (a word
  // of it is model, args, params, ...; before that, config or cfg, which name any setting), else
  // the first not named for the data (data, blend, corpus), else the first; the script reads
  // them in order, and all are named.
  const auto tier = [](const unread_source* f) {
    static const std::set<std::string> arguments{"arg",         "args",       "arguments", "param",
                                                 "params",      "parameters", "hparams",   "model",
                                                 "hyperparams", "models"};
    static const std::set<std::string> settings{"config", "configs", "cfg"};
    static const std::set<std::string> data{"data", "dataset", "datasets", "blend", "corpus"};
    int best = 1;
    for (const std::string& word : name_words(script_name(f->file.text))) {
      if (arguments.contains(word)) return 3;
      if (settings.contains(word) && best > 0) best = 2;
      if (data.contains(word)) best = 0;
    }
    return best;
  };
  const unread_source* chosen = files.front();
  for (const auto* f : files)
    if (tier(f) > tier(chosen)) chosen = f;
  return at(word_location(ctx.source, text, chosen->file),
            fmt::format("source {}: the launch's Megatron-LM arguments hold no --num-layers, so "
                        "the model's shape comes from the file{} the script sources ({}), "
                        "which vramscope could not read ({}); put {} where the script names it "
                        "(a relative path is looked for from the script's folder), or write the "
                        "model's arguments (--num-layers, --hidden-size, --num-attention-heads, "
                        "...) and the batch and parallel sizes they set into the script, to plan "
                        "it",
                        chosen->file.text, files.size() == 1 ? "" : "s", unread_sources_named(ctx),
                        chosen->looked_for.empty()
                            ? "its path is known only when the script runs, or lies outside the "
                              "script's folder"
                            : chosen->looked_for,
                        files.size() == 1 ? "the file" : "the files"));
}

}  // namespace

const std::vector<option>& megatron_options() { return megatron_table(); }

long long launch_world(import_context& ctx, std::string_view text, const shell_launch& launch,
                       maybe_error& error) {
  bool nodes_open = false, gpus_assumed = false;
  return read_launcher(ctx, text, launch, nodes_open, gpus_assumed, error);
}

}  // namespace detail

result<imported_job> import_megatron(std::string_view text, const std::string& source) {
  auto launch = detail::read_shell_launch(text, source);
  if (!launch) return launch.error();
  detail::import_context ctx("megatron", source);
  ctx.out.notes = launch->notes;
  ctx.chosen_by_arguments = launch->chosen_by_arguments;
  ctx.set_from_arguments = launch->set_from_arguments;
  // Values set at run time are refused where they are set, as those the arguments choose.
  for (const auto& [value, where] : launch->run_time_values)
    ctx.chosen_by_arguments.emplace_back(detail::run_time_marker + value, where);
  for (const auto* unread : detail::unread_sources(*launch))
    ctx.unread_sources.emplace_back(unread->file.text, unread->file.line);
  detail::read_flags(ctx, text, *launch);
  if (auto err = detail::read_other_names(ctx)) return *err;
  // Where a refusal of the whole launch points: the script's word, else (a plain argument list)
  // its first argument, else the first line.
  const detail::shell_word* anchor = !launch->script.text.empty() ? &launch->script
                                     : !launch->args.empty()      ? &launch->args.front()
                                                                  : nullptr;
  // A script named through a string variable (`PROGRAM_CMD="tools/x.py ..."`, then
  // `$LAUNCHER $PROGRAM_CMD`) is located where its name is written, when written once.
  // Expanded (`${SCRIPT_PATH}/pretrain_t5.py`), the path is not in the file: its file name is,
  // when written once.
  std::pair<int, int> script_written{0, 0};
  const bool script_in_script = !launch->script.text.empty() && launch->script.file == nullptr;
  if (script_in_script) script_written = detail::sole_occurrence(text, launch->script.text);
  if (script_written.first == 0 && script_in_script) {
    script_written = detail::sole_occurrence(text, detail::script_name(launch->script.text));
    // At the start of the path that ends in it.
    const std::string row =
        script_written.first > 0 ? detail::line_at(text, script_written.first) : std::string();
    while (script_written.second > 1 &&
           std::string_view(" \t\"'(=")
                   .find(row[static_cast<std::size_t>(script_written.second - 2)]) ==
               std::string_view::npos)
      --script_written.second;
  }
  const diagnostic script_at =
      script_written.first > 0
          ? detail::location(source, text, script_written.first, script_written.second)
      : anchor != nullptr ? detail::word_location(source, text, *anchor)
                          : detail::location(source, text, 1, 1);
  const std::string script = detail::script_name(launch->script.text);
  // What keeps the launch from a plan, gathered so that the refusal names the most fundamental
  // (detail::refuse) and lists the rest.
  std::vector<detail::blocking_fact> facts;
  const auto refused = [&](detail::blocking rank, diagnostic d) {
    facts.push_back({rank, std::move(d)});
    return detail::refuse(facts);
  };
  // A file whose launches are only written (printed, or held in a variable nothing runs)
  // trains nothing when it runs.
  if (launch->script.text.empty() && !launch->unrun_launches.empty())
    return refused(detail::blocking::model, launch->unrun_launches.front());
  if (auto d = detail::vision_language_script(ctx, launch->script.text, script_at))
    facts.push_back({detail::blocking::model, *d});
  if (auto d = detail::shape_chosen_by_arguments(ctx))
    facts.push_back({detail::blocking::model, *d});
  if (launch->launch_chosen) facts.push_back({detail::blocking::model, *launch->launch_chosen});
  if (auto syntax = detail::then_without_separator(text, source))
    facts.push_back({detail::blocking::fails, *syntax});
  for (const auto& failing : launch->failing_strings)
    facts.push_back({detail::blocking::fails, failing});
  // A comment written inside a quoted argument string (`GPT_ARGS="... \` then `#
  // PLE flags` on a line of its own) is text: expanded, its words reach the script, whose
  // argparse parser has no positional arguments and stops at words no option takes
  // ("unrecognized arguments"; Megatron-LM's parse_args with ignore_unknown_args False).
  for (const auto& w : launch->args)
    if (w.text.starts_with('#')) {
      auto [line, column] = w.file == nullptr ? detail::occurrence_in_expanded(text, w.text, w.line)
                                              : std::pair<int, int>{0, 0};
      if (line == 0) line = w.line, column = w.column;
      facts.push_back(
          {detail::blocking::fails,
           detail::at(detail::word_location(source, text, w, line, column),
                      fmt::format("\"{}\" reaches {} as an argument: a comment inside a quoted "
                                  "string is text once the string is expanded, and "
                                  "argparse stops at words no option takes (\"unrecognized "
                                  "arguments\"); move the comment out of the string to plan it",
                                  w.text, script))});
      break;
    }
  if (!launch->launcher.empty() || !launch->script.text.empty()) {
    const int first =
        !launch->launcher.empty() ? launch->launcher.front().line : launch->script.line;
    if (auto cut = detail::cut_continuation(text, source, first))
      facts.push_back({detail::blocking::fails, *cut});
  }
  // An argument whose variable was expanded before the script set it gets nothing in its place:
  // Megatron's parser stops on the flag left without its value (argparse: expected one argument).
  {
    std::optional<diagnostic> earliest;
    for (const auto& use : launch->expanded_before_set) {
      // Named, not a structured binding: the lambda below captures it (clang 14 cannot).
      const std::string& name = use.first;
      const diagnostic& where = use.second;
      const auto takes = std::find_if(ctx.entries.begin(), ctx.entries.end(), [&](const auto& e) {
        return e.key.starts_with("--") &&
               (e.value.text == "$" + name || e.value.text == "${" + name + "}");
      });
      if (takes == ctx.entries.end() || (earliest && earliest->line <= where.line)) continue;
      earliest = detail::at(
          where, fmt::format("{} (line {}) takes ${}: {}; the flag is left without its value and "
                             "Megatron's argument parser stops; set {} before this line to plan "
                             "it",
                             takes->key, takes->where.line, name, where.message, name));
    }
    if (earliest) facts.push_back({detail::blocking::fails, *earliest});
  }
  if (launch->name_is_assignment && !launch->launcher.empty()) {
    const auto& name = launch->launcher.front();
    const std::string word = name.text.substr(0, name.text.find('='));
    facts.push_back(
        {detail::blocking::launch,
         detail::at(
             detail::word_location(source, text, name),
             fmt::format(
                 "the launch of {} starts with {}, which an expansion produces: bash takes "
                 "NAME=value as an assignment only where it is written before the command, so "
                 "it runs \"{}\" as the command's name, which fails, and {} never starts; "
                 "write the assignments themselves before the launcher (or export {} "
                 "beforehand) to plan it",
                 script, name.text, name.text, script, word))});
  }
  // A script that runs a trained model, or converts a checkpoint or prepares data, trains
  // nothing.
  if (const bool serves = detail::not_training_script(script);
      serves || detail::conversion_script(script))
    return refused(
        detail::blocking::model,
        detail::at(script_at,
                   fmt::format("{} {}: there are no gradients, optimizer state or training "
                               "batch to plan; give the training launch {} (pretrain_gpt.py "
                               "and its arguments) to plan it",
                               script,
                               serves ? "runs a trained model (text generation, evaluation or "
                                        "serving)"
                                      : "converts a checkpoint or prepares data, and trains "
                                        "nothing",
                               serves ? "of the same model" : "that uses its output")));
  if (const auto other = detail::other_model_script(script); !other.empty())
    return refused(
        detail::blocking::model,
        detail::at(script_at,
                   fmt::format("{} builds {}, which vramscope does not plan from Megatron-LM "
                               "arguments (it plans pretrain_gpt.py's GPT models); to plan it, "
                               "write a job spec with the model's config.json "
                               "(docs/job-spec.md)",
                               script, other)));
  // --yaml-cfg: Megatron-LM replaces the parsed arguments with the YAML file's
  // (megatron/training/arguments.py, parse_args: `args = load_yaml(args.yaml_cfg)`), so the
  // model, batch, precision and parallel sizes are in that file, whatever the command line says.
  if (const detail::entry* yaml = ctx.find("--yaml-cfg"))
    return refused(
        detail::blocking::model,
        detail::at(
            yaml->where,
            fmt::format(
                "--yaml-cfg {}: Megatron-LM takes every argument from that YAML file instead "
                "of the command line (parse_args: args = load_yaml(args.yaml_cfg)), so the "
                "model, batch, precision and parallel sizes are in it, and vramscope does not "
                "read it; write them as Megatron-LM arguments in place of --yaml-cfg to plan "
                "it",
                yaml->value.text.empty() ? "(no file)" : yaml->value.text)));
  // --ckpt-convert-format: the launch loads its checkpoint, saves it again in that format under
  // --ckpt-convert-save and exits before the first step (megatron/training/training.py,
  // setup_model_and_optimizer, "Convert checkpoint format": save_checkpoint, then exit(); since
  // Megatron-LM core_r0.8, and in forks built on it). It converts; it does not train.
  if (const detail::entry* convert = ctx.find("--ckpt-convert-format"))
    return refused(
        detail::blocking::model,
        detail::at(convert->where,
                   fmt::format("--ckpt-convert-format {}: Megatron-LM loads the checkpoint, "
                               "saves it in that format and exits before the first training "
                               "step, so this launch converts a checkpoint and trains nothing; "
                               "remove --ckpt-convert-format and --ckpt-convert-save (the "
                               "training it converts for) to plan it",
                               convert->value.text.empty() ? "(no format)" : convert->value.text)));
  // Knowledge distillation (Megatron-DeepSpeed): --kd and --mos build a teacher model beside the
  // student on every GPU (megatron/training.py, pretrain: `if args.mos or args.kd:
  // args.teacher_model = setup_teacher_model(args, model_provider)`).
  for (const char* flag : {"--kd", "--mos"})
    if (const detail::entry* kd = ctx.find(flag))
      return refused(
          detail::blocking::model,
          detail::at(
              kd->where,
              fmt::format("{}: Megatron-DeepSpeed builds a teacher model (--num-layers-teacher, "
                          "--hidden-size-teacher, --load-teacher) beside the student on every GPU, "
                          "two models in one job, which a plan of one model cannot hold; plan the "
                          "student without {} and the teacher's flags, and add the teacher's "
                          "weights and forward activations to it",
                          flag, flag)));
  // Forks' flags that change what every rank holds beyond any plan of Megatron's grid, refused at
  // the flag, each with its source:
  //  - MegatronApp's MegaFBD (OpenSQZ/MegatronApp at 99c64dad, megatron/training/arguments.py and
  //    core/parallel_state.py): --forward-backward-disaggregating makes every other
  //    tensor-parallel group of ranks forward-only and the rest backward-only (`(rank // tp) &
  //    1`; it asserts an even data-parallel size), so the ranks hold different parts of a step.
  //  - Microsoft MS-AMP's patch (tocean/Megatron-LM msamp_patch, megatron/training.py and
  //    optimizer/__init__.py): --msamp replaces every linear with MS-AMP's, whose weights are
  //    scaled FP8 tensors, reduces gradients in FP8 and builds LBAdamW with its first moment in
  //    uint8 and its second in fp16.
  //  - NVIDIA/Megatron-LM pull/3689 (megatron/core/models/engram/, 2026-03): --use-engram adds
  //    Engram's hashed n-gram embedding tables (--engram-vocab-size, --engram-n-embed-per-ngram)
  //    and their heads to the layers of --engram-layer-ids.
  //  - Forks that train on the CPU (the Fugaku ports of Megatron-DeepSpeed for A64FX nodes):
  //    --no-cuda keeps every tensor in host memory, with --distributed-backend gloo.
  static constexpr std::pair<std::string_view, std::string_view> refused_fork_flags[] = {
      {"--no-cuda",
       "--no-cuda: a fork's flag that trains on the CPU (its tensors in host memory, gloo "
       "between ranks), so the job holds no GPU memory to plan; remove it to plan the same job "
       "on GPUs"},
      {"--use-engram",
       "--use-engram: Engram (pull/3689) adds hashed n-gram embedding tables and their heads to "
       "the layers of --engram-layer-ids, weights and activations no GPT plan holds; remove "
       "--use-engram and its --engram-* arguments to plan the plain GPT"},
      {"--forward-backward-disaggregating",
       "--forward-backward-disaggregating: MegatronApp's MegaFBD runs the forward passes on ranks "
       "of their own and the backward passes on the others (every other tensor-parallel group), "
       "so the ranks hold different parts of a training step, which a plan of Megatron's "
       "data-parallel grid cannot; remove the flag (and --ignore-forward-tensor-parallel) to plan "
       "a rank that runs both"},
      {"--msamp",
       "--msamp: MS-AMP's FP8 training stores the linears' weights as scaled FP8 tensors, reduces "
       "gradients in FP8 and keeps LBAdamW's moments in uint8 and fp16, which vramscope does not "
       "plan; remove --msamp to plan the same job in Megatron's own precision"}};
  for (const auto& [flag, why] : refused_fork_flags)
    if (const detail::entry* e = ctx.find(std::string(flag)))
      return refused(detail::blocking::model, detail::at(e->where, std::string(why)));
  // Heterogeneous training of the Holmes fork (CodexDive/Holmes, megatron/training/arguments.py,
  // _add_hetero_args and validate_args): --hetero-mode dp gives each device type of
  // --hetero-device-types its own data-parallel ranks and micro-batch (--hetero-micro-batch-sizes
  // n0 mbs0 n1 mbs1 ..., micro_batch_size taken from --hetero-current-device-type's pair; it
  // asserts --micro-batch-size unset), pp its own pipeline stages of its own layer counts
  // (--hetero-pipeline-stages). The GPUs of one job then hold different activations or layers.
  if (const detail::entry* hetero = ctx.find("--hetero-mode");
      hetero != nullptr && !hetero->value.text.empty() && hetero->value.text != "None")
    return refused(
        detail::blocking::model,
        detail::at(hetero->where,
                   fmt::format("--hetero-mode {}: the Holmes fork's heterogeneous training gives "
                               "each device type (--hetero-device-types) its own {}, so the "
                               "GPUs of one job hold different {}, which a plan of one GPU kind "
                               "cannot; plan each device type's ranks as a job of their own "
                               "(without the --hetero-* flags, with {}) to plan it",
                               hetero->value.text,
                               hetero->value.text == "pp"
                                   ? "pipeline stages and layer counts (--hetero-pipeline-stages)"
                                   : "data-parallel ranks and micro-batch "
                                     "(--hetero-micro-batch-sizes, pairs of ranks and micro-batch)",
                               hetero->value.text == "pp" ? "layers" : "activations",
                               hetero->value.text == "pp"
                                   ? "that type's --pipeline-model-parallel-size and layers"
                                   : "that type's --micro-batch-size and GPU count")));
  if (ctx.find("--num-layers") == nullptr) {
    // The model's arguments in a file the script sources before its launch (`source
    // configs/model.sh`, `. ./params.sh`): they are chosen there, in a file vramscope does not
    // read. A virtualenv's or conda's `activate` and the system's /etc files set the environment,
    // not arguments, and are passed over; the others are named (sourced_model says which is
    // pointed at).
    if (auto d = detail::sourced_model(ctx, *launch, text))
      return refused(detail::blocking::model, *d);
    // The arguments the script leaves unresolved, in the order they say most: one set only in
    // branches its own arguments choose, standing where a flag would (not a flag's value:
    // `$EXTRA_ARGS`, not `--save $OUT`), refused where the argument the branch tests is taken
    // (`MODEL=$1`, then `if [[ $MODEL = falcon ]]`, as shape_chosen_by_arguments refuses a shape
    // flag chosen so); a fork's --config file of arguments, at it; a value the script takes from
    // its arguments or computes when it runs (`CONF=$1`, then `--config "$CONF"`, also as the
    // bare variable in a string another shell runs), where it is set, as such values are
    // (shell_launch::run_time_values); then any other.
    std::string unset, why;
    const diagnostic* chosen_from = nullptr;
    const diagnostic* set_at_run_time = nullptr;
    std::string run_time_word;
    for (std::size_t i = 0; i < launch->args.size(); ++i) {
      const auto& w = launch->args[i];
      if (!w.unresolved) continue;
      const bool standalone = i == 0 || !detail::is_flag(launch->args[i - 1].text) ||
                              launch->args[i - 1].text.find('=') != std::string::npos;
      if (const diagnostic* chosen = detail::chosen_by_arguments(ctx, w.text);
          chosen != nullptr && why.empty() && standalone) {
        unset = w.text;
        why = fmt::format("{} (line {})", chosen->message, chosen->line);
        chosen_from = detail::argument_choosing(ctx, *chosen);
      }
      const diagnostic* taken = detail::run_time_value(ctx, w.text);
      for (const auto& [name, where] : launch->set_from_arguments)
        if (taken == nullptr && (w.text == "$" + name || w.text == "${" + name + "}"))
          taken = &where;
      if (set_at_run_time == nullptr && taken != nullptr)
        set_at_run_time = taken, run_time_word = w.text;
      if (unset.empty()) unset = w.text;
    }
    if (chosen_from != nullptr)
      return refused(
          detail::blocking::shape,
          detail::at(*chosen_from,
                     fmt::format("{}, and it chooses the model: no --num-layers among the "
                                 "Megatron-LM arguments of {} (line {}), which include {}: {}; "
                                 "write the model's arguments into the script to plan it",
                                 chosen_from->message, script, script_at.line, unset, why)));
    // --use-checkpoint-args: Megatron-LM takes the model's arguments from the checkpoint --load
    // names before it checks them (training/initialize.py calls load_args_from_checkpoint,
    // training/checkpointing.py, ahead of validate_args), so a launch may leave them out; the
    // checkpoint is not in the file.
    if (const detail::entry* from_checkpoint = ctx.find("--use-checkpoint-args");
        why.empty() && from_checkpoint != nullptr)
      return refused(
          detail::blocking::shape,
          detail::at(from_checkpoint->where,
                     fmt::format("--use-checkpoint-args: no --num-layers among the Megatron-LM "
                                 "arguments of {} (line {}), which take the model's arguments "
                                 "from the checkpoint --load names (load_args_from_checkpoint, "
                                 "training/checkpointing.py), not in the file; give the model "
                                 "with --set model=NAME or a config.json, or write its arguments "
                                 "into the launch, to plan it",
                                 script, script_at.line)));
    // A fork's option naming a file of arguments (`--config configs/gpt2.yaml`, read by the
    // fork's parser as Megatron-LM's --yaml-cfg is): the model is in that file.
    if (why.empty())
      for (const char* flag : {"--config", "--config-file", "--config_file", "--cfg"})
        if (const detail::entry* file = ctx.find(flag);
            file != nullptr &&
            (file->value.text.ends_with(".yaml") || file->value.text.ends_with(".yml") ||
             file->value.text.ends_with(".json")))
          return refused(
              detail::blocking::shape,
              detail::at(file->where,
                         fmt::format("{} {}: no --num-layers among the Megatron-LM arguments of "
                                     "{} (line {}), which take the model from that file (a "
                                     "fork's parser reads it, as Megatron-LM's --yaml-cfg), and "
                                     "vramscope does not read it; write the model's arguments "
                                     "into the launch to plan it",
                                     flag, file->value.text, script, script_at.line)));
    if (why.empty() && set_at_run_time != nullptr)
      return refused(
          detail::blocking::shape,
          detail::at(*set_at_run_time,
                     fmt::format("no --num-layers among the Megatron-LM arguments of {} (line "
                                 "{}), which include {}: {}; write the model's arguments into "
                                 "the script to plan it",
                                 script, script_at.line, run_time_word, set_at_run_time->message)));
    return refused(
        detail::blocking::shape,
        detail::at(
            script_at,
            "no --num-layers among the Megatron-LM arguments (Megatron requires "
            "--num-layers, --hidden-size, --num-attention-heads and "
            "--max-position-embeddings)" +
                (unset.empty()
                     ? std::string("; add them to the training command, or give the model with "
                                   "--set model=NAME or a config.json")
                 : why.empty()
                     ? fmt::format("; the arguments include {}, which the script does not set: "
                                   "write the arguments into the script",
                                   unset)
                     : fmt::format("; the arguments include {}: {}; write the arguments into the "
                                   "script",
                                   unset, why))));
  }
  // --spec MODULE FUNCTION: the training script builds its layers from that function instead of
  // its own (pretrain_gpt.py, model_provider: `if args.spec is not None: transformer_layer_spec
  // = import_module(args.spec)`). Megatron-LM's GPT layer specs (megatron.core.models.gpt.*) are
  // the GPT layers planned here; any other module's layers (a hybrid, a fork's own) are not.
  // Within that module, a function named with a word none of Megatron-LM's spec functions has
  // (get_gpt_layer_with_transformer_engine_spec, get_gpt_layer_local_spec,
  // get_gpt_decoder_block_spec, get_gpt_mtp_block_spec, get_gpt_layer_with_inference_spec, the
  // 2023 releases' gpt_layer_with_transformer_engine_spec objects, the heterogeneous and MoE
  // ones) is a fork's own layer (`get_gpt_layer_semigroup_spec`).
  const auto fork_spec_function = [](const std::string& value) {
    const auto blank = value.find(' ');
    if (blank == std::string::npos) return false;
    static constexpr std::string_view known[] = {
        "get",    "gpt",   "layer",         "with",     "transformer", "engine",       "local",
        "spec",   "specs", "decoder",       "block",    "inference",   "mtp",          "moe",
        "module", "te",    "heterogeneous", "modelopt", "submodules",  "experimental", "hybrid"};
    for (const std::string& word : detail::name_words(value.substr(blank + 1)))
      if (std::find(std::begin(known), std::end(known), word) == std::end(known)) return true;
    return false;
  };
  // MindSpeed-LLM's (earlier ModelLink's) layer_spec objects that build Megatron-LM's own
  // TransformerLayer from Megatron's SelfAttention (q/k norms when --qk-layernorm) and
  // _get_mlp_module_spec MLP or MoELayer (experts when --num-experts): the GPT layer the
  // arguments describe (mindspeed_llm/tasks/models/spec/qwen3_spec.py, bailing_spec.py,
  // qwen2_moe_spec.py at Ascend/MindSpeed-LLM 2026-08). Its other specs build other layers
  // (multi-latent attention, post-norm layers, gated delta nets) and stay refused.
  const auto gpt_layer_of_fork = [](const std::string& value) {
    const std::string module = value.substr(0, value.find(' '));
    for (const char* package : {"mindspeed_llm.tasks.models.spec.", "modellink.tasks.models.spec."})
      for (const char* name : {"qwen3_spec", "bailing_spec", "qwen2_moe_spec"})
        if (module == std::string(package) + name) return true;
    return false;
  };
  if (const detail::entry* spec = ctx.find("--spec");
      spec != nullptr && !gpt_layer_of_fork(spec->value.text) &&
      (!spec->value.text.starts_with("megatron.core.models.gpt.") ||
       fork_spec_function(spec->value.text)))
    facts.push_back(
        {detail::blocking::model,
         detail::at(spec->where,
                    fmt::format("--spec {}: the model's layers come from that spec "
                                "function, not from Megatron-LM's GPT layer specs "
                                "(megatron.core.models.gpt), so they are not the GPT layers "
                                "vramscope plans from the arguments; to plan it, write a job "
                                "spec with the model's config.json (docs/job-spec.md)",
                                spec->value.text))});
  // pretrain_gpt.py's tokenizer when none is named: GPT-2's BPE (args_defaults
  // {'tokenizer_type': 'GPT2BPETokenizer'}, from 2021's pretrain_gpt.py to today's). It reads
  // its vocabulary from --vocab-file; --vocab-size is read only by the NullTokenizer and
  // TikTokenizer (build_tokenizer.py), so beside this default it changes nothing.
  // A script the launch names only by a variable ($2, ${PRETRAIN_PY_FILE}) with a --merge-file:
  // GPT2BPETokenizer is the one tokenizer of build_tokenizer that reads a merges file, so the
  // files given are GPT-2's BPE whatever the script's default.
  const bool script_unknown = script.empty() || script.find('$') != std::string::npos;
  const bool bpe_files = script_unknown && ctx.find("--merge-file") != nullptr;
  const bool tokenizer_defaulted =
      ctx.find("--tokenizer-type") == nullptr &&
      (script.rfind("pretrain_gpt", 0) == 0 || script.rfind("finetune_gpt", 0) == 0 || bpe_files);
  if (tokenizer_defaulted) {
    detail::entry gpt2{"--tokenizer-type", {"GPT2BPETokenizer", {}, false}, false, script_at};
    ctx.note(gpt2, bpe_files
                       ? std::string("no --tokenizer-type and a --merge-file beside --vocab-file: "
                                     "GPT-2's BPE files, read only by GPT2BPETokenizer (50,257 "
                                     "tokens, padded to --make-vocab-size-divisible-by x tensor "
                                     "parallel size)")
                       : fmt::format("no --tokenizer-type: {}'s default, GPT2BPETokenizer (50,257 "
                                     "tokens, padded to --make-vocab-size-divisible-by x tensor "
                                     "parallel size)",
                                     script));
    if (const detail::entry* size = ctx.find("--vocab-size"))
      ctx.note(*size, fmt::format("--vocab-size {} is read only by the NullTokenizer and "
                                  "TikTokenizer; {}'s default GPT2BPETokenizer takes its 50,257 "
                                  "tokens from the vocabulary file, so it changes nothing",
                                  size->value.text, script));
    ctx.entries.push_back(std::move(gpt2));
  }
  // GPT2BPETokenizer (named, or pretrain_gpt.py's default) reads a vocabulary and a merges file:
  // build_tokenizer asserts both (`assert args.merge_file is not None`, megatron/tokenizer in every
  // release), so a launch that gives the vocabulary without the merges stops before the model.
  if (const detail::entry* type = ctx.find("--tokenizer-type");
      type != nullptr && type->value.text == "GPT2BPETokenizer" &&
      ctx.find("--merge-file") == nullptr)
    if (const detail::entry* vocab = ctx.find("--vocab-file"))
      facts.push_back(
          {detail::blocking::fails,
           detail::at(
               vocab->where,
               fmt::format("--vocab-file without --merge-file: {} GPT2BPETokenizer, which "
                           "reads both and stops without the merges (build_tokenizer: "
                           "\"assert args.merge_file is not None\"); add --merge-file, or "
                           "the --tokenizer-type the vocabulary is for, to plan it",
                           tokenizer_defaulted ? fmt::format("{}'s default tokenizer is", script)
                                               : std::string("the tokenizer is")))});
  // Another entry script (a fork's own train.py) sets its own defaults, which the launch does
  // not show: without --tokenizer-type or --vocab-size its vocabulary is unknown, and the
  // refusal points at the script that decides it.
  if (ctx.find("--tokenizer-type") == nullptr && ctx.find("--vocab-size") == nullptr &&
      ctx.find("--pad-vocab-size-to") == nullptr && ctx.find("--padded-vocab-size") == nullptr &&
      !script.empty() &&
      script.rfind("pretrain_", 0) != 0 && script.rfind("finetune_gpt", 0) != 0)
    return refused(
        detail::blocking::shape,
        detail::at(script_at,
                   fmt::format("the arguments give neither --tokenizer-type nor --vocab-size, "
                               "and {} is not Megatron-LM's pretrain_gpt.py, whose default "
                               "tokenizer (GPT2BPETokenizer) is known: its own default is in "
                               "the script; add --vocab-size N (the tokenizer's vocabulary "
                               "before Megatron pads it) or --tokenizer-type",
                               script)));
  for (const auto& [name, value] : launch->exports) {
    // Exported variables reach the training processes: the job's environment.
    const detail::entry e{"export " + name,
                          {value.text, {}, false},
                          true,
                          detail::word_location(source, text, value)};
    if (auto problem = ctx.set("env." + name, value.text, e); !problem.empty())
      return refused(detail::blocking::launch, detail::at(e.where, problem));
  }
  // Megatron-DeepSpeed's example scripts write the DeepSpeed JSON from a template whose ZeRO
  // stage is the placeholder ZERO_STAGE (examples_deepspeed/*/ds_config_*_TEMPLATE.json:
  // `"stage": ZERO_STAGE`), filled by `sed "s/ZERO_STAGE/N/"`; without --zero-stage that N is the
  // stage DeepSpeed runs, read as --zero-stage is.
  if (ctx.find("--deepspeed") != nullptr && ctx.find("--zero-stage") == nullptr)
    for (const auto& [placeholder, value] : launch->sed_substitutions) {
      if (placeholder != "ZERO_STAGE" || value.text.empty() ||
          !std::all_of(value.text.begin(), value.text.end(),
                       [](unsigned char c) { return std::isdigit(c) != 0; }))
        continue;
      const detail::entry stage{"--zero-stage",
                                {value.text, {}, false},
                                false,
                                detail::word_location(source, text, value)};
      ctx.entries.push_back(stage);
      ctx.note(stage, fmt::format("the DeepSpeed JSON is written from a template whose ZeRO stage "
                                  "sed fills with {}: planned as --zero-stage {}",
                                  value.text, value.text));
    }
  if (auto d = detail::read_written_deepspeed_config(ctx, text, *launch))
    return refused(detail::blocking::fails, *d);
  std::optional<diagnostic> error;
  detail::megatron_mesh mesh;
  long long world =
      launch->script.text.empty()
          ? 0
          : detail::read_launcher(ctx, text, *launch, mesh.nodes_open, mesh.gpus_assumed, error);
  if (error) {  // the GPU count unknown: the model is read still, for what else blocks it
    facts.push_back({detail::blocking::launch, *error});
    world = 0;
  }
  if (auto err = detail::read_megatron_parallelism(ctx, world, mesh)) {
    const auto rank = ctx.framework_refuses ? detail::blocking::fails : detail::blocking::launch;
    if (!facts.empty()) return refused(rank, *err);
    facts.push_back({rank, *err});
  } else if (auto split = detail::read_pipeline_split(ctx, mesh)) {
    facts.push_back({detail::blocking::launch, *split});
  }
  if (auto err = detail::read_megatron_model(ctx, mesh)) {
    // A shape fact with no line of its own (a flag missing) is named first only when nothing
    // else blocks: a refusal points at a line where one is known. Alone, it points at the
    // variable a file of arguments sets, else at the launch's first argument.
    if (err->line == 0 && facts.empty() && launch->arguments_from.line > 0)
      *err = detail::at(detail::word_location(source, text, launch->arguments_from), err->message);
    else if (err->line == 0 && facts.empty() && !script.empty() &&
             script.rfind("pretrain_", 0) != 0 && script.rfind("finetune_gpt", 0) != 0)
      // A program of the repository's own (`train.py`) takes the arguments it defines: what it
      // is not given is located at the program.
      *err = detail::at(script_at, err->message);
    else if (err->line == 0 && facts.empty() && !ctx.entries.empty())
      *err = detail::at(ctx.entries.front().where, err->message);
    if (facts.empty() || err->line > 0) facts.push_back({detail::blocking::shape, *err});
  }
  // A vocabulary only in the tokenizer's files blocks a plan, not the reading: alone, the job
  // keeps what the file fixes and the plan refuses at the tokenizer (job::model_key::unknown);
  // beside anything else that blocks, it is one of the facts, where a shape fact ranks.
  std::optional<diagnostic> vocab;
  for (const auto& k : ctx.out.job.model_config)
    if (!k.unknown.empty()) vocab = detail::at(k.where, k.unknown);
  if (vocab && !facts.empty()) facts.push_back({detail::blocking::shape, *vocab});
  if (!facts.empty()) {
    // A contradiction Megatron refuses at start whatever the world, found by a reader below, is
    // named before those facts (blocking::fails): --fp16 beside --bf16 (validate_args). The
    // global batch against the world is not: a SLURM script's world is the allocation's, which
    // sbatch's own options override.
    ctx.framework_refuses = false;
    if (auto err = detail::read_megatron_precision(ctx); err && ctx.framework_refuses)
      facts.push_back({detail::blocking::fails, *err});
    return detail::refuse(facts);
  }
  const auto checks = [&]() -> maybe_error {
    if (auto err = detail::read_megatron_batch(ctx, mesh)) return err;
    if (auto err = detail::read_megatron_interleaving(ctx, mesh)) return err;
    if (auto err = detail::read_megatron_precision(ctx)) return err;
    if (auto err = detail::read_megatron_recompute(ctx, mesh)) return err;
    if (auto err = detail::read_megatron_capacity(ctx)) return err;
    if (ctx.find("--optimizer") == nullptr)  // Megatron's default: adam, AdamW (FusedAdam)
      (void)ctx.set("optimizer.name", "adamw", detail::file_entry(ctx));
    if (auto err = detail::apply_options(ctx, detail::megatron_table())) return err;
    // After the layout and batch checks, as validate_args asserts them.
    return detail::training_length_refusal(ctx);
  };
  ctx.framework_refuses = false;
  if (auto err = checks()) {
    if (!vocab) return *err;
    // As among the facts above: what Megatron itself refuses (--fp16 beside --bf16) first.
    return detail::refuse(
        {{detail::blocking::shape, *vocab},
         {ctx.framework_refuses ? detail::blocking::fails : detail::blocking::launch, *err}});
  }
  auto done = detail::finish(ctx, true);  // a GPU count not given was assumed and noted above
  // Sizes that do not divide (experts over the data-parallel ranks): Megatron's
  // initialize_model_parallel raises on them, so they come first.
  if (!done && vocab)
    return detail::refuse(
        {{detail::blocking::shape, *vocab}, {detail::blocking::fails, done.error()}});
  return done;
}

}  // namespace vramscope::job
