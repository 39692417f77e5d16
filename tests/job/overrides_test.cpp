#include <vramscope/job/overrides.hpp>

#include <vramscope/job/job_reader.hpp>
#include <vramscope/job/job_writer.hpp>
#include <vramscope/job/resolve.hpp>

#include <gtest/gtest.h>

#include <algorithm>

namespace vramscope::job {
namespace {

job_spec resolved(const std::string& yaml = "{}\n") {
  auto job = parse_job_yaml(yaml, "job.yaml");
  EXPECT_TRUE(job) << job.error().to_string();
  return job ? *job : job_spec{};
}

std::string override_error(job_spec job, const std::string& text) {
  auto applied = apply_override(job, text);
  return applied ? "(applied without error)" : applied.error().to_string();
}

TEST(Overrides, SetsAFieldAndResolvesAgain) {
  job_spec job = resolved();
  ASSERT_EQ(job.parallel.dp_shard, 8);
  ASSERT_TRUE(apply_override(job, "parallel.tp=4"));
  EXPECT_EQ(job.parallel.tp, 4);
  EXPECT_EQ(job.parallel.dp_shard, 2);  // re-derived from the new tp
}

TEST(Overrides, DdpBucketCapIsUnsetUnlessPassed) {
  job_spec job = resolved("parallel: { strategy: ddp }\n");
  EXPECT_FALSE(job.parallel.bucket_cap_mb.has_value());  // torch's default: 1 MiB first bucket
  ASSERT_TRUE(apply_override(job, "parallel.bucket_cap_mb=25"));
  EXPECT_EQ(job.parallel.bucket_cap_mb, 25.0);
  ASSERT_TRUE(apply_override(job, "parallel.bucket_cap_mb=default"));
  EXPECT_FALSE(job.parallel.bucket_cap_mb.has_value());
  const auto bad = override_error(job, "parallel.bucket_cap_mb=0");
  EXPECT_NE(bad.find("parallel.bucket_cap_mb"), std::string::npos) << bad;
  EXPECT_NE(bad.find("or default"), std::string::npos) << bad;
  const auto fsdp = override_error(resolved(), "parallel.bucket_cap_mb=25");
  EXPECT_NE(fsdp.find("parallel.bucket_cap_mb"), std::string::npos) << fsdp;
}

TEST(Overrides, ANewGpuBringsItsOwnMemory) {
  job_spec job = resolved();
  ASSERT_TRUE(apply_override(job, "hardware.gpu=a100-40gb"));
  EXPECT_EQ(job.hardware.gpu, "A100-40GB");  // the catalog's spelling
  EXPECT_EQ(job.hardware.capacity, 40960 * MiB);
  EXPECT_EQ(job.hardware.compute_capability, 80);
  ASSERT_TRUE(apply_override(job, "hardware.gpu_memory=20GiB"));
  EXPECT_EQ(job.hardware.capacity, 20 * GiB);
  ASSERT_TRUE(apply_override(job, "hardware.gpu=L4"));
  EXPECT_EQ(job.hardware.capacity, 20 * GiB);  // given explicitly, so kept
}

TEST(Overrides, ExplicitValuesAreNotRederived) {
  job_spec job = resolved("parallel: { dp_shard: 4, tp: 2 }\n");
  auto applied = apply_override(job, "parallel.tp=1");
  ASSERT_FALSE(applied);
  EXPECT_EQ(applied.error().to_string(),
            "job.yaml:1:23: parallel.dp_shard: tp 1 x dp_replicate 1 x dp_shard 4 = 4 ranks, but "
            "the job has 8 GPUs (hardware.nodes 1 x hardware.gpus_per_node 8)\n"
            "parallel: { dp_shard: 4, tp: 2 }\n"
            "                      ^ near here");
  EXPECT_EQ(job.parallel.tp, 2);  // unchanged on failure
}

// detail::assign sets a field in place, trusting every setter to leave the job as it was
// when the value is refused: try values that some field refuses on every field.
TEST(Overrides, ARefusedValueLeavesTheJobAsItWas) {
  const job_spec start = resolved(
      "model: { model_type: llama, hidden_size: 64 }\n"
      "lora: { rank: 8 }\nenv: { A: b }\n");
  const auto before = to_json(start).dump();
  int refused = 0;
  for (const auto& path : field_paths())
    for (const char* value : {"%bad%", "-1", "", "[a, b]", "99999999999999999999", "1.5"}) {
      job_spec job = start;
      if (set_field(job, path + "=" + value)) continue;
      ++refused;
      EXPECT_EQ(to_json(job).dump(), before) << path << "=" << value;
      EXPECT_EQ(job.model_config.size(), start.model_config.size()) << path << "=" << value;
      EXPECT_EQ(job.provenance.set_at.size(), start.provenance.set_at.size()) << path;
    }
  EXPECT_GT(refused, 100);
}

TEST(Overrides, AcceptsShorthandsListsAndEnv) {
  job_spec job = resolved();
  ASSERT_TRUE(apply_overrides(job, {"precision=bf16-true", "optimizer=sgd",
                                    "lora.targets=[q_proj, k_proj]",
                                    "env.TORCH_NCCL_AVOID_RECORD_STREAMS=1",
                                    "env.PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"}));
  EXPECT_EQ(job.precision.master, dtype::bf16);
  EXPECT_EQ(job.optimizer.kind, optimizer_kind::sgd);
  EXPECT_TRUE(job.lora.enabled);  // writing a lora field turns LoRA on
  EXPECT_EQ(job.lora.targets, (std::vector<std::string>{"q_proj", "k_proj"}));
  EXPECT_EQ(job.env.at("PYTORCH_CUDA_ALLOC_CONF"), "expandable_segments:True");
}

TEST(Overrides, StrategyChangeRederivesFrameworkAndAutocast) {
  job_spec job = resolved();
  ASSERT_TRUE(apply_override(job, "parallel.strategy=jax"));
  EXPECT_EQ(job.framework.name, "jax");
  EXPECT_EQ(job.framework.jaxlib, job.framework.version);
  ASSERT_TRUE(apply_override(job, "parallel.strategy=ddp"));
  EXPECT_EQ(job.framework.name, "torch");
  EXPECT_EQ(job.framework.version, "2.6");
  EXPECT_TRUE(job.framework.jaxlib.empty());
  EXPECT_TRUE(job.precision.autocast);
}

TEST(Overrides, LoadJobAppliesOverridesBeforeResolving) {
  auto job = load_job(std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/job/full.yaml",
                      {"hardware.nodes=1", "parallel.fsdp_sharding=full_shard"});
  ASSERT_TRUE(job) << job.error().to_string();
  EXPECT_EQ(job->parallel.dp_shard, 8);
  EXPECT_EQ(job->parallel.dp_replicate, 1);
}

TEST(OverrideErrors, NeedKeyEqualsValue) {
  EXPECT_EQ(override_error(resolved(), "parallel.tp"),
            "--set: expected key=value, got \"parallel.tp\"\n"
            "parallel.tp\n"
            "^ near here");
}

TEST(OverrideErrors, UnknownKeySuggestsAField) {
  EXPECT_EQ(override_error(resolved(), "parallel.tpp=4"),
            "--set: unknown key \"parallel.tpp\" (did you mean \"parallel.tp\"?)\n"
            "parallel.tpp=4\n"
            "^ near here");
  EXPECT_EQ(override_error(resolved(), "env.BAD-NAME=1"),
            "--set: \"BAD-NAME\" is not a valid environment variable name\n"
            "env.BAD-NAME=1\n"
            "^ near here");
}

TEST(OverrideErrors, ValueErrorsPointAtTheValue) {
  EXPECT_EQ(override_error(resolved(), "parallel.tp=four"),
            "--set: parallel.tp: expected an integer, got \"four\"\n"
            "parallel.tp=four\n"
            "            ^ near here");
  EXPECT_EQ(override_error(resolved(), "training.attention=fast"),
            "--set: training.attention: invalid value \"fast\" (expected one of: flash, "
            "efficient, math, eager)\n"
            "training.attention=fast\n"
            "                   ^ near here");
}

TEST(OverrideErrors, ValidationErrorsPointAtTheOverride) {
  EXPECT_EQ(override_error(resolved(), "parallel.tp=3"),
            "--set: parallel.tp: tp 3 x dp_replicate 1 = 3 does not divide the job's 8 GPUs "
            "(hardware.nodes 1 x hardware.gpus_per_node 8)\n"
            "parallel.tp=3\n"
            "            ^ near here");
}

TEST(FieldPaths, ListsEveryFieldOnce) {
  const auto paths = field_paths();
  for (const char* p :
       {"model", "hardware.gpu", "hardware.gpu_memory", "parallel.tp",
        "parallel.reshard_after_forward", "precision", "precision.params", "optimizer",
        "optimizer.name", "training.seq_len", "lora.targets", "init.early_tensors",
        "checkpoint.save", "framework.jaxlib", "framework.litgpt", "framework.bitsandbytes"})
    EXPECT_NE(std::find(paths.begin(), paths.end(), p), paths.end()) << p;
  auto sorted = paths;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
  EXPECT_EQ(paths.size(), 122u);
}

TEST(FieldPaths, EveryFieldTakesBackTheValueTheWriterPrints) {
  auto full = load_job(std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/job/full.yaml");
  ASSERT_TRUE(full) << full.error().to_string();
  const nlohmann::json expected = to_json(*full);
  for (const auto& path : field_paths()) {
    if (path == "precision" || path == "optimizer") continue;
    const auto dot = path.find('.');
    const nlohmann::json& value =
        dot == std::string::npos ? expected[path] : expected[path.substr(0, dot)][path.substr(dot + 1)];
    std::string text = value.is_string() ? value.get<std::string>() : value.dump();
    if (value.is_array()) {
      text.clear();
      for (const auto& item : value) text += (text.empty() ? "" : ",") + item.get<std::string>();
    }
    job_spec copy = *full;
    const auto set = set_field(copy, path + "=" + text);
    ASSERT_TRUE(set) << path << ": " << set.error().to_string();
    EXPECT_EQ(to_json(copy), expected) << path << "=" << text;
  }
}

}  // namespace
}  // namespace vramscope::job
