// NCCL001: active memory far above allocated, from memory_stats or from the plan of a job whose
// collectives call record_stream, each case with its own evidence.
#include <vramscope/core/units.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "doctor/planned_job.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor {
namespace {

observe::torch_stats stats(int rank, bytes allocated, bytes active, std::optional<bytes> reserved) {
  observe::torch_stats s;
  s.rank = rank;
  s.allocated.peak = allocated;
  s.active.peak = active;
  s.reserved.peak = reserved;
  s.source = "memory_stats_rank" + std::to_string(rank) + ".json";
  return s;
}

// torchtitan Llama-3-8B on 8 x H100: 4-way tensor parallel with sequence parallel x 2-way FSDP2
// (examples/cases/4-fsdp2-tp-record-stream).
std::string tp_job(const std::string& torch, const std::string& env = "") {
  return "model: llama-3.1-8b\n"
         "hardware: { gpu: H100-80GB, gpus_per_node: 8, nodes: 1 }\n"
         "parallel: { strategy: fsdp2, dp_shard: 2, tp: 4, sequence_parallel: true }\n"
         "precision: { params: bf16, master: fp32, reduce: fp32 }\n"
         "optimizer: adamw\n"
         "training: { micro_batch: 1, seq_len: 8192, activation_checkpointing: selective, "
         "checkpoint_every: 2, loss: torchtitan }\n"
         "framework: { name: torch, version: \"" +
         torch + "\" }\n" + (env.empty() ? "" : "env: { " + env + " }\n");
}

const std::string avoid_record_streams = "TORCH_NCCL_AVOID_RECORD_STREAMS: \"1\"";

TEST(Nccl001, ActiveFarAboveAllocatedInMemoryStats) {
  observe::observation o;
  // Rank 3's gap (10 GiB) is the larger of the two.
  o.stats = {stats(0, 20_GiB, 27_GiB, 30_GiB), stats(3, 20_GiB, 30_GiB, 34_GiB)};
  doctor_input in;
  in.observed = &o;
  const auto found = rules::record_stream_inflation(in);
  ASSERT_EQ(found.size(), 1u);
  const finding& f = found[0];
  EXPECT_EQ(f.rule, "NCCL001");
  EXPECT_EQ(f.level, severity::warning);
  EXPECT_EQ(f.evidence,
            (std::vector<std::string>{"memory_stats rank 3: active peak 30.00 GiB vs "
                                      "allocated peak 20.00 GiB (reserved 34.00 GiB)"}));
  EXPECT_EQ(f.fix,
            "export TORCH_NCCL_AVOID_RECORD_STREAMS=1 (torch 2.1-2.7), or upgrade to torch >= 2.8");
  EXPECT_EQ(f.saving, static_cast<std::int64_t>(10_GiB));
  EXPECT_EQ(f.saving_basis, "observed active - allocated peak");
}

TEST(Nccl001, ActiveMustBeOneGiBAndThirtyPercentAboveAllocated) {
  const auto fires = [](bytes allocated, bytes active) {
    observe::observation o;
    o.stats = {stats(0, allocated, active, active)};
    doctor_input in;
    in.observed = &o;
    return !rules::record_stream_inflation(in).empty();
  };
  EXPECT_TRUE(fires(20_GiB, 26_GiB));           // 1.3 x
  EXPECT_FALSE(fires(20_GiB, 26_GiB - 1_MiB));  // just under 1.3 x
  EXPECT_TRUE(fires(2_GiB, 3_GiB));             // 1 GiB (1.5 x)
  EXPECT_FALSE(fires(2_GiB, 3_GiB - 1_MiB));    // just under 1 GiB
}

TEST(Nccl001, WithoutReservedAboveAllocatedNothingIsPriced) {
  observe::observation o;
  o.stats = {stats(0, 20_GiB, 30_GiB, std::nullopt)};
  doctor_input in;
  in.observed = &o;
  const auto found = rules::record_stream_inflation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_FALSE(found[0].saving);
}

TEST(Nccl001, TensorParallelJobIsPricedByTheJobWithoutRecordStream) {
  const auto job = plan_yaml(tp_job("2.6"));
  const auto fixed = plan_yaml(tp_job("2.6", avoid_record_streams));
  ASSERT_TRUE(job && fixed);
  const auto& busiest = predict::busiest_rank(job->prediction);
  ASSERT_GT(busiest.peak.active, busiest.peak.allocated + 1_GiB);

  const auto found = rules::record_stream_inflation(job->input());
  ASSERT_EQ(found.size(), 1u);
  const finding& f = found[0];
  EXPECT_EQ(f.evidence,
            (std::vector<std::string>{"plan: active " + format_bytes(busiest.peak.active) +
                                      " vs allocated " + format_bytes(busiest.peak.allocated)}));
  EXPECT_EQ(f.saving, job->busiest_device() - fixed->busiest_device());
  EXPECT_GT(*f.saving, static_cast<std::int64_t>(10_GiB));
  EXPECT_EQ(f.saving_basis, "re-planned with env.TORCH_NCCL_AVOID_RECORD_STREAMS=1");
}

TEST(Nccl001, SilentOnTheJobWithoutRecordStream) {
  // The environment variable set, or torch 2.8, which no longer calls record_stream.
  for (const auto& yaml : {tp_job("2.6", avoid_record_streams), tp_job("2.8")}) {
    const auto job = plan_yaml(yaml);
    ASSERT_TRUE(job);
    EXPECT_TRUE(rules::record_stream_inflation(job->input()).empty()) << yaml;
  }
  EXPECT_TRUE(rules::record_stream_inflation(doctor_input{}).empty());
}

// FSDP1's plan shows active above allocated for reasons of its own (the flat parameters' buffers),
// and planning without record_stream changes nothing: the plan alone is no evidence.
TEST(Nccl001, SilentWhenTheJobWithoutRecordStreamIsTheSame) {
  // examples/cases/2-fsdp1-meta-init/job-fixed.yaml
  const std::string fsdp1 =
      "model: llama-3.1-8b\n"
      "hardware: { gpu: H100-80GB, gpus_per_node: 8, nodes: 1 }\n"
      "parallel: { strategy: fsdp1, sync_module_states: true, device_id: true }\n"
      "precision: { params: bf16, master: fp32, reduce: fp32 }\n"
      "optimizer: adamw\n"
      "training: { micro_batch: 4, seq_len: 2048, activation_checkpointing: full, "
      "liger_kernels: true, loss: liger_fused }\n"
      "init: { meta_device: true, load: rank0 }\n"
      "framework: { name: torch, version: \"2.4\", transformers: \"4.44\" }\n";
  const auto job = plan_yaml(fsdp1);
  const auto without = plan_yaml(fsdp1 + "env: { " + avoid_record_streams + " }\n");
  ASSERT_TRUE(job && without);
  const auto& peak = predict::busiest_rank(job->prediction).peak;
  EXPECT_GT(peak.active, peak.allocated + 1_GiB) << "the gap the rule used to fire on";
  EXPECT_EQ(job->busiest_device(), without->busiest_device());
  EXPECT_TRUE(rules::record_stream_inflation(job->input()).empty());
}

TEST(Nccl001, OnTorch28TheStatsPointElsewhere) {
  const auto job = plan_yaml(tp_job("2.8"));
  ASSERT_TRUE(job);
  observe::observation o;
  o.stats = {stats(0, 20_GiB, 30_GiB, 34_GiB)};
  const auto found = rules::record_stream_inflation(job->input(&o));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence.front(),
            "memory_stats rank 0: active peak 30.00 GiB vs allocated peak 20.00 GiB (reserved "
            "34.00 GiB)");
  EXPECT_EQ(found[0].fix,
            "torch >= 2.8 no longer uses record_stream for these collectives; look for another "
            "cross-stream consumer (custom streams, pinned-memory copies)");
  EXPECT_FALSE(found[0].saving);
}

}  // namespace
}  // namespace vramscope::doctor
