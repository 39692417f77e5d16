#include "model/decoder_layout.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace vramscope::model::detail {

namespace {

// DeepseekV3Attention (modeling_deepseek_v3.py): q through q_a_proj, q_a_layernorm and q_b_proj
// (or one q_proj), k and v from kv_a_proj_with_mqa's latent (plus the shared rotary key),
// kv_a_layernorm and kv_b_proj, then o_proj over heads x v_head_dim.
void latent_attention(inventory_builder& out, const decoder_layout& d, const std::string& p) {
  const std::uint64_t q = d.heads * d.head_dim;
  const std::uint64_t nope = d.head_dim - d.qk_rope_head_dim;
  if (d.q_lora_rank == 0) {
    add_linear(out, p + "self_attn.q_proj", q, d.hidden, false);
  } else {
    add_linear(out, p + "self_attn.q_a_proj", d.q_lora_rank, d.hidden, d.attention_bias);
    out.add(p + "self_attn.q_a_layernorm.weight", {d.q_lora_rank});
    add_linear(out, p + "self_attn.q_b_proj", q, d.q_lora_rank, false);
  }
  add_linear(out, p + "self_attn.kv_a_proj_with_mqa", d.kv_lora_rank + d.qk_rope_head_dim, d.hidden,
             d.attention_bias);
  out.add(p + "self_attn.kv_a_layernorm.weight", {d.kv_lora_rank});
  add_linear(out, p + "self_attn.kv_b_proj", d.heads * (nope + d.v_head_dim), d.kv_lora_rank, false);
  add_linear(out, p + "self_attn.o_proj", d.hidden, d.heads * d.v_head_dim, d.attention_bias);
}

void attention(inventory_builder& out, const decoder_layout& d, const std::string& p) {
  if (d.mla) return latent_attention(out, d, p);
  const std::uint64_t q = d.heads * d.head_dim;
  const std::uint64_t kv = d.kv_heads * d.head_dim;
  const bool qkv_bias = d.attention_bias || d.qkv_bias;
  if (d.fused) {
    // Phi3Attention declares o_proj before qkv_proj.
    add_linear(out, p + "self_attn.o_proj", d.hidden, q, d.attention_bias);
    add_linear(out, p + "self_attn.qkv_proj", q + 2 * kv, d.hidden, qkv_bias);
    return;
  }
  add_linear(out, p + "self_attn.q_proj", q, d.hidden, qkv_bias);
  add_linear(out, p + "self_attn.k_proj", kv, d.hidden, qkv_bias);
  add_linear(out, p + "self_attn.v_proj", kv, d.hidden, qkv_bias);
  add_linear(out, p + "self_attn.o_proj", d.hidden, q, d.attention_bias);
  if (d.qk_norm) {
    out.add(p + "self_attn.q_norm.weight", {d.head_dim});
    out.add(p + "self_attn.k_norm.weight", {d.head_dim});
  }
}

void gated_mlp(inventory_builder& out, const std::string& p, std::uint64_t hidden,
               std::uint64_t inter, bool bias) {
  add_linear(out, p + "gate_proj", inter, hidden, bias);
  add_linear(out, p + "up_proj", inter, hidden, bias);
  add_linear(out, p + "down_proj", hidden, inter, bias);
}

// Qwen2MoeSparseMoeBlock / Qwen3MoeSparseMoeBlock: the router, the experts, then (qwen2_moe)
// the shared expert and its gate.
void qwen_moe(inventory_builder& out, const decoder_layout& d, const std::string& p) {
  out.add(p + "mlp.gate.weight", {d.experts, d.hidden});
  for (std::uint64_t e = 0; e < d.experts && !out.full(); ++e)
    gated_mlp(out, fmt::format("{}mlp.experts.{}.", p, e), d.hidden, d.intermediate, false);
  if (d.shared_intermediate == 0) return;
  if (d.deepseek_shared)
    return gated_mlp(out, p + "mlp.shared_experts.", d.hidden, d.shared_intermediate, false);
  gated_mlp(out, p + "mlp.shared_expert.", d.hidden, d.shared_intermediate, false);
  out.add(p + "mlp.shared_expert_gate.weight", {1, d.hidden});
}

// Llama4TextMoe (modeling_llama4.py): Llama4TextExperts' gate_up_proj and down_proj (one
// parameter each, [experts, ...]: written per expert so that expert parallelism can place
// them), the router (an nn.Linear without bias), the shared expert (Llama4TextMLP).
void llama4_moe(inventory_builder& out, const decoder_layout& d, const std::string& p) {
  for (std::uint64_t e = 0; e < d.experts && !out.full(); ++e) {
    const std::string x = fmt::format("{}feed_forward.experts.{}.", p, e);
    out.add(x + "gate_up_proj", {d.hidden, 2 * d.intermediate});
    out.add(x + "down_proj", {d.intermediate, d.hidden});
  }
  out.add(p + "feed_forward.router.weight", {d.experts, d.hidden});
  gated_mlp(out, p + "feed_forward.shared_expert.", d.hidden, d.shared_intermediate, false);
}

bool is_dense(const decoder_layout& d, std::uint64_t layer) {
  return std::find(d.dense_layers.begin(), d.dense_layers.end(), layer) != d.dense_layers.end();
}

void mlp(inventory_builder& out, const decoder_layout& d, const std::string& p, std::uint64_t layer) {
  if (d.llama4_moe) {
    if (!is_dense(d, layer)) return llama4_moe(out, d, p);
    return gated_mlp(out, p + "feed_forward.", d.hidden, d.dense_intermediate, false);
  }
  if (d.qwen_moe) {
    if (!is_dense(d, layer)) return qwen_moe(out, d, p);
    return gated_mlp(out, p + "mlp.", d.hidden, d.dense_intermediate, false);
  }
  if (d.experts > 0) {
    // MixtralSparseMoeBlock: the router, then each expert's w1 (gate), w2 (down), w3 (up).
    out.add(p + "block_sparse_moe.gate.weight", {d.experts, d.hidden});
    for (std::uint64_t e = 0; e < d.experts && !out.full(); ++e) {
      const std::string x = fmt::format("{}block_sparse_moe.experts.{}.", p, e);
      out.add(x + "w1.weight", {d.intermediate, d.hidden});
      out.add(x + "w2.weight", {d.hidden, d.intermediate});
      out.add(x + "w3.weight", {d.intermediate, d.hidden});
    }
    return;
  }
  if (d.fused) {
    add_linear(out, p + "mlp.gate_up_proj", 2 * d.intermediate, d.hidden, d.mlp_bias);
    add_linear(out, p + "mlp.down_proj", d.hidden, d.intermediate, d.mlp_bias);
    return;
  }
  gated_mlp(out, p + "mlp.", d.hidden, d.intermediate, d.mlp_bias);
}

}  // namespace

void add_decoder_embedding(inventory_builder& out, const decoder_layout& d,
                           const decoder_names& n) {
  if (!d.embedding) return;
  out.begin_unit(n.unit_prefix + "embed_tokens", unit_kind::embedding);
  out.add(n.model_prefix + "embed_tokens.weight", {d.vocab, d.hidden});
}

void add_decoder_layer(inventory_builder& out, const decoder_layout& d, const decoder_names& n,
                       std::uint64_t layer) {
  out.begin_unit(fmt::format("{}layers.{}", n.unit_prefix, layer), unit_kind::block);
  const std::string p = fmt::format("{}layers.{}.", n.model_prefix, layer);
  attention(out, d, p);
  mlp(out, d, p, layer);
  out.add(p + "input_layernorm.weight", {d.hidden});
  out.add(p + "post_attention_layernorm.weight", {d.hidden});
  if (d.sandwich_norms) {
    out.add(p + "pre_feedforward_layernorm.weight", {d.hidden});
    out.add(p + "post_feedforward_layernorm.weight", {d.hidden});
  }
}

void add_decoder_final_norm(inventory_builder& out, const decoder_layout& d,
                            const decoder_names& n) {
  out.begin_unit(n.unit_prefix + "norm", unit_kind::norm);
  out.add(n.model_prefix + "norm.weight", {d.hidden});
}

void add_decoder_head(inventory_builder& out, const decoder_layout& d, const decoder_names& n) {
  if (d.tied || !d.embedding) return;
  out.begin_unit(n.unit_prefix + "lm_head", unit_kind::head);
  out.add(n.head_name, {d.vocab, d.hidden});
}

void add_decoder(inventory_builder& out, const decoder_layout& d, const decoder_names& n) {
  add_decoder_embedding(out, d, n);
  for (std::uint64_t i = 0; i < d.layers && !out.full(); ++i) add_decoder_layer(out, d, n, i);
  add_decoder_final_norm(out, d, n);
  add_decoder_head(out, d, n);
}

stack_shape shape_of(const decoder_layout& d) {
  stack_shape s;
  s.family = d.family;
  s.hidden = d.hidden;
  s.intermediate = d.intermediate;
  s.layers = d.layers;
  s.heads = d.heads;
  s.kv_heads = d.kv_heads;
  s.head_dim = d.head_dim;
  s.vocab = d.embedding ? d.vocab : 0;
  s.experts = d.experts;
  s.experts_per_token = d.experts_per_token;
  s.shared_expert_intermediate = d.shared_intermediate;
  s.gated_mlp = true;
  s.tied_embeddings = d.tied;
  s.attention_dropout = d.attention_dropout;
  s.attention_softcapping = d.attention_softcapping;
  return s;
}

}  // namespace vramscope::model::detail
