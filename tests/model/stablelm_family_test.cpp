// StableLM (model_type "stablelm"): shapes as modeling_stablelm.py declares them
// (StableLmAttention, StableLmLayerNormPerHead, StableLmMLP, StableLmDecoderLayer), and bad
// configs refused with the file, line and field.
#include <vramscope/model/catalog.hpp>
#include <vramscope/model/config_reader.hpp>

#include "spec_lookup.hpp"

#include <gtest/gtest.h>

#include <string>

#include "support/config_parsing.hpp"

namespace vramscope::model {
namespace {

// StableLM in miniature: hidden 32, 2 layers, 4 heads of 8 with 2 kv heads, MLP 48.
const std::string tiny = R"("model_type": "stablelm", "hidden_size": 32,
    "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
    "num_key_value_heads": 2, "vocab_size": 100)";

using testing::error_of;
using testing::first_line;
using testing::parsed;

std::vector<std::string> unit_names(const model_spec& spec) {
  std::vector<std::string> names;
  for (const auto& u : spec.units) names.push_back(u.name);
  return names;
}

TEST(StableLmFamily, LlamaLayoutWithBiasedLayerNormsAndAGatedMlp) {
  const auto spec = parsed("{" + tiny + "}");
  EXPECT_EQ(shape_of(spec, "model.embed_tokens.weight"), (shape{100, 32}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.q_proj.weight"), (shape{32, 32}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.k_proj.weight"), (shape{16, 32}));
  EXPECT_EQ(shape_of(spec, "model.layers.1.self_attn.v_proj.weight"), (shape{16, 32}));
  EXPECT_EQ(shape_of(spec, "model.layers.1.self_attn.o_proj.weight"), (shape{32, 32}));
  EXPECT_EQ(find(spec, "model.layers.0.self_attn.q_proj.bias"), nullptr);  // use_qkv_bias false
  EXPECT_EQ(shape_of(spec, "model.layers.0.mlp.gate_proj.weight"), (shape{48, 32}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.mlp.up_proj.weight"), (shape{48, 32}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.mlp.down_proj.weight"), (shape{32, 48}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.input_layernorm.bias"), (shape{32}));
  EXPECT_EQ(shape_of(spec, "model.layers.1.post_attention_layernorm.bias"), (shape{32}));
  EXPECT_EQ(shape_of(spec, "model.norm.bias"), (shape{32}));
  EXPECT_EQ(shape_of(spec, "lm_head.weight"), (shape{100, 32}));
  EXPECT_EQ(unit_names(spec),
            (std::vector<std::string>{"embed_tokens", "layers.0", "layers.1", "norm", "lm_head"}));
  // Per layer: q, o 32 x 32; k, v 16 x 32; gate, up, down 48 x 32; two LayerNorms 2 x 64.
  EXPECT_EQ(spec.parameters(), 2 * 3'200u + 2 * (2'048 + 1'024 + 4'608 + 128) + 64);
  EXPECT_EQ(spec.text.family, "stablelm");
  EXPECT_EQ(spec.text.kv_heads, 2u);
  EXPECT_EQ(spec.text.head_dim, 8u);
  EXPECT_TRUE(spec.text.layer_norm);
  EXPECT_TRUE(spec.text.gated_mlp);
  EXPECT_EQ(spec.text.form, block_form::sequential);
  EXPECT_EQ(spec.text.activation_saved, 1u);  // silu
  EXPECT_FALSE(spec.text.residual_dropout);
}

TEST(StableLmFamily, QkvBiasPerHeadNormsParallelResidualAndTiedHead) {
  const auto spec = parsed("{" + tiny + R"(, "use_qkv_bias": true, "qk_layernorm": true,
      "use_parallel_residual": true, "tie_word_embeddings": true, "hidden_dropout": 0.1})");
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.q_proj.bias"), (shape{32}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.k_proj.bias"), (shape{16}));
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.v_proj.bias"), (shape{16}));
  EXPECT_EQ(find(spec, "model.layers.0.self_attn.o_proj.bias"), nullptr);
  // One weight-only LayerNorm per query head and per kv head.
  EXPECT_EQ(shape_of(spec, "model.layers.0.self_attn.q_layernorm.norms.3.weight"), (shape{8}));
  EXPECT_EQ(find(spec, "model.layers.0.self_attn.q_layernorm.norms.4.weight"), nullptr);
  EXPECT_EQ(shape_of(spec, "model.layers.1.self_attn.k_layernorm.norms.1.weight"), (shape{8}));
  EXPECT_EQ(find(spec, "model.layers.1.self_attn.k_layernorm.norms.2.weight"), nullptr);
  EXPECT_EQ(find(spec, "model.layers.1.self_attn.k_layernorm.norms.0.bias"), nullptr);
  EXPECT_EQ(find(spec, "model.layers.0.post_attention_layernorm.weight"), nullptr);
  EXPECT_EQ(find(spec, "lm_head.weight"), nullptr);
  EXPECT_EQ(unit_names(spec).back(), "norm");
  EXPECT_EQ(spec.text.form, block_form::parallel_shared);
  EXPECT_TRUE(spec.text.tied_embeddings);
  EXPECT_TRUE(spec.text.residual_dropout);
}

TEST(StableLmFamily, PresetsCountAsTheirCheckpoints) {
  auto two = load_preset("stablelm-2-1.6b");
  ASSERT_TRUE(two) << two.error().to_string();
  EXPECT_EQ(shape_of(*two, "model.layers.23.self_attn.k_proj.bias"), (shape{2048}));
  EXPECT_EQ(shape_of(*two, "model.layers.0.mlp.down_proj.weight"), (shape{2048, 5632}));
  EXPECT_EQ(two->largest_unit().name, "embed_tokens");
  auto three = load_preset("stablelm-3b-4e1t");
  ASSERT_TRUE(three) << three.error().to_string();
  EXPECT_EQ(find(*three, "model.layers.0.self_attn.q_proj.bias"), nullptr);
  // A layer: attention 4 x 2560^2 + MLP 3 x 6912 x 2560 + LayerNorms 4 x 2560.
  const unit& layer = three->units[1];
  EXPECT_EQ(layer.name, "layers.0");
  EXPECT_EQ(layer.parameters, 79'308'800u);
}

TEST(StableLmFamily, BadInputNamesTheFileAndField) {
  EXPECT_EQ(error_of(R"({"model_type": "stablelm", "intermediate_size": 48,
      "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100})"),
            "config.json: missing required field \"hidden_size\" (a positive integer)");
  EXPECT_EQ(first_line(error_of(R"({"model_type": "stablelm", "hidden_size": 32,
      "intermediate_size": 48, "num_hidden_layers": 0, "num_attention_heads": 4,
      "vocab_size": 100})")),
            "config.json:2:32: field \"num_hidden_layers\" must be a positive integer, got 0");
  EXPECT_EQ(first_line(error_of(R"({"model_type": "stablelm", "hidden_size": 32,
      "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
      "num_key_value_heads": 3, "vocab_size": 100})")),
            "config.json:3:7: num_key_value_heads 3 must divide num_attention_heads 4");
  EXPECT_EQ(first_line(error_of(R"({"model_type": "stablelm", "hidden_size": 30,
      "intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
      "vocab_size": 100})")),
            "config.json:2:56: the width 30 is not a multiple of num_attention_heads 4");
  EXPECT_EQ(first_line(error_of("{" + tiny + R"(, "use_qkv_bias": "yes"})")),
            "config.json:3:50: field \"use_qkv_bias\" must be true or false, got \"yes\"");
  EXPECT_NE(
      error_of("{" + tiny + R"(, "hidden_act": "swish2"})").find("unknown activation \"swish2\""),
      std::string::npos);
}

}  // namespace
}  // namespace vramscope::model
