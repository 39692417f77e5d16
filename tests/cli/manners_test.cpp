// The command line's manners (issue 16): usage without arguments, -V, did-you-mean for
// commands and options, `vramscope keys`, one usage line and one error prefix per command,
// and the man page and completions generated from the same tables.
#include <vramscope/cli/run.hpp>
#include <vramscope/job/gpu_catalog.hpp>
#include <vramscope/job/overrides.hpp>

#include "cli/commands.hpp"
#include "support/cli.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace vramscope::cli {
namespace {

using testing::invoke;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliManners, NoArgumentsPrintsUsageOnStderrAndExitsTwo) {
  auto r = invoke({});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "Usage: vramscope COMMAND [ARGS...]\n"
            "       vramscope (-h | --help | -V | --version)\n"
            "run 'vramscope help' for the list of commands\n");
}

TEST(CliManners, ShortVersionFlagPrintsVersion) {
  auto r = invoke({"-V"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, "vramscope 0.1.0\n");
}

TEST(CliManners, MistypedCommandGetsSuggestion) {
  auto r = invoke({"plna", "job.yaml"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "vramscope: unknown command 'plna' (did you mean 'plan'?)\n"
            "run 'vramscope help' for the list of commands\n");
}

TEST(CliManners, FarOffCommandGetsNoSuggestion) {
  auto r = invoke({"frobnicate"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')), "vramscope: unknown command 'frobnicate'");
}

TEST(CliManners, MistypedTopLevelOptionGetsSuggestion) {
  auto r = invoke({"--verison"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "unknown option '--verison' (did you mean '--version'?)")) << r.err;
}

TEST(CliManners, MistypedOptionGetsSuggestion) {
  auto r = invoke({"plan", "job.yaml", "--jsn"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "vramscope plan: unknown option '--jsn' (did you mean '--json'?)\n"
            "run 'vramscope help plan' for usage\n");
}

TEST(CliManners, MistypedOptionWithValueGetsSuggestion) {
  auto r = invoke({"compare", "job.yaml", "--vary", "parallel.tp=1,2", "--sett=parallel.tp=2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "vramscope compare: unknown option '--sett' (did you mean '--set'?)"))
      << r.err;
}

TEST(CliManners, ExtraPositionalIsRefused) {
  auto r = invoke({"models", "extra"});
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "vramscope models: unexpected argument 'extra'")) << r.err;
}

TEST(CliManners, EveryCommandHelpStartsWithItsUsageLine) {
  for (const auto& c : commands()) {
    auto r = invoke({std::string(c.name), "--help"});
    EXPECT_EQ(r.code, 0) << c.name;
    EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "Usage: vramscope " + std::string(c.usage));
    auto via_help = invoke({"help", std::string(c.name)});
    EXPECT_EQ(via_help.out, r.out) << c.name;
  }
}

TEST(CliManners, PlanHelpPointsToKeys) {
  auto r = invoke({"plan", "--help"});
  EXPECT_TRUE(contains(r.out, "run 'vramscope keys' for every key")) << r.out;
  auto models = invoke({"models", "--help"});
  EXPECT_FALSE(contains(models.out, "vramscope keys")) << "models takes no --set";
}

TEST(CliManners, ErrorsArePrefixedWithTheCommand) {
  auto plan = invoke({"plan", "/nonexistent/job.yaml"});
  EXPECT_EQ(plan.code, 2);
  EXPECT_EQ(plan.err.rfind("vramscope plan: ", 0), 0u) << plan.err;
  auto snapshot = invoke({"snapshot", "/nonexistent/snap.pickle"});
  EXPECT_EQ(snapshot.code, 2);
  EXPECT_EQ(snapshot.err.rfind("vramscope snapshot: ", 0), 0u) << snapshot.err;
  auto inspect = invoke({"inspect", "no-such-model"});
  EXPECT_EQ(inspect.code, 2);
  EXPECT_EQ(inspect.err.rfind("vramscope inspect: ", 0), 0u) << inspect.err;
}

TEST(CliKeys, ListsEveryFieldPathOnceWithDefaultAndAllowedValues) {
  auto r = invoke({"keys", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  std::vector<std::string> listed;
  for (const auto& k : doc) listed.push_back(k["key"].get<std::string>());
  EXPECT_EQ(listed, job::field_paths());
  for (const auto& k : doc) {
    if (k["key"] == "parallel.tp") {
      EXPECT_EQ(k["default"], "1");
      EXPECT_EQ(k["allowed"], "an integer, 1 to 1024");
    }
    if (k["key"] == "parallel.strategy") {
      EXPECT_EQ(k["default"], "fsdp2");
      EXPECT_TRUE(contains(k["allowed"].get<std::string>(), "zero3"));
    }
    if (k["key"] == "hardware.gpu") {
      EXPECT_EQ(k["values"].size(), job::gpu_names().size());
    }
    if (k["key"] == "hardware.gpu_memory") {
      EXPECT_EQ(k["default"], "from hardware.gpu");
    }
  }
}

TEST(CliKeys, TextTableHasOneRowPerKey) {
  auto r = invoke({"keys", "training"});
  ASSERT_EQ(r.code, 0);
  EXPECT_TRUE(contains(r.out, "training.micro_batch")) << r.out;
  EXPECT_FALSE(contains(r.out, "parallel.tp"));
  std::size_t rows = 0;
  for (const auto& path : job::field_paths())
    if (path.starts_with("training") && contains(r.out, path + " ")) ++rows;
  EXPECT_GT(rows, 5u);
}

TEST(CliKeys, UnknownPrefixIsBadInput) {
  auto r = invoke({"keys", "paralel"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "vramscope keys: no key starts with \"paralel\"\n");
}

TEST(CliGenerated, ManPageCoversEveryCommandOptionAndKey) {
  auto r = invoke({"--man"});
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind(".TH VRAMSCOPE 1", 0), 0u);
  for (const auto& c : commands()) EXPECT_TRUE(contains(r.out, ".SS " + std::string(c.name)));
  EXPECT_TRUE(contains(r.out, ".B \\-\\-timeline \\fIVALUE\\fR")) << "plan's option";
  EXPECT_TRUE(contains(r.out, ".B \\-\\-vary \\fIVALUE\\fR")) << "compare's option";
  EXPECT_TRUE(contains(r.out, ".B \\-\\-json\n")) << "a flag takes no value";
  EXPECT_TRUE(contains(r.out, ".B parallel.tp\n"));
  EXPECT_TRUE(contains(r.out, ".B training.seq_len\n"));
}

TEST(CliGenerated, BashCompletionListsCommandsOptionsKeysPresetsAndGpus) {
  auto r = invoke({"--completion", "bash"});
  ASSERT_EQ(r.code, 0);
  for (const auto& c : commands()) EXPECT_TRUE(contains(r.out, "    " + std::string(c.name) + ") "));
  EXPECT_TRUE(contains(r.out, "--timeline"));
  EXPECT_TRUE(contains(r.out, "parallel.tp="));
  EXPECT_TRUE(contains(r.out, "llama-3.1-8b"));
  EXPECT_TRUE(contains(r.out, "H100-80GB"));
  EXPECT_TRUE(contains(r.out, "complete -o default -F _vramscope vramscope"));
}

TEST(CliGenerated, ZshCompletionIsACompdefScript) {
  auto r = invoke({"--completion", "zsh"});
  ASSERT_EQ(r.code, 0);
  EXPECT_EQ(r.out.rfind("#compdef vramscope\n", 0), 0u);
  EXPECT_TRUE(contains(r.out, "'*--set[override a job field"));
}

TEST(CliGenerated, UnknownShellIsBadInput) {
  auto r = invoke({"--completion", "fish"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "vramscope: --completion takes bash or zsh\n");
}

}  // namespace
}  // namespace vramscope::cli
