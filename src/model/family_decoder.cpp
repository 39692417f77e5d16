// Decoder-only families: one row per model_type saying how it departs from Llama and which
// defaults its transformers config class applies (configuration_<family>.py, __init__
// signature). Defaults matter for nested text_config objects, which real multimodal configs
// leave mostly implicit; top-level configs must give the size fields.
#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "model/families.hpp"

namespace vramscope::model::detail {

namespace {

constexpr std::uint64_t heads_default = 0;  // kv_heads default: num_attention_heads
constexpr std::uint64_t derived = 0;        // head_dim default: hidden_size / num_attention_heads

struct decoder_family {
  std::string_view model_type;
  // transformers class defaults
  std::uint64_t vocab, hidden, intermediate, layers, heads, kv_heads, head_dim;
  bool tied;
  // departures from Llama
  bool reads_attention_bias;  // "attention_bias" adds q/k/v/o biases
  bool qkv_bias;              // q/k/v biases always (qwen2)
  bool qk_norm;
  bool sandwich_norms;
  bool fused;
  bool moe;       // Mixtral's block_sparse_moe
  bool qwen_moe;  // Qwen's mlp.experts (qwen2_moe adds a shared expert)
};

// clang-format off
constexpr std::array<decoder_family, 12> decoder_families{{
    // type           vocab   hidden inter  layers heads kv             head_dim  tied
    {"gemma",         256000, 3072,  24576, 28,    16,   16,            256,      true,
     true, false, false, false, false, false, false},
    {"gemma2",        256000, 2304,  9216,  26,    8,    4,             256,      true,
     true, false, false, true, false, false, false},
    {"gemma3_text",   262208, 2304,  9216,  26,    8,    4,             256,      true,
     true, false, true, true, false, false, false},
    {"llama",         32000,  4096,  11008, 32,    32,   heads_default, derived,  false,
     true, false, false, false, false, false, false},
    {"llama4_text",   202048, 5120,  8192,  48,    40,   8,             128,      false,
     true, false, false, false, false, false, false},
    {"mistral",       32000,  4096,  14336, 32,    32,   8,             derived,  false,
     false, false, false, false, false, false, false},
    {"mixtral",       32000,  4096,  14336, 32,    32,   8,             derived,  false,
     false, false, false, false, false, true, false},
    {"phi3",          32064,  3072,  8192,  32,    32,   heads_default, derived,  false,
     false, false, false, false, true, false, false},
    {"qwen2",         151936, 4096,  22016, 32,    32,   32,            derived,  false,
     false, true, false, false, false, false, false},
    {"qwen2_moe",     151936, 2048,  5632,  24,    16,   16,            derived,  false,
     false, true, false, false, false, false, true},
    {"qwen3",         151936, 4096,  22016, 32,    32,   32,            128,      false,
     true, false, true, false, false, false, false},
    {"qwen3_moe",     151936, 2048,  6144,  24,    32,   4,             derived,  false,
     true, false, true, false, false, false, true},
}};
// clang-format on

const decoder_family* find_decoder_family(std::string_view type) {
  for (const auto& f : decoder_families)
    if (f.model_type == type) return &f;
  return nullptr;
}

void read_sizes(field_reader& c, const decoder_family& f, decoder_layout& d) {
  if (d.embedding) d.vocab = c.size("vocab_size", f.vocab);
  d.hidden = c.size("hidden_size", f.hidden);
  d.intermediate = c.size("intermediate_size", f.intermediate);
  d.layers = c.size("num_hidden_layers", f.layers, max_config_layers);
  d.heads = c.size("num_attention_heads", f.heads);
  // Absent: the class default; null: num_attention_heads (every config class does this).
  const std::uint64_t kv_default =
      (f.kv_heads == heads_default || c.is_null("num_key_value_heads")) ? d.heads : f.kv_heads;
  d.kv_heads = c.count("num_key_value_heads", kv_default);
  if (auto head_dim = c.optional_count("head_dim")) {
    d.head_dim = *head_dim;
  } else if (f.head_dim != derived) {
    d.head_dim = f.head_dim;
  } else if (!c.failed()) {
    c.check(d.hidden % d.heads == 0, "num_attention_heads",
            fmt::format("hidden_size {} is not a multiple of num_attention_heads {} (and no "
                        "head_dim is given)",
                        d.hidden, d.heads));
    d.head_dim = d.hidden / d.heads;
  }
}

void check_heads(field_reader& c, const decoder_layout& d) {
  if (c.failed()) return;
  c.check(d.kv_heads <= d.heads && d.heads % d.kv_heads == 0, "num_key_value_heads",
          fmt::format("num_key_value_heads {} must divide num_attention_heads {}", d.kv_heads,
                      d.heads));
}

// A token cannot go to more experts than a layer has; `experts_field` is the family's name for
// the count (num_local_experts, num_experts, n_routed_experts).
void check_experts_per_token(field_reader& c, const decoder_layout& d, const char* experts_field) {
  if (c.failed()) return;
  c.check(d.experts_per_token <= d.experts, "num_experts_per_tok",
          fmt::format("num_experts_per_tok {} exceeds {} {}", d.experts_per_token, experts_field,
                      d.experts));
}

void read_moe(field_reader& c, decoder_layout& d) {
  d.experts = c.size("num_local_experts", 8, 1024);
  d.experts_per_token = c.count("num_experts_per_tok", 2, 1024);
  check_experts_per_token(c, d, "num_local_experts");
}

// Qwen2MoeConfig / Qwen3MoeConfig: routed experts of moe_intermediate_size, a layer is sparse
// unless listed in mlp_only_layers or off the decoder_sparse_step (modeling_qwen3_moe.py,
// Qwen3MoeDecoderLayer: sparse when (layer + 1) % step == 0); qwen2_moe adds a shared expert.
void read_qwen_moe(field_reader& c, std::string_view type, decoder_layout& d) {
  const bool qwen2 = type == "qwen2_moe";
  d.qwen_moe = true;
  d.experts = c.size("num_experts", qwen2 ? 60 : 128, 1024);
  d.experts_per_token = c.count("num_experts_per_tok", qwen2 ? 4 : 8, 1024);
  d.dense_intermediate = d.intermediate;
  d.intermediate = c.size("moe_intermediate_size", qwen2 ? 1408 : 768);
  if (qwen2) d.shared_intermediate = c.size("shared_expert_intermediate_size", 5632);
  // A bad step (0) is recorded by count(); 1 keeps the loop defined until the error is reported.
  const std::uint64_t step = std::max<std::uint64_t>(1, c.count("decoder_sparse_step", 1, 1024));
  const auto only = c.indices("mlp_only_layers", d.layers);
  for (std::uint64_t l = 0; l < d.layers; ++l)
    if (std::find(only.begin(), only.end(), l) != only.end() || (l + 1) % step != 0)
      d.dense_layers.push_back(l);
  check_experts_per_token(c, d, "num_experts");
}

// Llama4TextConfig (configuration_llama4.py): num_local_experts routed experts of
// intermediate_size, top num_experts_per_tok, and a shared expert of the same width on the
// layers in moe_layers (absent: every interleave_moe_layer_step-th, counting from step - 1, as
// torchtitan's models/llama4 does with (layer + 1) % step == 0); the other layers have a plain
// MLP of intermediate_size_mlp. The query/key L2 norm (use_qk_norm) has no parameters.
void read_llama4_moe(field_reader& c, decoder_layout& d) {
  d.llama4_moe = true;
  d.experts = c.size("num_local_experts", 16, 1024);
  d.experts_per_token = c.count("num_experts_per_tok", 1, 1024);
  d.shared_intermediate = d.intermediate;
  d.dense_intermediate = c.size("intermediate_size_mlp", 16384);
  // A bad step (0) is recorded by count(); 1 keeps the loop defined until the error is reported.
  const std::uint64_t step =
      std::max<std::uint64_t>(1, c.count("interleave_moe_layer_step", 1, 1024));
  const bool listed = c.has("moe_layers");
  const auto sparse = c.indices("moe_layers", d.layers);
  for (std::uint64_t l = 0; l < d.layers; ++l) {
    const bool moe = listed ? std::find(sparse.begin(), sparse.end(), l) != sparse.end()
                            : (l + 1) % step == 0;
    if (!moe) d.dense_layers.push_back(l);
  }
  check_experts_per_token(c, d, "num_local_experts");
}

}  // namespace

// Llama4Config (Llama4ForConditionalGeneration): the text model of text_config only, under
// language_model.; the vision model and projector are not read (torchtitan's models/llama4
// trains the text model alone), and a note says so.
void build_llama4(field_reader& c, inventory_builder& out, std::string_view) {
  static const json empty = json::object();
  field_reader text = c.child("text_config", empty, false);
  const std::string type = text.text("model_type", "llama4_text");
  text.check(type == "llama4_text", "model_type",
             fmt::format("field \"{}\" is \"{}\"; a llama4 text_config is llama4_text",
                         text.path_of("model_type"), type));
  if (c.failed()) return;
  const decoder_layout d = read_text_decoder(text, "llama4_text");
  if (c.failed()) return;
  add_decoder(out, d, {"language_model.model.", "language_model.lm_head.weight", ""});
  out.spec().text = shape_of(d);
  out.spec().notes.push_back(error_at(
      c.source().name, "llama4: the text model only (text_config); the vision model and the "
                       "multi-modal projector are not counted or planned"));
}

// DeepseekV2Config / DeepseekV3Config (configuration_deepseek_v3.py): multi-head latent
// attention, n_routed_experts of moe_intermediate_size with n_shared_experts always active, the
// first first_k_dense_replace layers (and those off moe_layer_freq) dense with
// intermediate_size. The router's e_score_correction_bias is a buffer, not a parameter, and the
// multi-token-prediction layer (num_nextn_predict_layers, stored as layer num_hidden_layers) is
// not part of the trained model: neither is in the inventory.
void build_deepseek(field_reader& c, inventory_builder& out, std::string_view type) {
  const bool v3 = type == "deepseek_v3";
  // DeepSeek's own inference format (inference/configs/config_*.json, ModelArgs of model.py)
  // names the same fields differently; read whichever the file has.
  const auto key = [&c](const char* hf, const char* inference) {
    return !c.has(hf) && c.has(inference) ? inference : hf;
  };
  decoder_layout d;
  d.family = std::string(type);
  d.vocab = c.size("vocab_size", v3 ? 129280 : 102400);
  d.hidden = c.size(key("hidden_size", "dim"), v3 ? 7168 : 5120);
  d.intermediate = c.size(key("intermediate_size", "inter_dim"), v3 ? 18432 : 12288);
  d.layers = c.size(key("num_hidden_layers", "n_layers"), v3 ? 61 : 60, max_config_layers);
  d.heads = c.size(key("num_attention_heads", "n_heads"), 128);
  d.kv_heads = d.heads;  // latent attention expands keys and values per head
  d.tied = c.flag("tie_word_embeddings", false);
  d.attention_bias = c.flag("attention_bias", false);
  d.mla = true;
  // null (transformers) or 0 (DeepSeek's format): no query bottleneck, one q_proj.
  d.q_lora_rank = c.at_most("q_lora_rank", 0, max_config_dimension);
  d.kv_lora_rank = c.count("kv_lora_rank", 512);
  d.qk_rope_head_dim = c.count("qk_rope_head_dim", 64);
  d.head_dim = c.count("qk_nope_head_dim", 128) + d.qk_rope_head_dim;
  d.v_head_dim = c.count("v_head_dim", 128);
  const auto routed = c.optional_count("n_routed_experts", 1024);
  if (routed) {
    d.qwen_moe = true;
    d.deepseek_shared = true;
    d.experts = *routed;
    d.experts_per_token = c.count(key("num_experts_per_tok", "n_activated_experts"), v3 ? 8 : 6, 1024);
    d.dense_intermediate = d.intermediate;
    d.intermediate = c.size(key("moe_intermediate_size", "moe_inter_dim"), v3 ? 2048 : 1407);
    d.shared_intermediate = d.intermediate * c.count("n_shared_experts", v3 ? 1 : 2, 1024);
    const std::uint64_t first_dense =
        c.at_most(key("first_k_dense_replace", "n_dense_layers"), v3 ? 3 : 0, d.layers);
    const std::uint64_t freq = std::max<std::uint64_t>(1, c.count("moe_layer_freq", 1, 1024));
    for (std::uint64_t l = 0; l < d.layers; ++l)
      if (l < first_dense || l % freq != 0) d.dense_layers.push_back(l);
    check_experts_per_token(c, d, "n_routed_experts");
  }
  if (c.failed()) return;
  add_decoder(out, d);
  out.spec().text = shape_of(d);
}

bool is_decoder_family(std::string_view type) { return find_decoder_family(type) != nullptr; }

decoder_layout read_text_decoder(field_reader& c, std::string_view type, bool embedding) {
  const decoder_family* f = find_decoder_family(type);
  VRAMSCOPE_EXPECTS(f != nullptr, "read_text_decoder: not a decoder family");
  decoder_layout d;
  d.family = std::string(type);
  d.embedding = embedding;
  read_sizes(c, *f, d);
  check_heads(c, d);
  d.tied = c.flag("tie_word_embeddings", f->tied);
  if (f->reads_attention_bias) d.attention_bias = c.flag("attention_bias", false);
  if (type == "llama") d.mlp_bias = c.flag("mlp_bias", false);
  if (type == "llama4_text") read_llama4_moe(c, d);
  d.qkv_bias = f->qkv_bias;
  d.qk_norm = f->qk_norm;
  d.sandwich_norms = f->sandwich_norms;
  d.fused = f->fused;
  // transformers' decoder attentions drop the probabilities with config.attention_dropout in
  // training (eager_attention_forward; SDPA and flash take it as dropout_p).
  d.attention_dropout = c.probability("attention_dropout", 0.0) > 0;
  d.attention_softcapping = c.positive("attn_logit_softcapping").has_value();
  if (f->moe) read_moe(c, d);
  if (f->qwen_moe) read_qwen_moe(c, type, d);
  return d;
}

void build_decoder_family(field_reader& config, inventory_builder& out, std::string_view type) {
  const decoder_layout d = read_text_decoder(config, type);
  if (config.failed()) return;
  add_decoder(out, d);
  out.spec().text = shape_of(d);
}

}  // namespace vramscope::model::detail
