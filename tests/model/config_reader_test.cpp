#include <vramscope/model/config_reader.hpp>

#include <gtest/gtest.h>

namespace vramscope::model {
namespace {

std::string error_of(const std::string& text) {
  auto spec = parse_config_json(text, "config.json");
  EXPECT_FALSE(spec);
  return spec ? std::string("(parsed)") : spec.error().to_string();
}

model_spec parsed(const std::string& text) {
  auto spec = parse_config_json(text, "config.json");
  EXPECT_TRUE(spec) << spec.error().to_string();
  return spec ? *spec : model_spec{};
}

const std::string llama_sizes =
    R"("hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,)"
    R"( "num_attention_heads": 8, "vocab_size": 100)";

TEST(ConfigReader, RejectsInvalidJsonWithLineAndCaret) {
  EXPECT_EQ(error_of("{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,,\n}"),
            "config.json:3:23: invalid JSON: syntax error while parsing object key - unexpected "
            "','; expected string literal\n"
            "  \"hidden_size\": 4096,,\n"
            "                      ^ near here");
}

TEST(ConfigReader, RejectsTopLevelThatIsNotAnObject) {
  EXPECT_EQ(error_of("[1, 2]"), "config.json: expected a JSON object at the top level, got array");
}

TEST(ConfigReader, RequiresModelTypeAndPointsAtTheObject) {
  const std::string error = error_of("\n{" + llama_sizes + "}");
  EXPECT_EQ(error.substr(0, error.find('\n')),
            "config.json:2:1: missing required field \"model_type\" (a string such as \"llama\"): not a "
            "Hugging Face config.json?");
}

TEST(ConfigReader, UnknownModelTypeListsTheSupportedOnes) {
  EXPECT_EQ(error_of("{\n  \"model_type\": \"lama\"\n}"),
            "config.json:2:3: unknown model_type \"lama\"; supported: bert, clip, clip_text_model, "
            "clip_vision_model, deepseek_v2, deepseek_v3, falcon, gemma, gemma2, gemma3, "
            "gemma3_text, gpt2, gpt_neox, llama, llama4, llama4_text, mistral, mixtral, paligemma, "
            "phi, phi3, pi0, qwen2, qwen2_moe, qwen3, qwen3_moe, siglip, siglip_vision_model, "
            "stablelm, t5 "
            "(did you mean "
            "\"llama\"?)\n"
            "  \"model_type\": \"lama\"\n"
            "  ^ near here");
}

TEST(ConfigReader, MissingRequiredFieldNamesFileAndField) {
  EXPECT_EQ(error_of(R"({"model_type": "llama", "hidden_size": 64, "vocab_size": 100,
                        "num_hidden_layers": 2, "num_attention_heads": 8})"),
            "config.json: missing required field \"intermediate_size\" (a positive integer)");
}

TEST(ConfigReader, WrongTypePointsAtTheField) {
  EXPECT_EQ(error_of("{\"model_type\": \"llama\", \"vocab_size\": 100,\n \"hidden_size\": \"64\"}"),
            "config.json:2:2: field \"hidden_size\" must be a positive integer, got \"64\"\n"
            " \"hidden_size\": \"64\"}\n"
            " ^ near here");
}

TEST(ConfigReader, RejectsZeroNegativeFractionalAndHugeSizes) {
  const auto with = [](const std::string& field) {
    return error_of(R"({"model_type": "gpt2", "vocab_size": 10, "n_positions": 4, "n_embd": 4,
                       "n_head": 2, )" +
                    field + "}");
  };
  EXPECT_NE(with(R"("n_layer": 0)").find("field \"n_layer\" must be a positive integer, got 0"),
            std::string::npos);
  EXPECT_NE(with(R"("n_layer": -3)").find("got -3"), std::string::npos);
  EXPECT_NE(with(R"("n_layer": 2.5)").find("got 2.5"), std::string::npos);
  EXPECT_NE(with(R"("n_layer": 5000)").find("field \"n_layer\" is 5000, above the limit of 1024"),
            std::string::npos);
}

TEST(ConfigReader, KvHeadsMustDivideHeads) {
  EXPECT_NE(error_of(R"({"model_type": "llama", )" + llama_sizes + R"(, "num_key_value_heads": 3})")
                .find("num_key_value_heads 3 must divide num_attention_heads 8"),
            std::string::npos);
}

TEST(ConfigReader, WidthMustSplitIntoHeadsWithoutHeadDim) {
  EXPECT_NE(error_of(R"({"model_type": "llama", "hidden_size": 60, "intermediate_size": 128,
                        "num_hidden_layers": 2, "num_attention_heads": 8, "vocab_size": 100})")
                .find("hidden_size 60 is not a multiple of num_attention_heads 8 (and no head_dim "
                      "is given)"),
            std::string::npos);
}

TEST(ConfigReader, RejectsUnknownDtype) {
  EXPECT_EQ(error_of("{\"model_type\": \"gpt2\",\n\"torch_dtype\": \"float12\"}"),
            "config.json:2:1: field \"torch_dtype\" is \"float12\", not a dtype (expected "
            "float32, bfloat16, float16, ...)\n"
            "\"torch_dtype\": \"float12\"}\n"
            "^ near here");
}

TEST(ConfigReader, NestedFieldsAreNamedWithTheirPath) {
  const std::string text =
      "{\"model_type\": \"pi0\", \"action_dim\": 32,\n"
      " \"vision_config\": {\"hidden_size\": 8, \"intermediate_size\": 16,"
      " \"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"image_size\": 4, \"patch_size\": "
      "2},\n"
      " \"text_config\": {\"intermediate_size\": 16}}";
  EXPECT_EQ(error_of(text),
            "config.json:3:2: missing required field \"text_config.vocab_size\" (a positive "
            "integer)\n"
            " \"text_config\": {\"intermediate_size\": 16}}\n"
            " ^ near here");
}

TEST(ConfigReader, PointsAtTheKeyOfTheRightObject) {
  // "hidden_size" appears first inside text_config; the error is about the top-level one.
  const std::string text =
      "{\"model_type\": \"paligemma\",\n"
      " \"text_config\": {\"hidden_size\": 2048},\n"
      " \"projection_dim\": \"2048\"}";
  EXPECT_EQ(error_of(text),
            "config.json:3:2: field \"projection_dim\" must be a positive integer, got \"2048\"\n"
            " \"projection_dim\": \"2048\"}\n"
            " ^ near here");
  const std::string nested =
      "{\"model_type\": \"paligemma\", \"hidden_size\": 2048,\n"
      " \"text_config\": {\"vocab_size\": 10,\n   \"hidden_size\": true}}";
  EXPECT_EQ(error_of(nested),
            "config.json:3:4: field \"text_config.hidden_size\" must be a positive integer, got "
            "true\n"
            "   \"hidden_size\": true}}\n"
            "   ^ near here");
}

TEST(ConfigReader, RefusesInventoriesThatAreTooLarge) {
  EXPECT_EQ(error_of(R"({"model_type": "mixtral", "hidden_size": 8, "intermediate_size": 8,
                        "num_hidden_layers": 1024, "num_attention_heads": 2, "vocab_size": 8,
                        "num_key_value_heads": 2, "num_local_experts": 1024})"),
            "config.json: the model has more than 200000 tensors, which no real checkpoint has");
  EXPECT_NE(error_of(R"({"model_type": "gpt2", "vocab_size": 16777216, "n_positions": 4,
                        "n_embd": 16777216, "n_layer": 1024, "n_head": 1,
                        "n_inner": 16777216})")
                .find("the model has more than 1,000,000,000,000,000 parameters"),
            std::string::npos);
}

TEST(ConfigReader, KvHeadsDefaultAsTransformersDoes) {
  // Llama: absent means num_attention_heads.
  EXPECT_EQ(parsed(R"({"model_type": "llama", )" + llama_sizes + "}").text.kv_heads, 8u);
  // Mistral's class default is 8, whatever the head count; null means num_attention_heads.
  const std::string mistral = R"({"model_type": "mistral", "hidden_size": 64,
      "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 16,
      "vocab_size": 100)";
  EXPECT_EQ(parsed(mistral + "}").text.kv_heads, 8u);
  EXPECT_EQ(parsed(mistral + R"(, "num_key_value_heads": null})").text.kv_heads, 16u);
}

TEST(ConfigReader, HeadDimDefaultsPerFamily) {
  EXPECT_EQ(parsed(R"({"model_type": "llama", )" + llama_sizes + "}").text.head_dim, 8u);
  EXPECT_EQ(
      parsed(R"({"model_type": "llama", )" + llama_sizes + R"(, "head_dim": 16})").text.head_dim,
      16u);
  // Qwen3 and Gemma configs default to more kv heads (32, 16) than these 8 heads: give them.
  const std::string kv = R"(, "num_key_value_heads": 8})";
  EXPECT_EQ(parsed(R"({"model_type": "qwen3", )" + llama_sizes + kv).text.head_dim, 128u);
  EXPECT_EQ(parsed(R"({"model_type": "gemma", )" + llama_sizes + kv).text.head_dim, 256u);
}

TEST(ConfigReader, TiedEmbeddingsDefaultPerFamily) {
  EXPECT_FALSE(parsed(R"({"model_type": "llama", )" + llama_sizes + "}").text.tied_embeddings);
  const std::string kv = R"(, "num_key_value_heads": 1})";
  EXPECT_TRUE(parsed(R"({"model_type": "gemma", )" + llama_sizes + kv).text.tied_embeddings);
  const auto untied_gemma =
      parsed(R"({"model_type": "gemma", "tie_word_embeddings": false, )" + llama_sizes + kv);
  EXPECT_EQ(untied_gemma.tensors.back().name, "lm_head.weight");
}

TEST(ConfigReader, DtypeComesFromTorchDtypeOrDtypeElseFloat32) {
  EXPECT_EQ(
      parsed(R"({"model_type": "llama", "torch_dtype": "bfloat16", )" + llama_sizes + "}").type,
      dtype::bf16);
  EXPECT_EQ(parsed(R"({"model_type": "llama", "dtype": "float16", )" + llama_sizes + "}").type,
            dtype::f16);
  EXPECT_EQ(parsed(R"({"model_type": "llama", )" + llama_sizes + "}").type, dtype::f32);
}

TEST(ConfigReader, LlamaBiasesFollowTheFlags) {
  const auto spec = parsed(R"({"model_type": "llama", "attention_bias": true, "mlp_bias": true, )" +
                           llama_sizes + "}");
  std::size_t biases = 0;
  for (const auto& t : spec.tensors)
    if (t.name.ends_with(".bias")) ++biases;
  EXPECT_EQ(biases, 2u * 7u);  // q, k, v, o, gate, up, down in each of 2 layers
}

TEST(ConfigReader, SupportedTypesAreSorted) {
  const auto types = supported_model_types();
  EXPECT_TRUE(std::is_sorted(types.begin(), types.end()));
  EXPECT_EQ(types.size(), 30u);
}

TEST(ConfigReader, QwenMoeHasRoutedAndSharedExpertsAndDenseLayers) {
  // qwen2_moe: 3 layers, the middle one dense (mlp_only_layers), the others with 4 experts of 16
  // and a shared expert of 32 with its one-output gate.
  const auto m = parsed(R"({"model_type": "qwen2_moe", "hidden_size": 64, "intermediate_size": 128,
    "num_hidden_layers": 3, "num_attention_heads": 8, "num_key_value_heads": 8, "vocab_size": 100, "num_experts": 4,
    "num_experts_per_tok": 2, "moe_intermediate_size": 16, "shared_expert_intermediate_size": 32,
    "mlp_only_layers": [1]})");
  const std::uint64_t h = 64, v = 100;
  const std::uint64_t attention = 3 * (h * h + h) + h * h;  // q/k/v with biases, o without
  const std::uint64_t sparse = 4 * h + 4 * 3 * h * 16 + 3 * h * 32 + h;
  const std::uint64_t dense = 3 * h * 128;
  EXPECT_EQ(m.parameters(), 2 * v * h + h + 3 * (attention + 2 * h) + 2 * sparse + dense);
  EXPECT_EQ(m.text.experts, 4u);
  EXPECT_EQ(m.text.experts_per_token, 2u);
  EXPECT_EQ(m.text.intermediate, 16u);
  EXPECT_EQ(m.text.shared_expert_intermediate, 32u);
  bool shared = false, dense_mlp = false;
  for (const auto& t : m.tensors) {
    shared = shared || t.name == "model.layers.0.mlp.shared_expert_gate.weight";
    dense_mlp = dense_mlp || t.name == "model.layers.1.mlp.gate_proj.weight";
  }
  EXPECT_TRUE(shared);
  EXPECT_TRUE(dense_mlp);
  // decoder_sparse_step 2: only every second layer is sparse.
  const auto stepped = parsed(R"({"model_type": "qwen3_moe", )" + llama_sizes +
                              R"(, "num_experts": 4, "moe_intermediate_size": 16, "num_experts_per_tok": 2,
    "decoder_sparse_step": 2})");
  std::uint64_t routers = 0;
  for (const auto& t : stepped.tensors) routers += t.name.find("mlp.gate.weight") != std::string::npos;
  EXPECT_EQ(routers, 1u);
}

TEST(ConfigReader, QwenMoeRejectsBadLayerListsAndTooManyExpertsPerToken) {
  EXPECT_NE(error_of(R"({"model_type": "qwen3_moe", )" + llama_sizes +
                     R"(, "num_experts": 4, "moe_intermediate_size": 16, "mlp_only_layers": [5]})")
                .find("\"mlp_only_layers\" must hold layer indices from 0 to 1, got 5"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"model_type": "qwen3_moe", )" + llama_sizes +
                     R"(, "num_experts": 4, "moe_intermediate_size": 16, "num_experts_per_tok": 8})")
                .find("num_experts_per_tok 8 exceeds num_experts 4"),
            std::string::npos);
  // A step of 0 (found by fuzz_model_config) is bad input, not a division by zero.
  EXPECT_NE(error_of(R"({"model_type": "qwen3_moe", )" + llama_sizes +
                     R"(, "num_experts": 4, "moe_intermediate_size": 16, "decoder_sparse_step": 0})")
                .find("\"decoder_sparse_step\" must be a positive integer, got 0"),
            std::string::npos);
}

TEST(ConfigReader, DeepseekHasLatentAttentionSharedExpertsAndDenseFirstLayers) {
  // deepseek_v3 in miniature: 3 layers, the first dense; q through a rank-16 bottleneck, k and
  // v from a rank-8 latent; 4 routed experts of 16 and 2 shared ones.
  const std::string config = R"({"model_type": "deepseek_v3", "hidden_size": 64,
    "intermediate_size": 96, "num_hidden_layers": 3, "num_attention_heads": 4, "vocab_size": 100,
    "q_lora_rank": 16, "kv_lora_rank": 8, "qk_nope_head_dim": 12, "qk_rope_head_dim": 4,
    "v_head_dim": 10, "n_routed_experts": 4, "num_experts_per_tok": 2, "n_shared_experts": 2,
    "moe_intermediate_size": 16, "first_k_dense_replace": 1})";
  const auto m = parsed(config);
  const std::uint64_t h = 64, v = 100, heads = 4, qk = 16;
  const std::uint64_t attention = 16 * h + 16 + heads * qk * 16 + (8 + 4) * h + 8 +
                                  heads * (12 + 10) * 8 + h * heads * 10;
  const std::uint64_t sparse = 4 * h + 4 * 3 * h * 16 + 3 * h * 32;
  const std::uint64_t dense = 3 * h * 96;
  EXPECT_EQ(m.parameters(), 2 * v * h + h + 3 * (attention + 2 * h) + dense + 2 * sparse);
  EXPECT_EQ(m.text.head_dim, 16u);
  EXPECT_EQ(m.text.kv_heads, 4u);
  EXPECT_EQ(m.text.shared_expert_intermediate, 32u);
  // Without the query bottleneck: one q_proj; first_k_dense_replace 0: every layer sparse.
  std::string plain = config;
  plain.replace(plain.find("\"q_lora_rank\": 16"), 17, "\"q_lora_rank\": null");
  plain.replace(plain.find("\"first_k_dense_replace\": 1"), 26, "\"first_k_dense_replace\": 0");
  const auto p = parsed(plain);
  bool q_proj = false;
  std::uint64_t routers = 0;
  for (const auto& t : p.tensors) {
    q_proj = q_proj || t.name == "model.layers.0.self_attn.q_proj.weight";
    routers += t.name.find("mlp.gate.weight") != std::string::npos;
  }
  EXPECT_TRUE(q_proj);
  EXPECT_EQ(routers, 3u);
  plain.replace(plain.find("\"first_k_dense_replace\": 0"), 26, "\"first_k_dense_replace\": 9");
  EXPECT_NE(error_of(plain).find("\"first_k_dense_replace\" must be an integer from 0 to 3, got 9"),
            std::string::npos);
}

TEST(ConfigReader, DeepseeksInferenceFormatReadsAsDeepseekV3) {
  // The same miniature model in DeepSeek's own spelling (inference/configs/config_*.json), with
  // q_lora_rank 0 for "no query bottleneck".
  const auto hf = parsed(R"({"model_type": "deepseek_v3", "hidden_size": 64,
    "intermediate_size": 96, "num_hidden_layers": 3, "num_attention_heads": 4, "vocab_size": 100,
    "q_lora_rank": null, "kv_lora_rank": 8, "qk_nope_head_dim": 12, "qk_rope_head_dim": 4,
    "v_head_dim": 10, "n_routed_experts": 4, "num_experts_per_tok": 2, "n_shared_experts": 2,
    "moe_intermediate_size": 16, "first_k_dense_replace": 1})");
  const auto own = parsed(R"({"vocab_size": 100, "dim": 64, "inter_dim": 96, "moe_inter_dim": 16,
    "n_layers": 3, "n_dense_layers": 1, "n_heads": 4, "n_routed_experts": 4, "n_shared_experts": 2,
    "n_activated_experts": 2, "q_lora_rank": 0, "kv_lora_rank": 8, "qk_nope_head_dim": 12,
    "qk_rope_head_dim": 4, "v_head_dim": 10, "dtype": "bf16"})");
  EXPECT_EQ(own.model_type, "deepseek_v3");
  EXPECT_EQ(own.parameters(), hf.parameters());
  ASSERT_EQ(own.tensors.size(), hf.tensors.size());
  for (std::size_t i = 0; i < own.tensors.size(); ++i) EXPECT_EQ(own.tensors[i].name, hf.tensors[i].name);
  ASSERT_EQ(own.notes.size(), 1u);
  EXPECT_NE(own.notes[0].message.find("DeepSeek's inference config format"), std::string::npos);
}

}  // namespace
}  // namespace vramscope::model
