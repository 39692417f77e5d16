#include <vramscope/import/importers.hpp>

#include <vramscope/model/model_spec.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <tuple>

#include "import/import_test_support.hpp"

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
                ":37:1: unknown option \"training.gc_frequency\" (did you mean "
                "\"training.gc_freq\"?); ignored\n"
                "gc_frequency = 50  # mistyped gc_freq: the importer must report it\n"
                "^ near here");
  // Switches that are off have no effect, nor do the options of a section switched off.
  EXPECT_NE(find_note(imported.no_effect, "\"compile.components\""), "");
  // Async TP is a job field now (parallel.async_tp), read as the file says, noted nowhere.
  EXPECT_FALSE(imported.job.parallel.async_tp);
  EXPECT_EQ(find_note(imported.notes, "enable_async_tensor_parallel"), "");
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

// optimizer.early_step_in_backward steps each parameter's optimizer in its gradient hook, as
// torchtune's optimizer_in_bwd does, and torchtitan refuses it beside pipeline or expert
// parallelism. [checkpoint] enable (enable_checkpoint before June 2025) saves shards.
TEST(ImportTorchtitan, OptimizerInBackwardAndCheckpointSaves) {
  auto on = import_config_text(
      "[optimizer]\nearly_step_in_backward = true\n[checkpoint]\nenable = true\n", "t.toml");
  ASSERT_TRUE(on) << on.error().to_string();
  EXPECT_TRUE(on->job.optimizer.in_backward);
  EXPECT_EQ(on->job.checkpoint.save, state_dict_kind::sharded);
  auto older = import_config_text(
      "[training]\nbatch_size = 2\n[checkpoint]\nenable_checkpoint = true\n", "o.toml");
  ASSERT_TRUE(older) << older.error().to_string();
  EXPECT_EQ(older->job.checkpoint.save, state_dict_kind::sharded);
  EXPECT_FALSE(older->job.optimizer.in_backward);
  auto staged = import_config_text(
      "[parallelism]\npipeline_parallel_degree = 2\n[optimizer]\nearly_step_in_backward = "
      "true\n",
      "p.toml");
  ASSERT_FALSE(staged);
  EXPECT_EQ(staged.error().line, 4);
  EXPECT_NE(staged.error().message.find("not supported with Pipeline Parallel"), std::string::npos)
      << staged.error().message;
}

// torchtitan keeps the logits sharded under loss_parallel() unless disable_loss_parallel; the
// switch is a job field now, not a "not modelled" note.
TEST(ImportTorchtitan, DisableLossParallelGathersTheLogits) {
  auto off = import_config_text(
      "[parallelism]\ntensor_parallel_degree = 2\ndisable_loss_parallel = true\n", "t.toml");
  ASSERT_TRUE(off) << off.error().to_string();
  EXPECT_EQ(off->job.parallel.loss_parallel, std::optional<bool>(false));
  EXPECT_FALSE(off->job.vocab_parallel_loss(off->job.parallel.tp));
  EXPECT_EQ(find_note(off->notes, "disable_loss_parallel"), "");
  auto on = import_config_text(
      "[parallelism]\ntensor_parallel_degree = 2\ndisable_loss_parallel = false\n", "t.toml");
  ASSERT_TRUE(on) << on.error().to_string();
  EXPECT_EQ(on->job.parallel.loss_parallel, std::nullopt);
  EXPECT_TRUE(on->job.vocab_parallel_loss(on->job.parallel.tp));
}

// torchtitan's collectives never record streams (its init_distributed set the variable until
// torch made stashing the default): an imported job says so for torch < 2.8.
TEST(ImportTorchtitan, CollectivesAvoidRecordStream) {
  auto imported = import_config_text("[parallelism]\ntensor_parallel_degree = 2\n", "t.toml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.env_value("TORCH_NCCL_AVOID_RECORD_STREAMS"), "1");
}

// Stages sized by layer count map to parallel.pp_layers_per_stage (the count per rank follows
// from the model's blocks); the split weights at torchtitan's default 1 are what vramscope
// plans, another weight is noted.
TEST(ImportTorchtitan, LayersPerStageSizesTheVirtualStages) {
  auto imported = import_config_text(
      "[training]\nlocal_batch_size = 4\n"
      "[parallelism]\npipeline_parallel_degree = 2\npipeline_parallel_schedule = "
      "\"Interleaved1F1B\"\n"
      "pipeline_parallel_layers_per_stage = 4\npipeline_parallel_first_stage_less_layers = 1\n"
      "pipeline_parallel_last_stage_less_layers = 2\n",
      "t.toml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.pp_layers_per_stage, 4);
  EXPECT_EQ(imported->job.parallel.pp_stages_per_rank, 0);  // from the model's blocks
  EXPECT_EQ(find_note(imported->notes, "layers_per_stage"), "");
  EXPECT_NE(find_note(imported->notes, "last_stage_less_layers"), "");
  EXPECT_EQ(find_note(imported->notes, "first_stage_less_layers"), "");
}

TEST(ImportTorchtitan, PerOperatorCheckpointingIsPlannedAsSuch) {
  auto imported = import_config_text(
      "[activation_checkpoint]\nmode = \"selective\"\nselective_ac_option = \"op\"\n", "t.toml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.training.activation_checkpointing, checkpointing::op);
  EXPECT_EQ(find_note(imported->notes, "per-operator selective checkpointing"), "");
}

TEST(ImportTorchtitan, PipelineParallelismCutsTheLocalBatchIntoMicroBatches) {
  auto imported = import_config_text(
      "[training]\nlocal_batch_size = 8\n"
      "[parallelism]\ndata_parallel_shard_degree = 4\npipeline_parallel_degree = 2\n"
      "pipeline_parallel_schedule = \"Interleaved1F1B\"\npipeline_parallel_microbatch_size = 2\n",
      "t.toml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  const auto& job = imported->job;
  EXPECT_EQ(job.world_size(), 8);
  EXPECT_EQ(job.parallel.pp, 2);
  EXPECT_EQ(job.parallel.dp_shard, 4);
  EXPECT_EQ(job.parallel.pp_sched, pp_schedule::interleaved_1f1b);
  EXPECT_EQ(job.parallel.pp_stages_per_rank, 2);
  EXPECT_EQ(job.training.micro_batch, 2u);
  EXPECT_EQ(job.training.gradient_accumulation, 4);
  // torchtitan keeps FSDP's parameters unsharded after forward under a pipeline; a stage
  // reduces its gradients at its last micro-batch only.
  EXPECT_EQ(job.parallel.reshard_after_forward, 0);
  EXPECT_TRUE(job.parallel.no_sync);
  EXPECT_EQ(find_note(imported->notes, "pipeline_parallel"), "");
  // A shard degree of -1 leaves the world to the user, but it must hold tp x pp.
  auto auto_shard = import_config_text(
      "[parallelism]\ndata_parallel_shard_degree = -1\ntensor_parallel_degree = 8\n"
      "pipeline_parallel_degree = 4\n", "t.toml");
  ASSERT_TRUE(auto_shard) << auto_shard.error().to_string();
  EXPECT_EQ(auto_shard->job.world_size(), 32);
  EXPECT_EQ(auto_shard->job.parallel.dp_shard, 1);
}

// Before pull/1303 (2025-06-16) torchtitan gave mixed_precision_param to FSDP only: DDP and one
// rank trained in fp32. A file of that time (degrees under [training]) plans fp32; a file with
// the [parallelism] table plans today's autocast in that dtype.
TEST(ImportTorchtitan, DdpOfReleasesBeforeAmpTrainsInFp32) {
  auto old = import_config_text(
      "[training]\nmixed_precision_param = \"bfloat16\"\ndata_parallel_replicate_degree = 8\n"
      "data_parallel_shard_degree = 1\n",
      "t.toml");
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_EQ(old->job.parallel.kind, strategy::ddp);
  EXPECT_EQ(old->job.precision.params, dtype::f32);
  EXPECT_NE(find_note(old->notes, "mixed_precision_param (line 2) has no effect"), "");
  auto now = import_config_text(
      "[parallelism]\ndata_parallel_shard_degree = 1\ndata_parallel_replicate_degree = 8\n",
      "t.toml");
  ASSERT_TRUE(now) << now.error().to_string();
  EXPECT_EQ(now->job.parallel.kind, strategy::ddp);
  EXPECT_EQ(now->job.precision.params, dtype::bf16);
  // Tensor parallelism without FSDP is not autocast in any release; with a shard degree of -1
  // (the rest of a world the file does not fix) FSDP is taken to be on.
  auto tp_only = import_config_text(
      "[parallelism]\ndata_parallel_shard_degree = 1\ntensor_parallel_degree = 4\n", "t.toml");
  ASSERT_TRUE(tp_only) << tp_only.error().to_string();
  EXPECT_EQ(tp_only->job.precision.params, dtype::f32);
  EXPECT_NE(find_note(tp_only->notes, "does not autocast TP or PP"), "");
  auto tp_rest = import_config_text(
      "[parallelism]\ndata_parallel_shard_degree = -1\ntensor_parallel_degree = 8\n", "t.toml");
  ASSERT_TRUE(tp_rest) << tp_rest.error().to_string();
  EXPECT_EQ(tp_rest->job.precision.params, dtype::bf16);
  // 2024's data_parallel_degree (FSDP's degree, renamed data_parallel_shard_degree) is of the
  // same era: one rank of such a file trains in fp32 too.
  auto renamed = import_config_text(
      "[training]\nmixed_precision_param = \"bfloat16\"\ndata_parallel_degree = 1\n", "t.toml");
  ASSERT_TRUE(renamed) << renamed.error().to_string();
  EXPECT_NE(find_note(renamed->notes, "mixed_precision_param (line 2) has no effect"), "");
  EXPECT_EQ(renamed->job.precision.params, dtype::f32);
  // FSDP of the same era takes the dtype.
  auto sharded = import_config_text(
      "[training]\nmixed_precision_param = \"bfloat16\"\ndata_parallel_shard_degree = 8\n",
      "t.toml");
  ASSERT_TRUE(sharded) << sharded.error().to_string();
  EXPECT_EQ(sharded->job.precision.params, dtype::bf16);
}

// Before pull/1073 (2025-04-07) torchtitan split the local batch into
// pipeline_parallel_microbatches, by default one per stage; a file of that era writes the degree
// under [experimental] (or the count itself).
TEST(ImportTorchtitan, PipelineMicrobatchCountOfOlderReleases) {
  auto legacy = import_config_text(
      "[training]\nbatch_size = 8\ndata_parallel_replicate_degree = 6\n"
      "data_parallel_shard_degree = 1\n[experimental]\npipeline_parallel_degree = 2\n",
      "t.toml");
  ASSERT_TRUE(legacy) << legacy.error().to_string();
  EXPECT_EQ(legacy->job.parallel.kind, strategy::ddp);
  EXPECT_EQ(legacy->job.training.micro_batch, 4);
  EXPECT_EQ(legacy->job.training.gradient_accumulation, 2);
  auto counted = import_config_text(
      "[training]\nbatch_size = 8\n[experimental]\npipeline_parallel_degree = 2\n"
      "pipeline_parallel_microbatches = 8\n",
      "t.toml");
  ASSERT_TRUE(counted) << counted.error().to_string();
  EXPECT_EQ(counted->job.training.micro_batch, 1);
  EXPECT_EQ(counted->job.training.gradient_accumulation, 8);
  auto uneven = import_config_text(
      "[training]\nbatch_size = 6\n[experimental]\npipeline_parallel_degree = 4\n", "t.toml");
  ASSERT_FALSE(uneven);
  EXPECT_EQ(uneven.error().line, 4) << uneven.error().to_string();
  // The [parallelism] layout of today: micro-batches of pipeline_parallel_microbatch_size 1.
  auto now = import_config_text(
      "[training]\nlocal_batch_size = 8\n[parallelism]\npipeline_parallel_degree = 2\n", "t.toml");
  ASSERT_TRUE(now) << now.error().to_string();
  EXPECT_EQ(now->job.training.micro_batch, 1);
  EXPECT_EQ(now->job.training.gradient_accumulation, 8);
}

// A key of no torchtitan release that names a model dimension is a fork resizing the model.
TEST(ImportTorchtitan, AForksShapeOptionIsRefusedAtItsLine) {
  auto fork = import_config_text(
      "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nseq_len = 4096\n"
      "vocab_size = 256\n",
      "t.toml");
  ASSERT_FALSE(fork);
  EXPECT_EQ(fork.error().line, 6) << fork.error().to_string();
  EXPECT_NE(fork.error().message.find("training.vocab_size"), std::string::npos);
  EXPECT_NE(fork.error().message.find("plan it with --set model="), std::string::npos);
}

TEST(ImportTorchtitan, ZeroBubbleSchedulesKeepTorchtitansSpellings) {
  const std::pair<const char*, pp_schedule> cases[] = {
      {"InterleavedZeroBubble", pp_schedule::interleaved_zero_bubble},
      {"ZBVZeroBubble", pp_schedule::zbv_zero_bubble},
      {"DualPipeV", pp_schedule::dualpipev},
      {"dualpipev", pp_schedule::dualpipev},
  };
  for (const auto& [name, schedule] : cases) {
    auto imported = import_config_text(
        fmt::format("[training]\nlocal_batch_size = 8\n[parallelism]\npipeline_parallel_degree = 2\n"
                    "pipeline_parallel_schedule = \"{}\"\n", name),
        "t.toml");
    ASSERT_TRUE(imported) << imported.error().to_string();
    EXPECT_EQ(imported->job.parallel.pp_sched, schedule) << name;
    EXPECT_EQ(imported->job.parallel.pp_stages_per_rank, 2) << name;  // multi-stage: 2 per rank
  }
}

TEST(ImportTorchtitan, PipelineErrorsAreLocated) {
  auto schedule = import_config_text(
      "[parallelism]\npipeline_parallel_degree = 2\npipeline_parallel_schedule = \"LoopedBFS\"\n"
      "[training]\nlocal_batch_size = 8\n",
      "t.toml");
  ASSERT_FALSE(schedule);
  EXPECT_NE(schedule.error().to_string().find("t.toml:3:1"), std::string::npos) << schedule.error().to_string();
  EXPECT_NE(schedule.error().to_string().find(
                "1f1b, gpipe, interleaved_1f1b, interleaved_zero_bubble, zbv_zero_bubble, dualpipev"),
            std::string::npos) << schedule.error().to_string();
  auto split = import_config_text(
      "[training]\nlocal_batch_size = 3\n[parallelism]\npipeline_parallel_degree = 2\n"
      "pipeline_parallel_microbatch_size = 2\n", "t.toml");
  ASSERT_FALSE(split);
  EXPECT_NE(split.error().to_string().find("t.toml:5:1: training.local_batch_size 3 is not a multiple"),
            std::string::npos) << split.error().to_string();
}

TEST(ImportTorchtitan, ContextParallelismSharesEachSequence) {
  auto imported = import_config_text(
      "[training]\nseq_len = 65536\n"
      "[parallelism]\ndata_parallel_shard_degree = 2\ncontext_parallel_degree = 4\n", "t.toml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.world_size(), 8);
  EXPECT_EQ(imported->job.parallel.cp, 4);
  EXPECT_EQ(imported->job.parallel.dp_shard, 2);
  EXPECT_EQ(find_note(imported->notes, "context_parallel"), "");
  auto ddp = import_config_text(
      "[parallelism]\ndata_parallel_shard_degree = 1\ndata_parallel_replicate_degree = 8\n", "t.toml");
  ASSERT_TRUE(ddp) << ddp.error().to_string();
  EXPECT_EQ(ddp->job.parallel.kind, strategy::ddp);
  EXPECT_EQ(ddp->job.parallel.dp_shard, 8);
  // With context parallelism torchtitan shards the weights over the context-parallel ranks even
  // at a shard degree of 1: replicas of them are HSDP, not DDP.
  auto hsdp = import_config_text(
      "[training]\nseq_len = 256\n[parallelism]\ndata_parallel_shard_degree = 1\n"
      "data_parallel_replicate_degree = 2\ncontext_parallel_degree = 2\n",
      "t.toml");
  ASSERT_TRUE(hsdp) << hsdp.error().to_string();
  EXPECT_EQ(hsdp->job.parallel.kind, strategy::fsdp2);
  EXPECT_EQ(hsdp->job.parallel.dp_replicate, 2);
  EXPECT_EQ(hsdp->job.parallel.dp_shard, 1);
  EXPECT_EQ(hsdp->job.parallel.cp, 2);
  EXPECT_EQ(hsdp->job.world_size(), 4);
}

// A [model] name that is none of torchtitan's train specs is a fork's registration, built by the
// fork's code: refused at the name, offering the preset its words match (if any) as an option.
TEST(ImportTorchtitan, AForksModelNameIsRefusedEvenWhenItsWordsMatchAPreset) {
  auto qwen2 = import_config_text("[model]\nname = \"qwen2\"\nflavor = \"7B\"\n", "t.toml");
  ASSERT_FALSE(qwen2);
  EXPECT_EQ(qwen2.error().line, 2);
  EXPECT_NE(qwen2.error().message.find("no torchtitan model"), std::string::npos)
      << qwen2.error().to_string();
  EXPECT_NE(qwen2.error().message.find("--set model=qwen2-7b if the fork builds"),
            std::string::npos)
      << qwen2.error().to_string();
  auto own = import_config_text("[model]\nname = \"blendcorpus\"\nflavor = \"X-7B\"\n", "t.toml");
  ASSERT_FALSE(own);
  EXPECT_EQ(own.error().message.find("if the fork builds"), std::string::npos)
      << own.error().to_string();
  // The same words beside a tokenizer of that model: the fork builds the published shapes.
  auto named = import_config_text(
      "[model]\nname = \"llama3.2\"\nflavor = \"1b\"\n"
      "tokenizer_path = \"./assets/tokenizer/Llama-3.2-1B\"\n",
      "t.toml");
  ASSERT_TRUE(named) << named.error().to_string();
  EXPECT_EQ(named->job.model, "llama-3.2-1b");
  EXPECT_NE(find_note(named->notes, "because model.tokenizer_path (line 4) names that model"), "");
  auto upstream = import_config_text("[model]\nname = \"llama3\"\nflavor = \"8B\"\n", "t.toml");
  ASSERT_TRUE(upstream) << upstream.error().to_string();
}

TEST(ImportTorchtitan, ExpertParallelismBorrowsDataParallelRanks) {
  auto imported = import_config_text(
      "[model]\nname = \"qwen3\"\n"
      "[parallelism]\ndata_parallel_shard_degree = 8\nexpert_parallel_degree = 4\n", "t.toml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.world_size(), 8);
  EXPECT_EQ(imported->job.parallel.ep, 4);
  EXPECT_EQ(find_note(imported->notes, "expert_parallel"), "");
  auto uneven = import_config_text(
      "[parallelism]\ndata_parallel_shard_degree = 8\nexpert_parallel_degree = 3\n", "t.toml");
  ASSERT_FALSE(uneven);
  EXPECT_NE(uneven.error().to_string().find("t.toml:3:1: parallel.ep: 3 must divide dp_shard 8"),
            std::string::npos) << uneven.error().to_string();
}

TEST(ImportTorchtitan, ReadsTheOlderLayoutOfParallelDegrees) {
  auto imported = import_config_text(
      "[training]\ndata_parallel_shard_degree = 2\ntensor_parallel_degree = 2\n"
      "[experimental]\npipeline_parallel_degree = 2\n", "t.toml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.world_size(), 8);
  EXPECT_EQ(imported->job.parallel.tp, 2);
  EXPECT_EQ(imported->job.parallel.pp, 2);
  EXPECT_EQ(imported->job.parallel.dp_shard, 2);
  EXPECT_NE(find_note(imported->notes, "experimental.pipeline_parallel_degree is the older place of "
                                       "parallelism.pipeline_parallel_degree"), "");
  EXPECT_EQ(find_note(imported->notes, "unknown option"), "");
}

TEST(ImportTorchtitan, SectionsThatAreOffChangeNothing) {
  auto off = import_config_text(
      "[training]\nseq_len = 2048\n[compile]\nenable = false\ncomponents = [\"model\", \"loss\"]\n"
      "[validation]\nenable = false\nfreq = 500\n"
      "[quantize.linear.float8]\nenable_fsdp_float8_all_gather = true\n", "t.toml");
  ASSERT_TRUE(off) << off.error().to_string();
  EXPECT_EQ(find_note(off->notes, "changes memory"), "");
  EXPECT_EQ(find_note(off->notes, "unknown option"), "");
  auto on = import_config_text(
      "[model]\nconverters = [\"quantize.linear.float8\"]\n"
      "[compile]\nenable = true\ncomponents = [\"model\"]\n"
      "[quantize.linear.float8]\nenable_fsdp_float8_all_gather = true\n", "t.toml");
  ASSERT_TRUE(on) << on.error().to_string();
  EXPECT_EQ(find_note(on->notes, "compile"), "") << "torch.compile of the blocks is modelled";
  EXPECT_TRUE(on->job.training.compile);
  EXPECT_FALSE(off->job.training.compile);
  // Float8 is modelled: on, its options map instead of being reported.
  EXPECT_EQ(find_note(on->notes, "float8"), "");
  EXPECT_EQ(on->job.precision.float8, float8_recipe::tensorwise);
  EXPECT_TRUE(on->job.parallel.float8_all_gather);
  EXPECT_EQ(off->job.precision.float8, float8_recipe::none);
  EXPECT_FALSE(off->job.parallel.float8_all_gather);
}

TEST(ImportTorchtitan, CompileOfTheBlocksMapsOtherBackendsAreNotModelled) {
  auto loss_only = import_config_text(
      "[training]\nseq_len = 2048\n[compile]\nenable = true\ncomponents = [\"loss\"]\n", "t.toml");
  ASSERT_TRUE(loss_only) << loss_only.error().to_string();
  EXPECT_FALSE(loss_only->job.training.compile);
  EXPECT_TRUE(loss_only->job.training.compile_loss);
  EXPECT_EQ(find_note(loss_only->notes, "compile"), "");
  auto both = import_config_text("[training]\nseq_len = 2048\n[compile]\nenable = true\n", "t.toml");
  ASSERT_TRUE(both) << both.error().to_string();
  EXPECT_TRUE(both->job.training.compile);
  EXPECT_TRUE(both->job.training.compile_loss) << "torchtitan's default components: model and loss";
  auto older = import_config_text("[training]\ncompile = true\n", "t.toml");
  ASSERT_TRUE(older) << older.error().to_string();
  EXPECT_TRUE(older->job.training.compile);
  EXPECT_TRUE(older->job.training.compile_loss);
  EXPECT_NE(find_note(older->notes, "before that only the blocks"), "");
  auto backend = import_config_text(
      "[training]\nseq_len = 2048\n[compile]\nenable = true\nbackend = \"aot_eager\"\n", "t.toml");
  ASSERT_TRUE(backend) << backend.error().to_string();
  EXPECT_TRUE(backend->job.training.compile);
  EXPECT_NE(find_note(backend->notes, "backend aot_eager (inductor is the one modelled)"), "");
}

TEST(ImportTorchtitan, Float8ConverterMapsItsRecipeAndAllGather) {
  // torchtitan's 405B config: converters = ["float8"], options in [quantize.linear.float8].
  auto shipped = import_config_text(
      "[model]\nconverters = [\"float8\"]\n"
      "[quantize.linear.float8]\nenable_fsdp_float8_all_gather = true\n"
      "precompute_float8_dynamic_scale_for_fsdp = true\nfilter_fqns = [\"output\"]\n",
      "t.toml");
  ASSERT_TRUE(shipped) << shipped.error().to_string();
  EXPECT_EQ(shipped->job.precision.float8, float8_recipe::tensorwise);
  EXPECT_TRUE(shipped->job.parallel.float8_all_gather);
  EXPECT_EQ(find_note(shipped->notes, "float8"), "");
  EXPECT_EQ(find_note(shipped->notes, "unknown option"), "");
  // Older torchtitan: [float8] enable_float8_linear, and a rowwise recipe, which has no float8
  // all-gather (planned without it, said so).
  auto legacy = import_config_text(
      "[training]\nseq_len = 2048\n"
      "[float8]\nenable_float8_linear = true\nrecipe_name = \"rowwise\"\n"
      "enable_fsdp_float8_all_gather = true\n",
      "t.toml");
  ASSERT_TRUE(legacy) << legacy.error().to_string();
  EXPECT_EQ(legacy->job.precision.float8, float8_recipe::rowwise);
  EXPECT_FALSE(legacy->job.parallel.float8_all_gather);
  EXPECT_NE(find_note(legacy->notes, "all-gathers float8 weights for the tensorwise recipe only "
                                     "(rowwise here)"),
            "");
  auto off = import_config_text(
      "[training]\nseq_len = 2048\n[float8]\nenable_float8_linear = false\nrecipe_name = \"rowwise\"\n",
      "t.toml");
  ASSERT_TRUE(off) << off.error().to_string();
  EXPECT_EQ(off->job.precision.float8, float8_recipe::none);
  EXPECT_TRUE(off->notes.empty() || find_note(off->notes, "float8") == "");
  // Other converters are not modelled, nor unknown float8 options.
  auto mx = import_config_text(
      "[model]\nconverters = [\"float8\", \"quantize.grouped_mm.float8\"]\n"
      "[quantize.grouped_mm.float8]\nfqns = [\"experts\"]\n"
      "[quantize.linear.float8]\nnew_knob = 1\n",
      "t.toml");
  ASSERT_TRUE(mx) << mx.error().to_string();
  EXPECT_NE(find_note(mx->notes, "converters quantize.grouped_mm.float8 change weight"), "");
  EXPECT_NE(find_note(mx->notes, "\"quantize.grouped_mm.float8.fqns\" changes memory"), "");
  EXPECT_NE(find_note(mx->notes, "\"quantize.linear.float8.new_knob\" changes memory"), "");
  // A grouped-GEMM section whose converter is not listed changes nothing.
  auto unlisted = import_config_text(
      "[model]\nconverters = [\"float8\"]\n[quantize.grouped_mm.float8]\nfqns = [\"experts\"]\n",
      "t.toml");
  ASSERT_TRUE(unlisted) << unlisted.error().to_string();
  EXPECT_EQ(find_note(unlisted->notes, "changes memory"), "");
  auto bad = import_config_text(
      "[model]\nconverters = [\"float8\"]\n[quantize.linear.float8]\nrecipe_name = \"fp4\"\n",
      "t.toml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().to_string().substr(0, 46), "t.toml:4:1: quantize.linear.float8.recipe_name");
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
       {std::tuple{"llama3", "405B", "llama-3.1-405b"}, std::tuple{"qwen3", "32B", "qwen3-32b"},
        std::tuple{"qwen3", "0.6B", "qwen3-0.6b"}, std::tuple{"llama3", "debugmodel", "llama3-debugmodel"},
        std::tuple{"deepseek_v3", "16B", "deepseek-v3-16b"}, std::tuple{"deepseek_v3", "671B", "deepseek-v3"},
        std::tuple{"llama4", "17bx16e", "llama-4-scout"},
        std::tuple{"llama4", "17bx128e", "llama-4-maverick"}, std::tuple{"qwen3", "1.7B", "qwen3-1.7b"},
        std::tuple{"qwen3", "4B", "qwen3-4b"}, std::tuple{"qwen3", "14B", "qwen3-14b"},
        std::tuple{"qwen3", "235B-A22B", "qwen3-235b-a22b"},
        std::tuple{"llama4", "debugmodel", "llama4-debugmodel"},
        std::tuple{"deepseek_v3", "debugmodel", "deepseek-v3-debugmodel"},
        std::tuple{"qwen3", "debugmodel", "qwen3-debugmodel"},
        std::tuple{"qwen3", "debugmodel_moe", "qwen3-debugmodel-moe"}}) {
    auto imported = import_config_text(
        fmt::format("[model]\nname = \"{}\"\nflavor = \"{}\"\n", name, flavor), "t.toml");
    ASSERT_TRUE(imported) << imported.error().to_string();
    EXPECT_EQ(imported->job.model, preset);
    EXPECT_TRUE(model::load_model(imported->job.model)) << preset;
  }
}

TEST(ImportTorchtitan, FlavorsNamedExactlyAreNotNoted) {
  auto imported = import_config_text("[model]\nname = \"deepseek_v3\"\nflavor = \"16B\"\n", "t.toml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(find_note(imported->notes, "check it against"), "");
}

// An irope flavor is its base flavor's parameters, with the attention said in a note.
TEST(ImportTorchtitan, IropeFlavorsArePlannedAsTheirBaseWithTheAttentionNoted) {
  auto imported =
      import_config_text("[model]\nname = \"llama4\"\nflavor = \"17bx128e_irope\"\n", "t.toml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.model, "llama-4-maverick");
  EXPECT_NE(find_note(imported->notes, "flavor 17bx128e_irope is flavor 17bx128e's shapes with "
                                       "chunked FlexAttention"),
            "");
}

TEST(ImportTorchtitan, ExpertTensorParallelismActsOnlyBesideExpertParallelism) {
  // JobConfig: "1 means disabled. No effect for non-MoE models, or when ep = 1".
  for (const char* degrees : {"expert_parallel_degree = 8\nexpert_tensor_parallel_degree = 1\n",
                              "tensor_parallel_degree = 8\nexpert_tensor_parallel_degree = 8\n"}) {
    auto imported = import_config_text(std::string("[parallelism]\n") + degrees, "t.toml");
    ASSERT_TRUE(imported) << imported.error().to_string();
    EXPECT_EQ(find_note(imported->notes, "expert_tensor_parallel_degree"), "") << degrees;
  }
  // = tp: the experts split over the tensor-parallel ranks, ep taken from dp_shard x cp.
  auto both = import_config_text("[parallelism]\ntensor_parallel_degree = 2\n"
                                 "expert_parallel_degree = 4\nexpert_tensor_parallel_degree = 2\n",
                                 "t.toml");
  ASSERT_TRUE(both) << both.error().to_string();
  EXPECT_EQ(find_note(both->notes, "expert_tensor_parallel_degree"), "");
  EXPECT_EQ(both->job.parallel.etp, 2);
  // 1 beside tp > 1: EP takes the tp ranks too, each expert whole: ep 8 over dp_shard 2 x tp 4.
  auto borrows = import_config_text(
      "[parallelism]\ndata_parallel_shard_degree = 2\ntensor_parallel_degree = 4\n"
      "expert_parallel_degree = 8\nexpert_tensor_parallel_degree = 1\n",
      "t.toml");
  ASSERT_TRUE(borrows) << borrows.error().to_string();
  EXPECT_EQ(borrows->job.parallel.ep, 8);
  EXPECT_EQ(borrows->job.parallel.etp, 1);
  // Not given: torchtitan's default, 1, said so.
  auto by_default = import_config_text(
      "[parallelism]\ndata_parallel_shard_degree = 2\ntensor_parallel_degree = 4\n"
      "expert_parallel_degree = 8\n",
      "t.toml");
  ASSERT_TRUE(by_default) << by_default.error().to_string();
  EXPECT_EQ(by_default->job.parallel.etp, 1);
  EXPECT_NE(find_note(by_default->notes, "torchtitan's default 1"), "");
  // At etp = tp the same ep does not fit in dp_shard x cp.
  auto too_many = import_config_text(
      "[parallelism]\ndata_parallel_shard_degree = 2\ntensor_parallel_degree = 4\n"
      "expert_parallel_degree = 8\nexpert_tensor_parallel_degree = 4\n",
      "t.toml");
  ASSERT_FALSE(too_many);
  EXPECT_NE(too_many.error().message.find("parallel.ep: 8 must divide dp_shard 2 x cp 1 = 2"),
            std::string::npos)
      << too_many.error().to_string();
  // Neither 1 nor tp: torchtitan's ParallelDims refuses it.
  auto other = import_config_text("[parallelism]\ntensor_parallel_degree = 4\n"
                                  "expert_parallel_degree = 2\nexpert_tensor_parallel_degree = 2\n",
                                  "t.toml");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("only 1 or the tensor-parallel degree"), std::string::npos)
      << other.error().to_string();
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

// 2024's layout: one data-parallel degree and the fp8_linear switch under [training];
// [hf_transformers] model names the checkpoint the transformers backend builds; a flavor can be
// a Hugging Face id.
TEST(ImportTorchtitan, ReadsOlderKeysAndHubIdsOfTheModel) {
  auto old = import_config_text(
      "[model]\nname = \"llama2\"\nflavor = \"7B\"\n[training]\nbatch_size = 8\n"
      "seq_len = 2048\ndata_parallel_degree = -1\ntensor_parallel_degree = 1\n"
      "fp8_linear = \"\"\n",
      "t.toml");
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_EQ(old->job.model, "llama-2-7b");
  EXPECT_EQ(old->job.precision.float8, float8_recipe::none);
  EXPECT_EQ(find_note(old->notes, "unknown option"), "");
  auto hf = import_config_text(
      "[model]\nname = \"transformers_modeling_backend\"\nflavor = \"full\"\n"
      "[hf_transformers]\nmodel = \"Qwen/Qwen3-4B-Instruct-2507\"\n",
      "t.toml");
  ASSERT_TRUE(hf) << hf.error().to_string();
  EXPECT_EQ(hf->job.model, "qwen3-4b");
  auto v2 = import_config_text(
      "[model]\nname = \"deepseek_v2\"\nflavor = \"deepseek-ai/DeepSeek-V2-Lite\"\n", "t.toml");
  ASSERT_TRUE(v2) << v2.error().to_string();
  EXPECT_EQ(v2->job.model, "deepseek-v3-16b");  // torchtitan's 16B flavor has its shapes
  auto none = import_config_text("[model]\nname = \"gpt_oss\"\nflavor = \"20b\"\n", "t.toml");
  ASSERT_TRUE(none) << none.error().to_string();
  EXPECT_EQ(none->job.model, "gpt_oss 20b");  // no preset: plan refuses it at line 2
  EXPECT_EQ(none->job.provenance.set_at.at("model").line, 2);
}

// Before April 2024's "llama2" / "llama3" names, torchtitan's one name "llama" built Llama 2's
// flavors (models/llama/__init__.py, llama_configs, to df2dcc7).
TEST(ImportTorchtitan, TheName2024LlamaIsLlama2) {
  for (const auto& [flavor, preset] : {std::pair{"7B", "llama-2-7b"}, std::pair{"13B", "llama-2-13b"},
                                       std::pair{"70B", "llama-2-70b"}}) {
    auto imported = import_config_text(
        fmt::format("[model]\nname = \"llama\"\nflavor = \"{}\"\n", flavor), "t.toml");
    ASSERT_TRUE(imported) << imported.error().to_string();
    EXPECT_EQ(imported->job.model, preset);
  }
  // Flavors with no preset (debugmodel: 2 layers of 256, 271M, 1B, 40B) stay as written, for
  // plan to refuse at the model's line.
  auto debug = import_config_text("[model]\nname = \"llama\"\nflavor = \"debugmodel\"\n",
                                  "t.toml");
  ASSERT_TRUE(debug) << debug.error().to_string();
  EXPECT_EQ(debug->job.model, "llama debugmodel");
}

TEST(ImportTorchtitan, TrainingDtypeBfloat16KeepsNoFp32Copy) {
  const std::string head = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\n";
  auto bf16 = import_torchtitan(head + "dtype = \"bfloat16\"\n", "bf16.toml");
  ASSERT_TRUE(bf16) << bf16.error().to_string();
  EXPECT_EQ(bf16->job.precision.master, dtype::bf16);
  EXPECT_EQ(bf16->job.precision.params, dtype::bf16);
  auto fp32 = import_torchtitan(head + "dtype = \"float32\"\n", "fp32.toml");
  ASSERT_TRUE(fp32) << fp32.error().to_string();
  EXPECT_EQ(fp32->job.precision.master, dtype::f32);
  auto bad = import_torchtitan(head + "dtype = \"float16\"\n", "bad.toml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().to_string().find("bad.toml:5:1: training.dtype: invalid value"),
            std::string::npos) << bad.error().to_string();
}

// Async TP is applied only where tensor parallelism is on (parallelize's tp_enabled branch): with
// one tensor-parallel rank the flag is planned as off, with a note at its line, not refused.
TEST(ImportTorchtitan, AsyncTpWithoutTensorParallelismChangesNothing) {
  const std::string head = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[compile]\nenable = true\n";
  auto off = import_torchtitan(head + "[parallelism]\nenable_async_tensor_parallel = true\n", "a.toml");
  ASSERT_TRUE(off) << off.error().to_string();
  EXPECT_FALSE(off->job.parallel.async_tp);
  EXPECT_NE(find_note(off->notes, "changes nothing here").find("a.toml:7:1: "), std::string::npos);
  auto on = import_torchtitan(
      head + "[parallelism]\ntensor_parallel_degree = 2\nenable_async_tensor_parallel = true\n", "b.toml");
  ASSERT_TRUE(on) << on.error().to_string();
  EXPECT_TRUE(on->job.parallel.async_tp);
  EXPECT_EQ(find_note(on->notes, "changes nothing here"), "");
}

// Every optimizer a torchtitan release or branch builds is planned by the state its source keeps
// (Dion as AdamW's two buffers, Muon as one momentum buffer), and any other name as AdamW, noted:
// never refused as an invalid value.
TEST(ImportTorchtitan, OptimizersOfBranchesArePlannedByTheirState) {
  const std::string head = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[optimizer]\n";
  auto dion = import_torchtitan(head + "name = \"Dion\"\nrank_fraction = 0.75\n", "dion.toml");
  ASSERT_TRUE(dion) << dion.error().to_string();
  EXPECT_EQ(dion->job.optimizer.kind, optimizer_kind::adamw);
  EXPECT_NE(find_note(dion->notes, "Dion keeps a momentum buffer and a low-rank Q "
                                   "of rank_fraction (0.75)")
                .find("dion.toml:5:1: "),
            std::string::npos);
  auto muon = import_torchtitan(head + "name = \"Muon\"\nscalar_optimizer = \"lion\"\n"
                                       "embedding_optimizer = \"lion\"\n",
                                "muon.toml");
  ASSERT_TRUE(muon) << muon.error().to_string();
  EXPECT_EQ(muon->job.optimizer.kind, optimizer_kind::sgd_momentum);
  // head_optimizer left at the branch's default, AdamW: its second buffer is not planned.
  EXPECT_NE(find_note(muon->notes, "the head parameters take AdamW"), "");
  EXPECT_EQ(find_note(muon->notes, "unknown option"), "");
  auto fork = import_torchtitan(head + "name = \"SOAP\"\n", "fork.toml");
  ASSERT_TRUE(fork) << fork.error().to_string();
  EXPECT_EQ(fork->job.optimizer.kind, optimizer_kind::adamw);
  EXPECT_NE(find_note(fork->notes, "optimizer \"SOAP\" is built by no torchtitan")
                .find("fork.toml:5:1: "),
            std::string::npos);
}

// optimizer.state_dtype (a branch's) and implementation "fused_opt_states_bf16" (main's) keep
// Adam's moments in bf16; under Muon the momentum's dtype is momentum_dtype.
TEST(ImportTorchtitan, OptimizerStateDtypesOfBranchesAndMain) {
  const std::string head = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[optimizer]\n";
  auto state = import_torchtitan(head + "state_dtype = \"bfloat16\"\n", "state.toml");
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_EQ(state->job.optimizer.state, dtype::bf16);
  auto fused = import_torchtitan(head + "implementation = \"fused_opt_states_bf16\"\n", "f.toml");
  ASSERT_TRUE(fused) << fused.error().to_string();
  EXPECT_EQ(fused->job.optimizer.state, dtype::bf16);
  EXPECT_TRUE(fused->job.optimizer.fused);
  auto muon = import_torchtitan(head + "name = \"Muon\"\nmomentum_dtype = \"bfloat16\"\n"
                                       "state_dtype = \"bfloat16\"\n",
                                "m.toml");
  ASSERT_TRUE(muon) << muon.error().to_string();
  EXPECT_EQ(muon->job.optimizer.state, dtype::bf16);
  EXPECT_NE(find_note(muon->notes, "optimizer.state_dtype applies to Adam and AdamW")
                .find("m.toml:7:1: "),
            std::string::npos);
  auto plain = import_torchtitan(head + "momentum_dtype = \"bfloat16\"\n", "p.toml");
  ASSERT_TRUE(plain) << plain.error().to_string();
  EXPECT_EQ(plain->job.optimizer.state, dtype::f32);  // AdamW does not read momentum_dtype
  auto bad = import_torchtitan(head + "state_dtype = \"float8\"\n", "bad.toml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().to_string().find("bad.toml:5:1: optimizer.state_dtype: invalid value"),
            std::string::npos)
      << bad.error().to_string();
}

// A file without activation_checkpoint.mode runs torchtitan's default, selective every 2nd block
// (config_manager.py from 2024-03 to configs.py of 2026); a written selective_ac_option still
// counts, and a written mode is kept as it is.
TEST(ImportTorchtitan, NoCheckpointModeIsTorchtitansSelectiveDefault) {
  const std::string head = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n";
  auto bare = import_torchtitan(head, "bare.toml");
  ASSERT_TRUE(bare) << bare.error().to_string();
  EXPECT_EQ(bare->job.training.activation_checkpointing, checkpointing::selective);
  EXPECT_EQ(bare->job.training.checkpoint_every, 2);
  EXPECT_NE(find_note(bare->notes, "torchtitan's default \"selective\" (every 2 blocks)"), "");
  auto op = import_torchtitan(head + "[activation_checkpoint]\nselective_ac_option = \"op\"\n",
                              "op.toml");
  ASSERT_TRUE(op) << op.error().to_string();
  EXPECT_EQ(op->job.training.activation_checkpointing, checkpointing::op);
  auto none = import_torchtitan(head + "[activation_checkpoint]\nmode = \"none\"\n", "none.toml");
  ASSERT_TRUE(none) << none.error().to_string();
  EXPECT_EQ(none->job.training.activation_checkpointing, checkpointing::none);
  EXPECT_EQ(find_note(none->notes, "torchtitan's default"), "");
}

// llama3 1B / 3B came to torchtitan only after its TOML configs went: a TOML file naming them
// runs a fork's flavor, refused at the flavor's line.
TEST(ImportTorchtitan, Llama3SmallFlavorsOfATomlFileAreAForksOwn) {
  auto one = import_torchtitan("[model]\nname = \"llama3\"\nflavor = \"1B\"\n", "one.toml");
  ASSERT_FALSE(one);
  EXPECT_NE(one.error().to_string().find("one.toml:3:1: model llama3 1B: upstream torchtitan "
                                         "added llama3 1B and 3B"),
            std::string::npos) << one.error().to_string();
  auto eight = import_torchtitan("[model]\nname = \"llama3\"\nflavor = \"8B\"\n", "8.toml");
  ASSERT_TRUE(eight) << eight.error().to_string();
  EXPECT_EQ(eight->job.model, "llama-3.1-8b");
  // Beside the tokenizer of the Llama 3.2 model of its size, the fork's flavor is that model's
  // shapes (planned, noted); beside another tokenizer it stays refused.
  auto paired = import_torchtitan(
      "[model]\nname = \"llama3\"\nflavor = \"3B\"\n"
      "tokenizer_path = \"models/Llama3.2-3B-Instruct/tokenizer.model\"\n",
      "paired.toml");
  ASSERT_TRUE(paired) << paired.error().to_string();
  EXPECT_EQ(paired->job.model, "llama-3.2-3b");
  EXPECT_EQ(find_note(paired->notes, "llama3 3B: a fork's flavor").rfind("paired.toml:3:1:", 0),
            0u);
  for (const char* tokenizer :
       {"./assets/tokenizer/Llama-3.1-8B", "./assets/tokenizer/Llama-3.2-3B"}) {
    auto other = import_torchtitan(std::string("[model]\nname = \"llama3\"\nflavor = \"1B\"\n"
                                               "tokenizer_path = \"") +
                                       tokenizer + "\"\n",
                                   "other.toml");
    EXPECT_FALSE(other) << tokenizer;
  }
}

// A model name none of torchtitan's releases has (a fork's model) and no preset is refused at
// its line, before the file's other options.
TEST(ImportTorchtitan, AForksOwnModelIsRefusedAtItsName) {
  const auto fork = import_config_text(
      "[model]\nname = \"bit_byte_llama3\"\nflavor = \"debugmodel\"\n"
      "[optimizer]\nname = \"Scion\"\n",
      "fork.toml");
  ASSERT_FALSE(fork);
  EXPECT_EQ(fork.error().to_string().rfind("fork.toml:2:1: model.name bit_byte_llama3 is no "
                                           "torchtitan model",
                                           0),
            0u)
      << fork.error().to_string();
  // An experiment's model keeps its name for the plan to resolve or refuse.
  const auto experiment =
      import_config_text("[model]\nname = \"simple_fsdp.llama3\"\nflavor = \"8B\"\n", "exp.toml");
  EXPECT_TRUE(experiment) << experiment.error().to_string();
}

// A branch's flavor that is a release flavor with a dispatch suffix is that flavor's preset,
// noted (pull/2078's "30B-A3B-deepep"); a flavor no preset has is located at its own line, where
// planning refuses it, when its family has presets.
TEST(ImportTorchtitan, BranchFlavorsArePlannedOrRefusedAtTheFlavor) {
  auto deepep = import_torchtitan(
      "[model]\nname = \"qwen3\"\nflavor = \"30B-A3B-deepep\"\n[training]\n"
      "debug_moe_force_load_balance = true\n", "deepep.toml");
  ASSERT_TRUE(deepep) << deepep.error().to_string();
  EXPECT_EQ(deepep->job.model, "qwen3-30b-a3b");
  EXPECT_NE(find_note(deepep->notes, "flavor 30B-A3B-deepep is flavor 30B-A3B's "
                                     "shapes with DeepEP's all-to-all")
                .find("deepep.toml:3:1: "),
            std::string::npos);
  EXPECT_NE(find_note(deepep->notes, "\"training.debug_moe_force_load_balance\" changes memory"),
            "");
  auto lora = import_torchtitan(
      "[model]\nname = \"deepseek_v3\"\nflavor = \"671B_lora\"\n", "lora.toml");
  ASSERT_TRUE(lora) << lora.error().to_string();
  EXPECT_EQ(lora->job.model, "deepseek_v3 671B_lora");
  EXPECT_EQ(lora->job.provenance.set_at.at("model").line, 3);
  // A family with no preset at all: the name is what is missing.
  auto flux = import_torchtitan("[model]\nname = \"flux\"\nflavor = \"flux-dev\"\n", "f.toml");
  ASSERT_TRUE(flux) << flux.error().to_string();
  EXPECT_EQ(flux->job.provenance.set_at.at("model").line, 2);
}

// pull/2247's [peft] (torchtitan/config/job_config.py at 65add622, class PEFT): LoRA of
// lora_rank and lora_alpha (defaults 8 and 1.0) on the attention, and on the MLP of a dense
// model; the embedding and output trained beside the adapters are noted.
TEST(ImportTorchtitan, ThePeftSectionOfABranchIsLora) {
  const std::string moe = "[model]\nname = \"qwen3\"\nflavor = \"30B-A3B\"\n[peft]\n"
                          "enable_peft = true\nuse_lora = true\nlora_rank = 64\n"
                          "train_embeddings = true\n";
  auto imported = import_torchtitan(moe, "peft.toml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  const auto& lora = imported->job.lora;
  EXPECT_TRUE(lora.enabled);
  EXPECT_EQ(lora.rank, 64);
  EXPECT_DOUBLE_EQ(lora.alpha, 1.0);
  EXPECT_EQ(lora.targets, (std::vector<std::string>{"q_proj", "k_proj", "v_proj", "o_proj"}));
  EXPECT_NE(find_note(imported->notes, "\"peft.train_embeddings\" changes memory"), "");
  EXPECT_EQ(find_note(imported->notes, "unknown option"), "");
  auto dense = import_torchtitan(
      "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[peft]\nenable_peft = true\n"
      "use_lora = true\nlora_alpha = 16.0\n", "dense.toml");
  ASSERT_TRUE(dense) << dense.error().to_string();
  EXPECT_EQ(dense->job.lora.rank, 8);
  EXPECT_DOUBLE_EQ(dense->job.lora.alpha, 16.0);
  EXPECT_EQ(dense->job.lora.targets.size(), 7u);
  // Switched off (the branch's default), the section changes nothing.
  auto off = import_torchtitan("[model]\nname = \"llama3\"\nflavor = \"8B\"\n[peft]\n"
                               "enable_peft = false\nuse_lora = true\nlora_rank = 64\n",
                               "off.toml");
  ASSERT_TRUE(off) << off.error().to_string();
  EXPECT_FALSE(off->job.lora.enabled);
  EXPECT_NE(find_note(off->no_effect, "\"peft.lora_rank\" does not affect GPU memory"), "");
  auto bad = import_torchtitan("[peft]\nenable_peft = \"maybe\"\n", "bad.toml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().to_string().rfind("bad.toml:2:1: peft.enable_peft: ", 0), 0u)
      << bad.error().to_string();
}

// torchtitan's 2024 argparse options (torchtrain/config_manager.py from 2024-02): the
// sequence-parallel degree that became the tensor-parallel one, enable_selective_ac (every
// block checkpointed, per operator when true), the float8 switches under [training].
TEST(ImportTorchtitan, OptionsOfTheFirstReleasesAreRead) {
  auto feb = import_torchtitan(
      "[model]\nname = \"llama\"\nflavor = \"7B\"\n[training]\nsequence_parallel_degree = 2\n"
      "data_parallel_degree = 4\nenable_selective_ac = false\nwarmup_pct = 0.2\n",
      "feb.toml");
  ASSERT_TRUE(feb) << feb.error().to_string();
  EXPECT_EQ(feb->job.parallel.tp, 2);
  EXPECT_EQ(feb->job.training.activation_checkpointing, checkpointing::full);
  EXPECT_EQ(find_note(feb->notes, "unknown option"), "");
  EXPECT_EQ(find_note(feb->notes, "is not among the options"), "");
  auto jul = import_torchtitan(
      "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nenable_float8_linear = true\n"
      "enable_fsdp_float8_all_gather = true\nenable_selective_ac = true\n"
      "data_parallel_type = \"ddp\"\n", "jul.toml");
  ASSERT_TRUE(jul) << jul.error().to_string();
  EXPECT_EQ(jul->job.precision.float8, float8_recipe::tensorwise);
  EXPECT_FALSE(jul->job.parallel.float8_all_gather);  // FSDP's, and the file asks for DDP
  EXPECT_EQ(jul->job.training.activation_checkpointing, checkpointing::op);
  EXPECT_EQ(jul->job.parallel.kind, strategy::ddp);
  auto fsdp = import_torchtitan(
      "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nenable_float8_linear = true\n"
      "enable_fsdp_float8_all_gather = true\n", "fsdp.toml");
  ASSERT_TRUE(fsdp) << fsdp.error().to_string();
  EXPECT_TRUE(fsdp->job.parallel.float8_all_gather);
}

// A TOML syntax error says what would make the file plannable.
TEST(ImportTorchtitan, ASyntaxErrorSaysHowToPlanTheFile) {
  auto bad = import_torchtitan("[model\nname = 1\n", "s.toml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("toml syntax error: "), std::string::npos);
  EXPECT_NE(bad.error().message.find("; fix the file's syntax"), std::string::npos)
      << bad.error().message;
}

// A name of no torchtitan release and near none is not called unknown: it is ignored with a note
// that it may be a fork's or a newer release's option.
TEST(ImportTorchtitan, AnOptionOfNoReleaseIsNotCalledUnknown) {
  auto imported = import_torchtitan(
      "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\npack_samples = true\n",
      "fork.toml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(find_note(imported->notes, "unknown option"), "");
  EXPECT_EQ(find_note(imported->notes, "\"training.pack_samples\""),
            "fork.toml:5:1: \"training.pack_samples\" is not among the options of the torchtitan "
            "releases vramscope knows, nor near one (a fork's, a branch's or a newer release's "
            "option, or a typo); ignored, so what it does to memory is not planned\n"
            "pack_samples = true\n"
            "^ near here");
}

// The GRPO branch's [grpo] table trains a policy beside a reference one: refused at the table's
// line, saying how to plan the policy's training alone.
TEST(ImportTorchtitan, AGrpoTableIsRefusedAtItsLine) {
  auto grpo = import_config_text(
      "[model]\nname = \"llama3\"\nflavor = \"8B\"\n\n[grpo]\nsglang_tp = 1\n", "g.toml");
  ASSERT_FALSE(grpo);
  EXPECT_EQ(grpo.error().line, 5);
  EXPECT_NE(grpo.error().message.find("remove the [grpo] table"), std::string::npos)
      << grpo.error().message;
}

// A [generation] table (torchtitan's RL experiment) puts a vLLM generator on the trainer's GPUs:
// two models in one job, refused at the table's line with the share it takes.
TEST(ImportTorchtitan, AGeneratorBesideTheTrainerIsRefusedAtItsTable) {
  auto rl = import_config_text(
      "[model]\nname = \"qwen3\"\nflavor = \"0.6B\"\n\n"
      "[generation]\ndtype = \"bfloat16\"\ngpu_memory_utilization = 0.4\n",
      "rl.toml");
  ASSERT_FALSE(rl);
  EXPECT_EQ(rl.error().line, 5);
  EXPECT_NE(rl.error().message.find("gpu_memory_utilization 0.4 of each GPU, line 7"),
            std::string::npos)
      << rl.error().message;
  EXPECT_NE(rl.error().message.find("remove the [generation] table"), std::string::npos);
}

// training.batch_size by the era the file's other fields show (torchtitan pull/1238 renamed it
// local_batch_size; until pull/1644 an unknown field was dropped, since then it raises).
TEST(ImportTorchtitan, BatchSizeIsReadAsTheFilesEraReadIt) {
  // No field tells the era: the releases that had batch_size read it.
  auto old = import_config_text("[training]\nbatch_size = 2\nseq_len = 1024\n", "t.toml");
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_EQ(old->job.training.micro_batch, 2u);
  EXPECT_EQ(find_note(old->notes, "renamed"), "");
  // A field only later JobConfigs have: batch_size was dropped, local_batch_size's default used.
  auto later = import_config_text(
      "[training]\nbatch_size = 1\n[checkpoint]\nlast_save_model_only = true\n", "t.toml");
  ASSERT_TRUE(later) << later.error().to_string();
  EXPECT_EQ(later->job.training.micro_batch, 8u);
  EXPECT_NE(find_note(later->notes, "checkpoint.last_save_model_only (line 4) is of a later "
                                    "release"), "");
  EXPECT_EQ(find_note(later->notes, "unknown option"), "");
  // Beside local_batch_size, that one counts.
  auto both = import_config_text(
      "[training]\nbatch_size = 1\nlocal_batch_size = 3\n", "t.toml");
  ASSERT_TRUE(both) << both.error().to_string();
  EXPECT_EQ(both->job.training.micro_batch, 3u);
  // A field of a release that raises on unknown fields: refused at batch_size's line.
  auto strict = import_config_text("[training]\nbatch_size = 1\ndtype = \"bfloat16\"\n", "t.toml");
  ASSERT_FALSE(strict);
  EXPECT_NE(strict.error().to_string().find("t.toml:2:1: training.batch_size was renamed"),
            std::string::npos) << strict.error().to_string();
  EXPECT_NE(strict.error().message.find("write local_batch_size"), std::string::npos);
  // torchtitan's own refusal comes before a model no preset has: the run fails as written.
  auto unknown = import_config_text(
      "[model]\nname = \"llama3\"\nflavor = \"5B\"\n[training]\nbatch_size = 1\n"
      "dtype = \"bfloat16\"\n",
      "t.toml");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().to_string().rfind("t.toml:5:1: training.batch_size was renamed", 0), 0u)
      << unknown.error().to_string();
}

// Activation offload of later releases and branches: [activation_checkpoint] cpu_offload and
// [training] enable_activation_offload put the saved activations in host memory.
TEST(ImportTorchtitan, ActivationOffloadSwitchesOfLaterReleasesAreRead) {
  for (const char* text : {"[activation_checkpoint]\nmode = \"full\"\ncpu_offload = true\n",
                           "[training]\nenable_activation_offload = true\n"}) {
    auto imported = import_config_text(text, "t.toml");
    ASSERT_TRUE(imported) << imported.error().to_string();
    EXPECT_TRUE(imported->job.training.activation_offloading) << text;
    EXPECT_EQ(find_note(imported->notes, "unknown option"), "") << text;
  }
  auto off = import_config_text("[activation_checkpoint]\ncpu_offload = false\n", "t.toml");
  ASSERT_TRUE(off) << off.error().to_string();
  EXPECT_FALSE(off->job.training.activation_offloading);
  auto partial = import_config_text(
      "[training]\nseq_len = 1024\n[offloading]\nmode = \"multistream\"\noffload_ratio = 0.5\n",
      "t.toml");
  ASSERT_TRUE(partial) << partial.error().to_string();
  EXPECT_NE(find_note(partial->notes, "\"offloading.mode\" changes memory"), "");
}

// A branch's schedule name: planned under the default when every micro-batch is in flight at
// the peak whatever the order (no more of them than pipeline ranks), refused otherwise.
TEST(ImportTorchtitan, AnUnknownScheduleFallsBackOnlyWhereMemoryDoesNotDependOnIt) {
  auto few = import_config_text(
      "[training]\nbatch_size = 4\n[experimental]\npipeline_parallel_degree = 4\n"
      "pipeline_parallel_schedule = \"zb\"\n", "t.toml");
  ASSERT_TRUE(few) << few.error().to_string();
  EXPECT_EQ(few->job.parallel.pp, 4);
  EXPECT_EQ(few->job.parallel.pp_sched, pp_schedule::one_f_one_b);
  EXPECT_NE(find_note(few->notes, "\"zb\" is no torchtitan release's schedule"), "");
  auto many = import_config_text(
      "[training]\nlocal_batch_size = 16\n[parallelism]\npipeline_parallel_degree = 4\n"
      "pipeline_parallel_schedule = \"zb\"\n", "t.toml");
  ASSERT_FALSE(many);
  EXPECT_NE(many.error().to_string().find("t.toml:5:1"), std::string::npos)
      << many.error().to_string();
}

// Whether the model can be known comes first: a flavour no preset has is refused at its line
// even where a layout check would fail too.
TEST(ImportTorchtitan, AnUnknownModelIsRefusedBeforeTheLayout) {
  auto imported = import_config_text(
      "[model]\nname = \"deepseek_v3\"\nflavor = \"kimi_k2\"\n[parallelism]\n"
      "data_parallel_shard_degree = 4\nexpert_parallel_degree = 32\n", "t.toml");
  ASSERT_FALSE(imported);
  EXPECT_NE(imported.error().to_string().find("t.toml:3:1: model \"deepseek_v3 kimi_k2\""),
            std::string::npos) << imported.error().to_string();
  EXPECT_NE(imported.error().message.find("--set model=PATH/config.json"), std::string::npos);
  // A preset with the same layout still gets the layout's refusal.
  auto known = import_config_text(
      "[model]\nname = \"deepseek_v3\"\nflavor = \"671B\"\n[parallelism]\n"
      "data_parallel_shard_degree = 4\nexpert_parallel_degree = 32\n", "t.toml");
  ASSERT_FALSE(known);
  EXPECT_NE(known.error().message.find("parallel.ep"), std::string::npos)
      << known.error().to_string();
}

// Attention-variant flavors of the releases are their base flavor's tensors: planned as its
// preset, with the attention named in a note.
TEST(ImportTorchtitan, AttentionVariantFlavorsArePlannedAsTheirBaseFlavor) {
  const std::pair<const char*, const char*> cases[] = {
      {"[model]\nname = \"llama3\"\nflavor = \"8B_flex\"\n", "llama-3.1-8b"},
      {"[model]\nname = \"llama3\"\nflavor = \"8B_varlen\"\n", "llama-3.1-8b"},
      {"[model]\nname = \"llama3\"\nflavor = \"debugmodel_flex_attn\"\n", "llama3-debugmodel"},
      {"[model]\nname = \"llama4\"\nflavor = \"17bx16e_irope\"\n", "llama-4-scout"},
      {"[model]\nname = \"qwen3\"\nflavor = \"debugmodel_non_fused_qkv\"\n", "qwen3-debugmodel"}};
  for (const auto& [text, preset] : cases) {
    auto imported = import_config_text(text, "t.toml");
    ASSERT_TRUE(imported) << imported.error().to_string();
    EXPECT_EQ(imported->job.model, preset) << text;
    EXPECT_NE(find_note(imported->notes, "shapes with"), "") << text;
  }
}

// A Hugging Face id in [model] name is a fork's or branch's loader: refused at the name, saying
// where torchtitan reads an id.
TEST(ImportTorchtitan, AHubIdAsModelNameIsAForksLoader) {
  auto hub = import_torchtitan("[model]\nname = \"meta-llama/Llama-3.2-1B\"\nnum_quantizers = 4\n",
                               "hub.toml");
  ASSERT_FALSE(hub);
  EXPECT_EQ(hub.error().to_string().rfind("hub.toml:2:1: model.name meta-llama/Llama-3.2-1B is a "
                                          "Hugging Face id",
                                          0),
            0u)
      << hub.error().to_string();
  auto backend =
      import_torchtitan("[hf_transformers]\nmodel = \"meta-llama/Llama-3.2-1B\"\n", "backend.toml");
  ASSERT_TRUE(backend) << backend.error().to_string();
  EXPECT_EQ(backend->job.model, "llama-3.2-1b");
}

// torchtitan's llama2 flavors that are no published model (271M, 1B, 26B) are planned from their
// ModelArgs with Llama 2's tokenizer's vocabulary; with another tokenizer (whose size the file
// does not give) they are refused as before.
TEST(ImportTorchtitan, Llama2FlavorsOfNoPublishedModelArePlannedFromTheirShapes) {
  auto small = import_torchtitan(
      "[model]\nname = \"llama2\"\nflavor = \"271M\"\n"
      "tokenizer_path = \"./torchtitan/datasets/tokenizer/tokenizer.model\"\n",
      "small.toml");
  ASSERT_TRUE(small) << small.error().to_string();
  const auto key = [&](const std::string& k) {
    for (const auto& m : small->job.model_config)
      if (m.key == k) return m.json;
    return std::string();
  };
  EXPECT_EQ(key("hidden_size"), "1024");
  EXPECT_EQ(key("num_hidden_layers"), "16");
  EXPECT_EQ(key("num_attention_heads"), "8");
  EXPECT_EQ(key("num_key_value_heads"), "8");
  EXPECT_EQ(key("intermediate_size"), "2816");  // 2/3 of 4 x 1024, up to a multiple of 256
  EXPECT_EQ(key("vocab_size"), "32000");
  EXPECT_EQ(key("tie_word_embeddings"), "false");
  EXPECT_NE(find_note(small->notes, "torchtitan's own flavor"), "");
  auto big = import_torchtitan(
      "[model]\nname = \"llama\"\nflavor = \"26B\"\n"
      "tokenizer_path = \"tokenizer.model\"\n",
      "big.toml");
  ASSERT_TRUE(big) << big.error().to_string();
  EXPECT_EQ(big->job.model, "torchtitan llama2 26B");
  auto other = import_torchtitan(
      "[model]\nname = \"llama2\"\nflavor = \"1B\"\ntokenizer_path = "
      "\"./assets/test_tiktoken.model\"\n",
      "other.toml");
  EXPECT_TRUE(!other || other->job.model_config.empty());
  // Beside an option of no torchtitan release (a fork's code runs it) the flavor is refused.
  auto fork = import_torchtitan(
      "[model]\nname = \"llama2\"\nflavor = \"1B\"\n"
      "tokenizer_path = \"tokenizer.model\"\n[training]\ngrad_accum_steps = 8\n",
      "fork.toml");
  ASSERT_FALSE(fork);
  EXPECT_EQ(fork.error().to_string().rfind(
                "fork.toml:3:1: model llama2 1B: a flavor of torchtitan's own table", 0),
            0u)
      << fork.error().to_string();
}

// A [model] that names no model but holds keys no torchtitan release has is a fork's model, not
// torchtitan's default: refused at the first such key; a [model] of torchtitan's own keys alone
// (a tokenizer path) plans the default as torchtitan would.
TEST(ImportTorchtitan, AnUnnamedModelWithAForksKeysIsRefused) {
  auto fork = import_torchtitan(
      "[model]\nbackbone = \"dinov3_vit7b16_3D\"\nhead = \"linear\"\n[training]\nbatch_size = 1\n",
      "vit.toml");
  ASSERT_FALSE(fork);
  EXPECT_EQ(
      fork.error().to_string().rfind(
          "vit.toml:2:1: [model] names no model (no name or flavor) and holds model.backbone", 0),
      0u)
      << fork.error().to_string();
  auto plain = import_torchtitan(
      "[model]\ntokenizer_path = \"t.model\"\n[training]\nbatch_size = 1\n", "plain.toml");
  EXPECT_TRUE(plain) << plain.error().to_string();
}

}  // namespace
}  // namespace vramscope::job
