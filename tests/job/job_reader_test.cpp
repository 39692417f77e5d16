#include <vramscope/job/job_reader.hpp>

#include <gtest/gtest.h>

#include <string>

namespace vramscope::job {
namespace {

job_spec parse_ok(const std::string& text, warnings* notes = nullptr) {
  auto job = parse_job_yaml(text, "job.yaml", notes);
  if (!job) ADD_FAILURE() << job.error().to_string();
  return job ? *job : job_spec{};
}

std::string parse_error(const std::string& text) {
  auto job = parse_job_yaml(text, "job.yaml");
  if (job) return "(parsed without error)";
  return job.error().to_string();
}

// ---- sections -------------------------------------------------------------------------------

TEST(JobReader, ReadsTheDesignExample) {
  const job_spec job = parse_ok(
      "model: llama-3.1-8b\n"
      "hardware: { gpu: H100-80GB, gpus_per_node: 8, nodes: 1 }\n"
      "parallel: { strategy: fsdp2, dp_shard: 2, tp: 4 }\n"
      "precision: { params: bf16, reduce: fp32, master: fp32 }\n"
      "optimizer: adamw\n"
      "training: { micro_batch: 1, seq_len: 8192, activation_checkpointing: full, attention: flash }\n"
      "lora: { rank: 16, targets: [q_proj, v_proj] }\n"
      "init: { meta_device: true, load: rank0 }\n"
      "framework: { name: torch, version: \"2.6\" }\n"
      "env: { TORCH_NCCL_AVOID_RECORD_STREAMS: \"1\", PYTORCH_CUDA_ALLOC_CONF: "
      "\"expandable_segments:True\" }\n");
  EXPECT_EQ(job.model, "llama-3.1-8b");
  EXPECT_EQ(job.hardware.capacity, 81559 * MiB);
  EXPECT_EQ(job.parallel.kind, strategy::fsdp2);
  EXPECT_EQ(job.parallel.tp, 4);
  EXPECT_EQ(job.parallel.dp_shard, 2);
  EXPECT_EQ(job.training.seq_len, 8192u);
  EXPECT_EQ(job.training.activation_checkpointing, checkpointing::full);
  EXPECT_TRUE(job.lora.enabled);
  EXPECT_EQ(job.lora.targets, (std::vector<std::string>{"q_proj", "v_proj"}));
  EXPECT_TRUE(job.init.meta_device);
  EXPECT_EQ(job.init.load, weight_load::rank0);
  EXPECT_EQ(job.env.at("PYTORCH_CUDA_ALLOC_CONF"), "expandable_segments:True");
}

TEST(JobReader, ReadsEverySectionOfTheFullSample) {
  auto job = load_job(std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/job/full.yaml");
  ASSERT_TRUE(job) << job.error().to_string();
  EXPECT_EQ(job->model, "llama-3.1-70b");
  EXPECT_EQ(job->hardware.capacity, 81920 * MiB);
  EXPECT_EQ(job->hardware.nodes, 2);
  EXPECT_EQ(job->hardware.margin, (safety_margin{0.08, 0}));
  EXPECT_EQ(margin_bytes(job->hardware),
            static_cast<bytes>(0.08 * static_cast<double>(usable_capacity(job->hardware))));
  EXPECT_EQ(job->parallel.kind, strategy::fsdp1);
  EXPECT_EQ(job->parallel.fsdp_sharding, sharding::hybrid_shard);
  EXPECT_EQ(job->parallel.backward_prefetch, prefetch::post);
  EXPECT_TRUE(job->parallel.forward_prefetch);
  EXPECT_FALSE(job->parallel.limit_all_gathers);
  EXPECT_FALSE(job->parallel.use_orig_params);
  EXPECT_TRUE(job->parallel.sync_module_states);
  EXPECT_FALSE(job->parallel.device_id);
  EXPECT_TRUE(job->parallel.cpu_offload);
  EXPECT_EQ(job->precision.reduce, dtype::bf16);
  EXPECT_EQ(job->precision.buffers, dtype::bf16);
  EXPECT_EQ(job->optimizer.state, dtype::bf16);
  EXPECT_TRUE(job->optimizer.fused);
  EXPECT_FALSE(job->optimizer.foreach_impl);
  EXPECT_EQ(job->training.micro_batch, 2u);
  EXPECT_EQ(job->training.gradient_accumulation, 8);
  EXPECT_EQ(job->training.activation_checkpointing, checkpointing::selective);
  EXPECT_EQ(job->training.checkpoint_every, 3);
  EXPECT_EQ(job->training.attention, attention_impl::efficient);
  EXPECT_EQ(job->training.loss, loss_impl::liger_fused);
  EXPECT_TRUE(job->training.liger_kernels);
  EXPECT_TRUE(job->training.padding_mask);
  EXPECT_EQ(job->training.steps, 3);
  EXPECT_EQ(job->lora.rank, 64);
  EXPECT_DOUBLE_EQ(job->lora.alpha, 128);
  EXPECT_EQ(job->lora.targets.size(), 4u);
  EXPECT_EQ(job->lora.base_quantization, dtype::nf4);
  EXPECT_EQ(job->init.map_location, "cuda");
  EXPECT_FALSE(job->init.set_device_first);
  EXPECT_EQ(job->init.early_tensors, 1536 * MiB);
  EXPECT_EQ(job->checkpoint.save, state_dict_kind::full);
  EXPECT_EQ(job->framework.version, "2.5");
  EXPECT_EQ(job->framework.cuda, "12.1");
  EXPECT_EQ(job->framework.transformers, "4.44");
  EXPECT_EQ(job->env.at("TORCH_NCCL_AVOID_RECORD_STREAMS"), "1");
  // HYBRID_SHARD: one shard group per node.
  EXPECT_EQ(job->parallel.dp_shard, 8);
  EXPECT_EQ(job->parallel.dp_replicate, 2);
}

TEST(JobReader, FillsDefaultsForAnEmptyMap) {
  const job_spec job = parse_ok("{}\n");
  const job_spec defaults;
  EXPECT_EQ(job.model, defaults.model);
  EXPECT_EQ(job.parallel.kind, strategy::fsdp2);
  EXPECT_EQ(job.parallel.dp_shard, 8);  // world 8 / (tp 1 x dp_replicate 1)
  EXPECT_EQ(job.hardware.capacity, 81559 * MiB);
  EXPECT_EQ(job.hardware.compute_capability, 90);
  EXPECT_EQ(job.training.seq_len, defaults.training.seq_len);
  EXPECT_FALSE(job.lora.enabled);
  EXPECT_TRUE(job.env.empty());
}

TEST(JobReader, AcceptsForgivingSpellings) {
  const job_spec job = parse_ok(
      "parallel: { strategy: FSDP1, fsdp_sharding: SHARD_GRAD_OP, backward_prefetch: BACKWARD_POST,"
      " reshard_after_forward: true }\n"
      "training: { attention: sdpa, activation_checkpointing: true }\n"
      "precision: { params: bfloat16, master: float32, reduce: torch.float32 }\n");
  EXPECT_EQ(job.parallel.kind, strategy::fsdp1);
  EXPECT_EQ(job.parallel.fsdp_sharding, sharding::shard_grad_op);
  EXPECT_EQ(job.parallel.backward_prefetch, prefetch::post);
  EXPECT_EQ(job.training.attention, attention_impl::flash);
  EXPECT_EQ(job.training.activation_checkpointing, checkpointing::full);
  EXPECT_EQ(job.precision.params, dtype::bf16);
}

TEST(JobReader, ReadsReshardAfterForwardAsBoolOrGroupSize) {
  EXPECT_EQ(parse_ok("parallel: { reshard_after_forward: false }\n").parallel.reshard_after_forward, 0);
  EXPECT_EQ(parse_ok("parallel: { reshard_after_forward: true }\n").parallel.reshard_after_forward, 1);
  EXPECT_EQ(parse_ok("parallel: { reshard_after_forward: 4 }\n").parallel.reshard_after_forward, 4);
}

TEST(JobReader, ReadsSizesWithUnits) {
  const job_spec job = parse_ok(
      "hardware: { gpu: my-gpu, gpu_memory: 80GiB, compute_capability: \"8.6\" }\n"
      "init: { set_device_first: false, early_tensors: 1.5GiB }\n");
  EXPECT_EQ(job.hardware.capacity, 80 * GiB);
  EXPECT_EQ(job.hardware.compute_capability, 86);
  EXPECT_EQ(job.init.early_tensors, 1536 * MiB);
}

TEST(JobReader, ReadsZeroBucketSizesInExponentForm) {
  const job_spec job = parse_ok(
      "parallel: { strategy: zero3, reduce_bucket_size: 5e8, prefetch_bucket_size: 50000000 }\n");
  EXPECT_EQ(job.parallel.reduce_bucket_size, 500'000'000u);
  EXPECT_EQ(job.parallel.prefetch_bucket_size, 50'000'000u);
}

TEST(JobReader, OptimizerIsAStringOrAMapWithName) {
  EXPECT_EQ(parse_ok("optimizer: adamw_8bit\n").optimizer.kind, optimizer_kind::adamw_8bit);
  const job_spec job = parse_ok("optimizer: { name: sgd_momentum, fused: true }\n");
  EXPECT_EQ(job.optimizer.kind, optimizer_kind::sgd_momentum);
  EXPECT_TRUE(job.optimizer.fused);
}

TEST(JobReader, LoraSectionTurnsLoraOnUnlessDisabled) {
  EXPECT_TRUE(parse_ok("lora:\n").lora.enabled);
  EXPECT_TRUE(parse_ok("lora: { rank: 8 }\n").lora.enabled);
  EXPECT_FALSE(parse_ok("lora: { enabled: false, rank: 8 }\n").lora.enabled);
  EXPECT_FALSE(parse_ok("lora: { rank: 8, enabled: false }\n").lora.enabled);
  EXPECT_FALSE(parse_ok("lora: false\n").lora.enabled);
  EXPECT_EQ(parse_ok("lora: { targets: \"q_proj, k_proj\" }\n").lora.targets,
            (std::vector<std::string>{"q_proj", "k_proj"}));
}

// ---- precision shorthands -------------------------------------------------------------------

struct shorthand_case {
  const char* text;
  dtype params, master, reduce, buffers;
  bool autocast;
};

TEST(JobReader, ExpandsPrecisionShorthands) {
  const shorthand_case cases[] = {
      {"fp32", dtype::f32, dtype::f32, dtype::f32, dtype::f32, false},
      {"bf16-true", dtype::bf16, dtype::bf16, dtype::bf16, dtype::bf16, false},
      {"fp16-true", dtype::f16, dtype::f16, dtype::f16, dtype::f16, false},
      {"bf16-mixed", dtype::bf16, dtype::f32, dtype::f32, dtype::f32, true},
      {"fp16-mixed", dtype::f16, dtype::f32, dtype::f32, dtype::f32, true},
      {"bf16-param", dtype::bf16, dtype::f32, dtype::f32, dtype::f32, false},
      {"16-mixed", dtype::f16, dtype::f32, dtype::f32, dtype::f32, true},
  };
  for (const auto& c : cases) {
    const job_spec job = parse_ok(std::string("precision: ") + c.text + "\n");
    EXPECT_EQ(job.precision.params, c.params) << c.text;
    EXPECT_EQ(job.precision.master, c.master) << c.text;
    EXPECT_EQ(job.precision.reduce, c.reduce) << c.text;
    EXPECT_EQ(job.precision.buffers, c.buffers) << c.text;
    EXPECT_EQ(job.precision.autocast, c.autocast) << c.text;
  }
}

// ---- errors, one class at a time, exact text --------------------------------------------------

TEST(JobReaderErrors, UnknownKeySuggestsTheSectionOrField) {
  EXPECT_EQ(parse_error("model: llama-3.1-8b\n"
                        "training:\n"
                        "  seq_len: 4096\n"
                        "  optimiser: adamw\n"),
            "job.yaml:4:3: unknown key \"optimiser\" in section \"training\" (did you mean "
            "\"optimizer\"?)\n"
            "  optimiser: adamw\n"
            "  ^ near here");
  EXPECT_EQ(parse_error("parallel: { strategy: fsdp2, t: 4 }\n"),
            "job.yaml:1:30: unknown key \"t\" in section \"parallel\" (did you mean \"tp\"?)\n"
            "parallel: { strategy: fsdp2, t: 4 }\n"
            "                             ^ near here");
  EXPECT_EQ(parse_error("hardware:\n  tp: 4\n"),
            "job.yaml:2:3: unknown key \"tp\" in section \"hardware\" (did you mean "
            "\"parallel.tp\"?)\n"
            "  tp: 4\n"
            "  ^ near here");
  EXPECT_EQ(parse_error("training:\n  zzzz: 1\n"),
            "job.yaml:2:3: unknown key \"zzzz\" in section \"training\"\n"
            "  zzzz: 1\n"
            "  ^ near here");
}

TEST(JobReaderErrors, UnknownSectionSuggestsASection) {
  EXPECT_EQ(parse_error("hardwre:\n  gpu: A100-80GB\n"),
            "job.yaml:1:1: unknown section \"hardwre\" (did you mean \"hardware\"?)\n"
            "hardwre:\n"
            "^ near here");
}

TEST(JobReaderErrors, InvalidEnumListsAllowedValues) {
  EXPECT_EQ(parse_error("parallel:\n  strategy: fsdp3\n"),
            "job.yaml:2:13: parallel.strategy: invalid value \"fsdp3\" (expected one of: ddp, "
            "fsdp1, fsdp2, zero1, zero2, zero3, jax, single, megatron)\n"
            "  strategy: fsdp3\n"
            "            ^ near here");
  EXPECT_EQ(parse_error("precision: { params: fp64 }\n"),
            "job.yaml:1:22: precision.params: invalid value \"fp64\" (expected one of: fp32, "
            "bf16, fp16)\n"
            "precision: { params: fp64 }\n"
            "                     ^ near here");
  EXPECT_EQ(parse_error("precision: bf16\n"),
            "job.yaml:1:12: precision: invalid value \"bf16\" (expected a map or one of: fp32, "
            "bf16-true, fp16-true, bf16-mixed, fp16-mixed, bf16-param)\n"
            "precision: bf16\n"
            "           ^ near here");
}

TEST(JobReaderErrors, AmbiguousFsdpAsksForAVersion) {
  EXPECT_EQ(parse_error("parallel: { strategy: fsdp }\n"),
            "job.yaml:1:23: parallel.strategy: \"fsdp\" is ambiguous: use fsdp1 "
            "(FullyShardedDataParallel) or fsdp2 (fully_shard)\n"
            "parallel: { strategy: fsdp }\n"
            "                      ^ near here");
}

TEST(JobReaderErrors, WrongTypeNamesTheExpectedType) {
  EXPECT_EQ(parse_error("parallel:\n  tp: four\n"),
            "job.yaml:2:7: parallel.tp: expected an integer, got \"four\"\n"
            "  tp: four\n"
            "      ^ near here");
  EXPECT_EQ(parse_error("parallel:\n  tp: [1, 2]\n"),
            "job.yaml:2:7: parallel.tp: expected an integer, got a list\n"
            "  tp: [1, 2]\n"
            "      ^ near here");
  EXPECT_EQ(parse_error("parallel:\n  sequence_parallel: maybe\n"),
            "job.yaml:2:22: parallel.sequence_parallel: expected true or false, got \"maybe\"\n"
            "  sequence_parallel: maybe\n"
            "                     ^ near here");
  EXPECT_EQ(parse_error("parallel: fsdp2\n"),
            "job.yaml:1:11: section \"parallel\": expected a map, got \"fsdp2\"\n"
            "parallel: fsdp2\n"
            "          ^ near here");
  EXPECT_EQ(parse_error("training:\n  seq_len:\n"),
            "job.yaml:2:3: training.seq_len: expected a whole number, got nothing\n"
            "  seq_len:\n"
            "  ^ near here");
  EXPECT_EQ(parse_error("init: { early_tensors: lots }\n"),
            "job.yaml:1:24: init.early_tensors: expected a size such as 80GiB or 512MiB, got "
            "\"lots\"\n"
            "init: { early_tensors: lots }\n"
            "                       ^ near here");
}

TEST(JobReaderErrors, OutOfRangeGivesTheRange) {
  EXPECT_EQ(parse_error("parallel:\n  tp: 0\n"),
            "job.yaml:2:7: parallel.tp: 0 is out of range (expected 1 to 1024)\n"
            "  tp: 0\n"
            "      ^ near here");
  EXPECT_EQ(parse_error("lora: { rank: 0 }\n"),
            "job.yaml:1:15: lora.rank: 0 is out of range (expected 1 to 65536)\n"
            "lora: { rank: 0 }\n"
            "              ^ near here");
  EXPECT_EQ(parse_error("training: { seq_len: 99999999999999999999999 }\n"),
            "job.yaml:1:22: training.seq_len: 99999999999999999999999 is out of range (expected 1 "
            "to 16777216)\n"
            "training: { seq_len: 99999999999999999999999 }\n"
            "                     ^ near here");
}

TEST(JobReaderErrors, YamlSyntaxErrorsBecomeDiagnostics) {
  EXPECT_EQ(parse_error("parallel: { tp: 4\n"),
            "job.yaml:1:18: yaml syntax error: end of map flow not found\n"
            "parallel: { tp: 4\n"
            "                 ^ near here");
  EXPECT_EQ(parse_error("model: a: b\n"),
            "job.yaml:1:9: yaml syntax error: illegal map value\n"
            "model: a: b\n"
            "        ^ near here");
  // A stray first line (a pasted command) joins the next into one text, which then fails at the
  // mapping value: pointed at the stray line, saying so.
  EXPECT_EQ(parse_error("cat job.yaml\nmodel: gpt2\n"),
            "job.yaml:1:1: yaml syntax error: line 1 is no \"key: value\" pair (a pasted command "
            "or title?), so YAML reads it and the lines after it as one text, which cannot take "
            "the mapping value at line 2 (\"mapping values are not allowed here\", as Python's "
            "yaml.safe_load says); remove it to plan the file\n"
            "cat job.yaml\n"
            "^ near here");
  // A blank line between them is a mapping error of its own, at its place.
  EXPECT_NE(parse_error("cat job.yaml\n\nmodel: gpt2\n")
                .rfind("job.yaml:1:1: yaml syntax error: line 1", 0),
            0u);
}

TEST(JobReaderErrors, RegressionMalformedFlowMapEndsQuickly) {
  // yaml-cpp's LoadAll never returns on this input (found by fuzz_job_yaml).
  EXPECT_EQ(parse_error("    \"params\": {\n  },"),
            "job.yaml:1:5: unknown section \"params\" (did you mean \"precision.params\"?)\n"
            "    \"params\": {\n"
            "    ^ near here");
}

TEST(JobReaderErrors, DuplicateKeysAreRejected) {
  EXPECT_EQ(parse_error("parallel:\n  tp: 2\n  tp: 4\n"),
            "job.yaml:3:3: duplicate key \"tp\" (first given on line 2)\n"
            "  tp: 4\n"
            "  ^ near here");
}

TEST(JobReaderErrors, RejectsEmptyAndNonMapDocuments) {
  EXPECT_EQ(parse_error(""), "job.yaml: empty job spec: expected a map of sections (model, "
                             "hardware, parallel, ...)");
  EXPECT_EQ(parse_error("- a\n- b\n"),
            "job.yaml:1:1: expected a map of sections (model, hardware, parallel, ...), got a list\n"
            "- a\n"
            "^ near here");
  EXPECT_EQ(parse_error("model: a\n---\nmodel: b\n"),
            "job.yaml:2:1: expected one YAML document\n"
            "---\n"
            "^ near here");
  EXPECT_EQ(parse_error("model: a\n...\nmodel: b\n"),
            "job.yaml:3:1: expected one YAML document\n"
            "model: b\n"
            "^ near here");
  EXPECT_EQ(parse_error("# spec\n---\nmodel: a\n...\n# end\n"), "(parsed without error)");
}

TEST(JobReaderErrors, EnvNeedsNamesAndStrings) {
  EXPECT_EQ(parse_error("env: { \"BAD NAME\": 1 }\n"),
            "job.yaml:1:8: env: \"BAD NAME\" is not a valid environment variable name\n"
            "env: { \"BAD NAME\": 1 }\n"
            "       ^ near here");
  EXPECT_EQ(parse_error("env: { FOO: [1] }\n"),
            "job.yaml:1:13: env.FOO: expected a string, got a list\n"
            "env: { FOO: [1] }\n"
            "            ^ near here");
}

TEST(JobReader, RecordsWhereEachFieldWasSet) {
  auto job = read_job_yaml("model: x\nparallel:\n  tp: 2\n", "j.yaml");
  ASSERT_TRUE(job);
  const auto& at = job->provenance.set_at.at("parallel.tp");
  EXPECT_EQ(at.source, "j.yaml");
  EXPECT_EQ(at.line, 3);
  EXPECT_EQ(at.column, 7);
  EXPECT_EQ(job->parallel.dp_shard, 0);  // not resolved yet
}

TEST(JobReader, LoadJobReportsAMissingFile) {
  auto job = load_job("/nonexistent/job.yaml");
  ASSERT_FALSE(job);
  EXPECT_NE(job.error().to_string().find("/nonexistent/job.yaml"), std::string::npos);
}

}  // namespace
}  // namespace vramscope::job
