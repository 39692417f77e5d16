// The five situations of the case studies, run as a user would: `vramscope plan` on the job
// files under examples/cases, asserting the phenomenon and its size.
#include <vramscope/cli/run.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace vramscope::cli {
namespace {

const std::string cases = std::string(VRAMSCOPE_SOURCE_DIR) + "/examples/cases/";

nlohmann::json plan_json(const std::string& job, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"plan", cases + job, "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  std::ostringstream out, err;
  const int code = run(args, out, err);
  EXPECT_LE(code, 1) << err.str();
  return code <= 1 ? nlohmann::json::parse(out.str()) : nlohmann::json{};
}

std::uint64_t at(const nlohmann::json& j, const char* a, const char* b) {
  return j.at(a).at(b).get<std::uint64_t>();
}

constexpr std::uint64_t MiB = 1024 * 1024;
constexpr std::uint64_t GiB = 1024 * MiB;

TEST(Case1JaxPreallocation, BothGpusHoldNinetyPercentWhateverFsdpDevicesSays) {
  for (const char* fsdp : {"parallel.fsdp_devices=1", "parallel.fsdp_devices=2"}) {
    const auto p = plan_json("1-jax-preallocation/job.yaml", {"--set", fsdp});
    ASSERT_EQ(p["gpus"].size(), 2u);
    const auto context = at(p["ranks"][0], "breakdown", "cuda_context");
    // XLA's pool is the fraction of the memory cuMemGetInfo reports: an A100-80GB's 81920 MiB
    // less the 869 MiB its driver reserves (the GPU catalog, nvidia-smi -q -x).
    const auto pool = static_cast<std::uint64_t>(0.9 * static_cast<double>((81920 - 869) * MiB));
    for (const auto& gpu : p["gpus"]) EXPECT_EQ(gpu["device"].get<std::uint64_t>(), pool + context);
    // The working set is far smaller than the pool, and the recommended fraction says so.
    EXPECT_LT(at(p["ranks"][0], "peak", "allocated"), pool / 2);
    EXPECT_LT(p["jax"]["recommended_fraction"].get<double>(), 0.5);
  }
}

TEST(Case1JaxPreallocation, OneVisibleGpuLeavesTheOtherEmpty) {
  const auto p = plan_json("1-jax-preallocation/job.yaml", {"--set", "env.CUDA_VISIBLE_DEVICES=0"});
  EXPECT_EQ(p["gpus"][1]["device"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(p["ranks"].size(), 1u);
}

TEST(Case2Fsdp1MetaInit, RanksPeakDifferentlyWithoutSyncAndDeviceId) {
  const auto p = plan_json("2-fsdp1-meta-init/job.yaml");
  const auto rank0 = at(p["ranks"][0], "init_peak", "allocated");
  const auto rank1 = at(p["ranks"][1], "init_peak", "allocated");
  EXPECT_GT(rank1, rank0 + 1 * GiB);
  const auto fixed = plan_json("2-fsdp1-meta-init/job-fixed.yaml");
  EXPECT_EQ(at(fixed["ranks"][0], "init_peak", "allocated"), at(fixed["ranks"][1], "init_peak", "allocated"));
}

TEST(Case2Fsdp1MetaInit, LigerLossNeedsLessThanHuggingFaceLogits) {
  const auto liger = plan_json("2-fsdp1-meta-init/job-fixed.yaml");
  const auto hf = plan_json("2-fsdp1-meta-init/job-fixed.yaml", {"--set", "training.loss=hf"});
  EXPECT_GT(at(hf["ranks"][0], "peak", "allocated"), at(liger["ranks"][0], "peak", "allocated") + 2 * GiB);
}

TEST(Case4RecordStream, ActiveFarAboveAllocatedUntilTheVariableIsSet) {
  const auto p = plan_json("4-fsdp2-tp-record-stream/job.yaml");
  const auto& r = p["ranks"][0];
  EXPECT_GT(at(r, "peak", "active"), at(r, "peak", "allocated") + 4 * GiB);
  const auto fixed = plan_json("4-fsdp2-tp-record-stream/job.yaml",
                               {"--set", "env.TORCH_NCCL_AVOID_RECORD_STREAMS=1"});
  const auto& f = fixed["ranks"][0];
  EXPECT_EQ(at(f, "peak", "active"), at(f, "peak", "allocated"));
  EXPECT_GT(at(r, "peak", "reserved"), at(f, "peak", "reserved") + 2 * GiB);
  const auto newer = plan_json("4-fsdp2-tp-record-stream/job.yaml", {"--set", "framework.version=2.8"});
  // torch 2.8 never records streams: nothing is held past its free (its FSDP2 differs in
  // other ways, so the peaks themselves need not equal the 2.6 ones).
  EXPECT_EQ(at(newer["ranks"][0], "peak", "active"), at(newer["ranks"][0], "peak", "allocated"));
}

TEST(Case5DdpGpuZero, GpuZeroCarriesEveryOtherRanksContextAndCheckpoint) {
  const auto p = plan_json("5-ddp-gpu0/job.yaml");
  const auto& gpus = p["gpus"];
  ASSERT_EQ(gpus.size(), 8u);
  EXPECT_EQ(gpus[1]["processes"].size(), 1u);
  EXPECT_GT(gpus[0]["processes"].size(), 8u);
  const auto context = at(p["ranks"][1], "breakdown", "cuda_context");
  const auto extra = gpus[0]["device"].get<std::uint64_t>() - gpus[1]["device"].get<std::uint64_t>();
  EXPECT_GE(extra, 7 * context);
  const auto fixed = plan_json("5-ddp-gpu0/job.yaml", {"--set", "init.map_location=cpu", "--set",
                                                        "init.set_device_first=true"});
  EXPECT_EQ(fixed["gpus"][0]["device"], fixed["gpus"][1]["device"]);
}

}  // namespace
}  // namespace vramscope::cli

namespace vramscope::cli {
namespace {

nlohmann::json compare_json(std::vector<std::string> args) {
  args.insert(args.begin(), {"compare", cases + "3-fsdp-options/job.yaml"});
  args.push_back("--json");
  std::ostringstream out, err;
  EXPECT_EQ(run(args, out, err), 0) << err.str();
  return nlohmann::json::parse(out.str());
}

TEST(Case3FsdpOptions, ExplicitBf16MixedPrecisionSavesNothingUnderBf16True) {
  const auto rows = compare_json({"--vary", "precision.reduce=bf16", "--vary", "precision.buffers=fp32,bf16"});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1]["delta_device"].get<std::int64_t>(), 0);
}

TEST(Case3FsdpOptions, CpuOffloadIsTheLargestSaving) {
  const auto offload = compare_json({"--vary", "parallel.cpu_offload=false,true"});
  const auto prefetch = compare_json({"--vary", "parallel.forward_prefetch=false,true"});
  const auto orig = compare_json({"--vary", "parallel.use_orig_params=true,false"});
  const std::int64_t saving = -offload[1]["delta_device"].get<std::int64_t>();
  EXPECT_GT(saving, 1LL << 30);
  EXPECT_GT(saving, -prefetch[1]["delta_device"].get<std::int64_t>());
  EXPECT_GT(saving, -orig[1]["delta_device"].get<std::int64_t>());
}

TEST(Compare, BadVaryIsBadInput) {
  std::ostringstream out, err;
  EXPECT_EQ(run({"compare", cases + "3-fsdp-options/job.yaml", "--vary", "novalue"}, out, err), 2);
  EXPECT_NE(err.str().find("expected key=value1,value2"), std::string::npos);
}

}  // namespace
}  // namespace vramscope::cli
