// SigLIP vision towers (SiglipVisionTransformer in transformers' modeling_siglip.py), alone
// (model_type siglip / siglip_vision_model) or inside PaliGemma, Gemma 3 and pi0:
//
//   embeddings.patch_embedding.weight  [hidden, channels, patch, patch]  (+bias [hidden])
//   embeddings.position_embedding.weight [patches, hidden]
//   encoder.layers.N.self_attn.{k,v,q,out}_proj.weight [hidden, hidden] (+bias)
//   encoder.layers.N.layer_norm1 / layer_norm2 .weight/.bias [hidden]
//   encoder.layers.N.mlp.fc1 [intermediate, hidden], fc2 [hidden, intermediate] (+bias)
//   post_layernorm.weight/.bias [hidden]
//   head.*: attention pooling (probe, nn.MultiheadAttention, layernorm, mlp) when used
#include <fmt/format.h>

#include "model/families.hpp"

namespace vramscope::model::detail {

namespace {

void layer_norm(inventory_builder& out, const std::string& base, std::uint64_t width) {
  out.add(base + ".weight", {width});
  out.add(base + ".bias", {width});
}

void encoder_layer(inventory_builder& out, const vision_layout& v, const std::string& p) {
  // SiglipAttention declares k, v, q, out in this order; SiglipEncoderLayer: self_attn,
  // layer_norm1, mlp, layer_norm2.
  for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
    add_linear(out, p + "self_attn." + proj, v.hidden, v.hidden, true);
  layer_norm(out, p + "layer_norm1", v.hidden);
  add_linear(out, p + "mlp.fc1", v.intermediate, v.hidden, true);
  add_linear(out, p + "mlp.fc2", v.hidden, v.intermediate, true);
  layer_norm(out, p + "layer_norm2", v.hidden);
}

void pooling_head(inventory_builder& out, const vision_layout& v, const std::string& p) {
  out.add(p + "head.probe", {1, 1, v.hidden});
  out.add(p + "head.attention.in_proj_weight", {3 * v.hidden, v.hidden});
  out.add(p + "head.attention.in_proj_bias", {3 * v.hidden});
  add_linear(out, p + "head.attention.out_proj", v.hidden, v.hidden, true);
  layer_norm(out, p + "head.layernorm", v.hidden);
  add_linear(out, p + "head.mlp.fc1", v.intermediate, v.hidden, true);
  add_linear(out, p + "head.mlp.fc2", v.hidden, v.intermediate, true);
}

}  // namespace

vision_layout read_vision(field_reader& c, bool use_head_default) {
  // SiglipVisionConfig defaults: 768 / 3072 / 12 layers / 12 heads / 3 channels / 224 / 16.
  vision_layout v;
  v.hidden = c.size("hidden_size", 768);
  v.intermediate = c.size("intermediate_size", 3072);
  v.layers = c.size("num_hidden_layers", 12, max_config_layers);
  v.heads = c.size("num_attention_heads", 12);
  v.channels = c.count("num_channels", 3, 64);
  v.image_size = c.size("image_size", 224);
  v.patch_size = c.size("patch_size", 16);
  v.head = c.flag("vision_use_head", use_head_default);
  if (c.failed()) return v;
  c.check(
      v.hidden % v.heads == 0, "num_attention_heads",
      fmt::format("hidden_size {} is not a multiple of num_attention_heads {}", v.hidden, v.heads));
  c.check(v.patch_size <= v.image_size, "patch_size",
          fmt::format("patch_size {} is larger than image_size {}", v.patch_size, v.image_size));
  return v;
}

void add_vision_tower(inventory_builder& out, const vision_layout& v,
                      const std::string& tensor_prefix, const std::string& unit_prefix) {
  out.begin_unit(unit_prefix + "embeddings", unit_kind::vision_embedding);
  const std::string e = tensor_prefix + "embeddings.";
  out.add(e + "patch_embedding.weight", {v.hidden, v.channels, v.patch_size, v.patch_size});
  out.add(e + "patch_embedding.bias", {v.hidden});
  out.add(e + "position_embedding.weight", {v.patches(), v.hidden});
  for (std::uint64_t i = 0; i < v.layers && !out.full(); ++i) {
    out.begin_unit(fmt::format("{}layers.{}", unit_prefix, i), unit_kind::vision_block);
    encoder_layer(out, v, fmt::format("{}encoder.layers.{}.", tensor_prefix, i));
  }
  out.begin_unit(unit_prefix + "post_layernorm", unit_kind::norm);
  layer_norm(out, tensor_prefix + "post_layernorm", v.hidden);
  if (!v.head) return;
  out.begin_unit(unit_prefix + "head", unit_kind::vision_head);
  pooling_head(out, v, tensor_prefix);
}

stack_shape shape_of(const vision_layout& v) {
  stack_shape s;
  s.family = "siglip";
  s.hidden = v.hidden;
  s.intermediate = v.intermediate;
  s.layers = v.layers;
  s.heads = v.heads;
  s.kv_heads = v.heads;
  s.head_dim = v.heads ? v.hidden / v.heads : 0;
  s.gated_mlp = false;
  s.layer_norm = true;  // SiglipEncoderLayer: nn.LayerNorm, sequential, gelu_pytorch_tanh
  s.image_tokens = v.patch_size ? v.patches() : 0;
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
    v = read_vision(vision, true);
  } else {
    v = read_vision(config, true);
  }
  if (config.failed()) return;
  add_vision_tower(out, v, "vision_model.", "vision_tower.");
  // The tower is the only stack: `text` holds it, and so does `vision`, which is where the
  // activation model looks for the stack of vision units and their image tokens.
  out.spec().text = shape_of(v);
  out.spec().vision = shape_of(v);
}

}  // namespace vramscope::model::detail
