// Out-of-memory messages of allocators other than PyTorch's caching allocator, read into the same
// figures (capacity or limit, what the pool holds, its live buffers, the request), with the
// allocator named. Snippets are real messages; each test names where it comes from.
#include <vramscope/observe/oom_report.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "observe/observe_data.hpp"

namespace vramscope::observe {
namespace {

using testing::any_warning_has;
using testing::approx;
using testing::data;
using testing::find;

// cupy/cupy#7678: a pool with set_limit(1 GiB) refuses 768 MiB while it holds 512 MiB.
TEST(AllocatorOom, CupyPoolWithItsLimit) {
  warnings w;
  const auto r = find(
      "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 805,306,368 bytes "
      "(allocated so far: 536,870,912 bytes, limit set to: 1,073,741,824 bytes).\n",
      &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].allocator, oom_allocator::cupy_pool);
  EXPECT_EQ(r[0].kind, oom_kind::cuda);
  EXPECT_EQ(r[0].origin, oom_origin::allocator);
  EXPECT_EQ(r[0].requested, 805'306'368u);
  EXPECT_EQ(r[0].pool_held, 536'870'912u);
  EXPECT_EQ(r[0].capacity, GiB);
  EXPECT_EQ(r[0].free, GiB - 536'870'912u);
  EXPECT_TRUE(r[0].missing.empty());
  EXPECT_TRUE(any_warning_has(w, "CuPy memory pool"));
  EXPECT_EQ(allocator_name(r[0].allocator), "cupy_pool");
}

// desihub/redrock#235: no limit set, so the message has no capacity; the rank's own prefix stays.
TEST(AllocatorOom, CupyPoolWithoutALimitGivesNoCapacity) {
  warnings w;
  const auto r = find(
      "Proc 32: cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 333,274,112 bytes "
      "(allocated so far: 1,974,255,616 bytes).\n",
      &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].allocator, oom_allocator::cupy_pool);
  EXPECT_EQ(r[0].requested, 333'274'112u);
  EXPECT_EQ(r[0].pool_held, 1'974'255'616u);
  EXPECT_FALSE(r[0].capacity);
  EXPECT_FALSE(r[0].free);
  EXPECT_TRUE(r[0].missing.empty());
  EXPECT_TRUE(any_warning_has(w, "no limit set on the pool"));
}

// chainer/chainer#5621 (CuPy 5): "(total T bytes)" counts the request too.
TEST(AllocatorOom, CupyFiveWordingCountsTheRequestInItsTotal) {
  const auto r = find(
      "Exception in main training loop: out of memory to allocate 205520896 bytes (total "
      "16068929536 bytes)\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].allocator, oom_allocator::cupy_pool);
  EXPECT_EQ(r[0].requested, 205'520'896u);
  EXPECT_EQ(r[0].pool_held, 16'068'929'536u - 205'520'896u);
}

// XLA's PjRt client shares the first words; it stays XLA's.
TEST(AllocatorOom, PjrtMessageIsNotCupys) {
  const auto r = find(
      "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating "
      "20029400304 bytes.\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, oom_kind::xla);
  EXPECT_EQ(r[0].allocator, oom_allocator::xla_client);
  EXPECT_EQ(r[0].requested, 20'029'400'304u);
  EXPECT_FALSE(r[0].pool_held);
}

// Cut pastes: a count cut inside its digits is unknown, never a smaller number, and the message
// says which figure the line lacks.
TEST(AllocatorOom, CupyLineCutInsideTheHeldCount) {
  warnings w;
  const auto r = find(
      "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 333,274,112 bytes "
      "(allocated so far: 1,974,2\n",
      &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].requested, 333'274'112u);
  EXPECT_FALSE(r[0].pool_held);
  ASSERT_FALSE(r[0].missing.empty());
  EXPECT_EQ(r[0].missing[0], "allocated so far");
  EXPECT_TRUE(any_warning_has(w, "the line is cut"));
}

TEST(AllocatorOom, CupyLineCutBeforeItsLimit) {
  const auto r = find(
      "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 805,306,368 bytes "
      "(allocated so far: 536,870,912 bytes, limit set to: 1,073,7\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].pool_held, 536'870'912u);
  EXPECT_FALSE(r[0].capacity);
  EXPECT_FALSE(r[0].free);
  ASSERT_EQ(r[0].missing.size(), 1u);
  EXPECT_EQ(r[0].missing[0], "limit set to");
  const auto before_clause = find(
      "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 805,306,368 bytes "
      "(allocated so far: 536,870,912 bytes,\n");
  ASSERT_EQ(before_clause.size(), 1u);
  ASSERT_EQ(before_clause[0].missing.size(), 1u);
  EXPECT_EQ(before_clause[0].missing[0], "limit set to");
}

// lllyasviel/Fooocus#1139: PyTorch's MPS allocator.
TEST(AllocatorOom, MpsMessage) {
  const auto r = find(
      "RuntimeError: MPS backend out of memory (MPS allocated: 8.89 GB, other allocations: "
      "172.98 MB, max allowed: 9.07 GB). Tried to allocate 6.25 MB on private pool. Use "
      "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable upper limit for memory allocations (may "
      "cause system failure).\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].allocator, oom_allocator::torch_mps);
  EXPECT_EQ(r[0].allocated_by_pytorch, approx(8.89, GiB));
  EXPECT_EQ(r[0].other_allocations, approx(172.98, MiB));
  EXPECT_EQ(r[0].capacity, approx(9.07, GiB));
  EXPECT_EQ(r[0].requested, approx(6.25, MiB));
  EXPECT_EQ(r[0].free, approx(9.07, GiB) - approx(8.89, GiB) - approx(172.98, MiB));
  EXPECT_TRUE(r[0].missing.empty());
}

TEST(AllocatorOom, MpsMessageCutBeforeTheRequest) {
  warnings w;
  const auto r = find(
      "RuntimeError: MPS backend out of memory (MPS allocated: 5.56 GB, other allocations: "
      "1.10 GB, max allowed: 6.80 GB).\n",
      &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].capacity, approx(6.80, GiB));
  EXPECT_FALSE(r[0].requested);
  ASSERT_EQ(r[0].missing.size(), 1u);
  EXPECT_EQ(r[0].missing[0], "Tried to allocate");
  EXPECT_TRUE(any_warning_has(w, "MPS out-of-memory message cut"));
}

// bubbliiiing/yolo3-tf2#7: TensorFlow's BFC dump, its regions and its live chunks.
TEST(AllocatorOom, TensorflowBfcDumpGivesThePoolsRegions) {
  const auto r = find(
      "2022-01-30 10:37:36.925076: I tensorflow/core/common_runtime/bfc_allocator.cc:923] "
      "total_region_allocated_bytes_: 1074790400 memory_limit_: 3059430195 available bytes: "
      "1984639795 "
      "curr_region_allocation_bytes_: 1073741824\n"
      "2022-01-30 10:37:36.925383: I tensorflow/core/common_runtime/bfc_allocator.cc:929] Stats: \n"
      "Limit:                  3059430195\n"
      "InUse:                   621716992\n"
      "MaxInUse:                621716992\n"
      "NumAllocs:                    1595\n"
      "MaxAllocSize:             33554432\n"
      "\n"
      "2022-01-30 10:37:36.926021: W tensorflow/core/framework/op_kernel.cc:1651] OP_REQUIRES "
      "failed at "
      "cwise_ops_common.cc:82 : Resource exhausted: OOM when allocating tensor with "
      "shape[255,256,256,69] and "
      "type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].allocator, oom_allocator::tf_bfc);
  EXPECT_EQ(r[0].pool_held, 1'074'790'400u);
  EXPECT_EQ(r[0].capacity, 3'059'430'195u);
  EXPECT_EQ(r[0].in_use, 621'716'992u);
  EXPECT_EQ(r[0].requested, 255ull * 256 * 256 * 69 * 4);
  EXPECT_TRUE(r[0].missing.empty());
}

// tests/data/threads 095: the statistics block of a BFC dump pasted alone (no allocator line, no
// error): read as the end of an out-of-memory dump, with what the paste lacks named.
TEST(AllocatorOom, BfcStatisticsBlockAloneIsTheEndOfItsDump) {
  warnings w;
  const auto r = find(
      "Limit:                       536870912\n"
      "InUse:                       536786944\n"
      "MaxInUse:                    536800512\n"
      "NumAllocs:                        4242\n"
      "MaxAllocSize:                 49288960\n"
      "Reserved:                            0\n"
      "PeakReserved:                        0\n"
      "LargestFreeBlock:                    0\n",
      &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, oom_kind::xla);
  EXPECT_EQ(r[0].allocator, oom_allocator::xla_bfc);
  EXPECT_EQ(r[0].line, 1);
  EXPECT_EQ(r[0].capacity, 536'870'912u);
  EXPECT_EQ(r[0].in_use, 536'786'944u);
  EXPECT_EQ(r[0].peak_in_use, 536'800'512u);
  EXPECT_FALSE(r[0].requested);
  ASSERT_EQ(r[0].missing.size(), 1u);
  EXPECT_EQ(r[0].missing[0], "ran out of memory trying to allocate");
  EXPECT_TRUE(any_warning_has(w, "statistics block without the dump above it"));
}

// A Limit line alone, or in words, is not a statistics block: nothing is read from it.
TEST(AllocatorOom, LimitLineWithoutItsInUseIsNotAStatisticsBlock) {
  EXPECT_TRUE(find("Limit:                       536870912\n").empty());
  EXPECT_TRUE(find("Limit: 512 MiB per process\nInUse: 12\n").empty());
}

// XLA's BFC dump (the project's fixture oom_xla_bfc.log): its regions, its chunks in use.
TEST(AllocatorOom, XlaBfcDumpGivesThePoolsRegions) {
  const std::string log = data("oom_xla_bfc.log");
  const auto r = find(log);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].allocator, oom_allocator::xla_bfc);
  EXPECT_EQ(r[0].pool_held, 77'309'411'328u);
  EXPECT_EQ(r[0].in_use, 62'523'928'576u);  // the Stats block's InUse, not the rounder sum above it
  EXPECT_TRUE(r[0].missing.empty());
  // Cut before its Stats block: "Sum Total of in-use chunks" stands for InUse.
  const auto cut = find(log.substr(0, log.find("Stats:")));
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_EQ(cut[0].in_use, approx(58.23, GiB));
  EXPECT_EQ(cut[0].pool_held, 77'309'411'328u);
  EXPECT_EQ(cut[0].capacity, 77'309'411'328u);  // memory_limit_ on the regions' line
}

// knaw-huc/loghi#55: the allocator's line alone, without its dump: what the paste lacks is named.
TEST(AllocatorOom, BfcLineWithoutItsDumpNamesWhatIsMissing) {
  const auto r = find(
      "9:07:50.044545: W external/local_xla/xla/tsl/framework/bfc_allocator.cc:501] Allocator "
      "(GPU_0_bfc) "
      "ran out of memory trying to allocate 34.10MiB (rounded to 35758080)requested by op "
      "StatefulPartitionedCall/model_new14_1/batch_normalization_36_1/moments/SquaredDifference\n"
      "If the cause is memory fragmentation maybe the environment variable "
      "'TF_GPU_ALLOCATOR=cuda_malloc_async' will improve the situation.\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].allocator, oom_allocator::xla_bfc);
  EXPECT_EQ(r[0].requested, 35'758'080u);
  EXPECT_FALSE(r[0].capacity);
  EXPECT_FALSE(r[0].in_use);
  ASSERT_FALSE(r[0].missing.empty());
  EXPECT_EQ(r[0].missing[0], "Stats: Limit");
}

// ROCm/legacy-rocm-build#4358: ROCm builds of PyTorch print the caching allocator's message with
// "HIP".
TEST(AllocatorOom, HipMessageIsTheCachingAllocators) {
  const auto r = find(
      "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 4.50 GiB. GPU 0 has a total "
      "capacity of 15.98 GiB of which 1.40 GiB is free. Of the allocated memory 1.26 GiB is "
      "allocated by PyTorch, and 152.50 MiB is reserved by PyTorch but unallocated. If reserved "
      "but unallocated memory is large try setting PYTORCH_HIP_ALLOC_CONF=expandable_segments:True "
      "to avoid fragmentation.\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, oom_kind::torch);
  EXPECT_EQ(r[0].allocator, oom_allocator::torch_caching);
  EXPECT_EQ(r[0].requested, approx(4.5, GiB));
  EXPECT_EQ(r[0].capacity, approx(15.98, GiB));
  EXPECT_EQ(r[0].reserved_unallocated, approx(152.5, MiB));
}

// Julia's CUDA.jl: OutOfGPUMemoryError as Base.showerror prints it (JuliaGPU/CUDA.jl,
// CUDACore/src/memory.jl; each release's lines as its memory_status / pool_status writes them).
// The figures are constructed in that format, Base.format_bytes's three decimals.

// CUDA.jl 3.4 and later: the driver's stream-ordered pool, its live buffers and its reserve.
TEST(AllocatorOom, CudaJlStreamOrderedPool) {
  warnings w;
  const auto r = find(
      "ERROR: LoadError: Out of GPU memory trying to allocate 2.000 GiB\n"
      "Effective GPU memory usage: 97.53% (15.355 GiB/15.744 GiB)\n"
      "Memory pool usage: 12.000 GiB (14.031 GiB reserved)\n"
      "Stacktrace:\n"
      "  [1] throw_api_error(res::CUDA.cudaError_enum)\n"
      "Effective GPU memory usage: 10.00% (1.000 GiB/15.744 GiB)\n",
      &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].allocator, oom_allocator::cudajl_pool);
  EXPECT_EQ(allocator_name(r[0].allocator), "cudajl_pool");
  EXPECT_EQ(r[0].kind, oom_kind::cuda);
  EXPECT_EQ(r[0].origin, oom_origin::allocator);
  EXPECT_EQ(r[0].line, 1);
  EXPECT_EQ(r[0].requested, 2 * GiB);
  EXPECT_EQ(r[0].capacity, approx(15.744, GiB));
  // Free is the total less what is in use on the device; the later status line is not read.
  EXPECT_EQ(r[0].free, approx(15.744, GiB) - approx(15.355, GiB));
  EXPECT_EQ(r[0].in_use, 12 * GiB);
  EXPECT_EQ(r[0].pool_held, approx(14.031, GiB));
  EXPECT_FALSE(r[0].fraction_limit);
  EXPECT_TRUE(r[0].missing.empty());
  EXPECT_NE(r[0].raw.find("Memory pool usage"), std::string::npos) << r[0].raw;
  EXPECT_EQ(r[0].raw.find("Stacktrace"), std::string::npos) << r[0].raw;
  EXPECT_TRUE(any_warning_has(w, "CUDA.jl out of GPU memory"));
}

// CUDA.jl 4.0 and later with JULIA_CUDA_HARD_MEMORY_LIMIT set: the limit's line after the pool's.
TEST(AllocatorOom, CudaJlHardLimit) {
  const auto r = find(
      "Out of GPU memory trying to allocate 512.000 MiB\n"
      "Effective GPU memory usage: 60.10% (4.680 GiB/7.787 GiB)\n"
      "Memory pool usage: 3.750 GiB (4.000 GiB reserved)\n"
      "Memory limit: soft = 3.000 GiB, hard = 4.000 GiB\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].requested, 512 * MiB);
  EXPECT_EQ(r[0].fraction_limit, 4 * GiB);
  EXPECT_EQ(r[0].pool_held, 4 * GiB);
  EXPECT_TRUE(r[0].missing.empty());
}

// CUDA.jl 3.0 to 3.3: the allocator's total, then the pool's "(A allocated, C cached)".
TEST(AllocatorOom, CudaJlAllocatedAndCached) {
  const auto r = find(
      "ERROR: Out of GPU memory trying to allocate 1.500 GiB\n"
      "Effective GPU memory usage: 99.10% (7.722 GiB/7.793 GiB)\n"
      "CUDA allocator usage: 6.812 GiB\n"
      "Memory pool usage: 6.812 GiB (5.250 GiB allocated, 1.562 GiB cached)\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].requested, approx(1.5, GiB));
  EXPECT_EQ(r[0].pool_held, approx(6.812, GiB));
  EXPECT_EQ(r[0].in_use, approx(5.25, GiB));
  EXPECT_EQ(r[0].capacity, approx(7.793, GiB));
  EXPECT_TRUE(r[0].missing.empty());
}

// CUDA.jl 1.x/2.x: the pool named by its module, the allocator's cap (JULIA_CUDA_MEMORY_LIMIT).
TEST(AllocatorOom, CudaJlNamedPoolWithCap) {
  const auto r = find(
      "Out of GPU memory trying to allocate 300.000 MiB\n"
      "Effective GPU memory usage: 45.00% (3.543 GiB/7.874 GiB)\n"
      "CUDA allocator usage: 3.900 GiB (capped at 4.000 GiB)\n"
      "SplittingPool usage: 3.900 GiB (3.500 GiB allocated, 409.600 MiB cached)\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].fraction_limit, 4 * GiB);
  EXPECT_EQ(r[0].pool_held, approx(3.9, GiB));
  EXPECT_EQ(r[0].in_use, approx(3.5, GiB));
  EXPECT_TRUE(r[0].missing.empty());
}

// CuArrays.jl before CUDA.jl: a logged error, its source line and the pool's dump before the
// status lines.
TEST(AllocatorOom, CuArraysLoggedError) {
  const auto r = find(
      "┌ Error: Out of GPU memory trying to allocate 256.000 MiB\n"
      "└ @ CuArrays ~/.julia/packages/CuArrays/7z7MV/src/memory.jl:106\n"
      "Effective GPU memory usage: 98.00% (10.780 GiB/11.000 GiB)\n"
      "CuArrays GPU memory usage: 9.500 GiB\n"
      "BinnedPool usage: 9.500 GiB (9.000 GiB allocated, 512.000 MiB cached)\n"
      "BinnedPool efficiency: 90.00% (8.100 GiB requested, 9.000 GiB allocated)\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].allocator, oom_allocator::cudajl_pool);
  EXPECT_EQ(r[0].requested, 256 * MiB);
  EXPECT_EQ(r[0].pool_held, approx(9.5, GiB));
  EXPECT_EQ(r[0].in_use, 9 * GiB);
  EXPECT_EQ(r[0].free, approx(11.0, GiB) - approx(10.78, GiB));
  EXPECT_TRUE(r[0].missing.empty());
}

// Without a pool (JULIA_CUDA_MEMORY_POOL=none) and with no size (CUDA.jl 3.0 on prints none for
// a request of unknown size): nothing is missing, and nothing is made up.
TEST(AllocatorOom, CudaJlNoPoolNoSize) {
  warnings w;
  const auto r = find(
      "ERROR: Out of GPU memory\n"
      "Effective GPU memory usage: 99.90% (23.620 GiB/23.643 GiB)\n"
      "No memory pool is in use.\n",
      &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].requested);
  EXPECT_FALSE(r[0].pool_held);
  EXPECT_FALSE(r[0].in_use);
  EXPECT_EQ(r[0].capacity, approx(23.643, GiB));
  EXPECT_TRUE(r[0].missing.empty());
  EXPECT_TRUE(any_warning_has(w, "CUDA.jl printed no size"));
}

// A paste cut after the first line, or inside the device's line: what it lacks is named.
TEST(AllocatorOom, CudaJlCutPaste) {
  auto r = find("ERROR: Out of GPU memory trying to allocate 653.794 MiB\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].requested, approx(653.794, MiB));
  EXPECT_FALSE(r[0].capacity);
  EXPECT_EQ(r[0].missing,
            (std::vector<std::string>{"Effective GPU memory usage", "Memory pool usage"}));
  r = find(
      "Out of GPU memory trying to allocate 653.794 MiB\n"
      "Effective GPU memory usage: 99.32% (7.734 GiB/7.7\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].capacity);
  EXPECT_FALSE(r[0].free);
  EXPECT_EQ(r[0].missing,
            (std::vector<std::string>{"Effective GPU memory usage", "Memory pool usage"}));
  r = find(
      "Out of GPU memory trying to allocate 653.794 MiB\n"
      "Effective GPU memory usage: 99.32% (7.734 GiB/7.787 GiB)\n"
      "Memory pool usage: 5.630 GiB (6.344 G\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].capacity);
  EXPECT_FALSE(r[0].in_use);
  EXPECT_FALSE(r[0].pool_held);
  EXPECT_EQ(r[0].missing, std::vector<std::string>{"Memory pool usage"});
}

// Garbage in the figures' places: no figure is read from it, each is named missing, and a line
// that only mentions the words in passing is not CUDA.jl's message.
TEST(AllocatorOom, CudaJlGarbage) {
  auto r = find(
      "Out of GPU memory trying to allocate lots\n"
      "Effective GPU memory usage: many% (x/y)\n"
      "Memory pool usage: ??? (!!! reserved)\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].requested);
  EXPECT_FALSE(r[0].capacity);
  EXPECT_FALSE(r[0].pool_held);
  EXPECT_EQ(r[0].missing,
            (std::vector<std::string>{"trying to allocate", "Effective GPU memory usage",
                                      "Memory pool usage"}));
  // More used than the total: not a free figure.
  r = find(
      "Out of GPU memory trying to allocate 1.000 GiB\n"
      "Effective GPU memory usage: 120.00% (9.000 GiB/7.500 GiB)\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].free);
  EXPECT_FALSE(r[0].capacity);
  for (const auto& o : find("We ran Out of GPU memory yesterday, see the notes\n"))
    EXPECT_NE(o.allocator, oom_allocator::cudajl_pool);
}

}  // namespace
}  // namespace vramscope::observe
