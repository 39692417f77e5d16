#pragma once
// What is in a model: its architecture numbers and the exact list of parameter tensors, each
// assigned to the unit that FSDP / ZeRO-3 would gather as one piece (embedding, each block,
// final norm, head, vision tower blocks, projector, ...). Every memory figure vramscope
// computes later starts from this inventory.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/dtype.hpp>
#include <vramscope/core/result.hpp>

namespace vramscope::model {

/// One parameter tensor, as it appears in the checkpoint.
struct tensor {
  std::string name;                  // checkpoint name, e.g. "model.layers.0.self_attn.q_proj.weight"
  std::vector<std::uint64_t> shape;  // as stored (out_features, in_features) for Linear weights
  dtype type = dtype::bf16;          // checkpoint dtype (config's torch_dtype)
  std::string unit;                  // the unit it belongs to, e.g. "layers.0" (see `unit`)
  [[nodiscard]] std::uint64_t numel() const {
    std::uint64_t n = 1;
    for (std::uint64_t d : shape) n *= d;
    return n;
  }

  friend bool operator==(const tensor&, const tensor&) = default;
};

/// What a unit is: the granularity of FSDP wrapping and ZeRO-3 gathering.
enum class unit_kind { embedding, block, norm, head, vision_embedding, vision_block, vision_head, projector, other };

/// A group of tensors gathered together. `name` is the module path relative to the model
/// ("embed_tokens", "layers.7", "norm", "lm_head", "vision_tower.layers.3", "multi_modal_projector").
struct unit {
  std::string name;
  unit_kind kind = unit_kind::other;
  std::uint64_t parameters = 0;  // elements in this unit's tensors
  bytes size = 0;                // bytes in checkpoint dtype

  friend bool operator==(const unit&, const unit&) = default;
};

/// How a block arranges its attention and MLP around the residual stream.
enum class block_form {
  sequential,       // h = x + attn(norm1(x)); out = h + mlp(norm2(h))     (Llama, GPT-2)
  parallel,         // out = x + attn(norm1(x)) + mlp(norm2(x))            (GPT-NeoX)
  parallel_shared,  // out = x + attn(n) + mlp(n), n = norm(x): one norm   (Phi, Falcon-7B)
};

/// The numbers the activation and communication models need, for one transformer stack.
struct stack_shape {
  std::string family;        // "llama", "gemma2", "siglip", ...
  std::uint64_t hidden = 0;
  std::uint64_t intermediate = 0;  // MLP width (per expert for MoE)
  std::uint64_t layers = 0;
  std::uint64_t heads = 0;
  std::uint64_t kv_heads = 0;
  std::uint64_t head_dim = 0;
  std::uint64_t vocab = 0;         // 0 for vision towers
  std::uint64_t experts = 0;       // 0 for dense models
  std::uint64_t experts_per_token = 0;
  std::uint64_t shared_expert_intermediate = 0;  // an always-active expert beside the routed ones
  bool gated_mlp = true;           // SwiGLU / GeGLU (3 matrices) vs plain MLP (2)
  bool tied_embeddings = false;
  std::uint64_t image_tokens = 0;  // vision towers: patches per image
  bool layer_norm = false;         // LayerNorm (saves its input as is, mean and rstd) rather
                                   // than an RMSNorm that upcasts its input to fp32
  block_form form = block_form::sequential;
  std::uint32_t activation_saved = 1;  // MLP-width tensors the activation function saves: 1 for
                                       // one fused op (silu, gelu, gelu_pytorch_tanh); more for
                                       // transformers' composite ones (gelu_new saves 4)
  bool residual_dropout = false;   // dropout on the attention and MLP outputs (a bool mask each)
  bool attention_dropout = false;  // dropout on the attention probabilities: its mask and the
                                   // dropped copy where the scores exist (eager, math attention)
  bool attention_softcapping = false;  // the attention scores are soft-capped, tanh(s / cap) *
                                       // cap (Gemma 2's attn_logit_softcapping): where code
                                       // writes it out, tanh keeps its output for backward
  bool eager_attention = false;    // the family's attention is written as matmul, softmax,
                                   // matmul whatever kernel the job asks for (T5's relative
                                   // position bias): the scores are always materialised
  bool cross_attention = false;    // each block also attends to an encoder's output (T5's
                                   // decoder): a second norm and attention, keys and values
                                   // over as many encoder tokens as the block has
  std::string unit_prefix{};       // extra stacks: the prefix of the unit names that belong to
                                   // this stack ("action_expert.", "encoder.")

  friend bool operator==(const stack_shape&, const stack_shape&) = default;
};

/// A model: identity, architecture numbers, tensor inventory and units in forward order.
struct model_spec {
  std::string name;                  // preset name or the path it was read from
  std::string model_type;            // config.json "model_type"
  dtype type = dtype::bf16;          // checkpoint dtype
  stack_shape text;                  // the language model (or the only stack)
  std::optional<stack_shape> vision; // vision tower for multimodal models
  std::vector<stack_shape> extra;    // further stacks (pi0's action expert, T5's encoder),
                                     // each owning the units named with its unit_prefix
  std::vector<tensor> tensors;       // checkpoint order within each unit
  std::vector<unit> units;           // forward order
  warnings notes;                    // oddities that did not stop loading (e.g. a tied head
                                     // present in the weights anyway)

  [[nodiscard]] std::uint64_t parameters() const;
  [[nodiscard]] bytes size() const;  // bytes of all tensors in their dtypes
  /// The unit with the most parameters (the largest single FSDP / ZeRO-3 gather); the first
  /// such unit on ties. Requires: at least one unit (every model the readers return has one).
  [[nodiscard]] const unit& largest_unit() const;

  friend bool operator==(const model_spec&, const model_spec&) = default;
};

/// Lower-case name of a unit kind: "embedding", "block", "vision_block", ...
std::string_view name_of(unit_kind kind);

/// A shape as text: {4096, 128256} -> "[4096, 128256]"; a scalar is "[]".
std::string format_shape(const std::vector<std::uint64_t>& shape);

/// Recomputes every unit's `parameters` and `size` from `tensors` (after tensor dtypes
/// changed, for instance). Units keep their order; a tensor naming a unit that does not exist
/// is a bug (std::logic_error).
void recompute_units(model_spec& spec);

/// `spec` with its tied output head made a weight of its own: a head unit "lm_head" holding
/// "lm_head.weight" (vocab x hidden, the embedding's dtype) right after the text stack's final
/// norm, and text.tied_embeddings false. Code that builds the head as its own Linear and copies
/// the embedding into it loads a tied checkpoint so (LitGPT's GPT; docs/schedule.md, "LitGPT's
/// model"). A model without a tied head, or whose embedding or final norm is not found, comes
/// back unchanged.
model_spec with_own_head(const model_spec& spec);

/// Loads a model from a preset name ("llama-3.1-8b"), a config.json path, a .safetensors
/// file, or a folder that holds config.json and/or safetensors files (single file, index +
/// shards, or several *.safetensors). When both a config and weights are present their
/// inventories are compared and any difference is an error naming the first differing tensor;
/// when they agree, tensor dtypes are taken from the weights. Weights without a config give
/// an inventory whose units are inferred from tensor names (model_type "safetensors").
/// A bare name (no '/', no file of that name) is looked up in the preset catalog
/// (see catalog.hpp); an unknown one is an error that lists the presets.
/// Reads only config files and safetensors headers, never the weights. Thread-safe.
result<model_spec> load_model(const std::string& name_or_path);

}  // namespace vramscope::model
