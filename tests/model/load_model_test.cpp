// load_model on folders: config only, weights only, both (compared), index + shards.
#include <vramscope/model/model_spec.hpp>

#include <gtest/gtest.h>

#include <vramscope/core/io.hpp>

#include "model/safetensors_bytes.hpp"

namespace vramscope::model {
namespace {

namespace fs = std::filesystem;
using testing::fake_tensor;

const std::string tiny_config =
    std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/model/configs/tiny-llama.json";

// The tensors of tests/data/model/configs/tiny-llama.json (hidden 8, 2 heads, 1 kv head,
// MLP 16, 2 layers, vocabulary 32), as a checkpoint would hold them.
std::vector<fake_tensor> tiny_tensors(const std::string& type = "BF16") {
  std::vector<fake_tensor> t = {{"model.embed_tokens.weight", type, {32, 8}}};
  for (int l = 0; l < 2; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    t.push_back({p + "self_attn.q_proj.weight", type, {8, 8}});
    t.push_back({p + "self_attn.k_proj.weight", type, {4, 8}});
    t.push_back({p + "self_attn.v_proj.weight", type, {4, 8}});
    t.push_back({p + "self_attn.o_proj.weight", type, {8, 8}});
    t.push_back({p + "mlp.gate_proj.weight", type, {16, 8}});
    t.push_back({p + "mlp.up_proj.weight", type, {16, 8}});
    t.push_back({p + "mlp.down_proj.weight", type, {8, 16}});
    t.push_back({p + "input_layernorm.weight", "F32", {8}});
    t.push_back({p + "post_attention_layernorm.weight", "F32", {8}});
  }
  t.push_back({"model.norm.weight", type, {8}});
  t.push_back({"lm_head.weight", type, {32, 8}});
  return t;
}

fs::path folder_with(const std::string& name, const std::vector<fake_tensor>& tensors) {
  const auto dir = testing::fresh_folder(name);
  fs::copy_file(tiny_config, dir / "config.json");
  testing::write(dir / "model.safetensors", testing::file_of(tensors));
  return dir;
}

TEST(LoadModel, ConfigAndMatchingWeightsTakeTheWeightsDtypes) {
  const auto dir = folder_with("match", tiny_tensors());
  auto spec = load_model(dir.string());
  ASSERT_TRUE(spec) << spec.error().to_string();
  EXPECT_EQ(spec->model_type, "llama");
  EXPECT_EQ(spec->name, dir.string());
  EXPECT_EQ(spec->tensors[8].name, "model.layers.0.input_layernorm.weight");
  EXPECT_EQ(spec->tensors[8].type, dtype::f32);
  EXPECT_EQ(spec->type, dtype::bf16);
  EXPECT_EQ(spec->units[1].size, (8u * 8u * 2u + 4u * 8u * 2u + 16u * 8u * 3u) * 2u + 16u * 4u);
}

TEST(LoadModel, ShapeMismatchIsReported) {
  auto tensors = tiny_tensors();
  tensors[2].shape = {8, 8};  // k_proj as if there were no grouped-query attention
  const auto dir = folder_with("shape", tensors);
  auto spec = load_model(dir.string());
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().to_string(),
            (dir / "model.safetensors").string() +
                ": tensor \"model.layers.0.self_attn.k_proj.weight\" has shape [8, 8], but " +
                (dir / "config.json").string() + " gives [4, 8]");
}

TEST(LoadModel, MissingTensorIsReported) {
  auto tensors = tiny_tensors();
  tensors.pop_back();  // no lm_head
  const auto dir = folder_with("missing", tensors);
  auto spec = load_model(dir.string());
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().to_string(), dir.string() +
                                          "/model.safetensors: missing tensor "
                                          "\"lm_head.weight\" [32, 8] that " +
                                          (dir / "config.json").string() + " describes");
}

TEST(LoadModel, ExtraTensorIsReportedButBuffersAreNot) {
  auto tensors = tiny_tensors();
  tensors.push_back({"model.layers.0.self_attn.rotary_emb.inv_freq", "F32", {2}});
  const auto ok_dir = folder_with("buffers", tensors);
  EXPECT_TRUE(load_model(ok_dir.string()));
  tensors.push_back({"model.layers.0.mlp.extra.weight", "BF16", {3}});
  const auto dir = folder_with("extra", tensors);
  auto spec = load_model(dir.string());
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().to_string(),
            (dir / "model.safetensors").string() +
                ": tensor \"model.layers.0.mlp.extra.weight\" [3] is not in the inventory " +
                (dir / "config.json").string() + " describes");
}

TEST(LoadModel, IndexAndShards) {
  const auto dir = testing::fresh_folder("shards");
  fs::copy_file(tiny_config, dir / "config.json");
  auto all = tiny_tensors();
  const std::vector<fake_tensor> first(all.begin(), all.begin() + 10);
  const std::vector<fake_tensor> second(all.begin() + 10, all.end());
  testing::write(dir / "model-00001-of-00002.safetensors", testing::file_of(first));
  testing::write(dir / "model-00002-of-00002.safetensors", testing::file_of(second));
  std::string map;
  for (std::size_t i = 0; i < all.size(); ++i)
    map += (i ? ",\"" : "\"") + all[i].name + "\":\"model-0000" + (i < 10 ? "1" : "2") +
           "-of-00002.safetensors\"";
  testing::write(dir / "model.safetensors.index.json",
                 "{\"metadata\":{\"total_size\":1},\"weight_map\":{" + map + "}}");
  auto spec = load_model(dir.string());
  ASSERT_TRUE(spec) << spec.error().to_string();
  EXPECT_EQ(spec->tensors.size(), all.size());
  ASSERT_FALSE(spec->notes.empty());
  EXPECT_NE(spec->notes.back().message.find("metadata.total_size is 1"), std::string::npos);
}

TEST(LoadModel, IndexNamingAMissingTensorOrABadShard) {
  const auto dir = testing::fresh_folder("bad_index");
  testing::write(dir / "a.safetensors", testing::file_of({{"x", "F32", {2}}}));
  testing::write(dir / "model.safetensors.index.json",
                 R"({"weight_map": {"x": "a.safetensors", "y": "a.safetensors"}})");
  auto spec = load_model(dir.string());
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().to_string(), (dir / "model.safetensors.index.json").string() +
                                          ": tensor \"y\" is mapped to \"a.safetensors\", which "
                                          "does not hold it");
  testing::write(dir / "model.safetensors.index.json",
                 R"({"weight_map": {"x": "../a.safetensors"}})");
  spec = load_model(dir.string());
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().to_string(), (dir / "model.safetensors.index.json").string() +
                                          ": weight_map: shard \"../a.safetensors\" of tensor "
                                          "\"x\" must be a file name in the index's folder");
}

TEST(LoadModel, WeightsWithoutConfigGetInferredUnits) {
  const auto dir = testing::fresh_folder("weights_only");
  testing::write(dir / "model.safetensors", testing::file_of(tiny_tensors()));
  auto spec = load_model(dir.string());
  ASSERT_TRUE(spec) << spec.error().to_string();
  EXPECT_EQ(spec->model_type, "safetensors");
  std::vector<std::string> units;
  for (const auto& u : spec->units) units.push_back(u.name);
  EXPECT_EQ(units,
            (std::vector<std::string>{"embed_tokens", "layers.0", "layers.1", "norm", "lm_head"}));
  EXPECT_EQ(spec->units[4].kind, unit_kind::head);
  EXPECT_EQ(spec->text.layers, 2u);
  EXPECT_EQ(spec->text.hidden, 8u);
  EXPECT_EQ(spec->text.vocab, 32u);
  auto file = load_model((dir / "model.safetensors").string());
  ASSERT_TRUE(file) << file.error().to_string();
  EXPECT_EQ(file->parameters(), spec->parameters());
}

TEST(LoadModel, InfersVisionAndProjectorUnitsFromNames) {
  auto spec = load_model(std::string(VRAMSCOPE_SOURCE_DIR) +
                         "/tests/data/model/safetensors/vision.safetensors");
  ASSERT_TRUE(spec) << spec.error().to_string();
  std::vector<std::pair<std::string, unit_kind>> units;
  for (const auto& u : spec->units) units.emplace_back(u.name, u.kind);
  EXPECT_EQ(units, (std::vector<std::pair<std::string, unit_kind>>{
                       {"vision_tower.embeddings", unit_kind::vision_embedding},
                       {"vision_tower.layers.0", unit_kind::vision_block},
                       {"multi_modal_projector", unit_kind::projector},
                       {"layers.0", unit_kind::block}}));
  ASSERT_TRUE(spec->vision);
  EXPECT_EQ(spec->vision->layers, 1u);
  EXPECT_EQ(spec->type, dtype::f32);
}

TEST(LoadModel, Gpt2WeightsMayCarryTheTransformerPrefix) {
  const auto dir = testing::fresh_folder("gpt2_prefix");
  testing::write(dir / "config.json",
                 R"({"model_type": "gpt2", "vocab_size": 10, "n_positions": 4, "n_embd": 4,)"
                 R"( "n_layer": 1, "n_head": 2})");
  std::vector<fake_tensor> t = {{"transformer.wte.weight", "F32", {10, 4}},
                                {"transformer.wpe.weight", "F32", {4, 4}}};
  for (const char* ln : {"ln_1", "ln_2"}) {
    t.push_back({std::string("transformer.h.0.") + ln + ".weight", "F32", {4}});
    t.push_back({std::string("transformer.h.0.") + ln + ".bias", "F32", {4}});
  }
  t.push_back({"transformer.h.0.attn.c_attn.weight", "F32", {4, 12}});
  t.push_back({"transformer.h.0.attn.c_attn.bias", "F32", {12}});
  t.push_back({"transformer.h.0.attn.c_proj.weight", "F32", {4, 4}});
  t.push_back({"transformer.h.0.attn.c_proj.bias", "F32", {4}});
  t.push_back({"transformer.h.0.attn.bias", "F32", {1, 1, 4, 4}});  // the causal-mask buffer
  t.push_back({"transformer.h.0.mlp.c_fc.weight", "F32", {4, 16}});
  t.push_back({"transformer.h.0.mlp.c_fc.bias", "F32", {16}});
  t.push_back({"transformer.h.0.mlp.c_proj.weight", "F32", {16, 4}});
  t.push_back({"transformer.h.0.mlp.c_proj.bias", "F32", {4}});
  t.push_back({"transformer.ln_f.weight", "F32", {4}});
  t.push_back({"transformer.ln_f.bias", "F32", {4}});
  t.push_back({"lm_head.weight", "F32", {10, 4}});  // stored although tied
  testing::write(dir / "model.safetensors", testing::file_of(t));
  auto spec = load_model(dir.string());
  ASSERT_TRUE(spec) << spec.error().to_string();
  EXPECT_EQ(spec->tensors.front().name, "transformer.wte.weight");
  ASSERT_EQ(spec->notes.size(), 1u);
  EXPECT_NE(spec->notes[0].message.find("stores lm_head.weight although"), std::string::npos);
}

TEST(LoadModel, AHuggingFaceIdThatIsNoLocalFolderLoadsItsPreset) {
  auto spec = load_model("meta-llama/Llama-3.1-8B-Instruct");
  ASSERT_TRUE(spec) << spec.error().to_string();
  EXPECT_EQ(spec->name, "llama-3.1-8b");
  EXPECT_EQ(spec->parameters(), 8'030'261'248u);
  auto upper = load_model("GPT2");
  ASSERT_TRUE(upper) << upper.error().to_string();
  EXPECT_EQ(upper->name, "gpt2");
}

TEST(LoadModel, ConfigFileAndErrors) {
  auto spec = load_model(tiny_config);
  ASSERT_TRUE(spec) << spec.error().to_string();
  EXPECT_EQ(spec->parameters(), 32u * 8u * 2u + 2u * (64u * 2u + 32u * 2u + 128u * 3u + 16u) + 8u);
  EXPECT_EQ(load_model("./no/such/model").error().to_string(),
            "./no/such/model: no such file or folder, and no preset has this Hugging Face id "
            "(nothing is downloaded: give the checkpoint's folder or its config.json)");
  const auto empty = testing::fresh_folder("empty");
  EXPECT_EQ(load_model(empty.string()).error().to_string(),
            empty.string() + ": holds neither config.json nor *.safetensors files");
}

}  // namespace
}  // namespace vramscope::model
