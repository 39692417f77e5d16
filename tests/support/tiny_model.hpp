#pragma once
// A small llama-shaped model built by hand, so schedule and predict tests do not depend on the
// preset catalog: vocabulary V, hidden h, MLP width i, L blocks, untied head.

#include <string>

#include <vramscope/model/model_spec.hpp>

namespace vramscope::testing {

inline model::model_spec tiny_llama(std::uint64_t vocab = 32000, std::uint64_t hidden = 1024,
                                    std::uint64_t inter = 4096, std::uint64_t layers = 4,
                                    std::uint64_t heads = 16, std::uint64_t kv_heads = 4) {
  model::model_spec m;
  m.name = "tiny-llama";
  m.model_type = "llama";
  m.type = dtype::bf16;
  const std::uint64_t head_dim = hidden / heads;
  m.text.family = "llama";
  m.text.hidden = hidden;
  m.text.intermediate = inter;
  m.text.layers = layers;
  m.text.heads = heads;
  m.text.kv_heads = kv_heads;
  m.text.head_dim = head_dim;
  m.text.vocab = vocab;
  m.text.gated_mlp = true;  // gate, up and down, as the tensors below
  m.text.tied_embeddings = false;
  auto add = [&](const std::string& unit, model::unit_kind kind,
                 std::vector<std::pair<std::string, std::vector<std::uint64_t>>> tensors) {
    model::unit u{unit, kind, 0, 0};
    for (auto& [name, shape] : tensors) {
      model::tensor t{name, shape, dtype::bf16, unit};
      u.parameters += t.numel();
      u.size += bytes_of(dtype::bf16, t.numel());
      m.tensors.push_back(std::move(t));
    }
    m.units.push_back(u);
  };
  add("embed_tokens", model::unit_kind::embedding, {{"model.embed_tokens.weight", {vocab, hidden}}});
  const std::uint64_t kv = kv_heads * head_dim;
  for (std::uint64_t l = 0; l < layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    add("layers." + std::to_string(l), model::unit_kind::block,
        {{p + "input_layernorm.weight", {hidden}},
         {p + "self_attn.q_proj.weight", {hidden, hidden}},
         {p + "self_attn.k_proj.weight", {kv, hidden}},
         {p + "self_attn.v_proj.weight", {kv, hidden}},
         {p + "self_attn.o_proj.weight", {hidden, hidden}},
         {p + "post_attention_layernorm.weight", {hidden}},
         {p + "mlp.gate_proj.weight", {inter, hidden}},
         {p + "mlp.up_proj.weight", {inter, hidden}},
         {p + "mlp.down_proj.weight", {hidden, inter}}});
  }
  add("norm", model::unit_kind::norm, {{"model.norm.weight", {hidden}}});
  add("lm_head", model::unit_kind::head, {{"lm_head.weight", {vocab, hidden}}});
  return m;
}

/// tiny_llama with its head tied to the embedding: no lm_head tensor or unit.
inline model::model_spec tiny_llama_tied() {
  auto m = tiny_llama();
  m.tensors.pop_back();  // lm_head.weight
  m.units.pop_back();
  m.text.tied_embeddings = true;
  return m;
}

}  // namespace vramscope::testing
