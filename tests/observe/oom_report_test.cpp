#include <vramscope/observe/oom_report.hpp>

#include <gtest/gtest.h>

#include <cmath>

#include "observe/observe_data.hpp"

namespace vramscope::observe {
namespace {

using testing::approx;
using testing::data;
using testing::find;

TEST(OomReport, ReadsTheCurrentTorchMessage) {
  const auto r = find(data("torchrun_oom_rank0.log"));
  ASSERT_EQ(r.size(), 1u);  // printed twice by the launcher, reported once
  const oom_report& o = r[0];
  EXPECT_EQ(o.kind, oom_kind::torch);
  EXPECT_EQ(o.rank, 0);
  EXPECT_EQ(o.line, 4);
  EXPECT_EQ(o.gpu, 0);
  EXPECT_EQ(o.requested, 2 * GiB);
  EXPECT_EQ(o.capacity, approx(79.15, GiB));
  EXPECT_EQ(o.free, approx(1.25, GiB));
  ASSERT_EQ(o.processes.size(), 1u);
  EXPECT_EQ(o.processes[0].pid, 1234);
  EXPECT_EQ(o.processes[0].used, approx(77.89, GiB));
  EXPECT_EQ(o.allocated_by_pytorch, approx(70.12, GiB));
  EXPECT_EQ(o.reserved_unallocated, approx(6.51, GiB));
  EXPECT_EQ(o.reserved_by_pytorch, approx(70.12, GiB) + approx(6.51, GiB));
  EXPECT_EQ(o.raw.rfind("CUDA out of memory. Tried to allocate 2.00 GiB.", 0), 0u);
  EXPECT_EQ(o.raw.find("If reserved"), std::string::npos);
}

TEST(OomReport, ReadsTheOlderTorchMessage) {
  const auto r = find(data("oom_torch_old.log"));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].line, 5);
  EXPECT_EQ(r[0].gpu, 0);
  EXPECT_EQ(r[0].requested, 2 * GiB);
  EXPECT_EQ(r[0].capacity, approx(79.15, GiB));
  EXPECT_EQ(r[0].allocated_by_pytorch, approx(70.12, GiB));
  EXPECT_EQ(r[0].free, approx(1.25, GiB));
  EXPECT_EQ(r[0].reserved_by_pytorch, approx(76.63, GiB));
  EXPECT_EQ(r[0].reserved_unallocated, approx(76.63, GiB) - approx(70.12, GiB));
  EXPECT_TRUE(r[0].processes.empty());
}

TEST(OomReport, ReadsThisProcessAndOtherProcesses) {
  const auto r = find(
      "OutOfMemoryError: CUDA out of memory. Tried to allocate 5.96 GiB. GPU 1 has a total capacty of 23.69 GiB "
      "of which 5.25 GiB is free. Process 2006998 has 256.00 MiB memory in use. Including non-PyTorch memory, "
      "this process has 18.17 GiB memory in use. Of the allocated memory 17.88 GiB is allocated by PyTorch, and "
      "0 bytes is reserved by PyTorch but unallocated.\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].gpu, 1);
  EXPECT_EQ(r[0].capacity, approx(23.69, GiB));
  ASSERT_EQ(r[0].processes.size(), 2u);
  EXPECT_EQ(r[0].processes[0].pid, 2006998);
  EXPECT_EQ(r[0].processes[0].used, 256 * MiB);
  EXPECT_FALSE(r[0].processes[1].pid);
  EXPECT_EQ(r[0].processes[1].used, approx(18.17, GiB));
  EXPECT_EQ(r[0].reserved_unallocated, 0u);
}

TEST(OomReport, JoinsAMessageWrappedOverLines) {
  const auto r = find(
      "[rank2]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 764.00 MiB.\n"
      "[rank2]: GPU 2 has a total capacity of 47.37 GiB of which 442.88 MiB is free.\n"
      "[rank2]: Of the allocated memory 42.40 GiB is allocated by PyTorch, and 3.24 GiB is reserved by PyTorch "
      "but unallocated.\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].rank, 2);
  EXPECT_EQ(r[0].gpu, 2);
  EXPECT_EQ(r[0].requested, 764 * MiB);
  EXPECT_EQ(r[0].free, approx(442.88, MiB));
  EXPECT_EQ(r[0].reserved_unallocated, approx(3.24, GiB));
}

// A paste that kept the exception's name but not "CUDA out of memory.", with the capacity on
// the next line, is the same message.
TEST(OomReport, ReadsAMessageWithTheExceptionNameAndNoHeadline) {
  const auto r = find(
      "torch.OutOfMemoryError: Tried to allocate 4.64 GiB.\n"
      "GPU 0 has a total capacity of 79.33 GiB of which 1.11 GiB is free.\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].gpu, 0);
  EXPECT_EQ(r[0].requested, approx(4.64, GiB));
  EXPECT_EQ(r[0].free, approx(1.11, GiB));
  // Without a capacity on either line, "Tried to allocate" alone is not a torch message.
  EXPECT_TRUE(find("torch.OutOfMemoryError: Tried to allocate 4.64 GiB.\nsomething else\n").empty());
}

// An abridged message that puts the capacity's size before the word ("GPU 0 has 14.56 GiB
// capacity, of which 768.81 MiB is free") gives the same figures as torch's own sentence.
TEST(OomReport, ReadsACapacitySentenceWithItsSizeFirst) {
  const auto r = find(
      "OutOfMemoryError: Tried to allocate 1002.00 MiB.\n"
      "GPU 1 has 14.56 GiB capacity, of which 768.81 MiB is free.\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].gpu, 1);
  EXPECT_EQ(r[0].requested, 1002 * MiB);
  EXPECT_EQ(r[0].capacity, approx(14.56, GiB));
  EXPECT_EQ(r[0].free, approx(768.81, MiB));
  // A size before "capacity" that no GPU has is not the sentence.
  EXPECT_TRUE(find("OutOfMemoryError: Tried to allocate 1002.00 MiB.\nthe disk has 2 GiB capacity\n").empty());
}

TEST(OomReport, KeepsOneReportPerRank) {
  const std::string m = "CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a total capacity of 8.00 GiB "
                        "of which 0 bytes is free.";
  const auto r = find("[rank0]: " + m + "\n[rank1]: " + m + "\n[rank0]: " + m + "\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].rank, 0);
  EXPECT_EQ(r[1].rank, 1);
  EXPECT_EQ(r[0].free, 0u);
}

TEST(OomReport, ReadsXlaWithTheBfcDump) {
  const auto r = find(data("oom_xla_bfc.log"));
  ASSERT_EQ(r.size(), 1u);
  const oom_report& o = r[0];
  EXPECT_EQ(o.kind, oom_kind::xla);
  EXPECT_EQ(o.line, 2);
  EXPECT_EQ(o.gpu, 0);
  EXPECT_EQ(o.requested, 17179869184u);
  EXPECT_EQ(o.capacity, 77309411328u);
  EXPECT_EQ(o.in_use, 62523928576u);
  EXPECT_EQ(o.peak_in_use, 70866960384u);
  EXPECT_EQ(o.largest_free_block, 10737418240u);
}

TEST(OomReport, ReadsAnXlaErrorWithoutADump) {
  const auto r = find("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to "
                      "allocate 16.00GiB.\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, oom_kind::xla);
  EXPECT_EQ(r[0].requested, 16 * GiB);
  EXPECT_FALSE(r[0].capacity);
}

TEST(OomReport, ReadsThePjrtAndTheOlderXlaWording) {
  const auto pjrt = find("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory "
                         "allocating 2147483648 bytes.\n");
  ASSERT_EQ(pjrt.size(), 1u);
  EXPECT_EQ(pjrt[0].kind, oom_kind::xla);
  EXPECT_EQ(pjrt[0].requested, 2 * GiB);
  const auto old = find("RuntimeError: Resource exhausted: Out of memory while trying to allocate "
                        "3221225472 bytes.\n");
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].requested, 3 * GiB);
}

// Pasted from a terminal: wrapped at a space, inside a word, or just before the size.
TEST(OomReport, ReadsMessagesWrappedOverLines) {
  for (const char* text :
       {"XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying\n"
        "to allocate 1073741824 bytes.\n",
        "XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to all\n"
        "ocate 1073741824 bytes.\n",
        "XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory allocating\n"
        "  1073741824 bytes.\n"}) {
    const auto r = find(text);
    ASSERT_EQ(r.size(), 1u) << text;
    EXPECT_EQ(r[0].requested, GiB) << text;
    EXPECT_EQ(r[0].line, 1) << text;
  }
  const auto torch = find("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to\n"
                          "allocate 20.00 MiB (GPU 0; 15.78 GiB total capacity; 14.56 GiB already "
                          "allocated; 3.44 MiB free; 14.75 GiB reserved in total by PyTorch)\n");
  ASSERT_EQ(torch.size(), 1u);
  EXPECT_EQ(torch[0].requested, 20 * MiB);
  EXPECT_EQ(torch[0].gpu, 0);
}

// torch 1.0-1.3: "cached" is what the cache holds beyond the allocated memory. From
// RenYurui/StructureFlow#35, where it is below the allocated figure.
TEST(OomReport, ReadsTheOldCachedFigureAsReservedButUnallocated) {
  const auto r = find("RuntimeError: CUDA out of memory. Tried to allocate 8.13 GiB (GPU 0; 10.76 GiB "
                      "total capacity; 643.57 MiB already allocated; 8.20 GiB free; 32.43 MiB cached)\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].allocated_by_pytorch, approx(643.57, MiB));
  EXPECT_EQ(r[0].reserved_unallocated, approx(32.43, MiB));
  EXPECT_EQ(r[0].reserved_by_pytorch, approx(643.57, MiB) + approx(32.43, MiB));
  EXPECT_EQ(r[0].free, approx(8.20, GiB));
}

TEST(OomReport, IgnoresTensorflowsNotAFailureWarnings) {
  EXPECT_TRUE(find("W bfc_allocator.cc:243] Allocator (GPU_0_bfc) ran out of memory trying to allocate 1.25GiB "
                   "with freed_by_count=0. The caller indicates that this is not a failure, but may mean ...\n")
                  .empty());
}

TEST(OomReport, WarnsWhenTheSizeCannotBeRead) {
  warnings w;
  const auto r = find("RuntimeError: CUDA out of memory. Tried to allocate lots of memory\n", &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_FALSE(r[0].requested);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].line, 1);
  EXPECT_EQ(w[0].message, "out-of-memory message without a readable \"Tried to allocate\" size");
}

TEST(OomReport, FindsNothingInAQuietLog) { EXPECT_TRUE(find("step 1 loss 2.0\nstep 2 loss 1.9\n").empty()); }

TEST(OomReport, ReadsAMessagePastedFromTriedToAllocate) {
  const auto r = find("Tried to allocate 20.00 MiB (GPU 0; 1.96 GiB total capacity; 1.24 GiB already "
                         "allocated; 2.88 MiB free; 1.25 GiB reserved in total by PyTorch)\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, oom_kind::torch);
  EXPECT_EQ(r[0].requested, 20 * MiB);
  EXPECT_EQ(r[0].gpu, 0);
}

TEST(OomReport, AMessageWithoutFiguresIsStillAReport) {
  const auto r = find("RuntimeError: CUDA error: out of memory\n"
                         "RuntimeError: cuda runtime error (2) : out of memory at THCStorage.cu:66\n");
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].kind, oom_kind::torch);
  EXPECT_EQ(r[0].raw, "CUDA error: out of memory");
  EXPECT_FALSE(r[0].requested);
  EXPECT_EQ(r[1].line, 2);
  // PyTorch's message cut after its first sentence is the allocator's failure too; prose that
  // only mentions it is not.
  const auto cut = find(
      "RuntimeError: CUDA out of memory\n"
      "torch.OutOfMemoryError: CUDA out of memory.\n");
  ASSERT_EQ(cut.size(), 2u);
  EXPECT_EQ(cut[0].kind, oom_kind::torch);
  EXPECT_EQ(cut[1].line, 2);
  EXPECT_TRUE(find("I keep getting CUDA out of memory errors at step 3\n").empty());
}

// Pasted without the parentheses around the figures, and wrapped after the request.
// Below every framework: the driver's and the libraries' own names for the error, placed by the
// call that failed (a context's creation on the line or in the stack printed after it).
TEST(OomReport, ReadsTheDriversErrorWhenAContextCannotBeCreated) {
  const auto tf = find("2019-07-11 12:42:11.226602: W tensorflow/compiler/xla/service/platform_util.cc:240] unable "
                       "to create StreamExecutor for CUDA:0: failed initializing StreamExecutor for CUDA device "
                       "ordinal 0: Internal: failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out "
                       "of memory; total memory reported: 11523260416\n");
  ASSERT_EQ(tf.size(), 1u);
  EXPECT_EQ(tf[0].kind, oom_kind::cuda);
  EXPECT_EQ(tf[0].origin, oom_origin::context_creation);
  EXPECT_EQ(tf[0].capacity, 11523260416);
  EXPECT_FALSE(tf[0].requested);
  // JCuda prints the exception twice and the driver call a few lines below: one report.
  const auto jcuda = find("jpype._jexception.CudaExceptionPyRaisable: jcuda.CudaException: CUDA_ERROR_OUT_OF_MEMORY\n"
                          "\n"
                          "jcuda.CudaException: CUDA_ERROR_OUT_OF_MEMORY\n"
                          "    at jcuda.driver.JCudaDriver.checkResult(JCudaDriver.java:337)\n"
                          "    at jcuda.driver.JCudaDriver.cuCtxCreate(JCudaDriver.java:1514)\n");
  ASSERT_EQ(jcuda.size(), 1u);
  EXPECT_EQ(jcuda[0].origin, oom_origin::context_creation);
  EXPECT_EQ(jcuda[0].line, 1);
}

TEST(OomReport, ReadsALibrarysAllocationFailureOutsideThePool) {
  const auto r = find("jaxlib.xla_extension.XlaRuntimeError: UNKNOWN: CUDNN_STATUS_ALLOC_FAILED\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, oom_kind::xla);
  EXPECT_EQ(r[0].origin, oom_origin::outside_allocator);
  const auto call = find("RuntimeError: :0: cudaFuncSetAttribute(kernel_entry, "
                         "cudaFuncAttributeMaxDynamicSharedMemorySize, n): out of memory.\n");
  ASSERT_EQ(call.size(), 1u);
  EXPECT_EQ(call[0].kind, oom_kind::cuda);
  EXPECT_EQ(call[0].origin, oom_origin::outside_allocator);
  EXPECT_EQ(call[0].raw.rfind("cudaFuncSetAttribute(", 0), 0u);
  // PyTorch's runtime error is raised outside its caching allocator too; THC's was the allocator's.
  EXPECT_EQ(find("RuntimeError: CUDA error: out of memory\n")[0].origin, oom_origin::outside_allocator);
  EXPECT_EQ(find("RuntimeError: cuda runtime error (2) : out of memory at THCStorage.cu:58\n")[0].origin,
            oom_origin::allocator);
}

TEST(OomReport, ReadsTheOlderMessageWithoutItsParentheses) {
  const auto r = find("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB \n"
                      "GPU 0; 8.00 GiB total capacity; 7.20 GiB already allocated; 0 bytes free; 7.30 GiB "
                      "reserved in total by PyTorch\n"
                      "If reserved memory is >> allocated memory try setting max_split_size_mb\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].requested, 20 * MiB);
  EXPECT_EQ(r[0].gpu, 0);
  EXPECT_EQ(r[0].capacity, 8 * GiB);
  EXPECT_EQ(r[0].allocated_by_pytorch, approx(7.20, GiB));
  EXPECT_EQ(r[0].free, 0u);
  EXPECT_EQ(r[0].reserved_unallocated, approx(7.30, GiB) - approx(7.20, GiB));
}

// TensorFlow's error names the tensor: its shape times its dtype's size is the request.
TEST(OomReport, ReadsTensorFlowsTensorMessageAsABfcPoolReport) {
  const auto r = find("ResourceExhaustedError (see above for traceback): OOM when allocating tensor with "
                      "shape[64,372,32,32] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by "
                      "allocator GPU_0_bfc\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, oom_kind::xla);
  EXPECT_TRUE(r[0].tensorflow);
  EXPECT_EQ(r[0].origin, oom_origin::allocator);
  EXPECT_EQ(r[0].requested, 64u * 372 * 32 * 32 * 4);
  EXPECT_EQ(r[0].gpu, 0);
}

// The pool's request to the driver: an allocator's report when the pool grows during the run,
// a failure before the job held anything when the device was created with little free.
TEST(OomReport, ReadsTensorFlowsPoolRequestsToTheDriver) {
  const auto grown = find(" E cuda_driver.cc:936] failed to allocate 378.60M (396990720 bytes) from device: "
                          "CUDA_ERROR_OUT_OF_MEMORY\n"
                          " E cuda_driver.cc:936] failed to allocate 378.60M (396990720 bytes) from device: "
                          "CUDA_ERROR_OUT_OF_MEMORY\n");
  ASSERT_EQ(grown.size(), 1u);
  EXPECT_EQ(grown[0].kind, oom_kind::xla);
  EXPECT_TRUE(grown[0].tensorflow);
  EXPECT_EQ(grown[0].origin, oom_origin::allocator);
  EXPECT_EQ(grown[0].requested, 396990720u);

  const auto created = find("I gpu_device.cc:885] Found device 0 with properties:\n"
                            "Total memory: 7.92GiB\n"
                            "Free memory: 190.31MiB\n"
                            "E cuda_driver.cc:1002] failed to allocate 190.31M (199557120 bytes) from device: "
                            "CUDA_ERROR_OUT_OF_MEMORY\n");
  ASSERT_EQ(created.size(), 1u);
  EXPECT_EQ(created[0].origin, oom_origin::context_creation);
  EXPECT_EQ(created[0].capacity, approx(7.92, GiB));
  EXPECT_EQ(created[0].free, approx(190.31, MiB));

  const auto roomy = find("totalMemory: 7.92GiB freeMemory: 7.50GiB\n"
                          "failed to allocate 7.00G (7516192768 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY\n");
  ASSERT_EQ(roomy.size(), 1u);
  EXPECT_EQ(roomy[0].origin, oom_origin::allocator);
}

// Another framework's allocator (Theano): the figures the line has, and a warning naming what
// it lacks.
TEST(OomReport, ReadsAnotherFrameworksOutOfMemoryLineByItsByteCounts) {
  warnings w;
  const auto r = find("Error allocating 45158400 bytes of device memory (out of memory). Driver report "
                      "44666880 bytes free and 536543232 bytes total\n", &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, oom_kind::cuda);
  EXPECT_EQ(r[0].origin, oom_origin::allocator);
  EXPECT_EQ(r[0].requested, 45158400u);
  EXPECT_EQ(r[0].free, 44666880u);
  EXPECT_EQ(r[0].capacity, 536543232u);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].message.find("not in it"), std::string::npos) << w[0].message;
  // A line that only mentions memory is not a report.
  EXPECT_TRUE(find("allocating 1024 bytes for the cache\n").empty());
}

// Faiss's GPU resources name the runtime call and the device: the request and the GPU are read.
TEST(OomReport, ReadsFaisssFailedCudaMallocWithItsDevice) {
  const auto r = find(
      "RuntimeError: Error in virtual void* faiss::gpu::StandardGpuResourcesImpl::allocMemory("
      "const faiss::gpu::AllocRequest&) at faiss/gpu/StandardGpuResources.cpp:443: Error: "
      "'err == cudaSuccess' failed: Failed to cudaMalloc 1610612736 bytes on device 1 (error 2 "
      "out of memory\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, oom_kind::cuda);
  EXPECT_EQ(r[0].requested, 1610612736u);
  EXPECT_EQ(r[0].gpu, 1);
  // A log line naming the call and a byte count without a failure is no report.
  EXPECT_TRUE(find("cudaMalloc 1024 bytes for the workspace on device 0\n").empty());
}

// Darknet's check_error: the runtime's error string after "CUDA Error: ", no figures, a CUDA call's
// failure rather than an allocator's.
TEST(OomReport, ReadsDarknetsCudaErrorLine) {
  const auto r = find(
      "102 CUDA Error: out of memory\npython3: ./src/cuda.c:36: check_error: Assertion `0' "
      "failed.\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, oom_kind::cuda);
  EXPECT_FALSE(r[0].requested.has_value());
}

// torch >= 2.6 names the memory of private pools (CUDA graphs) between the two figures.
TEST(OomReport, ReadsTheMessageWithPrivatePools) {
  const auto r = find("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB. GPU 0 has a "
                      "total capacity of 79.19 GiB of which 512.00 MiB is free. Including non-PyTorch memory, "
                      "this process has 78.67 GiB memory in use. Of the allocated memory 70.00 GiB is "
                      "allocated by PyTorch, with 2.00 GiB allocated in private pools (e.g., CUDA Graphs), "
                      "and 7.50 GiB is reserved by PyTorch but unallocated. If reserved but unallocated "
                      "memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].allocated_by_pytorch, 70 * GiB);
  EXPECT_EQ(r[0].private_pools, 2 * GiB);
  EXPECT_EQ(r[0].reserved_unallocated, approx(7.5, GiB));
  EXPECT_EQ(r[0].reserved_by_pytorch, approx(77.5, GiB));
}

// The traceback before a message is kept, back to the previous message, for the doctor to place
// the failure (a checkpoint save, an evaluation loop).
TEST(OomReport, KeepsTheTracebackBeforeEachMessage) {
  const auto r = find("Traceback (most recent call last):\n"
                      "  File \"train.py\", line 80, in <module>\n"
                      "    trainer.save_model()\n"
                      "\n"
                      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
                      "total capacity of 79.15 GiB of which 1.25 GiB is free.\n"
                      "  File \"eval.py\", line 3, in evaluate\n"
                      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a "
                      "total capacity of 79.15 GiB of which 1.25 GiB is free.\n");
  ASSERT_EQ(r.size(), 2u);
  ASSERT_EQ(r[0].context.size(), 3u);
  EXPECT_EQ(r[0].context[0], "1: Traceback (most recent call last):");
  EXPECT_EQ(r[0].context[2], "3: trainer.save_model()");
  ASSERT_EQ(r[1].context.size(), 1u);
  EXPECT_EQ(r[1].context[0], "6: File \"eval.py\", line 3, in evaluate");
}


// PyTorch's cudaMallocAsync backend words its error itself (c10/cuda/CUDAMallocAsyncAllocator.cpp,
// mallocAsync): one figure a line, the memory-fraction limit's value on the line after its label
// (UINT64_MAX bytes, printed in GiB, when no fraction was set).
TEST(OomReport, ReadsTheCudaMallocAsyncMessage) {
  warnings w;
  const auto r = find("torch.cuda.OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)\n"
                      "Currently allocated     : 21.55 GiB\n"
                      "Requested               : 952.00 MiB\n"
                      "Device limit            : 24.00 GiB\n"
                      "Free (according to CUDA): 0 bytes\n"
                      "PyTorch limit (set by user-supplied memory fraction)\n"
                      "                        : 17179869184.00 GiB\n"
                      "\n"
                      "Prompt executed in 188.48 seconds\n",
                      &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(w.empty());
  const oom_report& o = r[0];
  EXPECT_EQ(o.kind, oom_kind::torch);
  EXPECT_TRUE(o.malloc_async);
  EXPECT_EQ(o.origin, oom_origin::allocator);
  EXPECT_EQ(o.line, 1);
  EXPECT_EQ(o.gpu, 0);
  EXPECT_EQ(o.allocated_by_pytorch, approx(21.55, GiB));
  EXPECT_EQ(o.requested, 952 * MiB);
  EXPECT_EQ(o.capacity, 24 * GiB);
  EXPECT_EQ(o.free, 0u);
  EXPECT_FALSE(o.fraction_limit);  // none set
  EXPECT_FALSE(o.reserved_by_pytorch);  // the pool's reserved bytes are not in the message
  EXPECT_FALSE(o.reserved_unallocated);
  EXPECT_EQ(o.raw.find("Prompt"), std::string::npos);
}

TEST(OomReport, ReadsTheCudaMallocAsyncLimitOfAMemoryFraction) {
  const auto r = find("[rank1]: torch.OutOfMemoryError: Allocation on device 1 would exceed allowed memory. (out of memory)\n"
                      "[rank1]: Currently allocated     : 11.90 GiB\n"
                      "[rank1]: Requested               : 512.00 MiB\n"
                      "[rank1]: Device limit            : 79.25 GiB\n"
                      "[rank1]: Free (according to CUDA): 60.10 GiB\n"
                      "[rank1]: PyTorch limit (set by user-supplied memory fraction)\n"
                      "[rank1]:                         : 11.89 GiB\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].rank, 1);
  EXPECT_EQ(r[0].gpu, 1);
  EXPECT_EQ(r[0].requested, 512 * MiB);
  EXPECT_EQ(r[0].free, approx(60.10, GiB));
  EXPECT_EQ(r[0].fraction_limit, approx(11.89, GiB));
}

TEST(OomReport, WarnsWhenTheCudaMallocAsyncFiguresAreCutOff) {
  warnings w;
  const auto r = find("OutOfMemoryError: Allocation on device 0 would exceed allowed memory. (out of memory)\n", &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].malloc_async);
  EXPECT_FALSE(r[0].requested);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].line, 1);
  EXPECT_NE(w[0].message.find("\"Requested\""), std::string::npos);
}

// TensorFlow 1.0's pool (tensorflow/core/common_runtime/bfc_allocator.cc) capitalised the line and
// named no allocator; jaxlib's vendored copy of the same file is not TensorFlow.
TEST(OomReport, ReadsTensorflow1sPoolLine) {
  const auto r = find("W tensorflow/core/common_runtime/bfc_allocator.cc:275] Ran out of memory trying to allocate "
                      "392.00MiB. See logs for memory state.\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, oom_kind::xla);
  EXPECT_TRUE(r[0].tensorflow);
  EXPECT_EQ(r[0].requested, 392 * MiB);
  const auto jax = find("W external/org_tensorflow/tensorflow/core/common_runtime/bfc_allocator.cc:457] Allocator "
                        "(GPU_0_bfc) ran out of memory trying to allocate 1.00GiB (rounded to 1073741824)\n");
  ASSERT_EQ(jax.size(), 1u);
  EXPECT_FALSE(jax[0].tensorflow);
}

// TensorFlow 1.0 dumped the pool's state before its line ("See logs for memory state"): the dump
// above is this failure's, its statistics read even where a paste wrapped them in Markdown bold.
// The later wording comes before its dump, so a dump above it is another failure's.
TEST(OomReport, ReadsTensorflow1sDumpPrintedBeforeItsLine) {
  const auto r = find(
      "I tensorflow/core/common_runtime/bfc_allocator.cc:700] Sum Total of in-use chunks: "
      "11.16GiB\n"
      "I tensorflow/core/common_runtime/bfc_allocator.cc:702] Stats: \n"
      "**Limit:                 12049707828\n"
      "InUse:                 11984328960\n"
      "MaxInUse:              12038083584**\n"
      "\n"
      "W tensorflow/core/common_runtime/bfc_allocator.cc:274] ******************************_xx\n"
      "W tensorflow/core/common_runtime/bfc_allocator.cc:275] Ran out of memory trying to allocate "
      "39.81MiB.  See "
      "logs for memory state.\n"
      "W tensorflow/core/framework/op_kernel.cc:968] Resource exhausted: OOM when allocating "
      "tensor with "
      "shape[256,832,7,7]\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_TRUE(r[0].tensorflow);
  EXPECT_EQ(r[0].line, 8);
  EXPECT_EQ(r[0].capacity, 12049707828u);
  EXPECT_EQ(r[0].in_use, 11984328960u);
  EXPECT_EQ(r[0].peak_in_use, 12038083584u);
  EXPECT_TRUE(r[0].missing.empty());
  // The newer line opens its own report: the statistics above it stay out of it.
  const auto later = find(
      "Limit:                 12049707828\n"
      "InUse:                 11984328960\n"
      "W tensorflow/core/common_runtime/bfc_allocator.cc:457] Allocator (GPU_0_bfc) ran out of "
      "memory trying to "
      "allocate 1.00GiB (rounded to 1073741824)\n");
  ASSERT_FALSE(later.empty());
  EXPECT_FALSE(later.back().capacity);
  EXPECT_EQ(later.back().requested, 1073741824u);
}

// PyTorch's message with its request cut out and its figures kept, as an issue's title quotes it
// (tests/data/threads 156): read with the figures there, and the missing request named.
TEST(OomReport, ReadsTorchsMessageWithoutItsRequest) {
  warnings w;
  const auto r = find("RuntimeError: CUDA out of memory.(GPU 1; 14.76 GiB total capacity;)\n", &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, oom_kind::torch);
  EXPECT_EQ(r[0].gpu, 1);
  EXPECT_EQ(r[0].capacity, approx(14.76, GiB));
  EXPECT_FALSE(r[0].requested);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].message.find("without a readable \"Tried to allocate\" size"), std::string::npos);
  // Cut after its first sentence, with nothing after it: a report without figures, as before.
  const auto bare = find("RuntimeError: CUDA out of memory.\n");
  ASSERT_EQ(bare.size(), 1u);
  EXPECT_FALSE(bare[0].capacity);
}

// A failure in words, of a tool no reader knows by name: the request and what was left.
TEST(OomReport, ReadsAFailureLineInWordsWithItsRequestAndWhatWasLeft) {
  warnings w;
  const auto r = find(
      "12:01:07 sync step 40\n"
      "12:01:09 OOM while loading shard 3 (requested 2.50 GiB, only 1.25 GiB free)\n",
      &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, oom_kind::cuda);
  EXPECT_EQ(r[0].line, 2);
  EXPECT_EQ(r[0].requested, approx(2.5, GiB));
  EXPECT_EQ(r[0].free, approx(1.25, GiB));
  EXPECT_FALSE(r[0].capacity);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].line, 2);
  EXPECT_NE(w[0].message.find("the device's capacity and what this process held are not in it"),
            std::string::npos);
  // "need X, Y available" the other way round, and a word that only contains "oom" is no failure.
  const auto other = find("not enough GPU memory: need 3 GB, 1.5 GB available\n");
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].requested, 3 * GiB);
  EXPECT_EQ(other[0].free, approx(1.5, GiB));
  EXPECT_TRUE(find("zoom level needs 3 GB of room, 1 GB available\n").empty());
  EXPECT_TRUE(find("OOM killer is disabled for this job\n").empty());  // no request
}

// XLA's rematerialization warning: the program's peak after it as the need, its limit kept
// signed; dropped beside the allocator's own message.
TEST(OomReport, ReadsXlasRematerializationWarningWhereNoMessageFollows) {
  const std::string warning =
      "2031-01-02 10:00:00.000001: W external/xla/xla/service/hlo_rematerialization.cc:3005] Can't "
      "reduce "
      "memory use below -2.00GiB (-2147483648 bytes) by rematerialization; only reduced to "
      "12.50GiB "
      "(13421772800 bytes), down from 13.00GiB (13958643712 bytes) originally\n";
  warnings w;
  const auto r = find(warning, &w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].kind, oom_kind::xla);
  EXPECT_TRUE(r[0].compile_estimate);
  EXPECT_EQ(r[0].requested, 13421772800u);
  EXPECT_EQ(r[0].compile_limit, -2147483648LL);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].message.find("read as what the program needs"), std::string::npos);
  const auto both =
      find(warning +
           "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while "
           "trying to allocate 13421772800 bytes.\n");
  ASSERT_EQ(both.size(), 1u);
  EXPECT_FALSE(both[0].compile_estimate);
  EXPECT_EQ(both[0].line, 2);
}

// TensorFlow 1.x: "tensor of shape [N]" with a space, as later "with shape[N]".
TEST(OomReport, ReadsTensorFlowOnesShapeWithASpace) {
  const auto r = find(
      "ResourceExhaustedError: OOM when allocating tensor of shape [256,1024] and type float\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].requested, 256u * 1024 * 4);
}

// Early TensorFlow 1.x printed no type: float, its default, is assumed and said; dimensions a
// paste left separated by spaces are read too.
TEST(OomReport, ReadsATensorMessageWithoutItsTypeAsFloatSayingSo) {
  warnings w;
  const auto r = find(
      "ResourceExhaustedError: OOM when allocating tensor with shape[100,32,28,28]\n"
      "OOM when allocating tensor with shape [1 16 32] by allocator GPU_0_bfc\n",
      &w);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].requested, 100u * 32 * 28 * 28 * 4);
  EXPECT_EQ(r[1].requested, 16u * 32 * 4);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].message.find("tensor message without its type: read as float"), std::string::npos)
      << w[0].message;
  EXPECT_TRUE(
      find("OOM when allocating tensor with shape[99999999999,99999999999,99999999999]\n")[0]
          .requested == std::nullopt);  // overflows: not read
}

}  // namespace
}  // namespace vramscope::observe
