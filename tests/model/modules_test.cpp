#include <vramscope/model/modules.hpp>

#include <gtest/gtest.h>

#include <numeric>

#include "support/tiny_model.hpp"

namespace vramscope::model {
namespace {

using vramscope::testing::tiny_llama;

int total(const lora_target_set& s) { return std::accumulate(s.adapters.begin(), s.adapters.end(), 0); }

std::size_t index_of(const model_spec& m, const std::string& name) {
  for (std::size_t i = 0; i < m.tensors.size(); ++i)
    if (m.tensors[i].name == name) return i;
  return m.tensors.size();
}

TEST(LoraTargets, ListEntriesMatchWholeNamesOrDottedSuffixes) {
  const auto m = tiny_llama(32000, 1024, 4096, 2);
  const auto s = lora_targets(m, {"q_proj", "self_attn.v_proj"});
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(total(*s), 4);
  EXPECT_EQ(s->modules.front(), "model.layers.0.self_attn.q_proj");
  EXPECT_EQ(s->adapters[index_of(m, "model.layers.1.self_attn.v_proj.weight")], 1);
  EXPECT_EQ(s->adapters[index_of(m, "model.layers.1.self_attn.k_proj.weight")], 0);
  // A full module name matches only itself; "proj" is not a dotted suffix of "q_proj".
  EXPECT_EQ(total(*lora_targets(m, {"model.layers.1.mlp.down_proj"})), 1);
  EXPECT_FALSE(lora_targets(m, {"proj"}));
}

TEST(LoraTargets, RegexIsFullMatchedAgainstModuleNames) {
  const auto m = tiny_llama(32000, 1024, 4096, 3);
  const auto s = lora_targets(m, {R"(.*\.1\.self_attn\.(q|k)_proj)"});
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s->modules, (std::vector<std::string>{"model.layers.1.self_attn.q_proj",
                                                  "model.layers.1.self_attn.k_proj"}));
  // re.fullmatch: a pattern matching only part of a name selects nothing.
  EXPECT_FALSE(lora_targets(m, {"q_pr.*"}));
}

TEST(LoraTargets, AllLinearSkipsHeadEmbeddingAndNorms) {
  const auto m = tiny_llama(32000, 1024, 4096, 2);
  const auto s = lora_targets(m, {"ALL-LINEAR"});
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(total(*s), 2 * 7);
  EXPECT_EQ(s->adapters[index_of(m, "lm_head.weight")], 0);
  EXPECT_EQ(s->adapters[index_of(m, "model.embed_tokens.weight")], 0);
}

// torchtune's and torchtitan's names of the same modules select what the Hugging Face names do.
TEST(LoraTargets, FrameworkModuleNamesSelectTheHuggingFaceModules) {
  const auto m = tiny_llama(32000, 1024, 4096, 2);
  const auto hf = lora_targets(m, {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",
                                   "down_proj", "lm_head", "embed_tokens"});
  const auto tune = lora_targets(m, {"q_proj", "k_proj", "v_proj", "output_proj", "w1", "w3", "w2",
                                     "output", "tok_embeddings"});
  const auto titan = lora_targets(m, {"wq", "wk", "wv", "wo", "w1", "w3", "w2", "output",
                                      "tok_embeddings"});
  ASSERT_TRUE(hf) << hf.error().to_string();
  ASSERT_TRUE(tune) << tune.error().to_string();
  ASSERT_TRUE(titan) << titan.error().to_string();
  EXPECT_EQ(tune->adapters, hf->adapters);
  EXPECT_EQ(titan->adapters, hf->adapters);
  EXPECT_EQ(tune->modules, hf->modules);
  EXPECT_EQ(hf_module_name("output_proj"), "o_proj");
  EXPECT_EQ(hf_module_name("w2"), "down_proj");
  EXPECT_EQ(hf_module_name("q_proj"), "q_proj");  // a Hugging Face name is its own
  // A misspelling of either naming still fails with the closest module.
  EXPECT_FALSE(lora_targets(m, {"output_prj"}));
}

TEST(LoraTargets, HeadAndEmbeddingCanBeNamed) {
  const auto m = tiny_llama(32000, 1024, 4096, 1);
  const auto s = lora_targets(m, {"lm_head", "embed_tokens"});
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s->adapters[index_of(m, "lm_head.weight")], 1);
  EXPECT_EQ(s->adapters[index_of(m, "model.embed_tokens.weight")], 1);
  EXPECT_EQ(kind_of(m, m.tensors[index_of(m, "model.embed_tokens.weight")]), module_kind::embedding);
}

TEST(LoraTargets, TiedHeadSharesTheEmbeddingWeight) {
  auto m = tiny_llama(32000, 1024, 4096, 1);
  m.tensors.pop_back();  // lm_head.weight: tied to the embedding
  m.units.pop_back();
  m.text.tied_embeddings = true;
  const auto s = lora_targets(m, {"lm_head", "embed_tokens"});
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s->adapters[index_of(m, "model.embed_tokens.weight")], 2);
  EXPECT_EQ(s->modules.back(), "lm_head");
}

TEST(LoraTargets, UnknownTargetSuggestsTheClosestModule) {
  const auto m = tiny_llama(32000, 1024, 4096, 1);
  const auto s = lora_targets(m, {"q_proj", "v_projj"});
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message,
            "\"v_projj\" matches no module of tiny-llama (did you mean \"v_proj\"?); LoRA can "
            "target embed_tokens, q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, "
            "lm_head (or \"all-linear\")");
}

TEST(LoraTargets, RejectsModulesLoraCannotAdapt) {
  const auto m = tiny_llama(32000, 1024, 4096, 1);
  const auto norm = lora_targets(m, {"input_layernorm"});
  ASSERT_FALSE(norm);
  EXPECT_EQ(norm.error().message,
            "\"input_layernorm\" matches model.layers.0.input_layernorm, which LoRA cannot adapt "
            "(only Linear and Embedding modules; PEFT raises \"Target module ... is not "
            "supported\"); name its Linear layers instead");
  EXPECT_FALSE(lora_targets(m, {"self_attn"}));  // a container
}

TEST(LoraTargets, RejectsEmptyListsAndBadRegexes) {
  const auto m = tiny_llama(32000, 1024, 4096, 1);
  EXPECT_EQ(lora_targets(m, {}).error().message, "expected at least one module name");
  const auto bad = lora_targets(m, {"(q_proj"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message.rfind("\"(q_proj\" is not a valid regular expression (", 0), 0u);
}

}  // namespace
}  // namespace vramscope::model
