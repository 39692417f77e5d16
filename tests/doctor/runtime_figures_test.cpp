// Out-of-memory messages of other runtimes' allocators (CuPy's pool, TensorFlow's and XLA's BFC
// allocator) read into the same facts as PyTorch's, and the fragmentation and does-not-fit
// readings worded with that runtime's own fixes. Snippets are real messages; each test names its
// source.
#include <vramscope/observe/oom_report.hpp>
#include <vramscope/observe/read_observation.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "doctor/likelihood.hpp"
#include "doctor/oom_facts.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor {
namespace {

observe::observation read(const std::string& text) {
  observe::observation o;
  o.ooms = observe::find_oom_reports(text, "app.log", o.warnings);
  return o;
}

std::vector<finding> frag(const observe::observation& o) {
  doctor_input in;
  in.observed = &o;
  return rules::fragmentation(in);
}

std::vector<finding> oom(const observe::observation& o) {
  doctor_input in;
  in.observed = &o;
  return rules::out_of_memory_message(in);
}

// cupy/cupy#7678: 512 MiB held (all of it a freed, cached block), 768 MiB asked, limit 1 GiB.
const std::string cupy_limit =
    "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 805,306,368 bytes (allocated so "
    "far: "
    "536,870,912 bytes, limit set to: 1,073,741,824 bytes).\n";

TEST(RuntimeFigures, CupyLimitCountingItsCacheIsReadAsTheCache) {
  const auto o = read(cupy_limit);
  ASSERT_EQ(o.ooms.size(), 1u);
  const auto facts = facts_of(o.ooms[0]);
  EXPECT_EQ(facts.allocator, observe::oom_allocator::cupy_pool);
  EXPECT_EQ(facts.reserved, 536'870'912u);
  EXPECT_EQ(facts.capacity, GiB);
  EXPECT_TRUE(facts.pool_limit_counts_cache());
  const auto f = frag(o);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].fix.find("free_all_blocks"), std::string::npos) << f[0].fix;
  EXPECT_EQ(f[0].fix.find("PYTORCH_CUDA_ALLOC_CONF"), std::string::npos) << f[0].fix;
  EXPECT_FALSE(f[0].against.empty());  // the message does not split live arrays from the cache
  // The does-not-fit reading stays, in CuPy's words, and below the cache's.
  const auto m = oom(o);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].title.find("cupy_pool"), std::string::npos) << m[0].title;
  EXPECT_NE(m[0].fix.find("chunks"), std::string::npos) << m[0].fix;
  EXPECT_GT(f[0].likelihood, m[0].likelihood);
}

// A request larger than the limit itself: no cache could have served it. (The thread's message with
// its request raised above its limit.)
TEST(RuntimeFigures, CupyRequestAboveTheLimitIsNotTheCache) {
  const auto o = read(
      "cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 2,147,483,648 bytes "
      "(allocated so far: 536,870,912 bytes, limit set to: 1,073,741,824 bytes).\n");
  ASSERT_EQ(o.ooms.size(), 1u);
  EXPECT_FALSE(facts_of(o.ooms[0]).pool_limit_counts_cache());
  EXPECT_TRUE(frag(o).empty());
}

// desihub/redrock#235: no limit. CuPy released its cache and collected garbage before raising
// (memory.pyx, _try_malloc), so the cache is not a reading.
TEST(RuntimeFigures, CupyWithoutALimitIsNotTheCache) {
  const auto o = read(
      "Proc 32: cupy.cuda.memory.OutOfMemoryError: Out of memory allocating 333,274,112 bytes "
      "(allocated so far: 1,974,255,616 bytes).\n");
  ASSERT_EQ(o.ooms.size(), 1u);
  EXPECT_FALSE(facts_of(o.ooms[0]).pool_limit_counts_cache());
  EXPECT_TRUE(frag(o).empty());
}

// bubbliiiing/yolo3-tf2#7: TensorFlow's BFC pool with 453 MiB of free chunks and 1.98 GB left under
// its limit, for a 4.6 GB tensor: not the pool's fragmentation, and TensorFlow's own fix.
TEST(RuntimeFigures, TensorflowBfcFactsInTheCommonFigures) {
  const auto o = read(
      "2022-01-30 10:37:36.925076: I tensorflow/core/common_runtime/bfc_allocator.cc:923] "
      "total_region_allocated_bytes_: 1074790400 memory_limit_: 3059430195 available bytes: "
      "1984639795 "
      "curr_region_allocation_bytes_: 1073741824\n"
      "2022-01-30 10:37:36.925383: I tensorflow/core/common_runtime/bfc_allocator.cc:929] Stats: \n"
      "Limit:                  3059430195\n"
      "InUse:                   621716992\n"
      "MaxInUse:                621716992\n"
      "\n"
      "2022-01-30 10:37:36.926021: W tensorflow/core/framework/op_kernel.cc:1651] OP_REQUIRES "
      "failed at "
      "cwise_ops_common.cc:82 : Resource exhausted: OOM when allocating tensor with "
      "shape[255,256,256,69] and "
      "type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n");
  ASSERT_EQ(o.ooms.size(), 1u);
  const auto facts = facts_of(o.ooms[0]);
  EXPECT_EQ(facts.allocator, observe::oom_allocator::tf_bfc);
  EXPECT_EQ(facts.allocated, 621'716'992u);
  EXPECT_EQ(facts.reserved, 1'074'790'400u);
  EXPECT_EQ(facts.cached, 1'074'790'400u - 621'716'992u);
  EXPECT_EQ(facts.free, 1'984'639'795u);  // the BFC line's own "available bytes"
  EXPECT_TRUE(facts.cache_figures());
  EXPECT_FALSE(facts.cache_covers());
  EXPECT_TRUE(frag(o).empty());
}

std::vector<finding> pool(const observe::observation& o) {
  doctor_input in;
  in.observed = &o;
  return rules::jax_preallocation(in);
}

// The statistics block a BFC dump ends with, pasted alone (tests/data/threads 095: an application
// that capped TensorFlow's logical device at 512 MiB): a pool full at a limit somebody set, which
// JAX001 names, and OOM001 holds its "does not fit" a step lower for it.
const std::string stats_at_set_limit =
    "Limit:                       536870912\n"
    "InUse:                       536786944\n"
    "MaxInUse:                    536800512\n"
    "NumAllocs:                        4242\n"
    "MaxAllocSize:                 49288960\n";

TEST(RuntimeFigures, BfcPoolFullAtASetLimitIsTheLimit) {
  const auto o = read(stats_at_set_limit);
  ASSERT_EQ(o.ooms.size(), 1u);
  const auto p = pool(o);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].cause_class, "jax_preallocation");
  EXPECT_DOUBLE_EQ(p[0].likelihood, likelihood::possible + 2 * likelihood::step);
  EXPECT_NE(p[0].fix.find("memory_limit"), std::string::npos) << p[0].fix;
  const auto m = oom(o);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_LT(m[0].likelihood, p[0].likelihood);
}

// The same pool at a limit the GPU's free memory gave (TensorFlow's default, not a round
// figure): no set limit to name, and OOM001 keeps its weight.
TEST(RuntimeFigures, BfcPoolAtItsDefaultLimitIsNotASetLimit) {
  std::string text = stats_at_set_limit;
  text.replace(text.find("536870912"), 9, "3059430195");
  const auto o = read(text);
  ASSERT_EQ(o.ooms.size(), 1u);
  for (const auto& f : pool(o)) {
    EXPECT_EQ(f.title.find("limit that was set"), std::string::npos) << f.title;
    EXPECT_LT(f.likelihood, likelihood::likely);
  }
  const auto m = oom(o);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_DOUBLE_EQ(m[0].likelihood, likelihood::likely);
}

// A BFC pool whose free chunks add up to the request but hold it in none (the project's fixture
// oom_xla_bfc.log with its in-use figure lowered by what its LargestFreeBlock line implies is
// spread over several chunks): FRAG001 in XLA's words.
TEST(RuntimeFigures, BfcFreeChunksCoveringTheRequestAreItsFragmentation) {
  const auto o = read(
      "W0605 10:15:40.552147  412097 bfc_allocator.cc:482] Allocator (GPU_0_bfc) ran out of memory "
      "trying to "
      "allocate 16.00GiB (rounded to 17179869184)requested by op \n"
      "I0605 10:15:40.560110  412097 bfc_allocator.cc:1116] total_region_allocated_bytes_: "
      "77309411328 "
      "memory_limit_: 77309411328 available bytes: 0 curr_region_allocation_bytes_: 154618822656\n"
      "I0605 10:15:40.560120  412097 bfc_allocator.cc:1122] Stats: \n"
      "Limit:                     77309411328\n"
      "InUse:                     42523928576\n"
      "LargestFreeBlock:          10737418240\n"
      "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to "
      "allocate "
      "17179869184 bytes.\n");
  ASSERT_EQ(o.ooms.size(), 1u);
  const auto facts = facts_of(o.ooms[0]);
  EXPECT_EQ(facts.allocator, observe::oom_allocator::xla_bfc);
  EXPECT_EQ(facts.cached, 77'309'411'328u - 42'523'928'576u);
  const auto f = frag(o);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].fix.find("XLA_PYTHON_CLIENT"), std::string::npos) << f[0].fix;
  EXPECT_NE(f[0].evidence[0].find("held by the pool but not in use"), std::string::npos)
      << f[0].evidence[0];
}

TEST(RuntimeFigures, EachRuntimeHasItsOwnFixes) {
  using observe::oom_allocator;
  for (auto a : {oom_allocator::cupy_pool, oom_allocator::tf_bfc, oom_allocator::xla_bfc,
                 oom_allocator::torch_mps, oom_allocator::cudajl_pool})
    for (auto k : {fix_kind::release_cache, fix_kind::does_not_fit, fix_kind::other_processes})
      EXPECT_FALSE(runtime_fix(a, k).empty()) << observe::allocator_name(a);
  // PyTorch's caching allocator keeps the rules' own wording (and their re-planned savings).
  EXPECT_TRUE(runtime_fix(oom_allocator::torch_caching, fix_kind::release_cache).empty());
  EXPECT_NE(runtime_fix(oom_allocator::tf_bfc, fix_kind::release_cache).find("cuda_malloc_async"),
            std::string::npos);
  EXPECT_NE(runtime_fix(oom_allocator::torch_mps, fix_kind::does_not_fit)
                .find("PYTORCH_MPS_HIGH_WATERMARK_RATIO"),
            std::string::npos);
}

// CUDA.jl's pool (its "Memory management" page): the garbage collector, CUDA.reclaim and
// unsafe_free! for its cache, CuIterator for data that does not fit, the memory-limit variables
// for a shared GPU; none of PyTorch's settings.
TEST(RuntimeFigures, CudaJlFixesAreJuliasOwn) {
  using observe::oom_allocator;
  const auto cache = runtime_fix(oom_allocator::cudajl_pool, fix_kind::release_cache);
  EXPECT_NE(cache.find("CUDA.reclaim()"), std::string::npos) << cache;
  EXPECT_NE(cache.find("GC.gc(true)"), std::string::npos) << cache;
  EXPECT_NE(cache.find("CUDA.unsafe_free!"), std::string::npos) << cache;
  const auto fit = runtime_fix(oom_allocator::cudajl_pool, fix_kind::does_not_fit);
  EXPECT_NE(fit.find("CuIterator"), std::string::npos) << fit;
  const auto others = runtime_fix(oom_allocator::cudajl_pool, fix_kind::other_processes);
  EXPECT_NE(others.find("JULIA_CUDA_HARD_MEMORY_LIMIT"), std::string::npos) << others;
  for (const auto& words : {cache, fit, others}) {
    EXPECT_EQ(words.find("torch"), std::string::npos) << words;
    EXPECT_EQ(words.find("PYTORCH"), std::string::npos) << words;
  }
}

std::vector<finding> outside(const observe::observation& o) {
  doctor_input in;
  in.observed = &o;
  return rules::memory_outside_process(in);
}

// A pool whose reserve beyond its live buffers, with the free memory, covers the request: the
// cache reading in CUDA.jl's words, the does-not-fit one too, nothing of PyTorch's.
TEST(RuntimeFigures, CudaJlCacheCoveringTheRequest) {
  const auto o = read(
      "ERROR: Out of GPU memory trying to allocate 1.000 GiB\n"
      "Effective GPU memory usage: 99.50% (7.748 GiB/7.787 GiB)\n"
      "Memory pool usage: 4.000 GiB (6.500 GiB reserved)\n");
  ASSERT_EQ(o.ooms.size(), 1u);
  const auto facts = facts_of(o.ooms[0]);
  EXPECT_EQ(facts.allocator, observe::oom_allocator::cudajl_pool);
  EXPECT_EQ(facts.allocated, 4 * GiB);
  EXPECT_EQ(facts.cached, 13 * GiB / 2 - 4 * GiB);
  EXPECT_TRUE(facts.cache_figures());
  const auto f = frag(o);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NE(f[0].fix.find("CUDA.reclaim()"), std::string::npos) << f[0].fix;
  EXPECT_EQ(f[0].fix.find("PYTORCH_CUDA_ALLOC_CONF"), std::string::npos) << f[0].fix;
  EXPECT_EQ(f[0].fix.find("empty_cache"), std::string::npos) << f[0].fix;
  const auto m = oom(o);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].title.find("cudajl_pool"), std::string::npos) << m[0].title;
  EXPECT_NE(m[0].fix.find("CuIterator"), std::string::npos) << m[0].fix;
  // 7.748 GiB in use, the pool's 6.5 GiB and a context account for it: no one else's.
  EXPECT_TRUE(outside(o).empty());
}

// Most of the device in use outside the pool's reserve and a context: other processes, with
// CUDA.jl's limit variables beside the general fix.
TEST(RuntimeFigures, CudaJlMemoryHeldOutsideTheProcess) {
  const auto o = read(
      "Out of GPU memory trying to allocate 2.000 GiB\n"
      "Effective GPU memory usage: 98.43% (15.497 GiB/15.744 GiB)\n"
      "Memory pool usage: 3.000 GiB (4.000 GiB reserved)\n");
  ASSERT_EQ(o.ooms.size(), 1u);
  const auto facts = facts_of(o.ooms[0]);
  ASSERT_TRUE(facts.outside);
  EXPECT_GT(*facts.outside, 10 * GiB);
  EXPECT_TRUE(facts.outside_covers());
  const auto p = outside(o);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].rule, "PROC001");
  EXPECT_NE(p[0].fix.find("JULIA_CUDA_HARD_MEMORY_LIMIT"), std::string::npos) << p[0].fix;
  EXPECT_EQ(p[0].fix.find("set_per_process_memory_fraction"), std::string::npos) << p[0].fix;
  // The pool's reserve covers nothing here: 1 GiB cached and 0.247 GiB free are short of 2 GiB.
  EXPECT_TRUE(frag(o).empty());
}

// A cap on the pool (CUDA.jl 1.x's "capped at", JULIA_CUDA_MEMORY_LIMIT) that the pool and the
// request exceed while the device has memory free: the limit, not the GPU, in OOM001.
TEST(RuntimeFigures, CudaJlPoolAtItsLimit) {
  const auto o = read(
      "Out of GPU memory trying to allocate 300.000 MiB\n"
      "Effective GPU memory usage: 45.00% (3.543 GiB/7.874 GiB)\n"
      "CUDA allocator usage: 3.900 GiB (capped at 4.000 GiB)\n"
      "SplittingPool usage: 3.900 GiB (3.500 GiB allocated, 409.600 MiB cached)\n");
  const auto m = oom(o);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].cause.find("memory limit"), std::string::npos) << m[0].cause;
  EXPECT_NE(m[0].fix.find("JULIA_CUDA_HARD_MEMORY_LIMIT"), std::string::npos) << m[0].fix;
  EXPECT_NE(m[0].evidence.back().find("of the device's"), std::string::npos)
      << m[0].evidence.back();
  // The same figures under a limit the request fits in: the GPU's reading, no limit named.
  const auto under = read(
      "Out of GPU memory trying to allocate 300.000 MiB\n"
      "Effective GPU memory usage: 45.00% (3.543 GiB/7.874 GiB)\n"
      "CUDA allocator usage: 3.900 GiB (capped at 6.000 GiB)\n"
      "SplittingPool usage: 3.900 GiB (3.500 GiB allocated, 409.600 MiB cached)\n");
  const auto n = oom(under);
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].cause.find("memory limit"), std::string::npos) << n[0].cause;
  EXPECT_LT(n[0].likelihood, m[0].likelihood);
}

// A device at 75 % of its total reads like XLA's default fraction, but CUDA.jl's message says its
// own pool holds most of it: JAX001 is weak and said why.
TEST(RuntimeFigures, CudaJlPoolIsNotJaxsFraction) {
  const std::string text =
      "ERROR: Out of GPU memory trying to allocate 6.000 GiB\n"
      "Effective GPU memory usage: 75.00% (11.808 GiB/15.744 GiB)\n"
      "Memory pool usage: 10.500 GiB (10.750 GiB reserved)\n";
  auto o = observe::parse_observation(text, "oom.txt", {});
  ASSERT_TRUE(o) << o.error().to_string();
  doctor_input in;
  in.observed = &*o;
  const auto found = rules::jax_preallocation(in);
  ASSERT_FALSE(found.empty());  // the device's line alone is at XLA's fraction
  for (const auto& f : found) {
    EXPECT_LE(f.likelihood, likelihood::weak);
    bool said = false;
    for (const auto& a : f.against) said = said || a.find("cudajl_pool") != std::string::npos;
    EXPECT_TRUE(said);
  }
}

}  // namespace
}  // namespace vramscope::doctor
