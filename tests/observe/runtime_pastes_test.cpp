// Pastes of runtimes and benchmarks that hold figures or failures a maintainer reads, each in its
// documented format: CNTK's CUDA_CALL check, Theano's CNMeM pool and cuDNN handle, a benchmark
// table laid with one variant per row, a line of allocated figures alone, and the rank and GPU a
// distributed program's processes print. What is read, and what the reader says is missing.
#include <vramscope/observe/oom_report.hpp>
#include <vramscope/observe/read_observation.hpp>

#include <gtest/gtest.h>

#include "observe/failure_line.hpp"
#include "observe/memory_figures.hpp"
#include "observe/observe_data.hpp"

namespace vramscope::observe {
namespace {

using testing::any_warning_has;
using testing::find;

// CNTK's CudaCall: "LIB failure N: TEXT ; GPU=G ; hostname=H ; expr=CALL".
TEST(RuntimePastes, CntkCudaFailureTwoIsADeviceAllocation) {
  warnings w;
  const auto r = find(
      "CUDA failure 2: out of memory ; GPU=0 ; hostname=node1 ; expr=cudaMalloc((void**) &p, n)\n",
      w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].allocator, oom_allocator::cuda);
  EXPECT_EQ(r[0].origin, oom_origin::allocator);
  EXPECT_EQ(r[0].status, "cudaErrorMemoryAllocation (2)");
  EXPECT_EQ(r[0].runtime, "cntk");
  EXPECT_TRUE(any_warning_has(w, "without figures"));
}

// The runtime's log line and the exception that repeats it are one failure; a failure of another
// status, or the same status far later, is another.
TEST(RuntimePastes, AFailurePrintedAgainIsOneReport) {
  warnings w;
  const auto cntk = find(
      "About to throw exception 'cuDNN failure 2: CUDNN_STATUS_ALLOC_FAILED ; GPU=0 ; hostname=h ; "
      "expr=finder(c, a)'\n"
      "cuDNN failure 2: CUDNN_STATUS_ALLOC_FAILED ; GPU=0 ; hostname=h ; expr=finder(c, a)\n\n"
      "EXCEPTION occurred: cuDNN failure 2: CUDNN_STATUS_ALLOC_FAILED ; GPU=0 ; hostname=h ; "
      "expr=finder(c, a)\n",
      w);
  EXPECT_EQ(cntk.size(), 1u);
  const auto theano = find(
      "initCnmem: cnmemInit call failed! Reason=CNMEM_STATUS_OUT_OF_MEMORY. numdev=1\n\nTraceback "
      "(most recent "
      "call last):\n  File \"enhance.py\", line 106, in <module>\n    import theano\nRuntimeError: "
      "('initCnmem: "
      "cnmemInit call failed! Reason=CNMEM_STATUS_OUT_OF_MEMORY. numdev=1\\n', 'You asked to force "
      "this device')\n",
      w);
  EXPECT_EQ(theano.size(), 1u);
  std::string far = "CUDA failure 2: out of memory ; GPU=0 ; hostname=h ; expr=cudaMalloc(p)\n";
  for (int k = 0; k < 25; ++k) far += "epoch " + std::to_string(k) + "\n";
  far += "CUDA failure 2: out of memory ; GPU=0 ; hostname=h ; expr=cudaMalloc(q)\n";
  EXPECT_EQ(find(far, w).size(), 2u);
  EXPECT_EQ(find("CUDA failure 2: out of memory ; GPU=0 ; hostname=h ; expr=cudaMalloc(p)\n"
                 "CUBLAS failure 3: CUBLAS_STATUS_ALLOC_FAILED ; GPU=0 ; hostname=h ; "
                 "expr=cublasCreate(&h)\n",
                 w)
                .size(),
            2u);
}

TEST(RuntimePastes, CntkLibraryFailuresNameTheirLibrary) {
  const auto cublas = detail::failure_line_of(
      "CUBLAS failure 3: CUBLAS_STATUS_ALLOC_FAILED ; GPU=1 ; hostname=h ; expr=cublasCreate(&h)");
  ASSERT_TRUE(cublas);
  EXPECT_EQ(cublas->library, "cublas");
  EXPECT_EQ(cublas->origin, oom_origin::outside_allocator);
  const auto cudnn = detail::failure_line_of(
      "cuDNN failure 2: CUDNN_STATUS_ALLOC_FAILED ; GPU=0 ; hostname=h ; expr=x");
  ASSERT_TRUE(cudnn);
  EXPECT_EQ(cudnn->library, "cudnn");
  // Other statuses are not memory failures: an illegal address, a launch failure.
  EXPECT_FALSE(detail::failure_line_of(
      "CUDA failure 700: an illegal memory access ; GPU=0 ; hostname=h ; expr=x"));
  EXPECT_FALSE(
      detail::failure_line_of("CUBLAS failure 13: CUBLAS_STATUS_EXECUTION_FAILED ; GPU=0"));
}

// ONNX Runtime keeps CNTK's check with "; file=F ; line=L" added, and its BFC arena names the
// request it refused.
TEST(RuntimePastes, OnnxRuntimesCheckAndArena) {
  warnings w;
  const auto check = find(
      "[ONNXRuntimeError] : 6 : RUNTIME_EXCEPTION : CUDA failure 2: out of memory ; GPU=0 ; "
      "hostname=h ; "
      "file=/src/onnxruntime/core/providers/cuda/cuda_allocator.cc ; line=47 ; "
      "expr=cudaMalloc((void**)&p, size);\n",
      w);
  ASSERT_EQ(check.size(), 1u);
  EXPECT_EQ(check[0].runtime, "onnxruntime");
  EXPECT_EQ(check[0].status, "cudaErrorMemoryAllocation (2)");
  warnings arena_w;
  const auto arena = find(
      "[E:onnxruntime:, sequential_executor.cc:494 ExecuteKernel] Non-zero status code returned "
      "while running "
      "Conv node. Status Message: bfc_arena.cc:368 void* "
      "onnxruntime::BFCArena::AllocateRawInternal(size_t, bool) "
      "Failed to allocate memory for requested buffer of size 2147483648\n",
      arena_w);
  ASSERT_EQ(arena.size(), 1u);
  EXPECT_EQ(arena[0].allocator, oom_allocator::other);
  EXPECT_EQ(arena[0].origin, oom_origin::allocator);
  EXPECT_EQ(arena[0].requested, 2147483648u);
  EXPECT_EQ(arena[0].runtime, "onnxruntime");
  EXPECT_TRUE(any_warning_has(arena_w, "what the arena held, its limit"));
  // Cut before its size: read, the size named as missing.
  const auto cut = find("Failed to allocate memory for requested buffer of size \n", arena_w);
  ASSERT_EQ(cut.size(), 1u);
  EXPECT_FALSE(cut[0].requested);
  EXPECT_EQ(cut[0].missing, (std::vector<std::string>{"requested buffer of size"}));
}

// The driver's allocation named as the failed call is the framework's own allocator calling the
// driver (libgpuarray, Numba), not a call beside a pool; pinned host memory is not it.
TEST(RuntimePastes, CuMemAllocNamedIsTheFrameworksAllocation) {
  warnings w;
  const auto gpuarray = find(
      "pygpu.gpuarray.GpuArrayException: b'cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY: out of memory'\n",
      w);
  ASSERT_EQ(gpuarray.size(), 1u);
  EXPECT_EQ(gpuarray[0].origin, oom_origin::allocator);
  EXPECT_EQ(gpuarray[0].runtime, "theano");
  const auto numba = find(
      "numba.cuda.cudadrv.driver.CudaAPIError: [2] Call to cuMemAlloc results in "
      "CUDA_ERROR_OUT_OF_MEMORY\n",
      w);
  ASSERT_EQ(numba.size(), 1u);
  EXPECT_EQ(numba[0].origin, oom_origin::allocator);
  const auto host = find("Call to cuMemAllocHost results in CUDA_ERROR_OUT_OF_MEMORY\n", w);
  ASSERT_EQ(host.size(), 1u);
  EXPECT_EQ(host[0].origin, oom_origin::outside_allocator);
}

// Theano's old back-end at import with lib.cnmem=1: the pool could not be created.
TEST(RuntimePastes, CnmemInitFailureIsThePoolsCreation) {
  warnings w;
  const auto r = find(
      "ERROR (theano.sandbox.cuda): ERROR: Not using GPU. Initialisation of device gpu failed:\n"
      "initCnmem: cnmemInit call failed! Reason=CNMEM_STATUS_OUT_OF_MEMORY. numdev=1\n",
      w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].library, "cnmem");
  EXPECT_EQ(r[0].status, "cnmemInit: CNMEM_STATUS_OUT_OF_MEMORY");
  EXPECT_EQ(r[0].runtime, "theano");
  EXPECT_EQ(r[0].line, 2);
  EXPECT_TRUE(any_warning_has(w, "CNMeM's pool"));
  // The same status from a later allocation out of the pool is not its creation.
  const auto later = detail::failure_line_of("MemoryError: CNMEM_STATUS_OUT_OF_MEMORY");
  ASSERT_TRUE(later);
  EXPECT_EQ(later->status, "CNMEM_STATUS_OUT_OF_MEMORY");
}

// cuDNN's handle not created, in Theano's and TensorFlow's wording: the library's failure, its
// status naming no lack of memory.
TEST(RuntimePastes, CudnnHandleCreationIsTheLibrarysFailure) {
  warnings w;
  const auto r = find(
      "RuntimeError: ('The following error happened while compiling the node', "
      "GpuDnnConv{algo='small'}(x), "
      "'\\n', 'could not create cuDNN handle: CUDNN_STATUS_INTERNAL_ERROR')\n",
      w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].library, "cudnn");
  EXPECT_EQ(r[0].origin, oom_origin::outside_allocator);
  EXPECT_EQ(r[0].status, "cudnnCreate: CUDNN_STATUS_INTERNAL_ERROR");
  EXPECT_TRUE(r[0].status_not_memory);
  EXPECT_EQ(r[0].runtime, "theano");
  const auto tf = detail::failure_line_of(
      "E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] Could not create cudnn handle: "
      "CUDNN_STATUS_ALLOC_FAILED");
  ASSERT_TRUE(tf);
  EXPECT_TRUE(tf->names_memory);
  EXPECT_EQ(detail::runtime_named("E tensorflow/stream_executor/cuda/cuda_dnn.cc:329] x"),
            "tensorflow");
  // TensorFlow's convolution kernels say it without naming cuDNN's call or TensorFlow.
  const auto conv = detail::failure_line_of(
      "UnknownError: Failed to get convolution algorithm. This is probably because cuDNN failed "
      "to initialize, so try looking to see if a warning log message was printed above.");
  ASSERT_TRUE(conv);
  EXPECT_EQ(conv->library, "cudnn");
  EXPECT_EQ(detail::runtime_named("UnknownError: Failed to get convolution algorithm."),
            "tensorflow");
  // StreamExecutor's cuBLAS handle: the Create call's failure, with its status.
  const auto blas = find(
      "E c:\\tf\\tensorflow\\stream_executor\\cuda\\cuda_blas.cc:372] failed to create cublas "
      "handle: CUBLAS_STATUS_ALLOC_FAILED\n",
      w);
  ASSERT_EQ(blas.size(), 1u);
  EXPECT_EQ(blas[0].library, "cublas");
  EXPECT_EQ(blas[0].status, "cublasCreate failed: CUBLAS_STATUS_ALLOC_FAILED");
}

// The other CUDA libraries' allocation statuses (cuFFT, cuSOLVER, cuSPARSE, cuRAND) and their
// handles' creation failing: each the library's own failure, outside the framework's pool; the
// runtime named by its frames (CuPy's package, TensorFlow's sources).
TEST(RuntimePastes, OtherCudaLibrariesFailuresNameTheirLibrary) {
  warnings w;
  const auto fft = find(
      "  File \"cupy/cuda/cufft.pyx\", line 73, in cupy.cuda.cufft.check_result\n"
      "cupy.cuda.cufft.CuFftError: CUFFT_ALLOC_FAILED\n",
      w);
  ASSERT_EQ(fft.size(), 1u);
  EXPECT_EQ(fft[0].library, "cufft");
  EXPECT_EQ(fft[0].origin, oom_origin::outside_allocator);
  EXPECT_EQ(fft[0].runtime, "cupy");
  EXPECT_FALSE(fft[0].status_not_memory);
  for (const auto& [line, library] :
       {std::pair<std::string, std::string>{"status: CUSOLVER_STATUS_ALLOC_FAILED", "cusolver"},
        {"CUSPARSE_STATUS_ALLOC_FAILED in spmm", "cusparse"},
        {"curandCreateGenerator: CURAND_STATUS_ALLOCATION_FAILED", "curand"}}) {
    const auto f = detail::failure_line_of(line);
    ASSERT_TRUE(f) << line;
    EXPECT_EQ(f->library, library);
    EXPECT_TRUE(f->names_memory);
  }
  const auto solver = find(
      "F tensorflow/core/util/cuda_solvers.cc:115] Check failed: "
      "cusolverDnCreate(&cusolver_dn_handle) == CUSOLVER_STATUS_SUCCESS Failed to create "
      "cuSolverDN instance.\n",
      w);
  ASSERT_EQ(solver.size(), 1u);
  EXPECT_EQ(solver[0].library, "cusolver");
  EXPECT_EQ(solver[0].status, "cusolverDnCreate failed");
  EXPECT_TRUE(solver[0].status_not_memory);
  EXPECT_EQ(solver[0].runtime, "tensorflow");
  const auto blas = detail::failure_line_of(
      "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling "
      "`cublasCreate(handle)`");
  ASSERT_TRUE(blas);
  EXPECT_EQ(blas->library, "cublas");
  EXPECT_FALSE(blas->names_memory);
  // A handle created without a failure is no failure line.
  EXPECT_FALSE(detail::failure_line_of("cublasCreate(&handle); // one handle per stream"));
}

// Thrust's kernel launch that found no memory, under the RAPIDS Accelerator: outside the pool,
// and the JVM frames below the exception kept as its traceback.
TEST(RuntimePastes, ThrustLaunchFailureWithJvmFramesBelowIt) {
  warnings w;
  const auto r = find(
      "WARN TaskSetManager: Lost task 8.0: ai.rapids.cudf.CudfException: parallel_for failed: "
      "cudaErrorMemoryAllocation: out of memory\n"
      "\tat ai.rapids.cudf.ColumnView.matchesRe(Native Method)\n"
      "\tat com.nvidia.spark.rapids.GpuCast.doColumnar(GpuCast.scala:326)\n",
      w);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].origin, oom_origin::outside_allocator);
  EXPECT_EQ(r[0].runtime, "rapids");
  ASSERT_EQ(r[0].context.size(), 2u);
  EXPECT_NE(r[0].context[1].find("com.nvidia.spark.rapids.GpuCast"), std::string::npos);
  // The same status from an allocation is the allocator's.
  const auto alloc =
      detail::failure_line_of("RMM failure: cudaErrorMemoryAllocation out of memory");
  ASSERT_TRUE(alloc);
  EXPECT_EQ(alloc->origin, oom_origin::allocator);
}

// A pull request's benchmark: the header names the figures, one row per variant.
TEST(RuntimePastes, ReadsATableWithOneVariantPerRow) {
  const auto o = parse_observation(
      "| Initialization | Peak allocated | Peak reserved | Peak device used |\n"
      "| --- | ---: | ---: | ---: |\n"
      "| Side stream | 1,000.5 MiB | 3,000 MiB | 3,200 MiB |\n"
      "| Current stream | 1,000.5 MiB | 1,500 MiB | 1,700 MiB |\n",
      "bench.md");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->stats.size(), 2u);
  EXPECT_EQ(o->stats[0].allocated.peak, static_cast<bytes>(1000.5 * 1024 * 1024));
  EXPECT_EQ(o->stats[0].reserved.peak, 3000_MiB);
  EXPECT_EQ(o->stats[1].reserved.peak, 1500_MiB);
  EXPECT_EQ(o->stats[0].label, "Side stream (Peak allocated; Peak reserved)");
  EXPECT_EQ(o->stats[0].origin, stats_origin::log_figures);
  // No row names a before state: every row is a state the paste compares, none an outcome.
  EXPECT_FALSE(o->stats[1].after_change);
  const auto before = parse_observation(
      "| Run | Peak allocated | Peak reserved |\n|---|---|---|\n| Before | 10 GiB | 30 GiB |\n| "
      "After | 10 GiB | 12 GiB |\n",
      "bench.md");
  ASSERT_TRUE(before);
  ASSERT_EQ(before->stats.size(), 2u);
  EXPECT_FALSE(before->stats[0].after_change);
  EXPECT_TRUE(before->stats[1].after_change);
  // A row per rank or GPU: readings of that rank or device.
  const auto ranks = parse_observation(
      "| Rank | Peak allocated | Peak reserved |\n|---|---|---|\n| rank 0 | 10 GiB | 12 GiB |\n| 1 "
      "| 10 GiB | 14 GiB |\n"
      "| GPU 2 | 10 GiB | 11 GiB |\n",
      "bench.md");
  ASSERT_TRUE(ranks);
  ASSERT_EQ(ranks->stats.size(), 3u);
  EXPECT_EQ(ranks->stats[0].rank, 0);
  EXPECT_EQ(ranks->stats[1].rank, 1);
  EXPECT_EQ(ranks->stats[2].device, 2);
  EXPECT_FALSE(ranks->stats[2].rank);
}

// A line with the live tensors' peak and their figure after it, and no reserved figure: read,
// its reserved and active figures named as missing.
TEST(RuntimePastes, ReadsAllocatedFiguresAloneAndNamesWhatIsMissing) {
  const auto o = parse_observation("- stock build: peak_alloc = 35.5 GiB, final_alloc = 35.5 GiB\n",
                                   "notes.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->stats.size(), 1u);
  EXPECT_EQ(o->stats[0].allocated.peak, static_cast<bytes>(35.5 * 1024 * 1024 * 1024));
  EXPECT_EQ(o->stats[0].allocated.current, o->stats[0].allocated.peak);
  EXPECT_FALSE(o->stats[0].reserved.peak);
  EXPECT_EQ(o->stats[0].missing,
            (std::vector<std::string>{"reserved_bytes.all.peak", "active_bytes.all.peak"}));
  // Beside a line with both allocated and reserved, the lone allocated line adds nothing.
  const auto both = parse_observation(
      "peak_alloc = 3 GiB, final_alloc = 2 GiB\nAllocated: 2 GiB Reserved: 4 GiB\n", "notes.txt");
  ASSERT_TRUE(both);
  ASSERT_EQ(both->stats.size(), 1u);
  EXPECT_EQ(both->stats[0].reserved.current, 4_GiB);
  // One allocated figure alone is still no figure to read.
  EXPECT_FALSE(parse_observation("allocated = 3 GiB\n", "notes.txt"));
}

// A loop's own print that writes the unit once, after the last figure: the bare number before
// takes it when its label names an allocator figure; a step counter or a loss does not.
TEST(RuntimePastes, ReadsFiguresSharingTheUnitWrittenAfterTheLast) {
  const auto o = parse_observation(
      "step=0 TRAIN alloc=10.5 peak=68 GiB\nstep=1 TRAIN alloc=10.5 peak=74 GiB\n", "steps.txt");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_FALSE(o->stats.empty());
  EXPECT_EQ(o->stats[0].allocated.current, static_cast<bytes>(10.5 * 1024 * 1024 * 1024));
  EXPECT_EQ(o->stats[0].allocated.peak, 68_GiB);
  // "loss=0.25" before a sized figure is no memory figure: the line keeps its one size.
  const auto f =
      detail::find_memory_figures("iter=3 loss=0.25 reserved=4 GiB allocated=2 GiB\n", "log.txt");
  ASSERT_EQ(f.stats.size(), 1u);
  EXPECT_EQ(f.stats[0].reserved.current, 4_GiB);
  EXPECT_EQ(f.stats[0].allocated.current, 2_GiB);
  EXPECT_FALSE(f.stats[0].allocated.peak);
}

// A table whose figures no label names, and sizes with GNU's "G" suffix: the refusal quotes the
// rows that hold sizes, so the user sees what was found.
TEST(RuntimePastes, ARefusedTableQuotesItsRowsWithSizes) {
  const auto table = parse_observation(
      "| | Before | After |\n|---|---|---|\n| Peak VRAM | 335 GB -> OOM | **24 GB** |\n| Step time "
      "| 35 s | 0.5 s |\n",
      "pr.md");
  ASSERT_FALSE(table);
  EXPECT_NE(table.error().to_string().find("line 3: | Peak VRAM | 335 GB -> OOM | **24 GB** |"),
            std::string::npos)
      << table.error().to_string();
  EXPECT_EQ(table.error().to_string().find("line 4"), std::string::npos);
  const auto usage =
      parse_observation("seq     vram usage\n512     21.1G\n900     22.3G\n", "notes.txt");
  ASSERT_FALSE(usage);
  EXPECT_NE(usage.error().to_string().find("line 2: 512     21.1G; line 3: 900     22.3G"),
            std::string::npos)
      << usage.error().to_string();
  // The suffix read where a label names the figure.
  const auto g = parse_observation("Allocated: 2.5G Reserved: 4G\n", "notes.txt");
  ASSERT_TRUE(g) << g.error().to_string();
  ASSERT_EQ(g->stats.size(), 1u);
  EXPECT_EQ(g->stats[0].allocated.current, static_cast<bytes>(2.5 * 1024 * 1024 * 1024));
  EXPECT_EQ(g->stats[0].reserved.current, 4_GiB);
  // Not the start of a word.
  EXPECT_TRUE(detail::find_memory_figures("Allocated: 2Gx Reserved: 4Gy\n", "x").stats.empty());
}

// MPI or torch.distributed ranks that print the GPU they selected.
TEST(RuntimePastes, ReadsTheDeviceEachRankReports) {
  const auto o = parse_observation(
      "INFO:proc.py:186:main: comm.rank=0 device_id=0 0 540156928\n"
      "INFO:proc.py:186:main: comm.rank=1 device_id=0 0 0\n"
      "INFO:proc.py:186:main: comm.rank=2 device_id=0 466432 5992921600\n",
      "run.log");
  ASSERT_TRUE(o) << o.error().to_string();
  ASSERT_EQ(o->rank_devices.size(), 3u);
  EXPECT_EQ(o->rank_devices[2].rank, 2);
  EXPECT_EQ(o->rank_devices[2].device, 0);
  EXPECT_EQ(o->rank_devices[2].line, 3);
  EXPECT_TRUE(any_warning_has(o->warnings, "what each holds there is not read"));
  const auto torch = parse_observation(
      "[rank1]: model on cuda:1\n[rank0]: model on cuda:0\n[rank1]: again cuda:1\n", "run.log");
  ASSERT_TRUE(torch) << torch.error().to_string();
  ASSERT_EQ(torch->rank_devices.size(), 2u);  // the last line of each rank
  EXPECT_EQ(torch->rank_devices[1].rank, 1);
  EXPECT_EQ(torch->rank_devices[1].line, 3);
  // A CuPy pool's counts named on a rank's line are read with it; the warning is then not given.
  const auto pools = parse_observation(
      "comm.rank=0 device_id=0 used_bytes=540156928 total_bytes=1000000000\n"
      "comm.rank=1 device_id=0 used_bytes(): 0 total_bytes(): 5992921600\n",
      "run.log");
  ASSERT_TRUE(pools) << pools.error().to_string();
  ASSERT_EQ(pools->rank_devices.size(), 2u);
  EXPECT_EQ(pools->rank_devices[0].pool_used, 540156928u);
  EXPECT_EQ(pools->rank_devices[0].pool_held, 1000000000u);
  EXPECT_EQ(pools->rank_devices[1].pool_held, 5992921600u);
  EXPECT_TRUE(pools->stats.empty());
  EXPECT_FALSE(any_warning_has(pools->warnings, "what each holds there is not read"));
  // Labelled sizes on the ranks' lines are read as what each holds: no warning that they are not
  // (tests/data/threads 947).
  const auto figures = parse_observation(
      "RANK=2 MEMSTATS Memory stats after training step device=cuda:2 current alloc=45.4646GB "
      "(delta=0.0000GB max=52.3739GB) current cache=57.1406GB (delta=0.0000GB max=57.1406GB)\n",
      "run.log");
  ASSERT_TRUE(figures) << figures.error().to_string();
  ASSERT_EQ(figures->rank_devices.size(), 1u);
  ASSERT_EQ(figures->stats.size(), 1u);
  EXPECT_TRUE(figures->stats[0].reserved.peak);
  EXPECT_FALSE(any_warning_has(figures->warnings, "what each holds there is not read"));
  // Used above total is no pool's reading.
  EXPECT_FALSE(detail::find_memory_figures("rank=0 gpu=0 used_bytes=9 total_bytes=5\n", "x")
                   .rank_devices.at(0)
                   .pool_held);
  // Words are not a selection: "ranking", "device 0 has".
  EXPECT_TRUE(detail::find_memory_figures("ranking 3 on device 0 has 2 GiB free\n", "x")
                  .rank_devices.empty());
}

}  // namespace
}  // namespace vramscope::observe
