#include <vramscope/job/job_writer.hpp>

#include <vramscope/job/job_reader.hpp>

#include <gtest/gtest.h>

namespace vramscope::job {
namespace {

job_spec parse_ok(const std::string& text) {
  auto job = parse_job_yaml(text, "job.yaml");
  if (!job) ADD_FAILURE() << job.error().to_string();
  return job ? *job : job_spec{};
}

TEST(JobWriter, JsonHasStableKeysAndByteFigures) {
  const nlohmann::json j = to_json(parse_ok("hardware: { gpu: A100-80GB }\n"
                                            "init: { set_device_first: false, early_tensors: 1.5GiB }\n"
                                            "parallel: { reshard_after_forward: false }\n"));
  EXPECT_EQ(j["model"], "llama-3.1-8b");
  EXPECT_EQ(j["hardware"]["gpu"], "A100-80GB");
  EXPECT_EQ(j["hardware"]["gpu_memory"], 85'899'345'920u);
  EXPECT_EQ(j["hardware"]["compute_capability"], "8.0");
  EXPECT_EQ(j["parallel"]["strategy"], "fsdp2");
  EXPECT_EQ(j["parallel"]["dp_shard"], 8);
  EXPECT_EQ(j["parallel"]["reshard_after_forward"], false);
  EXPECT_EQ(j["precision"]["params"], "bf16");
  EXPECT_EQ(j["optimizer"]["name"], "adamw");
  EXPECT_EQ(j["training"]["activation_checkpointing"], "none");
  EXPECT_EQ(j["lora"]["base_quantization"], "none");
  EXPECT_EQ(j["init"]["early_tensors"], 1536 * MiB);
  EXPECT_EQ(j["checkpoint"]["save"], "none");
  EXPECT_EQ(j["framework"]["jaxlib"], "");
  EXPECT_TRUE(j["env"].is_object());
  EXPECT_FALSE(j.contains("provenance"));
  EXPECT_FALSE(j["precision"].contains("precision"));
}

TEST(JobWriter, YamlOfTheDefaultJob) {
  const std::string yaml = to_yaml(parse_ok("{}\n"));
  const std::string start =
            "model: llama-3.1-8b\n"
            "hardware:\n"
            "  gpu: H100-80GB\n"
            "  gpu_memory: 81559MiB\n"
            "  driver_reserved: 480MiB\n"
            "  margin: default\n"
            "  compute_capability: \"9.0\"\n"
            "  gpus_per_node: 8\n"
            "  nodes: 1\n"
            "parallel:\n"
            "  strategy: fsdp2\n";
  EXPECT_EQ(yaml.substr(0, start.size()), start);
  EXPECT_NE(yaml.find("\n  version: \"2.6\"\n"), std::string::npos);
  EXPECT_NE(yaml.find("\n  targets: [q_proj, v_proj]\n"), std::string::npos);
  EXPECT_EQ(yaml.substr(yaml.size() - 8), "env: {}\n");
}

TEST(JobWriter, YamlRoundTripGivesTheSameJob) {
  const char* specs[] = {
      "{}\n",
      "parallel: { strategy: ddp, bucket_cap_mb: 12.5 }\nprecision: bf16-mixed\n",
      "parallel: { strategy: zero3, offload_param: true, prefetch_bucket_size: 5e7 }\n",
      "parallel: { strategy: jax, fsdp_devices: 2 }\nenv: { XLA_PYTHON_CLIENT_MEM_FRACTION: \".9\" }\n",
      "hardware: { gpu: my-gpu, gpu_memory: 1000000000, compute_capability: sm_86 }\n"
      "lora: { rank: 8, base_quantization: nf4 }\n"
      "init: { set_device_first: false, early_tensors: 700MB }\n"
      "env: { PYTORCH_CUDA_ALLOC_CONF: \"expandable_segments:True\", ODD: \"a \\\"quoted\\\" "
      "value\", EMPTY: \"\" }\n",
  };
  for (const char* spec : specs) {
    const job_spec first = parse_ok(spec);
    const std::string yaml = to_yaml(first);
    auto second = parse_job_yaml(yaml, "written.yaml");
    ASSERT_TRUE(second) << spec << "\n" << yaml << "\n" << second.error().to_string();
    EXPECT_EQ(to_json(*second), to_json(first)) << spec;
    EXPECT_EQ(to_yaml(*second), yaml) << spec;
  }
  auto full = load_job(std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/job/full.yaml");
  ASSERT_TRUE(full);
  auto again = parse_job_yaml(to_yaml(*full), "written.yaml");
  ASSERT_TRUE(again) << again.error().to_string();
  EXPECT_EQ(to_json(*again), to_json(*full));
}

}  // namespace
}  // namespace vramscope::job
