// Llama 4 (llama4_text, and llama4's text_config): shapes as modeling_llama4.py declares them
// (Llama4TextExperts, Llama4Router, Llama4TextMoe's shared_expert, Llama4TextMLP of
// intermediate_size_mlp on the dense layers), the layers torchtitan's models/llama4 makes MoE.
#include <vramscope/model/catalog.hpp>
#include <vramscope/model/config_reader.hpp>

#include "spec_lookup.hpp"

#include <gtest/gtest.h>

#include <string>

namespace vramscope::model {
namespace {

// Llama 4 in miniature: hidden 16, 4 layers, 4 heads of 4 with 2 kv heads, 3 experts of 8
// (top 1), dense MLP 24, every second layer MoE (Maverick's interleave_moe_layer_step 2).
const std::string tiny_text = R"("hidden_size": 16, "intermediate_size": 8,
    "intermediate_size_mlp": 24, "num_hidden_layers": 4, "num_attention_heads": 4,
    "num_key_value_heads": 2, "head_dim": 4, "vocab_size": 32, "num_local_experts": 3,
    "num_experts_per_tok": 1, "interleave_moe_layer_step": 2)";

model_spec parsed(const std::string& text) {
  auto spec = parse_config_json(text, "config.json");
  EXPECT_TRUE(spec) << spec.error().to_string();
  return spec ? *spec : model_spec{};
}

TEST(Llama4Family, MoeEveryStepWithASharedExpertAndWideDenseLayers) {
  const auto spec = parsed(R"({"model_type": "llama4_text", )" + tiny_text + "}");
  // (layer + 1) % 2 == 0: layers 1 and 3 are MoE, 0 and 2 dense.
  EXPECT_EQ(shape_of(spec, "model.layers.0.feed_forward.gate_proj.weight"), (shape{24, 16}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.feed_forward.down_proj.weight"), (shape{16, 24}));
  EXPECT_EQ(find(spec, "model.layers.0.feed_forward.router.weight"), nullptr);
  EXPECT_EQ(shape_of(spec, "model.layers.1.feed_forward.experts.2.gate_up_proj"), (shape{16, 16}));
  EXPECT_EQ(shape_of(spec, "model.layers.1.feed_forward.experts.2.down_proj"), (shape{8, 16}));
  EXPECT_EQ(find(spec, "model.layers.1.feed_forward.experts.3.down_proj"), nullptr);
  EXPECT_EQ(shape_of(spec, "model.layers.1.feed_forward.router.weight"), (shape{3, 16}));
  EXPECT_EQ(shape_of(spec, "model.layers.1.feed_forward.shared_expert.up_proj.weight"),
            (shape{8, 16}));
  EXPECT_EQ(shape_of(spec, "model.layers.1.self_attn.k_proj.weight"), (shape{8, 16}));
  EXPECT_EQ(shape_of(spec, "lm_head.weight"), (shape{32, 16}));
  // The query/key L2 norm has no weight.
  EXPECT_EQ(find(spec, "model.layers.1.self_attn.q_norm.weight"), nullptr);
  // attention 4 x 256 (q, o) + 2 x 128 (k, v) = 768, norms 32; dense MLP 3 x 384; MoE: experts
  // 3 x (256 + 128), router 48, shared expert 3 x 128.
  const std::uint64_t dense = 768 + 32 + 1152, moe = 768 + 32 + 1152 + 48 + 384;
  EXPECT_EQ(spec.parameters(), 2 * 512 + 2 * dense + 2 * moe + 16);
  EXPECT_EQ(spec.text.experts, 3u);
  EXPECT_EQ(spec.text.experts_per_token, 1u);
  EXPECT_EQ(spec.text.intermediate, 8u);
  EXPECT_EQ(spec.text.shared_expert_intermediate, 8u);
}

TEST(Llama4Family, MoeLayersListedExplicitlyWin) {
  const auto spec =
      parsed(R"({"model_type": "llama4_text", "moe_layers": [0], )" + tiny_text + "}");
  EXPECT_NE(find(spec, "model.layers.0.feed_forward.router.weight"), nullptr);
  EXPECT_EQ(find(spec, "model.layers.1.feed_forward.router.weight"), nullptr);
  EXPECT_NE(find(spec, "model.layers.1.feed_forward.gate_proj.weight"), nullptr);
}

TEST(Llama4Family, ConditionalGenerationReadsTheTextModelOnly) {
  const auto text = parsed(R"({"model_type": "llama4_text", )" + tiny_text + "}");
  const auto spec = parsed(R"({"model_type": "llama4", "architectures":
      ["Llama4ForConditionalGeneration"], "vision_config": {"hidden_size": 1408},
      "text_config": {"model_type": "llama4_text", )" +
                           tiny_text + "}}");
  EXPECT_EQ(spec.parameters(), text.parameters());
  EXPECT_NE(find(spec, "language_model.model.layers.3.feed_forward.experts.0.gate_up_proj"),
            nullptr);
  EXPECT_NE(find(spec, "language_model.lm_head.weight"), nullptr);
  EXPECT_FALSE(spec.vision.has_value());
  ASSERT_EQ(spec.notes.size(), 1u);
  EXPECT_EQ(spec.notes[0].message,
            "llama4: the text model only (text_config); the vision model and the multi-modal "
            "projector are not counted or planned");
}

TEST(Llama4Family, AbsentTextConfigIsScoutsTextModel) {
  // Llama4TextConfig's defaults are Scout's text model.
  const auto spec = parsed(R"({"model_type": "llama4"})");
  EXPECT_EQ(spec.parameters(), 107'769'861'120u);
}

TEST(Llama4Family, RefusesATopKAboveTheExperts) {
  auto spec = parse_config_json(R"({"model_type": "llama4_text", "hidden_size": 16,
      "intermediate_size": 8, "intermediate_size_mlp": 24, "num_hidden_layers": 2,
      "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 32, "num_local_experts": 3,
      "num_experts_per_tok": 4})",
                                "config.json");
  ASSERT_FALSE(spec);
  EXPECT_NE(spec.error().message.find("num_experts_per_tok 4 exceeds num_local_experts 3"),
            std::string::npos)
      << spec.error().to_string();
}

TEST(Llama4Family, ScoutPresetIsEveryLayerMoe) {
  auto spec = load_preset("llama-4-scout");
  ASSERT_TRUE(spec) << spec.error().to_string();
  // 48 MoE layers of attention 62,914,560 + norms 10,240 + experts 16 x 125,829,120 + router
  // 81,920 + shared expert 125,829,120; embedding and head 202048 x 5120 each; final norm.
  const std::uint64_t layer = 62'914'560 + 10'240 + 16 * 125'829'120ull + 81'920 + 125'829'120;
  EXPECT_EQ(spec->parameters(), 48 * layer + 2 * 202'048ull * 5120 + 5120);
  EXPECT_EQ(shape_of(*spec, "model.layers.47.feed_forward.experts.15.gate_up_proj"),
            (shape{5120, 16384}));
  EXPECT_EQ(spec->text.experts, 16u);
}

}  // namespace
}  // namespace vramscope::model
