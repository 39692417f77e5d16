#include "import/import_common.hpp"

#include <vramscope/job/resolve.hpp>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <limits>
#include <string_view>
#include <tuple>

#include "job/assign.hpp"
#include "job/source_text.hpp"

namespace vramscope::job::detail {

namespace {

bool matches(const std::string& pattern, const std::string& key) {
  if (pattern.size() >= 2 && pattern.compare(pattern.size() - 2, 2, ".*") == 0)
    return key.rfind(pattern.substr(0, pattern.size() - 1), 0) == 0;
  return pattern == key;
}

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbouring letters each cost one.
std::size_t damerau_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

// The edits a misspelling of a name of `length` letters may hold.
std::size_t edits_allowed(std::size_t length) {
  return length < 3 ? 0 : length <= 7 ? 1 : length <= 15 ? 2 : 3;
}

constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

// The edits that make `b` of `a` when few enough for a misspelling, else `none`. The edits must
// be few for the whole name and for the part where the two differ (what is left without their
// common beginning and end): gradient_accumulation_dtype is three edits from
// gradient_accumulation_steps, but all in one five-letter word, so it is another name.
std::size_t misspelling_edits(std::string_view a, std::string_view b) {
  const std::size_t d = damerau_distance(a, b);
  if (d > edits_allowed(std::min(a.size(), b.size()))) return none;
  std::size_t front = 0;
  while (front < a.size() && front < b.size() && a[front] == b[front]) ++front;
  std::size_t back = 0;
  while (back < a.size() - front && back < b.size() - front &&
         a[a.size() - 1 - back] == b[b.size() - 1 - back])
    ++back;
  const std::size_t differ = std::max(a.size(), b.size()) - front - back;
  return d <= std::max<std::size_t>(1, edits_allowed(differ)) ? d : none;
}

// Lower case without the separators: "fsdp.cpu_offload" and "fsdp_cpu_offload" are one key.
std::string squeezed(std::string_view name) {
  std::string out;
  for (char c : name)
    if (c != '.' && c != '_' && c != '-')
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> words_of(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  for (char c : name) {
    if (c == '_' || c == '-') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

// The same words in the same order, at least one of them shortened to a prefix of three letters
// or more of the other's: "gc_frequency" and "gc_freq", "num_proc" and "num_processes".
bool shortened_words(std::string_view a, std::string_view b) {
  const auto x = words_of(a);
  const auto y = words_of(b);
  if (x.size() != y.size() || x.empty()) return false;
  bool shortened = false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] == y[i]) continue;
    const auto& shorter = x[i].size() < y[i].size() ? x[i] : y[i];
    const auto& longer = x[i].size() < y[i].size() ? y[i] : x[i];
    if (shorter.size() < 3 || longer.rfind(shorter, 0) != 0) return false;
    shortened = true;
  }
  return shortened;
}

struct split_key {
  std::string_view section;  // "fsdp_config." with its dot, "" at the top level
  std::string_view leaf;     // the last part, without a command-line option's dashes
};

split_key split(std::string_view key) {
  const auto dot = key.rfind('.');
  split_key out{dot == std::string_view::npos ? std::string_view() : key.substr(0, dot + 1),
                dot == std::string_view::npos ? key : key.substr(dot + 1)};
  while (out.leaf.starts_with('-')) out.leaf.remove_prefix(1);
  return out;
}

// "Megatron-LM" for the importers' format names, as users know the frameworks.
std::string framework_name(const std::string& format) {
  if (format == "deepspeed") return "DeepSpeed";
  if (format == "megatron") return "Megatron-LM";
  return format;
}

}  // namespace

std::string near_option(const std::string& key, const std::vector<std::string>& names) {
  const split_key k = split(key);
  const std::string flat = squeezed(key);
  std::string best;
  std::size_t best_cost = std::numeric_limits<std::size_t>::max();
  const auto consider = [&](const std::string& name, std::size_t cost) {
    if (cost < best_cost) {
      best_cost = cost;
      best = name;
    }
  };
  std::vector<const std::string*> same_leaf;
  for (const auto& name : names) {
    if (name == key || name.find('*') != std::string::npos) continue;
    if (squeezed(name) == flat) {
      consider(name, 0);
      continue;
    }
    const split_key n = split(name);
    if (n.section == k.section) {
      const std::size_t d = misspelling_edits(lower_case(k.leaf), lower_case(n.leaf));
      if (d != none) consider(name, d);
      else if (shortened_words(k.leaf, n.leaf)) consider(name, 4);
    } else if (n.leaf == k.leaf) {
      // The same last part under a misspelt section ("bp16.enabled" of "bf16.enabled").
      const std::size_t d = misspelling_edits(lower_case(k.section), lower_case(n.section));
      if (d != none && !k.section.empty() && !n.section.empty()) consider(name, d);
      else if (k.leaf.size() >= 6) same_leaf.push_back(&name);
    }
  }
  // A key under a section no option has is a fork's own layout ([data], [dataset]), not an
  // option put in the wrong section.
  const bool known_section =
      k.section.empty() || std::any_of(names.begin(), names.end(), [&](const std::string& name) {
        return name.size() > k.section.size() && name.starts_with(k.section);
      });
  if (best.empty() && same_leaf.size() == 1 && known_section) best = *same_leaf.front();
  return best;
}

void report_unclaimed(import_context& ctx, const entry& e, const std::vector<option>& table) {
  std::vector<std::string> names = ctx.own_names;
  for (const auto& row : table) names.push_back(row.key);
  if (const std::string near = near_option(e.key, names); !near.empty()) {
    // The framework's own option written in another section it has (a ZeRO key at DeepSpeed's top
    // level): not unknown, misplaced; a misspelt name or section is unknown, with the real one.
    const split_key k = split(e.key), n = split(near);
    const bool section_known =
        k.section.empty() || std::any_of(names.begin(), names.end(), [&](const std::string& name) {
          return name.size() > k.section.size() && name.starts_with(k.section);
        });
    if (k.leaf == n.leaf && k.section != n.section && section_known) {
      ctx.note(e, fmt::format("\"{}\" is {} option in the wrong place: {} reads it as \"{}\", so "
                              "here it is ignored",
                              e.key,
                              framework_name(ctx.out.format) == "DeepSpeed" ? "a DeepSpeed" : "an",
                              framework_name(ctx.out.format), near));
      return;
    }
    ctx.note(e, fmt::format("unknown option \"{}\" (did you mean \"{}\"?); ignored", e.key, near));
    return;
  }
  ctx.note(e, fmt::format("\"{}\" is not among the options of the {} releases vramscope knows, "
                          "nor near one (a fork's, a branch's or a newer release's option, or a "
                          "typo); ignored, so what it does to memory is not planned",
                          e.key, framework_name(ctx.out.format)));
}

bool option_matches(const std::string& pattern, const std::string& key) {
  return matches(pattern, key);
}

import_context::import_context(std::string format, const std::string& src) : source(src) {
  out.format = std::move(format);
  out.job.provenance.source = src;
}

std::string import_context::set(const std::string& path, const std::string& value,
                                const entry& e) {
  auto err = assign(out.job, path, raw_value{value, {}, false}, e.where);
  if (!err) {
    mapped_to(e, path);
    return "";
  }
  const std::string problem = err->message.substr(path.size() + 2);
  return fmt::format("{}: {} (it sets {})", e.key, problem, path);
}

void import_context::note(const entry& e, const std::string& message) {
  out.notes.push_back(at(e.where, message));
}

void import_context::note(const std::string& message) {
  out.notes.push_back(diagnostic{source, 0, 0, message, ""});
}

void import_context::ignore(const entry& e) {
  out.no_effect.push_back(
      at(e.where, fmt::format("\"{}\" does not affect GPU memory; ignored", e.key)));
}

void import_context::mapped_to(const entry& e, const std::string& path) {
  if (e.key.empty()) return;  // set from the file as a whole, not from one option
  out.mapped.push_back(import_mapping{e.key, path, e.where});
}

const entry* import_context::find(const std::string& key) const {
  for (const auto& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

action maps_to(std::string path) {
  return {action_kind::mapped, [path](import_context& ctx, const entry& e) {
            return ctx.set(path, e.value.text, e);
          }};
}

action maps_with(std::string path, std::vector<std::pair<std::string, std::string>> values) {
  return {action_kind::mapped, [path, values](import_context& ctx, const entry& e) {
            std::vector<std::string> accepted;
            for (const auto& [from, to] : values) {
              if (lower_case(from) == lower_case(e.value.text)) return ctx.set(path, to, e);
              accepted.push_back(from);
            }
            return fmt::format("{}: invalid value \"{}\" (expected one of: {})", e.key,
                               e.value.text, join(accepted));
          }};
}

action custom(handler apply) { return {action_kind::mapped, std::move(apply)}; }

action maps_offload_device(std::string path) {
  return maps_with(std::move(path), {{"none", "false"}, {"cpu", "true"}, {"nvme", "true"}});
}

// Off, a save writes ZeRO's own checkpoint: every rank its partition of the weights and the
// optimizer (DeepSpeedEngine.save_checkpoint, zero_pp_rank_N files), which is what the Hugging
// Face Trainer and accelerate's save_model fall back to under ZeRO-3 without the gathered
// 16-bit weights.
action maps_gathered_save() {
  return maps_with("checkpoint.save", {{"true", "full"}, {"false", "sharded"}});
}

namespace {

// At a ZeRO stage in `stages`, `inner`; at another, a note "<key>: <why>; DeepSpeed ignores it at
// stage N, and so does the plan" and nothing set.
action zero_stages_only(std::vector<strategy> stages, std::string why, action inner) {
  return {inner.kind, [stages = std::move(stages), why = std::move(why),
                       apply = std::move(inner.apply)](import_context& ctx, const entry& e) {
            const strategy kind = ctx.out.job.parallel.kind;
            if (std::find(stages.begin(), stages.end(), kind) != stages.end()) return apply(ctx, e);
            ctx.note(e,
                     fmt::format("{}: {}; DeepSpeed ignores it at stage {}, and so does the plan",
                                 e.key, why, job::zero_stage(kind)));
            return std::string();
          }};
}

}  // namespace

// Parameter offload is a ZeRO-3 feature: the stage 1 and 2 optimizer reads offload_optimizer
// only, so at those stages DeepSpeed accepts offload_param and ignores it (DeepSpeed docs,
// config-json "offload_param": "Valid only with stage 3"; runtime/zero/stage_1_and_2.py).
action stage3_only(action inner) {
  return zero_stages_only({strategy::zero3}, "parameter offload is a ZeRO-3 feature",
                          std::move(inner));
}

// Each ZeRO engine reads its own options out of the one DeepSpeedZeroConfig: the stage 1 and 2
// optimizer the all-gather bucket (runtime/zero/stage_1_and_2.py, allgather_bucket_size), the
// stage 3 one the prefetch bucket and the live-parameter limit (runtime/zero/stage3.py,
// prefetch_bucket_size, max_live_parameters). At another stage the option is accepted and
// unused, so a file written for one stage and run at another plans with a note, not an error.
action zero12_only(action inner) {
  return zero_stages_only({strategy::zero1, strategy::zero2},
                          "read by the stage 1 and 2 optimizer only", std::move(inner));
}

// The gradient reduction buckets belong to the ZeRO optimizers (stages 1 to 3); without ZeRO
// (stage 0) DeepSpeed's engine all-reduces with its own buffer and the key is unused.
action zero_stages_1_to_3(action inner) {
  return zero_stages_only({strategy::zero1, strategy::zero2, strategy::zero3},
                          "read by the ZeRO optimizers only", std::move(inner));
}

action zero3_engine_only(action inner) {
  return zero_stages_only({strategy::zero3}, "read by the ZeRO-3 engine only", std::move(inner));
}

action no_effect() {
  return {action_kind::no_effect, [](import_context& ctx, const entry& e) {
            ctx.ignore(e);
            return std::string();
          }};
}

// A switch that is off changes nothing, so it is only listed as having no effect.
action not_modelled(std::string reason) {
  return {action_kind::not_modelled, [reason](import_context& ctx, const entry& e) {
            bool on = true;
            if (!e.value.is_list && parse_bool_text(e.value.text, on).empty() && !on) {
              ctx.ignore(e);
              return std::string();
            }
            ctx.note(e, fmt::format("\"{}\" changes memory but vramscope does not model it ({}); "
                                    "ignored", e.key, reason));
            return std::string();
          }};
}

action handled() {
  return {action_kind::handled, [](import_context&, const entry&) { return std::string(); }};
}

std::optional<diagnostic> apply_options(import_context& ctx, const std::vector<option>& table) {
  // JSON and TOML readers hand keys over sorted by name; report in the file's order.
  std::stable_sort(ctx.entries.begin(), ctx.entries.end(), [](const entry& a, const entry& b) {
    return std::pair(a.where.line, a.where.column) < std::pair(b.where.line, b.where.column);
  });
  for (const auto& e : ctx.entries) {
    const auto o = std::find_if(table.begin(), table.end(),
                                [&](const option& row) { return matches(row.key, e.key); });
    if (o == table.end()) {
      report_unclaimed(ctx, e, table);
      continue;
    }
    if (o->act.kind == action_kind::mapped && e.is_string && lower_case(e.value.text) == "auto") {
      ctx.note(e, fmt::format("\"{}\" is \"auto\" (filled in at launch by the HF Trainer or "
                              "accelerate): vramscope keeps its default", e.key));
      continue;
    }
    if (std::string problem = o->act.apply(ctx, e); !problem.empty()) return at(e.where, problem);
  }
  return std::nullopt;
}

std::string set_compile(import_context& ctx, const entry& e, const std::string& blocks,
                        const std::string& loss) {
  if (auto problem = ctx.set("training.compile", blocks, e); !problem.empty()) return problem;
  return ctx.set("training.compile_loss", loss, e);
}

std::string other_compile_backend(import_context& ctx, const entry& e) {
  return not_modelled(fmt::format("torch.compile backend {} (inductor is the one modelled)",
                                  e.value.text))
      .apply(ctx, e);
}

std::string plan_core_attention_recompute(import_context& ctx, const entry& e) {
  return ctx.set("training.activation_checkpointing", "core_attention", e);
}

entry file_entry(const import_context& ctx) {
  return entry{"", {}, false, diagnostic{ctx.source, 0, 0, "", ""}};
}

std::string set_world(import_context& ctx, long long world, const entry& e) {
  if (world < 1 || world > 100'000'000)
    return fmt::format("{}: implies {} GPUs, which is out of range", e.key, world);
  long long nodes = 1;
  long long per_node = world;
  if (world > 8 && world % 8 == 0) {
    nodes = world / 8;
    per_node = 8;
    ctx.note(e, fmt::format("{} GPUs: assumed {} nodes of 8; set hardware.nodes and "
                            "hardware.gpus_per_node if not", world, nodes));
  }
  if (auto problem = ctx.set("hardware.nodes", std::to_string(nodes), e); !problem.empty())
    return problem;
  return ctx.set("hardware.gpus_per_node", std::to_string(per_node), e);
}

// What the imported file did not say, and what vramscope assumed instead.
void note_assumptions(import_context& ctx, bool has_world_size) {
  const job_spec& job = ctx.out.job;
  const auto given = [&](const char* path) { return job.provenance.set_at.count(path) != 0; };
  if (!given("model"))
    ctx.note(fmt::format("the config does not name the model: assumed {}; set it with "
                         "--set model=NAME", job.model));
  if (!given("hardware.gpu"))
    ctx.note(fmt::format("the config does not name the GPU: assumed {}; set it with "
                         "--set hardware.gpu=NAME", job.hardware.gpu));
  // A count the file leaves to the launch is not assumed: the plan refuses until --set gives it.
  const bool left_to_launch = std::any_of(
      ctx.out.unsettled.begin(), ctx.out.unsettled.end(),
      [](const unsettled_value& u) { return u.settled_by == "hardware.gpus_per_node"; });
  if (!has_world_size && !left_to_launch)
    ctx.note(fmt::format("the config does not give the number of GPUs: assumed {} node(s) of {}; "
                         "set hardware.nodes and hardware.gpus_per_node",
                         job.hardware.nodes, job.hardware.gpus_per_node));
  if (!given("training.micro_batch"))
    ctx.note(fmt::format("the config does not give the micro batch size: assumed {}; set "
                         "training.micro_batch", job.training.micro_batch));
  if (!given("training.seq_len"))
    ctx.note(fmt::format("the config does not give the sequence length: assumed {}; set "
                         "training.seq_len", job.training.seq_len));
}

diagnostic with_remedy(diagnostic d, const std::string& remedy) {
  if (d.message.ends_with("to plan the file")) return d;  // it says its own remedy
  d.message += "; " + remedy;
  return d;
}

result<imported_job> finish(import_context& ctx, bool has_world_size) {
  // Options of the file itself first, then those of files it names; each in line order.
  auto& mapped = ctx.out.mapped;
  std::stable_sort(mapped.begin(), mapped.end(), [&](const import_mapping& a, const import_mapping& b) {
    return std::tuple(a.where.source != ctx.source, a.where.source, a.where.line, a.where.column) <
           std::tuple(b.where.source != ctx.source, b.where.source, b.where.line, b.where.column);
  });
  // Notes too: "auto" values are noted before the table runs.
  std::stable_sort(ctx.out.notes.begin(), ctx.out.notes.end(), [&](const diagnostic& a, const diagnostic& b) {
    return std::tuple(a.source != ctx.source, a.source, a.line, a.column) <
           std::tuple(b.source != ctx.source, b.source, b.line, b.column);
  });
  note_assumptions(ctx, has_world_size);
  // A job the file's own values make impossible (sizes that do not divide): refused at the
  // option that set the value, saying how to plan it.
  if (auto resolved = resolve_job(ctx.out.job, &ctx.out.notes); !resolved)
    return with_remedy(resolved.error(),
                       "change the option there (or override it with --set) to plan it");
  return std::move(ctx.out);
}

std::vector<option> ignored(const std::string& section, std::initializer_list<const char*> keys) {
  std::vector<option> rows;
  for (const char* key : keys)
    rows.push_back({section.empty() ? std::string(key) : section + "." + key, no_effect()});
  return rows;
}

bool flatten_yaml(const YAML::Node& map, const std::string& prefix, import_context& ctx,
                  std::string_view text, int depth) {
  if (depth > max_yaml_depth) return false;
  for (const auto& item : map) {
    if (ctx.entries.size() >= max_yaml_entries) return false;
    const std::string key = prefix + item.first.Scalar();
    const YAML::Node& value = item.second;
    if (value.IsMap()) {
      ctx.sections.push_back(
          {key, location(ctx.source, text, item.first, {ctx.source, 0, 0, "", ""})});
      if (!flatten_yaml(value, key + ".", ctx, text, depth + 1)) return false;
      continue;
    }
    entry e;
    e.key = key;
    e.where = location(ctx.source, text, item.first, {ctx.source, 0, 0, "", ""});
    e.is_string = value.IsScalar() && value.Tag() == "!";
    if (value.IsSequence()) {
      e.value.is_list = true;
      for (const auto& v : value) e.value.items.push_back(v.IsScalar() ? v.Scalar() : "");
      e.value.text = join(e.value.items, ",");
    } else if (value.IsScalar()) {
      e.value.text = value.Scalar();
    }
    ctx.entries.push_back(std::move(e));
  }
  return true;
}

namespace {

// `{NAME}` or `{{ NAME }}` read as YAML: a flow mapping of one key, a name (or, for Jinja's
// double braces, another such mapping), with no value. The name, or "".
std::string placeholder_name(const YAML::Node& value) {
  if (!value.IsMap() || value.Style() != YAML::EmitterStyle::Flow || value.size() != 1) return "";
  const auto item = *value.begin();
  if (!item.second.IsNull()) return "";
  if (item.first.IsMap()) {
    const std::string inner = placeholder_name(item.first);
    return inner.empty() ? "" : "{" + inner + "}";
  }
  if (!item.first.IsScalar()) return "";
  const std::string& name = item.first.Scalar();
  const bool word =
      !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) != 0 || name[0] == '_') &&
      std::all_of(name.begin(), name.end(),
                  [](unsigned char c) { return std::isalnum(c) != 0 || c == '_' || c == '.'; });
  return word ? name : "";
}

// The first placeholder under `map` (file order): a value `key: {NAME}`, or one written where a
// key belongs (`{DATASET_ARGS}` on a line of its own, filled with whole options), with its key.
void find_placeholder(const YAML::Node& map, const std::string& prefix, int depth,
                      std::optional<std::pair<std::string, YAML::Node>>& first,
                      const std::string& source, std::string_view text) {
  if (depth > max_yaml_depth || !map.IsMap()) return;
  const auto line_of = [&](const YAML::Node& n) {
    return location(source, text, n, {source, 0, 0, "", ""}).line;
  };
  for (const auto& item : map) {
    const std::string key = prefix + (item.first.IsScalar() ? item.first.Scalar() : "");
    std::optional<YAML::Node> found;
    if (!placeholder_name(item.second).empty())
      found = item.second;
    else if (!placeholder_name(item.first).empty())
      found = item.first;
    if (found) {
      if (!first || line_of(*found) < line_of(first->second))
        first = std::make_pair(key.empty() ? prefix.substr(0, prefix.size() - 1) : key, *found);
      continue;
    }
    if (item.second.IsMap())
      find_placeholder(item.second, key + ".", depth + 1, first, source, text);
  }
}

}  // namespace

std::optional<diagnostic> template_placeholder(const YAML::Node& root, const std::string& source,
                                               std::string_view text,
                                               const std::string& framework) {
  std::optional<std::pair<std::string, YAML::Node>> first;
  find_placeholder(root, "", 0, first, source, text);
  if (!first) return std::nullopt;
  const std::string name = placeholder_name(first->second);
  const diagnostic where = location(source, text, first->second, {source, 0, 0, "", ""});
  const std::string written = "{" + name + "}";
  return at(where,
            fmt::format("{}{} is a template's placeholder (Python's str.format or a template "
                        "engine fills it before the file is used), not a value: YAML reads it as "
                        "a mapping {{{}: null}}, which {} cannot use there; give the file as "
                        "filled in (or write the value) to plan it",
                        first->first.empty() ? "" : first->first + ": ", written, name, framework));
}

namespace {

// A line of shell split where bash would: the code before a comment (a `#` that starts a word
// outside quotes, bash(1) COMMENTS) and whether a backslash escapes its newline (the code's last
// character, no blank after it).
struct shell_line {
  std::string_view code;
  bool continues = false;
};

shell_line split_shell_line(std::string_view raw) {
  if (raw.ends_with('\r')) raw.remove_suffix(1);
  char quote = 0;
  std::size_t end = raw.size();
  for (std::size_t i = 0; i < raw.size(); ++i) {
    const char c = raw[i];
    if (quote != 0) {
      if (c == quote)
        quote = 0;
      else if (c == '\\' && quote == '"')
        ++i;
    } else if (c == '\\') {
      ++i;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#' && (i == 0 || raw[i - 1] == ' ' || raw[i - 1] == '\t')) {
      end = i;
      break;
    }
  }
  const std::string_view code = raw.substr(0, end);
  return {code, end == raw.size() && code.ends_with('\\')};
}

}  // namespace

std::optional<diagnostic> cut_continuation(std::string_view text, const std::string& source,
                                           int first_line) {
  std::optional<diagnostic> found;
  int cut_line = 0;
  bool escaped = false;  // the cut is a backslash before a blank (else a comment's backslash)
  for_each_line(text, [&](std::string_view raw, int number) {
    if (number < first_line) return true;
    if (cut_line > 0) {
      std::string_view next = raw;
      next.remove_prefix(std::min(next.size(), next.find_first_not_of(" \t")));
      const std::string_view word = next.substr(0, next.find_first_of(" \t"));
      // An option word (not a `case` arm's pattern such as `--zero)`).
      if (word.size() > 1 && word[0] == '-' && word.find(')') == std::string_view::npos)
        found = at(location(source, text, cut_line, 1),
                   fmt::format("the command ends on this line: {}, so bash runs line {} ({} ...) "
                               "as a command of its own, which fails, and the options from there "
                               "on never reach the program; {} to plan it",
                               escaped ? "its last backslash escapes the blank after it, not "
                                         "the line's end"
                                       : "a comment runs to the end of the line, and the "
                                         "backslash inside it continues nothing",
                               number, word,
                               escaped ? "delete what follows the backslash"
                                       : "delete the commented line"));
      return false;
    }
    const shell_line line = split_shell_line(raw);
    if (line.continues) return true;
    std::string_view code = line.code;
    while (!code.empty() && (code.back() == ' ' || code.back() == '\t')) code.remove_suffix(1);
    std::string_view comment = raw.substr(line.code.size());
    while (!comment.empty() &&
           (comment.back() == ' ' || comment.back() == '\t' || comment.back() == '\r'))
      comment.remove_suffix(1);
    escaped = code.ends_with('\\');
    if (!escaped && !comment.ends_with('\\')) return false;  // the command ends as written
    cut_line = number;
    return true;
  });
  return found;
}

std::optional<diagnostic> then_without_separator(std::string_view text, const std::string& source) {
  std::optional<diagnostic> found;
  for_each_line(text, [&](std::string_view raw, int number) {
    std::string_view code = split_shell_line(raw).code;
    code.remove_prefix(std::min(code.size(), code.find_first_not_of(" \t")));
    while (!code.empty() && (code.back() == ' ' || code.back() == '\t')) code.remove_suffix(1);
    const bool opens = code.starts_with("if ") || code.starts_with("elif ");
    if (!opens || !code.ends_with(" then")) return true;
    std::string_view before = code.substr(0, code.size() - 5);
    while (!before.empty() && (before.back() == ' ' || before.back() == '\t'))
      before.remove_suffix(1);
    if (before.ends_with(';')) return true;
    const std::string_view keyword = code.substr(0, code.find(' '));
    found = at(location(source, text, number, 1),
               fmt::format("{} ... then without a \";\" before then: bash reads this then as a "
                           "word of the condition's command and stops at the block's end with a "
                           "syntax error, before the script runs anything; write \"; then\" to "
                           "plan it",
                           keyword));
    return false;
  });
  return found;
}

// The words of `text`, lower case, between the characters that are not letters or digits:
// "dpo_training.py" -> dpo, training, py; "- python3 -m torch.distributed.run" -> python3, m,
// torch, distributed, run.
std::vector<std::string> name_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) {
      word += static_cast<char>(std::tolower(c));
    } else if (!word.empty()) {
      words.push_back(std::move(word));
      word.clear();
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

}  // namespace vramscope::job::detail
