// CLIP (transformers' modeling_clip.py): CLIPModel (model_type clip), CLIPTextModel
// (clip_text_model) and CLIPVisionModel (clip_vision_model), in CLIPModel.forward's order:
//
//   vision_model.*                                  CLIPVisionTransformer (family_vision.cpp)
//   text_model.embeddings.token_embedding.weight    [vocab, hidden]
//   text_model.embeddings.position_embedding.weight [max_position_embeddings, hidden]
//   text_model.encoder.layers.N.*                   CLIPEncoderLayer (family_vision.cpp)
//   text_model.final_layer_norm.weight/.bias        [hidden]
//   visual_projection.weight [projection_dim, vision hidden]   (no bias)
//   text_projection.weight   [projection_dim, text hidden]     (no bias)
//   logit_scale              []                                 (a scalar)
//
// CLIPTextModelWithProjection and CLIPVisionModelWithProjection, when "architectures" names
// them, add their tower's projection. Neither tower has a vocabulary head: CLIP's loss is over
// the batch x batch similarity matrix, so the stacks say vocab 0 and no logits are planned.
#include <fmt/format.h>

#include "model/families.hpp"

namespace vramscope::model::detail {

namespace {

// CLIPTextTransformer: pre-LN layers, causal attention (the same memory as bidirectional under
// SDPA), a final LayerNorm over every token.
struct clip_text {
  std::uint64_t vocab = 0;
  std::uint64_t positions = 0;
  std::uint64_t hidden = 0;
  std::uint64_t intermediate = 0;
  std::uint64_t layers = 0;
  std::uint64_t heads = 0;
  std::uint32_t activation_saved = 1;
};

clip_text read_text(field_reader& c) {
  // CLIPTextConfig defaults: 49408 / 512 / 2048 / 12 layers / 8 heads / 77 positions, quick_gelu.
  clip_text t;
  t.vocab = c.size("vocab_size", 49408);
  t.hidden = c.size("hidden_size", 512);
  t.intermediate = c.size("intermediate_size", 2048);
  t.layers = c.size("num_hidden_layers", 12, max_config_layers);
  t.heads = c.size("num_attention_heads", 8);
  t.positions = c.count("max_position_embeddings", 77);
  t.activation_saved = read_activation(c, "hidden_act", "quick_gelu");
  if (!c.failed())
    c.check(t.hidden % t.heads == 0, "num_attention_heads",
            fmt::format("hidden_size {} is not a multiple of num_attention_heads {}", t.hidden,
                        t.heads));
  return t;
}

void add_text_tower(inventory_builder& out, const clip_text& t) {
  out.begin_unit("text_model.embeddings", unit_kind::embedding);
  out.add("text_model.embeddings.token_embedding.weight", {t.vocab, t.hidden});
  out.add("text_model.embeddings.position_embedding.weight", {t.positions, t.hidden});
  add_encoder_layers(out, t.hidden, t.intermediate, t.layers, "text_model.encoder.layers.",
                     "text_model.layers.", unit_kind::block);
  out.begin_unit("text_model.final_layer_norm", unit_kind::norm);
  add_layer_norm(out, "text_model.final_layer_norm", t.hidden);
}

stack_shape shape_of(const clip_text& t) {
  stack_shape s;
  s.family = "clip";
  s.hidden = t.hidden;
  s.intermediate = t.intermediate;
  s.layers = t.layers;
  s.heads = t.heads;
  s.kv_heads = t.heads;
  s.head_dim = t.hidden / t.heads;
  s.gated_mlp = false;
  s.layer_norm = true;
  s.activation_saved = t.activation_saved;
  return s;
}

void add_projection(inventory_builder& out, const char* name, std::uint64_t projection,
                    std::uint64_t hidden) {
  out.begin_unit(name, unit_kind::projector);
  add_linear(out, name, projection, hidden, false);
}

// A sub-config of CLIPConfig. An old config may also carry "<key>_dict" (text_config_dict,
// vision_config_dict): CLIPConfig.__init__ (configuration_clip.py) then builds the tower from
// that dict with the class defaults and lets it override <key> entirely, and so do we.
field_reader tower_config(field_reader& c, const std::string& key) {
  static const json empty = json::object();
  const std::string dict = key + "_dict";
  return c.child(c.has(dict) ? dict : key, empty, false);
}

void build_clip_model(field_reader& c, inventory_builder& out) {
  read_architecture(c, "clip", {"CLIPModel"}, "CLIPModel");
  field_reader vision_config = tower_config(c, "vision_config");
  const vision_layout v = read_vision(vision_config, clip_vision_defaults());
  field_reader text_config = tower_config(c, "text_config");
  const clip_text t = read_text(text_config);
  const std::uint64_t projection = c.count("projection_dim", 512);  // CLIPConfig's default
  if (c.failed()) return;
  add_vision_tower(out, v, "vision_model.", "vision_model.");
  add_text_tower(out, t);
  add_projection(out, "visual_projection", projection, v.hidden);
  add_projection(out, "text_projection", projection, t.hidden);
  out.begin_unit("logit_scale", unit_kind::other);
  out.add("logit_scale", {});
  out.spec().text = shape_of(t);
  out.spec().vision = shape_of(v);
}

}  // namespace

void build_clip(field_reader& c, inventory_builder& out, std::string_view type) {
  if (type == "clip") return build_clip_model(c, out);
  const bool text = type == "clip_text_model";
  const std::string with_projection =
      text ? "CLIPTextModelWithProjection" : "CLIPVisionModelWithProjection";
  const bool projected =
      read_architecture(c, type, {text ? "CLIPTextModel" : "CLIPVisionModel", with_projection},
                        "") == with_projection;
  if (text) {
    const clip_text t = read_text(c);
    const std::uint64_t projection = projected ? c.count("projection_dim", 512) : 0;
    if (c.failed()) return;
    add_text_tower(out, t);
    if (projected) add_projection(out, "text_projection", projection, t.hidden);
    out.spec().text = shape_of(t);
    return;
  }
  const vision_layout v = read_vision(c, clip_vision_defaults());
  const std::uint64_t projection = projected ? c.count("projection_dim", 512) : 0;
  if (c.failed()) return;
  add_vision_tower(out, v, "vision_model.", "vision_model.");
  if (projected) add_projection(out, "visual_projection", projection, v.hidden);
  // The tower is the only stack, as for siglip_vision_model (family_vision.cpp).
  out.spec().text = shape_of(v);
  out.spec().vision = shape_of(v);
}

}  // namespace vramscope::model::detail
