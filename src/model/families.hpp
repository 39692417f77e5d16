#pragma once
// The model families the config reader knows, as a table (model_type -> builder), and the
// pieces families share: reading a decoder-only text config, the SigLIP and CLIP vision towers
// and their encoder layers.

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "model/config_fields.hpp"
#include "model/decoder_layout.hpp"
#include "model/inventory_builder.hpp"

namespace vramscope::model::detail {

/// Builds the inventory of one model_type from its top-level config reader.
using family_fn = void (*)(field_reader& config, inventory_builder& out, std::string_view type);

struct family {
  std::string_view model_type;
  family_fn build;
};

/// Every supported model_type, sorted by name.
std::span<const family> families();

// Builders, one file per group of families.
void build_decoder_family(field_reader& config, inventory_builder& out, std::string_view type);
void build_gemma3(field_reader& config, inventory_builder& out, std::string_view type);
void build_gpt2(field_reader& config, inventory_builder& out, std::string_view type);
void build_gpt_neox(field_reader& config, inventory_builder& out, std::string_view type);
void build_phi(field_reader& config, inventory_builder& out, std::string_view type);
void build_falcon(field_reader& config, inventory_builder& out, std::string_view type);
void build_stablelm(field_reader& config, inventory_builder& out, std::string_view type);
void build_deepseek(field_reader& config, inventory_builder& out, std::string_view type);
void build_llama4(field_reader& config, inventory_builder& out, std::string_view type);
void build_siglip(field_reader& config, inventory_builder& out, std::string_view type);
void build_paligemma(field_reader& config, inventory_builder& out, std::string_view type);
void build_pi0(field_reader& config, inventory_builder& out, std::string_view type);
void build_bert(field_reader& config, inventory_builder& out, std::string_view type);
void build_clip(field_reader& config, inventory_builder& out, std::string_view type);
void build_t5(field_reader& config, inventory_builder& out, std::string_view type);

/// True when `type` is a decoder-only family read by read_text_decoder.
bool is_decoder_family(std::string_view type);

/// Reads a decoder-only config (llama, llama4_text, mistral, mixtral, qwen2, qwen3, phi3, gemma,
/// gemma2, gemma3_text) with transformers' class defaults for the absent fields (required instead when
/// the reader is strict) and checks that the numbers describe a model. Without `embedding`
/// (pi0's action expert) vocab_size is not read and the stack has no embedding or head.
/// Requires: is_decoder_family(type).
decoder_layout read_text_decoder(field_reader& config, std::string_view type,
                                 bool embedding = true);

/// A ViT tower: SigLIP's (SiglipVisionTransformer) or, with `clip`, CLIP's
/// (CLIPVisionTransformer: a class token, a patch convolution without bias, pre_layrnorm before
/// the layers, post_layernorm over the class token only, no pooling head).
struct vision_layout {
  std::uint64_t hidden = 0;
  std::uint64_t intermediate = 0;
  std::uint64_t layers = 0;
  std::uint64_t heads = 0;
  std::uint64_t channels = 3;
  std::uint64_t image_size = 0;
  std::uint64_t patch_size = 0;
  bool head = true;  // attention-pooling head (vision_use_head; SigLIP only)
  bool clip = false;
  std::uint32_t activation_saved = 1;  // of hidden_act (stack_shape::activation_saved)
  [[nodiscard]] std::uint64_t patches() const {
    return (image_size / patch_size) * (image_size / patch_size);
  }
  /// Tokens per image: the patches, and CLIP's class token.
  [[nodiscard]] std::uint64_t tokens() const { return patches() + (clip ? 1 : 0); }
};

/// SiglipVisionConfig's defaults; `head` is the vision_use_head default of the enclosing model.
vision_layout siglip_vision_defaults(bool head);
/// CLIPVisionConfig's defaults.
vision_layout clip_vision_defaults();

/// Reads a vision tower config (siglip_vision_model or clip_vision_model, as `defaults.clip`
/// says); absent fields take `defaults` when the reader is not strict.
vision_layout read_vision(field_reader& config, const vision_layout& defaults);

/// Emits the tower: units "<unit_prefix>embeddings" (with CLIP's pre_layrnorm),
/// "<unit_prefix>layers.N", "<unit_prefix>post_layernorm" (a norm for SigLIP, which applies it
/// to every token; a vision_head for CLIP, which applies it to the class token) and, with a
/// head, "<unit_prefix>head"; tensor names start with `tensor_prefix` ("vision_model." or
/// "vision_tower.vision_model.").
void add_vision_tower(inventory_builder& out, const vision_layout& v,
                      const std::string& tensor_prefix, const std::string& unit_prefix);

/// The pre-LN encoder layers SigLIP and CLIP (both towers) share (SiglipEncoderLayer,
/// CLIPEncoderLayer): units "<unit_prefix>N" of `kind`, tensors
/// "<tensor_prefix>N.self_attn.{k,v,q,out}_proj", ".layer_norm1", ".mlp.fc1", ".mlp.fc2",
/// ".layer_norm2", every one with its bias.
void add_encoder_layers(inventory_builder& out, std::uint64_t hidden, std::uint64_t intermediate,
                        std::uint64_t layers, const std::string& tensor_prefix,
                        const std::string& unit_prefix, unit_kind kind);

stack_shape shape_of(const vision_layout& v);

/// The model class the config names first in "architectures", or `fallback` when it names
/// none; one that is not among `known` is an error naming the field, the model_type `type`
/// and the classes vramscope reads.
std::string read_architecture(field_reader& config, std::string_view type,
                              std::initializer_list<std::string_view> known,
                              std::string_view fallback);

/// The checkpoint dtype: "torch_dtype" (or the newer "dtype"), else text_config's; when
/// absent, float32, as transformers loads such checkpoints.
dtype read_dtype(field_reader& config);

}  // namespace vramscope::model::detail
