// A job's `model:` written as a map of config.json keys (docs/job-spec.md, "model").
#include <vramscope/job/job_loading.hpp>
#include <vramscope/job/job_reader.hpp>
#include <vramscope/job/job_writer.hpp>
#include <vramscope/job/overrides.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace vramscope::job {
namespace {

// Llama-2-7B's shapes.
const std::string llama_7b =
    "model:\n"
    "  model_type: llama\n"
    "  vocab_size: 32000\n"
    "  hidden_size: 4096\n"
    "  intermediate_size: 11008\n"
    "  num_hidden_layers: 32\n"
    "  num_attention_heads: 32\n";

job_spec parse_ok(const std::string& text) {
  auto job = parse_job_yaml(text, "job.yaml");
  if (!job) ADD_FAILURE() << job.error().to_string();
  return job ? *job : job_spec{};
}

std::string load_error(const std::string& text) {
  auto model = load_model_of(parse_ok(text), "job.yaml");
  return model ? std::string("(loaded)") : model.error().to_string();
}

TEST(InlineModel, ReadsTheMapAndNamesIt) {
  const job_spec job = parse_ok(llama_7b);
  ASSERT_EQ(job.model_config.size(), 6u);
  EXPECT_EQ(job.model, "inline llama config");
  EXPECT_EQ(job.model_config[0].json, "\"llama\"");
  EXPECT_EQ(job.model_config[2].key, "hidden_size");
  EXPECT_EQ(job.model_config[2].json, "4096");
  EXPECT_EQ(job.model_config[2].where.line, 4);
  auto model = load_model_of(job, "job.yaml");
  ASSERT_TRUE(model) << model.error().to_string();
  EXPECT_EQ(model->parameters(), 6'738'415'616u);
  EXPECT_EQ(model->name, "inline llama config");
  EXPECT_EQ(parse_ok(llama_7b + "  _name_or_path: my-llama\n").model, "my-llama");
}

TEST(InlineModel, KeepsQuotedStringsAndNestedMaps) {
  const job_spec job = parse_ok(llama_7b +
                                "  torch_dtype: \"bfloat16\"\n"
                                "  rope_scaling: {rope_type: llama3, factor: 8.0}\n"
                                "  eos_token_id: [1, \"2\"]\n");
  EXPECT_EQ(job.model_config[6].json, "\"bfloat16\"");
  EXPECT_EQ(job.model_config[7].json, "{\"factor\":8.0,\"rope_type\":\"llama3\"}");
  EXPECT_EQ(job.model_config[8].json, "[1,\"2\"]");
}

TEST(InlineModel, ABadValueNamesItsYamlLine) {
  EXPECT_EQ(load_error("hardware: { gpus_per_node: 1 }\n" + llama_7b + "  head_dim: many\n"),
            "job.yaml:9:3: model: field \"head_dim\" must be a positive integer, got \"many\"\n"
            "  head_dim: many\n"
            "  ^ near here");
}

TEST(InlineModel, AMisspeltKeyIsAnErrorAndAnUnreadOneANote) {
  EXPECT_EQ(load_error(llama_7b + "  tie_word_embedding: true\n"),
            "job.yaml:8:3: model: key \"tie_word_embedding\" is not one vramscope reads for "
            "model_type llama (did you mean \"tie_word_embeddings\"?)\n"
            "  tie_word_embedding: true\n"
            "  ^ near here");
  auto model = load_model_of(parse_ok(llama_7b + "  rope_theta: 10000.0\n"), "job.yaml");
  ASSERT_TRUE(model) << model.error().to_string();
  ASSERT_EQ(model->notes.size(), 1u);
  EXPECT_EQ(model->notes[0].line, 8);
  EXPECT_NE(model->notes[0].message.find("\"rope_theta\" is not read"), std::string::npos);
}

// A key the family's published configs carry is real, however close to one the reader reads:
// GPT-2's embd_pdrop is three edits from resid_pdrop, and is noted, not refused.
TEST(InlineModel, AKeyOfTheFamilysPublishedConfigsIsNoMisspelling) {
  const std::string gpt2 =
      "model:\n  model_type: gpt2\n  vocab_size: 50257\n  n_positions: 1024\n  n_embd: 768\n"
      "  n_layer: 12\n  n_head: 12\n";
  auto model = load_model_of(parse_ok(gpt2 + "  embd_pdrop: 0.0\n"), "job.yaml");
  ASSERT_TRUE(model) << model.error().to_string();
  ASSERT_EQ(model->notes.size(), 1u);
  EXPECT_NE(model->notes[0].message.find("\"embd_pdrop\" is not read"), std::string::npos);
  // A key no GPT-2 config has, as close, is still taken for a misspelling.
  EXPECT_NE(load_error(gpt2 + "  n_layers: 12\n").find("(did you mean \"n_layer\"?)"),
            std::string::npos);
}

TEST(InlineModel, AMissingFieldPointsAtTheModelLine) {
  const std::string e = load_error("model:\n  model_type: llama\n  hidden_size: 64\n");
  EXPECT_EQ(e.substr(0, e.find('\n')),
            "job.yaml:1:1: model: missing required field \"vocab_size\" (a positive integer)");
}

TEST(InlineModel, WritesBackAsAMap) {
  const job_spec first = parse_ok(llama_7b + "  rope_scaling: {factor: 8.0}\n");
  const std::string yaml = to_yaml(first);
  EXPECT_EQ(yaml.substr(0, yaml.find("hardware:")),
            "model:\n  model_type: llama\n  vocab_size: 32000\n  hidden_size: 4096\n"
            "  intermediate_size: 11008\n  num_hidden_layers: 32\n  num_attention_heads: 32\n"
            "  rope_scaling: {\"factor\":8.0}\n");
  auto second = parse_job_yaml(yaml, "written.yaml");
  ASSERT_TRUE(second) << second.error().to_string();
  EXPECT_EQ(to_json(*second), to_json(first));
  EXPECT_EQ(to_json(first)["model"]["hidden_size"], 4096);
}

TEST(InlineModel, ANameReplacesIt) {
  job_spec job = parse_ok(llama_7b);
  ASSERT_TRUE(set_field(job, "model=llama-3.1-8b"));
  EXPECT_TRUE(job.model_config.empty());
  EXPECT_EQ(job.model, "llama-3.1-8b");
}

TEST(InlineModel, RefusesAnEmptyMapAndDuplicateKeys) {
  auto empty = parse_job_yaml("model: {}\n", "job.yaml");
  ASSERT_FALSE(empty);
  EXPECT_EQ(
      empty.error().message,
      "model: expected a preset name, a path, or a map of config.json keys, got an empty map");
  auto twice = parse_job_yaml("model:\n  a: 1\n  a: 2\n", "job.yaml");
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().line, 3);
}

// A model path that is not there is refused at the job's `model:` line; a config.json that is
// there but unreadable keeps its own line and column.
TEST(InlineModel, AnUnreadableConfigFileIsLocatedInItself) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("vramscope_inline_model_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string config = (dir / "config.json").string();
  {
    std::ofstream out(config);
    out << "{\"model_type\": \"llama\",\n \"num_hidden_layers\": oops}\n";
  }
  auto bad = load_model_of(parse_ok("model: " + config + "\n"), "job.yaml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().source, config) << bad.error().to_string();
  EXPECT_EQ(bad.error().line, 2) << bad.error().to_string();
  auto missing = load_model_of(parse_ok("model: " + (dir / "gone" / "config.json").string() + "\n"),
                               "job.yaml");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().source, "job.yaml") << missing.error().to_string();
  EXPECT_EQ(missing.error().line, 1) << missing.error().to_string();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vramscope::job
