// Per-family details of the inventories: names, shapes and units as in the real checkpoints.
#include <vramscope/model/catalog.hpp>
#include <vramscope/model/config_reader.hpp>

#include "spec_lookup.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace vramscope::model {
namespace {

model_spec preset_named(const std::string& name) {
  auto spec = load_preset(name);
  EXPECT_TRUE(spec) << spec.error().to_string();
  return spec ? *spec : model_spec{};
}

model_spec test_config(const std::string& file) {
  auto spec =
      read_config_json(std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/model/configs/" + file);
  EXPECT_TRUE(spec) << spec.error().to_string();
  return spec ? *spec : model_spec{};
}

std::size_t count_containing(const model_spec& spec, const std::string& part) {
  return static_cast<std::size_t>(
      std::count_if(spec.tensors.begin(), spec.tensors.end(),
                    [&](const tensor& t) { return t.name.find(part) != std::string::npos; }));
}

std::vector<std::string> unit_names(const model_spec& spec) {
  std::vector<std::string> names;
  for (const auto& u : spec.units) names.push_back(u.name);
  return names;
}

TEST(LlamaFamily, GroupedQueryShapesAndLayerOrder) {
  const auto spec = preset_named("llama-3.1-8b");
  EXPECT_EQ(spec.tensors.size(), 1u + 32u * 9u + 1u + 1u);
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.q_proj.weight"), (shape{4096, 4096}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.k_proj.weight"), (shape{1024, 4096}));
  EXPECT_EQ(shape_of(spec, "model.layers.31.mlp.down_proj.weight"), (shape{4096, 14336}));
  EXPECT_EQ(shape_of(spec, "lm_head.weight"), (shape{128256, 4096}));
  const std::vector<std::string> layer0 = {
      "model.layers.0.self_attn.q_proj.weight",        "model.layers.0.self_attn.k_proj.weight",
      "model.layers.0.self_attn.v_proj.weight",        "model.layers.0.self_attn.o_proj.weight",
      "model.layers.0.mlp.gate_proj.weight",           "model.layers.0.mlp.up_proj.weight",
      "model.layers.0.mlp.down_proj.weight",           "model.layers.0.input_layernorm.weight",
      "model.layers.0.post_attention_layernorm.weight"};
  for (std::size_t i = 0; i < layer0.size(); ++i) EXPECT_EQ(spec.tensors[1 + i].name, layer0[i]);
  EXPECT_EQ(spec.text.kv_heads, 8u);
  EXPECT_EQ(spec.text.head_dim, 128u);
  EXPECT_EQ(spec.type, dtype::bf16);
}

TEST(LlamaFamily, Llama32TiesItsEmbeddings) {
  const auto spec = preset_named("llama-3.2-1b");
  EXPECT_TRUE(spec.text.tied_embeddings);
  EXPECT_EQ(find(spec, "lm_head.weight"), nullptr);
  const auto units = unit_names(spec);
  ASSERT_EQ(units.size(), 18u);
  EXPECT_EQ(units.front(), "embed_tokens");
  EXPECT_EQ(units[1], "layers.0");
  EXPECT_EQ(units.back(), "norm");
  EXPECT_EQ(spec.largest_unit().name, "embed_tokens");
  EXPECT_EQ(spec.units.front().kind, unit_kind::embedding);
  EXPECT_EQ(spec.units[1].kind, unit_kind::block);
}

TEST(MixtralFamily, EightExpertsAndARouterPerLayer) {
  const auto spec = preset_named("mixtral-8x7b");
  EXPECT_EQ(count_containing(spec, ".experts."), 32u * 8u * 3u);
  EXPECT_EQ(shape_of(spec, "model.layers.0.block_sparse_moe.gate.weight"), (shape{8, 4096}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.block_sparse_moe.experts.7.w1.weight"),
            (shape{14336, 4096}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.block_sparse_moe.experts.7.w2.weight"),
            (shape{4096, 14336}));
  EXPECT_EQ(count_containing(spec, "mlp."), 0u);
  EXPECT_EQ(spec.text.experts, 8u);
  EXPECT_EQ(spec.text.experts_per_token, 2u);
  EXPECT_EQ(spec.text.intermediate, 14336u);
}

TEST(Qwen2Family, BiasesOnQueryKeyValueOnly) {
  const auto spec = preset_named("qwen2.5-0.5b");
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.q_proj.bias"), (shape{896}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.k_proj.bias"), (shape{128}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.v_proj.bias"), (shape{128}));
  EXPECT_EQ(find(spec, "model.layers.0.self_attn.o_proj.bias"), nullptr);
  EXPECT_EQ(find(spec, "lm_head.weight"), nullptr);
  EXPECT_EQ(count_containing(spec, ".bias"), 24u * 3u);
}

TEST(Qwen3Family, PerHeadQueryAndKeyNorms) {
  const auto spec = preset_named("qwen3-8b");
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.q_norm.weight"), (shape{128}));
  EXPECT_EQ(shape_of(spec, "model.layers.35.self_attn.k_norm.weight"), (shape{128}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.q_proj.weight"), (shape{4096, 4096}));
  EXPECT_EQ(count_containing(spec, ".bias"), 0u);
}

TEST(GemmaFamily, MultiQueryWideHeadsTied) {
  const auto spec = preset_named("gemma-2b");
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.q_proj.weight"), (shape{2048, 2048}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.k_proj.weight"), (shape{256, 2048}));
  EXPECT_EQ(find(spec, "lm_head.weight"), nullptr);
  const auto seven = preset_named("gemma-7b");
  EXPECT_EQ(shape_of(seven, "model.layers.0.self_attn.q_proj.weight"), (shape{4096, 3072}));
  EXPECT_EQ(shape_of(seven, "model.layers.0.self_attn.o_proj.weight"), (shape{3072, 4096}));
}

TEST(Gemma2Family, SandwichNormsAndFloat32Weights) {
  const auto spec = preset_named("gemma-2-9b");
  EXPECT_EQ(shape_of(spec, "model.layers.0.pre_feedforward_layernorm.weight"), (shape{3584}));
  EXPECT_EQ(shape_of(spec, "model.layers.41.post_feedforward_layernorm.weight"), (shape{3584}));
  EXPECT_EQ(count_containing(spec, "layernorm"), 42u * 4u);
  EXPECT_EQ(spec.type, dtype::f32);
  EXPECT_EQ(spec.size(), spec.parameters() * 4);
}

TEST(Gemma3Family, TextOnlyAndMultimodalTotals) {
  const auto one = test_config("gemma-3-1b.json");
  EXPECT_EQ(one.parameters(), 999'885'952u);
  EXPECT_EQ(shape_of(one, "model.layers.0.self_attn.q_norm.weight"), (shape{256}));
  const auto four = test_config("gemma-3-4b.json");
  EXPECT_EQ(four.parameters(), 4'300'079'472u);
  EXPECT_EQ(shape_of(four, "multi_modal_projector.mm_input_projection_weight"),
            (shape{1152, 2560}));
  EXPECT_EQ(shape_of(four, "language_model.model.embed_tokens.weight"), (shape{262208, 2560}));
  EXPECT_EQ(four.text.heads, 8u);  // Gemma3TextConfig defaults: 8 heads, 4 kv heads
  EXPECT_EQ(four.text.kv_heads, 4u);
  ASSERT_TRUE(four.vision);
  EXPECT_EQ(four.vision->image_tokens, 4096u);
}

TEST(Phi3Family, FusedProjections) {
  const auto spec = preset_named("phi-3-mini");
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.qkv_proj.weight"), (shape{9216, 3072}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.mlp.gate_up_proj.weight"), (shape{16384, 3072}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.mlp.down_proj.weight"), (shape{3072, 8192}));
  EXPECT_EQ(count_containing(spec, "q_proj"), 0u);
  EXPECT_EQ(spec.tensors[1].name, "model.layers.0.self_attn.o_proj.weight");
}

TEST(Gpt2Family, Conv1DWeightsAreStoredInputFirst) {
  const auto spec = preset_named("gpt2");
  EXPECT_EQ(shape_of(spec, "wte.weight"), (shape{50257, 768}));
  EXPECT_EQ(shape_of(spec, "wpe.weight"), (shape{1024, 768}));
  EXPECT_EQ(shape_of(spec, "h.0.attn.c_attn.weight"), (shape{768, 2304}));
  EXPECT_EQ(shape_of(spec, "h.0.attn.c_attn.bias"), (shape{2304}));
  EXPECT_EQ(shape_of(spec, "h.11.mlp.c_fc.weight"), (shape{768, 3072}));
  EXPECT_EQ(shape_of(spec, "h.11.mlp.c_proj.weight"), (shape{3072, 768}));
  EXPECT_EQ(shape_of(spec, "ln_f.bias"), (shape{768}));
  EXPECT_EQ(count_containing(spec, "lm_head"), 0u);
  EXPECT_EQ(spec.tensors.size(), 2u + 12u * 12u + 2u);
  EXPECT_EQ(spec.type, dtype::f32);  // no torch_dtype in the config
  EXPECT_FALSE(spec.text.gated_mlp);
  EXPECT_TRUE(spec.text.tied_embeddings);
  EXPECT_EQ(unit_names(spec).front(), "wte");
  EXPECT_EQ(unit_names(spec).back(), "ln_f");
}

TEST(GptNeoxFamily, PythiaFusedQkvWithBiasesAndUntiedHead) {
  const auto spec = preset_named("pythia-1b");
  EXPECT_EQ(shape_of(spec, "gpt_neox.layers.0.attention.query_key_value.weight"),
            (shape{6144, 2048}));
  EXPECT_EQ(shape_of(spec, "gpt_neox.layers.0.attention.query_key_value.bias"), (shape{6144}));
  EXPECT_EQ(shape_of(spec, "gpt_neox.layers.15.mlp.dense_4h_to_h.weight"), (shape{2048, 8192}));
  EXPECT_EQ(shape_of(spec, "embed_out.weight"), (shape{50304, 2048}));
  EXPECT_EQ(unit_names(spec).back(), "embed_out");
  EXPECT_EQ(spec.type, dtype::f16);
}

TEST(GptNeoxFamily, ParallelResidualAndLayerNormShapeTheActivations) {
  const auto spec = preset_named("pythia-1b");
  EXPECT_TRUE(spec.text.layer_norm);
  EXPECT_EQ(spec.text.form, block_form::parallel);
  EXPECT_EQ(spec.text.activation_saved, 1u);  // hidden_act gelu: one op
  auto sequential = parse_config_json(
      R"({"model_type": "gpt_neox", "hidden_size": 64, "num_attention_heads": 4,
          "num_hidden_layers": 2, "intermediate_size": 256, "vocab_size": 100,
          "use_parallel_residual": false, "hidden_act": "gelu_new"})",
      "neox.json");
  ASSERT_TRUE(sequential) << sequential.error().to_string();
  EXPECT_EQ(sequential->text.form, block_form::sequential);
  EXPECT_EQ(sequential->text.activation_saved, 4u);
}

TEST(PhiFamily, Phi15ParallelBlockUnderOneLayerNormWithBiasedHead) {
  const auto spec = preset_named("phi-1.5");
  EXPECT_EQ(spec.model_type, "phi");
  EXPECT_EQ(shape_of(spec, "model.embed_tokens.weight"), (shape{51200, 2048}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.q_proj.bias"), (shape{2048}));
  EXPECT_EQ(shape_of(spec, "model.layers.23.self_attn.dense.weight"), (shape{2048, 2048}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.mlp.fc1.weight"), (shape{8192, 2048}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.mlp.fc2.bias"), (shape{2048}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.input_layernorm.bias"), (shape{2048}));
  EXPECT_EQ(shape_of(spec, "lm_head.bias"), (shape{51200}));
  EXPECT_EQ(count_containing(spec, "post_attention_layernorm"), 0u);
  EXPECT_EQ(unit_names(spec).back(), "lm_head");
  EXPECT_EQ(spec.text.form, block_form::parallel_shared);
  EXPECT_TRUE(spec.text.layer_norm);
  EXPECT_FALSE(spec.text.gated_mlp);
  EXPECT_EQ(spec.text.activation_saved, 4u);  // transformers' gelu_new: x, tanh, x/2, 1 + tanh
  EXPECT_FALSE(spec.text.residual_dropout);   // resid_pdrop 0
  EXPECT_TRUE(preset_named("phi-2").text.residual_dropout);  // resid_pdrop 0.1
}

// transformers' decoders drop the attention probabilities with config.attention_dropout in
// training (eager_attention_forward); GPT-2's attn_pdrop defaults to 0.1. Megatron-LM's
// --attention-dropout reaches the plan through these keys (plan --from).
TEST(DecoderFamilies, AttentionDropoutIsReadFromTheConfig) {
  const std::string llama =
      R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 8,
          "num_hidden_layers": 1, "intermediate_size": 128, "vocab_size": 100)";
  auto none = parse_config_json(llama + "}", "llama.json");
  ASSERT_TRUE(none) << none.error().to_string();
  EXPECT_FALSE(none->text.attention_dropout);
  auto dropped = parse_config_json(llama + R"(, "attention_dropout": 0.1})", "llama.json");
  ASSERT_TRUE(dropped) << dropped.error().to_string();
  EXPECT_TRUE(dropped->text.attention_dropout);
  EXPECT_TRUE(preset_named("gpt2").text.attention_dropout);  // attn_pdrop's default 0.1
  auto gpt2 = parse_config_json(
      R"({"model_type": "gpt2", "n_embd": 64, "n_head": 8, "n_layer": 1, "vocab_size": 100,
          "n_positions": 128,
          "attn_pdrop": 0.0})",
      "gpt2.json");
  ASSERT_TRUE(gpt2) << gpt2.error().to_string();
  EXPECT_FALSE(gpt2->text.attention_dropout);
}

// Gemma 2 soft-caps its attention scores (attn_logit_softcapping); Gemma 3 writes null. A value
// that is not a positive number is an error naming the field.
TEST(DecoderFamilies, AttentionSoftCappingIsReadFromTheConfig) {
  EXPECT_TRUE(preset_named("gemma-2-2b").text.attention_softcapping);
  EXPECT_FALSE(preset_named("gemma-2b").text.attention_softcapping);
  const std::string llama =
      R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 8,
          "num_hidden_layers": 1, "intermediate_size": 128, "vocab_size": 100)";
  auto null = parse_config_json(llama + R"(, "attn_logit_softcapping": null})", "llama.json");
  ASSERT_TRUE(null) << null.error().to_string();
  EXPECT_FALSE(null->text.attention_softcapping);
  auto bad = parse_config_json(llama + R"(, "attn_logit_softcapping": -50})", "llama.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().to_string().find("attn_logit_softcapping"), std::string::npos)
      << bad.error().to_string();
}

TEST(PhiFamily, QkLayerNormAndGroupedKvHeads) {
  auto spec = parse_config_json(
      R"({"model_type": "phi", "hidden_size": 64, "num_attention_heads": 8,
          "num_key_value_heads": 2, "num_hidden_layers": 1, "intermediate_size": 128,
          "vocab_size": 100, "qk_layernorm": true})",
      "phi.json");
  ASSERT_TRUE(spec) << spec.error().to_string();
  EXPECT_EQ(shape_of(*spec, "model.layers.0.self_attn.k_proj.weight"), (shape{16, 64}));
  EXPECT_EQ(shape_of(*spec, "model.layers.0.self_attn.q_layernorm.weight"), (shape{8}));
  EXPECT_EQ(spec->text.kv_heads, 2u);
}

TEST(FalconFamily, Falcon7bMultiQueryFusedQkvAndOneNorm) {
  const auto spec = test_config("falcon-7b.json");
  EXPECT_EQ(spec.parameters(), 6'921'720'704u);  // tied head, the class default
  EXPECT_EQ(shape_of(spec, "transformer.h.0.self_attention.query_key_value.weight"),
            (shape{4544 + 2 * 64, 4544}));
  EXPECT_EQ(shape_of(spec, "transformer.h.31.mlp.dense_h_to_4h.weight"), (shape{18176, 4544}));
  EXPECT_EQ(count_containing(spec, ".bias"), 32u + 1u);  // only the LayerNorms have biases
  EXPECT_EQ(count_containing(spec, "lm_head"), 0u);
  EXPECT_EQ(spec.text.kv_heads, 1u);
  EXPECT_EQ(spec.text.form, block_form::parallel_shared);
  EXPECT_EQ(unit_names(spec).front(), "word_embeddings");
  EXPECT_EQ(unit_names(spec)[1], "h.0");
}

TEST(FalconFamily, NewDecoderArchitectureHasGroupedKvAndTwoNorms) {
  auto spec = parse_config_json(
      R"({"model_type": "falcon", "hidden_size": 256, "num_attention_heads": 8,
          "num_kv_heads": 2, "num_hidden_layers": 2, "vocab_size": 100,
          "new_decoder_architecture": true, "bias": true})",
      "falcon.json");
  ASSERT_TRUE(spec) << spec.error().to_string();
  EXPECT_EQ(shape_of(*spec, "transformer.h.0.self_attention.query_key_value.weight"),
            (shape{(8 + 2 * 2) * 32, 256}));
  EXPECT_EQ(shape_of(*spec, "transformer.h.1.ln_mlp.weight"), (shape{256}));
  EXPECT_EQ(shape_of(*spec, "transformer.h.0.mlp.dense_4h_to_h.bias"), (shape{256}));
  EXPECT_EQ(spec->text.form, block_form::parallel);
  auto sequential = parse_config_json(
      R"({"model_type": "falcon", "hidden_size": 256, "num_attention_heads": 8,
          "num_hidden_layers": 1, "vocab_size": 100, "parallel_attn": false})",
      "falcon.json");
  ASSERT_TRUE(sequential) << sequential.error().to_string();
  EXPECT_EQ(sequential->text.form, block_form::sequential);
  EXPECT_EQ(shape_of(*sequential, "transformer.h.0.post_attention_layernorm.weight"),
            (shape{256}));
}

TEST(FalconFamily, Falcon40bPresetHasEightKvHeadsAndTwoNormsPerLayer) {
  const auto spec = preset_named("falcon-40b");
  // modeling_falcon.py: (num_attention_heads + 2 x num_kv_heads) x head_dim = (128 + 16) x 64.
  EXPECT_EQ(shape_of(spec, "transformer.h.0.self_attention.query_key_value.weight"),
            (shape{9216, 8192}));
  EXPECT_EQ(shape_of(spec, "transformer.h.59.mlp.dense_h_to_4h.weight"), (shape{32768, 8192}));
  EXPECT_EQ(shape_of(spec, "transformer.h.59.ln_attn.bias"), (shape{8192}));
  EXPECT_EQ(shape_of(spec, "transformer.h.59.ln_mlp.weight"), (shape{8192}));
  EXPECT_EQ(count_containing(spec, "input_layernorm"), 0u);
  EXPECT_EQ(count_containing(spec, "lm_head"), 0u);  // tied, the class default
  EXPECT_EQ(spec.text.kv_heads, 8u);
  EXPECT_EQ(spec.text.form, block_form::parallel);
  EXPECT_EQ(unit_names(spec).size(), 1u + 60u + 1u);
}

TEST(LayerNormFamilies, RefuseAnUnknownActivationOrDropoutRate) {
  auto act = parse_config_json(
      R"({"model_type": "phi", "hidden_size": 64, "num_attention_heads": 8,
          "num_hidden_layers": 1, "intermediate_size": 128, "vocab_size": 100,
          "hidden_act": "gelu_newer"})",
      "phi.json");
  ASSERT_FALSE(act);
  EXPECT_NE(act.error().to_string().find("unknown activation \"gelu_newer\""), std::string::npos)
      << act.error().to_string();
  auto rate = parse_config_json(
      R"({"model_type": "phi", "hidden_size": 64, "num_attention_heads": 8,
          "num_hidden_layers": 1, "intermediate_size": 128, "vocab_size": 100,
          "resid_pdrop": 1.5})",
      "phi.json");
  ASSERT_FALSE(rate);
  EXPECT_NE(rate.error().to_string().find("resid_pdrop\" must be a probability"),
            std::string::npos)
      << rate.error().to_string();
}

TEST(SiglipFamily, So400mVisionTowerWithPoolingHead) {
  const auto spec = preset_named("siglip-so400m");
  EXPECT_EQ(shape_of(spec, "vision_model.embeddings.patch_embedding.weight"),
            (shape{1152, 3, 14, 14}));
  EXPECT_EQ(shape_of(spec, "vision_model.embeddings.position_embedding.weight"),
            (shape{729, 1152}));
  EXPECT_EQ(shape_of(spec, "vision_model.head.attention.in_proj_weight"), (shape{3456, 1152}));
  EXPECT_EQ(shape_of(spec, "vision_model.head.probe"), (shape{1, 1, 1152}));
  EXPECT_EQ(shape_of(spec, "vision_model.encoder.layers.26.mlp.fc1.weight"), (shape{4304, 1152}));
  const auto units = unit_names(spec);
  EXPECT_EQ(units.front(), "vision_tower.embeddings");
  EXPECT_EQ(units[1], "vision_tower.layers.0");
  EXPECT_EQ(units.back(), "vision_tower.head");
  EXPECT_EQ(spec.units[1].kind, unit_kind::vision_block);
  EXPECT_EQ(spec.text.image_tokens, 729u);
  ASSERT_TRUE(spec.vision);
  EXPECT_EQ(spec.vision->layers, 27u);
}

TEST(PaligemmaFamily, TowerWithoutHeadProjectorAndGemma) {
  const auto spec = preset_named("paligemma-3b");
  EXPECT_EQ(count_containing(spec, "vision_model.head"), 0u);
  EXPECT_EQ(shape_of(spec, "vision_tower.vision_model.embeddings.position_embedding.weight"),
            (shape{256, 1152}));
  EXPECT_EQ(shape_of(spec, "multi_modal_projector.linear.weight"), (shape{2048, 1152}));
  EXPECT_EQ(shape_of(spec, "language_model.model.embed_tokens.weight"), (shape{257216, 2048}));
  EXPECT_EQ(count_containing(spec, "lm_head"), 0u);
  ASSERT_TRUE(spec.vision);
  EXPECT_EQ(spec.vision->image_tokens, 256u);
  EXPECT_EQ(spec.text.head_dim, 256u);  // GemmaConfig default: the config does not say
  const auto units = unit_names(spec);
  EXPECT_EQ(units.front(), "embed_tokens");
  EXPECT_EQ(units[1], "vision_tower.embeddings");
  EXPECT_NE(std::find(units.begin(), units.end(), "multi_modal_projector"), units.end());
  EXPECT_EQ(units.back(), "norm");
}

TEST(PaligemmaFamily, AbsentSubConfigsTakePaliGemmaConfigDefaults) {
  // PaliGemmaConfig() builds SigLIP with intermediate_size 4096 (not So400m's 4304) and Gemma 2B
  // with the top-level vocab_size (257152 by default).
  auto spec = parse_config_json(R"({"model_type": "paligemma"})", "config.json");
  ASSERT_TRUE(spec) << spec.error().to_string();
  ASSERT_TRUE(spec->vision);
  EXPECT_EQ(spec->vision->intermediate, 4096u);
  EXPECT_EQ(spec->text.vocab, 257152u);
  // vision 399,497,472 + projector 2,361,344 + Gemma 2B 2,508,531,712
  EXPECT_EQ(spec->parameters(), 2'910'390'528u);
}

TEST(SiglipFamily, StandaloneVisionConfigNeedsItsSizes) {
  auto spec = parse_config_json(R"({"model_type": "siglip_vision_model", "hidden_size": 8,
      "intermediate_size": 16, "num_hidden_layers": 1, "num_attention_heads": 2, "patch_size": 2})",
                                "config.json");
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().to_string(),
            "config.json: missing required field \"image_size\" (a positive integer)");
}

TEST(Pi0Family, ActionExpertBesideGemma) {
  const auto spec = preset_named("pi0");
  ASSERT_EQ(spec.extra.size(), 1u);
  EXPECT_EQ(spec.extra[0].hidden, 1024u);
  EXPECT_EQ(spec.extra[0].layers, 18u);
  EXPECT_EQ(spec.extra[0].vocab, 0u);
  EXPECT_EQ(spec.text.vocab, 257152u);
  std::uint64_t expert = 0;
  for (const auto& u : spec.units)
    if (u.name.rfind("action_expert.", 0) == 0) expert += u.parameters;
  EXPECT_EQ(expert, 311'464'960u);  // OpenPI: "311M params" for gemma_300m
  EXPECT_EQ(shape_of(spec, "action_expert.model.layers.0.self_attn.q_proj.weight"),
            (shape{2048, 1024}));
  EXPECT_EQ(shape_of(spec, "action_expert.model.layers.0.self_attn.o_proj.weight"),
            (shape{1024, 2048}));
  EXPECT_EQ(shape_of(spec, "action_time_mlp_in.weight"), (shape{1024, 2048}));
  EXPECT_EQ(shape_of(spec, "action_out_proj.weight"), (shape{32, 1024}));
  const auto units = unit_names(spec);
  const auto at = [&](const std::string& n) {
    return std::find(units.begin(), units.end(), n) - units.begin();
  };
  EXPECT_EQ(at("action_expert.layers.0"), at("layers.0") + 1);
  EXPECT_LT(at("vision_tower.post_layernorm"), at("embed_tokens"));
  EXPECT_EQ(units.back(), "action_out_proj");
}

TEST(Pi0Family, ExpertMustShareTheAttentionShape) {
  auto text = preset_config("pi0");
  ASSERT_TRUE(text);
  std::string changed = *text;
  const std::string from =
      "\"num_hidden_layers\": 18,\n    \"num_attention_heads\": 8,\n    "
      "\"num_key_value_heads\": 1,\n    \"head_dim\": 256\n  }\n}";
  const auto at = changed.rfind(from);
  ASSERT_NE(at, std::string::npos);
  changed.replace(at, std::string("\"num_hidden_layers\": 18").size(), "\"num_hidden_layers\": 12");
  auto spec = parse_config_json(changed, "pi0.json");
  ASSERT_FALSE(spec);
  EXPECT_NE(spec.error().message.find("field \"action_expert_config.num_hidden_layers\" is 12, but "
                                      "text_config has 18"),
            std::string::npos)
      << spec.error().to_string();
}

}  // namespace
}  // namespace vramscope::model
