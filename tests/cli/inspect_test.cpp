// vramscope inspect and vramscope models, driven in process through cli::run.
#include <vramscope/cli/run.hpp>

#include "support/cli.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace vramscope::cli {
namespace {

using testing::cli_result;
using testing::invoke;

TEST(CliInspect, TextShowsTotalsUnitsAndTheLargestUnit) {
  auto r = invoke({"inspect", "llama-3.1-8b"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("parameters    8,030,261,248\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("size          14.96 GiB (bf16 14.96 GiB)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("layers.0..31 (32)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("218,112,000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("largest unit: embed_tokens, 525,336,576 parameters, 1002.0 MiB (FSDP and "
                       "ZeRO-3 gather one unit at a time)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("model.layers.0.self_attn.q_proj.weight"), std::string::npos);
}

TEST(CliInspect, TensorsFlagListsEveryTensor) {
  auto r = invoke({"inspect", "gpt2", "--tensors"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("tensors (148)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("h.0.attn.c_attn.weight"), std::string::npos);
  EXPECT_NE(r.out.find("[768, 2304]"), std::string::npos);
}

TEST(CliInspect, JsonHasTheDocumentedShape) {
  auto r = invoke({"inspect", "llama-3.2-1b", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["name"], "llama-3.2-1b");
  EXPECT_EQ(doc["model_type"], "llama");
  EXPECT_EQ(doc["parameters"].get<std::uint64_t>(), 1'235'814'400u);
  EXPECT_EQ(doc["bytes"].get<std::uint64_t>(), 2u * 1'235'814'400u);
  EXPECT_EQ(doc["bytes_per_dtype"]["bf16"].get<std::uint64_t>(), 2u * 1'235'814'400u);
  ASSERT_EQ(doc["units"].size(), 18u);
  EXPECT_EQ(doc["units"][0]["name"], "embed_tokens");
  EXPECT_EQ(doc["units"][0]["kind"], "embedding");
  EXPECT_EQ(doc["units"][0]["parameters"].get<std::uint64_t>(), 262'668'288u);
  EXPECT_EQ(doc["units"][0]["bytes"].get<std::uint64_t>(), 525'336'576u);
  EXPECT_EQ(doc["units"][1]["kind"], "block");
  ASSERT_EQ(doc["tensors"].size(), 1u + 16u * 9u + 1u);
  EXPECT_EQ(doc["tensors"][0]["name"], "model.embed_tokens.weight");
  EXPECT_EQ(doc["tensors"][0]["shape"], nlohmann::json({128256, 2048}));
  EXPECT_EQ(doc["tensors"][0]["dtype"], "bf16");
  EXPECT_EQ(doc["tensors"][0]["unit"], "embed_tokens");
  EXPECT_EQ(doc["stacks"]["text"]["tied_embeddings"], true);
  EXPECT_TRUE(doc["stacks"]["vision"].is_null());
  EXPECT_EQ(doc["largest_unit"]["name"], "embed_tokens");
}

TEST(CliInspect, MultimodalJsonListsEveryStack) {
  auto r = invoke({"inspect", "pi0", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["parameters"].get<std::uint64_t>(), 3'238'048'528u);
  EXPECT_EQ(doc["stacks"]["vision"]["image_tokens"].get<std::uint64_t>(), 256u);
  ASSERT_EQ(doc["stacks"]["extra"].size(), 1u);
  EXPECT_EQ(doc["stacks"]["extra"][0]["hidden"].get<std::uint64_t>(), 1024u);
}

TEST(CliInspect, UnknownModelIsBadInputNamingIt) {
  auto r = invoke({"inspect", "lama-3.1-8b"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(
      r.err.rfind("vramscope inspect: lama-3.1-8b: not a preset, file or folder; presets: ", 0), 0u)
      << r.err;
  EXPECT_NE(r.err.find("(did you mean \"llama-3.1-8b\"?)"), std::string::npos) << r.err;
}

TEST(CliInspect, BadConfigIsBadInputWithTheFileAndLine) {
  const std::string path =
      std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/model/bad/unknown_type.json";
  auto r = invoke({"inspect", path});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find(path + ":3:3: unknown model_type \"roberta\"; supported: bert, clip, clip_text_model, "
                              "clip_vision_model, deepseek_v2, deepseek_v3, falcon, gemma, "),
            std::string::npos)
      << r.err;
}

TEST(CliInspect, MissingArgumentIsAUsageError) {
  auto r = invoke({"inspect"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("MODEL"), std::string::npos) << r.err;
}

TEST(CliModels, ListsEveryPresetWithItsCount) {
  auto r = invoke({"models"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("mixtral-8x7b"), std::string::npos);
  EXPECT_NE(r.out.find("46,702,792,704"), std::string::npos);
  EXPECT_EQ(r.out.find("(published "), std::string::npos) << "a count differs:\n" << r.out;
}

TEST(CliModels, JsonCarriesComputedAndPublishedCounts) {
  auto r = invoke({"models", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["presets"].size(), 63u);
  for (const auto& p : doc["presets"]) {
    EXPECT_EQ(p["parameters"], p["published_parameters"]) << p["name"];
    EXPECT_FALSE(p["hf_id"].get<std::string>().empty());
  }
  EXPECT_EQ(doc["presets"][0]["name"], "llama-3.1-8b");
  EXPECT_EQ(doc["presets"][0]["model_type"], "llama");
}

}  // namespace
}  // namespace vramscope::cli
