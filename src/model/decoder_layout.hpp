#pragma once
// The decoder-only transformer layout shared by the Llama-like families (llama, mistral,
// mixtral, qwen2, qwen3, gemma, gemma2, gemma3, phi3). One table of flags says where a family
// departs from Llama; add_decoder_* emit the tensors with Hugging Face names, shapes and the
// order of the modules' named_parameters():
//
//   embed_tokens.weight                [vocab, hidden]
//   layers.N.self_attn.q_proj.weight   [heads*head_dim, hidden]     (+bias [heads*head_dim])
//   layers.N.self_attn.k_proj.weight   [kv_heads*head_dim, hidden]  (+bias)
//   layers.N.self_attn.v_proj.weight   [kv_heads*head_dim, hidden]  (+bias)
//   layers.N.self_attn.o_proj.weight   [hidden, heads*head_dim]     (+bias [hidden])
//   layers.N.self_attn.q_norm/k_norm   [head_dim]                   (qwen3, gemma3)
//   layers.N.mlp.{gate,up}_proj.weight [intermediate, hidden]
//   layers.N.mlp.down_proj.weight      [hidden, intermediate]
//   layers.N.input_layernorm.weight    [hidden]  and post_attention_layernorm
//   layers.N.pre/post_feedforward_layernorm.weight [hidden]         (gemma2, gemma3)
//   norm.weight                        [hidden]
//   lm_head.weight                     [vocab, hidden]              (absent when tied)

#include <cstdint>
#include <string>
#include <vector>

#include "model/inventory_builder.hpp"

namespace vramscope::model::detail {

struct decoder_layout {
  std::string family;
  std::uint64_t hidden = 0;
  std::uint64_t intermediate = 0;  // per expert for MoE
  std::uint64_t layers = 0;
  std::uint64_t heads = 0;
  std::uint64_t kv_heads = 0;
  std::uint64_t head_dim = 0;
  std::uint64_t vocab = 0;
  std::uint64_t experts = 0;  // mixtral: block_sparse_moe with w1/w2/w3 experts and a router
  std::uint64_t experts_per_token = 0;
  // Qwen and DeepSeek MoE (qwen2_moe, qwen3_moe, deepseek_v2, deepseek_v3): mlp.gate router and
  // mlp.experts.N.{gate,up,down}_proj of width `intermediate`; a shared expert of
  // `shared_intermediate` (qwen2_moe: mlp.shared_expert with a one-output gate; DeepSeek:
  // mlp.shared_experts, no gate); the layers in `dense_layers` have a plain MLP of
  // `dense_intermediate` instead.
  bool qwen_moe = false;
  std::uint64_t shared_intermediate = 0;
  bool deepseek_shared = false;  // mlp.shared_experts without a gate
  // Multi-head latent attention (DeepSeek-V2/V3): queries through a rank-`q_lora_rank` bottleneck
  // (0: a plain q_proj), keys and values from one rank-`kv_lora_rank` latent plus a shared
  // rotary key; head_dim is qk_nope + qk_rope, v_head_dim the value width per head.
  bool mla = false;
  std::uint64_t q_lora_rank = 0, kv_lora_rank = 0, qk_rope_head_dim = 0, v_head_dim = 0;
  std::uint64_t dense_intermediate = 0;
  std::vector<std::uint64_t> dense_layers;
  // Llama 4 (llama4_text): the MLP is `feed_forward`; a sparse layer has the routed experts as
  // feed_forward.experts.E.{gate_up_proj [hidden, 2 x intermediate], down_proj [intermediate,
  // hidden]} (the checkpoint's experts.gate_up_proj [experts, hidden, 2 x intermediate] and
  // experts.down_proj cut per expert), feed_forward.router [experts, hidden] and
  // feed_forward.shared_expert.{gate,up,down}_proj of `shared_intermediate`; the layers in
  // `dense_layers` have feed_forward.{gate,up,down}_proj of `dense_intermediate`.
  bool llama4_moe = false;
  bool attention_bias = false;  // biases on q, k, v and o (llama/qwen3 attention_bias)
  bool qkv_bias = false;        // biases on q, k, v only (qwen2)
  bool mlp_bias = false;        // biases on gate, up, down (llama mlp_bias)
  bool qk_norm = false;         // per-head RMSNorm of q and k (qwen3, gemma3)
  bool sandwich_norms = false;  // pre/post feed-forward norms (gemma2, gemma3)
  bool fused = false;           // phi3: qkv_proj and gate_up_proj
  bool attention_dropout = false;  // config attention_dropout > 0 (applied in training)
  bool attention_softcapping = false;  // config attn_logit_softcapping set (gemma2)
  bool tied = false;            // lm_head shares embed_tokens: no lm_head tensor
  bool embedding = true;        // false for pi0's action expert (it reads no tokens)
};

/// Where a decoder sits in the checkpoint and which unit names it uses.
struct decoder_names {
  std::string model_prefix = "model.";       // "language_model.model.", "action_expert.model."
  std::string head_name = "lm_head.weight";  // "language_model.lm_head.weight"
  std::string unit_prefix;                   // "" or "action_expert."
};

void add_decoder_embedding(inventory_builder& out, const decoder_layout& d, const decoder_names& n);
void add_decoder_layer(inventory_builder& out, const decoder_layout& d, const decoder_names& n,
                       std::uint64_t layer);
void add_decoder_final_norm(inventory_builder& out, const decoder_layout& d,
                            const decoder_names& n);
void add_decoder_head(inventory_builder& out, const decoder_layout& d, const decoder_names& n);

/// The whole stack in forward order: embedding, layers, final norm, head.
void add_decoder(inventory_builder& out, const decoder_layout& d, const decoder_names& n = {});

/// The stack_shape of a decoder.
stack_shape shape_of(const decoder_layout& d);

}  // namespace vramscope::model::detail
