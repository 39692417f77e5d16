#include "import/hjson.hpp"

#include <vramscope/core/io.hpp>
#include <vramscope/import/importers.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

namespace vramscope::job::detail {
namespace {

using nlohmann::json;

json read(const std::string& text) {
  auto doc = parse_hjson(text, "ds.json");
  if (!doc) ADD_FAILURE() << doc.error().to_string();
  return doc ? doc->value : json();
}

diagnostic refusal(const std::string& text) {
  auto doc = parse_hjson(text, "ds.json");
  if (doc) ADD_FAILURE() << "accepted: " << doc->value.dump();
  return doc ? diagnostic{} : doc.error();
}

TEST(Hjson, StrictJsonReadsAsNlohmannReadsIt) {
  const std::string text =
      "{\n  \"a\": 1, \"b\": -2.5e-3, \"c\": \"x\\u00e9\\n\\\"\", \"d\": [true, false, null, []],\n"
      "  \"e\": {}, \"f\": 18446744073709551615, \"g\": -0, \"h\": 1E300\n}";
  const json value = read(text);
  EXPECT_EQ(value, json::parse(text));
  EXPECT_TRUE(value["a"].is_number_unsigned());
  EXPECT_TRUE(value["b"].is_number_float());
}

// Every DeepSpeed config of the real-world corpus that nlohmann reads (with // and /* */
// comments) reads to the same value, unless it repeats a key.
TEST(Hjson, RealWorldDeepSpeedConfigsReadAsBefore) {
  int compared = 0;
  const std::filesystem::path folder =
      std::filesystem::path(VRAMSCOPE_SOURCE_DIR) / "tests/data/realworld/deepspeed";
  for (const auto& file : std::filesystem::directory_iterator(folder)) {
    auto text = read_file(file.path().string());
    ASSERT_TRUE(text) << file.path();
    const json before = json::parse(*text, nullptr, false, /*ignore_comments=*/true);
    if (before.is_discarded() || !before.is_object()) continue;
    auto doc = parse_hjson(*text, file.path().string());
    if (!doc) {
      EXPECT_NE(doc.error().message.find("duplicate key"), std::string::npos)
          << doc.error().to_string();
      continue;
    }
    EXPECT_EQ(doc->value, before) << file.path();
    ++compared;
  }
  EXPECT_GT(compared, 50);
}

TEST(Hjson, CommentsOfEachKind) {
  EXPECT_EQ(read("{\n  # hash\n  \"a\": 1, // slashes\n  /* block\n  over lines */ \"b\": 2\n}"),
            json::parse(R"({"a": 1, "b": 2})"));
}

TEST(Hjson, TrailingCommas) {
  EXPECT_EQ(read("{\"a\": [1, 2,], \"b\": {\"c\": 3,},}"),
            json::parse(R"({"a": [1, 2], "b": {"c": 3}})"));
}

TEST(Hjson, CommasLeftOutAtLineEnds) {
  EXPECT_EQ(read("{\n  \"a\": 1\n  \"b\": [\n    1\n    2\n  ]\n  \"c\": \"x\"\n}"),
            json::parse(R"({"a": 1, "b": [1, 2], "c": "x"})"));
}

TEST(Hjson, QuotelessKeysAndValues) {
  const json value = read(
      "{\n  stage: 3\n  device: cpu\n  flag : true\n  note: a b, c}  \n"
      "  lr: 2e-5, # stops at the comma\n  almost: 2e-5x, y\n}");
  EXPECT_EQ(value["stage"], 3);
  EXPECT_TRUE(value["stage"].is_number_unsigned());
  EXPECT_EQ(value["device"], "cpu");
  EXPECT_EQ(value["flag"], true);
  EXPECT_EQ(value["note"], "a b, c}");  // a quoteless string runs to the end of its line
  EXPECT_EQ(value["lr"], 2e-5);
  EXPECT_EQ(value["almost"], "2e-5x, y");
  // Not JSON numbers, so strings, as in Hjson.
  EXPECT_EQ(read("a: 01\nb: .5\nc: +1\n"), json::parse(R"({"a": "01", "b": ".5", "c": "+1"})"));
}

TEST(Hjson, RootWithoutBraces) {
  EXPECT_EQ(read("// options\n\"train_batch_size\": 8,\n\"zero_optimization\": {\"stage\": 1},\n"),
            json::parse(R"({"train_batch_size": 8, "zero_optimization": {"stage": 1}})"));
}

TEST(Hjson, QuotedStringsOfBothKinds) {
  EXPECT_EQ(read(R"({a: 'it\'s "x"', b: "it's \"y\"", c: '\u0041\t'})"),
            json::parse(R"({"a": "it's \"x\"", "b": "it's \"y\"", "c": "A\t"})"));
}

TEST(Hjson, MultiLineStrings) {
  EXPECT_EQ(read("{\n  text:\n    '''\n    first\n      second\n    '''\n}"),
            json::parse(R"({"text": "first\n  second"})"));
  EXPECT_EQ(read("{text: '''one line'''}"), json::parse(R"({"text": "one line"})"));
}

TEST(Hjson, KeysAreLocatedWhereTheyAreWritten) {
  // The key's text appears earlier as a value: the location is the key's own.
  auto doc = parse_hjson(
      "{\n  \"note\": \"stage\",\n  zero_optimization: {\n    \"stage\": 2\n"
      "  }\n  \"list\": [{\"stage\": 9}]\n}",
      "ds.json");
  ASSERT_TRUE(doc) << doc.error().to_string();
  using key = std::vector<std::string>;
  EXPECT_EQ(doc->keys.at(key{"note"}), std::make_pair(2, 3));
  EXPECT_EQ(doc->keys.at(key{"zero_optimization"}), std::make_pair(3, 3));
  EXPECT_EQ(doc->keys.at(key{"zero_optimization", "stage"}), std::make_pair(4, 5));
  EXPECT_EQ(doc->keys.count(key{"list", "stage"}), 0u);  // keys inside arrays are not recorded
}

TEST(Hjson, DuplicateKeysAreAnErrorAsInDeepSpeed) {
  const diagnostic top = refusal("{\n  \"a\": 1,\n  \"a\": 2\n}");
  EXPECT_EQ(top.line, 3);
  EXPECT_EQ(top.column, 3);
  EXPECT_NE(top.message.find("duplicate key \"a\" (first at line 2)"), std::string::npos)
      << top.message;
  const diagnostic nested = refusal("{\"b\": {\"c\": 1, c: 2}}");
  EXPECT_EQ(nested.line, 1);
  EXPECT_EQ(nested.column, 16);
  // The same key in different objects is fine.
  EXPECT_EQ(read("{\"b\": {\"c\": 1}, \"d\": {\"c\": 2}}")["d"]["c"], 2);
}

TEST(Hjson, BadInputIsLocatedAndSaysWhatWasExpected) {
  // A quoteless value swallows the closing brace, so the root object is unclosed at the end of
  // input: the error is shown at the value that ran on, naming where the object opened.
  const diagnostic swallowed = refusal("{\n  \"fp16\": {\"enabled\": tru}\n}\n");
  EXPECT_EQ(swallowed.line, 2);
  EXPECT_EQ(swallowed.column, 23);
  EXPECT_EQ(swallowed.message.rfind("json syntax error: ", 0), 0u);
  EXPECT_NE(swallowed.message.find("\"tru}\" runs to the end of its line"), std::string::npos)
      << swallowed.message;
  EXPECT_NE(swallowed.message.find("object opened at line 1, column 1 is never closed: expected "
                                   "'}'"),
            std::string::npos)
      << swallowed.message;
  const diagnostic unclosed = refusal("{\"a\": [1,\n  2\n");
  EXPECT_EQ(unclosed.line, 1);
  EXPECT_EQ(unclosed.column, 7);
  EXPECT_NE(unclosed.message.find("the array opened here is never closed: expected ']'"),
            std::string::npos)
      << unclosed.message;

  const diagnostic string = refusal("{\"a\": \"open\n}");
  EXPECT_EQ(string.line, 1);
  EXPECT_EQ(string.column, 7);
  EXPECT_NE(string.message.find("string not closed"), std::string::npos);

  const diagnostic blank_key = refusal("{\n  two words: 1\n}");
  EXPECT_EQ(blank_key.line, 2);
  EXPECT_EQ(blank_key.column, 6);
  EXPECT_NE(blank_key.message.find("quote a key"), std::string::npos);

  const diagnostic no_colon = refusal("{\"a\" 1}");
  EXPECT_NE(no_colon.message.find("expected ':' after the key \"a\""), std::string::npos);

  const diagnostic no_value = refusal("{\"a\": ,}");
  EXPECT_EQ(no_value.column, 7);
  EXPECT_NE(no_value.message.find("expected a value"), std::string::npos);

  const diagnostic trailing = refusal("{\"a\": 1}\n}");
  EXPECT_EQ(trailing.line, 2);
  EXPECT_NE(trailing.message.find("expected the end of the file"), std::string::npos);

  EXPECT_NE(refusal("  // nothing\n").message.find("empty input"), std::string::npos);
  EXPECT_NE(refusal("{\"a\": \"x\\").message.find("string not closed"), std::string::npos);
  EXPECT_NE(refusal("{\"a\": '''\n x").message.find("multi-line string not closed"),
            std::string::npos);
  EXPECT_NE(refusal("{\"a\": \"\\q\"}").message.find("invalid string"), std::string::npos);
  EXPECT_NE(refusal("{\"a\": \"\xff\"}").message.find("invalid string"), std::string::npos);
  EXPECT_NE(refusal(std::string(600, '[')).message.find("nested more than 512"), std::string::npos);
  EXPECT_EQ(refusal("{\"a\": 2e7777}").to_string(),
            "ds.json: json error: number overflow parsing '2e7777'");
}

TEST(Hjson, DeepSpeedConfigWithoutRootBracesIsPlanned) {
  auto imported = import_config_text(
      "// a DeepSpeed config in Hjson\n\"train_micro_batch_size_per_gpu\": 2\n"
      "bf16: {enabled: true}\nzero_optimization: {\n  stage: 2, # sharded gradients\n"
      "  offload_optimizer: {\n    device: cpu\n  }\n}\n",
      "ds.json");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->format, "deepspeed");
  EXPECT_EQ(imported->job.parallel.kind, strategy::zero2);
  EXPECT_TRUE(imported->job.parallel.offload_optimizer);
  EXPECT_EQ(imported->job.training.micro_batch, 2u);
}

TEST(Hjson, DeepSpeedErrorsPointAtTheHjsonKey) {
  auto bad = import_config_text("{\n  # stage\n  zero_optimization: {stage: 4}\n}\n", "ds.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().line, 3);
  EXPECT_EQ(bad.error().column, 23);
  auto duplicate =
      import_config_text("{\"train_batch_size\": 8,\n \"train_batch_size\": 16}", "ds.json");
  ASSERT_FALSE(duplicate);
  EXPECT_EQ(duplicate.error().line, 2);
  EXPECT_NE(duplicate.error().message.find("duplicate key"), std::string::npos);
}

// The HF Trainer and accelerate read the file with json.load: a file whose batch sizes are "auto"
// (theirs to fill) must be strict JSON, and is refused where json.load stops; a trailing comma at
// the comma, not at the closing brace where the parser notices it.
TEST(Hjson, AutoBatchSizesNeedStrictJson) {
  auto bad = import_config_text(
      "{\n  \"train_micro_batch_size_per_gpu\": \"auto\",\n  \"zero_optimization\": {\n"
      "    \"stage\": 2,\n  },\n}\n",
      "ds.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().line, 4);
  EXPECT_EQ(bad.error().column, 15);
  EXPECT_NE(bad.error().message.find("a trailing comma before the closing '}'"), std::string::npos)
      << bad.error().message;
  EXPECT_NE(bad.error().message.find("json.load"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("train_micro_batch_size_per_gpu, line 2"), std::string::npos)
      << bad.error().message;
  // Other "auto" values are no evidence of the Trainer: DeepSpeed's Hjson reading stands.
  auto good = import_config_text(
      "{\n  // one GPU\n  \"train_batch_size\": 1,\n  \"zero_optimization\": {\n    \"stage\": 3,\n"
      "    \"stage3_prefetch_bucket_size\": \"auto\",\n  },\n}\n",
      "ds.json");
  ASSERT_TRUE(good) << good.error().to_string();
  EXPECT_EQ(good->job.parallel.kind, strategy::zero3);
  // Planned, with a note where json.load (DeepSpeed before 0.8.1, the Trainer, accelerate) stops.
  const auto note = std::find_if(good->notes.begin(), good->notes.end(), [](const auto& n) {
    return n.message.starts_with("not strict JSON");
  });
  ASSERT_NE(note, good->notes.end());
  EXPECT_EQ(note->line, 2);
  EXPECT_NE(note->message.find("DeepSpeed before 0.8.1"), std::string::npos) << note->message;
}

TEST(Hjson, BatchSizePlaceholderIsRefusedAtItsKey) {
  auto bad = import_config_text(
      "{\n  \"train_batch_size\" : GB_SIZE,\n  \"train_micro_batch_size_per_gpu\": MB_SIZE,\n}\n",
      "ds.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().line, 2);
  EXPECT_EQ(bad.error().column, 3);
  EXPECT_NE(bad.error().message.find("train_batch_size: expected a whole number"),
            std::string::npos)
      << bad.error().message;
  EXPECT_NE(bad.error().message.find("got \"GB_SIZE,\""), std::string::npos);
}

}  // namespace
}  // namespace vramscope::job::detail
