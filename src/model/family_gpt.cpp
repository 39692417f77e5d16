// GPT-2 and GPT-NeoX (Pythia): LayerNorm with biases, plain (ungated) MLPs.
//
// GPT-2 (modeling_gpt2.py) stores its projections as Conv1D, whose weight is (in, out):
//   wte.weight [vocab, n_embd]   wpe.weight [n_positions, n_embd]
//   h.N.ln_1 / ln_2 .weight/.bias [n_embd]
//   h.N.attn.c_attn.weight [n_embd, 3*n_embd] .bias [3*n_embd]
//   h.N.attn.c_proj.weight [n_embd, n_embd]   .bias [n_embd]
//   h.N.mlp.c_fc.weight [n_embd, n_inner]     .bias [n_inner]
//   h.N.mlp.c_proj.weight [n_inner, n_embd]   .bias [n_embd]
//   ln_f.weight/.bias; no lm_head tensor: the head is tied to wte.
// Names are those of the published checkpoint (saved from GPT2Model, so without the
// "transformer." prefix GPT2LMHeadModel would add).
//
// GPT-NeoX (modeling_gpt_neox.py), nn.Linear (out, in):
//   gpt_neox.embed_in.weight [vocab, hidden]
//   gpt_neox.layers.N.input_layernorm / post_attention_layernorm .weight/.bias
//   gpt_neox.layers.N.attention.query_key_value [3*hidden, hidden] (+bias)
//   gpt_neox.layers.N.attention.dense [hidden, hidden] (+bias)
//   gpt_neox.layers.N.mlp.dense_h_to_4h [intermediate, hidden] +bias, dense_4h_to_h +bias
//   gpt_neox.final_layer_norm.weight/.bias; embed_out.weight [vocab, hidden] (untied)
#include <fmt/format.h>

#include "model/families.hpp"

namespace vramscope::model::detail {

namespace {

void pair(inventory_builder& out, const std::string& base, std::vector<std::uint64_t> weight,
          std::uint64_t bias) {
  out.add(base + ".weight", std::move(weight));
  out.add(base + ".bias", {bias});
}

void check_heads(field_reader& c, std::string_view heads_key, std::uint64_t hidden,
                 std::uint64_t heads) {
  if (c.failed()) return;
  c.check(hidden % heads == 0, heads_key,
          fmt::format("the width {} is not a multiple of {} {}", hidden, heads_key, heads));
}

stack_shape plain_shape(std::string family, std::uint64_t hidden, std::uint64_t inner,
                        std::uint64_t layers, std::uint64_t heads, std::uint64_t vocab, bool tied) {
  stack_shape s;
  s.family = std::move(family);
  s.hidden = hidden;
  s.intermediate = inner;
  s.layers = layers;
  s.heads = heads;
  s.kv_heads = heads;
  s.head_dim = hidden / heads;
  s.vocab = vocab;
  s.gated_mlp = false;
  s.tied_embeddings = tied;
  return s;
}

}  // namespace

void build_gpt2(field_reader& c, inventory_builder& out, std::string_view) {
  // GPT2Config defaults: 50257 / 1024 / 768 / 12 / 12; n_inner None means 4 * n_embd.
  const std::uint64_t vocab = c.size("vocab_size", 50257);
  const std::uint64_t positions = c.size("n_positions", 1024);
  const std::uint64_t h = c.size("n_embd", 768);
  const std::uint64_t layers = c.size("n_layer", 12, max_config_layers);
  const std::uint64_t heads = c.size("n_head", 12);
  const std::uint64_t inner = c.count("n_inner", 4 * h);
  const bool tied = c.flag("tie_word_embeddings", true);
  check_heads(c, "n_head", h, heads);
  if (c.failed()) return;
  out.begin_unit("wte", unit_kind::embedding);
  out.add("wte.weight", {vocab, h});
  out.begin_unit("wpe", unit_kind::embedding);
  out.add("wpe.weight", {positions, h});
  for (std::uint64_t i = 0; i < layers && !out.full(); ++i) {
    out.begin_unit(fmt::format("h.{}", i), unit_kind::block);
    const std::string p = fmt::format("h.{}.", i);
    pair(out, p + "ln_1", {h}, h);
    pair(out, p + "attn.c_attn", {h, 3 * h}, 3 * h);
    pair(out, p + "attn.c_proj", {h, h}, h);
    pair(out, p + "ln_2", {h}, h);
    pair(out, p + "mlp.c_fc", {h, inner}, inner);
    pair(out, p + "mlp.c_proj", {inner, h}, h);
  }
  out.begin_unit("ln_f", unit_kind::norm);
  pair(out, "ln_f", {h}, h);
  if (!tied) {
    out.begin_unit("lm_head", unit_kind::head);
    out.add("lm_head.weight", {vocab, h});
  }
  out.spec().text = plain_shape("gpt2", h, inner, layers, heads, vocab, tied);
}

void build_gpt_neox(field_reader& c, inventory_builder& out, std::string_view) {
  // GPTNeoXConfig defaults: 50432 / 6144 / 44 layers / 64 heads / 24576; attention_bias True.
  const std::uint64_t vocab = c.size("vocab_size", 50432);
  const std::uint64_t h = c.size("hidden_size", 6144);
  const std::uint64_t layers = c.size("num_hidden_layers", 44, max_config_layers);
  const std::uint64_t heads = c.size("num_attention_heads", 64);
  const std::uint64_t inner = c.size("intermediate_size", 24576);
  const bool bias = c.flag("attention_bias", true);
  const bool tied = c.flag("tie_word_embeddings", false);
  check_heads(c, "num_attention_heads", h, heads);
  if (c.failed()) return;
  out.begin_unit("embed_in", unit_kind::embedding);
  out.add("gpt_neox.embed_in.weight", {vocab, h});
  for (std::uint64_t i = 0; i < layers && !out.full(); ++i) {
    out.begin_unit(fmt::format("layers.{}", i), unit_kind::block);
    const std::string p = fmt::format("gpt_neox.layers.{}.", i);
    pair(out, p + "input_layernorm", {h}, h);
    pair(out, p + "post_attention_layernorm", {h}, h);
    out.add(p + "attention.query_key_value.weight", {3 * h, h});
    if (bias) out.add(p + "attention.query_key_value.bias", {3 * h});
    out.add(p + "attention.dense.weight", {h, h});
    if (bias) out.add(p + "attention.dense.bias", {h});
    pair(out, p + "mlp.dense_h_to_4h", {inner, h}, inner);
    pair(out, p + "mlp.dense_4h_to_h", {h, inner}, h);
  }
  out.begin_unit("final_layer_norm", unit_kind::norm);
  pair(out, "gpt_neox.final_layer_norm", {h}, h);
  if (!tied) {
    out.begin_unit("embed_out", unit_kind::head);
    out.add("embed_out.weight", {vocab, h});
  }
  out.spec().text = plain_shape("gpt_neox", h, inner, layers, heads, vocab, tied);
}

}  // namespace vramscope::model::detail
