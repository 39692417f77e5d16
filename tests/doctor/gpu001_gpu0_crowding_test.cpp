// GPU001: GPU 0 carrying other ranks' memory, from nvidia-smi's process list or from a job that
// touches cuda:0 before set_device or loads a checkpoint onto it, each case with its own evidence.
#include <vramscope/core/units.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "doctor/planned_job.hpp"
#include "doctor/likelihood.hpp"
#include "doctor/rules/rules.hpp"
#include <vramscope/observe/read_observation.hpp>

namespace vramscope::doctor {
namespace {

observe::process_observation process(int gpu, std::int64_t pid, bytes used, std::string host = "") {
  observe::process_observation p;
  p.gpu_index = gpu;
  p.pid = pid;
  p.used = used;
  p.host = std::move(host);
  return p;
}

// Ranks 100..103 on GPUs 0..3, 20 GiB each, and `extra` bytes on GPU 0 for each rank but 100.
std::vector<observe::process_observation> crowded(bytes extra, const std::string& host = "") {
  std::vector<observe::process_observation> out;
  for (int gpu = 0; gpu < 4; ++gpu) out.push_back(process(gpu, 100 + gpu, 20_GiB, host));
  for (int rank = 1; rank < 4; ++rank) out.push_back(process(0, 100 + rank, extra, host));
  return out;
}

std::vector<finding> check(const observe::observation& o) {
  doctor_input in;
  in.observed = &o;
  return rules::gpu0_crowding(in);
}

// PyTorch Lightning DDP of GPT-2 on 8 x A100 40 GB (examples/cases/5-ddp-gpu0).
std::string ddp_job(const std::string& init, int gpus = 8) {
  return "model: gpt2\n"
         "hardware: { gpu: A100-40GB, gpus_per_node: " +
         std::to_string(gpus) +
         ", nodes: 1 }\n"
         "parallel: { strategy: ddp }\n"
         "precision: { params: fp32, master: fp32, reduce: fp32 }\n"
         "optimizer: adamw\n"
         "training: { micro_batch: 12, seq_len: 1024 }\n"
         "init: { " +
         init +
         " }\n"
         "framework: { name: torch, version: \"2.4\" }\n";
}

const std::string crowding_init = "load: all_ranks, map_location: cuda, set_device_first: false";
const std::string fixed_init = "load: all_ranks, map_location: cpu, set_device_first: true";

TEST(Gpu001, OtherRanksProcessesOnGpuZero) {
  observe::observation o;
  o.processes = crowded(500_MiB);
  const auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  const finding& f = found[0];
  EXPECT_EQ(f.rule, "GPU001");
  EXPECT_EQ(f.level, severity::warning);
  // 3 x 500 MiB = 1,500 MiB.
  EXPECT_EQ(f.evidence, (std::vector<std::string>{
                            "nvidia-smi: 4 processes on GPU 0, at most 1 on any other GPU; "
                            "1.46 GiB on GPU 0 belongs to processes whose own GPU is "
                            "another"}));
  EXPECT_EQ(f.saving, static_cast<std::int64_t>(1500_MiB));
  EXPECT_EQ(f.saving_basis, "observed memory of the extra processes on GPU 0");
  EXPECT_NE(f.fix.find("map_location=\"cpu\""), std::string::npos);
}

TEST(Gpu001, HiddenPidsCountAllButGpuZerosLargestProcess) {
  // In a container nvidia-smi shows PIDs that appear nowhere else.
  observe::observation o;
  o.processes = {process(0, 7, 20_GiB), process(0, 8, 400_MiB), process(0, 9, 600_MiB),
                 process(1, 10, 20_GiB), process(2, 11, 20_GiB)};
  const auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(1000_MiB));
  EXPECT_TRUE(found[0].evidence[0].starts_with("nvidia-smi: 3 processes on GPU 0, at most 1 on"))
      << found[0].evidence[0];
}

TEST(Gpu001, NamesTheMachineWhoseGpuZeroIsWorst) {
  observe::observation o;
  o.processes = crowded(100_MiB, "node-a");
  for (auto& p : crowded(1_GiB, "node-b")) o.processes.push_back(p);
  const auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence[0],
            "nvidia-smi: 4 processes on GPU 0 of node-b, at most 1 on any other GPU; 3.00 GiB on "
            "GPU 0 belongs to processes whose own GPU is another");
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(3_GiB));
}

TEST(Gpu001, SilentWhenEveryProcessKeepsToItsGpu) {
  observe::observation one_each;
  for (int gpu = 0; gpu < 4; ++gpu) one_each.processes.push_back(process(gpu, 100 + gpu, 20_GiB));
  EXPECT_TRUE(check(one_each).empty());
  // GPU 0 of node-a and GPU 1 of node-b are different GPUs, and a pid of one machine is not a
  // pid of the other.
  observe::observation two_nodes;
  two_nodes.processes = {process(0, 100, 20_GiB, "node-a"), process(1, 101, 20_GiB, "node-a"),
                         process(1, 100, 20_GiB, "node-b")};
  EXPECT_TRUE(check(two_nodes).empty());
  // Two workloads on GPU 0, neither the size of a context: not other ranks' contexts (PROC001).
  observe::observation two_jobs;
  two_jobs.processes = {process(0, 100, 20_GiB), process(0, 101, 8_GiB)};
  EXPECT_TRUE(check(two_jobs).empty());
}

// Pasted partly: only GPU 0's rows, one workload and context-sized processes beside it; or one
// process listed on two GPUs (a context on the GPU that is not its own).
TEST(Gpu001, ContextSizedCompanionsOrOneProcessOnTwoGpus) {
  observe::observation one_gpu;
  one_gpu.processes = {process(0, 100, 20_GiB), process(0, 101, 500_MiB), process(0, 102, 500_MiB)};
  auto found = check(one_gpu);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(1000_MiB));

  observe::observation two_gpus;
  two_gpus.processes = {process(0, 100, 20_GiB), process(1, 100, 500_MiB), process(1, 101, 20_GiB)};
  found = check(two_gpus);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "gpu0_crowding");
}

// One process over four GPUs holding more on GPU 0 than on any other by less than another share
// (tests/data/threads 707, MXNet with a device kvstore): its master device, one process per GPU
// the fix. The same process with equal shares (JAX's fraction on every GPU) is no finding, nor is
// GPU 0 ahead by more than a whole share (another program's work there).
TEST(Gpu001, OneProcessOverSeveralGpusHeavierOnItsFirst) {
  observe::observation master;
  master.processes = {process(0, 21515, 20747_MiB), process(1, 21515, 17149_MiB),
                      process(2, 21515, 18221_MiB), process(3, 21515, 18385_MiB)};
  auto found = check(master);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "gpu0_crowding");
  EXPECT_DOUBLE_EQ(found[0].likelihood, likelihood::likely);
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(20747_MiB - 18385_MiB));
  EXPECT_NE(found[0].fix.find("one process per GPU"), std::string::npos) << found[0].fix;

  observe::observation even;
  even.processes = {process(0, 7, 18_GiB), process(1, 7, 18_GiB), process(2, 7, 18_GiB)};
  EXPECT_TRUE(check(even).empty());

  observe::observation far;
  far.processes = {process(0, 7, 40_GiB), process(1, 7, 10_GiB), process(2, 7, 10_GiB)};
  EXPECT_TRUE(check(far).empty());
}

// pytorch/pytorch#2409's screen: GPU 0 holding 275 MiB at 0 % utilisation while the model runs on
// GPU 2: a context and nothing running, possible only (where the work runs is not shown).
// A message on GPU 0 naming three or more processes of the same size beyond a context: the
// ranks of one data-parallel job, all on GPU 0. Sizes far apart (test workers sharing a GPU) are
// not that reading.
TEST(Gpu001, EqualProcessesInAMessageOnGpuZeroAreOneJobsRanks) {
  const auto message = [](const std::string& sizes) {
    return "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 260.00 MiB. GPU 0 has a "
           "total capacity of 79.10 GiB of which 57.06 MiB is free. " + sizes;
  };
  auto ranks = observe::parse_observation(
      message("Process 11 has 9.94 GiB memory in use. Process 12 has 9.68 GiB memory in use. "
              "Process 13 has 9.94 GiB memory in use. Process 14 has 9.90 GiB memory in use."),
      "oom.txt", {});
  ASSERT_TRUE(ranks) << ranks.error().to_string();
  auto found = check(*ranks);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].likelihood, likelihood::likely);
  // All but the largest: 9.68 + 9.94 + 9.90 GiB.
  ASSERT_TRUE(found[0].saving);
  EXPECT_NEAR(static_cast<double>(*found[0].saving), 29.52 * 1073741824.0, 0.01 * 1073741824.0);
  auto workers = observe::parse_observation(
      message("Process 11 has 3.56 GiB memory in use. Process 12 has 9.17 GiB memory in use. "
              "Process 13 has 1.00 GiB memory in use."),
      "oom.txt", {});
  ASSERT_TRUE(workers) << workers.error().to_string();
  EXPECT_TRUE(check(*workers).empty());
}

TEST(Gpu001, AnIdleContextOnGpuZeroAlone) {
  observe::observation o;
  observe::gpu_observation g;
  g.index = 0;
  g.total = 12189_MiB;
  g.used = 275_MiB;
  g.utilization_gpu = 0;
  o.gpus = {g};
  auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].likelihood, likelihood::possible);
  EXPECT_NE(found[0].fix.find("set_device"), std::string::npos);
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(275_MiB));
  // Busy, beyond a context, or on another GPU: not this reading.
  o.gpus[0].utilization_gpu = 31;
  EXPECT_TRUE(check(o).empty());
  o.gpus[0].utilization_gpu = 0;
  o.gpus[0].used = 2_GiB;
  EXPECT_TRUE(check(o).empty());
  o.gpus[0].used = 275_MiB;
  o.gpus[0].index = 1;
  EXPECT_TRUE(check(o).empty());
}

TEST(Gpu001, JobThatCrowdsGpuZeroIsPricedByTheFixedJob) {
  const auto job = plan_yaml(ddp_job(crowding_init));
  const auto fixed = plan_yaml(ddp_job(fixed_init));
  ASSERT_TRUE(job && fixed);
  const auto& gpus = job->prediction.gpus;
  ASSERT_EQ(gpus.size(), 8u);
  // GPU 0 holds, for each of the 7 other ranks, a CUDA context (500 MiB under lazy loading)
  // and the checkpoint it restored there: GPT-2's fp32 weights, to within 2 MiB.
  const bytes weights = job->model.parameters() * 4;
  const bytes per_rank = (gpus[0].device - gpus[1].device) / 7;
  EXPECT_GE(per_rank, 500_MiB + weights);
  EXPECT_LT(per_rank, 500_MiB + weights + 2_MiB);

  const auto found = rules::gpu0_crowding(job->input());
  ASSERT_EQ(found.size(), 1u);
  const finding& f = found[0];
  EXPECT_EQ(f.evidence, (std::vector<std::string>{"plan: GPU 0 " + format_bytes(gpus[0].device) +
                                                  " vs GPU 1 " + format_bytes(gpus[1].device)}));
  EXPECT_EQ(f.saving, job->busiest_device() - fixed->busiest_device());
  EXPECT_EQ(f.saving, static_cast<std::int64_t>(gpus[0].device - gpus[1].device));
  EXPECT_EQ(f.saving_basis, "re-planned with init.set_device_first=true, init.map_location=cpu");
}

TEST(Gpu001, EitherLateSetDeviceOrACheckpointOnCudaIsARisk) {
  for (const auto& init :
       {std::string("load: all_ranks, map_location: cuda, set_device_first: true"),
        std::string("load: all_ranks, map_location: cpu, set_device_first: false")}) {
    const auto job = plan_yaml(ddp_job(init));
    ASSERT_TRUE(job);
    EXPECT_EQ(rules::gpu0_crowding(job->input()).size(), 1u) << init;
  }
}

TEST(Gpu001, SilentOnTheFixedJobOrASingleGpu) {
  for (const auto& yaml : {ddp_job(fixed_init), ddp_job(crowding_init, 1)}) {
    const auto job = plan_yaml(yaml);
    ASSERT_TRUE(job);
    EXPECT_TRUE(rules::gpu0_crowding(job->input()).empty()) << yaml;
  }
}

}  // namespace
}  // namespace vramscope::doctor

namespace vramscope::doctor {
namespace {

observe::gpu_observation gpu_row(int index, bytes used) {
  observe::gpu_observation g;
  g.index = index;
  g.name = "Tesla V100-SXM2-32GB";
  g.total = 32510_MiB;
  g.used = used;
  return g;
}

TEST(Gpu001, GpuZeroAboveOtherwiseEqualRanksWithoutAProcessList) {
  observe::observation o;
  o.gpus = {gpu_row(0, 12269_MiB), gpu_row(1, 10714_MiB), gpu_row(2, 10700_MiB)};
  auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].likelihood, likelihood::likely);
  EXPECT_NE(found[0].fix.find("map_location"), std::string::npos);
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(12269_MiB - 10714_MiB));
  // Within a context of the others, or above them by more than another rank's share: not this.
  o.gpus[0].used = 10900_MiB;
  EXPECT_TRUE(check(o).empty());
  o.gpus[0].used = 22000_MiB;
  EXPECT_TRUE(check(o).empty());
  // The other GPUs unequal, or idle: no one job's ranks.
  o.gpus = {gpu_row(0, 12269_MiB), gpu_row(1, 10714_MiB), gpu_row(2, 6000_MiB)};
  EXPECT_TRUE(check(o).empty());
  o.gpus = {gpu_row(0, 12269_MiB), gpu_row(1, 5_MiB), gpu_row(2, 5_MiB)};
  EXPECT_TRUE(check(o).empty());
}

TEST(Gpu001, WorkOnGpuZeroWhileTheOtherGpusHoldOnlyContexts) {
  observe::observation o;
  o.gpus = {gpu_row(0, 30000_MiB), gpu_row(1, 834_MiB)};
  auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "gpu0_crowding");
  EXPECT_EQ(found[0].likelihood, likelihood::likely);
  EXPECT_NE(found[0].fix.find("CUDA_VISIBLE_DEVICES"), std::string::npos);
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(30000_MiB - (30000_MiB + 834_MiB) / 2));
  // The same GPUs pasted before a load: the last reading of each counts.
  o.gpus = {gpu_row(0, 1300_MiB), gpu_row(1, 1300_MiB), gpu_row(0, 30000_MiB),
            gpu_row(1, 1700_MiB)};
  EXPECT_EQ(check(o).size(), 1u);
  // The other GPU idle (no context): another job's reading (PROC001), not this one.
  o.gpus = {gpu_row(0, 30000_MiB), gpu_row(1, 5_MiB)};
  EXPECT_TRUE(check(o).empty());
  // More on the other GPU than one context per process: a workload there too.
  o.gpus = {gpu_row(0, 30000_MiB), gpu_row(1, 2049_MiB)};
  EXPECT_TRUE(check(o).empty());
  // A process list decides whose memory it is: the other readings apply.
  o.gpus = {gpu_row(0, 30000_MiB), gpu_row(1, 834_MiB)};
  observe::process_observation p;
  p.gpu_index = 0;
  p.pid = 1;
  p.used = 29000_MiB;
  o.processes = {p};
  EXPECT_TRUE(check(o).empty());
}

TEST(Gpu001, AContextCountedOnEveryGpuAtOnce) {
  observe::observation o;
  const auto count = [](std::string label, std::vector<int> per_gpu, int line) {
    observe::observation::process_count c;
    c.label = std::move(label);
    c.per_gpu = std::move(per_gpu);
    c.line = line;
    c.source = "smi.txt";
    return c;
  };
  o.process_counts = {count("before import", {5, 5, 5, 5}, 1),
                      count("after import", {6, 6, 6, 6}, 2)};
  auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].likelihood, likelihood::likely);
  EXPECT_NE(found[0].evidence[0].find("after import"), std::string::npos);
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(3 * likelihood::context_min));
  // A rise on some GPUs only, or none: a process started on its own GPU.
  o.process_counts = {count("a", {5, 5, 5, 5}, 1), count("b", {6, 5, 5, 5}, 2)};
  EXPECT_TRUE(check(o).empty());
  o.process_counts = {count("a", {5, 5}, 1), count("b", {5, 5}, 2)};
  EXPECT_TRUE(check(o).empty());
}

TEST(Gpu001, ACallOutsideTheAllocatorBesideAFullGpuZeroIsAWeakReading) {
  observe::observation o;
  o.gpus = {gpu_row(0, 32510_MiB - 900_MiB)};
  observe::oom_report r;
  r.kind = observe::oom_kind::cuda;
  r.origin = observe::oom_origin::outside_allocator;
  r.line = 2;
  o.ooms = {r};
  auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].likelihood, likelihood::weak);
  EXPECT_NE(found[0].fix.find("set_device"), std::string::npos);
  EXPECT_FALSE(found[0].against.empty());
  // GPU 0 with room for a context, or the allocator's own error: not this reading.
  o.gpus = {gpu_row(0, 32510_MiB - 2_GiB)};
  EXPECT_TRUE(check(o).empty());
  o.gpus = {gpu_row(0, 32510_MiB - 900_MiB)};
  o.ooms[0].origin = observe::oom_origin::allocator;
  EXPECT_TRUE(check(o).empty());
}

TEST(Gpu001, ARankOtherThanZeroFailingOnGpuZeroBesideOthers) {
  const std::string message =
      "[TRT-LLM] [RANK 1] [E] Error executing load_single_module: CUDA out of memory. Tried to allocate "
      "126.00 MiB. GPU 0 has a total capacity of 23.53 GiB of which 43.00 MiB is free. Process 32689 has "
      "404.00 MiB memory in use. Process 33095 has 19.44 GiB memory in use. Process 33096 has 3.63 GiB "
      "memory in use.\n";
  auto o = observe::parse_observation(message, "oom.txt", {});
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->ooms.size(), 1u);
  EXPECT_EQ(o->ooms[0].rank, 1);
  auto found = check(*o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].likelihood, likelihood::likely);
  ASSERT_TRUE(found[0].saving);
  EXPECT_NEAR(static_cast<double>(*found[0].saving), 19.44 * 1073741824.0, 1024.0);
  // Rank 0 on GPU 0 is where it belongs.
  std::string rank0 = message;
  rank0.replace(rank0.find("[RANK 1]"), 8, "[RANK 0]");
  auto own = observe::parse_observation(rank0, "oom.txt", {});
  ASSERT_TRUE(own) << own.error().to_string();
  EXPECT_TRUE(check(*own).empty());
}

// torch.nn.DataParallel's frames (or its gather warning) before a failure on GPU 0: one process
// whose master GPU holds the model state and the gathered outputs. Not on another GPU.
TEST(Gpu001, DataParallelBeforeAFailureOnGpuZero) {
  const std::string message =
      "  File \"/usr/lib/python3/site-packages/torch/nn/parallel/data_parallel.py\", line 185, in "
      "forward\n"
      "    outputs = self.parallel_apply(replicas, inputs, module_kwargs)\n"
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 108.00 MiB. GPU 0 has a total "
      "capacity of 44.35 GiB of which 61.00 MiB is free. Including non-PyTorch memory, this "
      "process has 44.28 GiB memory in use.\n";
  auto o = observe::parse_observation(message, "oom.txt", {});
  ASSERT_TRUE(o) << o.error().to_string();
  auto found = check(*o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].likelihood, likelihood::likely);
  EXPECT_NE(found[0].fix.find("DistributedDataParallel"), std::string::npos);
  std::string other = message;
  other.replace(other.find("GPU 0 has"), 9, "GPU 3 has");
  auto elsewhere = observe::parse_observation(other, "oom.txt", {});
  ASSERT_TRUE(elsewhere) << elsewhere.error().to_string();
  EXPECT_TRUE(check(*elsewhere).empty());
}

}  // namespace
}  // namespace vramscope::doctor
