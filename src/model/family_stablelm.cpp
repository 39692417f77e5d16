// StableLM (modeling_stablelm.py, StableLmForCausalLM: stablelm-3b-4e1t, the Stable LM 2
// models): Llama's layout with LayerNorms that have biases, a gated MLP and optional q/k/v biases.
// The earlier StableLM-Alpha checkpoints are GPT-NeoX ("gpt_neox", family_gpt.cpp).
//   model.embed_tokens.weight [vocab, hidden]
//   model.layers.N.self_attn.{q,k,v}_proj .weight [heads or kv heads x head_dim, hidden]
//     (+ .bias when use_qkv_bias); self_attn.o_proj.weight [hidden, hidden] (never a bias)
//   model.layers.N.self_attn.q_layernorm.norms.H.weight [head_dim], one per query head, and
//     k_layernorm.norms.H.weight, one per kv head (qk_layernorm only; LayerNorms without bias)
//   model.layers.N.mlp.{gate,up}_proj [intermediate, hidden], mlp.down_proj [hidden, intermediate]
//   model.layers.N.input_layernorm .weight/.bias; post_attention_layernorm .weight/.bias unless
//     use_parallel_residual (then attention and MLP both read input_layernorm's output)
//   model.norm .weight/.bias; lm_head.weight [vocab, hidden] unless tie_word_embeddings
#include <fmt/format.h>

#include "model/families.hpp"

namespace vramscope::model::detail {

namespace {

struct stablelm_layout {
  std::uint64_t vocab = 0, hidden = 0, intermediate = 0, layers = 0, heads = 0, kv_heads = 0;
  bool qkv_bias = false, qk_norm = false, parallel = false, tied = false;
};

void layer_norm(inventory_builder& out, const std::string& base, std::uint64_t width) {
  out.add(base + ".weight", {width});
  out.add(base + ".bias", {width});
}

void linear(inventory_builder& out, const std::string& base, std::uint64_t rows, std::uint64_t cols,
            bool bias) {
  out.add(base + ".weight", {rows, cols});
  if (bias) out.add(base + ".bias", {rows});
}

// StableLmLayerNormPerHead: a LayerNorm (weight only) per head.
void per_head_norms(inventory_builder& out, const std::string& base, std::uint64_t heads,
                    std::uint64_t head_dim) {
  for (std::uint64_t h = 0; h < heads; ++h)
    out.add(fmt::format("{}.norms.{}.weight", base, h), {head_dim});
}

void add_layer(inventory_builder& out, const stablelm_layout& d, std::uint64_t i) {
  const std::uint64_t head_dim = d.hidden / d.heads;
  const std::string p = fmt::format("model.layers.{}.", i);
  out.begin_unit(fmt::format("layers.{}", i), unit_kind::block);
  linear(out, p + "self_attn.q_proj", d.heads * head_dim, d.hidden, d.qkv_bias);
  linear(out, p + "self_attn.k_proj", d.kv_heads * head_dim, d.hidden, d.qkv_bias);
  linear(out, p + "self_attn.v_proj", d.kv_heads * head_dim, d.hidden, d.qkv_bias);
  linear(out, p + "self_attn.o_proj", d.hidden, d.hidden, false);
  if (d.qk_norm) {
    per_head_norms(out, p + "self_attn.q_layernorm", d.heads, head_dim);
    per_head_norms(out, p + "self_attn.k_layernorm", d.kv_heads, head_dim);
  }
  linear(out, p + "mlp.gate_proj", d.intermediate, d.hidden, false);
  linear(out, p + "mlp.up_proj", d.intermediate, d.hidden, false);
  linear(out, p + "mlp.down_proj", d.hidden, d.intermediate, false);
  layer_norm(out, p + "input_layernorm", d.hidden);
  if (!d.parallel) layer_norm(out, p + "post_attention_layernorm", d.hidden);
}

}  // namespace

void build_stablelm(field_reader& c, inventory_builder& out, std::string_view) {
  // StableLmConfig defaults (configuration_stablelm.py): 50304 / 2560 / 6912 / 32 layers / 32
  // heads / 32 kv heads, silu, untied; no qkv bias, no q/k norms, sequential residual.
  stablelm_layout d;
  d.vocab = c.size("vocab_size", 50304);
  d.hidden = c.size("hidden_size", 2560);
  d.intermediate = c.size("intermediate_size", 6912);
  d.layers = c.size("num_hidden_layers", 32, max_config_layers);
  d.heads = c.size("num_attention_heads", 32);
  d.kv_heads = c.is_null("num_key_value_heads") ? d.heads : c.count("num_key_value_heads", 32);
  d.qkv_bias = c.flag("use_qkv_bias", false);
  d.qk_norm = c.flag("qk_layernorm", false);
  d.parallel = c.flag("use_parallel_residual", false);
  d.tied = c.flag("tie_word_embeddings", false);
  const std::uint32_t act = read_activation(c, "hidden_act", "silu");
  const bool dropout = c.probability("hidden_dropout", 0.0) > 0;
  if (!c.failed())
    c.check(
        d.hidden % d.heads == 0, "num_attention_heads",
        fmt::format("the width {} is not a multiple of num_attention_heads {}", d.hidden, d.heads));
  if (!c.failed())
    c.check(d.kv_heads <= d.heads && d.heads % d.kv_heads == 0, "num_key_value_heads",
            fmt::format("num_key_value_heads {} must divide num_attention_heads {}", d.kv_heads,
                        d.heads));
  if (c.failed()) return;

  out.begin_unit("embed_tokens", unit_kind::embedding);
  out.add("model.embed_tokens.weight", {d.vocab, d.hidden});
  for (std::uint64_t i = 0; i < d.layers && !out.full(); ++i) add_layer(out, d, i);
  out.begin_unit("norm", unit_kind::norm);
  layer_norm(out, "model.norm", d.hidden);
  if (!d.tied) {
    out.begin_unit("lm_head", unit_kind::head);
    out.add("lm_head.weight", {d.vocab, d.hidden});
  }

  stack_shape s;
  s.family = "stablelm";
  s.hidden = d.hidden;
  s.intermediate = d.intermediate;
  s.layers = d.layers;
  s.heads = d.heads;
  s.kv_heads = d.kv_heads;
  s.head_dim = d.hidden / d.heads;
  s.vocab = d.vocab;
  s.gated_mlp = true;
  s.tied_embeddings = d.tied;
  s.layer_norm = true;
  s.form = d.parallel ? block_form::parallel_shared : block_form::sequential;
  s.activation_saved = act;
  // StableLM drops out the MLP output only; planned as the attention output's mask too.
  s.residual_dropout = dropout;
  out.spec().text = s;
}

}  // namespace vramscope::model::detail
