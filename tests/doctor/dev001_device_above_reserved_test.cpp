// DEV001: nvidia-smi showing more on a GPU than PyTorch reserved there, the gap explained item
// by item, each case with its own evidence.
#include <vramscope/core/units.hpp>
#include <vramscope/job/job_reader.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "doctor/rules/rules.hpp"

namespace vramscope::doctor {
namespace {

observe::gpu_observation gpu(int index, bytes used, std::string host = "") {
  observe::gpu_observation g;
  g.index = index;
  g.total = 80_GiB;
  g.used = used;
  g.host = std::move(host);
  return g;
}

observe::process_observation process(int gpu_index, std::int64_t pid) {
  observe::process_observation p;
  p.gpu_index = gpu_index;
  p.pid = pid;
  p.used = 1_GiB;
  return p;
}

observe::torch_stats reserved(std::optional<int> rank, std::optional<int> device, bytes current) {
  observe::torch_stats s;
  s.rank = rank;
  s.device = device;
  s.reserved.current = current;
  s.source = "rank" + std::to_string(rank.value_or(0)) + ".json";
  return s;
}

std::vector<finding> check(const observe::observation& o, const job::job_spec* job = nullptr) {
  doctor_input in;
  in.observed = &o;
  in.job = job;
  return rules::device_above_reserved(in);
}

TEST(Dev001, GapOutsidePyTorchExplainedWithoutAJob) {
  observe::observation o;
  o.gpus = {gpu(0, 22_GiB)};
  o.processes = {process(0, 4242)};
  o.stats = {reserved(0, 0, 20_GiB)};
  const auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  const finding& f = found[0];
  EXPECT_EQ(f.rule, "DEV001");
  EXPECT_EQ(f.level, severity::info);
  // 2 GiB outside PyTorch, less one 500 MiB context (CUDA 12.4's lazy loading): 1,548 MiB.
  EXPECT_EQ(f.evidence, (std::vector<std::string>{
                            "GPU 0: nvidia-smi 22.00 GiB used, memory_stats (rank0.json) reserved "
                            "20.00 GiB: 2.00 GiB outside PyTorch",
                            "CUDA context: about 500.0 MiB per process, 1 process on this GPU",
                            "unexplained: " + format_bytes(1548_MiB)}));
  EXPECT_FALSE(f.saving);
}

TEST(Dev001, AJobAddsNcclBuffersAndPlacesRanksOnTheirGpu) {
  auto job = job::parse_job_yaml(
      "hardware: { gpu: H100-80GB, gpus_per_node: 8, nodes: 2 }\n"
      "parallel: { strategy: fsdp2 }\n",
      "job.yaml");
  ASSERT_TRUE(job) << job.error().to_string();
  observe::observation o;
  o.gpus = {gpu(0, 30_GiB), gpu(1, 23_GiB)};
  o.processes = {process(1, 4242), process(1, 4243)};
  o.stats = {reserved(9, std::nullopt, 20_GiB)};  // rank 9 runs on GPU 9 % 8 = 1
  const auto found = check(o, &*job);
  ASSERT_EQ(found.size(), 1u);
  // One communicator (the world group), 2 connections x 32 channels on Hopper, each LL 512 KiB +
  // LL128 4,915,200 B + SIMPLE 4 MiB, and NVLS's 301,989,888 B on an 8-GPU H100 node.
  const bytes nccl = 2 * 32 * (512_KiB + 4'915'200 + 4_MiB) + 301'989'888;
  EXPECT_EQ(format_bytes(nccl), "876.0 MiB");
  EXPECT_EQ(found[0].evidence,
            (std::vector<std::string>{
                "GPU 1: nvidia-smi 23.00 GiB used, memory_stats (rank9.json) reserved 20.00 GiB: "
                "3.00 GiB outside PyTorch",
                "CUDA context: about 500.0 MiB per process, 2 processes on this GPU",
                "NCCL communicator buffers: about 876.0 MiB",
                "unexplained: " + format_bytes(3_GiB - 2 * 500_MiB - nccl)}));
}

TEST(Dev001, EagerModuleLoadingMakesTheContextLarger) {
  auto job = job::parse_job_yaml(
      "hardware: { gpu: H100-80GB, gpus_per_node: 1 }\n"
      "parallel: { strategy: single }\n"
      "env: { CUDA_MODULE_LOADING: EAGER }\n",
      "job.yaml");
  ASSERT_TRUE(job) << job.error().to_string();
  observe::observation o;
  o.gpus = {gpu(0, 21_GiB)};
  o.processes = {process(0, 4242), process(0, 4243), process(0, 4244)};
  o.stats = {reserved(0, 0, 20_GiB)};
  const auto found = check(o, &*job);
  ASSERT_EQ(found.size(), 1u);
  // Three 1 GiB contexts explain more than the 1 GiB gap; a single GPU has no NCCL buffers.
  EXPECT_EQ(
      found[0].evidence,
      (std::vector<std::string>{"GPU 0: nvidia-smi 21.00 GiB used, memory_stats (rank0.json) "
                                "reserved 20.00 GiB: 1.00 GiB outside PyTorch",
                                "CUDA context: about 1.00 GiB per process, 3 processes on this GPU",
                                "unexplained: 0 B"}));
}

TEST(Dev001, OneFindingPerStatsFileAboveItsGpu) {
  observe::observation o;
  o.gpus = {gpu(0, 22_GiB), gpu(1, 22_GiB)};
  o.stats = {reserved(0, 0, 20_GiB), reserved(1, 1, 20_GiB)};
  const auto found = check(o);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_TRUE(found[1].evidence[0].starts_with("GPU 1: ")) << found[1].evidence[0];
}

TEST(Dev001, GapMustBeOneGiB) {
  observe::observation o;
  o.gpus = {gpu(0, 21_GiB)};
  o.stats = {reserved(0, 0, 20_GiB)};
  EXPECT_EQ(check(o).size(), 1u);
  o.gpus[0].used = 21_GiB - 1_MiB;
  EXPECT_TRUE(check(o).empty());
}

TEST(Dev001, SilentWithoutTheSameGpuOrAReservedFigure) {
  observe::observation other_host;  // GPU 0 of another machine is not this rank's GPU
  other_host.gpus = {gpu(0, 30_GiB, "node-b")};
  other_host.stats = {reserved(0, 0, 20_GiB)};
  EXPECT_TRUE(check(other_host).empty());

  observe::observation other_gpu;
  other_gpu.gpus = {gpu(1, 30_GiB)};
  other_gpu.stats = {reserved(0, 0, 20_GiB)};
  EXPECT_TRUE(check(other_gpu).empty());

  observe::observation peak_only;
  peak_only.gpus = {gpu(0, 30_GiB)};
  peak_only.stats = {reserved(0, 0, 20_GiB)};
  peak_only.stats[0].reserved = {std::nullopt, 20_GiB};
  EXPECT_TRUE(check(peak_only).empty());

  EXPECT_TRUE(rules::device_above_reserved(doctor_input{}).empty());
}

}  // namespace
}  // namespace vramscope::doctor

namespace vramscope::doctor {
namespace {

observe::oom_report library_failure(std::string raw, observe::oom_origin origin) {
  observe::oom_report r;
  r.kind = observe::oom_kind::cuda;
  r.origin = origin;
  r.allocator = observe::oom_allocator::cuda;
  r.line = 1;
  r.raw = std::move(raw);
  return r;
}

// A library's own allocation failed with no allocator's figures in the paste: memory outside the
// framework's pool, ranked above a reading that has no figures either; cuDNN's algorithm search
// (which allocates its candidates' workspaces itself) a step higher, with its own fix.
TEST(Dev001, ALibrarysOwnAllocationFailure) {
  observe::observation o;
  o.ooms = {library_failure("cudnnFindConvolutionForwardAlgorithm: 2: CUDNN_STATUS_ALLOC_FAILED",
                            observe::oom_origin::outside_allocator)};
  doctor_input in;
  in.observed = &o;
  auto found = rules::device_above_reserved(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "device_overhead");
  EXPECT_GT(found[0].likelihood, 0.75);
  EXPECT_NE(found[0].fix.find("cudnn.benchmark = False"), std::string::npos) << found[0].fix;

  o.ooms = {library_failure(
      "RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`",
      observe::oom_origin::outside_allocator)};
  found = rules::device_above_reserved(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_LT(found[0].likelihood, 0.75);
  EXPECT_NE(found[0].fix.find("CUBLAS_WORKSPACE_CONFIG=:4096:8"), std::string::npos)
      << found[0].fix;

  // An allocator's own message beside it gives figures: the library's status alone is not read.
  auto torch = library_failure("CUDA out of memory. Tried to allocate 392.00 MiB",
                               observe::oom_origin::allocator);
  torch.kind = observe::oom_kind::torch;
  o.ooms.push_back(torch);
  EXPECT_TRUE(rules::device_above_reserved(in).empty());
  // Another status of the library in a message read as out of memory: the library's, a step less
  // sure; its success named in a check is no status of failure.
  o.ooms = {library_failure(
      "Check failed: status == CUDNN_STATUS_SUCCESS (8 vs. 0) CUDNN_STATUS_EXECUTION_FAILED",
      observe::oom_origin::outside_allocator)};
  found = rules::device_above_reserved(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_LT(found[0].likelihood, 0.7);
  EXPECT_GT(found[0].likelihood, 0.5);
  EXPECT_NE(found[0].evidence[0].find("CUDNN_STATUS_EXECUTION_FAILED"), std::string::npos)
      << found[0].evidence[0];
  o.ooms = {library_failure("Check failed: status == CUDNN_STATUS_SUCCESS",
                            observe::oom_origin::outside_allocator)};
  EXPECT_TRUE(rules::device_above_reserved(in).empty());
  // A runtime's error with no library status is not a library's.
  o.ooms = {library_failure("CUDA error: out of memory", observe::oom_origin::outside_allocator)};
  EXPECT_TRUE(rules::device_above_reserved(in).empty());
  // In a CuPy process the pool's cached blocks are as likely what the library lacked: a step
  // lower, and FRAG001 reads the pool first (the library allocates outside it, the pool caches).
  auto fft = library_failure("cupy.cuda.cufft.CuFftError: CUFFT_ALLOC_FAILED",
                             observe::oom_origin::outside_allocator);
  fft.library = "cufft";
  fft.status = "CUFFT_ALLOC_FAILED";
  fft.runtime = "cupy";
  o.ooms = {fft};
  found = rules::device_above_reserved(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_LT(found[0].likelihood, 0.7);
  const auto pool = rules::fragmentation(in);
  ASSERT_EQ(pool.size(), 1u);
  EXPECT_GT(pool[0].likelihood, found[0].likelihood);
  EXPECT_NE(pool[0].fix.find("free_all_blocks()"), std::string::npos) << pool[0].fix;
  // The same failure in a process of no pooling runtime is not the pool's.
  o.ooms[0].runtime = "torch";
  EXPECT_TRUE(rules::fragmentation(in).empty());
}

// A test's assertion that memory_allocated() came back to its baseline, failing by cuBLAS's
// workspace (PyTorch's per-(handle, stream) size, reference/overheads.md 3): fixed overhead, not
// a tensor kept. Left bytes of no workspace size, or more of them than a few streams hold, and a
// figure that came back below its baseline, give no such finding.
TEST(Dev001, WorkspaceLeftAllocatedAfterAMatrixMultiply) {
  observe::observation o;
  observe::observation::allocated_check c;
  c.before = 0;
  c.after = 8'519'680;  // ":4096:2:16:8": 4096 KiB x 2 + 16 KiB x 8
  c.assertion = "assert mem <= start_mem, (mem, start_mem)";
  c.line = 3;
  c.source = "oom.txt";
  o.allocated_checks = {c};
  doctor_input in;
  in.observed = &o;
  auto found = rules::device_above_reserved(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "device_overhead");
  EXPECT_NE(found[0].fix.find("_cuda_clearCublasWorkspaces"), std::string::npos) << found[0].fix;
  EXPECT_NE(found[0].evidence[0].find("oom.txt:3"), std::string::npos) << found[0].evidence[0];

  o.allocated_checks[0].before = 1_GiB;
  o.allocated_checks[0].after = 1_GiB + 2 * 32_MiB;  // two streams on Hopper
  EXPECT_EQ(rules::device_above_reserved(in).size(), 1u);
  o.allocated_checks[0].after = 1_GiB + 8'519'680 + 512;  // a tensor beside it
  EXPECT_TRUE(rules::device_above_reserved(in).empty());
  o.allocated_checks[0].after = 1_GiB + 64 * 4_MiB;  // more workspaces than streams
  EXPECT_TRUE(rules::device_above_reserved(in).empty());
  o.allocated_checks[0].after = 1_GiB - 8'519'680;
  EXPECT_TRUE(rules::device_above_reserved(in).empty());
}

}  // namespace
}  // namespace vramscope::doctor
