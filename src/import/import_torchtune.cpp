// torchtune recipe configs: the YAML files under torchtune's recipes/configs/ (for example
// llama3_1/8B_lora_single_device.yaml) that `tune run RECIPE --config FILE` reads.
// model._component_ names the model builder (torchtune/models/<family>/_model_builders.py:
// llama3_1_8b, lora_llama3_1_8b, qlora_llama3_1_8b, ...) and its LoRA arguments; the top-level
// keys of the recipes (recipes/full_finetune_single_device.py, lora_finetune_distributed.py,
// ...) give the batch, accumulation, dtype, checkpointing and the memory features. Which
// recipe runs the file, and on how many GPUs, is chosen on the `tune run` command line: a file
// with fsdp_* keys is a distributed config (FSDP2), any other a single-device one.
#include <vramscope/import/importers.hpp>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>

#include <vramscope/model/catalog.hpp>
#include <vramscope/model/modules.hpp>

#include "import/import_common.hpp"
#include "job/source_text.hpp"

namespace vramscope::job {

namespace detail {

namespace {

// The arguments of torchtune's component builders (models/<family>/_component_builders.py:
// llama2, llama3, llama3_1, mistral, qwen2 ...), which a config may call with a model's shape.
constexpr const char* shape_arguments[] = {
    "model.vocab_size", "model.num_layers",  "model.num_heads",          "model.num_kv_heads",
    "model.embed_dim",  "model.max_seq_len", "model.intermediate_dim",   "model.attn_dropout",
    "model.norm_eps",   "model.rope_base",   "model.tie_word_embeddings"};

// A component builder called with the model's shape: the Hugging Face config.json of the same
// tensors (llama's, qwen2's with its q/k/v biases), inline. torchtune's llama2 and llama3
// builders size the MLP as scale_hidden_dim_for_mlp(embed_dim) when intermediate_dim is absent:
// 8 x embed_dim / 3 rounded up to a multiple of 256 (models/llama2/_model_utils.py).
maybe_error read_component_model(import_context& ctx, const entry& e, const std::string& builder) {
  static constexpr std::pair<std::string_view, std::string_view> families[] = {
      {"llama2", "llama"},      {"llama3", "llama"},  {"llama3_1", "llama"}, {"llama3_2", "llama"},
      {"code_llama2", "llama"}, {"mistral", "llama"}, {"qwen2", "qwen2"},    {"qwen2_5", "qwen2"}};
  const auto family = std::find_if(std::begin(families), std::end(families),
                                   [&](const auto& f) { return f.first == builder; });
  if (family == std::end(families)) {
    if (const entry* shape = ctx.find("model.num_layers"))
      return at(shape->where, fmt::format("model._component_ {} is called with a model's shape, "
                                          "which vramscope reads for the llama2, llama3, "
                                          "llama3_1, llama3_2, mistral and qwen2 builders only; "
                                          "plan it with --set model=PATH/config.json",
                                          e.value.text));
    return std::nullopt;
  }
  maybe_error error;
  const auto number = [&](const char* key, std::optional<long long> fallback) -> long long {
    const entry* a = ctx.find(key);
    if (a == nullptr) {
      if (!fallback && !error)
        error = at(e.where, fmt::format("{} is called without {}, which the builder needs",
                                        e.value.text, key));
      return fallback.value_or(0);
    }
    char* end = nullptr;
    const long long v = std::strtoll(a->value.text.c_str(), &end, 10);
    // A null (empty) value is what the recipe sets when it runs (a vocabulary grown by added
    // tokens): the builder needs the number.
    if ((a->value.text.empty() || *end != '\0' || v < 1 || v > (1LL << 32)) && !error)
      error = at(a->where,
                 a->value.text.empty()
                     ? fmt::format("{} is null: the builder needs the number, which the file "
                                   "leaves to the code that runs it; write it to plan it",
                                   key)
                     : fmt::format("{}: expected a whole number, got \"{}\"; write one to plan it",
                                   key, a->value.text));
    return v;
  };
  const long long layers = number("model.num_layers", std::nullopt);
  const long long heads = number("model.num_heads", std::nullopt);
  const long long dim = number("model.embed_dim", std::nullopt);
  const long long vocab = number("model.vocab_size", std::nullopt);
  const long long kv = number("model.num_kv_heads", heads);
  const long long positions = number("model.max_seq_len", 4096);
  const long long mlp = number("model.intermediate_dim", ((8 * dim / 3 + 255) / 256) * 256);
  if (error) return error;
  if (heads > 0 && (dim % heads != 0 || kv > heads || heads % kv != 0))
    return at(ctx.find("model.num_heads")->where,
              fmt::format("model.num_heads {} with num_kv_heads {} does not split embed_dim {}",
                          heads, kv, dim));
  const auto real = [&](const char* key, double fallback) -> double {
    const entry* a = ctx.find(key);
    if (a == nullptr || a->value.text.empty()) return fallback;
    char* end = nullptr;
    const double v = std::strtod(a->value.text.c_str(), &end);
    if ((*end != '\0' || !(v > 0)) && !error)
      error = at(a->where, fmt::format("{}: expected a positive number, got \"{}\"", key,
                                       a->value.text));
    return v;
  };
  const double eps = real("model.norm_eps", 1e-5);
  const double theta = real("model.rope_base", builder == "llama2" ? 10000.0 : 500000.0);
  if (error) return error;
  bool tied = builder == "llama3_2" || builder == "qwen2" || builder == "qwen2_5";
  if (const entry* t = ctx.find("model.tie_word_embeddings"))
    if (auto problem = parse_bool_text(t->value.text, tied); !problem.empty())
      return at(t->where, "model.tie_word_embeddings: " + problem);
  const std::string name = fmt::format("torchtune {} ({})", builder,
                                       std::filesystem::path(ctx.source).filename().string());
  auto& job = ctx.out.job;
  job.model = name;
  const auto key = [&](const char* k, const nlohmann::json& v, const char* from) {
    const entry* a = from != nullptr ? ctx.find(from) : nullptr;
    job.model_config.push_back({k, v.dump(), a != nullptr ? a->where : e.where});
  };
  job.model_config.clear();
  key("_name_or_path", name, nullptr);
  key("model_type", std::string(family->second), nullptr);
  key("vocab_size", vocab, "model.vocab_size");
  key("num_hidden_layers", layers, "model.num_layers");
  key("hidden_size", dim, "model.embed_dim");
  key("num_attention_heads", heads, "model.num_heads");
  key("num_key_value_heads", kv, "model.num_kv_heads");
  key("intermediate_size", mlp, "model.intermediate_dim");
  key("max_position_embeddings", positions, "model.max_seq_len");
  key("rms_norm_eps", eps, "model.norm_eps");
  key("rope_theta", theta, "model.rope_base");
  key("tie_word_embeddings", tied, "model.tie_word_embeddings");
  key("hidden_act", std::string("silu"), nullptr);
  job.provenance.set_at["model"] = e.where;
  for (const char* k : shape_arguments)
    if (const entry* a = ctx.find(k)) ctx.mapped_to(*a, "model");
  return std::nullopt;
}

// The checkpointer's model_type names the weight converter torchtune loads the checkpoint with
// (torchtune/training/checkpointing/_checkpointer.py: GEMMA2 -> gemma2_hf_to_tune, QWEN2 ->
// qwen2_hf_to_tune, LLAMA2/LLAMA3/LLAMA3_2/MISTRAL -> the Llama key mapping, ...; the ModelType
// enum of training/checkpointing/_utils.py), and so the family of the checkpoint's tensors. A
// builder of another family (models/<family>/) cannot take that state dict: load_state_dict
// fails on the keys or shapes, and which model the run means is not in the file. Families
// whose checkpoints share one layout are one class (torchtune's own qwen3 configs loaded
// Qwen3 checkpoints as QWEN2 before QWEN3 was added); REWARD and types not listed here are not
// compared.
maybe_error builder_against_checkpoint(import_context& ctx, const entry& builder) {
  const entry* type = ctx.find("checkpointer.model_type");
  const std::string& component = builder.value.text;
  if (type == nullptr || !component.starts_with("torchtune.models.")) return std::nullopt;
  const std::string rest = component.substr(std::string_view("torchtune.models.").size());
  const std::string family = rest.substr(0, rest.find('.'));
  static constexpr std::pair<std::string_view, std::string_view> builder_class[] = {
      {"llama2", "llama"},   {"llama3", "llama"},      {"llama3_1", "llama"}, {"llama3_2", "llama"},
      {"llama3_3", "llama"}, {"code_llama2", "llama"}, {"mistral", "llama"},  {"gemma", "gemma"},
      {"gemma2", "gemma2"},  {"qwen2", "qwen2"},       {"qwen2_5", "qwen2"},  {"qwen3", "qwen2"},
      {"phi3", "phi"},       {"phi4", "phi"}};
  static constexpr std::pair<std::string_view, std::string_view> type_class[] = {
      {"LLAMA2", "llama"},  {"LLAMA3", "llama"},  {"LLAMA3_2", "llama"}, {"MISTRAL", "llama"},
      {"GEMMA", "gemma"},   {"GEMMA2", "gemma2"}, {"QWEN2", "qwen2"},    {"QWEN3", "qwen2"},
      {"PHI3_MINI", "phi"}, {"PHI4", "phi"}};
  const auto class_of = [](const auto& table, std::string_view name) -> std::string_view {
    for (const auto& [key, value] : table)
      if (key == name) return value;
    return {};
  };
  const std::string_view of_builder = class_of(builder_class, family);
  const std::string_view of_type = class_of(type_class, type->value.text);
  if (of_builder.empty() || of_type.empty() || of_builder == of_type) return std::nullopt;
  const auto line = [](const entry& x) { return x.where.line; };
  return at(builder.where,
            fmt::format("model._component_ {} is a {} builder, while checkpointer.model_type {} "
                        "(line {}) loads a {} checkpoint, which that model cannot take: which "
                        "model the run trains is not in the file; make the builder and the "
                        "checkpoint one family (or plan with --set model=NAME)",
                        component, family, type->value.text, line(*type), of_type));
}

// A checkpoint folder that names an AWQ or GPTQ export (AutoAWQ's and AutoGPTQ's folders and
// Hub ids carry the method's name: "...-AWQ-4bit-g128-gemm", "...-GPTQ-Int4") holds packed
// integer tensors (qweight, qzeros, scales per linear). torchtune's HF checkpointer maps every key
// through convert_weights.hf_to_tune, whose get_mapped_key raises "Found unexpected key" on a
// name outside the bf16 model's map, and its builders have no such linears: the weights the run
// would train, and their dtype, are not what the model component says.
maybe_error quantized_checkpoint(import_context& ctx) {
  const entry* checkpointer = ctx.find("checkpointer._component_");
  const entry* dir = ctx.find("checkpointer.checkpoint_dir");
  if (checkpointer == nullptr || dir == nullptr ||
      !checkpointer->value.text.ends_with("HFCheckpointer"))
    return std::nullopt;
  std::string word;
  std::string method;
  for (const char c : dir->value.text + "/") {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      continue;
    }
    if (word == "awq" || word == "gptq") method = word;
    word.clear();
  }
  if (method.empty()) return std::nullopt;
  return at(dir->where,
            fmt::format("checkpointer.checkpoint_dir names a {} export ({}), whose packed "
                        "integer tensors (qweight, qzeros, scales) torchtune's {} cannot map "
                        "onto {} (hf_to_tune stops at the first such key); give the checkpoint "
                        "in the model's own dtype (the export's unquantized source) to plan it",
                        method == "awq" ? "AWQ" : "GPTQ", dir->value.text,
                        checkpointer->value.text.substr(checkpointer->value.text.rfind('.') + 1),
                        ctx.find("model._component_") != nullptr
                            ? ctx.find("model._component_")->value.text
                            : std::string("the model's builder")));
}

// model._component_: the preset, and LoRA / QLoRA from the builder's prefix.
maybe_error read_tune_model(import_context& ctx) {
  // Recipes that hold more than one model: knowledge distillation's frozen teacher
  // (recipes/knowledge_distillation_*.py, cfg.teacher_model) and PPO's policy, reference
  // policy, value and reward models (recipes/ppo_full_finetune_single_device.py,
  // cfg.policy_model, cfg.reward_and_value_model), and full DPO's and GRPO's frozen reference,
  // a second copy of the model loaded from cfg.ref_checkpointer (recipes/full_dpo_distributed.py,
  // dev/grpo_full_finetune_distributed.py; the LoRA DPO recipes disable the adapters instead and
  // hold one model). A plan holds one model; leaving the others out would undercount by their
  // weights and activations.
  // The refusal points at the section that names the other model (`ref_checkpointer:`), where
  // the file says there is one. The section may sit inside another: the asynchronous GRPO
  // recipe's reference model is `postprocessing.ref_checkpointer`
  // (dev/async_grpo_full_finetune_distributed.py).
  for (const char* name : {"teacher_model", "policy_model", "reward_and_value_model",
                           "ref_checkpointer"}) {
    const std::string tail = std::string(name) + "._component_";
    const auto found = std::find_if(ctx.entries.begin(), ctx.entries.end(), [&](const entry& x) {
      return x.key == tail || x.key.ends_with("." + tail);
    });
    if (found == ctx.entries.end()) continue;
    const entry* other = &*found;
    const std::string key = other->key.substr(0, other->key.size() - tail.size() + tail.find('.'));
    // A reference checkpointer beside a fine-tuning loss (a GRPO or DPO config turned into an SFT
    // one): the recipes that read ref_checkpointer train with their own losses (DPOLoss,
    // GRPO's), and the SFT recipes never read it.
    if (std::string_view(name) == "ref_checkpointer")
      if (const entry* loss = ctx.find("loss._component_");
          loss != nullptr && (loss->value.text.ends_with("CEWithChunkedOutputLoss") ||
                              loss->value.text.ends_with("LinearCrossEntropyLoss") ||
                              loss->value.text.ends_with("nn.CrossEntropyLoss"))) {
        ctx.note(*other, fmt::format("{}: beside the fine-tuning loss {} (line {}) the file runs "
                                     "a fine-tuning recipe, which never reads a reference "
                                     "model; ignored",
                                     key, loss->value.text, loss->where.line));
        continue;
      }
    diagnostic where = other->where;
    for (const auto& [section, at_section] : ctx.sections)
      if (section == key) where = at_section;
    return at(where,
              fmt::format("{}: this recipe holds several models (knowledge distillation's "
                          "teacher, PPO's policy, reference, value and reward models, DPO's and "
                          "GRPO's reference) and "
                          "vramscope plans one; plan each with its own job file (vramscope plan "
                          "JOB.yaml, or --from a config of one model) and add them up",
                          key));
  }
  // Any section whose _component_ is one of torchtune's model builders
  // (torchtune.models.<family>.<builder>) is a model the recipe instantiates: PPO's `policy`,
  // `value_model` and `reward_model` of the recipe's first drafts, a distillation's
  // `student_model` beside `model`. torchtune.models also holds the families' tokenizers,
  // transforms, token managers and tensor-parallel plans (llama3_tokenizer,
  // llama3_2_vision_transform, chameleon_token_manager, _parallelism.base_llama_tp_plan), which
  // are no model.
  std::vector<const entry*> models;
  for (const auto& x : ctx.entries) {
    if (!x.key.ends_with("._component_") || !x.value.text.starts_with("torchtune.models.") ||
        (x.key.starts_with("model.") && x.key != "model._component_"))
      continue;
    const std::string leaf = lower_case(x.value.text.substr(x.value.text.rfind('.') + 1));
    if (leaf.find("token") == std::string::npos && leaf.find("transform") == std::string::npos &&
        leaf.find("tp_plan") == std::string::npos &&
        x.value.text.find("._parallelism.") == std::string::npos &&
        x.value.text.find("._convert") == std::string::npos)
      models.push_back(&x);
  }
  if (models.size() > 1) {
    std::vector<std::string> names;
    for (const entry* m : models) names.push_back(m->key.substr(0, m->key.rfind('.')));
    const entry* other = models.front()->key == "model._component_" ? models[1] : models.front();
    const std::string key = other->key.substr(0, other->key.rfind('.'));
    diagnostic where = other->where;
    for (const auto& [section, at_section] : ctx.sections)
      if (section == key) where = at_section;
    return at(where, fmt::format("{}: {} is one of the {} models this recipe builds ({}), and "
                                 "vramscope plans one; plan each with its own job file "
                                 "(vramscope plan JOB.yaml, or --from a config of one model) "
                                 "and add them up",
                                 key, other->value.text, models.size(), join(names, ", ")));
  }
  const entry* e = ctx.find("model._component_");
  if (e == nullptr) return std::nullopt;
  if (auto contradiction = builder_against_checkpoint(ctx, *e)) return contradiction;
  if (auto quantized = quantized_checkpoint(ctx)) return quantized;
  std::string builder = e->value.text;
  if (const auto dot = builder.rfind('.'); dot != std::string::npos) builder = builder.substr(dot + 1);
  builder = lower_case(builder);
  const bool qlora = builder.rfind("qlora_", 0) == 0;
  // A dora_ builder (forks of torchtune 0.2, before DoRA became the LoRA builders' use_dora in
  // 0.3: dora_llama3_8b = partial(lora_llama3_8b, use_dora=True)) is the LoRA builder with DoRA.
  const bool dora = builder.rfind("dora_", 0) == 0;
  const bool lora = qlora || dora || builder.rfind("lora_", 0) == 0;
  std::string base = builder.substr(qlora ? 6 : lora ? 5 : 0);
  for (std::string_view tail : {"_base", "_instruct"})
    if (base.ends_with(tail)) base.resize(base.size() - tail.size());
  // The builder's name resolves through the catalogue's names and aliases (model_name_key:
  // "llama3_3_70b" is llama-3.1-70b's shapes, "gemma2_2b" is gemma-2-2b). A builder with no
  // preset keeps its own name, so that planning refuses it at this line, listing the presets of
  // its family; --set model=PATH/config.json plans it.
  // Every builder, named or a component called with a shape, makes torchtune's own
  // TransformerDecoder, whose attention copies grouped keys and values to every head
  // (docs/schedule.md, "torchtune's model").
  if (std::string problem = ctx.set("training.model_code", "torchtune", *e); !problem.empty())
    return at(e->where, problem);
  // A component builder called with a model's shape, plain (llama2) or with LoRA (lora_llama2:
  // models/llama2/_component_builders.py takes the same shape arguments beside the LoRA ones).
  std::string problem;
  if (ctx.find("model.num_layers") != nullptr) {
    if (auto err = read_component_model(ctx, *e, base)) return err;
  } else {
    problem = ctx.set("model", model::preset_named(base).value_or(base), *e);
  }
  if (problem.empty() && lora) problem = ctx.set("lora.enabled", "true", *e);
  if (problem.empty() && dora && ctx.find("model.use_dora") == nullptr)
    problem = ctx.set("lora.method", "dora", *e);
  // The QLoRA builders quantise the LoRA-targeted linears to torchao's NF4Tensor.
  if (problem.empty() && qlora) problem = ctx.set("lora.base_quantization", "nf4", *e);
  if (problem.empty() && qlora) problem = ctx.set("lora.quantizer", "torchao", *e);
  return problem.empty() ? std::nullopt : maybe_error(at(e->where, problem));
}

// torchtune builds every model with its projections apart, also where the checkpoint fuses them:
// its Phi-3 converter (models/phi3/_convert_weights.py, phi3_hf_to_tune) chunks the checkpoint's
// qkv_proj into q_proj, k_proj and v_proj and gate_up_proj into w1 and w3, and phi4_14b is built
// by the same phi3 component builder. The model readers know the Hugging Face layout, so on a
// preset that fuses them (no q_proj, a qkv_proj) the plan puts one adapter on the fused linear
// (model::fused_module_name), where torchtune makes one per named projection; said in a note.
// Adapters are a rank's width, so the difference is a few A matrices (rank x hidden each).
void note_fused_targets(import_context& ctx, const entry& where,
                        const std::vector<std::string>& targets) {
  const auto spec = model::load_preset(ctx.out.job.model);
  if (!spec) return;  // not a preset: planning resolves (or refuses) the targets as they are
  std::vector<std::string> merged;
  for (const auto& t : targets) {
    const std::string fused = model::fused_module_name(model::hf_module_name(t));
    if (fused.empty()) continue;
    const auto resolved = model::lora_targets(*spec, {t});
    if (resolved && !resolved->modules.empty() && resolved->modules.front().ends_with("." + fused))
      merged.push_back(t);
  }
  if (merged.empty()) return;
  ctx.note(where, fmt::format("{}: {} model holds them fused (qkv_proj, gate_up_proj), which "
                              "torchtune splits when it loads the checkpoint to give each its "
                              "own adapter; planned as one adapter on each fused linear (a few "
                              "rank x hidden A matrices fewer than torchtune makes)",
                              join(merged, ", "), ctx.out.job.model));
}

// lora_attn_modules (q_proj, k_proj, v_proj, output_proj), apply_lora_to_mlp (w1, w2, w3) and
// apply_lora_to_output (output) -> lora.targets, in torchtune's own module names as the file and
// torchtune's get_lora_module_names (modules/peft/_utils.py) list them: the plan finds each
// module under its Hugging Face name (model::hf_module_name; docs/job-spec.md#lora-targets).
maybe_error read_targets(import_context& ctx) {
  const entry* attn = ctx.find("model.lora_attn_modules");
  const entry* mlp = ctx.find("model.apply_lora_to_mlp");
  const entry* out = ctx.find("model.apply_lora_to_output");
  if (attn == nullptr && mlp == nullptr && out == nullptr) return std::nullopt;
  std::vector<std::string> targets;
  if (attn != nullptr) {
    // The LoRA self-attention builders test each projection's name for membership ("q_proj" in
    // lora_modules, models/llama3/_component_builders.py lora_llama3_self_attention, the same
    // since v0.1.0) and never look at the others, so another name in the list (gate_proj, a
    // Hugging Face MLP name; w1) puts no adapter anywhere: the MLP's come from apply_lora_to_mlp.
    std::vector<std::string> unused;
    for (const auto& m : attn->value.items) {
      const std::string name = lower_case(m);
      if (name != "q_proj" && name != "k_proj" && name != "v_proj" && name != "output_proj")
        unused.push_back(m);
      else if (std::find(targets.begin(), targets.end(), name) == targets.end())
        targets.push_back(name);
    }
    if (!unused.empty())
      ctx.note(*attn, fmt::format("model.lora_attn_modules: {} not among the attention's "
                                  "q_proj, k_proj, v_proj, output_proj, which torchtune's "
                                  "builders test for and the only ones they read: no adapter "
                                  "for {} (apply_lora_to_mlp puts them on the MLP's w1, w2, w3)",
                                  join(unused, ", "), unused.size() == 1 ? "it" : "them"));
  }
  bool on = false;
  if (mlp != nullptr) {
    if (auto problem = parse_bool_text(mlp->value.text, on); !problem.empty())
      return at(mlp->where, "model.apply_lora_to_mlp: " + problem);
    if (on) targets.insert(targets.end(), {"w1", "w2", "w3"});
  }
  if (out != nullptr) {
    if (auto problem = parse_bool_text(out->value.text, on); !problem.empty())
      return at(out->where, "model.apply_lora_to_output: " + problem);
    if (on) targets.push_back("output");
  }
  const entry& where = attn != nullptr ? *attn : mlp != nullptr ? *mlp : *out;
  if (targets.empty())
    return at(where.where,
              "no LoRA target: lora_attn_modules is empty and neither "
              "apply_lora_to_mlp nor apply_lora_to_output is on (torchtune's LoRA "
              "builders then have no adapter to train); list modules in "
              "lora_attn_modules (q_proj, v_proj, ...) or set apply_lora_to_mlp to "
              "plan it");
  note_fused_targets(ctx, where, targets);
  for (const entry* e : {attn, mlp, out})
    if (e != nullptr) ctx.mapped_to(*e, "lora.targets");
  const std::string problem = ctx.set("lora.targets", join(targets, ","), where);
  return problem.empty() ? std::nullopt : maybe_error(at(where.where, problem));
}

// tokenizer.max_seq_len: the longest sequence; null leaves the length to the data.
std::string read_seq_len(import_context& ctx, const entry& e) {
  const std::string v = lower_case(e.value.text);
  if (v.empty() || v == "null" || v == "~") {
    ctx.note(e, fmt::format("{} is null: sequences are as long as the dataset's longest sample "
                            "in each batch; set training.seq_len to that length", e.key));
    return "";
  }
  return ctx.set("training.seq_len", e.value.text, e);
}

// dataset.max_seq_len: torchtune up to 0.2 gave the cap to the dataset builder (v0.2.0
// datasets/_alpaca.py, alpaca_dataset(..., max_seq_len=512)); 0.3 moved it to the tokenizer.
// Read as the sequence length where the file has no tokenizer.max_seq_len.
std::string read_dataset_seq_len(import_context& ctx, const entry& e) {
  if (ctx.find("tokenizer.max_seq_len") != nullptr) {
    ctx.note(e, "dataset.max_seq_len beside tokenizer.max_seq_len: the tokenizer's is read");
    return "";
  }
  return read_seq_len(ctx, e);
}

// model.quantize_base: the LoRA builders' switch that the qlora_* builders turn on
// (models/llama3/_model_builders.py: qlora_llama3_8b = partial(lora_llama3_8b,
// quantize_base=True)); with use_dora it is QDoRA. On: the base linears are torchao's NF4Tensor.
std::string read_quantize_base(import_context& ctx, const entry& e) {
  bool on = false;
  if (auto problem = parse_bool_text(e.value.text, on); !problem.empty())
    return "model.quantize_base: " + problem;
  std::string problem = ctx.set("lora.base_quantization", on ? "nf4" : "none", e);
  if (problem.empty() && on) problem = ctx.set("lora.quantizer", "torchao", e);
  return problem;
}

// dataset.packed: samples packed into sequences of tokenizer.max_seq_len. From torchtune 0.3 the
// dataset builders take the length from the tokenizer and raise "PackedDataset requires a
// max_seq_len to be set on the tokenizer." when it is None (datasets/_instruct.py, _chat.py,
// _text_completion.py, ...): an explicit null there stops the recipe before training. (0.2's
// builders had max_seq_len arguments of their own, so a file without tokenizer.max_seq_len is
// not refused.)
std::string read_packed(import_context& ctx, const entry& e) {
  bool on = false;
  if (auto problem = parse_bool_text(e.value.text, on); !problem.empty())
    return "dataset.packed: " + problem;
  const entry* length = ctx.find("tokenizer.max_seq_len");
  if (on && length != nullptr) {
    const std::string v = lower_case(length->value.text);
    if (v.empty() || v == "null" || v == "~")
      return fmt::format(
          "dataset.packed: true with tokenizer.max_seq_len null (line {}): torchtune's "
          "dataset builders refuse to pack without a length (\"PackedDataset requires a "
          "max_seq_len to be set on the tokenizer\"), so the recipe stops before training; "
          "set tokenizer.max_seq_len (or packed: false) to plan it",
          length->where.line);
  }
  if (on)
    ctx.note(e, "dataset.packed: every sequence is packed to tokenizer.max_seq_len, so "
                "training.seq_len is exact");
  else
    ctx.ignore(e);
  return "";
}

// dtype bf16 | fp32: the recipes hold parameters, gradients and optimizer state in it.
std::string read_dtype(import_context& ctx, const entry& e) {
  const std::string v = lower_case(e.value.text);
  if (v == "bf16") return ctx.set("precision", "bf16-true", e);
  if (v == "fp32") return ctx.set("precision", "fp32", e);
  return fmt::format("dtype: invalid value \"{}\" (expected bf16 or fp32, what torchtune's "
                     "recipes accept)", e.value.text);
}

std::string read_tune_checkpointing(import_context& ctx, const entry& e) {
  bool on = false;
  if (auto problem = parse_bool_text(e.value.text, on); !problem.empty())
    return "enable_activation_checkpointing: " + problem;
  return ctx.set("training.activation_checkpointing", on ? "full" : "none", e);
}

// Every loss class torchtune has defined on any branch (pytorch/torchtune, `git log --all -G
// "^class \w+Loss" -- torchtune` to bd2a0fc7c, the wind-down commit). A loss `_component_` in
// torchtune's namespace naming another class fails when the recipe instantiates it
// (config._utils._get_component_from_path raises InstantiationError): the run never trains.
constexpr std::string_view torchtune_losses[] = {"CELoss",
                                                 "CEWithChunkedOutputLoss",
                                                 "ChunkedCEAutogradLoss",
                                                 "ChunkedCrossEntropyLoss",
                                                 "ChunkedCrossEntropywithAutogradLoss",
                                                 "DPOLoss",
                                                 "ForwardKLLoss",
                                                 "ForwardKLWithChunkedOutputLoss",
                                                 "GRPOCompletionLoss",
                                                 "GRPOLoss",
                                                 "GRPOSimpleLoss",
                                                 "GRPOTaperLoss",
                                                 "GRPOWithChunkedOutputLoss",
                                                 "IPOLoss",
                                                 "KTOLoss",
                                                 "LigerFusedCrossEntropyLoss",
                                                 "LinearCrossEntropyLoss",
                                                 "LinearGRPOLoss",
                                                 "OnlineReinforcementLearningLinearLoss",
                                                 "PPOLoss",
                                                 "PreferenceLoss",
                                                 "RLLinearLoss",
                                                 "RLLoss",
                                                 "RSOLoss",
                                                 "ReverseKLLoss",
                                                 "ReverseKLWithChunkedOutputLoss",
                                                 "SFTLinearLoss",
                                                 "SFTLoss",
                                                 "SFTLossWithProjection",
                                                 "SimPOLoss",
                                                 "SymmetricKLLoss",
                                                 "SymmetricKLWithChunkedOutputLoss"};

std::string read_loss(import_context& ctx, const entry& e) {
  const std::string v = e.value.text;
  if (v.starts_with("torchtune.")) {
    const std::string name = v.substr(v.rfind('.') + 1);
    if (std::find(std::begin(torchtune_losses), std::end(torchtune_losses), name) ==
        std::end(torchtune_losses))
      return fmt::format(
          "loss {}: torchtune has no loss class {} in any release, so the recipe fails when it "
          "builds the loss, before training; name one of torchtune's losses (e.g. "
          "torchtune.modules.loss.LinearCrossEntropyLoss, torchtune.rlhf.loss.DPOLoss) to plan it",
          v, name);
  }
  if (v.ends_with("CEWithChunkedOutputLoss")) return ctx.set("training.loss", "chunked", e);
  // torchtune.modules.loss.LinearCrossEntropyLoss (every shipped recipe config since 0.6): the
  // model skips its output layer and the loss applies it to num_output_chunks (8) chunks of the
  // tokens, each chunk's logits upcast to fp32 for cross_entropy, which keeps its fp32
  // log-softmax output for backward: the chunked loss's tensors, one chunk at a time.
  if (v.ends_with("LinearCrossEntropyLoss")) {
    ctx.note(e, "LinearCrossEntropyLoss: the head's logits and the loss chunk by chunk, planned as "
                "training.loss chunked (the copy of the unmasked tokens' hidden states it takes "
                "first is not planned)");
    return ctx.set("training.loss", "chunked", e);
  }
  if (v == "torch.nn.CrossEntropyLoss") {
    ctx.note(e, "torch.nn.CrossEntropyLoss over the model's fp32 logits: planned as the Hugging "
                "Face loss (training.loss hf)");
    return "";
  }
  ctx.note(e, fmt::format("loss {} is not modelled: planned as the Hugging Face loss", v));
  return "";
}

// enable_fp8_training (full_finetune_distributed): torchao's float8 linears, with the recipe
// fp8_recipe_name names (tensorwise by default), as torchtitan sets them up.
std::string read_tune_fp8(import_context& ctx, const entry& e) {
  bool on = false;
  if (auto problem = parse_bool_text(e.value.text, on); !problem.empty())
    return e.key + ": " + problem;
  const entry* recipe = ctx.find("fp8_recipe_name");
  if (!on) return ctx.set("precision.float8", "none", e);
  if (recipe == nullptr || recipe->value.text == "null" || recipe->value.text.empty())
    return ctx.set("precision.float8", "tensorwise", e);
  ctx.mapped_to(e, "precision.float8");
  return ctx.set("precision.float8", recipe->value.text, *recipe);
}

// data_parallel_shard_dim: -1 is "the ranks tp and dp_replicate leave", vramscope's 0.
std::string read_shard_dim(import_context& ctx, const entry& e) {
  return ctx.set("parallel.dp_shard", e.value.text == "-1" ? "0" : e.value.text, e);
}

std::string read_tune_optimizer(import_context& ctx, const entry& e) {
  // torchao's low-bit optimizers lived in torchao.prototype.low_bit_optim until they moved to
  // torchao.optim (torchao 0.11); configs of both eras name the same class.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> names{{
      {"torch.optim.AdamW", "adamw"},
      {"torch.optim.Adam", "adam"},
      {"torch.optim.SGD", "sgd"},
      {"bitsandbytes.optim.PagedAdamW8bit", "paged_adamw_8bit"},
      {"bitsandbytes.optim.PagedAdamW", "paged_adamw"},
      {"bitsandbytes.optim.PagedAdamW32bit", "paged_adamw"},
      {"bitsandbytes.optim.AdamW8bit", "adamw_8bit"},
      {"torchao.optim.AdamW8bit", "adamw_8bit"},
      {"torchao.prototype.low_bit_optim.AdamW8bit", "adamw_8bit"},
  }};
  for (const auto& [component, name] : names) {
    if (e.value.text != component) continue;
    if (component.rfind("torchao", 0) == 0)
      ctx.note(e, "torchao's AdamW8bit is planned as bitsandbytes' AdamW8bit (8-bit state in "
                  "blocks of 256 values)");
    return ctx.set("optimizer.name", std::string(name), e);
  }
  return fmt::format(
      "optimizer._component_: {} is not an optimizer vramscope models (known: "
      "torch.optim.AdamW, Adam, SGD; bitsandbytes.optim.AdamW8bit, PagedAdamW, "
      "PagedAdamW8bit; torchao.optim.AdamW8bit); give the nearest of these "
      "(or --set optimizer.name=...) to plan it",
      e.value.text);
}

// custom_sharded_layers: the distributed recipes pass these module names to
// training.get_shard_conditions, which fully_shards a module whose name is in the list as a unit
// of its own besides the blocks (torchtune/training/_distributed.py, shard_model). The token
// embedding is `tok_embeddings`, the untied head `output`. A single-device recipe and torchtune
// 0.2's FSDP1 recipes never read it.
std::string read_sharded_layers(import_context& ctx, const entry& e) {
  if (ctx.out.job.parallel.kind != strategy::fsdp2) {
    ctx.note(e, "custom_sharded_layers: read only by the FSDP2 recipes; ignored here");
    return "";
  }
  std::vector<std::string> roles;
  std::vector<std::string> others;
  for (const auto& name : e.value.items) {
    const char* role = name == "tok_embeddings" ? "embedding" : name == "output" ? "head" : nullptr;
    if (role == nullptr)
      others.push_back(name);
    else if (std::find(roles.begin(), roles.end(), role) == roles.end())
      roles.emplace_back(role);
  }
  if (!others.empty())
    ctx.note(e, fmt::format("custom_sharded_layers: {} sharded as units of their own is not "
                            "modelled (only tok_embeddings and output are)", join(others, ", ")));
  if (roles.empty()) return "";
  return ctx.set("parallel.shard_separately", join(roles, ","), e);
}

// The recipe a LoRA model trained with a preference loss on several GPUs runs:
// lora_dpo_distributed (the DPO family of torchtune/rlhf/loss: DPOLoss, RSOLoss, IPOLoss,
// SimPOLoss). The recipe is chosen on the command line, and such a file's header often still
// names the LoRA fine-tuning recipe it was copied from; the loss and the builder are the file's
// own.
bool lora_dpo_distributed(const import_context& ctx) {
  const entry* loss = ctx.find("loss._component_");
  const entry* model = ctx.find("model._component_");
  if (loss == nullptr || model == nullptr) return false;
  const std::string_view name = loss->value.text;
  const bool preference = name.ends_with("DPOLoss") || name.ends_with("RSOLoss") ||
                          name.ends_with("IPOLoss") || name.ends_with("SimPOLoss");
  const bool lora = model->value.text.find(".lora_") != std::string::npos ||
                    model->value.text.find(".qlora_") != std::string::npos;
  const auto kind = ctx.out.job.parallel.kind;
  return preference && lora && job::is_fsdp(kind);
}

// compile: torchtune's recipes compile each layer (training.compile_model) and the loss
// (training.compile_loss); lora_dpo_distributed never reads the key (v0.1 to main: no
// cfg.compile in recipes/lora_dpo_distributed.py).
std::string read_tune_compile(import_context& ctx, const entry& e) {
  if (lora_dpo_distributed(ctx)) {
    ctx.note(e, fmt::format("compile {}: a LoRA model with a preference loss on several GPUs runs "
                            "lora_dpo_distributed, which never reads compile; nothing is "
                            "compiled",
                            e.value.text));
    return "";
  }
  return set_compile(ctx, e, e.value.text, e.value.text);
}

// compile as a map (full_finetune_distributed of torchtune 0.6 and later): `compile: {model,
// loss, optimizer_step, scale_grads}`, where a missing part takes the recipe's default (model
// True, loss True, optimizer_step False, scale_grads True: `compile.get("model", True)`, ...).
// scale_grads and optimizer_step compile a few element-wise steps over the gradients and
// parameters, no tensor of their own to plan.
std::string read_tune_compile_part(import_context& ctx, const entry& e) {
  if (lora_dpo_distributed(ctx)) return read_tune_compile(ctx, e);
  bool on = false;
  if (auto problem = parse_bool_text(e.value.text, on); !problem.empty())
    return e.key + ": " + problem;
  for (const auto& [part, path] : {std::pair{"compile.model", "training.compile"},
                                   std::pair{"compile.loss", "training.compile_loss"}}) {
    // This part, or the default of a part the map leaves out.
    if (e.key != part && ctx.find(part) != nullptr) continue;
    if (auto problem = ctx.set(path, e.key == part && !on ? "false" : "true", e); !problem.empty())
      return problem;
  }
  return "";
}

const std::vector<option>& torchtune_table() {
  static const std::vector<option> table = [] {
    std::vector<option> rows{
        {"model._component_", handled()},
        // read_component_model
        {"model.vocab_size", handled()},
        {"model.num_layers", handled()},
        {"model.num_heads", handled()},
        {"model.num_kv_heads", handled()},
        {"model.embed_dim", handled()},
        {"model.max_seq_len", handled()},
        {"model.intermediate_dim", handled()},
        {"model.attn_dropout", handled()},
        {"model.norm_eps", handled()},
        {"model.rope_base", handled()},
        {"model.tie_word_embeddings", handled()},
        {"model.lora_attn_modules", handled()},
        {"model.apply_lora_to_mlp", handled()},
        {"model.apply_lora_to_output", handled()},
        {"model.lora_rank", maps_to("lora.rank")},
        {"model.lora_alpha", maps_to("lora.alpha")},
        {"model.lora_dropout", maps_to("lora.dropout")},
        {"model.use_dora", maps_with("lora.method", {{"true", "dora"}, {"false", "lora"}})},
        {"model.quantize_base", custom(read_quantize_base)},
        {"tokenizer.max_seq_len", custom(read_seq_len)},
        {"dataset.max_seq_len", custom(read_dataset_seq_len)},
        {"dataset.packed", custom(read_packed)},
        {"batch_size", maps_to("training.micro_batch")},
        {"gradient_accumulation_steps", maps_to("training.gradient_accumulation")},
        {"dtype", custom(read_dtype)},
        {"enable_activation_checkpointing", custom(read_tune_checkpointing)},
        {"enable_activation_offloading", maps_to("training.activation_offloading")},
        {"optimizer_in_bwd", maps_to("optimizer.in_backward")},
        {"loss._component_", custom(read_loss)},
        {"loss.num_output_chunks", maps_to("training.loss_chunks")},
        {"loss.*", no_effect()},  // the loss's hyper-parameters: DPO's beta, label_smoothing ...
        {"optimizer._component_", custom(read_tune_optimizer)},
        {"optimizer.fused", maps_to("optimizer.fused")},
        {"optimizer.foreach", maps_to("optimizer.foreach")},
        {"fsdp_cpu_offload", maps_to("parallel.cpu_offload")},
        {"fsdp_reshard_after_forward", maps_to("parallel.reshard_after_forward")},
        {"compile", custom(read_tune_compile)},
        {"compile.model", custom(read_tune_compile_part)},
        {"compile.loss", custom(read_tune_compile_part)},
        {"compile.optimizer_step", custom(read_tune_compile_part)},
        {"compile.scale_grads", custom(read_tune_compile_part)},
        {"compile_dynamic", no_effect()},  // dynamic shapes for torch.compile on XPU
        {"custom_sharded_layers", custom(read_sharded_layers)},
        // full_finetune_distributed's device mesh (torchtune/training/_distributed.py,
        // ParallelDims): tp, then FSDP over dp_shard (-1: the ranks left) within dp_replicate.
        {"tensor_parallel_dim", maps_to("parallel.tp")},
        {"tensor_parallel_plan._component_", no_effect()},  // the plan of the model's family
        {"data_parallel_shard_dim", custom(read_shard_dim)},
        {"data_parallel_replicate_dim", maps_to("parallel.dp_replicate")},
        {"context_parallel_dim", maps_to("parallel.cp")},
        {"ac_mode", handled()},  // read_ac_mode, after the table
        {"ac_option", handled()},
        {"enable_fp8_training", custom(read_tune_fp8)},
        {"fp8_recipe_name", handled()},
        {"resize_token_embeddings",
         not_modelled("embeddings resized to the tokenizer's vocabulary")},
        {"model.decoder_trainable", not_modelled("the trainable parts of a vision model")},
        {"model.encoder_trainable", not_modelled("the trainable parts of a vision model")},
        {"model.fusion_trainable", not_modelled("the trainable parts of a vision model")},
        {"model.image_size", no_effect()},
        {"loss.ignore_index", no_effect()},
        {"loss.tp_enabled", no_effect()},
        {"loss.mask_ignored_tokens", no_effect()},
        {"quantizer._component_",
         not_modelled("quantization-aware training: fake-quantized linears")},
        {"quantizer.*", no_effect()},  // groupsize and the quantizer's other arguments
        // `quantizer: null` (the shipped evaluation and generation configs): no quantization.
        {"quantizer", custom([](import_context& ctx, const entry& e) {
           const std::string v = lower_case(e.value.text);
           if (v.empty() || v == "null" || v == "~") {
             ctx.ignore(e);
             return std::string();
           }
           return not_modelled("a quantizer given as a value, not a component").apply(ctx, e);
         })},
        // `fsdp: {cpu_offload: ...}`: read by torchtune 0.2's recipes/dev/lora_finetune_fsdp2
        // only (renamed fsdp_cpu_offload above for it); the qlora configs kept the section after
        // #1517 (6deeda92c) moved lora_finetune_distributed to FSDP2 and fsdp_cpu_offload, and no
        // recipe since reads it.
        {"fsdp.cpu_offload", no_effect()},
        {"low_cpu_ram", no_effect()},
        {"dataset", no_effect()},  // a list of datasets
        {"dataset.*", no_effect()},
        {"dataset_val.*", no_effect()},
        {"tokenizer.*", no_effect()},
        {"checkpointer._component_", handled()},  // read_tune_save
        {"checkpointer.*", no_effect()},
        {"lr_scheduler.*", no_effect()},
        {"metric_logger.*", no_effect()},
        {"profiler.*", no_effect()},
        {"optimizer.*", no_effect()},  // lr, weight_decay, betas, eps
        {"clip_grad_norm", no_effect()},
        // dev/early_exit_finetune_distributed (torchtune 0.5, f8563ddc7 "Support Early Exit Loss
        // and/or Layer Dropout"): the hidden states of the chosen layers go through
        // the output projection and the loss as well as the last one's.
        {"early_exit_loss.*", not_modelled("the output projection and loss on the hidden states "
                                           "of the layers early_exit_loss.layers chooses")},
        // The same recipe's layer dropout skips blocks for part of the batch: fewer
        // activations than planned, never more.
        {"layer_dropout.*", not_modelled("blocks skipped for part of the batch (planned with "
                                         "every block's activations)")},
        // Keys recipes of v0.1.0 to v0.6.1 and main read (cfg.get / cfg.<key> in recipes/*.py)
        // beside the ones above. full_finetune_distributed v0.2's embedding and output wrapped
        // as FSDP units of their own:
        {"memory_efficient_fsdp_wrap",
         not_modelled("the embedding and output wrapped as FSDP units of their own")},
        // qat_distributed v0.4 (FSDP1): FULL_SHARD is the plan's.
        {"fsdp_sharding_strategy", custom([](import_context& ctx, const entry& e) {
           if (lower_case(e.value.text) == "full_shard") {
             ctx.ignore(e);
             return std::string();
           }
           return not_modelled("an FSDP1 sharding strategy other than FULL_SHARD").apply(ctx, e);
         })},
        // Offloaded activations copied on a second stream, overlapping the compute.
        {"activation_offloading_use_streams",
         not_modelled("offloaded activations copied on a second stream (a few in flight)")},
        {"tensor_parallel_plan.*", no_effect()},
        {"use_flex", not_modelled("FlexAttention")},
        {"enable_expandable_segments", not_modelled("the caching allocator's expandable "
                                                    "segments, set by the recipe")},
        // The recipes before v0.1.0 (2024-01 to 2024-04, full_finetune.py and lora_finetune.py):
        // top-level switches later releases moved or dropped.
        {"cpu_offload", not_modelled("the pre-0.1 recipes' FSDP CPU offload; set "
                                     "parallel.cpu_offload")},
        {"enable_fsdp", not_modelled("the pre-0.1 recipes' FSDP switch; set parallel.strategy")},
        {"full_bf16", not_modelled("the pre-0.1 recipes' all-bf16 training; set precision")},
        {"lora_rank", maps_to("lora.rank")},
        {"lora_alpha", maps_to("lora.alpha")},
        {"lora_attn_modules", not_modelled("the pre-0.1 LoRA recipe's targets; set lora.targets")},
        // Recipes of several models, refused at their other model: their own options.
        {"kd_loss.*", no_effect()},
        {"teacher_checkpointer.*", no_effect()},
        {"ref_policy_checkpointer.*", no_effect()},
        {"reward_checkpointer.*", no_effect()},
        {"value_checkpointer.*", no_effect()},
        {"orchestration.*", no_effect()},
        {"inference.*", no_effect()},
        {"training.*", no_effect()},
        {"datasets", no_effect()},
        {"datasets.*", no_effect()},
        {"dataloader.*", no_effect()},
    };
    for (auto&& more :
         {ignored("",
                  {"output_dir", "resume_from_checkpoint", "save_adapter_weights_only", "seed",
                   "shuffle", "epochs", "max_steps_per_epoch", "device", "log_every_n_steps",
                   "log_peak_memory_stats", "log_level", "run_val_every_n_steps", "batch_size_val",
                   "cudnn_deterministic_mode", "collate_fn", "enable_async_checkpointing",
                   "fake_quant_after_n_steps", "profile_memory", "save_every_n_steps"}),
          // Generation, evaluation and RL recipes' options, and v0.1's dataset
          // formatting keys: no effect on a training step's memory.
          ignored("", {"chat_format",
                       "instruct_template",
                       "chat_template",
                       "max_seq_length",
                       "apply_chat_template",
                       "enable_kv_cache",
                       "max_new_tokens",
                       "max_generated_tokens",
                       "temperature",
                       "top_k",
                       "prompt",
                       "stop_token_ids",
                       "forward_batch_size",
                       "grpo_samples",
                       "include_path",
                       "tasks",
                       "limit",
                       "save_every_n_epochs",
                       "use_distributed_state_dict",
                       "context_parallel_rotate_method",
                       "kd_ratio",
                       "num_steps",
                       "gamma",
                       "lmbda",
                       "kl_coeff",
                       "ppo_batch_size",
                       "ppo_epochs",
                       "whiten_rewards",
                       "reward_penalty",
                       "penalise_no_eos",
                       "min_response_length",
                       "lr",
                       "weight_decay",
                       "num_warmup_steps",
                       "project",
                       "metric_logger_type",
                       "model_checkpoint",
                       "tokenizer_checkpoint",
                       "lora_checkpoint",
                       "run_generation",
                       "max_gen_len",
                       "use_clean",
                       "train_on_input",
                       "save_merged_final_checkpoint"})})
      rows.insert(rows.end(), more.begin(), more.end());
    return rows;
  }();
  return table;
}

// The recipe a `tune run [torchrun options] RECIPE` command in `comment` names (at its first
// "tune run "), or "" when it names none.
std::string tune_run_recipe(std::string_view comment) {
  const auto run = comment.find("tune run ");
  if (run == std::string_view::npos) return {};
  std::string_view rest = comment.substr(run + 9);
  while (true) {
    const auto start = rest.find_first_not_of(' ');
    if (start == std::string_view::npos) return {};
    rest = rest.substr(start);
    const std::string_view word = rest.substr(0, rest.find(' '));
    if (!word.starts_with("--")) return std::string(word);
    // an option and, when it is not `--opt=value`, its value
    rest = rest.substr(word.size());
    if (word.find('=') == std::string_view::npos) {
      const auto v = rest.find_first_not_of(' ');
      if (v == std::string_view::npos) return {};
      rest = rest.substr(v);
      rest = rest.substr(std::min(rest.size(), rest.find(' ')));
    }
  }
}

// The `tune run` command every shipped config shows in its header comment:
// "tune run --nproc_per_node 8 lora_finetune_distributed --config llama3_1/70B_lora".
struct launch_line {
  int line = 0;            // 0: none found
  bool distributed = false;
  bool dev_fsdp2 = false;  // recipes/dev/lora_finetune_fsdp2 (torchtune 0.2)
  bool reads_ac_mode = false;  // a recipe that applies ac_mode / ac_option (read_ac_mode)
  long long processes = 0;  // --nproc_per_node, 0 when not given
  // Each `tune run` line of the header (the comment lines before the first option, blank lines
  // passed over): its number and the recipe it names.
  std::vector<std::pair<int, std::string>> header_recipes;
};

launch_line find_launch(std::string_view text) {
  std::optional<launch_line> found;
  std::vector<std::pair<int, std::string>> header_recipes;
  bool in_header = true;
  for_each_line(text, [&](std::string_view line, int number) {
    if (const auto first = line.find_first_not_of(" \t\r");
        in_header && first != std::string_view::npos) {
      in_header = line[first] == '#';
      if (in_header)
        if (auto recipe = tune_run_recipe(line.substr(first + 1)); !recipe.empty())
          header_recipes.emplace_back(number, std::move(recipe));
    }
    if (found) return in_header;
    // `tune run RECIPE`, or before torchtune 0.1 (80a2114b1, 2024-03) `tune [torchrun
    // options] RECIPE` (`tune --nnodes 1 --nproc_per_node 1 full_finetune_distributed`).
    std::size_t run = std::string_view::npos;
    for (auto t = line.find("tune "); t != std::string_view::npos; t = line.find("tune ", t + 1)) {
      if (t > 0 && line[t - 1] != ' ' && line[t - 1] != '#' && line[t - 1] != '`' &&
          line[t - 1] != '$')
        continue;
      const auto start = line.find_first_not_of(' ', t + 4);
      if (start == std::string_view::npos) break;
      const std::string_view next = line.substr(start);
      const std::string_view word = next.substr(0, next.find(' '));
      if (word == "run" || word.starts_with("--") ||
          word.find("_distributed") != std::string_view::npos ||
          word.find("_single_device") != std::string_view::npos) {
        run = t;
        break;
      }
    }
    if (run == std::string_view::npos || line.find('#') == std::string_view::npos) return true;
    launch_line out;
    const std::string_view command = line.substr(run);
    // torchtune 0.2's recipes/dev/lora_finetune_fsdp2.py (June to September 2024, when #1517
    // moved lora_finetune_distributed to FSDP2) is a distributed recipe too.
    out.dev_fsdp2 = command.find("lora_finetune_fsdp2") != std::string_view::npos;
    out.distributed = out.dev_fsdp2 || command.find("_distributed") != std::string_view::npos;
    for (const std::string_view recipe :
         {"full_finetune_distributed", "qat_distributed", "early_exit_finetune_distributed"})
      out.reads_ac_mode = out.reads_ac_mode || command.find(recipe) != std::string_view::npos;
    if (!out.distributed && command.find("_single_device") == std::string_view::npos) return true;
    out.line = number;
    if (const auto n = command.find("--nproc_per_node"); n != std::string_view::npos) {
      std::size_t i = n + std::string_view("--nproc_per_node").size();
      while (i < command.size() && (command[i] == ' ' || command[i] == '=')) ++i;
      while (i < command.size() && std::isdigit(static_cast<unsigned char>(command[i])) &&
             out.processes < 1'000'000)
        out.processes = out.processes * 10 + (command[i++] - '0');
    }
    found = out;
    return in_header;
  });
  if (found) {
    found->header_recipes = std::move(header_recipes);
    return *found;
  }
  // No `tune run` line. The header every shipped config opens with names the recipe file
  // ("# Config for multi-device full finetuning in full_finetune_distributed.py"); else a
  // commented-out line of an option only the distributed recipes read (the distributed configs
  // ship `# custom_sharded_layers: ['tok_embeddings', 'output']`; no single-device config has
  // it) says the file is a copy of a distributed config.
  launch_line commented;
  std::optional<launch_line> named;
  for_each_line(text, [&](std::string_view line, int number) {
    const auto hash = line.find('#');
    if (hash == std::string_view::npos) return true;
    const std::string_view comment = line.substr(hash + 1);
    for (const std::string_view tail : {"_distributed.py", "_single_device.py"}) {
      const auto at = comment.find(tail);
      if (at == std::string_view::npos) continue;
      std::size_t begin = at;
      while (begin > 0 && (std::isalnum(static_cast<unsigned char>(comment[begin - 1])) != 0 ||
                           comment[begin - 1] == '_'))
        --begin;
      if (begin == at) continue;
      launch_line out;
      out.line = number;
      out.distributed = tail == "_distributed.py";
      const std::string_view recipe = comment.substr(begin, at - begin);
      for (const std::string_view r : {"full_finetune", "qat", "early_exit_finetune"})
        out.reads_ac_mode = out.reads_ac_mode || (out.distributed && recipe == r);
      named = out;
      return false;
    }
    if (commented.line == 0 &&
        line.substr(0, hash).find_first_not_of(" \t") == std::string_view::npos) {
      const auto key_start = comment.find_first_not_of(' ');
      if (key_start == std::string_view::npos) return true;
      const std::string_view key = comment.substr(key_start);
      for (const std::string_view option :
           {"custom_sharded_layers:", "fsdp_cpu_offload:", "fsdp_reshard_after_forward:",
            "tensor_parallel_dim:", "data_parallel_shard_dim:", "data_parallel_replicate_dim:",
            "context_parallel_dim:"})
        if (key.starts_with(option)) {
          commented.line = number;
          commented.distributed = true;
        }
    }
    return true;
  });
  launch_line out = named ? *named : commented;
  out.header_recipes = std::move(header_recipes);
  return out;
}

// A component torchtune up to 0.2 named under torchtune.utils (its checkpointers and loggers;
// 0.3 moved them to torchtune.training, and its torchtune.utils exports none of them): the
// file's release is 0.2 or older. nullptr when the file names none.
const entry* component_of_release_0_2(const import_context& ctx) {
  for (const auto& e : ctx.entries)
    if (e.key.ends_with("._component_") && e.value.text.starts_with("torchtune.utils.")) return &e;
  return nullptr;
}

// torchtune up to 0.2 capped the length in the dataset builder, whose own default applies
// where the file gives no max_seq_len (v0.2.1 and v0.1.1 datasets/: alpaca_dataset and
// alpaca_cleaned_dataset, a partial of it, 512; slimorca_dataset and
// stack_exchanged_paired_dataset 1024; the others none, the data's own length). From 0.3 the
// builders take no max_seq_len and the tokenizer's decides (read_seq_len).
maybe_error read_release_0_2_dataset_length(import_context& ctx) {
  const entry* release = component_of_release_0_2(ctx);
  const entry* dataset = ctx.find("dataset._component_");
  if (release == nullptr || dataset == nullptr || ctx.find("tokenizer.max_seq_len") != nullptr ||
      ctx.find("dataset.max_seq_len") != nullptr)
    return std::nullopt;
  static constexpr std::pair<std::string_view, std::string_view> defaults[] = {
      {"torchtune.datasets.alpaca_dataset", "512"},
      {"torchtune.datasets.alpaca_cleaned_dataset", "512"},
      {"torchtune.datasets.slimorca_dataset", "1024"},
      {"torchtune.datasets.stack_exchanged_paired_dataset", "1024"}};
  for (const auto& [builder, length] : defaults) {
    if (dataset->value.text != builder) continue;
    if (auto problem = ctx.set("training.seq_len", std::string(length), *dataset); !problem.empty())
      return at(dataset->where, problem);
    ctx.note(*dataset, fmt::format("{} of torchtune 0.2 or older ({} names the release) caps "
                                   "samples at its own max_seq_len default, {} tokens",
                                   dataset->value.text, release->value.text, length));
  }
  return std::nullopt;
}

// Distributed (FSDP2) when the file has the distributed recipes' fsdp_* keys (or
// memory_efficient_fsdp_wrap, the FSDP wrap policy's switch that only full_finetune_distributed
// reads: training.get_full_finetune_fsdp_wrap_policy) or its `tune run` line names a distributed
// recipe; otherwise one GPU.
maybe_error read_strategy(import_context& ctx, std::string_view text, bool& has_world_size) {
  const entry* fsdp = ctx.find("fsdp_cpu_offload");
  if (fsdp == nullptr) fsdp = ctx.find("fsdp_reshard_after_forward");
  if (fsdp == nullptr) fsdp = ctx.find("memory_efficient_fsdp_wrap");
  const launch_line launch = find_launch(text);
  entry at_launch;
  at_launch.key = "tune run";
  at_launch.where = launch.line > 0 ? location(ctx.source, text, launch.line, 1)
                                    : diagnostic{ctx.source, 0, 0, "", ""};
  const entry& where = fsdp != nullptr ? *fsdp : at_launch;
  std::string problem;
  // torchtune up to 0.2 named its checkpointers and loggers under torchtune.utils (0.3 moved
  // them to torchtune.training; its torchtune.utils exports none of them), and its distributed
  // recipes wrapped the model in FSDP1: FullyShardedDataParallel(FULL_SHARD,
  // sync_module_states=True) (v0.2.1 recipes/*_distributed.py). 0.3's recipes shard with FSDP2.
  const entry* release_0_2 = component_of_release_0_2(ctx);
  if ((fsdp != nullptr || launch.distributed) && release_0_2 != nullptr && !launch.dev_fsdp2) {
    for (const auto& [path, value] :
         {std::pair{"parallel.strategy", "fsdp1"}, std::pair{"parallel.fsdp_sharding", "full_shard"},
          std::pair{"parallel.sync_module_states", "true"},
          std::pair{"parallel.use_orig_params", "false"}})
      if (problem.empty()) problem = ctx.set(path, value, where);
    ctx.note(*release_0_2, fmt::format("{} is torchtune 0.2's or older (0.3 moved it to "
                                       "torchtune.training), whose distributed recipes wrap the "
                                       "model in FSDP1: planned as FSDP1", release_0_2->value.text));
    if (problem.empty() && launch.processes > 0) {
      problem = set_world(ctx, launch.processes, at_launch);
      has_world_size = true;
    }
  } else if (fsdp != nullptr || launch.distributed) {
    problem = ctx.set("parallel.strategy", "fsdp2", where);
    ctx.note(where, "a distributed recipe's config: planned as FSDP2");
    if (problem.empty() && launch.processes > 0) {
      problem = set_world(ctx, launch.processes, at_launch);
      has_world_size = true;
    }
  } else {
    problem = ctx.set("parallel.strategy", "single", at_launch);
    if (problem.empty()) problem = set_world(ctx, 1, at_launch);
    has_world_size = true;
    if (launch.line == 0)
      ctx.note("the config names no distributed recipe: planned on one GPU; set "
               "parallel.strategy=fsdp2 and hardware.gpus_per_node for a distributed run");
  }
  return problem.empty() ? std::nullopt : maybe_error(at(where.where, problem));
}

// torchtune's recipes save the model as training ends (and at every epoch's end before 2025:
// recipes/*.py, save_checkpoint). A FullModel*Checkpointer writes one whole state dict: the
// distributed recipes gather it on rank 0 (training.gather_cpu_state_dict: each sharded parameter's
// full_tensor() on the GPU, copied to the host by rank 0, the others dropping theirs; 0.2's FSDP1
// recipes: FULL_STATE_DICT with offload_to_cpu and rank0_only), vramscope's defaults for a full
// save. A DistributedCheckpointer writes each rank's shards (torch.distributed.checkpoint).
maybe_error read_tune_save(import_context& ctx) {
  const entry* checkpointer = ctx.find("checkpointer._component_");
  const entry where = checkpointer != nullptr ? *checkpointer : file_entry(ctx);
  const bool sharded =
      checkpointer != nullptr && checkpointer->value.text.ends_with("DistributedCheckpointer");
  if (auto problem = ctx.set("checkpoint.save", sharded ? "sharded" : "full", where);
      !problem.empty())
    return at(where.where, problem);
  // One device saves what it holds (nothing more on the GPU): only a gathered save is worth a note.
  if (!sharded && ctx.out.job.parallel.kind != strategy::single)
    ctx.note(where,
             "torchtune's distributed recipes save the whole model when training ends (rank 0 "
             "gathers it tensor by tensor onto the host): planned as checkpoint.save=full");
  return std::nullopt;
}

// ac_mode / ac_option: selective checkpointing that full_finetune_distributed (from v0.2.0,
// 68f253884), qat_distributed and dev/early_exit_finetune_distributed apply, and no other
// recipe reads. The recipe applies it only when enable_activation_checkpointing is false, and
// applies its full checkpointing only when ac_mode is None, so both set is no checkpointing
// (recipes/full_finetune_distributed.py, _setup_model). torchtune/training/activations.py,
// checkpoint_wrapper: "full" wraps every block; "selective" wraps every int(ac_option)-th
// block (0 every block); other values raise. Runs after the table, so it overrides what
// enable_activation_checkpointing set.
maybe_error read_ac_mode(import_context& ctx, std::string_view text) {
  const entry* mode = ctx.find("ac_mode");
  const entry* option = ctx.find("ac_option");
  const auto is_null = [](const entry* e) {
    return e == nullptr || e->value.text.empty() || lower_case(e->value.text) == "null";
  };
  if (is_null(mode)) {
    if (!is_null(option)) ctx.note(*option, "ac_option without ac_mode: the recipes read it only "
                                            "with ac_mode; ignored");
    return std::nullopt;
  }
  if (!find_launch(text).reads_ac_mode) {
    ctx.note(*mode, "ac_mode is applied only by full_finetune_distributed, qat_distributed and "
                    "early_exit_finetune_distributed, which the config's `tune run` line does not "
                    "name: ignored");
    return std::nullopt;
  }
  const std::string m = lower_case(mode->value.text);
  if (m != "full" && m != "selective" && m != "none")
    return at(mode->where, fmt::format("ac_mode: invalid value \"{}\" (expected one of: full, "
                                       "selective, none)", mode->value.text));
  const entry* enable = ctx.find("enable_activation_checkpointing");
  bool enabled = false;
  if (enable != nullptr) (void)parse_bool_text(enable->value.text, enabled);
  std::string problem;
  if (enabled) {
    ctx.note(*mode, "enable_activation_checkpointing and ac_mode are both set: the recipe applies "
                    "its full checkpointing only without ac_mode and ac_mode only without "
                    "enable_activation_checkpointing, so no block is checkpointed");
    problem = ctx.set("training.activation_checkpointing", "none", *mode);
  } else if (m == "none") {
    problem = ctx.set("training.activation_checkpointing", "none", *mode);
  } else if (m == "full") {
    problem = ctx.set("training.activation_checkpointing", "full", *mode);
  } else {
    std::uint64_t every = 0;
    if (is_null(option))
      return at(mode->where, "ac_mode selective needs ac_option, the whole number N of \"every "
                             "Nth block\" (torchtune's checkpoint_wrapper takes int(ac_option))");
    if (auto bad = parse_count_text(option->value.text, 0, 1'000'000, every); !bad.empty())
      return at(option->where, fmt::format("ac_option: {} (torchtune's checkpoint_wrapper takes "
                                           "int(ac_option), every Nth block)", bad));
    problem = ctx.set("training.activation_checkpointing", "selective", *mode);
    if (problem.empty())
      problem = ctx.set("training.checkpoint_every", std::to_string(every == 0 ? 1 : every),
                        *option);
  }
  return problem.empty() ? std::nullopt : maybe_error(at(mode->where, problem));
}

}  // namespace

const std::vector<option>& torchtune_options() { return torchtune_table(); }

}  // namespace detail

namespace detail {

// The recipes torchtune ships that run a model without training it (recipes/generate.py,
// eleuther_eval.py, quantize.py, dev/generate_v2.py and its distributed twin): their configs
// have a model and a checkpointer but no optimizer, loss or training batch. The header comment
// every shipped config opens with names the recipe, as `tune run RECIPE` or as the recipe's
// file; only the comment lines before the first option are read, where a training config's
// header could not name one of these.
struct recipe_mention {
  int line = 0;  // 0: none
  std::string recipe;
};

recipe_mention non_training_recipe(std::string_view text) {
  static const std::vector<std::string_view> recipes{"generate",    "eleuther_eval",
                                                     "quantize",    "dev/generate_v2",
                                                     "generate_v2", "dev/generate_v2_distributed"};
  const auto is_word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '/';
  };
  const auto header_recipes = find_launch(text).header_recipes;
  recipe_mention found;
  for_each_line(text, [&](std::string_view line, int number) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return true;
    if (line[first] != '#') return false;  // the header ends at the first option
    const std::string_view comment = line.substr(first + 1);
    std::string_view run;  // the recipe this line's `tune run` names
    for (const auto& [at, recipe] : header_recipes)
      if (at == number) run = recipe;
    for (const std::string_view recipe : recipes) {
      if (!run.empty() && run == recipe) found = {number, std::string(recipe)};
      // "... in generate.py"
      const std::string file = std::string(recipe) + ".py";
      for (auto at = comment.find(file); found.line == 0 && at != std::string_view::npos;
           at = comment.find(file, at + 1))
        if ((at == 0 || !is_word(comment[at - 1])) &&
            (at + file.size() == comment.size() || !is_word(comment[at + file.size()])))
          found = {number, std::string(recipe)};
      if (found.line > 0) return false;
    }
    return true;
  });
  return found;
}

}  // namespace detail

result<imported_job> import_torchtune(std::string_view text, const std::string& source) {
  auto parsed = detail::parse_yaml(source, text);
  if (!parsed) return detail::with_remedy(parsed.error(), detail::syntax_remedy);
  const YAML::Node& root = *parsed;
  if (!root.IsMap()) return error_at(source, "expected a YAML map of torchtune options");
  if (const auto other = detail::non_training_recipe(text); other.line > 0)
    return detail::at(diagnostic{source, other.line, 1, "", ""},
                      fmt::format("this is the config of torchtune's {} recipe, which runs the "
                                  "model without training it: there is no training step to plan; "
                                  "give the config of a training recipe (full_finetune_*, "
                                  "lora_finetune_*, ...) of the same model to plan it",
                                  other.recipe));
  if (auto d = detail::template_placeholder(root, source, text, "torchtune")) return *d;
  detail::import_context ctx("torchtune", source);
  if (!detail::flatten_yaml(root, "", ctx, text))
    return error_at(source, fmt::format("more than {} options or {} levels of nesting: not a "
                                        "torchtune config", detail::max_yaml_entries,
                                        detail::max_yaml_depth));
  // A key written twice in one mapping: torchtune loads its config with OmegaConf, whose YAML
  // loader refuses it ("found duplicate key", omegaconf/_utils.py, OmegaConfLoader's
  // construct_mapping, from OmegaConf 2.1), so the recipe never starts.
  {
    std::vector<std::pair<std::string, diagnostic>> seen;
    for (const auto& e : ctx.entries) seen.emplace_back(e.key, e.where);
    for (const auto& [key, where] : ctx.sections) seen.emplace_back(key, where);
    std::stable_sort(seen.begin(), seen.end(),
                     [](const auto& a, const auto& b) { return a.second.line < b.second.line; });
    std::map<std::string, int> first_line;
    for (const auto& [key, where] : seen)
      if (const auto [at, fresh] = first_line.emplace(key, where.line); !fresh)
        return detail::at(where,
                          fmt::format("{} is written twice (lines {} and {}): torchtune loads "
                                      "its config with OmegaConf, which refuses a duplicate key "
                                      "(\"found duplicate key\"); keep one of them to plan it",
                                      key, at->second, where.line));
  }
  // lora_finetune_fsdp2 read `fsdp: {cpu_offload: ...}` (cfg.fsdp.cpu_offload: CPUOffloadPolicy),
  // what the later recipes read as fsdp_cpu_offload; no other recipe reads fsdp.cpu_offload.
  if (detail::find_launch(text).dev_fsdp2)
    for (auto& e : ctx.entries)
      if (e.key == "fsdp.cpu_offload" && ctx.find("fsdp_cpu_offload") == nullptr)
        e.key = "fsdp_cpu_offload";
  // OmegaConf resolves a value that is one reference, ${key}, to that key's value before a recipe
  // reads it (dataset.max_seq_len: ${max_tokens}); references to references resolve in turn.
  for (int pass = 0; pass < 8; ++pass) {
    bool changed = false;
    for (auto& e : ctx.entries) {
      const std::string& v = e.value.text;
      if (v.size() < 4 || !v.starts_with("${") || !v.ends_with("}")) continue;
      const std::string name = v.substr(2, v.size() - 3);
      if (name.find_first_of("${}: ") != std::string::npos || name == e.key) continue;
      const detail::entry* target = ctx.find(name);
      if (target == nullptr || !target->value.items.empty() || target->value.text == v) continue;
      const std::string resolved = target->value.text;
      e.value.text = resolved;
      changed = true;
    }
    if (!changed) break;
  }
  // torchtune loads configs with OmegaConf, so a top-level key the file interpolates elsewhere
  // (dev/3B_sft_for_grpo.yaml: `name: ...`, `output_dir: /tmp/${name}`) is the file's own
  // variable, read by no recipe: it has no effect, and is not an unknown option.
  {
    const auto& table = detail::torchtune_table();
    std::erase_if(ctx.entries, [&](const detail::entry& e) {
      if (e.key.find('.') != std::string::npos ||
          text.find("${" + e.key + "}") == std::string_view::npos ||
          std::any_of(table.begin(), table.end(),
                      [&](const detail::option& row) { return row.key == e.key; }))
        return false;
      ctx.ignore(e);
      ctx.own_names.push_back(e.key);
      return true;
    });
  }
  // A top-level key that is the last part of an option of a section (max_seq_len of
  // tokenizer.max_seq_len, packed of dataset.packed): a name torchtune has, in a place where no
  // recipe of a release reads it (the recipes take it from the component's section: the
  // tokenizer's and dataset's builders get it as an argument). A fork's own recipe may read it
  // there; vramscope plans from the section's.
  {
    const auto& table = detail::torchtune_table();
    std::erase_if(ctx.entries, [&](const detail::entry& e) {
      if (e.key.find('.') != std::string::npos ||
          std::any_of(table.begin(), table.end(),
                      [&](const detail::option& row) { return row.key == e.key; }))
        return false;
      std::vector<std::string> homes;
      for (const auto& row : table)
        if (row.key.ends_with("." + e.key) && row.key.find('*') == std::string::npos)
          homes.push_back(row.key);
      if (homes.empty()) return false;
      ctx.note(e, fmt::format("{} at the top level: torchtune's recipes read it as {}, not here "
                              "(a fork's recipe may); not planned from this line",
                              e.key, detail::join(homes, " or ")));
      ctx.ignore(e);
      return true;
    });
  }
  // The LoRA builders take one int lora_rank and one float lora_alpha for every adapter
  // (models/llama3/_component_builders.py, lora_llama3(lora_rank: int, lora_alpha: float, ...)):
  // a map of values per module there is a fork's per-layer LoRA, whose modules left out get
  // values that only the fork's code knows.
  for (const auto& [section, at_section] : ctx.sections)
    if (section == "model.lora_rank" || section == "model.lora_alpha")
      return detail::at(at_section,
                        fmt::format("{}: a map of values per module, where torchtune's LoRA "
                                    "builders take one value for every adapter (a fork's "
                                    "per-layer LoRA, whose modules not listed get the fork's "
                                    "own default); give one {} (the largest listed bounds the "
                                    "adapters' memory) to plan it",
                                    section, section.substr(6)));
  bool has_world_size = false;
  if (auto err = detail::read_strategy(ctx, text, has_world_size)) return *err;
  if (auto err = detail::read_tune_model(ctx)) return *err;
  if (auto err = detail::read_targets(ctx)) return *err;
  if (auto err = detail::apply_options(ctx, detail::torchtune_table())) {
    // A builder of no preset (a fork's, with its own arguments) is the more fundamental reason:
    // what its other arguments mean is the fork's, and planning would refuse the model first.
    const detail::entry* builder = ctx.find("model._component_");
    if (builder != nullptr && ctx.out.job.model_config.empty() &&
        !model::preset_named(ctx.out.job.model)) {
      const auto family = model::presets_of_family(ctx.out.job.model);
      return detail::at(
          builder->where,
          fmt::format("model._component_ {} is no torchtune builder vramscope has a preset "
                      "for{} (a fork's or a newer release's), so the model's shape and what its "
                      "other arguments mean are not known (line {}: {}); plan it with --set "
                      "model=PATH/config.json, a Hugging Face config of the same model",
                      builder->value.text,
                      family.empty()
                          ? std::string()
                          : fmt::format(" (presets of its family: {})", detail::join(family, ", ")),
                      err->line, err->message));
    }
    return *err;
  }
  if (auto err = detail::read_ac_mode(ctx, text)) return *err;
  if (auto err = detail::read_release_0_2_dataset_length(ctx)) return *err;
  if (auto err = detail::read_tune_save(ctx)) return *err;
  return detail::finish(ctx, has_world_size);
}

}  // namespace vramscope::job
