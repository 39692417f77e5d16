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

std::vector<std::string> names_of(const std::vector<detail::option>& table) {
  std::vector<std::string> names;
  for (const auto& row : table) names.push_back(row.key);
  return names;
}

// A misspelt option is near the real one: a letter changed, dropped or added, two swapped, the
// separators or the section moved, words shortened.
TEST(OptionLists, AMisspeltOptionIsNearTheRealOne) {
  const auto titan = names_of(detail::torchtitan_options());
  const auto tune = names_of(detail::torchtune_options());
  const auto speed = names_of(detail::deepspeed_options());
  const auto megatron = names_of(detail::megatron_options());
  const auto accelerate = names_of(detail::accelerate_options());
  EXPECT_EQ(detail::near_option("training.gc_frequency", titan), "training.gc_freq");
  EXPECT_EQ(detail::near_option("training.sed", titan), "training.seed");
  EXPECT_EQ(detail::near_option("parallelism.tensor_paralel_degree", titan),
            "parallelism.tensor_parallel_degree");
  EXPECT_EQ(detail::near_option("batch_sise", tune), "batch_size");
  EXPECT_EQ(detail::near_option("fsdp.cpu_offload", tune), "fsdp_cpu_offload");
  EXPECT_EQ(detail::near_option("Batch_Size", tune), "batch_size");
  EXPECT_EQ(detail::near_option("nmae", {"name"}), "name");
  EXPECT_EQ(detail::near_option("zero_optimization.allgather_bucket_sizes", speed),
            "zero_optimization.allgather_bucket_size");
  EXPECT_EQ(detail::near_option("zero_optimization.stage3_max_live_paramters", speed),
            "zero_optimization.stage3_max_live_parameters");
  EXPECT_EQ(detail::near_option("--num-layer", megatron), "--num-layers");
  EXPECT_EQ(detail::near_option("--num_layers", megatron), "--num-layers");
  EXPECT_EQ(detail::near_option("fsdp_config.fsdp_offlaod_parms", accelerate),
            "fsdp_config.fsdp_offload_params");
  EXPECT_EQ(detail::near_option("fsdp_config.fsdp_sharding_stratgy", accelerate),
            "fsdp_config.fsdp_sharding_strategy");
  EXPECT_EQ(detail::near_option("bp16.enabled", speed), "bf16.enabled");
  // The same last part in another section, when one option has it.
  EXPECT_EQ(detail::near_option("training.selective_ac_option", titan),
            "activation_checkpoint.selective_ac_option");
}

// Options of forks, branches and newer releases are not near a real one, so they are never
// called unknown (tests/data/realworld/fresh8-expected.json: each is an option of its fork's
// or branch's source).
TEST(OptionLists, ForkOptionsAreNotNearARealOne) {
  const auto titan = names_of(detail::torchtitan_options());
  const auto tune = names_of(detail::torchtune_options());
  const auto megatron = names_of(detail::megatron_options());
  const auto accelerate = names_of(detail::accelerate_options());
  for (const char* key : {"val_split", "vals_per_epoch", "max_samples", "dataset_val_split"})
    EXPECT_EQ(detail::near_option(key, tune), "") << key;
  for (const char* key : {"lora.rank", "lora.alpha", "training.debug_moe_force_balance",
                          "grpo_trainer.num_generations", "training.pack_samples"})
    EXPECT_EQ(detail::near_option(key, titan), "") << key;
  for (const char* key : {"--use-mpi", "--batch-invariant-mode", "--padded-vocab-size"})
    EXPECT_EQ(detail::near_option(key, megatron), "") << key;
  // accelerate's FSDP plugin has limit_all_gathers, but no config key sets it.
  EXPECT_EQ(detail::near_option("fsdp_config.fsdp_limit_all_gather", accelerate), "");
  // Three edits in a name of 27 letters, but all in its last word: another name.
  EXPECT_EQ(detail::near_option("gradient_accumulation_dtype",
                                names_of(detail::deepspeed_options())),
            "");
  // A fork's own section holding a name an option has elsewhere: the fork's layout.
  EXPECT_EQ(detail::near_option("dataset.dataset_path", titan), "");
  // Two options with the same last part: no guess between them.
  EXPECT_EQ(detail::near_option("x.enabled", {"a.enabled", "b.enabled"}), "");
  // Too short to tell a typo from another name.
  EXPECT_EQ(detail::near_option("tp", {"pp"}), "");
}

}  // namespace
}  // namespace vramscope::job
