// Vision-language models: a SigLIP tower, a projector and a decoder.
//
// PaliGemma (modeling_paligemma.py): vision_tower.vision_model.* (no pooling head),
//   multi_modal_projector.linear [projection_dim, vision hidden] (+bias), language_model.model.*
//   (Gemma, or Gemma 2 for PaliGemma 2), head tied.
// Gemma 3 (modeling_gemma3.py): the same, with multi_modal_projector.mm_input_projection_weight
//   [vision hidden, text hidden] and mm_soft_emb_norm.weight [vision hidden].
// pi0 (OpenPI, which has no Hugging Face config): PaliGemma with Gemma 2B plus an action expert
//   run layer by layer beside it; vramscope's config format and names are in docs/models.md.
#include <fmt/format.h>

#include "model/families.hpp"

namespace vramscope::model::detail {

namespace {

const decoder_names language_model{"language_model.model.", "language_model.lm_head.weight", ""};

// Reads text_config as the decoder family its model_type names (default `default_type`).
decoder_layout read_language_model(field_reader& text, std::string_view default_type) {
  const std::string type = text.text("model_type", std::string(default_type));
  if (!is_decoder_family(type)) {
    text.fail("model_type", fmt::format("field \"{}\" is \"{}\", which is not a decoder family "
                                        "vramscope reads as a language model",
                                        text.path_of("model_type"), type));
    return {};
  }
  return read_text_decoder(text, type);
}

void check_vision_type(field_reader& vision) {
  const std::string type = vision.text("model_type", "siglip_vision_model");
  vision.check(type == "siglip_vision_model", "model_type",
               fmt::format("field \"{}\" is \"{}\"; only siglip_vision_model towers are read",
                           vision.path_of("model_type"), type));
}

void add_text_tail(inventory_builder& out, const decoder_layout& d, const decoder_names& n) {
  for (std::uint64_t i = 0; i < d.layers && !out.full(); ++i) add_decoder_layer(out, d, n, i);
  add_decoder_final_norm(out, d, n);
  add_decoder_head(out, d, n);
}

}  // namespace

void build_paligemma(field_reader& c, inventory_builder& out, std::string_view) {
  // PaliGemmaConfig: an absent vision_config or text_config gets these (PaliGemma 3B) values.
  static const json default_vision = {{"intermediate_size", 4096}, {"hidden_size", 1152},
                                      {"patch_size", 14},          {"image_size", 224},
                                      {"num_hidden_layers", 27},   {"num_attention_heads", 16},
                                      {"vision_use_head", false}};
  json default_text = {{"hidden_size", 2048},        {"num_hidden_layers", 18},
                       {"intermediate_size", 16384}, {"num_attention_heads", 8},
                       {"num_key_value_heads", 1},   {"vocab_size", c.count("vocab_size", 257152)}};
  field_reader vision = c.child("vision_config", default_vision, false);
  check_vision_type(vision);
  const vision_layout v = read_vision(vision, siglip_vision_defaults(true));
  field_reader text = c.child("text_config", default_text, false);
  const decoder_layout d = read_language_model(text, "gemma");
  const std::uint64_t projection = c.count("projection_dim", 2048);
  if (c.failed()) return;
  add_decoder_embedding(out, d, language_model);
  add_vision_tower(out, v, "vision_tower.vision_model.", "vision_tower.");
  out.begin_unit("multi_modal_projector", unit_kind::projector);
  out.add("multi_modal_projector.linear.weight", {projection, v.hidden});
  out.add("multi_modal_projector.linear.bias", {projection});
  add_text_tail(out, d, language_model);
  out.spec().text = shape_of(d);
  out.spec().vision = shape_of(v);
}

void build_gemma3(field_reader& c, inventory_builder& out, std::string_view) {
  // Gemma3Config: absent sub-configs are Gemma3TextConfig() and SiglipVisionConfig().
  static const json empty = json::object();
  field_reader vision = c.child("vision_config", empty, false);
  check_vision_type(vision);
  const vision_layout v = read_vision(vision, siglip_vision_defaults(true));
  field_reader text = c.child("text_config", empty, false);
  const decoder_layout d = read_language_model(text, "gemma3_text");
  if (c.failed()) return;
  add_decoder_embedding(out, d, language_model);
  add_vision_tower(out, v, "vision_tower.vision_model.", "vision_tower.");
  out.begin_unit("multi_modal_projector", unit_kind::projector);
  out.add("multi_modal_projector.mm_input_projection_weight", {v.hidden, d.hidden});
  out.add("multi_modal_projector.mm_soft_emb_norm.weight", {v.hidden});
  add_text_tail(out, d, language_model);
  out.spec().text = shape_of(d);
  out.spec().vision = shape_of(v);
}

}  // namespace vramscope::model::detail
