// torchtitan job TOML (train_configs/*.toml) -> job spec. Option names from torchtitan's
// JobConfig (torchtitan/config/job_config.py); what each one becomes is tabled in
// docs/importers.md. torchtitan shards with FSDP2 (fully_shard) and uses DDP only when the
// shard degree is 1 and the replicate degree is not.
#include <vramscope/import/importers.hpp>

#include <fmt/format.h>
#include <toml++/toml.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <sstream>
#include <tuple>

#include <vramscope/model/catalog.hpp>

#include "import/import_common.hpp"
#include "job/source_text.hpp"
#include "job/validation.hpp"

namespace vramscope::job {

namespace detail {

namespace {

std::string text_of(const toml::node& v) {
  if (const auto* s = v.as_string()) return s->get();
  if (const auto* b = v.as_boolean()) return b->get() ? "true" : "false";
  if (const auto* i = v.as_integer()) return std::to_string(i->get());
  if (const auto* f = v.as_floating_point()) return fmt::format("{}", f->get());
  std::ostringstream out;
  v.visit([&out](const auto& value) { out << value; });
  return out.str();
}

void flatten(const toml::table& table, const std::string& prefix, import_context& ctx,
             std::string_view text) {
  for (const auto& [k, v] : table) {
    const std::string key = prefix + std::string(k.str());
    if (const auto* sub = v.as_table()) {
      const auto at_table = sub->source().begin;
      ctx.sections.emplace_back(key, location(ctx.source, text, static_cast<int>(at_table.line),
                                              static_cast<int>(at_table.column)));
      flatten(*sub, key + ".", ctx, text);
      continue;
    }
    entry e;
    e.key = key;
    const auto begin = k.source().begin;
    e.where = location(ctx.source, text, static_cast<int>(begin.line), static_cast<int>(begin.column));
    e.is_string = v.is_string();
    if (const auto* array = v.as_array()) {
      e.value.is_list = true;
      for (const auto& item : *array) e.value.items.push_back(text_of(item));
      e.value.text = join(e.value.items, ",");
    } else {
      e.value.text = text_of(v);
    }
    ctx.entries.push_back(std::move(e));
  }
}

// torchtitan flavors vramscope refuses with a reason (torchtitan/models/<name>/__init__.py at
// commit 4a950ea). Every other flavor resolves through the catalogue's names and aliases.
struct refused_flavor {
  std::string_view name, flavor, why;
};
constexpr refused_flavor refused_flavors[] = {
    // No torchtitan that read TOML had these flavors: the 1B / 3B names a TOML file gives are a
    // fork's (torchtitan's own are Llama 3.2's shapes, tied, MLP 8192; a fork's 1B differs).
    {"llama3", "1b",
     "upstream torchtitan added llama3 1B and 3B (8953d2e39, 2026-03-24) after it stopped "
     "reading TOML files (9810191bb, 2026-02-23), so a TOML file's is a fork's own flavor, "
     "whose shapes the file does not give (eminorhan/frontier-torchtitan's 1B: MLP 7168, "
     "untied); set model to the checkpoint's Hugging Face id or a vramscope preset"},
    {"llama3", "3b",
     "upstream torchtitan added llama3 1B and 3B (8953d2e39, 2026-03-24) after it stopped "
     "reading TOML files (9810191bb, 2026-02-23), so a TOML file's is a fork's own flavor, "
     "whose shapes the file does not give (eminorhan/frontier-torchtitan's 1B: MLP 7168, "
     "untied); set model to the checkpoint's Hugging Face id or a vramscope preset"},
};

// Flavor suffixes of torchtitan branches that change how a flavor runs, not its tensors: the
// flavor without the suffix is planned, with the note. pull/2078 (torchtitan/models/qwen3/
// __init__.py at 8703ffce): "30B-A3B-deepep" is 30B-A3B's shapes with use_deepep (and
// _debug_force_load_balance, an even routing of the tokens).
struct dispatch_suffix {
  std::string_view suffix, what;
  // A branch's suffix names only the flavors that branch defines: pull/2078 has 30B-A3B-deepep
  // alone, and a fork that adds the suffix to another flavor gives that one its own shapes (a
  // "debugmodel_moe_deepep" of 4 layers and 128 experts where debugmodel_moe has 8 and 64).
  // Empty: a release's suffix, on any flavor.
  std::string_view only_base = {};
};
// Release flavors that are another flavor's tensors with attention computed otherwise
// (torchtitan/models/*/__init__.py): "_flex"/"_flex_attn" FlexAttention (use_flex_attn, a block
// mask), "_varlen"/"_varlen_attn" variable-length attention over packed documents, "_irope"
// (llama4) chunked attention with every fourth layer without rotary positions, and
// "_non_fused_qkv" (qwen3) separate wq, wk, wv where the base fuses them (the same elements).
constexpr dispatch_suffix dispatch_suffixes[] = {
    {"_flex_attn",
     "FlexAttention (use_flex_attn, a block-causal mask), not the SDPA kernels the "
     "plan's attention assumes"},
    {"_varlen_attn",
     "variable-length attention over packed documents, not the SDPA kernels the "
     "plan's attention assumes"},
    {"_flex",
     "FlexAttention (use_flex_attn, a block-causal mask), not the SDPA kernels the "
     "plan's attention assumes"},
    {"_varlen",
     "variable-length attention over packed documents, not the SDPA kernels the "
     "plan's attention assumes"},
    {"_irope",
     "chunked FlexAttention and every fourth layer without rotary positions (iRoPE), "
     "not the SDPA kernels the plan's attention assumes"},
    {"_non_fused_qkv", "wq, wk and wv apart where the base fuses them (the same elements)"},
    {"-deepep",
     "DeepEP's all-to-all for the experts' tokens (use_deepep), whose communication buffers are "
     "not planned",
     "30b-a3b"},
    {"_deepep",
     "DeepEP's all-to-all for the experts' tokens (use_deepep), whose communication buffers are "
     "not planned",
     "30b-a3b"},
};

// The preset of a branch's flavor that is a release flavor with a dispatch suffix, noted.
std::optional<std::string> preset_of_suffixed(import_context& ctx, const entry& flavor,
                                              const std::string& name) {
  const std::string& f = flavor.value.text;
  for (const auto& [suffix, what, only_base] : dispatch_suffixes) {
    if (f.size() <= suffix.size() || lower_case(f).substr(f.size() - suffix.size()) != suffix)
      continue;
    const std::string base = f.substr(0, f.size() - suffix.size());
    if (!only_base.empty() && lower_case(base) != only_base) return std::nullopt;
    auto preset = model::framework_preset("torchtitan", name + " " + base);
    if (!preset) return std::nullopt;
    ctx.note(flavor, fmt::format("flavor {} is flavor {}'s shapes with {}; planned as {}", f,
                                 base, what, *preset));
    return preset;
  }
  return std::nullopt;
}

// The entry of a path the file loads from (the tokenizer, the Hugging Face assets, a fork's
// initial weights) one of whose folder names is the preset `preset`, or nullptr.
const entry* path_naming(const import_context& ctx, const std::string& preset) {
  for (const char* key : {"model.tokenizer_path", "model.hf_assets_path", "model.init_path",
                          "checkpoint.initial_load_path"}) {
    const entry* path = ctx.find(key);
    if (path == nullptr) continue;
    std::string_view rest = path->value.text;
    while (!rest.empty()) {
      const auto slash = rest.find('/');
      const std::string part(rest.substr(0, slash));
      rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
      if (part.empty()) continue;
      if (const auto named = model::preset_named(part); named && *named == preset) return path;
    }
  }
  return nullptr;
}

// A fork's llama3 1B / 3B flavor (refused_flavors) whose tokenizer is Llama 3.2's of the same
// size (tokenizer_path or hf_assets_path naming Llama-3.2-1B, Llama3.2-3B-Instruct, ...): the
// forks that pair the two copy Llama 3.2's shapes (dim 2048, 16 layers, 32/8 heads, MLP 8192 for
// 1B; dim 3072, 28 layers, 24/8 heads, MLP 8192 for 3B: the 1B and 3B flavors torchtitan's own
// later llama3 has, 8953d2e39), so the file says which model it is. torchtitan's Transformer
// keeps the output projection apart from the token embedding until that commit's weight tying,
// where the Llama 3.2 presets share one matrix: noted.
std::optional<std::string> llama32_of_tokenizer(import_context& ctx, const entry& flavor) {
  const std::string size = lower_case(flavor.value.text);
  const std::string preset = "llama-3.2-" + size;
  const entry* path = path_naming(ctx, preset);
  if (path == nullptr) return std::nullopt;
  ctx.note(flavor, fmt::format("llama3 {}: a fork's flavor (torchtitan had none of this size "
                               "while it read TOML files) beside a Llama 3.2 {} tokenizer "
                               "({}, line {}): planned as {}, whose shapes the forks that "
                               "pair them copy; torchtitan's model keeps its output "
                               "projection apart from the embedding, a 128256 x {} matrix "
                               "(with its gradient and optimizer state) that the tied "
                               "preset does not count",
                               flavor.value.text, flavor.value.text, path->key, path->where.line,
                               preset, size == "1b" ? 2048 : 3072));
  return preset;
}

// torchtitan's llama2 flavors that are no published model (torchtitan/models/llama/__init__.py,
// llama2_configs, from df2dcc7 of 2024-04-19 until torchtitan dropped Llama 2; before it the same
// table was llama_configs under the name "llama"): ModelArgs(dim, n_layers, n_heads) with the
// defaults n_kv_heads = n_heads, multiple_of 256, no ffn_dim_multiplier, max_seq_len 2048, an
// output projection apart from the embedding, and the vocabulary of the tokenizer. The feed-forward
// width is FeedForward's: 2/3 of 4 x dim, rounded up to a multiple of 256. (debugmodel changed
// its layer count between commits, so it is not read.)
struct llama2_flavor {
  std::string_view flavor;
  int dim, layers, heads;
};
constexpr llama2_flavor llama2_flavors[] = {
    {"271m", 1024, 16, 8}, {"1b", 2048, 18, 16}, {"26b", 5120, 80, 40}};

// Llama 2's SentencePiece tokenizer (32,000 pieces) is the one the llama2 train configs of those
// commits name (tokenizer_path "./torchtitan/datasets/tokenizer/tokenizer.model", fetched by
// torchtitan/datasets/download_tokenizer.py from meta-llama/Llama-2-*-hf). Another tokenizer's
// size is not in the file: nullopt.
std::optional<int> llama2_tokenizer_vocab(const import_context& ctx) {
  const entry* path = ctx.find("model.tokenizer_path");
  if (path == nullptr) return std::nullopt;
  const std::string p = lower_case(path->value.text);
  if (!p.ends_with("/tokenizer.model") && p != "tokenizer.model") return std::nullopt;
  for (const char* other : {"llama3", "llama-3", "tiktoken", "test", "mistral", "gemma"})
    if (p.find(other) != std::string::npos) return std::nullopt;
  return 32000;
}

// The flavor's row of the table above, or nullptr when it has none.
const llama2_flavor* llama2_flavor_of(const entry& flavor) {
  const std::string f = lower_case(flavor.value.text);
  const auto* shape = std::find_if(std::begin(llama2_flavors), std::end(llama2_flavors),
                                   [&](const llama2_flavor& l) { return l.flavor == f; });
  return shape == std::end(llama2_flavors) ? nullptr : shape;
}

// Sets the inline model of a llama2 flavor of the table with Llama 2's tokenizer, or refuses the
// flavor in a fork's file.
maybe_error read_llama2_flavor(import_context& ctx, const entry& name, const entry& flavor,
                               const llama2_flavor& shape, int vocab) {
  // The table's shapes are torchtitan's; a fork that adds options of its own runs its own code,
  // whose table may give the flavor other shapes (forks cut layers from these flavors to profile):
  // refused, saying where the shapes must come from.
  const auto& table = torchtitan_options();
  for (const auto& e : ctx.entries) {
    const bool known = std::any_of(table.begin(), table.end(),
                                   [&](const option& o) { return option_matches(o.key, e.key); });
    if (known) continue;
    return at(flavor.where,
              fmt::format(
                  "model {} {}: a flavor of torchtitan's own table, no published model, in a file "
                  "with options of no torchtitan release ({}, line {}): a fork's code, which may "
                  "define the flavor otherwise; plan it with --set model=PATH/config.json (a "
                  "Hugging Face config of the fork's shapes)",
                  name.value.text, flavor.value.text, e.key, e.where.line));
  }
  const int hidden = 2 * (4 * shape.dim) / 3;
  const int ffn = 256 * ((hidden + 255) / 256);
  const std::string model_name = fmt::format("torchtitan llama2 {}", flavor.value.text);
  auto& job = ctx.out.job;
  job.model = model_name;
  job.model_config = {
      {"_name_or_path", nlohmann::json(model_name).dump(), flavor.where},
      {"model_type", "\"llama\"", flavor.where},
      {"vocab_size", std::to_string(vocab), ctx.find("model.tokenizer_path")->where},
      {"hidden_size", std::to_string(shape.dim), flavor.where},
      {"intermediate_size", std::to_string(ffn), flavor.where},
      {"num_hidden_layers", std::to_string(shape.layers), flavor.where},
      {"num_attention_heads", std::to_string(shape.heads), flavor.where},
      {"num_key_value_heads", std::to_string(shape.heads), flavor.where},
      {"max_position_embeddings", "2048", flavor.where},
      {"rms_norm_eps", "1e-05", flavor.where},
      {"tie_word_embeddings", "false", flavor.where}};
  job.provenance.set_at["model"] = flavor.where;
  ctx.mapped_to(name, "model");
  ctx.mapped_to(flavor, "model");
  ctx.note(
      flavor,
      fmt::format("{} {}: torchtitan's own flavor (dim {}, {} layers, {} heads, feed-forward {}, "
                  "output apart from the embedding), no published model; the vocabulary is "
                  "Llama 2's tokenizer's ({}) that model.tokenizer_path names",
                  name.value.text, flavor.value.text, shape.dim, shape.layers, shape.heads, ffn,
                  vocab));
  return std::nullopt;
}

// torchtitan model names and flavors -> vramscope presets, by model::framework_preset on
// "<name> <flavor>" ("llama3 8B" -> llama-3.1-8b, "qwen3 30B-A3B" -> qwen3-30b-a3b), on a flavor
// that is a Hugging Face id (the deepseek_v2 experiment's "deepseek-ai/DeepSeek-V2-Lite"), and
// on [hf_transformers] model, the checkpoint the transformers modeling backend builds
// (torchtitan/experiments/transformers_modeling_backend, v0.2.2). A name with no preset is kept
// as written, so that planning refuses it, listing the presets of its family: at the flavor's
// line when the family has presets (the flavor is a branch's or fork's own, its shapes in its
// source), else at the name's.
maybe_error read_model(import_context& ctx) {
  const entry* name = ctx.find("model.name");
  const entry* flavor = ctx.find("model.flavor");
  const entry* hf = ctx.find("hf_transformers.model");
  if (name == nullptr && hf == nullptr) {
    // No model named, but [model] holds keys no torchtitan release has (a backbone, a head, a
    // number of classes): the fork's own model, which torchtitan's default (llama3 debugmodel)
    // is not. Refused at the first of them.
    const auto& table = torchtitan_options();
    for (const auto& e : ctx.entries) {
      if (!e.key.starts_with("model.")) continue;
      const bool known = std::any_of(table.begin(), table.end(),
                                     [&](const option& o) { return option_matches(o.key, e.key); });
      if (known) continue;
      return at(e.where,
                fmt::format("[model] names no model (no name or flavor) and holds {}, which no "
                            "torchtitan release has: a fork's own model, whose shape is in the "
                            "fork's source, not torchtitan's default (llama3 debugmodel); plan it "
                            "with --set model=PATH/config.json (a Hugging Face config of the same "
                            "shapes)",
                            e.key));
    }
    return std::nullopt;
  }
  const std::string f = flavor == nullptr ? "" : lower_case(flavor->value.text);
  const std::string n = name == nullptr ? "" : lower_case(name->value.text);
  for (const auto& p : refused_flavors) {
    if (p.name != n || p.flavor != f) continue;
    if (auto preset = llama32_of_tokenizer(ctx, *flavor)) {
      ctx.mapped_to(*name, "model");
      const std::string problem = ctx.set("model", *preset, *flavor);
      return problem.empty() ? std::nullopt : maybe_error(at(flavor->where, problem));
    }
    return at(flavor->where,
              fmt::format("model {} {}: {}", name->value.text, flavor->value.text, p.why));
  }
  // [model] name is the name a train spec is registered under (llama3, qwen3, ...); a Hugging
  // Face id there is a fork's or branch's own loader (torchtitan's Hugging Face backend reads the
  // id from [hf_transformers] model), which may change what it loads: pull/2048's flavors shrink
  // the model, llm-jp/llama-mimi resizes its vocabulary for audio tokens.
  if (name != nullptr && hf == nullptr && name->value.text.find('/') != std::string::npos)
    return at(name->where,
              fmt::format("model.name {} is a Hugging Face id, which no torchtitan release reads "
                          "there (its Hugging Face backend reads [hf_transformers] model): a "
                          "fork's or branch's loader, which may change the model it loads; if "
                          "it trains that checkpoint as published, move the id to "
                          "[hf_transformers] model (or plan with --set model={})",
                          name->value.text, name->value.text));
  const entry* from = name != nullptr ? name : hf;
  std::string written = name == nullptr ? "" : name->value.text;
  if (flavor != nullptr) written += " " + flavor->value.text;
  std::optional<std::string> preset;
  if (hf != nullptr) {
    preset = model::preset_named(hf->value.text);
    from = hf;
    written = hf->value.text;
  } else {
    preset = model::framework_preset("torchtitan", written);
    // Until df2dcc7 (2024-04-19, "Support Llama3 8b/70b") torchtitan had one model name, "llama",
    // whose flavors were Llama 2's shapes (models/llama/__init__.py, llama_configs: 7B, 13B,
    // 70B, ...); the commit renamed them llama2_configs under the name "llama2".
    if (!preset && n == "llama" && flavor != nullptr)
      preset = model::preset_named("llama2 " + flavor->value.text);
    if (!preset && flavor != nullptr && f.find('/') != std::string::npos)
      preset = model::preset_named(flavor->value.text);
    if (!preset && flavor != nullptr && name != nullptr)
      preset = preset_of_suffixed(ctx, *flavor, name->value.text);
  }
  // A name that is none of torchtitan's models (nor, after a '.', an experiment's model) and
  // no preset is a fork's own model: refused at its line, before the file's other options,
  // since its shape is only in the fork's source.
  static constexpr std::string_view titan_models[] = {
      "llama",       "llama2",
      "llama3",      "llama4",
      "deepseek_v2", "deepseek_v3",
      "qwen3",       "qwen3_5",
      "gpt_oss",     "flux",
      "kimi_k2_7",   "muse_glimmer",
      "vlm",         "transformers_modeling_backend"};
  // A name that matches a preset by its words ("qwen2 7B") is still the fork's registration,
  // built by the fork's code: planned as that preset only when the file's tokenizer or weights
  // path names the same model (pull/1470's "llama3.2" "1b" beside .../Llama-3.2-1B), else
  // refused with the preset offered, not assumed.
  const std::string base = n.substr(n.rfind('.') == std::string::npos ? 0 : n.rfind('.') + 1);
  const entry* named_by = preset ? path_naming(ctx, *preset) : nullptr;
  if (named_by != nullptr && name != nullptr &&
      std::find(std::begin(titan_models), std::end(titan_models), base) == std::end(titan_models))
    ctx.note(*name, fmt::format("model.name {} is no torchtitan model: a fork's or branch's own, "
                                "planned as {} because {} (line {}) names that model",
                                name->value.text, *preset, named_by->key, named_by->where.line));
  else if (hf == nullptr && name != nullptr &&
           std::find(std::begin(titan_models), std::end(titan_models), base) ==
               std::end(titan_models))
    return at(name->where,
              fmt::format("model.name {} is no torchtitan model (torchtitan's: llama2, llama3, "
                          "llama4, deepseek_v3, qwen3, qwen3_5, gpt_oss, flux, ...): a fork's "
                          "own model, whose shape is in the fork's source; plan it with {}--set "
                          "model=PATH/config.json (a Hugging Face config of the same shapes)",
                          name->value.text,
                          preset ? fmt::format("--set model={} if the fork builds that model's "
                                               "published shapes, else ",
                                               *preset)
                                 : std::string()));
  if (hf != nullptr && name != nullptr) ctx.mapped_to(*name, "model");
  if (!preset && hf == nullptr && flavor != nullptr && name != nullptr &&
      (n == "llama2" || n == "llama")) {
    if (const auto* shape = llama2_flavor_of(*flavor))
      if (const auto vocab = llama2_tokenizer_vocab(ctx))
        return read_llama2_flavor(ctx, *name, *flavor, *shape, *vocab);
  }
  if (!preset && hf == nullptr && flavor != nullptr &&
      !model::presets_of_family(written).empty()) {
    // A family with presets: the flavor is what none of them has.
    ctx.mapped_to(*name, "model");
    from = flavor;
  } else if (flavor != nullptr) {
    ctx.mapped_to(*flavor, "model");
  }
  const std::string problem = ctx.set("model", preset.value_or(written), *from);
  return problem.empty() ? std::nullopt : maybe_error(at(from->where, problem));
}

// The refusal `plan --from` gives a [model] name and flavour that is no preset
// (job::load_model_of), made here for a check of the file's layout or options that would refuse
// it first: whether the model can be known comes before any check that depends on its shapes.
// nullopt for a preset, a path or Hub id, or a model given by [hf_transformers].
std::optional<diagnostic> unknown_model(const import_context& ctx) {
  const auto& job = ctx.out.job;
  if (job.model.empty() || job.model.find('/') != std::string::npos) return std::nullopt;
  if (ctx.find("model.name") == nullptr || ctx.find("hf_transformers.model") != nullptr)
    return std::nullopt;
  const auto spec = model::load_preset(job.model);
  if (spec) return std::nullopt;
  const auto set = std::find_if(ctx.out.mapped.rbegin(), ctx.out.mapped.rend(),
                                [](const import_mapping& m) { return m.field == "model"; });
  if (set == ctx.out.mapped.rend()) return std::nullopt;
  diagnostic d = set->where;
  d.message = fmt::format("model \"{}\": {}; for a model that is not a preset give its "
                          "config.json with --set model=PATH/config.json",
                          job.model, spec.error().message);
  return d;
}

// A [peft] switch's value, false when absent; the problem located at the switch.
maybe_error peft_switch(const import_context& ctx, const char* key, bool& on) {
  on = false;
  const entry* e = ctx.find(std::string("peft.") + key);
  if (e == nullptr) return std::nullopt;
  if (auto problem = parse_bool_text(e->value.text, on); !problem.empty())
    return at(e->where, fmt::format("{}: {}", e->key, problem));
  return std::nullopt;
}

// [peft] of pull/2247's branch (torchtitan/config/job_config.py at 65add622, class PEFT;
// components/peft/lora.py, lora_or_linear): with enable_peft and use_lora every attention
// projection (wq, wk, wv, wo) and every dense or shared-expert MLP projection (w1, w2, w3) is a
// Lora linear of lora_rank (default 8), lora_alpha (default 1.0) and lora_dropout over a frozen
// base; routed experts keep plain weights. The embedding, the output and the norms are frozen
// unless train_embeddings, train_output_layer or lora_train_norm say otherwise
// (models/qwen3/model/model.py), and layers_to_train keeps the adapters to the listed layers.
// Runs after read_model: a model with routed experts gets the attention's adapters only, since
// the plan's MLP targets would put adapters on every expert.
maybe_error read_peft(import_context& ctx) {
  bool enabled = false;
  bool lora = false;
  if (auto bad = peft_switch(ctx, "enable_peft", enabled)) return bad;
  if (auto bad = peft_switch(ctx, "use_lora", lora)) return bad;
  const entry* enable = ctx.find("peft.enable_peft");
  std::vector<const entry*> section;
  for (const auto& e : ctx.entries)
    if (e.key.starts_with("peft.")) section.push_back(&e);
  if (!enabled || !lora) {
    if (enabled)
      ctx.note(*enable, "peft.enable_peft without use_lora adds no adapters; the branch then "
                        "freezes the embedding and output only: planned as full training");
    for (const entry* e : section)
      if (!(enabled && e == enable)) ctx.ignore(*e);
    return std::nullopt;
  }
  bool dense = true;
  if (auto spec = model::load_preset(ctx.out.job.model); spec) dense = spec->text.experts == 0;
  std::vector<std::string> targets{"q_proj", "k_proj", "v_proj", "o_proj"};
  if (dense) {
    targets.insert(targets.end(), {"gate_proj", "up_proj", "down_proj"});
  } else {
    ctx.note(*enable, "peft: the branch's adapters go on the attention and on dense and shared-"
                      "expert MLPs, not on routed experts: planned on the attention projections");
  }
  const entry* rank = ctx.find("peft.lora_rank");
  const entry* alpha = ctx.find("peft.lora_alpha");
  const entry* dropout = ctx.find("peft.lora_dropout");
  std::string problem = ctx.set("lora.enabled", "true", *enable);
  if (problem.empty()) problem = ctx.set("lora.method", "lora", *enable);
  if (problem.empty()) problem = ctx.set("lora.targets", join(targets, ","), *enable);
  if (problem.empty())
    problem = rank != nullptr ? ctx.set("lora.rank", rank->value.text, *rank)
                              : ctx.set("lora.rank", "8", *enable);
  if (problem.empty())
    problem = alpha != nullptr ? ctx.set("lora.alpha", alpha->value.text, *alpha)
                               : ctx.set("lora.alpha", "1.0", *enable);
  if (problem.empty() && dropout != nullptr)
    problem = ctx.set("lora.dropout", dropout->value.text, *dropout);
  if (!problem.empty()) return at(enable->where, problem);
  static constexpr std::pair<const char*, const char*> trained[] = {
      {"peft.train_embeddings", "the embedding trained beside the adapters (its gradient and "
                                "optimizer state)"},
      {"peft.train_output_layer", "the output layer trained beside the adapters (its gradient "
                                  "and optimizer state)"},
      {"peft.lora_train_norm", "the norms trained beside the adapters"}};
  for (const auto& [key, what] : trained)
    if (const entry* e = ctx.find(key)) {
      if (auto bad = not_modelled(what).apply(ctx, *e); !bad.empty()) return at(e->where, bad);
    }
  if (const entry* layers = ctx.find("peft.layers_to_train"); layers != nullptr) {
    if (layers->value.is_list || (!layers->value.text.empty() &&
                                  lower_case(layers->value.text) != "none"))
      not_modelled("adapters on the listed layers only, the others frozen (planned on every "
                   "layer)").apply(ctx, *layers);
    else
      ctx.ignore(*layers);
  }
  ctx.mapped_to(*ctx.find("peft.use_lora"), "lora.enabled");
  return std::nullopt;
}

// Older torchtitan configs (2024 to early 2025) kept the parallel degrees under [training] and
// the pipeline and context options under [experimental]; they mean what [parallelism] means now.
// Each such key is read as its [parallelism] name unless the file also has that one. Returns
// whether the file has one of them, or one of 2024's two renamed degrees: a JobConfig older than
// the [parallelism] table (785c34c99, 2025-03-18).
bool read_legacy_layout(import_context& ctx) {
  bool legacy = false;
  static const char* const moved[] = {"data_parallel_shard_degree",
                                      "data_parallel_replicate_degree",
                                      "tensor_parallel_degree",
                                      "enable_async_tensor_parallel",
                                      "pipeline_parallel_degree",
                                      "pipeline_parallel_schedule",
                                      "pipeline_parallel_microbatch_size",
                                      "pipeline_parallel_split_points",
                                      "context_parallel_degree",
                                      "context_parallel_rotate_method",
                                      "expert_parallel_degree",
                                      "pipeline_parallel_microbatches"};
  for (auto& e : ctx.entries) {
    // February to March 2024 (e28832e7c renamed it): the tensor-parallel degree, with sequence
    // parallelism.
    if (e.key == "training.sequence_parallel_degree" &&
        ctx.find("parallelism.tensor_parallel_degree") == nullptr &&
        ctx.find("training.tensor_parallel_degree") == nullptr) {
      ctx.note(e, "training.sequence_parallel_degree is the older name of "
                  "parallelism.tensor_parallel_degree: read as such");
      e.key = "parallelism.tensor_parallel_degree";
      legacy = true;
      continue;
    }
    // April to August 2024: one data-parallel degree, FSDP's (-1: every rank left over).
    if (e.key == "training.data_parallel_degree" &&
        ctx.find("parallelism.data_parallel_shard_degree") == nullptr) {
      ctx.note(e, "training.data_parallel_degree is the older place of "
                  "parallelism.data_parallel_shard_degree: read as such");
      e.key = "parallelism.data_parallel_shard_degree";
      legacy = true;
      continue;
    }
    for (const char* key : moved) {
      for (const char* section : {"training.", "experimental."}) {
        if (e.key != std::string(section) + key) continue;
        const std::string now = std::string("parallelism.") + key;
        if (ctx.find(now) != nullptr) continue;
        ctx.note(e, fmt::format("{} is the older place of {}: read as such", e.key, now));
        e.key = now;
        legacy = true;
      }
    }
  }
  return legacy;
}

// torchtitan gives training.mixed_precision_param to fully_shard only. Without FSDP (torchtitan's
// fsdp_enabled: a shard degree above 1, or context parallelism) it depends on the release: until
// 0b44d4c43 (pull/1303, 2025-06-16) the dtype went to apply_fsdp alone ("only takes effect when
// data_parallel_shard_degree > 1", config_manager.py), and since then maybe_enable_amp
// (distributed/utils.py) autocasts DDP and one rank but not tensor or pipeline parallelism
// ("Mixed precision training with TP or PP is only supported when FSDP/HSDP/CP is enabled.").
// So TP or PP without FSDP trains in fp32 in every release, and DDP or one rank in a file of
// before June 2025 (parallel degrees under [training] or [experimental], before the [parallelism]
// table of 2025-03-18, or 2024's training.data_parallel_type); a newer DDP file is planned under
// today's autocast in that dtype.
void read_precision_without_fsdp(import_context& ctx, bool legacy) {
  // A shard degree of -1 (the default: every rank the others leave) takes a world the file may
  // not fix, so only a shard degree of 1 the file writes is read as no FSDP.
  const auto& p = ctx.out.job.parallel;
  if (p.kind != strategy::ddp && p.kind != strategy::single &&
      !(p.kind == strategy::fsdp2 && p.dp_shard == 1 && p.cp <= 1))
    return;
  const bool model_parallel = p.tp > 1 || p.pp > 1;
  const entry* type = ctx.find("training.data_parallel_type");
  if (!model_parallel && !legacy && type == nullptr) return;
  const entry* anchor = type;
  for (const char* key :
       {"parallelism.data_parallel_replicate_degree", "parallelism.tensor_parallel_degree",
        "parallelism.pipeline_parallel_degree"})
    if (anchor == nullptr) anchor = ctx.find(key);
  entry origin{"", {"fp32", {}, false}, false, diagnostic{ctx.source, 0, 0, "", ""}};
  if (anchor != nullptr) origin.where = anchor->where;
  (void)ctx.set("precision.params", "fp32", origin);
  const entry* dtype = ctx.find("training.mixed_precision_param");
  const std::string ignored =
      dtype != nullptr
          ? fmt::format("; mixed_precision_param (line {}) has no effect", dtype->where.line)
          : std::string();
  if (model_parallel)
    ctx.note(origin,
             fmt::format("tensor or pipeline parallelism without FSDP (a shard degree of 1, "
                         "no context parallelism): torchtitan gives mixed_precision_param "
                         "only to fully_shard and does not autocast TP or PP, so the job "
                         "trains in fp32{}",
                         ignored));
  else
    ctx.note(origin,
             fmt::format("{} without FSDP in a torchtitan config of before June 2025 (its "
                         "parallel degrees under [training] or [experimental]): that "
                         "torchtitan gave mixed_precision_param only to FSDP and ran DDP and "
                         "one rank without autocast (pull/1303 added it), so the job trains "
                         "in fp32{}",
                         p.kind == strategy::ddp ? "DDP" : "one rank", ignored));
}

// torchtitan's JobConfig by release era, from its history (pytorch/torchtitan):
//   until 2025-06-05 [training] batch_size is the per-rank batch (default 8);
//   8570415c3 (pull/1238, 2025-06-05) renamed it local_batch_size (default 8) with no alias;
//   from then ConfigManager._dict_to_dataclass copied only the fields a dataclass has and dropped
//   the rest without a word, until eadca4835 (pull/1644, 2025-08-28) made it raise ValueError
//   ("Invalid field names ...") on a field the dataclass lacks.
// A file's era shows in the fields it writes that no JobConfig before the rename had, and those
// that none before pull/1644 had (tests/data/options/torchtitan_fields.py over job_config.py at
// 8570415c3^, eadca4835 and 9810191bb^). Fields a branch may add on its own (expert parallelism,
// fault tolerance, the MoE float8 prototypes) tell nothing and are not listed.
struct era_mark {
  const char* key;  // a field, or "section." for every field of a section
  bool strict;      // true: only JobConfigs since pull/1644 have it
};
constexpr era_mark era_marks[] = {
    {"training.local_batch_size", false},
    {"training.global_batch_size", false},
    {"checkpoint.enable", false},
    {"checkpoint.enable_first_step_checkpoint", false},
    {"checkpoint.initial_load_in_hf", false},
    {"checkpoint.initial_load_model_only", false},
    {"checkpoint.initial_load_path", false},
    {"checkpoint.last_save_in_hf", false},
    {"checkpoint.last_save_model_only", false},
    {"compile.", false},
    {"validation.", false},
    {"lr_scheduler.min_lr_factor", false},
    {"memory_estimation.enable", false},
    {"model.hf_assets_path", false},
    {"optimizer.beta1", false},
    {"optimizer.beta2", false},
    {"optimizer.weight_decay", false},
    {"parallelism.pipeline_parallel_first_stage_less_layers", false},
    {"parallelism.pipeline_parallel_last_stage_less_layers", false},
    {"activation_checkpoint.memory_budget", true},
    {"activation_checkpoint.preserve_rng_state", true},
    {"activation_checkpoint.early_stop", true},
    {"checkpoint.load_only", true},
    {"checkpoint.enable_ft_dataloader_checkpoints", true},
    {"comm.mode", true},
    {"debug.", true},
    {"job.custom_config_module", true},
    {"job.print_config", true},
    {"lr_scheduler.total_steps", true},
    {"parallelism.context_parallel_load_balancer", true},
    {"profiling.profiler_active", true},
    {"profiling.profiler_warmup", true},
    {"quantize.", true},
    {"training.dataloader.", true},
    {"training.dtype", true},
};

// The first entry of the file that only a JobConfig since the rename has (since pull/1644 when
// `strict`), or nullptr when the file does not tell.
const entry* era_evidence(const import_context& ctx, bool strict) {
  for (const auto& e : ctx.entries)
    for (const auto& mark : era_marks) {
      if (strict && !mark.strict) continue;
      const std::string_view key = mark.key;
      if (key.ends_with('.') ? e.key.starts_with(key) : e.key == key) return &e;
    }
  return nullptr;
}

// [training] batch_size: read where the file's era read it. Where the file is of a later era,
// torchtitan dropped it (and used local_batch_size, default 8) or refused it; said so. Where
// the era cannot be told, it is the per-rank batch as the releases that had it read it.
maybe_error read_batch_size(import_context& ctx) {
  const entry* old = ctx.find("training.batch_size");
  if (old == nullptr) return std::nullopt;
  const auto line_of = [](const entry& e) { return e.where.line; };
  if (const entry* strict = era_evidence(ctx, true); strict != nullptr) {
    ctx.framework_refuses = true;
    return at(old->where,
              fmt::format("training.batch_size was renamed local_batch_size (pull/1238, "
                          "2025-06-05), and {} (line {}) is of a release since pull/1644 "
                          "(2025-08-28), whose ConfigManager raises ValueError on a field its "
                          "JobConfig lacks; write local_batch_size to plan it",
                          strict->key, line_of(*strict)));
  }
  const entry* later = era_evidence(ctx, false);
  if (later == nullptr) {
    const std::string problem = ctx.set("training.micro_batch", old->value.text, *old);
    return problem.empty() ? std::nullopt : maybe_error(at(old->where, problem));
  }
  const entry* local = ctx.find("training.local_batch_size");
  ctx.note(*old, fmt::format("training.batch_size was renamed local_batch_size (pull/1238, "
                             "2025-06-05) and {} (line {}) is of a later release, whose "
                             "ConfigManager drops a field its JobConfig lacks without a word "
                             "(until pull/1644, 2025-08-28): the run uses {}",
                             later->key, line_of(*later),
                             local != nullptr ? "local_batch_size"
                                              : "local_batch_size's default, 8"));
  if (local != nullptr) return std::nullopt;  // the table maps it
  const std::string problem = ctx.set("training.micro_batch", "8", *old);
  return problem.empty() ? std::nullopt : maybe_error(at(old->where, problem));
}

long long degree(const import_context& ctx, const std::string& key, long long fallback,
                 std::string& problem) {
  const entry* e = ctx.find("parallelism." + key);
  if (e == nullptr) return fallback;
  long long value = 0;
  std::istringstream in(e->value.text);
  if (!(in >> value) || !in.eof() || value == 0 || value < -1 || value > (1 << 20))
    problem = fmt::format("parallelism.{}: expected a degree of 1 or more (or -1), got \"{}\"", key,
                          e->value.text);
  return value;
}

// Sets a parallel field from its [parallelism] entry, or from the file as a whole.
std::string put(import_context& ctx, const std::string& key, const std::string& path,
                long long value) {
  const entry* e = ctx.find("parallelism." + key);
  entry file_level;
  file_level.where = diagnostic{ctx.source, 0, 0, "", ""};
  return ctx.set(path, std::to_string(value), e != nullptr ? *e : file_level);
}

maybe_error read_parallelism(import_context& ctx, bool& has_world_size) {
  std::string problem;
  const long long shard = degree(ctx, "data_parallel_shard_degree", -1, problem);
  const long long rep = degree(ctx, "data_parallel_replicate_degree", 1, problem);
  const long long tp = degree(ctx, "tensor_parallel_degree", 1, problem);
  const long long pp = degree(ctx, "pipeline_parallel_degree", 1, problem);
  const long long cp = degree(ctx, "context_parallel_degree", 1, problem);
  const long long ep = degree(ctx, "expert_parallel_degree", 1, problem);
  const entry* where = ctx.find("parallelism.data_parallel_shard_degree");
  const diagnostic at_file{ctx.source, 0, 0, "", ""};
  if (problem.empty() && (rep == -1 || tp == -1 || pp == -1 || cp == -1 || ep == -1))
    problem = "parallelism: only data_parallel_shard_degree may be -1";
  if (!problem.empty()) return at(where != nullptr ? where->where : at_file, problem);
  // Pipeline, context and expert degrees of 1 are the defaults: nothing to set. Expert-parallel
  // ranks are borrowed from the data-parallel ones and add nothing to the world.
  for (const auto& [key, path, value] : {std::tuple{"pipeline_parallel_degree", "parallel.pp", pp},
                                         std::tuple{"context_parallel_degree", "parallel.cp", cp},
                                         std::tuple{"expert_parallel_degree", "parallel.ep", ep}}) {
    if (value > 1 && problem.empty()) problem = put(ctx, key, path, value);
    if (const entry* e = ctx.find(std::string("parallelism.") + key); e != nullptr && value <= 1)
      ctx.ignore(*e);
  }
  // torchtitan's ParallelDims: fsdp_enabled is `dp_shard_enabled or cp_enabled`, so with context
  // parallelism the weights are sharded over the context-parallel ranks (mesh dp_shard_cp) even
  // at a shard degree of 1, and replicas make it HSDP; only without CP is it DDP.
  if (shard == 1 && rep > 1 && cp <= 1) {
    ctx.note(*ctx.find("parallelism.data_parallel_replicate_degree"),
             "a shard degree of 1 with replicas is DDP in torchtitan: planned as ddp");
    ctx.out.job.parallel.kind = strategy::ddp;
    problem = put(ctx, "data_parallel_replicate_degree", "parallel.dp_shard", rep);
  } else {
    problem = put(ctx, "data_parallel_replicate_degree", "parallel.dp_replicate", rep);
    if (problem.empty())
      problem = put(ctx, "data_parallel_shard_degree", "parallel.dp_shard", shard == -1 ? 0 : shard);
  }
  if (problem.empty()) problem = put(ctx, "tensor_parallel_degree", "parallel.tp", tp);
  // Without expert_tensor_parallel_degree, torchtitan's default 1 (JobConfig, since aeb3a4baf
  // 2025-08-13): expert parallelism takes the tensor-parallel ranks too, each expert whole.
  if (problem.empty() && ep > 1 && tp > 1 &&
      ctx.find("parallelism.expert_tensor_parallel_degree") == nullptr) {
    const entry& experts = *ctx.find("parallelism.expert_parallel_degree");
    problem = ctx.set("parallel.etp", "1", experts);
    ctx.note(experts,
             fmt::format("no expert_tensor_parallel_degree: torchtitan's default 1 (since "
                         "2025-08-13; before, the experts split over tp as the other weights): "
                         "expert parallelism takes the {} tensor-parallel ranks too, each expert "
                         "whole on its rank",
                         tp));
  }
  // torchtitan's tensor-parallel plan shards the norms on the sequence dimension.
  if (problem.empty() && tp > 1)
    problem = ctx.set("parallel.sequence_parallel", "true", *ctx.find("parallelism.tensor_parallel_degree"));
  if (problem.empty() && shard != -1 && where != nullptr) {
    has_world_size = true;
    problem = set_world(ctx, shard * rep * tp * pp * cp, *where);
  } else if (problem.empty() && where != nullptr && ctx.out.job.world_size() % (rep * tp * pp * cp) != 0) {
    // A shard degree of -1 takes what is left of the world, which must hold the other
    // dimensions at least once: assume the smallest such world.
    problem = set_world(ctx, rep * tp * pp * cp, *where);
  }
  return problem.empty() ? std::nullopt : maybe_error(at(where != nullptr ? where->where : at_file, problem));
}

// Pipeline parallelism (torchtitan/distributed/pipeline_parallel.py): the schedule, and the
// local batch cut into micro-batches of pipeline_parallel_microbatch_size (default 1) that run
// through the stages in one step. FSDP's "default" reshard policy keeps parameters unsharded
// after forward under a pipeline (torchtitan's parallelize: reshard_after_forward is
// `not pp_enabled`). Runs after the table has mapped local_batch_size.
maybe_error read_pipeline(import_context& ctx) {
  auto& job = ctx.out.job;
  if (job.parallel.pp <= 1) {
    for (const char* key :
         {"parallelism.pipeline_parallel_schedule", "parallelism.pipeline_parallel_microbatch_size",
          "parallelism.pipeline_parallel_microbatches"})
      if (const entry* e = ctx.find(key)) ctx.ignore(*e);
    return std::nullopt;
  }
  long long micro = 1;
  const entry* size = ctx.find("parallelism.pipeline_parallel_microbatch_size");
  if (size != nullptr) {
    std::istringstream in(size->value.text);
    if (!(in >> micro) || !in.eof() || micro < 1)
      return at(size->where, fmt::format("parallelism.pipeline_parallel_microbatch_size: expected "
                                         "a positive integer, got \"{}\"", size->value.text));
  }
  const long long local = static_cast<long long>(job.training.micro_batch);
  if (const entry* e = ctx.find("parallelism.pipeline_parallel_schedule")) {
    if (auto problem = ctx.set("parallel.pp_schedule", e->value.text, *e); !problem.empty()) {
      // A schedule of a branch that no release has ("zb", read from a CSV on gh/H-Huang/13). With
      // no more micro-batches than stages' ranks every schedule has all of them in flight at
      // its peak (warm-up runs each one's forward before the first backward), so the peak
      // does not depend on the order it picks: planned under the default, said in a note.
      // With more, or a batch the file does not give, the schedule decides how many are in
      // flight: refused as before.
      const bool given = ctx.find("training.local_batch_size") != nullptr ||
                         ctx.find("training.batch_size") != nullptr;
      const long long batches = micro > 0 ? local / micro : 0;
      if (!given || batches < 1 || batches > job.parallel.pp) return at(e->where, problem);
      ctx.note(*e, fmt::format("pipeline_parallel_schedule \"{}\" is no torchtitan release's "
                               "schedule (a branch's own); its {} micro-batch{} of {} per step "
                               "are all in flight at the peak of any schedule with {} pipeline "
                               "ranks: planned under torchtitan's default, 1F1B",
                               e->value.text, batches, batches == 1 ? "" : "es", micro,
                               job.parallel.pp));
    }
  }
  // Before 5e2033c75 (pull/1073, 2025-04-07) the option was the number of micro-batches,
  // pipeline_parallel_microbatches, whose default None became the number of stages
  // (build_pipeline_schedule: n_microbatches = num_total_stages), the pipeline degree under a
  // single-stage schedule (1F1B, the default, or GPipe); the local batch is split into that
  // many. A file of that era: the count written, or the pipeline degree under [experimental] /
  // [training] (no [parallelism] table, which came in 785c34c99, 2025-03-18).
  const entry* count = ctx.find("parallelism.pipeline_parallel_microbatches");
  const bool parallelism_table =
      std::any_of(ctx.sections.begin(), ctx.sections.end(),
                  [](const auto& section) { return section.first == "parallelism"; });
  const entry* schedule = ctx.find("parallelism.pipeline_parallel_schedule");
  const bool single_stage = schedule == nullptr || lower_case(schedule->value.text) == "1f1b" ||
                            lower_case(schedule->value.text) == "gpipe";
  const bool batch_given = ctx.find("training.local_batch_size") != nullptr ||
                           ctx.find("training.batch_size") != nullptr;
  if (size == nullptr && batch_given &&
      (count != nullptr || (!parallelism_table && single_stage))) {
    long long n = job.parallel.pp;
    if (count != nullptr) {
      std::istringstream in(count->value.text);
      if (!(in >> n) || !in.eof() || n < 1)
        return at(count->where, fmt::format("{}: expected a positive integer, got \"{}\"",
                                            count->key, count->value.text));
    }
    const entry& at_count =
        count != nullptr ? *count : *ctx.find("parallelism.pipeline_parallel_degree");
    if (local % n != 0)
      return at(at_count.where,
                fmt::format("the local batch {} is not a multiple of the {} pipeline micro-batches "
                            "(torchtitan: \"Batch size must be divisible by number of "
                            "microbatches\"); make it one to plan it",
                            local, n));
    if (count == nullptr)
      ctx.note(at_count, fmt::format("no pipeline_parallel_microbatches: torchtitan of this "
                                     "layout splits the local batch into one micro-batch per "
                                     "stage, {} of {}",
                                     n, local / n));
    micro = local / n;
  }
  if (local % micro != 0)
    return at(size != nullptr ? size->where : diagnostic{ctx.source, 0, 0, "", ""},
              fmt::format("training.local_batch_size {} is not a multiple of "
                          "pipeline_parallel_microbatch_size {}", local, micro));
  const entry& where = size != nullptr ? *size : *ctx.find("parallelism.pipeline_parallel_degree");
  std::string problem = ctx.set("training.micro_batch", std::to_string(micro), where);
  if (problem.empty())
    problem = ctx.set("training.gradient_accumulation", std::to_string(local / micro), where);
  // Under DDP (replicas with a shard degree of 1) no FSDP wraps the model and the reshard policy
  // acts on nothing (parallelize_llama applies it in apply_fsdp only).
  const entry* reshard = ctx.find("parallelism.fsdp_reshard_after_forward");
  if (problem.empty() && job.parallel.kind != strategy::ddp &&
      (reshard == nullptr || lower_case(reshard->value.text) == "default"))
    problem = ctx.set("parallel.reshard_after_forward", "false", reshard != nullptr ? *reshard : where);
  return problem.empty() ? std::nullopt : maybe_error(at(where.where, problem));
}

// mode none | full | selective; selective_ac_option "op" (per-operator) or N (every Nth block).
// Without a mode torchtitan applies its default, selective every 2nd block: the argparse
// defaults `--activation_checkpoint.mode` "selective" and `selective_ac_option` "2" from
// 0d415d782 (2024-03-14), kept by the typed JobConfig (c1c2f55d1, 2025-04-18) and by
// config/configs.py until the TOML files went (9810191bb, 2026-02-23). Before 0d415d782 the
// switch was `training.enable_selective_ac`, off unless written; a file with it gets no default.
maybe_error read_checkpointing(import_context& ctx) {
  const entry* mode = ctx.find("activation_checkpoint.mode");
  const entry* option = ctx.find("activation_checkpoint.selective_ac_option");
  if (mode == nullptr) {
    if (ctx.find("training.enable_selective_ac") != nullptr) return std::nullopt;
    const std::string every = option != nullptr ? option->value.text : "2";
    ctx.note(fmt::format("no activation_checkpoint.mode: torchtitan's default \"selective\" ({}), "
                         "planned as such", lower_case(every) == "op"
                                                ? "per operator"
                                                : "every " + every + " blocks"));
    entry absent{"activation_checkpoint.mode", {}, true, diagnostic{ctx.source, 0, 0, "", ""}};
    absent.value.text = "selective";
    const entry& where = option != nullptr ? *option : absent;
    std::string problem;
    if (lower_case(every) == "op") {
      problem = ctx.set("training.activation_checkpointing", "op", where);
    } else {
      problem = ctx.set("training.activation_checkpointing", "selective", where);
      if (problem.empty()) problem = ctx.set("training.checkpoint_every", every, where);
    }
    return problem.empty() ? std::nullopt
                           : maybe_error(option != nullptr ? at(option->where, problem)
                                                           : error_at(ctx.source, problem));
  }
  std::string problem;
  const std::string m = lower_case(mode->value.text);
  if (m != "selective" || option == nullptr) {
    problem = ctx.set("training.activation_checkpointing", m, *mode);
  } else if (lower_case(option->value.text) == "op") {
    problem = ctx.set("training.activation_checkpointing", "op", *option);
  } else {
    problem = ctx.set("training.activation_checkpointing", "selective", *mode);
    if (problem.empty()) problem = ctx.set("training.checkpoint_every", option->value.text, *option);
  }
  return problem.empty() ? std::nullopt : maybe_error(at(mode->where, problem));
}

std::string read_implementation(import_context& ctx, const entry& e) {
  const std::string v = lower_case(e.value.text);
  if (v != "fused" && v != "foreach" && v != "for-loop")
    return fmt::format("{}: invalid value \"{}\" (expected one of: fused, foreach, for-loop)",
                       e.key, e.value.text);
  if (auto problem = ctx.set("optimizer.fused", v == "fused" ? "true" : "false", e); !problem.empty())
    return problem;
  return ctx.set("optimizer.foreach", v == "foreach" ? "true" : "false", e);
}

// The items of a list option (a scalar is a list of one), empty ones left out; none when the
// option is not in the file.
std::vector<std::string> items_of(const import_context& ctx, const std::string& key) {
  const entry* e = ctx.find(key);
  if (e == nullptr) return {};
  std::vector<std::string> out;
  for (const auto& c : e->value.is_list ? e->value.items : std::vector<std::string>{e->value.text})
    if (!c.empty()) out.push_back(c);
  return out;
}

// The converters model.converters lists ("float8", "quantize.linear.float8", "mx", ...).
std::vector<std::string> converters(const import_context& ctx) {
  return items_of(ctx, "model.converters");
}

// torchao float8 linears: the "float8" converter (its options in [quantize.linear.float8], or
// [float8] in older torchtitan, which also switched it on with float8.enable_float8_linear).
bool is_float8_converter(const std::string& name) {
  return name == "float8" || name == "quantize.linear.float8";
}

bool float8_on(const import_context& ctx) {
  const auto list = converters(ctx);
  if (std::any_of(list.begin(), list.end(), is_float8_converter)) return true;
  const entry* legacy = ctx.find("float8.enable_float8_linear");
  bool on = false;
  return legacy != nullptr && parse_bool_text(legacy->value.text, on).empty() && on;
}

// A float8 option, in either place torchtitan has kept it.
const entry* float8_option(const import_context& ctx, const std::string& key) {
  if (const entry* e = ctx.find("quantize.linear.float8." + key)) return e;
  return ctx.find("float8." + key);
}

// Float8 training as torchtitan sets it up (components/quantization/float8.py): the recipe
// (tensorwise unless recipe_name says otherwise) and, with data-parallel sharding and the
// tensorwise recipe, FSDP2's float8 all-gather.
std::optional<diagnostic> read_float8(import_context& ctx) {
  if (!float8_on(ctx)) return std::nullopt;
  const entry* switch_entry = ctx.find("model.converters");
  if (switch_entry == nullptr) switch_entry = ctx.find("float8.enable_float8_linear");
  std::string recipe = "tensorwise";
  const entry* recipe_entry = float8_option(ctx, "recipe_name");
  if (recipe_entry != nullptr) {
    const auto v = lower_case(recipe_entry->value.text);
    if (v != "tensorwise" && v != "rowwise" && v != "rowwise_with_gw_hp")
      return at(recipe_entry->where,
                fmt::format("{}: invalid value \"{}\" (expected one of: tensorwise, rowwise, "
                            "rowwise_with_gw_hp)", recipe_entry->key, recipe_entry->value.text));
    recipe = v;
  }
  const entry& where = recipe_entry != nullptr ? *recipe_entry : *switch_entry;
  if (auto problem = ctx.set("precision.float8", recipe, where); !problem.empty())
    return at(where.where, problem);
  const entry* all_gather = float8_option(ctx, "enable_fsdp_float8_all_gather");
  bool gather = false;
  if (all_gather == nullptr || !parse_bool_text(all_gather->value.text, gather).empty() || !gather)
    return std::nullopt;
  if (recipe != "tensorwise") {
    ctx.note(*all_gather, fmt::format("{}: torchao all-gathers float8 weights for the tensorwise "
                                      "recipe only ({} here): planned without it",
                                      all_gather->key, recipe));
    return std::nullopt;
  }
  if (auto problem = ctx.set("parallel.float8_all_gather", "true", *all_gather); !problem.empty())
    return at(all_gather->where, problem);
  return std::nullopt;
}

// training.dtype (JobConfig.Training.dtype, "float32" by default): "bfloat16" is full bf16
// training, parameters, gradients and optimizer states all in bf16 with no fp32 copy
// (torchtitan/config/job_config.py; train.py builds the model under set_default_dtype).
std::string read_training_dtype(import_context& ctx, const entry& e) {
  const std::string v = lower_case(e.value.text);
  if (v == "float32") {
    ctx.ignore(e);
    return "";
  }
  if (v != "bfloat16")
    return fmt::format("{}: invalid value \"{}\" (expected one of: bfloat16, float32)", e.key,
                       e.value.text);
  if (auto problem = ctx.set("precision.master", "bf16", e); !problem.empty()) return problem;
  return ctx.set("precision.params", "bf16", e);
}

// model.converters: float8 is modelled (read_float8); any other converter (MX formats, float8
// grouped GEMMs of MoE experts) changes memory in ways not modelled.
std::string read_converters(import_context& ctx, const entry& e) {
  std::vector<std::string> others;
  for (const auto& c : converters(ctx))
    if (!is_float8_converter(c)) others.push_back(c);
  if (others.empty()) {
    ctx.ignore(e);
    return "";
  }
  return not_modelled(fmt::format("converters {} change weight and activation dtypes",
                                  fmt::join(others, ", ")))
      .apply(ctx, e);
}

// torchtitan's 2024 float8 switches (training.fp8_linear = "" / "dynamic" / "delayed";
// training.enable_fp8_linear = true): torchao's float8 linears, whose delayed scaling keeps
// amax histories of a few floats a weight, planned as the tensorwise recipe.
std::string read_legacy_fp8_linear(import_context& ctx, const entry& e) {
  std::string v = lower_case(e.value.text);
  if (e.key == "training.enable_fp8_linear" || e.key == "training.enable_float8_linear") {
    bool on = false;
    if (auto problem = parse_bool_text(e.value.text, on); !problem.empty())
      return e.key + ": " + problem;
    v = on ? "dynamic" : "";
  }
  if (v.empty()) return ctx.set("precision.float8", "none", e);
  if (v != "dynamic" && v != "delayed")
    return fmt::format("{}: invalid value \"{}\" (expected \"\", dynamic or delayed)", e.key,
                       e.value.text);
  if (v == "delayed")
    ctx.note(e, "training.fp8_linear delayed: planned as the tensorwise recipe (the amax "
                "histories are a few floats a weight)");
  return ctx.set("precision.float8", "tensorwise", e);
}

// Whether a 2024 [training] switch turns torchao's float8 linears on (read_legacy_fp8_linear).
bool legacy_float8_on(const import_context& ctx) {
  for (const char* key : {"training.enable_fp8_linear", "training.enable_float8_linear"}) {
    bool on = false;
    if (const entry* e = ctx.find(key); e != nullptr && parse_bool_text(e->value.text, on).empty() && on)
      return true;
  }
  const entry* fp8 = ctx.find("training.fp8_linear");
  return fp8 != nullptr && !fp8->value.text.empty();
}

// 2024's training.enable_fsdp_fp8_all_gather (June) / enable_fsdp_float8_all_gather (July):
// FSDP2 all-gathers the float8 weights, with the float8 linears on; off or without them, nothing.
std::string read_legacy_float8_all_gather(import_context& ctx, const entry& e) {
  bool on = false;
  if (auto problem = parse_bool_text(e.value.text, on); !problem.empty())
    return e.key + ": " + problem;
  const entry* type = ctx.find("training.data_parallel_type");
  if (!on || !legacy_float8_on(ctx) || (type != nullptr && lower_case(type->value.text) == "ddp")) {
    ctx.ignore(e);  // FSDP2's all-gather: nothing to gather under DDP
    return "";
  }
  return ctx.set("parallel.float8_all_gather", "true", e);
}

// training.enable_selective_ac (torchtrain, 2024-02-28 to 0d415d782, 2024-03-14): every block is
// checkpointed, true with the per-operator policy (saves compute ops but every second matmul),
// false whole (parallelize_llama.py at 55ec314c7, checkpoint_wrapper).
std::string read_enable_selective_ac(import_context& ctx, const entry& e) {
  bool on = false;
  if (auto problem = parse_bool_text(e.value.text, on); !problem.empty())
    return e.key + ": " + problem;
  if (ctx.find("activation_checkpoint.mode") != nullptr) {
    ctx.ignore(e);
    return "";
  }
  return ctx.set("training.activation_checkpointing", on ? "op" : "full", e);
}

// training.data_parallel_type (2024-07, b795534ca): "fsdp" (the default) or "ddp".
std::string read_data_parallel_type(import_context& ctx, const entry& e) {
  const std::string v = lower_case(e.value.text);
  if (v == "fsdp") {
    ctx.ignore(e);
    return "";
  }
  if (v != "ddp")
    return fmt::format("{}: invalid value \"{}\" (expected one of: fsdp, ddp)", e.key, e.value.text);
  ctx.note(e, "training.data_parallel_type ddp: torchtitan replicates the model over the "
              "data-parallel ranks: planned as ddp");
  return ctx.set("parallel.strategy", "ddp", e);
}

// The options of the float8 converter: consumed by read_float8 when it is on, nothing when off.
// filter_fqns: torchtitan's default skips the output head, which the planner never converts;
// other names (a MoE router's gate) keep a few MiB of linears in high precision, planned as
// converted. precompute_float8_dynamic_scale_for_fsdp keeps one scale per weight; emulate runs
// the same casts without float8 matmuls.
std::string read_float8_option(import_context& ctx, const entry& e) {
  const std::string key = e.key.substr(e.key.rfind('.') + 1);
  static const std::vector<std::string> known{"enable_fsdp_float8_all_gather",
                                              "precompute_float8_dynamic_scale_for_fsdp",
                                              "recipe_name", "filter_fqns", "emulate",
                                              "enable_float8_linear"};
  if (!float8_on(ctx) || std::find(known.begin(), known.end(), key) != known.end()) {
    ctx.ignore(e);
    return "";
  }
  return not_modelled("a float8 option vramscope does not know").apply(ctx, e);
}

// A section whose options act only when its switch is on ([compile] enable, [validation]
// enable) or when model.converters names it ([quantize.linear.mx] for "quantize.linear.mx" or
// "mx", [quantize.grouped_mm.float8] for "quantize.grouped_mm.float8"): off, its options change
// nothing; on, they change memory in ways not modelled.
bool section_on(const import_context& ctx, const std::string& section) {
  if (section.starts_with("quantize")) {
    const auto list = converters(ctx);
    return std::any_of(list.begin(), list.end(), [&](const std::string& c) {
      return section.starts_with(c) || (c == "mx" && section.starts_with("quantize.linear.mx"));
    });
  }
  const entry* enable = ctx.find(section + ".enable");
  bool on = false;
  return enable != nullptr && parse_bool_text(enable->value.text, on).empty() && on;
}

// [compile] enable: torchtitan compiles each transformer block when "model" is among the
// components and the loss (components/loss.py, build_cross_entropy_loss) when "loss" is; its
// default is both.
bool compiles(const import_context& ctx, const std::string& component) {
  if (ctx.find("compile.components") == nullptr) return true;
  const auto items = items_of(ctx, "compile.components");
  return std::find(items.begin(), items.end(), component) != items.end();
}

std::string set_compile_components(import_context& ctx, const entry& e) {
  return set_compile(ctx, e, compiles(ctx, "model") ? "true" : "false",
                     compiles(ctx, "loss") ? "true" : "false");
}

// A switch's value into `on`: "" or the problem. A switch that is off has no effect (ignored).
std::string read_switch_on(import_context& ctx, const entry& e, bool& on) {
  if (auto problem = parse_bool_text(e.value.text, on); !problem.empty())
    return fmt::format("{}: {}", e.key, problem);
  if (!on) ctx.ignore(e);
  return "";
}

std::string read_compile(import_context& ctx, const entry& e) {
  bool on = false;
  if (auto problem = read_switch_on(ctx, e, on); !problem.empty() || !on) return problem;
  if (e.key == "training.compile")
    ctx.note(e, "training.compile: torchtitan compiles the loss with the blocks since early 2025, "
                "before that only the blocks (then set training.compile_loss=false)");
  return set_compile_components(ctx, e);
}

std::string read_compile_components(import_context& ctx, const entry& e) {
  if (!section_on(ctx, "compile")) {
    ctx.ignore(e);
    return "";
  }
  return set_compile_components(ctx, e);
}

// Only inductor fuses; another backend (aot_eager, cudagraphs) is not modelled.
std::string read_compile_backend(import_context& ctx, const entry& e) {
  if (!section_on(ctx, "compile") || lower_case(e.value.text) == "inductor") {
    ctx.ignore(e);
    return "";
  }
  return other_compile_backend(ctx, e);
}

action not_modelled_when_on(const std::string& section, const std::string& reason) {
  const action when_on = not_modelled(reason);
  return custom([section, when_on](import_context& ctx, const entry& e) {
    // quantize.* options belong to the converter section their key names.
    const std::string owner = section == "quantize" ? e.key.substr(0, e.key.rfind('.')) : section;
    if (!section_on(ctx, owner)) {
      ctx.ignore(e);
      return std::string();
    }
    return when_on.apply(ctx, e);
  });
}

// Expert tensor parallelism acts only beside expert parallelism (JobConfig: "1 means disabled.
// No effect for non-MoE models, or when ep = 1"), and torchtitan takes only two values
// (ParallelDims, aeb3a4baf 2025-08 to c4b409af2 2026-04, which keeps only the second layout):
// expert_tensor_parallel_degree = tp ("partial dp -> ep": the routed experts split over the
// tensor-parallel ranks as every other block weight, ep taken from dp_shard x cp); and 1 with
// tp > 1 ("partial dp + all tp -> ep": ep divides dp_shard x cp x tp, each expert whole on its
// rank), its default. Both are parallel.etp.
// A parallel degree as the file writes it, 1 when absent.
long long degree_of(const entry* d) {
  long long value = 1;
  if (d != nullptr) std::istringstream(d->value.text) >> value;
  return value;
}

std::string read_expert_tensor_parallel(import_context& ctx, const entry& e) {
  const long long etp = degree_of(&e);
  const long long ep = degree_of(ctx.find("parallelism.expert_parallel_degree"));
  const long long tp = degree_of(ctx.find("parallelism.tensor_parallel_degree"));
  if (ep <= 1 || (etp == 1 && tp <= 1)) {
    ctx.ignore(e);
    return std::string();
  }
  if (etp != tp && etp != 1)
    return fmt::format("parallelism.expert_tensor_parallel_degree: {} with tensor_parallel_degree "
                       "{}: torchtitan takes only 1 or the tensor-parallel degree (ParallelDims: "
                       "\"Currently we only support ETP=TP or ETP=1\"); give one of them",
                       e.value.text, tp);
  return ctx.set("parallel.etp", std::to_string(etp), e);
}

// optimizer.early_step_in_backward: one optimizer per parameter, stepped in its
// post-accumulate-grad hook, which frees the gradient (torchtitan components/optimizer.py,
// OptimizersInBackwardContainer), the mechanism of torchtune's optimizer_in_bwd. build_optimizers
// raises NotImplementedError beside expert or pipeline parallelism.
std::string read_early_step_in_backward(import_context& ctx, const entry& e) {
  bool on = false;
  if (auto problem = read_switch_on(ctx, e, on); !problem.empty() || !on) return problem;
  for (const auto& [key, what] : {std::pair{"parallelism.expert_parallel_degree", "Expert"},
                                  std::pair{"parallelism.pipeline_parallel_degree", "Pipeline"}}) {
    const entry* d = ctx.find(key);
    if (degree_of(d) > 1)
      return fmt::format(
          "{}: true with {} {}: torchtitan's build_optimizers raises "
          "NotImplementedError (\"Optimizers in backward is not supported with {} "
          "Parallel.\"); set it false or the degree to 1",
          e.key, key, d->value.text, what);
  }
  return ctx.set("optimizer.in_backward", "true", e);
}

// The weights of the embedding and the output in torchtitan's stage split
// (pipeline_parallel.py, pipeline_llm and generate_llm_fqn_per_model_part): vramscope's split
// counts each as one block, torchtitan's default; another weight is not modelled.
std::string read_stage_weight(import_context& ctx, const entry& e) {
  if (e.value.text == "1") {
    ctx.ignore(e);
    return "";
  }
  return not_modelled("a stage split weighing the embedding or the output other than one block")
      .apply(ctx, e);
}

// An on/off option whose "on" changes memory in a way not modelled: off (or unreadable as a
// switch, left for the field-less key to say nothing of) it has no effect.
action not_modelled_if_true(const std::string& reason) {
  const action when_on = not_modelled(reason);
  return custom([when_on](import_context& ctx, const entry& e) {
    bool on = false;
    if (!parse_bool_text(e.value.text, on).empty() || !on) {
      ctx.ignore(e);
      return std::string();
    }
    return when_on.apply(ctx, e);
  });
}

// The optimizer torchtitan's optimizer.name builds, lower-cased ("" before the file is read).
std::string optimizer_name(const import_context& ctx) {
  const entry* e = ctx.find("optimizer.name");
  return e == nullptr ? "adamw" : lower_case(e->value.text);
}

bool muon_or_dion(const std::string& name) {
  return name == "dion" || name == "muon" || name == "distmuon";
}

// optimizer.name. torchtitan builds Adam and AdamW (components/optimizer.py, build_optimizers;
// any other name raises NotImplementedError), and main from 2026-06 DistMuon; the branches of
// pull/1521 (5e60eac3d) and pull/1584 (fcac4434b), and forks that merged them (efa84766c), also
// Dion and Muon (torchtitan/experiments/dion_optimizer). Each is planned by the state its source
// keeps; a name none of them builds (a fork's own optimizer) is planned as AdamW, noted.
std::string read_optimizer_name(import_context& ctx, const entry& e) {
  const std::string v = lower_case(e.value.text);
  if (v == "adamw" || v == "adam") return ctx.set("optimizer.name", v, e);
  if (v == "dion") {
    // dion.py, _init_opt_state_dion: a momentum buffer the weight's size and a Q matrix of
    // rank_fraction x min(m, n) columns for each weight matrix; AdamW's or Lion's state for the
    // scalars, embedding and output.
    const entry* fraction = ctx.find("optimizer.rank_fraction");
    ctx.note(e, fmt::format("Dion keeps a momentum buffer and a low-rank Q of rank_fraction ({}) "
                            "x min(m, n) columns a weight matrix: planned as AdamW's two buffers "
                            "a parameter, which Dion reaches at rank_fraction 1 (high below it)",
                            fraction != nullptr ? fraction->value.text : "1.0, the default"));
    return ctx.set("optimizer.name", "adamw", e);
  }
  if (v == "muon" || v == "distmuon") {
    // muon.py: one momentum buffer a weight matrix; the parameters the file gives to another
    // optimizer (scalars, embedding, output, and on later branches experts and routers) keep
    // that one's state: AdamW (the default) two buffers, Lion one.
    std::vector<std::string> adamw;
    for (const char* part : {"scalar", "embedding", "head", "expert", "routing"}) {
      const entry* other = ctx.find(fmt::format("optimizer.{}_optimizer", part));
      const bool default_adamw = std::string_view(part) != "expert" &&
                                 std::string_view(part) != "routing";
      if (other != nullptr ? lower_case(other->value.text) == "adamw" : default_adamw)
        adamw.push_back(part);
    }
    ctx.note(e, adamw.empty()
                    ? std::string("Muon keeps one momentum buffer a parameter (Lion for the "
                                  "others the file names): planned as SGD with momentum")
                    : fmt::format("Muon keeps one momentum buffer a weight matrix, planned as SGD "
                                  "with momentum; the {} parameters take AdamW, whose second "
                                  "buffer the plan leaves out (low by that much)",
                                  fmt::join(adamw, ", ")));
    return ctx.set("optimizer.name", "sgd_momentum", e);
  }
  ctx.note(e, fmt::format("optimizer \"{}\" is built by no torchtitan release or branch vramscope "
                          "knows (Adam, AdamW; Dion, Muon, DistMuon): its state is planned as "
                          "AdamW's two buffers a parameter; set optimizer.name for another",
                          e.value.text));
  return ctx.set("optimizer.name", "adamw", e);
}

std::string dtype_name(const std::string& torch_name) {
  const std::string v = lower_case(torch_name);
  if (v == "float32" || v == "fp32") return "fp32";
  if (v == "bfloat16" || v == "bf16") return "bf16";
  if (v == "float16" || v == "fp16") return "fp16";
  return "";
}

// optimizer.state_dtype (efa84766c, pull/2627): the dtype of Adam / AdamW's exp_avg and
// exp_avg_sq, "float32" or "bfloat16"; other optimizers ignore it.
std::string read_state_dtype(import_context& ctx, const entry& e) {
  const std::string d = dtype_name(e.value.text);
  if (d != "fp32" && d != "bf16")
    return fmt::format("{}: invalid value \"{}\" (expected one of: float32, bfloat16)", e.key,
                       e.value.text);
  const std::string name = optimizer_name(ctx);
  if (name != "adam" && name != "adamw") {
    ctx.note(e, "optimizer.state_dtype applies to Adam and AdamW only; ignored");
    return "";
  }
  return ctx.set("optimizer.state", d, e);
}

// optimizer.momentum_dtype: the dtype of Dion's and Muon's momentum (their mixed-precision
// config; None keeps the parameter's). Read as the optimizer state's dtype under them.
std::string read_momentum_dtype(import_context& ctx, const entry& e) {
  if (!muon_or_dion(optimizer_name(ctx)) || e.value.text.empty()) {
    ctx.ignore(e);
    return "";
  }
  const std::string d = dtype_name(e.value.text);
  if (d.empty())
    return fmt::format("{}: invalid value \"{}\" (expected one of: float32, bfloat16, float16)",
                       e.key, e.value.text);
  return ctx.set("optimizer.state", d, e);
}

// optimizer.implementation "fused_opt_states_bf16" (main, 0610235bb, 2026-04): the fused
// Adam / AdamW kernel with bf16 exp_avg and exp_avg_sq.
std::string read_implementation_or_bf16_states(import_context& ctx, const entry& e) {
  if (lower_case(e.value.text) != "fused_opt_states_bf16") return read_implementation(ctx, e);
  if (auto problem = ctx.set("optimizer.fused", "true", e); !problem.empty()) return problem;
  if (auto problem = ctx.set("optimizer.foreach", "false", e); !problem.empty()) return problem;
  return ctx.set("optimizer.state", "bf16", e);
}

// Sections that hold mapped keys list their other keys one by one, so that a mistyped key is
// reported as unknown rather than swallowed by a wildcard.
const std::vector<option>& torchtitan_table() {
  static const std::vector<option> table = [] {
    std::vector<option> rows{
        {"model.name", handled()},
        {"model.flavor", handled()},
        {"hf_transformers.model", handled()},
        {"model.converters", custom(read_converters)},
        {"training.local_batch_size", maps_to("training.micro_batch")},
        {"training.batch_size", handled()},  // read_batch_size
        {"training.seq_len", maps_to("training.seq_len")},
        {"training.mixed_precision_param", maps_to("precision.params")},
        {"training.mixed_precision_reduce", maps_to("precision.reduce")},
        {"training.enable_cpu_offload", maps_to("parallel.cpu_offload")},
        // Saved activations to host memory in forward, back before backward: ActivationCheckpoint
        // cpu_offload (pull/2261's job_config.py; configs.py at 54eee3878, 2026-03-05) and
        // TrainingConfig enable_activation_offload (configs.py at 2fe658bad, 2026-03-15).
        {"activation_checkpoint.cpu_offload", maps_to("training.activation_offloading")},
        {"training.enable_activation_offload", maps_to("training.activation_offloading")},
        // A branch's partial offload (73b15ab3b, 2025-08-26: offloading.mode "multistream"
        // offloads offload_ratio of each block's saved tensors).
        {"offloading.mode", custom([](import_context& c, const entry& e) {
           if (lower_case(e.value.text) != "multistream") {  // the only mode the blocks read
             c.ignore(e);
             return std::string();
           }
           return not_modelled("activation offload of a fraction (offloading.offload_ratio) of "
                               "each block's saved tensors").apply(c, e);
         })},
        {"offloading.offload_ratio", handled()},
        {"training.global_batch_size", not_modelled("gradient accumulation; set "
                                                    "training.gradient_accumulation")},
        {"training.compile", custom(read_compile)},
        // 2024: float8 linears switched on by training.fp8_linear ("" off, "dynamic" or
        // "delayed" scaling) and later training.enable_fp8_linear.
        {"training.fp8_linear", custom(read_legacy_fp8_linear)},
        {"training.enable_fp8_linear", custom(read_legacy_fp8_linear)},
        {"training.enable_float8_linear", custom(read_legacy_fp8_linear)},
        {"training.enable_fsdp_fp8_all_gather", custom(read_legacy_float8_all_gather)},
        {"training.enable_fsdp_float8_all_gather", custom(read_legacy_float8_all_gather)},
        // Other 2024 [training] and [model] options (torchtrain/config_manager.py and
        // torchtitan/config_manager.py, 2024-02 to 2025-04).
        {"training.enable_selective_ac", custom(read_enable_selective_ac)},
        {"training.data_parallel_type", custom(read_data_parallel_type)},
        {"training.disable_loss_parallel",
         maps_with("parallel.loss_parallel", {{"true", "false"}, {"false", "default"}})},
        {"training.fsdp_reshard_after_forward",
         maps_with("parallel.reshard_after_forward",
                   {{"default", "true"}, {"always", "true"}, {"never", "false"}})},
        {"optimizer.fused", maps_to("optimizer.fused")},
        {"parallelism.pipeline_parallel_microbatches", handled()},  // read_pipeline
        {"model.use_flex_attn", not_modelled_if_true("FlexAttention")},
        {"parallelism.data_parallel_shard_degree", handled()},
        {"parallelism.data_parallel_replicate_degree", handled()},
        {"parallelism.tensor_parallel_degree", handled()},
        {"parallelism.pipeline_parallel_degree", handled()},
        {"parallelism.pipeline_parallel_schedule", handled()},
        {"parallelism.pipeline_parallel_microbatch_size", handled()},
        {"parallelism.context_parallel_degree", handled()},
        {"parallelism.fsdp_reshard_after_forward",
         maps_with("parallel.reshard_after_forward",
                   {{"default", "true"}, {"always", "true"}, {"never", "false"}})},
        {"parallelism.enable_async_tensor_parallel", maps_to("parallel.async_tp")},
        {"parallelism.disable_loss_parallel",
         maps_with("parallel.loss_parallel", {{"true", "false"}, {"false", "default"}})},
        {"parallelism.enable_compiled_autograd", not_modelled("compiled autograd")},
        {"parallelism.expert_parallel_degree", handled()},
        {"parallelism.pipeline_parallel_layers_per_stage", maps_to("parallel.pp_layers_per_stage")},
        {"parallelism.pipeline_parallel_first_stage_less_layers", custom(read_stage_weight)},
        {"parallelism.pipeline_parallel_last_stage_less_layers", custom(read_stage_weight)},
        {"parallelism.expert_tensor_parallel_degree", custom(read_expert_tensor_parallel)},
        {"activation_checkpoint.mode", handled()},
        {"activation_checkpoint.selective_ac_option", handled()},
        {"activation_checkpoint.memory_budget", not_modelled("memory-budget checkpointing")},
        {"optimizer.name", custom(read_optimizer_name)},
        {"optimizer.implementation", custom(read_implementation_or_bf16_states)},
        {"optimizer.state_dtype", custom(read_state_dtype)},
        {"optimizer.momentum_dtype", custom(read_momentum_dtype)},
        // Dion's and Muon's other state dtypes and shapes (the dion_optimizer branches).
        {"optimizer.Q_dtype", not_modelled("the dtype of Dion's low-rank Q")},
        {"optimizer.variance_dtype", not_modelled("the dtype of Dion's AdamW variance")},
        {"optimizer.rank_fraction", no_effect()},  // read by read_optimizer_name's note
        {"optimizer.rank_multiple_of", no_effect()},
        {"optimizer.scalar_optimizer", no_effect()},  // these five: read_optimizer_name's note
        {"optimizer.embedding_optimizer", no_effect()},
        {"optimizer.head_optimizer", no_effect()},
        {"optimizer.expert_optimizer", no_effect()},
        {"optimizer.routing_optimizer", no_effect()},
        {"optimizer.early_step_in_backward", custom(read_early_step_in_backward)},
        // [checkpoint] enable (enable_checkpoint before 2025-06): torch.distributed.checkpoint
        // saves, each rank writing its own shards.
        {"checkpoint.enable_checkpoint",
         maps_with("checkpoint.save", {{"true", "sharded"}, {"false", "none"}})},
        {"checkpoint.enable",
         maps_with("checkpoint.save", {{"true", "sharded"}, {"false", "none"}})},
        {"compile.enable", custom(read_compile)},
        {"compile.components", custom(read_compile_components)},
        {"compile.backend", custom(read_compile_backend)},
        {"compile.*",
         not_modelled_when_on("compile", "a torch.compile option vramscope does not know")},
        {"quantize.linear.float8.*", custom(read_float8_option)},
        {"float8.*", custom(read_float8_option)},
        {"quantize.*",
         not_modelled_when_on(
             "quantize",
             "MX formats and float8 grouped GEMMs change weight and activation dtypes")},
        {"mx.*", not_modelled("MX formats")},
        {"experimental.*", not_modelled("experimental features")},
        {"validation.*", not_modelled_when_on("validation", "validation passes")},
        {"fault_tolerance.*", not_modelled("fault-tolerant replica groups")},
        // The 2024 layout's [training] degrees, read as their [parallelism] names by
        // read_legacy_layout (a file that has both keeps the [parallelism] one).
        {"training.data_parallel_degree", no_effect()},
        {"training.sequence_parallel_degree", no_effect()},
        {"training.data_parallel_shard_degree", no_effect()},
        {"training.data_parallel_replicate_degree", no_effect()},
        {"training.enable_async_tensor_parallel", no_effect()},
        {"training.pipeline_parallel_schedule", no_effect()},
        {"training.pipeline_parallel_microbatch_size", no_effect()},
        {"training.pipeline_parallel_split_points", no_effect()},
        {"training.context_parallel_degree", no_effect()},
        {"training.context_parallel_rotate_method", no_effect()},
        {"training.expert_parallel_degree", no_effect()},
        {"training.tensor_parallel_degree", no_effect()},
        {"training.pipeline_parallel_degree", no_effect()},
        {"training.enable_loss_parallel", maps_to("parallel.loss_parallel")},
        {"training.dtype", custom(read_training_dtype)},
        {"training.dataloader.*", no_effect()},
        {"parallelism.pipeline_parallel_expert_parallel_overlap",
         not_modelled("pipeline stages overlapping expert all-to-alls")},
        {"parallelism.context_parallel_load_balancer", no_effect()},
        {"parallelism.expert_parallel_comm_backend",
         not_modelled("the all-to-all library's buffers (DeepEP)")},
        {"debug.moe_force_load_balance", not_modelled("tokens routed to experts evenly")},
        // pull/2078's name for it (torchtitan/config/job_config.py at 8703ffce, [training]).
        {"training.debug_moe_force_load_balance",
         not_modelled_if_true("tokens routed to experts evenly")},
        {"debug.*", no_effect()},
        // Options of branches and forks (tests/data/options/torchtitan_options.txt names them).
        {"training.skip_optimizer_step",
         not_modelled_if_true("no optimizer step, so no optimizer state")},
        {"training.clear_cache_between_steps",
         not_modelled_if_true("the cache emptied between steps (reserved memory)")},
        {"training.aggressive_memory_mode",
         not_modelled("the cache emptied at points of the step (reserved memory)")},
        {"parallelism.fsdp_disable_prefetch",
         not_modelled_if_true("FSDP gathering one unit at a time, without prefetch")},
        {"parallelism.enable_fsdp_symm_mem",
         not_modelled_if_true("FSDP's buffers in symmetric memory")},
        // Sequence parallelism beside TP (read_parallelism turns it on with TP); off, TP's
        // activations stay whole on every rank.
        {"parallelism.enable_sequence_parallel", custom([](import_context& ctx, const entry& e) {
           bool on = true;
           if (auto problem = parse_bool_text(e.value.text, on); !problem.empty())
             return fmt::format("{}: {}", e.key, problem);
           if (on || ctx.out.job.parallel.tp == 1) {
             ctx.ignore(e);
             return std::string();
           }
           return ctx.set("parallel.sequence_parallel", "false", e);
         })},
        {"parallelism.num_pp_microbatches",
         not_modelled("a pipeline micro-batch count given directly")},
        {"compile.enable_async_tensor_parallel", maps_to("parallel.async_tp")},
        {"training.num_tokens_per_microbatch_per_dp_rank",
         not_modelled("a micro-batch given in tokens; set training.micro_batch")},
        {"training.max_context_length",
         not_modelled("the sequence length under its newer name; set training.seq_len")},
        {"training.data_stages", not_modelled("data stages, each with its own sequence length")},
        {"training.data_stages.*", not_modelled("data stages, each with its own sequence length")},
        // pull/2247's [peft] (read_peft); another fork's peft options stay not modelled.
        {"peft.enable_peft", handled()},
        {"peft.use_lora", handled()},
        {"peft.lora_rank", handled()},
        {"peft.lora_alpha", handled()},
        {"peft.lora_dropout", handled()},
        {"peft.lora_train_norm", handled()},
        {"peft.train_embeddings", handled()},
        {"peft.train_output_layer", handled()},
        {"peft.layers_to_train", handled()},
        {"peft.*", not_modelled("the fork's LoRA fine-tuning (peft)")},
        {"grpo.*", not_modelled("GRPO training (a reference model and rollouts)")},
        {"deepep.*", not_modelled("the all-to-all library's buffers (DeepEP)")},
        {"llep.*", not_modelled("least-loaded expert parallelism")},
        {"optimizer.muon_split", no_effect()},
    };
    for (auto&& more :
         {ignored("model",
                  {"tokenizer_path", "hf_assets_path", "print_after_conversion", "norm_type"}),
          ignored("training",
                  {"dataset", "dataset_path", "max_norm", "steps", "warmup_steps", "gc_freq",
                   "gc_debug", "seed", "deterministic", "deterministic_warn_only"}),
          ignored("parallelism",
                  {"pipeline_parallel_schedule_csv", "pipeline_parallel_split_points",
                   "module_fqns_per_model_part", "context_parallel_rotate_method"}),
          ignored("activation_checkpoint", {"preserve_rng_state", "determinism_check", "debug",
                                            "early_stop", "visualize_memory_budget_pareto",
                                            "per_op_sac_force_recompute_mm_shapes_by_fqns"}),
          ignored("optimizer", {"lr", "eps", "beta1", "beta2", "weight_decay"}),
          // The dion_optimizer branches' step sizes and orthogonalisation (no state of their own).
          ignored("optimizer", {"mu", "algorithm", "power_iters", "qr_method",
                                "cqr_warmup_steps", "rcqr_oversample", "replicate_mesh_grad_sync",
                                "scalar_lr_factor", "embedding_lr_factor", "head_lr_factor",
                                "head_lr_scaling", "expert_lr_factor", "routing_lr_factor",
                                "nesterov", "adjust_lr", "flatten", "use_triton"}),
          ignored("training", {"dataset_type", "dataset_folders", "dataset_weights",
                               "dataset_random_seed", "epochs", "target_tokens",
                               "enable_detailed_memory_tracking", "aggressive_memory_verbose",
                               "num_tokens_per_train_step", "disable_cuda_graphs"}),
          ignored("parallelism", {"spmd_backend", "context_parallel_ptrr_mask_key"}),
          // 2024's: checkpoints and the learning rate under [training], delayed or dynamic
          // float8 scaling (an amax history of a few floats a weight), the memory estimator.
          ignored("training", {"checkpoint_folder", "checkpoint_interval",
                               "checkpoint_interval_type", "warmup_pct",
                               "precompute_float8_dynamic_scale_for_fsdp",
                               "float8_scaling_type_input", "float8_scaling_type_weight",
                               "float8_scaling_type_grad_output"}),
          ignored("model", {"attn_mask_type"}), ignored("estimate", {"memory", "mode"})})
      rows.insert(rows.end(), more.begin(), more.end());
    for (const char* section : {"checkpoint.*", "job.*", "lr_scheduler.*", "metrics.*",
                                "profiling.*", "comm.*", "memory_estimation.*"})
      rows.push_back({section, no_effect()});
    return rows;
  }();
  return table;
}

}  // namespace

const std::vector<option>& torchtitan_options() { return torchtitan_table(); }

// torchtitan takes the model's shapes from the flavor's ModelArgs and the vocabulary from the
// tokenizer (train.py: model_args.update_from_config(job_config, tokenizer)); no release has an
// option for them. A key of no release whose last part names one of those dimensions
// (gpt-neuro's [training] vocab_size, which its train.py writes into model_config) is a fork's
// code resizing the model: the flavor's shapes are not the model trained.
std::optional<diagnostic> fork_shape_option(import_context& ctx) {
  static constexpr std::string_view dimensions[] = {"vocab_size",
                                                    "n_layers",
                                                    "num_layers",
                                                    "dim",
                                                    "n_heads",
                                                    "n_kv_heads",
                                                    "hidden_dim",
                                                    "multiple_of",
                                                    "ffn_dim_multiplier",
                                                    "hidden_size",
                                                    "num_attention_heads",
                                                    "intermediate_size",
                                                    "num_hidden_layers"};
  const auto& table = torchtitan_options();
  const entry* first = nullptr;  // the first in the file
  for (const auto& e : ctx.entries) {
    const std::string leaf = e.key.substr(e.key.rfind('.') + 1);
    if (std::find(std::begin(dimensions), std::end(dimensions), leaf) == std::end(dimensions))
      continue;
    if (std::any_of(table.begin(), table.end(),
                    [&](const option& o) { return option_matches(o.key, e.key); }))
      continue;
    if (first == nullptr || e.where.line < first->where.line) first = &e;
  }
  if (first != nullptr) {
    const entry& e = *first;
    return at(e.where,
              fmt::format("{} is no option of any torchtitan release (the flavor gives the "
                          "model's shapes, the tokenizer its vocabulary): a fork's, whose code "
                          "sets that dimension of the model, so the model trained is not the "
                          "flavor's; plan it with --set model=PATH/config.json (a Hugging Face "
                          "config of the fork's shapes)",
                          e.key));
  }
  return std::nullopt;
}

}  // namespace detail

result<imported_job> import_torchtitan(std::string_view text, const std::string& source) {
  toml::table root;
  try {
    root = toml::parse(text, std::string_view(source));
  } catch (const toml::parse_error& e) {
    const auto begin = e.source().begin;
    return detail::with_remedy(
        detail::at(detail::location(source, text, static_cast<int>(begin.line),
                                    static_cast<int>(begin.column)),
                   "toml syntax error: " + std::string(e.description())),
        detail::syntax_remedy);
  }
  detail::import_context ctx("torchtitan", source);
  detail::flatten(root, "", ctx, text);
  const bool legacy_layout = detail::read_legacy_layout(ctx);
  // The GRPO branch's [grpo] table: reinforcement learning, rollouts served by inference
  // engines elsewhere and a reference policy kept beside the trained one (ref_model_ema), more
  // than one model's state on the GPUs, which one plan does not hold.
  for (const auto& [key, where] : ctx.sections) {
    if (key == "grpo")
      return detail::at(where, "[grpo]: GRPO training keeps a reference policy beside the one it "
                               "trains; remove the [grpo] table to plan the policy's training "
                               "alone, and add the reference policy's weights");
    // torchtitan's RL experiment (experiments/rl/unified/job_config.py, Generate; pull/2395):
    // [generation] configures a vLLM generator that simple_grpo.py puts on the trainer's own
    // GPUs, a second copy of the model and its KV cache in gpu_memory_utilization of each GPU.
    if (key == "generation") {
      const detail::entry* share = ctx.find("generation.gpu_memory_utilization");
      return detail::at(
          where,
          fmt::format("[generation]: a vLLM generator beside the trainer on the same GPUs "
                      "(a second copy of the model and its KV cache{}), two models in one "
                      "job; vramscope plans one trained model: remove the [generation] "
                      "table to plan the trainer alone, with --set hardware.gpu_memory= "
                      "the memory the generator leaves it",
                      share != nullptr ? fmt::format(", in gpu_memory_utilization {} of each GPU, "
                                                     "line {}",
                                                     share->value.text, share->where.line)
                                       : std::string()));
    }
  }
  bool has_world_size = false;
  if (auto err = detail::fork_shape_option(ctx)) return *err;
  if (auto err = detail::read_model(ctx)) return *err;
  if (auto err = detail::read_peft(ctx)) return *err;
  // A model no preset has is refused at its lines before any check of the layout or of an
  // option whose answer would not matter without the model; but not before a contradiction
  // torchtitan itself raises at start (ctx.framework_refuses), which fails the run as written.
  const auto model_first = [&](const diagnostic& err) {
    if (ctx.framework_refuses) return err;
    return detail::unknown_model(ctx).value_or(err);
  };
  if (auto err = detail::read_parallelism(ctx, has_world_size)) return model_first(*err);
  if (auto err = detail::read_checkpointing(ctx)) return model_first(*err);
  if (auto err = detail::read_float8(ctx)) return model_first(*err);
  if (auto err = detail::read_batch_size(ctx)) return model_first(*err);
  if (auto err = detail::apply_options(ctx, detail::torchtitan_table())) return model_first(*err);
  if (auto err = detail::read_pipeline(ctx)) return model_first(*err);
  detail::read_precision_without_fsdp(ctx, legacy_layout);
  ctx.out.job.training.loss = loss_impl::torchtitan;  // torchtitan's own training step
  // Async TP is applied inside parallelize's `if parallel_dims.tp_enabled:` in every release
  // (torchtitan/parallelisms/parallelize_llama.py at 2024-10, maybe_enable_async_tp later): with
  // one tensor-parallel rank the flag changes nothing.
  if (ctx.out.job.parallel.async_tp && ctx.out.job.parallel.tp <= 1) {
    ctx.out.job.parallel.async_tp = false;
    const std::string why = "async tensor parallelism with one tensor-parallel rank: torchtitan applies it "
                            "only where tensor parallelism is on, so it changes nothing here";
    const detail::entry* e = ctx.find("parallelism.enable_async_tensor_parallel");
    if (e == nullptr) e = ctx.find("compile.enable_async_tensor_parallel");
    if (e != nullptr)
      ctx.note(*e, why);
    else
      ctx.note(why);
  }
  // torchtitan's collectives never record streams: its init_distributed set
  // TORCH_NCCL_AVOID_RECORD_STREAMS=1 from 2024-04 (torchtitan/utils.py at 9dec370) until
  // torchtitan#1088 (2025-04) removed it because torch had made stashing the default (2.8).
  if (detail::version_key(ctx.out.job.framework.version) < 208)
    ctx.out.job.env.emplace("TORCH_NCCL_AVOID_RECORD_STREAMS", "1");
  auto job = detail::finish(ctx, has_world_size);
  if (!job) return model_first(job.error());  // the job's own checks (the layout's degrees)
  return job;
}

}  // namespace vramscope::job
