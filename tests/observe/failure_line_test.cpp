// Memory failures named by the CUDA runtime or a CUDA library under any framework, with no
// allocator's figures: the failure's kind, the library, the runtime the paste names, and what the
// paste lacks. Snippets are real pastes; each test names where it comes from.
#include <vramscope/observe/oom_report.hpp>
#include <vramscope/observe/read_observation.hpp>

#include <gtest/gtest.h>

#include "observe/failure_line.hpp"
#include "observe/observe_data.hpp"

namespace vramscope::observe {
namespace {

using testing::any_warning_has;
using testing::find;

// peteanderson80/bottom-up-attention#3: Caffe's CUDA_CHECK on cudaMalloc (syncedmem.cpp).
TEST(FailureLine, CaffeCheckOnCudaRuntimeStatusTwo) {
  warnings w;
  const auto r = find(
      "F0906 11:11:48.665238   945 syncedmem.cpp:71] Check failed: error == cudaSuccess (2 vs. 0)  "
      "out of memory\n",
      &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].allocator, oom_allocator::cuda);
  EXPECT_EQ(r[0].origin, oom_origin::allocator);
  EXPECT_TRUE(r[0].library.empty());
  EXPECT_EQ(r[0].runtime, "caffe");
  EXPECT_FALSE(r[0].requested.has_value());
  EXPECT_EQ(r[0].line, 1);
  EXPECT_TRUE(any_warning_has(w, "without figures"));
  EXPECT_TRUE(any_warning_has(w, "nvidia-smi"));
}

// DyNet's CUDA_CHECK (dynet/cuda.h) on its pools' cudaMalloc: the statement on the line, the
// CUDA error's text on the next; another statement failing is no allocation.
TEST(FailureLine, DynetCudaCheckOnCudaMalloc) {
  const auto r = find("CUDA failure in cudaMalloc(&ptr, n)\nout of memory\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].origin, oom_origin::allocator);
  EXPECT_EQ(r[0].runtime, "dynet");
  EXPECT_EQ(r[0].status, "cudaMalloc failed");
  EXPECT_TRUE(find("CUDA failure in cudaMemcpy(dst, src, n, kind)\ninvalid argument\n").empty());
}

// A CHECK on another CUDA status (an invalid argument, 1) names no lack of memory.
TEST(FailureLine, OtherRuntimeStatusIsNoMemoryFailure) {
  EXPECT_FALSE(
      detail::failure_line_of("Check failed: error == cudaSuccess (1 vs. 0)  invalid argument"));
  EXPECT_FALSE(
      detail::failure_line_of("Check failed: error == cudaSuccess (2 vs"));  // cut: no status
}

// NVIDIA/spark-rapids#1533: cudf's error through the Java bindings. Thrust raised it for its
// parallel_for's kernel launch ("parallel_for failed: STATUS"), so it is read as a failure outside
// the pool, not as the pool's own request (RMM reports those as its own out_of_memory).
TEST(FailureLine, RapidsCudaErrorMemoryAllocation) {
  const auto r = find(
      "21/01/15 18:40:27 WARN TaskSetManager: Lost task 8.0 in stage 3.0 (TID 11, 10.19.183.124, "
      "executor 0): ai.rapids.cudf.CudfException: parallel_for failed: cudaErrorMemoryAllocation: "
      "out of memory\n"
      "\tat ai.rapids.cudf.ColumnView.matchesRe(Native Method)\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].status, "cudaErrorMemoryAllocation (a Thrust kernel launch)");
  EXPECT_EQ(r[0].origin, oom_origin::outside_allocator);
  EXPECT_EQ(r[0].runtime, "rapids");
}

// BVLC/caffe#2197: cuDNN v2's execution failure in Caffe's convolution layer, pasted as the
// memory failure (the workspace its fastest algorithm needed could not be allocated).
TEST(FailureLine, CudnnExecutionFailedInAConvolution) {
  warnings w;
  const auto r = find(
      "cudnn_conv_layer.cu:65] Check failed: status == CUDNN_STATUS_SUCCESS (8 vs. 0) "
      "CUDNN_STATUS_EXECUTION_FAILED\n",
      &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].origin, oom_origin::outside_allocator);
  EXPECT_EQ(r[0].library, "cudnn");
  EXPECT_TRUE(r[0].status_not_memory);
  EXPECT_EQ(r[0].runtime, "caffe");
  EXPECT_TRUE(any_warning_has(w, "names no lack of memory"));
  // Outside a convolution, an execution failure is not read as a memory failure.
  EXPECT_TRUE(find("cudnn_pooling_layer.cu:20] Check failed: status == CUDNN_STATUS_SUCCESS (8 vs. "
                   "0) CUDNN_STATUS_EXECUTION_FAILED\n")
                  .empty());
}

TEST(FailureLine, LibraryWorkspaceAndCublasCheck) {
  const auto ws =
      detail::failure_line_of("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_ENOUGH_WORKSPACE");
  ASSERT_TRUE(ws);
  EXPECT_EQ(ws->origin, oom_origin::outside_allocator);
  EXPECT_EQ(ws->library, "cudnn");
  const auto blas = detail::failure_line_of(
      "math_functions.cu:26] Check failed: status == CUBLAS_STATUS_SUCCESS (3 vs. 0)  "
      "CUBLAS_STATUS_ALLOC_FAILED");
  ASSERT_TRUE(blas);
  EXPECT_EQ(blas->library, "cublas");
  const auto malloc = detail::failure_line_of("ERROR: cudaMalloc failed: out of memory");
  ASSERT_TRUE(malloc);
  EXPECT_EQ(malloc->origin, oom_origin::allocator);
  EXPECT_FALSE(detail::failure_line_of("cudaMallocHost failed: out of memory"));  // host memory
}

// CNTK's cuDNN failure (Microsoft/CNTK): the driver reader's library names set the library.
TEST(FailureLine, CudnnAllocFailedNamesTheLibrary) {
  const auto r = find(
      "cuDNN failure 2: CUDNN_STATUS_ALLOC_FAILED ; GPU=0 ; hostname=h ; expr=finder(calgo, "
      "algoPerf)\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].library, "cudnn");
  EXPECT_EQ(r[0].origin, oom_origin::outside_allocator);
}

// huggingface/pytorch-image-models#2781: the allocator's warning with its counts elided.
TEST(FailureLine, ElidedCountsAreMissingNotZero) {
  warnings w;
  const auto r = find(
      "[rank0] memory allocation failed with OOM on device 0 while trying to allocate ... bytes "
      "(free: ..., total: ...).\n"
      "[rank3] memory allocation failed with OOM on device 3 while trying to allocate ... bytes "
      "(free: ..., total: ...).\n",
      &w);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].kind, oom_kind::torch);
  EXPECT_EQ(r[0].rank, 0);
  EXPECT_EQ(r[1].gpu, 3);
  EXPECT_FALSE(r[0].requested.has_value());
  EXPECT_FALSE(r[0].free.has_value());
  EXPECT_TRUE(r[0].message_cut);
  EXPECT_EQ(r[0].missing.size(), 3u);
  EXPECT_TRUE(any_warning_has(w, "elided"));
}

// ProGamerGov/neural-dream#6: a traceback through torch.load cut before its error line.
TEST(FailureLine, TracebackCutBeforeItsErrorLine) {
  const std::string cut =
      "GoogLeNet Architecture Detected\n"
      "Traceback (most recent call last):\n"
      "  File \"neural_dream.py\", line 121, in main\n"
      "    cnn, layerList = loadCaffemodel(params.model_file, params.pooling, params.gpu)\n"
      "  File \"/home/x/.local/lib/python3.7/site-packages/torch/serialization.py\", line 529, in "
      "load\n"
      "    return _legacy_load(opened_file, map_location, pickle_module, **pickle_load_args)\n"
      "  File \"/home/x/.local/lib/python3.7/site-packages/torch/serialization.py\", line 156, in "
      "default_restore_\n";
  warnings w;
  const auto r = find(cut, &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].message_cut);
  EXPECT_EQ(r[0].kind, oom_kind::torch);
  EXPECT_EQ(r[0].line, 7);
  EXPECT_EQ(r[0].missing, std::vector<std::string>{"the error line"});
  EXPECT_FALSE(r[0].context.empty());
  EXPECT_TRUE(any_warning_has(w, "cut before its error line"));
  // The same traceback with its error line is not a memory failure of this reader's.
  EXPECT_TRUE(find(cut + "ValueError: bad pickle\n").empty());
  // A traceback with no frame is nothing.
  EXPECT_TRUE(find("Traceback (most recent call last):\n").empty());
}

// pytorch/pytorch#109888: two figures typed at the Python prompt, read as the allocator's.
TEST(FailureLine, FiguresTypedAtThePythonPrompt) {
  const auto o = parse_observation(
      ">>> import torch\n"
      ">>> x = torch.ones(1,1).cuda()\n"
      ">>> torch.cuda.memory_reserved(0)\n"
      "2097152\n"
      ">>> torch.cuda.memory_allocated(0)\n"
      "512\n",
      "stats.txt", {});
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->stats.size(), 1u);
  EXPECT_EQ(o->stats[0].reserved.current, bytes{2097152});
  EXPECT_EQ(o->stats[0].allocated.current, bytes{512});
  // One figure alone says nothing of the cache: refused, as a log's one figure is.
  EXPECT_FALSE(parse_observation(">>> torch.cuda.memory_reserved(0)\n2097152\n", "stats.txt", {}));
}

TEST(FailureLine, RuntimeNamedByItsMarks) {
  EXPECT_EQ(detail::runtime_named("at ai.rapids.cudf.Table"), "rapids");
  EXPECT_EQ(detail::runtime_named("ERROR: LoadError ... /Knet/src/gpu.jl:33"), "knet");
  EXPECT_EQ(detail::runtime_named("no marks here"), "");
  // PyTorch's own sources hold "caffe2": not Caffe.
  EXPECT_EQ(
      detail::runtime_named("Exception raised from alloc at /pytorch/caffe2/core/x.cc (torch/lib)"),
      "torch");
}

}  // namespace
}  // namespace vramscope::observe
