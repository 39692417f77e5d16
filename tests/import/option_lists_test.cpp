// Every option of a framework's own option list (tests/data/options/<framework>_options.txt,
// read from the framework's source at the commits its header names) has a row in the
// importer's table: mapped to a job field, read and ignored as having no effect on GPU memory,
// noted as not modelled, or handled by the importer's own code. An option without a row would
// be called "unknown", which only a name the framework does not have may be.
#include "import/import_common.hpp"

#include <vramscope/core/io.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

namespace vramscope::job {
namespace {

std::vector<std::string> option_list(const std::string& framework) {
  const std::string path =
      std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/options/" + framework + "_options.txt";
  auto text = read_file(path);
  EXPECT_TRUE(text) << path;
  std::vector<std::string> keys;
  if (!text) return keys;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] != '#') keys.push_back(line);
  return keys;
}

void expect_every_option_classified(const std::string& framework,
                                    const std::vector<detail::option>& table, std::size_t least) {
  const auto keys = option_list(framework);
  EXPECT_GE(keys.size(), least) << framework << ": the list is shorter than expected";
  for (const auto& key : keys) {
    const bool claimed = std::any_of(table.begin(), table.end(), [&](const detail::option& row) {
      return detail::option_matches(row.key, key);
    });
    EXPECT_TRUE(claimed) << framework << ": option " << key << " has no row in the importer";
  }
}

TEST(OptionLists, EveryAccelerateOptionIsClassified) {
  expect_every_option_classified("accelerate", detail::accelerate_options(), 90);
}

TEST(OptionLists, EveryDeepSpeedOptionIsClassified) {
  expect_every_option_classified("deepspeed", detail::deepspeed_options(), 120);
}

TEST(OptionLists, EveryTorchtitanOptionOfThreeReleasesIsClassified) {
  expect_every_option_classified("torchtitan", detail::torchtitan_options(), 180);
}

// Megatron's lists are "<group> <flag>" a line: the flag is the option.
void expect_every_megatron_flag_classified(const std::string& list, std::size_t least) {
  const auto lines = option_list(list);
  EXPECT_GE(lines.size(), least) << list << ": the list is shorter than expected";
  const auto& table = detail::megatron_options();
  for (const auto& line : lines) {
    const std::string flag = line.substr(line.find(' ') + 1);
    const bool claimed = std::any_of(table.begin(), table.end(), [&](const detail::option& row) {
      return detail::option_matches(row.key, flag);
    });
    EXPECT_TRUE(claimed) << list << ": " << flag << " has no row in the importer";
  }
}

TEST(OptionLists, EveryMegatronArgumentIsClassified) {
  expect_every_megatron_flag_classified("megatron", 600);
}

// The flags Megatron-LM generates from its config dataclasses (TransformerConfig, TokenizerConfig,
// TrainingConfig, ...), which arguments.py does not name.
TEST(OptionLists, EveryMegatronConfigDataclassArgumentIsClassified) {
  expect_every_megatron_flag_classified("megatron_config", 450);
}

// Megatron-DeepSpeed's flags beyond Megatron-LM's, in the same "<group> <flag>" form.
TEST(OptionLists, EveryMegatronDeepSpeedArgumentIsClassified) {
  expect_every_megatron_flag_classified("megatron_deepspeed", 60);
}

// The flags of forks users launch (the ABCI Megatron-DeepSpeed, HetPipe) and of a pull-request
// branch.
TEST(OptionLists, EveryMegatronForkArgumentIsClassified) {
  expect_every_megatron_flag_classified("megatron_forks", 10);
}

TEST(OptionLists, EveryTorchtuneRecipeOptionIsClassified) {
  expect_every_option_classified("torchtune", detail::torchtune_options(), 70);
}

}  // namespace
}  // namespace vramscope::job
