// Every file under tests/data/realworld/ (real files written by other people; SOURCES.md says
// where each came from) is read by the reader its kind names in expected.json, and must yield
// the facts listed there, or be refused (exit status 2 from the CLI) with exactly the message
// listed there. A file present but not in the manifest, or listed but absent, fails.
//
// To add a file: copy it unchanged, add a SOURCES.md row, then run this binary with
// VRAMSCOPE_REALWORLD_DUMP=1 to print every fact the readers produce; check the ones you list
// against the file by hand.
#include "corpus_facts.hpp"

#include <vramscope/core/io.hpp>
#include <vramscope/import/importers.hpp>
#include <vramscope/model/config_reader.hpp>
#include <vramscope/observe/read_observation.hpp>

#include "support/cli.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <regex>
#include <string>
#include <vector>

namespace vramscope::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string& root() {
  static const std::string dir = std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/realworld";
  return dir;
}

// A first-sight batch (fresh<N>-expected.json) lists files with the facts written from the file and
// its framework before the readers were run on them; bench/first_sight.py scores it.
bool is_first_sight_manifest(const std::string& rel) {
  return rel.rfind("fresh", 0) == 0 && rel.ends_with("-expected.json");
}

// A file a config names beside it (an accelerate YAML's deepspeed_config_file), kept in a folder
// under the kind's at the relative path the config names: read through that config, not a
// corpus file of its own.
bool is_companion(const std::string& rel) { return std::count(rel.begin(), rel.end(), '/') >= 2; }

bool is_bookkeeping(const std::string& rel) {
  return rel == "SOURCES.md" || rel == "expected.json" || is_first_sight_manifest(rel) ||
         is_companion(rel);
}

std::vector<std::string> corpus_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root())) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = fs::relative(entry.path(), root()).generic_string();
    if (!is_bookkeeping(rel)) files.push_back(rel);
  }
  std::sort(files.begin(), files.end());
  return files;
}

const json& manifest() {
  static const json m = [] {
    auto text = read_file(root() + "/expected.json");
    if (!text) return json::object();
    return json::parse(*text, nullptr, /*allow_exceptions=*/false);
  }();
  return m;
}

enum class reader { observation, job_config, model_config };

reader reader_of(const std::string& kind) {
  if (kind == "accelerate" || kind == "deepspeed" || kind == "torchtitan" || kind == "torchtune" ||
      kind == "megatron")
    return reader::job_config;
  if (kind == "hf_config") return reader::model_config;
  return reader::observation;
}

std::string format_name(observe::observation_format f) {
  switch (f) {
    case observe::observation_format::smi_table: return "smi_table";
    case observe::observation_format::smi_csv: return "smi_csv";
    case observe::observation_format::smi_xml: return "smi_xml";
    case observe::observation_format::smi_text: return "smi_q";
    case observe::observation_format::memory_stats: return "memory_stats";
    case observe::observation_format::log: return "log";
  }
  return "?";
}

job::trainer_args trainer_of(const json& entry) {
  job::trainer_args t;
  if (!entry.contains("trainer")) return t;
  const auto& a = entry["trainer"];
  t.bf16 = a.value("bf16", t.bf16);
  t.fp16 = a.value("fp16", t.fp16);
  t.per_device_train_batch_size = a.value("per_device_train_batch_size", t.per_device_train_batch_size);
  return t;
}

/// What the reader made of the file: facts, or the first line of its diagnostic with the corpus
/// folder taken off the path so that the manifest does not depend on the checkout.
struct outcome {
  json facts;
  std::string refusal;
};

std::string first_line_relative(const diagnostic& d) {
  std::string text = d.to_string();
  text = text.substr(0, text.find('\n'));
  const std::string prefix = root() + "/";
  if (text.rfind(prefix, 0) == 0) text.erase(0, prefix.size());
  return text;
}

template <typename T, typename Facts>
outcome outcome_of(const result<T>& r, Facts facts) {
  if (!r) return {json(), first_line_relative(r.error())};
  return {facts(*r), ""};
}

outcome read_as(const std::string& rel, const json& entry) {
  const std::string path = root() + "/" + rel;
  switch (reader_of(entry.value("kind", ""))) {
    case reader::observation: {
      auto out = outcome_of(observe::read_observation(path), observation_facts);
      auto text = read_file(path);
      const auto f = text ? observe::detect_observation_format(*text) : std::nullopt;
      if (out.refusal.empty()) out.facts["format"] = f ? format_name(*f) : "none";
      return out;
    }
    case reader::job_config:
      return outcome_of(job::import_config(path, trainer_of(entry)), job_facts);
    case reader::model_config:
      return outcome_of(model::read_config_json(path), model_facts);
  }
  return {};
}

std::vector<std::string> cli_args_for(const std::string& kind, const std::string& path) {
  switch (reader_of(kind)) {
    case reader::job_config: return {"plan", "--from", path};
    case reader::model_config: return {"inspect", path};
    case reader::observation: break;
  }
  if (kind == "oom" || kind == "memory_summary") return {"explain", "--oom", path};
  if (kind == "memory_stats") return {"explain", "--stats", path};
  return {"explain", "--smi", path};
}

// Every first-sight manifest's entries, by file.
const json& first_sight() {
  static const json all = [] {
    json out = json::object();
    for (const auto& entry : fs::directory_iterator(root())) {
      const std::string name = entry.path().filename().string();
      if (!is_first_sight_manifest(name)) continue;
      auto text = read_file(entry.path().string());
      const json m = text ? json::parse(*text, nullptr, false) : json();
      if (m.is_object()) out.update(m);
    }
    return out;
  }();
  return all;
}

class RealworldCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(RealworldCorpus, YieldsWhatTheManifestSays) {
  const std::string& rel = GetParam();
  if (!manifest().contains(rel) && first_sight().contains(rel))
    GTEST_SKIP() << rel << ": a first-sight file not yet in expected.json";
  ASSERT_TRUE(manifest().contains(rel)) << rel << " is in tests/data/realworld/ but not in expected.json";
  const json& entry = manifest()[rel];
  const outcome got = read_as(rel, entry);
  if (std::getenv("VRAMSCOPE_REALWORLD_DUMP") != nullptr) {
    std::cout << rel << "\n" << (got.refusal.empty() ? got.facts.dump(1) : got.refusal) << "\n";
  }
  if (entry.contains("refused")) {
    EXPECT_EQ(got.refusal, entry["refused"].get<std::string>());
    const std::string path = root() + "/" + rel;
    const auto cli = invoke(cli_args_for(entry["kind"].get<std::string>(), path));
    EXPECT_EQ(cli.code, 2) << cli.out << cli.err;
    const std::string where = got.refusal.substr(0, got.refusal.find(": "));
    EXPECT_NE(cli.err.find(root() + "/" + where), std::string::npos) << cli.err;
    return;
  }
  ASSERT_EQ(got.refusal, "") << rel << " was refused";
  ASSERT_TRUE(entry.contains("yields")) << rel << ": the manifest lists no facts";
  for (const auto& [key, want] : entry["yields"].items()) {
    ASSERT_TRUE(got.facts.contains(key)) << rel << ": no fact " << key;
    EXPECT_EQ(got.facts[key], want) << rel << ": " << key;
  }
  // A file the importer reads but `plan` refuses (a model with no preset, refused when it is
  // loaded at the line that named it): plan's exit status 2 and the first line of its message.
  if (entry.contains("plan_refused")) {
    const auto cli = invoke(cli_args_for(entry["kind"].get<std::string>(), root() + "/" + rel));
    EXPECT_EQ(cli.code, 2) << cli.out << cli.err;
    std::string err = cli.err.substr(0, cli.err.find('\n'));
    const std::string prefix = root() + "/";
    if (const auto at = err.find(prefix); at != std::string::npos) err.erase(at, prefix.size());
    EXPECT_EQ(err, entry["plan_refused"].get<std::string>()) << rel;
  }
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name;
  for (char c : info.param) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Files, RealworldCorpus, ::testing::ValuesIn(corpus_files()), test_name);

// Real files of two machines, so the rule must notice that they do not describe one GPU: the
// message's 6 GiB GPU 0 is not the table's 8 GiB GPU 0.
TEST(RealworldExplain, ChecksAnOutOfMemoryMessageAgainstNvidiaSmi) {
  const auto cli = invoke({"explain", "--json", "--smi", root() + "/smi_table/gpuexporter_win_rtx2080s_591.txt", "--oom",
                           root() + "/oom/mgfn_35_torch21_no_process_line.txt"});
  EXPECT_LE(cli.code, 1) << cli.err;
  EXPECT_NE(cli.out.find("\"OOM002\""), std::string::npos) << cli.out;
  EXPECT_NE(cli.out.find("has 8.00 GiB in total"), std::string::npos) << cli.out;
}

TEST(RealworldManifest, ParsesAndListsOnlyFilesThatExist) {
  ASSERT_TRUE(manifest().is_object() && !manifest().empty()) << "tests/data/realworld/expected.json";
  const auto files = corpus_files();
  for (const auto& [rel, entry] : manifest().items()) {
    EXPECT_TRUE(std::binary_search(files.begin(), files.end(), rel)) << rel << " is listed but absent";
    EXPECT_TRUE(entry.contains("kind")) << rel;
    EXPECT_NE(entry.contains("yields"), entry.contains("refused")) << rel;
    EXPECT_FALSE(entry.contains("plan_refused") && !entry.contains("yields")) << rel;
  }
}

// With VRAMSCOPE_FIRST_SIGHT_OUT=FILE, writes what the readers make of every file of the
// first-sight manifests (facts or refusal) to FILE for bench/first_sight.py to score.
TEST(RealworldFirstSight, WritesWhatTheReadersMakeOfTheBatch) {
  const char* out_path = std::getenv("VRAMSCOPE_FIRST_SIGHT_OUT");
  if (out_path == nullptr) GTEST_SKIP() << "VRAMSCOPE_FIRST_SIGHT_OUT not set";
  json out = json::object();
  for (const auto& [rel, entry] : first_sight().items()) {
    const outcome got = read_as(rel, entry);
    out[rel] = got.refusal.empty() ? json{{"facts", got.facts}} : json{{"refused", got.refusal}};
    // Where a refusal is expected and the import went through, what `plan --from` says: a model
    // with no preset is refused when it is loaded, at the line that named it.
    if (got.refusal.empty() && (entry.contains("refused_at") || entry.contains("any_of"))) {
      const auto cli = invoke(cli_args_for(entry["kind"].get<std::string>(), root() + "/" + rel));
      std::string err = cli.err.substr(0, cli.err.find('\n'));
      const std::string prefix = root() + "/";
      if (const auto at = err.find(prefix); at != std::string::npos) err.erase(at, prefix.size());
      out[rel]["plan_exit"] = cli.code;
      out[rel]["plan_error"] = err;
    }
  }
  const status written = write_file_atomic(out_path, out.dump(1) + "\n");
  ASSERT_TRUE(written.has_value()) << written.error().to_string();
}

// Every refusal of a framework config names the file, the line and the column it is about: the
// importer's ("megatron/x.sh:12:1: ...") and plan's ("vramscope plan: megatron/x.sh:222:5: ...").
TEST(RealworldManifest, EveryConfigRefusalNamesItsLine) {
  for (const auto& [rel, entry] : manifest().items()) {
    const std::string kind = entry.value("kind", "");
    if (kind != "accelerate" && kind != "deepspeed" && kind != "megatron" && kind != "torchtitan" &&
        kind != "torchtune")
      continue;
    for (const auto& [field, prefix] :
         {std::pair{"refused", std::string()},
          std::pair{"plan_refused", std::string("vramscope plan: ")}}) {
      if (!entry.contains(field)) continue;
      const std::string text = entry[field].get<std::string>();
      const std::regex located("^" + prefix + "[^:]*" + ":[0-9]+:[0-9]+: .+");
      EXPECT_TRUE(text.rfind(prefix + rel + ":", 0) == 0 && std::regex_match(text, located))
          << rel << ": " << text;
    }
  }
}

// Every importer's refusal of a real framework config, of the corpus and of the first-sight
// batches, says what would make the file plannable (the file fixed, an option changed, a file
// put where it names one, a job of each model), besides where it is. Each is read again here, so
// a new refusal without a remedy fails whichever manifest lists its file.
TEST(RealworldManifest, EveryConfigRefusalSaysWhatWouldMakeItPlannable) {
  const std::regex remedy(
      "to plan (it|them)|plan each|plan the student|plan --|\\(expected |expected one of|"
      ": expected an? [a-z ]+, got |"
      "[;:] (write|set|add|give|remove|put|make|change|fix|launch|use) |--set ");
  json all = first_sight();
  all.update(manifest());
  std::size_t refused = 0;
  for (const auto& [rel, entry] : all.items()) {
    const std::string kind = entry.value("kind", "");
    if (kind != "accelerate" && kind != "deepspeed" && kind != "megatron" && kind != "torchtitan" &&
        kind != "torchtune")
      continue;
    const outcome got = read_as(rel, entry);
    if (got.refusal.empty()) continue;
    ++refused;
    // At the file, or at a file beside it that it reads (a recipe it sources, the script a
    // wrapper runs), where what the refusal names is written.
    const std::string located = got.refusal.substr(0, got.refusal.find(':'));
    const std::string folder = rel.substr(0, rel.rfind('/') + 1);
    EXPECT_TRUE(located == rel || (located != folder && located.rfind(folder, 0) == 0 &&
                                   std::filesystem::is_regular_file(root() + "/" + located)))
        << rel << ": " << got.refusal;
    EXPECT_TRUE(std::regex_search(got.refusal, remedy)) << rel << ": " << got.refusal;
  }
  EXPECT_GE(refused, 40u);
}

TEST(RealworldManifest, HoldsAtLeastEightyFiles) { EXPECT_GE(corpus_files().size(), 80u); }

}  // namespace
}  // namespace vramscope::testing
