#include <vramscope/model/catalog.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <regex>
#include <sstream>
#include <string_view>

#include <vramscope/core/io.hpp>

#include "model/safetensors_bytes.hpp"

namespace vramscope::model {
namespace {

// The counts the publishers give (Hugging Face safetensors totals; see docs/models.md for the
// variant of each), kept here apart from catalog.json so a typo in either one fails.
const std::map<std::string, std::uint64_t> published = {
    {"llama-3.1-8b", 8'030'261'248},
    {"llama-3.1-70b", 70'553'706'496},
    {"llama-3-8b", 8'030'261'248},
    {"llama-3-70b", 70'553'706'496},
    {"llama-3.1-405b", 405'853'388'800},
    {"llama-3.2-1b", 1'235'814'400},
    {"llama-3.2-3b", 3'212'749'824},
    {"llama-2-7b", 6'738'415'616},
    {"llama-2-13b", 13'015'864'320},
    {"mistral-7b", 7'241'732'096},
    {"mixtral-8x7b", 46'702'792'704},
    {"mistral-nemo-12b", 12'247'782'400},  // the modules' total, the card's 12B
    {"qwen2.5-0.5b", 494'032'768},
    {"qwen2.5-1.5b", 1'543'714'304},  // the modules' total, within the card's 1.54B
    {"qwen2.5-3b", 3'085'938'688},
    {"qwen2.5-7b", 7'615'616'512},
    {"qwen2.5-14b", 14'770'033'664},  // safetensors index: 29,540,067,328 bytes
    {"qwen2.5-32b", 32'763'876'352},  // safetensors index: 65,527,752,704 bytes
    {"qwen2.5-72b", 72'706'203'648},
    {"qwen2-0.5b", 494'032'768},
    {"qwen2-1.5b", 1'543'714'304},
    {"qwen2-7b", 7'615'616'512},
    {"phi-4", 14'659'507'200},
    {"smollm2-135m", 134'515'008},
    {"smollm2-360m", 361'821'120},
    {"smollm2-1.7b", 1'711'376'384},
    {"qwen3-8b", 8'190'735'360},
    {"qwen3-32b", 32'762'123'264},
    {"qwen3-30b-a3b", 30'532'122'624},
    {"gemma-2b", 2'506'172'416},
    {"phi-1.5", 1'418'270'720},
    {"phi-2", 2'779'683'840},
    {"gemma-7b", 8'537'680'896},
    {"gemma-2-9b", 9'241'705'984},
    {"gemma-2-27b", 27'227'128'320},
    {"phi-3-mini", 3'821'079'552},
    {"gpt2", 124'439'808},
    {"pythia-1b", 1'011'781'632},
    {"tinyllama-1.1b", 1'100'048'384},
    {"siglip-so400m", 428'225'600},
    {"paligemma-3b", 2'923'466'480},
    {"pi0", 3'238'048'528},
    {"llama-2-70b", 68'976'648'192},
    {"qwen3-0.6b", 596'049'920},
    {"deepseek-v3", 671'026'404'352},
    {"deepseek-v3-16b", 15'706'484'224},  // torchtitan's flavor: derived, see catalog.json
    {"llama-4-scout", 107'769'861'120},   // the text model only
    {"llama3-debugmodel", 6'163'712},
    {"gemma-2-2b", 2'614'341'888},
    // Falcon: the safetensors hold lm_head beside word_embeddings although FalconForCausalLM
    // ties them, so Hugging Face's counts (7,217,189,760 and 41,835,970,560) hold the head twice;
    // less one copy (65024 x 4544 and 65024 x 8192):
    {"falcon-7b", 6'921'720'704},
    {"falcon-40b", 41'303'293'952},
    // GPTNeoXForCausalLM's count of stabilityai/stablelm-base-alpha-3b (its card says "3B").
    {"stablelm-base-alpha-3b", 3'637'321'728},
    // The stablelm-3b-4e1t model card's table and its safetensors count.
    {"stablelm-3b-4e1t", 2'795'443'200},
    // StableLmForCausalLM for stablelm-2-1_6b's config: 2 x 205,520,896 (embedding, head) +
    // 24 x 51,394,560 + 4,096. Its model card's table says 1,644,417,024, which is 24 x 4,096
    // (a biased LayerNorm per layer) fewer than the modules transformers builds.
    {"stablelm-2-1.6b", 1'644'515'328},
    // Qwen3's model cards round (1.7B, 4.0B, 14.8B, 235B; 1.4B, 3.6B, 13.2B, 234B outside the
    // embedding and head) and the tied checkpoints store the head a second time: these are the
    // modules' own totals, each within the card's rounding (docs/models.md).
    {"qwen3-1.7b", 1'720'574'976},
    {"qwen3-4b", 4'022'468'096},
    {"qwen3-14b", 14'768'307'200},
    {"qwen3-235b-a22b", 235'093'634'560},
    {"llama-4-maverick", 400'711'848'960},  // the text model only; Meta states 400B
    // torchtitan's debug flavors: derived, see catalog.json
    {"llama4-debugmodel", 15'017'216},
    {"deepseek-v3-debugmodel", 33'014'016},
    {"qwen3-debugmodel", 31'987'968},
    {"qwen3-debugmodel-moe", 315'758'848},
};

TEST(Catalog, ListsExactlyTheExpectedPresets) {
  auto list = presets();
  ASSERT_TRUE(list) << list.error().to_string();
  std::map<std::string, std::uint64_t> listed;
  for (const auto& p : *list) listed[p.name] = p.published_parameters;
  EXPECT_EQ(listed, published);
}

TEST(Catalog, EveryPresetTotalEqualsItsPublishedCount) {
  auto list = presets();
  ASSERT_TRUE(list) << list.error().to_string();
  for (const auto& p : *list) {
    auto spec = load_preset(p.name);
    ASSERT_TRUE(spec) << spec.error().to_string();
    EXPECT_EQ(spec->parameters(), p.published_parameters) << p.name;
    EXPECT_EQ(spec->name, p.name);
  }
}

TEST(Catalog, EveryPresetsUnitsAddUpToItsTensors) {
  for (const auto& [name, count] : published) {
    auto spec = load_preset(name);
    ASSERT_TRUE(spec) << spec.error().to_string();
    std::uint64_t in_units = 0;
    bytes size = 0;
    for (const auto& u : spec->units) {
      EXPECT_GT(u.parameters, 0u) << name << " " << u.name;
      in_units += u.parameters;
      size += u.size;
    }
    EXPECT_EQ(in_units, count) << name;
    EXPECT_EQ(size, spec->size()) << name;
  }
}

TEST(Catalog, EmbeddedConfigsMatchTheFilesInDataModels) {
  for (const auto& [name, count] : published) {
    auto on_disk = read_file(std::string(VRAMSCOPE_SOURCE_DIR) + "/data/models/" + name + ".json");
    ASSERT_TRUE(on_disk) << on_disk.error().to_string();
    auto embedded = preset_config(name);
    ASSERT_TRUE(embedded) << embedded.error().to_string();
    EXPECT_EQ(*embedded, *on_disk) << name << ": rebuild to refresh the embedded copy";
  }
}

// A name with no preset: the presets of its family, never a guess by spelling ("llama-3.1-8" is
// not llama-3.1-8b, and "gemma2_13b" is neither gemma-2-2b nor gemma-2-27b).
TEST(Catalog, UnknownPresetListsItsFamilyAndNoGuess) {
  auto spec = load_preset("llama-3.1-8");
  ASSERT_FALSE(spec);
  const std::string message = spec.error().to_string();
  EXPECT_EQ(message.rfind("llama-3.1-8: no preset for this model; presets of its family: "
                          "llama-3.1-8b, llama-3.1-70b, ",
                          0),
            0u)
      << message;
  EXPECT_EQ(message.find("did you mean"), std::string::npos) << message;
  EXPECT_EQ(message.find("qwen"), std::string::npos) << message;
  auto gemma = load_preset("gemma2_13b");
  ASSERT_FALSE(gemma);
  EXPECT_NE(gemma.error().message.find("presets of its family: gemma-2b, gemma-7b, gemma-2-9b, "
                                       "gemma-2-27b, gemma-2-2b"),
            std::string::npos)
      << gemma.error().message;
}

TEST(Catalog, UnknownNameOfNoFamilyListsEveryPreset) {
  auto spec = load_preset("zzz-7b");
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().message.rfind("not a preset, file or folder; presets: llama-3.1-8b, ", 0),
            0u)
      << spec.error().message;
}

TEST(Catalog, ModelNameKeysDropCaseSeparatorsAndReleaseWords) {
  EXPECT_EQ(model_name_key("llama3_3_70b"), "llama3370b");
  EXPECT_EQ(model_name_key("Llama-3.3-70B-Instruct"), "llama3370b");
  EXPECT_EQ(model_name_key("llama3.3 70B"), "llama3370b");
  EXPECT_EQ(model_name_key("Qwen3-4B-Instruct-2507"), "qwen34b");
  EXPECT_EQ(model_name_key("Llama-2-7b-chat-hf"), "llama27b");
  EXPECT_EQ(model_name_key("gemma-2-2b-it"), "gemma22b");
  EXPECT_NE(model_name_key("gemma-2b"), model_name_key("gemma-2-2b"));
  EXPECT_EQ(model_name_key("instruct"), "instruct");  // a name is never reduced to nothing
}

// The spellings frameworks and users write resolve to the preset of the same model, and only to it.
TEST(Catalog, FrameworkAndHubSpellingsNameTheirPreset) {
  EXPECT_EQ(preset_named("gemma2_2b"), "gemma-2-2b");
  EXPECT_EQ(preset_named("gemma_2b"), "gemma-2b");
  EXPECT_EQ(preset_named("llama3_1_8b"), "llama-3.1-8b");
  EXPECT_EQ(preset_named("llama3_3_70b"), "llama-3.1-70b");
  EXPECT_EQ(preset_named("meta-llama/Llama-3.3-70B-Instruct"), "llama-3.1-70b");
  // Llama 3 and Llama 3.1 are one shape with different positions and RoPE: torchtune's llama3_8b
  // and Meta-Llama-3-8B are Llama 3; torchtitan's model llama3 is Llama 3.1.
  EXPECT_EQ(preset_named("llama3_8b"), "llama-3-8b");
  EXPECT_EQ(preset_named("meta-llama/Meta-Llama-3-70B-Instruct"), "llama-3-70b");
  EXPECT_EQ(framework_preset("torchtune", "llama3_70b"), "llama-3-70b");
  EXPECT_EQ(framework_preset("torchtitan", "llama3 8B"), "llama-3.1-8b");
  EXPECT_EQ(framework_preset("torchtitan", "llama3 405B"), "llama-3.1-405b");
  EXPECT_EQ(framework_preset("torchtitan", "llama3 1B"), "llama-3.2-1b");
  EXPECT_EQ(preset_named("llama4_scout_17b_16e"), "llama-4-scout");
  EXPECT_EQ(preset_named("llama4 17bx128e"), "llama-4-maverick");
  EXPECT_EQ(preset_named("qwen3_4b_instruct"), "qwen3-4b");
  EXPECT_EQ(preset_named("Qwen/Qwen3-4B-Instruct-2507"), "qwen3-4b");
  EXPECT_EQ(preset_named("qwen2_5_0_5b"), "qwen2.5-0.5b");
  EXPECT_EQ(preset_named("qwen3 30B-A3B"), "qwen3-30b-a3b");
  EXPECT_EQ(preset_named("deepseek-ai/DeepSeek-V2-Lite"), "deepseek-v3-16b");
  EXPECT_EQ(preset_named("deepseek_v3 671B"), "deepseek-v3");
  EXPECT_EQ(preset_named("NousResearch/Llama-2-7b-hf"), "llama-2-7b");
  EXPECT_EQ(preset_named("gemma2_27b"), "gemma-2-27b");
  EXPECT_EQ(preset_named("qwen2_5_3b"), "qwen2.5-3b");
  EXPECT_EQ(preset_named("qwen2_5_14b_instruct"), "qwen2.5-14b");
  EXPECT_EQ(preset_named("Qwen/Qwen2.5-32B-Instruct"), "qwen2.5-32b");
  EXPECT_EQ(preset_named("qwen2_0_5b"), "qwen2-0.5b");
  EXPECT_EQ(preset_named("qwen2_7b"), "qwen2-7b");
  EXPECT_EQ(preset_named("phi4_14b"), "phi-4");
  EXPECT_EQ(preset_named("smollm2_1_7b"), "smollm2-1.7b");
  EXPECT_EQ(preset_named("HuggingFaceTB/SmolLM2-360M-Instruct"), "smollm2-360m");
  EXPECT_EQ(preset_named("llama2_reward_7b"), std::nullopt);
  // A size times an expert count, however spelt (a torchtune branch's llama4_17bx16).
  EXPECT_EQ(preset_named("llama4_17bx16"), "llama-4-scout");
  // "moe" beside an active-parameter size says nothing more (torchtune's qwen3_moe builders);
  // without one it stays part of the name.
  EXPECT_EQ(preset_named("qwen3_moe_30b_a3b_instruct"), "qwen3-30b-a3b");
  EXPECT_EQ(model_name_key("qwen3_moe_30b_a3b"), model_name_key("qwen3-30b-a3b"));
  EXPECT_NE(model_name_key("deepseek-moe-16b"), model_name_key("deepseek-16b"));
  EXPECT_EQ(preset_named("llama4_17Bx16E"), "llama-4-scout");
  EXPECT_EQ(preset_named("llama4_scout_17b_16e"), "llama-4-scout");
  EXPECT_EQ(preset_named("Llama-4-Scout-17B-16E-Instruct"), "llama-4-scout");
  EXPECT_EQ(preset_named("llama4_17bx128"), "llama-4-maverick");
  EXPECT_EQ(model_name_key("17b_16e"), model_name_key("17Bx16E"));
  EXPECT_EQ(preset_named("llama3_2_vision_11b"), std::nullopt);
}

// docs/models.md's table of framework model names has a row for every torchtune builder and
// torchtitan flavor of the lists read from those projects (tests/data/options/), and every row
// says what framework_preset resolves the name to ("none": no preset).
TEST(Catalog, FrameworkNameTableMatchesTheBuilderLists) {
  const std::string dir = std::string(VRAMSCOPE_SOURCE_DIR);
  auto doc = read_file(dir + "/docs/models.md");
  ASSERT_TRUE(doc) << doc.error().to_string();
  std::map<std::string, std::string> rows;  // "torchtune gemma2_2b" -> "gemma-2-2b"
  const std::regex row(R"(^\| (torchtune|torchtitan) \| `([^`]+)` \| ([^ |]+) \|$)");
  std::istringstream lines(*doc);
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (std::regex_match(line, m, row)) rows[m[1].str() + " " + m[2].str()] = m[3].str();
  }
  std::size_t listed = 0;
  for (const std::string framework : {"torchtune", "torchtitan"}) {
    const std::string file = framework == "torchtune" ? "torchtune_builders.txt"
                                                      : "torchtitan_flavors.txt";
    auto list = read_file(dir + "/tests/data/options/" + file);
    ASSERT_TRUE(list) << list.error().to_string();
    std::istringstream in(*list);
    for (std::string line; std::getline(in, line);) {
      if (line.empty() || line[0] == '#') continue;
      const auto space = line.find(' ');
      std::string name = line.substr(space + 1);
      if (framework == "torchtune") {  // the package, then the builder
        for (std::string_view prefix : {"qlora_", "lora_"})
          if (name.rfind(prefix, 0) == 0) name.erase(0, prefix.size());
      } else {  // torchtitan's "<name> <flavor>" as it is
        name = line;
      }
      ++listed;
      const auto found = rows.find(framework + " " + name);
      ASSERT_NE(found, rows.end()) << framework << " " << name << " has no row in docs/models.md";
      std::string want = found->second;
      if (want.ends_with('*')) {
        // A torchtitan attention variant: no preset of its own, its base flavor's preset (the
        // importer plans that, with a note).
        want.pop_back();
        EXPECT_EQ(preset_named(name), std::nullopt) << name;
        std::string base = name;
        for (std::string_view suffix : {"_flex_attn", "_varlen_attn", "_flex", "_varlen",
                                        "_irope", "_non_fused_qkv"})
          if (base.ends_with(suffix)) {
            base.erase(base.size() - suffix.size());
            break;
          }
        EXPECT_EQ(framework_preset(framework, base).value_or("none"), want)
            << framework << " " << name;
        continue;
      }
      EXPECT_EQ(framework_preset(framework, name).value_or("none"), want)
          << framework << " " << name;
    }
  }
  EXPECT_GT(listed, 150u);
}

// Every Hugging Face id of the catalogue names its preset.
TEST(Catalog, EveryHubIdOfAPresetNamesIt) {
  auto list = presets();
  ASSERT_TRUE(list) << list.error().to_string();
  for (const auto& p : *list) {
    std::vector<std::string> ids = p.hf_aliases;
    if (p.hf_id.find('/') != std::string::npos && p.hf_id.find(' ') == std::string::npos)
      ids.push_back(p.hf_id);
    for (const auto& id : ids) EXPECT_EQ(preset_named(id), p.name) << id;
  }
}

// No two presets share a key, or a spelling could name either.
TEST(Catalog, NoTwoPresetsShareANameKey) {
  auto list = presets();
  ASSERT_TRUE(list) << list.error().to_string();
  std::map<std::string, std::string> owner;
  for (const auto& p : *list) {
    std::vector<std::string> names{p.name};
    names.insert(names.end(), p.aliases.begin(), p.aliases.end());
    for (const auto& n : names) {
      const auto [it, fresh] = owner.emplace(model_name_key(n), p.name);
      EXPECT_TRUE(fresh || it->second == p.name) << n << " of " << p.name << " and " << it->second;
    }
  }
}

TEST(Catalog, PresetNamesIgnoreLetterCase) {
  EXPECT_EQ(preset_named("Llama-3.1-8B"), "llama-3.1-8b");
  EXPECT_EQ(preset_named("QWEN2.5-7B"), "qwen2.5-7b");
  auto spec = load_preset("Phi-2");
  ASSERT_TRUE(spec) << spec.error().to_string();
  EXPECT_EQ(spec->name, "phi-2");
  EXPECT_EQ(spec->parameters(), 2'779'683'840u);
}

TEST(Catalog, HuggingFaceIdsAndTheirAliasesNameTheirPreset) {
  EXPECT_EQ(preset_named("meta-llama/Llama-3.1-8B"), "llama-3.1-8b");
  EXPECT_EQ(preset_named("meta-llama/llama-3.1-8b"), "llama-3.1-8b");
  EXPECT_EQ(preset_named("meta-llama/Meta-Llama-3.1-70B-Instruct"), "llama-3.1-70b");
  EXPECT_EQ(preset_named("Qwen/Qwen2.5-7B-Instruct"), "qwen2.5-7b");
  EXPECT_EQ(preset_named("microsoft/phi-1_5"), "phi-1.5");
  // Close is not enough: another size is another model. A name without its organisation is the
  // model's own name, resolved as every spelling is (model_name_key).
  EXPECT_EQ(preset_named("meta-llama/Llama-3.1-9B"), std::nullopt);
  EXPECT_EQ(preset_named("Llama-3.1-8B-Instruct"), "llama-3.1-8b");
}

TEST(Catalog, EveryHuggingFaceIdAndAliasNamesItsOwnPreset) {
  auto list = presets();
  ASSERT_TRUE(list) << list.error().to_string();
  for (const auto& p : *list) {
    if (p.hf_id.find('/') != std::string::npos) {
      EXPECT_EQ(preset_named(p.hf_id), p.name) << p.hf_id;
    }
    for (const auto& alias : p.hf_aliases) EXPECT_EQ(preset_named(alias), p.name) << alias;
  }
}

class DataDir : public ::testing::Test {
 protected:
  void TearDown() override { unsetenv("VRAMSCOPE_DATA_DIR"); }
};

TEST_F(DataDir, AddsAndReplacesPresets) {
  const auto dir = testing::fresh_folder("data_dir");
  testing::write(dir / "models" / "catalog.json",
                 R"({"presets": [{"name": "tiny", "hf_id": "x/tiny", "published_parameters": 1,)"
                 R"( "parameters_source": "test", "description": "a tiny model"}]})");
  testing::write(dir / "models" / "tiny.json",
                 R"({"model_type": "gpt2", "vocab_size": 10, "n_positions": 4, "n_embd": 4,)"
                 R"( "n_layer": 1, "n_head": 2})");
  testing::write(dir / "models" / "gpt2.json",
                 R"({"model_type": "gpt2", "vocab_size": 10, "n_positions": 4, "n_embd": 4,)"
                 R"( "n_layer": 2, "n_head": 2})");
  setenv("VRAMSCOPE_DATA_DIR", dir.c_str(), 1);
  auto list = presets();
  ASSERT_TRUE(list) << list.error().to_string();
  EXPECT_EQ(list->back().name, "tiny");
  auto tiny = load_preset("tiny");
  ASSERT_TRUE(tiny) << tiny.error().to_string();
  EXPECT_EQ(tiny->text.layers, 1u);
  auto gpt2 = load_preset("gpt2");
  ASSERT_TRUE(gpt2) << gpt2.error().to_string();
  EXPECT_EQ(gpt2->text.layers, 2u);
  auto llama = load_preset("llama-3.2-1b");  // not overridden: the built-in copy
  ASSERT_TRUE(llama);
  EXPECT_EQ(llama->parameters(), 1'235'814'400u);
}

TEST_F(DataDir, AnAliasThatIsNotAListOfIdsIsAnErrorNamingTheEntry) {
  const auto dir = testing::fresh_folder("data_dir_aliases");
  testing::write(dir / "models" / "catalog.json",
                 R"({"presets": [{"name": "tiny", "hf_id": "x/tiny", "hf_aliases": ["tiny"],)"
                 R"( "published_parameters": 1, "parameters_source": "test", "description": "t"}]})");
  setenv("VRAMSCOPE_DATA_DIR", dir.c_str(), 1);
  auto list = presets();
  ASSERT_FALSE(list);
  EXPECT_NE(list.error().to_string().find("catalog.json: presets[0]: field \"hf_aliases\" must be"),
            std::string::npos)
      << list.error().to_string();
}

TEST_F(DataDir, ErrorsNameTheOverridingFile) {
  const auto dir = testing::fresh_folder("data_dir_bad");
  testing::write(dir / "models" / "gpt2.json", R"({"model_type": "gpt2"})");
  setenv("VRAMSCOPE_DATA_DIR", dir.c_str(), 1);
  auto spec = load_preset("gpt2");
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().to_string(), (dir / "models" / "gpt2.json").string() +
                                          ": missing required field \"vocab_size\" (a positive "
                                          "integer)");
}

TEST_F(DataDir, MustBeAFolder) {
  setenv("VRAMSCOPE_DATA_DIR", "/nonexistent/vramscope", 1);
  auto list = presets();
  ASSERT_FALSE(list);
  EXPECT_EQ(list.error().to_string(), "VRAMSCOPE_DATA_DIR=/nonexistent/vramscope: not a folder");
}

}  // namespace
}  // namespace vramscope::model
