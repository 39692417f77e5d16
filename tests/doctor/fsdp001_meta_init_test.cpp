// FSDP001: FSDP1 meta-device initialisation without sync_module_states / device_id, from the
// job spec or from rank 0's reserved peak standing apart in memory_stats, each case with its
// own evidence.
#include <vramscope/core/units.hpp>
#include <vramscope/observe/read_observation.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "doctor/likelihood.hpp"
#include "doctor/planned_job.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor {
namespace {

// Llama-3.1-8B under FSDP1 on 8 x H100: rank 0 loads the weights on the CPU, the other ranks
// build on the meta device (examples/cases/2-fsdp1-meta-init).
std::string fsdp1_job(bool sync_module_states, bool device_id, bool meta_device = true,
                      const std::string& strategy = "fsdp1") {
  return "model: llama-3.1-8b\n"
         "hardware: { gpu: H100-80GB, gpus_per_node: 8, nodes: 1 }\n"
         "parallel: { strategy: " +
         strategy +
         (strategy == "fsdp1"
              ? ", sync_module_states: " + std::string(sync_module_states ? "true" : "false") +
                    ", device_id: " + (device_id ? "true" : "false")
              : "") +
         " }\n"
         "precision: { params: bf16, master: fp32, reduce: fp32 }\n"
         "optimizer: adamw\n"
         "training: { micro_batch: 4, seq_len: 2048, activation_checkpointing: full, "
         "liger_kernels: true, loss: liger_fused }\n"
         "init: { meta_device: " +
         (meta_device ? "true" : "false") +
         ", load: rank0 }\n"
         "framework: { name: torch, version: \"2.4\", transformers: \"4.44\" }\n";
}

// memory_stats of ranks 0.. with these reserved peaks.
observe::observation reserved_peaks(const std::vector<bytes>& peaks) {
  observe::observation o;
  for (std::size_t r = 0; r < peaks.size(); ++r) {
    observe::torch_stats s;
    s.rank = static_cast<int>(r);
    s.reserved.peak = peaks[r];
    s.source = "memory_stats_rank" + std::to_string(r) + ".json";
    o.stats.push_back(std::move(s));
  }
  return o;
}

TEST(Fsdp001, MetaDeviceJobWithoutSyncOrDeviceIdIsPricedByTheFixedJob) {
  const auto job = plan_yaml(fsdp1_job(false, false));
  const auto fixed = plan_yaml(fsdp1_job(true, true));
  ASSERT_TRUE(job && fixed);
  const auto& ranks = job->prediction.ranks;
  ASSERT_GE(ranks.size(), 2u);
  // Without device_id rank 0 shards on the CPU: its init peak is its fp32 shard, 1/8 of the
  // 8,030,261,248 parameters, to within 2 MiB.
  const bytes shard = bytes{8'030'261'248} * 4 / 8;
  EXPECT_GE(ranks[0].init_allocated, shard);
  EXPECT_LT(ranks[0].init_allocated, shard + 2_MiB);

  const auto found = rules::fsdp1_meta_init(job->input());
  ASSERT_EQ(found.size(), 1u);
  const finding& f = found[0];
  EXPECT_EQ(f.rule, "FSDP001");
  EXPECT_EQ(f.level, severity::warning);
  EXPECT_EQ(f.evidence,
            (std::vector<std::string>{
                "job: init.meta_device=true, init.load=rank0, parallel.sync_module_states=false, "
                "parallel.device_id=false",
                "plan: init peak rank 0 " + format_bytes(shard) + ", rank 1 " +
                    format_bytes(ranks[1].init_allocated),
                "with the fix every rank's init peak is " +
                    format_bytes(fixed->prediction.ranks.front().init_allocated)}));
  EXPECT_EQ(f.fix,
            "FullyShardedDataParallel(..., sync_module_states=True, "
            "device_id=torch.cuda.current_device())");
  EXPECT_EQ(f.saving, job->busiest_device() - fixed->busiest_device());
  EXPECT_GT(*f.saving, 0);
  EXPECT_EQ(f.saving_basis,
            "re-planned with parallel.sync_module_states=true, parallel.device_id=true");
}

TEST(Fsdp001, EitherMissingSettingIsEnough) {
  const auto job = plan_yaml(fsdp1_job(true, false));
  ASSERT_TRUE(job);
  const auto found = rules::fsdp1_meta_init(job->input());
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence[0],
            "job: init.meta_device=true, init.load=rank0, parallel.sync_module_states=true, "
            "parallel.device_id=false");
}

TEST(Fsdp001, SilentOnTheFixedJobOrWithoutMetaDeviceRanks) {
  for (const auto& yaml : {fsdp1_job(true, true), fsdp1_job(false, false, false)}) {
    const auto job = plan_yaml(yaml);
    ASSERT_TRUE(job);
    EXPECT_TRUE(rules::fsdp1_meta_init(job->input()).empty()) << yaml;
  }
}

TEST(Fsdp001, RankZeroApartInMemoryStatsWithoutAJob) {
  // Others' median: the middle of 20, 20 and 21 GiB.
  const auto o = reserved_peaks({30_GiB, 20_GiB, 21_GiB, 20_GiB});
  doctor_input in;
  in.observed = &o;
  const auto found = rules::fsdp1_meta_init(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence,
            (std::vector<std::string>{"memory_stats: rank 0 reserved peak "
                                      "30.00 GiB, other ranks' median 20.00 GiB"}));
  EXPECT_FALSE(found[0].saving);
}

TEST(Fsdp001, RankZeroMustBeTenPercentAndOneGiBApart) {
  const auto fires = [](std::vector<bytes> peaks) {
    const auto o = reserved_peaks(peaks);
    doctor_input in;
    in.observed = &o;
    return !rules::fsdp1_meta_init(in).empty();
  };
  EXPECT_TRUE(fires({22_GiB, 20_GiB, 20_GiB}));           // 2 GiB = 10 % of 20 GiB
  EXPECT_FALSE(fires({22_GiB - 1_MiB, 20_GiB, 20_GiB}));  // just under 10 %
  EXPECT_TRUE(fires({5_GiB, 4_GiB, 4_GiB}));              // 1 GiB = 25 % of 4 GiB
  EXPECT_FALSE(fires({5_GiB - 1_MiB, 4_GiB, 4_GiB}));     // just under 1 GiB
  EXPECT_TRUE(fires({10_GiB, 20_GiB, 20_GiB}));           // below the others counts too
  EXPECT_FALSE(fires({30_GiB}));                          // no other rank
  auto no_rank0 = reserved_peaks({30_GiB, 20_GiB, 20_GiB});
  no_rank0.stats[0].rank.reset();
  doctor_input in;
  in.observed = &no_rank0;
  EXPECT_TRUE(rules::fsdp1_meta_init(in).empty());
}

TEST(Fsdp001, UnevenRanksCountOnlyForAnFsdp1Job) {
  const auto o = reserved_peaks({30_GiB, 20_GiB, 20_GiB});
  const auto fsdp1 = plan_yaml(fsdp1_job(true, true));
  ASSERT_TRUE(fsdp1);
  const auto found = rules::fsdp1_meta_init(fsdp1->input(&o));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence.front(),
            "memory_stats: rank 0 reserved peak 30.00 GiB, other ranks' median 20.00 GiB");

  const auto fsdp2 = plan_yaml(fsdp1_job(false, false, true, "fsdp2"));
  ASSERT_TRUE(fsdp2);
  EXPECT_TRUE(rules::fsdp1_meta_init(fsdp2->input(&o)).empty());
}

// An out-of-memory error raised while torch.nn.Module moves a model's tensors to the GPU: on a
// GPU other than 0 (a job of several GPUs) the whole model placed on each before sharding, as
// likely as the job's size; on GPU 0 only possible. Another innermost frame says nothing of it.
TEST(Fsdp001, AnErrorWhileTheModelMovesToAnotherGpuIsTheWholeModelOnEach) {
  const auto frames = [](int gpu, const char* function) {
    return fmt::format(
        "  File \"/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 987, "
        "in {}\n"
        "    return t.to(device, dtype if t.is_floating_point() or t.is_complex() else None, "
        "non_blocking)\n"
        "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 250.00 MiB (GPU {}; "
        "31.75 GiB total "
        "capacity; 30.95 GiB already allocated; 21.75 MiB free; 30.98 GiB reserved in total by "
        "PyTorch)\n",
        function, gpu);
  };
  const auto found = [](const std::string& text) {
    static std::optional<observe::observation> kept;
    auto o = observe::parse_observation(text, "oom.txt", {});
    EXPECT_TRUE(o) << o.error().to_string();
    kept = std::move(*o);
    doctor_input in;
    in.observed = &*kept;
    return rules::fsdp1_meta_init(in);
  };
  const auto other = found(frames(6, "convert"));
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].cause_class, "meta_init");
  EXPECT_EQ(other[0].likelihood, likelihood::likely);
  EXPECT_NE(other[0].evidence[0].find("(GPU 6) is raised in"), std::string::npos)
      << other[0].evidence[0];
  const auto first = found(frames(0, "convert"));
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].likelihood, likelihood::possible);
  EXPECT_TRUE(found(frames(6, "forward")).empty());
}

}  // namespace
}  // namespace vramscope::doctor
