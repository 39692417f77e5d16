// OOM002: a PyTorch out-of-memory message read together with nvidia-smi output, each case with
// its own evidence.
#include <vramscope/doctor/finding.hpp>

#include <gtest/gtest.h>

#include <algorithm>

namespace vramscope::doctor {
namespace {

observe::gpu_observation gpu(int index, bytes total, bytes used, std::string name = "NVIDIA GeForce RTX 3090") {
  observe::gpu_observation g;
  g.index = index;
  g.name = std::move(name);
  g.total = total;
  g.used = used;
  return g;
}

observe::process_observation process(int gpu_index, std::int64_t pid, std::optional<bytes> used) {
  observe::process_observation p;
  p.gpu_index = gpu_index;
  p.pid = pid;
  p.used = used;
  return p;
}

// "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.69 GiB ...
// this process has 20.00 GiB memory in use. Of the allocated memory 18.00 GiB is allocated by
// PyTorch, and 1.00 GiB is reserved by PyTorch but unallocated."
observe::oom_report torch_oom(int gpu_index) {
  observe::oom_report o;
  o.kind = observe::oom_kind::torch;
  o.line = 12;
  o.gpu = gpu_index;
  o.requested = 2 * GiB;
  o.capacity = 23 * GiB + 704 * MiB;
  o.processes.push_back({std::nullopt, 20 * GiB});
  o.allocated_by_pytorch = 18 * GiB;
  o.reserved_by_pytorch = 19 * GiB;
  o.reserved_unallocated = 1 * GiB;
  return o;
}

std::vector<finding> oom002(const observe::observation& observed) {
  doctor_input in;
  in.observed = &observed;
  auto all = diagnose(in);
  std::vector<finding> out;
  std::copy_if(all.begin(), all.end(), std::back_inserter(out), [](const finding& f) { return f.rule == "OOM002"; });
  return out;
}

TEST(Oom002, OtherProcessesHoldMoreThanTheFailedAllocation) {
  observe::observation o;
  o.gpus = {gpu(0, 24 * GiB, 23 * GiB + 512 * MiB)};
  o.processes = {process(0, 4100, 20 * GiB), process(0, 4242, 3 * GiB)};
  o.ooms = {torch_oom(0)};
  const auto found = oom002(o);
  ASSERT_EQ(found.size(), 1u);
  const finding& f = found[0];
  EXPECT_EQ(f.level, severity::warning);
  EXPECT_EQ(f.evidence, (std::vector<std::string>{
                            "line 12: tried to allocate 2.00 GiB on GPU 0 of 23.69 GiB",
                            "nvidia-smi GPU 0 (NVIDIA GeForce RTX 3090): 23.50 GiB used of 24.00 GiB",
                            "PyTorch reserved 19.00 GiB (allocated 18.00 GiB)",
                            "nvidia-smi lists 2 process(es) on GPU 0 holding 23.00 GiB; less this process's 20.00 GiB "
                            "leaves 3.00 GiB to the others"}));
  EXPECT_EQ(f.saving, static_cast<std::int64_t>(3 * GiB));
  EXPECT_NE(f.fix.find("CUDA_VISIBLE_DEVICES"), std::string::npos);
}

TEST(Oom002, TheGpuOfTheMessageIsNotInTheTable) {
  observe::observation o;
  o.gpus = {gpu(0, 24 * GiB, 1 * GiB), gpu(1, 24 * GiB, 1 * GiB)};
  o.ooms = {torch_oom(3)};
  const auto found = oom002(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].level, severity::warning);
  EXPECT_EQ(found[0].evidence.back(), "nvidia-smi lists 2 GPU(s), none with index 3");
  EXPECT_NE(found[0].cause.find("CUDA_VISIBLE_DEVICES"), std::string::npos);
}

TEST(Oom002, TheTablesGpuOfThatIndexHasAnotherSize) {
  observe::observation o;
  o.gpus = {gpu(0, 80 * GiB, 1 * GiB, "NVIDIA A100-SXM4-80GB")};
  o.ooms = {torch_oom(0)};
  const auto found = oom002(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence.back(), "nvidia-smi GPU 0 (NVIDIA A100-SXM4-80GB) has 80.00 GiB in total");
  EXPECT_NE(found[0].fix.find("pci.bus_id"), std::string::npos);
}

TEST(Oom002, ProcessesWithoutASizeAreCountedAndSaid) {
  observe::observation o;
  o.gpus = {gpu(0, 24 * GiB, 21 * GiB)};
  o.processes = {process(0, 2056, std::nullopt), process(0, 25704, std::nullopt)};  // Windows WDDM
  o.ooms = {torch_oom(0)};
  const auto found = oom002(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].level, severity::info);
  EXPECT_EQ(found[0].evidence[3],
            "nvidia-smi lists 2 process(es) on GPU 0 holding 0 B (2 not sized: N/A, as on Windows WDDM); less this "
            "process's 20.00 GiB leaves 0 B to the others");
  EXPECT_EQ(found[0].cause,
            "2.00 GiB of the GPU's use is outside PyTorch's cache: CUDA context, cuBLAS/NCCL workspaces and other "
            "processes");
}

TEST(Oom002, NamesWhetherTheTableListsTheMessagesProcesses) {
  observe::observation o;
  o.gpus = {gpu(0, 24 * GiB, 23 * GiB)};
  o.processes = {process(0, 1246069, 577 * MiB)};
  auto oom = torch_oom(0);
  oom.processes.insert(oom.processes.begin(), observe::oom_process{1246069, 577 * MiB});
  o.ooms = {oom};
  const auto found = oom002(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence.back(), "the message names process 1246069 with 577.0 MiB; nvidia-smi lists it");
}

// "CUDA error: out of memory" (no figures) beside a screen cut before its process list: neither
// says whose memory fills the GPU, so the table agrees with nothing and names no cause. With the
// process list, a GPU holding only this process reads as the job's own size.
TEST(Oom002, NamesNoCauseWhenNeitherTheMessageNorTheScreenSaysWhoseMemoryItIs) {
  observe::oom_report bare;
  bare.kind = observe::oom_kind::torch;
  bare.origin = observe::oom_origin::outside_allocator;
  bare.line = 1;
  bare.raw = "CUDA error: out of memory";
  observe::observation o;
  o.gpus = {gpu(0, 16130 * MiB, 15514 * MiB, "Tesla V100-SXM2")};
  o.ooms = {bare};
  auto found = oom002(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "");
  EXPECT_NE(found[0].fix.find("process list"), std::string::npos) << found[0].fix;
  o.process_table = true;
  o.processes = {process(0, 4100, 15000 * MiB)};
  found = oom002(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "does_not_fit");
}

TEST(Oom002, SaysNothingWithoutATableOrForXla) {
  observe::observation no_table;
  no_table.ooms = {torch_oom(0)};
  EXPECT_TRUE(oom002(no_table).empty());
  observe::observation xla;
  xla.gpus = {gpu(0, 24 * GiB, 23 * GiB)};
  xla.ooms = {torch_oom(0)};
  xla.ooms[0].kind = observe::oom_kind::xla;
  EXPECT_TRUE(oom002(xla).empty());
}

}  // namespace
}  // namespace vramscope::doctor
