// Vision towers: SigLIP's (SiglipVisionTransformer in transformers' modeling_siglip.py), alone
// (model_type siglip / siglip_vision_model) or inside PaliGemma, Gemma 3 and pi0, and CLIP's
// (CLIPVisionTransformer in modeling_clip.py; family_clip.cpp reads the CLIP configs):
//
//   embeddings.class_embedding          [hidden]                             (CLIP)
//   embeddings.patch_embedding.weight   [hidden, channels, patch, patch]     (+bias: SigLIP)
//   embeddings.position_embedding.weight [patches (+1 for CLIP's class token), hidden]
//   pre_layrnorm.weight/.bias [hidden]                                       (CLIP)
//   encoder.layers.N.self_attn.{k,v,q,out}_proj.weight [hidden, hidden] (+bias)
//   encoder.layers.N.layer_norm1 / layer_norm2 .weight/.bias [hidden]
//   encoder.layers.N.mlp.fc1 [intermediate, hidden], fc2 [hidden, intermediate] (+bias)
//   post_layernorm.weight/.bias [hidden]
//   head.*: attention pooling (probe, nn.MultiheadAttention, layernorm, mlp) when used (SigLIP)
#include <fmt/format.h>

#include "model/families.hpp"

namespace vramscope::model::detail {

namespace {

void encoder_layer(inventory_builder& out, std::uint64_t hidden, std::uint64_t intermediate,
                   const std::string& p) {
  // SiglipAttention and CLIPAttention declare k, v, q, out in this order; the encoder layers:
  // self_attn, layer_norm1, mlp, layer_norm2.
  for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
    add_linear(out, p + "self_attn." + proj, hidden, hidden, true);
  add_layer_norm(out, p + "layer_norm1", hidden);
  add_linear(out, p + "mlp.fc1", intermediate, hidden, true);
  add_linear(out, p + "mlp.fc2", hidden, intermediate, true);
  add_layer_norm(out, p + "layer_norm2", hidden);
}

void pooling_head(inventory_builder& out, const vision_layout& v, const std::string& p) {
  out.add(p + "head.probe", {1, 1, v.hidden});
  out.add(p + "head.attention.in_proj_weight", {3 * v.hidden, v.hidden});
  out.add(p + "head.attention.in_proj_bias", {3 * v.hidden});
  add_linear(out, p + "head.attention.out_proj", v.hidden, v.hidden, true);
  add_layer_norm(out, p + "head.layernorm", v.hidden);
  add_linear(out, p + "head.mlp.fc1", v.intermediate, v.hidden, true);
  add_linear(out, p + "head.mlp.fc2", v.hidden, v.intermediate, true);
}

}  // namespace

vision_layout siglip_vision_defaults(bool head) {
  // SiglipVisionConfig: 768 / 3072 / 12 layers / 12 heads / 3 channels / 224 / 16,
  // gelu_pytorch_tanh.
  return vision_layout{768, 3072, 12, 12, 3, 224, 16, head, false, 1};
}

vision_layout clip_vision_defaults() {
  // CLIPVisionConfig: 768 / 3072 / 12 layers / 12 heads / 3 channels / 224 / 32, quick_gelu.
  return vision_layout{768, 3072, 12, 12, 3, 224, 32, false, true, 2};
}

vision_layout read_vision(field_reader& c, const vision_layout& defaults) {
  vision_layout v = defaults;
  v.hidden = c.size("hidden_size", defaults.hidden);
  v.intermediate = c.size("intermediate_size", defaults.intermediate);
  v.layers = c.size("num_hidden_layers", defaults.layers, max_config_layers);
  v.heads = c.size("num_attention_heads", defaults.heads);
  v.channels = c.count("num_channels", defaults.channels, 64);
  v.image_size = c.size("image_size", defaults.image_size);
  v.patch_size = c.size("patch_size", defaults.patch_size);
  if (!defaults.clip) v.head = c.flag("vision_use_head", defaults.head);
  v.activation_saved =
      read_activation(c, "hidden_act", defaults.clip ? "quick_gelu" : "gelu_pytorch_tanh");
  if (c.failed()) return v;
  c.check(
      v.hidden % v.heads == 0, "num_attention_heads",
      fmt::format("hidden_size {} is not a multiple of num_attention_heads {}", v.hidden, v.heads));
  c.check(v.patch_size <= v.image_size, "patch_size",
          fmt::format("patch_size {} is larger than image_size {}", v.patch_size, v.image_size));
  return v;
}

void add_encoder_layers(inventory_builder& out, std::uint64_t hidden, std::uint64_t intermediate,
                        std::uint64_t layers, const std::string& tensor_prefix,
                        const std::string& unit_prefix, unit_kind kind) {
  for (std::uint64_t i = 0; i < layers && !out.full(); ++i) {
    out.begin_unit(fmt::format("{}{}", unit_prefix, i), kind);
    encoder_layer(out, hidden, intermediate, fmt::format("{}{}.", tensor_prefix, i));
  }
}

void add_vision_tower(inventory_builder& out, const vision_layout& v,
                      const std::string& tensor_prefix, const std::string& unit_prefix) {
  out.begin_unit(unit_prefix + "embeddings", unit_kind::vision_embedding);
  const std::string e = tensor_prefix + "embeddings.";
  if (v.clip) out.add(e + "class_embedding", {v.hidden});
  out.add(e + "patch_embedding.weight", {v.hidden, v.channels, v.patch_size, v.patch_size});
  if (!v.clip) out.add(e + "patch_embedding.bias", {v.hidden});
  out.add(e + "position_embedding.weight", {v.tokens(), v.hidden});
  if (v.clip) add_layer_norm(out, tensor_prefix + "pre_layrnorm", v.hidden);
  add_encoder_layers(out, v.hidden, v.intermediate, v.layers, tensor_prefix + "encoder.layers.",
                     unit_prefix + "layers.", unit_kind::vision_block);
  out.begin_unit(unit_prefix + "post_layernorm", v.clip ? unit_kind::vision_head : unit_kind::norm);
  add_layer_norm(out, tensor_prefix + "post_layernorm", v.hidden);
  if (!v.head) return;
  out.begin_unit(unit_prefix + "head", unit_kind::vision_head);
  pooling_head(out, v, tensor_prefix);
}

stack_shape shape_of(const vision_layout& v) {
  stack_shape s;
  s.family = v.clip ? "clip" : "siglip";
  s.hidden = v.hidden;
  s.intermediate = v.intermediate;
  s.layers = v.layers;
  s.heads = v.heads;
  s.kv_heads = v.heads;
  s.head_dim = v.heads ? v.hidden / v.heads : 0;
  s.gated_mlp = false;
  s.layer_norm = true;  // nn.LayerNorm, sequential pre-LN layers
  s.activation_saved = v.activation_saved;
  s.image_tokens = v.patch_size ? v.tokens() : 0;
  return s;
}

void build_siglip(field_reader& config, inventory_builder& out, std::string_view type) {
  // A full SigLIP config ("siglip") nests the tower in vision_config, with the config class's
  // defaults; a standalone SiglipVisionModel config is the tower itself. Either way the
  // checkpoint names start with "vision_model.". The text tower of "siglip" is not included.
  static const json empty = json::object();
  vision_layout v;
  if (type == "siglip") {
    field_reader vision = config.child("vision_config", empty, false);
    v = read_vision(vision, siglip_vision_defaults(true));
  } else {
    v = read_vision(config, siglip_vision_defaults(true));
  }
  if (config.failed()) return;
  add_vision_tower(out, v, "vision_model.", "vision_tower.");
  // The tower is the only stack: `text` holds it, and so does `vision`, which is where the
  // activation model looks for the stack of vision units and their image tokens.
  out.spec().text = shape_of(v);
  out.spec().vision = shape_of(v);
}

}  // namespace vramscope::model::detail
