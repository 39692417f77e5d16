#pragma once
// The modules of a model as PyTorch names them, read off the tensor inventory, and which of
// them a LoRA `target_modules` list selects. A module is a tensor name without its last
// component ("model.layers.0.self_attn.q_proj.weight" -> "model.layers.0.self_attn.q_proj"),
// plus every container above it ("model.layers.0.self_attn", "model.layers.0", ...).

#include <string>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/model/model_spec.hpp>

namespace vramscope::model {

/// What PEFT can put a LoRA adapter on, as far as the inventory tells.
enum class module_kind {
  linear,     // a 2-D ".weight" outside embedding units (nn.Linear)
  embedding,  // a 2-D ".weight" in an embedding unit, or T5's relative_attention_bias
              // (nn.Embedding: rows = vocabulary or buckets)
  head,       // the output projection (unit kind head): a Linear, but not in "all-linear"
  other,      // norms, convolutions, containers: LoRA cannot target them
};

/// Which tensors get a LoRA adapter pair.
struct lora_target_set {
  /// Per index of model_spec::tensors: adapter pairs (A, B) on that weight. 0 for tensors that
  /// are not targeted; 1 for a targeted Linear / Embedding weight; 2 for the shared weight of
  /// tied embeddings when both the embedding and the head ("lm_head") are targeted. An adapter
  /// pair on an (out, in) weight holds r * (out + in) elements (PEFT: A is r x in, B is out x r;
  /// for an embedding A is r x vocab, B is hidden x r, the same count on its (vocab, hidden)
  /// weight).
  std::vector<int> adapters;
  /// The targeted module names, in inventory order ("model.layers.0.self_attn.q_proj", ...).
  std::vector<std::string> modules;
};

/// The "all-linear" shorthand of PEFT's LoraConfig (compared ignoring case).
inline constexpr const char* all_linear_targets = "all-linear";

/// The Hugging Face name of a decoder module that torchtune or torchtitan names otherwise, or
/// `name` itself: torchtune's output_proj, w1, w3, w2, output and tok_embeddings are o_proj,
/// gate_proj, up_proj, down_proj, lm_head and embed_tokens (torchtune
/// models/convert_weights.py, _FROM_HF); torchtitan's wq, wk, wv, wo likewise q_proj, k_proj,
/// v_proj, o_proj (models/llama3/model/state_dict_adapter.py, from_hf_map). One name, no dots.
/// docs/job-spec.md#lora-targets lists the mapping. Pure.
std::string hf_module_name(const std::string& name);

/// The fused Hugging Face linear a split projection is a slice of ("qkv_proj" for q_proj,
/// k_proj and v_proj; "gate_up_proj" for gate_proj and up_proj: Phi-3's checkpoint layout,
/// which torchtune splits on load), or "" for any other name. Pure.
std::string fused_module_name(const std::string& hf_name);

/// Resolves LoRA `targets` against the model's modules the way PEFT's
/// check_target_module_exists does: a target names the modules whose full name equals it or
/// ends with "." + target; a target with regular-expression characters (any of `*+?()[]{}|^$\`)
/// is a regex that must match a whole module name (PEFT's string form, re.fullmatch);
/// "all-linear" selects every Linear except the output head. On a model with tied embeddings
/// "lm_head" is a module too (it shares the embedding's weight).
/// A one-part name that matches no module is tried under its Hugging Face name
/// (hf_module_name: torchtune's output_proj, w1, ... and torchtitan's wq, ...), and then, on a
/// model that fuses it, as the fused linear (fused_module_name: q_proj selects qkv_proj), so a
/// job may keep the names a framework's file wrote.
/// Fails, with a message meant to follow "lora.targets: ", when `targets` is empty, when a
/// target matches no module (with the closest module-name suffix as a did-you-mean and the
/// names that can be targeted), when it matches only modules LoRA cannot adapt (norms,
/// containers: PEFT raises "Target module ... is not supported"), or when a regex is invalid.
/// Stricter than PEFT, which only fails when no target matches at all: a misspelt target would
/// silently drop its adapters from the plan. Pure; thread-safe.
result<lora_target_set> lora_targets(const model_spec& model,
                                     const std::vector<std::string>& targets);

/// The kind of the module owning tensor `t` (see module_kind).
module_kind kind_of(const model_spec& model, const tensor& t);
/// The same for a tensor of a unit of kind `unit` (no lookup of the unit by name).
module_kind kind_of(const tensor& t, unit_kind unit);

}  // namespace vramscope::model
