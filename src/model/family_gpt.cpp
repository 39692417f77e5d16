// The families with LayerNorm (with biases) and plain, ungated MLPs: GPT-2, GPT-NeoX (Pythia,
// StableLM-alpha), Phi (phi-1, phi-1.5, phi-2) and Falcon.
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
//   use_parallel_residual (default true): x + attention(ln1(x)) + mlp(ln2(x)).
//
// Phi (modeling_phi.py, PhiForCausalLM): one LayerNorm feeds attention and MLP in parallel:
//   model.embed_tokens.weight [vocab, hidden]
//   model.layers.N.self_attn.{q,k,v}_proj .weight/.bias, self_attn.dense .weight/.bias
//   model.layers.N.self_attn.{q,k}_layernorm .weight/.bias [head_dim]  (qk_layernorm only)
//   model.layers.N.mlp.fc1 [intermediate, hidden] +bias, mlp.fc2 [hidden, intermediate] +bias
//   model.layers.N.input_layernorm .weight/.bias; model.final_layernorm .weight/.bias
//   lm_head.weight [vocab, hidden] and lm_head.bias [vocab]
//
// Falcon (modeling_falcon.py, FalconForCausalLM): a fused query_key_value whose width depends
// on the attention kind (multi-query: hidden + 2 head_dim; new_decoder_architecture: grouped
// kv heads), no biases by default:
//   transformer.word_embeddings.weight [vocab, hidden]
//   transformer.h.N.self_attention.query_key_value, self_attention.dense
//   transformer.h.N.mlp.dense_h_to_4h [ffn, hidden], mlp.dense_4h_to_h [hidden, ffn]
//   transformer.h.N.input_layernorm (parallel_attn, one norm), or ln_attn and ln_mlp
//   (num_ln_in_parallel_attn 2), or input_layernorm and post_attention_layernorm (sequential)
//   transformer.ln_f .weight/.bias; lm_head.weight tied to the embedding unless untied
#include <fmt/format.h>

#include "model/families.hpp"

namespace vramscope::model::detail {

namespace {

void pair(inventory_builder& out, const std::string& base, std::vector<std::uint64_t> weight,
          std::uint64_t bias) {
  out.add(base + ".weight", std::move(weight));
  out.add(base + ".bias", {bias});
}

// Adds "<base>.weight" [rows, cols] and, when `bias`, "<base>.bias" [rows].
void projection(inventory_builder& out, const std::string& base, std::uint64_t rows,
                std::uint64_t cols, bool bias) {
  out.add(base + ".weight", {rows, cols});
  if (bias) out.add(base + ".bias", {rows});
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
  s.layer_norm = true;
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
  const std::uint32_t act = read_activation(c, "activation_function", "gelu_new");
  const bool dropout = c.probability("resid_pdrop", 0.1) > 0;
  const bool attention_dropout = c.probability("attn_pdrop", 0.1) > 0;  // GPT2Config's default
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
  out.spec().text.activation_saved = act;
  out.spec().text.residual_dropout = dropout;
  out.spec().text.attention_dropout = attention_dropout;
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
  const bool parallel = c.flag("use_parallel_residual", true);
  const std::uint32_t act = read_activation(c, "hidden_act", "gelu");
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
  out.spec().text.form = parallel ? block_form::parallel : block_form::sequential;
  out.spec().text.activation_saved = act;
}

void build_phi(field_reader& c, inventory_builder& out, std::string_view) {
  // PhiConfig defaults: 51200 / 2048 / 8192 / 24 layers / 32 heads; gelu_new; untied head.
  const std::uint64_t vocab = c.size("vocab_size", 51200);
  const std::uint64_t h = c.size("hidden_size", 2048);
  const std::uint64_t inner = c.size("intermediate_size", 8192);
  const std::uint64_t layers = c.size("num_hidden_layers", 24, max_config_layers);
  const std::uint64_t heads = c.size("num_attention_heads", 32);
  const std::uint64_t kv_heads = c.count("num_key_value_heads", heads);
  const bool tied = c.flag("tie_word_embeddings", false);
  const bool qk_norm = c.flag("qk_layernorm", false);
  const std::uint32_t act = read_activation(c, "hidden_act", "gelu_new");
  const bool dropout = c.probability("resid_pdrop", 0.0) > 0;
  check_heads(c, "num_attention_heads", h, heads);
  if (!c.failed())
    c.check(kv_heads <= heads && heads % kv_heads == 0, "num_key_value_heads",
            fmt::format("num_key_value_heads {} must divide num_attention_heads {}", kv_heads,
                        heads));
  if (c.failed()) return;
  const std::uint64_t head_dim = h / heads;
  out.begin_unit("embed_tokens", unit_kind::embedding);
  out.add("model.embed_tokens.weight", {vocab, h});
  for (std::uint64_t i = 0; i < layers && !out.full(); ++i) {
    out.begin_unit(fmt::format("layers.{}", i), unit_kind::block);
    const std::string p = fmt::format("model.layers.{}.", i);
    projection(out, p + "self_attn.q_proj", h, h, true);
    projection(out, p + "self_attn.k_proj", kv_heads * head_dim, h, true);
    projection(out, p + "self_attn.v_proj", kv_heads * head_dim, h, true);
    projection(out, p + "self_attn.dense", h, h, true);
    if (qk_norm) {
      pair(out, p + "self_attn.q_layernorm", {head_dim}, head_dim);
      pair(out, p + "self_attn.k_layernorm", {head_dim}, head_dim);
    }
    pair(out, p + "mlp.fc1", {inner, h}, inner);
    pair(out, p + "mlp.fc2", {h, inner}, h);
    pair(out, p + "input_layernorm", {h}, h);
  }
  out.begin_unit("final_layernorm", unit_kind::norm);
  pair(out, "model.final_layernorm", {h}, h);
  if (!tied) {
    out.begin_unit("lm_head", unit_kind::head);
    pair(out, "lm_head", {vocab, h}, vocab);
  }
  stack_shape s = plain_shape("phi", h, inner, layers, heads, vocab, tied);
  s.kv_heads = kv_heads;
  s.form = block_form::parallel_shared;
  s.activation_saved = act;
  s.residual_dropout = dropout;
  out.spec().text = s;
}

void build_falcon(field_reader& c, inventory_builder& out, std::string_view) {
  // FalconConfig defaults: 65024 / 4544 / 32 layers / 71 heads, multi-query, parallel
  // attention with one norm, no biases, ffn 4 x hidden, gelu; "n_embed" is an older name of
  // hidden_size that the class still accepts.
  const std::uint64_t vocab = c.size("vocab_size", 65024);
  const std::uint64_t h = c.has("n_embed") && !c.has("hidden_size") ? c.size("n_embed", 4544)
                                                                    : c.size("hidden_size", 4544);
  const std::uint64_t layers = c.size("num_hidden_layers", 32, max_config_layers);
  const std::uint64_t heads = c.size("num_attention_heads", 71);
  const bool new_arch = c.flag("new_decoder_architecture", false);
  const bool multi_query = c.flag("multi_query", true);
  const bool parallel = c.flag("parallel_attn", true);
  const bool bias = c.flag("bias", false);
  const std::uint64_t ffn = c.count("ffn_hidden_size", 4 * h);
  const bool tied = c.flag("tie_word_embeddings", true);
  const std::uint64_t norms = c.count("num_ln_in_parallel_attn", new_arch ? 2 : 1, 2);
  const std::uint32_t act = read_activation(c, "activation", "gelu");
  const bool dropout = c.probability("hidden_dropout", 0.0) > 0;
  check_heads(c, "num_attention_heads", h, heads);
  const std::uint64_t kv_heads =
      new_arch ? c.count("num_kv_heads", heads) : (multi_query ? 1 : heads);
  if (!c.failed())
    c.check(kv_heads <= heads && heads % kv_heads == 0, "num_kv_heads",
            fmt::format("num_kv_heads {} must divide num_attention_heads {}", kv_heads, heads));
  if (c.failed()) return;
  const std::uint64_t head_dim = h / heads;
  out.begin_unit("word_embeddings", unit_kind::embedding);
  out.add("transformer.word_embeddings.weight", {vocab, h});
  for (std::uint64_t i = 0; i < layers && !out.full(); ++i) {
    out.begin_unit(fmt::format("h.{}", i), unit_kind::block);
    const std::string p = fmt::format("transformer.h.{}.", i);
    projection(out, p + "self_attention.query_key_value", (heads + 2 * kv_heads) * head_dim, h,
               bias);
    projection(out, p + "self_attention.dense", h, h, bias);
    projection(out, p + "mlp.dense_h_to_4h", ffn, h, bias);
    projection(out, p + "mlp.dense_4h_to_h", h, ffn, bias);
    if (!parallel) {
      pair(out, p + "input_layernorm", {h}, h);
      pair(out, p + "post_attention_layernorm", {h}, h);
    } else if (norms == 2) {
      pair(out, p + "ln_attn", {h}, h);
      pair(out, p + "ln_mlp", {h}, h);
    } else {
      pair(out, p + "input_layernorm", {h}, h);
    }
  }
  out.begin_unit("ln_f", unit_kind::norm);
  pair(out, "transformer.ln_f", {h}, h);
  if (!tied) {
    out.begin_unit("lm_head", unit_kind::head);
    out.add("lm_head.weight", {vocab, h});
  }
  stack_shape s = plain_shape("falcon", h, ffn, layers, heads, vocab, tied);
  s.kv_heads = kv_heads;
  s.form = !parallel ? block_form::sequential
                     : (norms == 2 ? block_form::parallel : block_form::parallel_shared);
  s.activation_saved = act;
  s.residual_dropout = dropout;
  out.spec().text = s;
}

}  // namespace vramscope::model::detail
