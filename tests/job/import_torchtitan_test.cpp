#include <vramscope/job/importers.hpp>

#include <vramscope/model/model_spec.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <tuple>

#include "job/import_test_support.hpp"

namespace vramscope::job {
namespace {

using testing::find_note;
using testing::import_ok;
using testing::sample;

TEST(ImportTorchtitan, MapsTheLlama3Config) {
  const imported_job imported = import_ok("torchtitan_llama3_8b.toml");
  const job_spec& job = imported.job;
  EXPECT_EQ(imported.format, "torchtitan");
  EXPECT_EQ(job.model, "llama-3.1-8b");
  EXPECT_EQ(job.parallel.kind, strategy::fsdp2);
  EXPECT_EQ(job.parallel.tp, 4);
  EXPECT_EQ(job.parallel.dp_shard, 2);
  EXPECT_TRUE(job.parallel.sequence_parallel);
  EXPECT_EQ(job.parallel.reshard_after_forward, 1);
  EXPECT_EQ(job.world_size(), 8);
  EXPECT_EQ(job.training.micro_batch, 1u);
  EXPECT_EQ(job.training.seq_len, 8192u);
  EXPECT_EQ(job.training.activation_checkpointing, checkpointing::selective);
  EXPECT_EQ(job.training.checkpoint_every, 2);
  EXPECT_EQ(job.precision.params, dtype::bf16);
  EXPECT_EQ(job.precision.reduce, dtype::f32);
  EXPECT_EQ(job.optimizer.kind, optimizer_kind::adamw);
  EXPECT_TRUE(job.optimizer.fused);
  EXPECT_FALSE(job.optimizer.foreach_impl);
  EXPECT_EQ(job.checkpoint.save, state_dict_kind::none);
}

TEST(ImportTorchtitan, ReportsUnknownAndUnmodelledOptions) {
  const imported_job imported = import_ok("torchtitan_llama3_8b.toml");
  EXPECT_EQ(find_note(imported.notes, "gc_frequency"),
            sample("torchtitan_llama3_8b.toml") +
                ":37:1: unknown option \"training.gc_frequency\"; ignored\n"
                "gc_frequency = 50  # mistyped gc_freq: the importer must report it\n"
                "^ near here");
  EXPECT_NE(find_note(imported.notes, "\"compile.components\" changes memory"), "");
  // Switches that are off have no effect.
  EXPECT_NE(find_note(imported.no_effect, "\"parallelism.enable_async_tensor_parallel\""), "");
  EXPECT_NE(find_note(imported.no_effect, "\"compile.enable\""), "");
  EXPECT_NE(find_note(imported.no_effect, "\"training.steps\" does not affect"), "");
  EXPECT_EQ(find_note(imported.notes, "does not name the model"), "");
  EXPECT_NE(find_note(imported.notes, "does not name the GPU"), "");
}

TEST(ImportTorchtitan, PlansTorchtitansOwnTrainingStep) {
  auto imported = import_config_text("[training]\nbatch_size = 2\n", "t.toml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.training.loss, loss_impl::torchtitan);
}

TEST(ImportTorchtitan, PerOperatorCheckpointingIsPlannedAsSuch) {
  auto imported = import_config_text(
      "[activation_checkpoint]\nmode = \"selective\"\nselective_ac_option = \"op\"\n", "t.toml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.training.activation_checkpointing, checkpointing::op);
  EXPECT_EQ(find_note(imported->notes, "per-operator selective checkpointing"), "");
}

TEST(ImportTorchtitan, UnmodelledParallelismIsNoted) {
  auto imported = import_config_text(
      "[parallelism]\ndata_parallel_shard_degree = 4\npipeline_parallel_degree = 2\n", "t.toml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.world_size(), 4);
  EXPECT_EQ(find_note(imported->notes, "pipeline_parallel_degree 2"),
            "t.toml:3:1: pipeline_parallel_degree 2 is not modelled: planned on the data- and "
            "tensor-parallel GPUs only, as if each stage held the whole model (an over-estimate)\n"
            "pipeline_parallel_degree = 2\n"
            "^ near here");
  auto ddp = import_config_text(
      "[parallelism]\ndata_parallel_shard_degree = 1\ndata_parallel_replicate_degree = 8\n", "t.toml");
  ASSERT_TRUE(ddp) << ddp.error().to_string();
  EXPECT_EQ(ddp->job.parallel.kind, strategy::ddp);
  EXPECT_EQ(ddp->job.parallel.dp_shard, 8);
}

TEST(ImportTorchtitan, AutoShardDegreeLeavesTheWorldToTheUser) {
  auto imported = import_config_text("[parallelism]\ndata_parallel_shard_degree = -1\n"
                                     "tensor_parallel_degree = 2\n", "t.toml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.dp_shard, 4);  // 8 assumed GPUs / tp 2
  EXPECT_NE(find_note(imported->notes, "does not give the number of GPUs"), "");
}

TEST(ImportTorchtitan, ShippedLargeFlavorsNameTheirPresets) {
  // torchtitan's llama3_405b.toml and qwen3_32b.toml name these flavors.
  for (const auto& [name, flavor, preset] :
       {std::tuple{"llama3", "405B", "llama-3.1-405b"}, std::tuple{"qwen3", "32B", "qwen3-32b"}}) {
    auto imported = import_config_text(
        fmt::format("[model]\nname = \"{}\"\nflavor = \"{}\"\n", name, flavor), "t.toml");
    ASSERT_TRUE(imported) << imported.error().to_string();
    EXPECT_EQ(imported->job.model, preset);
    EXPECT_TRUE(model::load_model(imported->job.model)) << preset;
  }
}

TEST(ImportTorchtitan, ErrorsAreLocated) {
  auto syntax = import_config_text("[training]\nseq_len = = 3\n", "t.toml");
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().line, 2);
  EXPECT_EQ(syntax.error().message.rfind("toml syntax error: ", 0), 0u);
  auto range = import_config_text("[training]\nseq_len = 0\n", "t.toml");
  ASSERT_FALSE(range);
  EXPECT_EQ(range.error().to_string(),
            "t.toml:2:1: training.seq_len: 0 is out of range (expected 1 to 16777216) (it sets "
            "training.seq_len)\n"
            "seq_len = 0\n"
            "^ near here");
}

}  // namespace
}  // namespace vramscope::job
