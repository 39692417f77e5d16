// pi0 (Physical Intelligence, OpenPI). OpenPI builds the model in JAX from variant names
// (models/pi0.py, gemma.py, siglip.py) and publishes no config.json, so vramscope reads its
// own format: model_type "pi0" with vision_config (SigLIP So400m/14 at 224 px, no pooling
// head), text_config (Gemma 2B, vocabulary 257152) and action_expert_config (Gemma 300M
// shape), every size given explicitly. Parameters, with vramscope's names:
//
//   vision_tower.vision_model.*            SigLIP tower ("PaliGemma/img" in OpenPI)
//   multi_modal_projector.linear [text hidden, vision hidden] +bias   (img "head" Dense)
//   language_model.model.*                 Gemma 2B: embedder, layers, final norm (no head)
//   action_expert.model.layers.N.* / norm  the expert's layers ("_1" suffixed params in OpenPI)
//   state_proj, action_in_proj [width, action_dim] +bias
//   action_time_mlp_in [width, 2*width], action_time_mlp_out [width, width] +bias
//   action_out_proj [action_dim, width] +bias
#include <fmt/format.h>

#include "model/families.hpp"

namespace vramscope::model::detail {

namespace {

const decoder_names pi0_language_model{"language_model.model.", "", ""};
const decoder_names action_expert{"action_expert.model.", "", "action_expert."};

// OpenPI's attention runs both experts' tokens through one softmax, layer by layer.
void check_expert(field_reader& expert, const decoder_layout& text, const decoder_layout& e) {
  if (expert.failed()) return;
  const auto same = [&](std::string_view key, std::uint64_t a, std::uint64_t b) {
    expert.check(a == b, key,
                 fmt::format("field \"{}\" is {}, but text_config has {}: OpenPI runs the two "
                             "experts layer by layer in one attention",
                             expert.path_of(key), a, b));
  };
  same("num_hidden_layers", e.layers, text.layers);
  same("num_attention_heads", e.heads, text.heads);
  same("num_key_value_heads", e.kv_heads, text.kv_heads);
  same("head_dim", e.head_dim, text.head_dim);
}

void check_type(field_reader& r, std::string_view expected) {
  const std::string type = r.text("model_type", std::string(expected));
  r.check(type == expected, "model_type",
          fmt::format("field \"{}\" must be \"{}\", got \"{}\"", r.path_of("model_type"), expected,
                      type));
}

void add_action_in(inventory_builder& out, std::uint64_t width, std::uint64_t action_dim) {
  out.begin_unit("action_in", unit_kind::projector);
  add_linear(out, "state_proj", width, action_dim, true);
  add_linear(out, "action_in_proj", width, action_dim, true);
  add_linear(out, "action_time_mlp_in", width, 2 * width, true);
  add_linear(out, "action_time_mlp_out", width, width, true);
}

}  // namespace

void build_pi0(field_reader& c, inventory_builder& out, std::string_view) {
  static const json empty = json::object();
  field_reader vision = c.child("vision_config", empty, true);
  check_type(vision, "siglip_vision_model");
  const vision_layout v = read_vision(vision, siglip_vision_defaults(false));
  field_reader text = c.child("text_config", empty, true);
  check_type(text, "gemma");
  decoder_layout d = read_text_decoder(text, "gemma");
  d.tied = true;  // OpenPI decodes no tokens with pi0: there is no head
  field_reader expert_config = c.child("action_expert_config", empty, true);
  check_type(expert_config, "gemma");
  decoder_layout e = read_text_decoder(expert_config, "gemma", false);
  check_expert(expert_config, d, e);
  const std::uint64_t action_dim = c.required("action_dim");
  if (c.failed()) return;

  add_vision_tower(out, v, "vision_tower.vision_model.", "vision_tower.");
  out.begin_unit("multi_modal_projector", unit_kind::projector);
  add_linear(out, "multi_modal_projector.linear", d.hidden, v.hidden, true);
  add_decoder_embedding(out, d, pi0_language_model);
  add_action_in(out, e.hidden, action_dim);
  for (std::uint64_t i = 0; i < d.layers && !out.full(); ++i) {
    add_decoder_layer(out, d, pi0_language_model, i);
    add_decoder_layer(out, e, action_expert, i);
  }
  add_decoder_final_norm(out, d, pi0_language_model);
  add_decoder_final_norm(out, e, action_expert);
  out.begin_unit("action_out_proj", unit_kind::head);
  add_linear(out, "action_out_proj", action_dim, e.hidden, true);

  out.spec().text = shape_of(d);
  out.spec().vision = shape_of(v);
  out.spec().extra.push_back(shape_of(e));
  out.spec().extra.back().unit_prefix = action_expert.unit_prefix;
}

}  // namespace vramscope::model::detail
