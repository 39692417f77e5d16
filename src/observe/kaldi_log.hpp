#pragma once
// Kaldi's GPU memory lines, as its CUDA code logs them (kaldi-asr/kaldi, commit f4007661,
// src/cudamatrix/cu-device.cc, cu-allocator.cc, cu-common.h). Every Kaldi log line starts with a
// header written by MessageLogger::LogMessage (src/base/kaldi-error.cc):
//   "LOG (PROGRAM[VERSION]:FUNCTION():FILE:LINE) MESSAGE"   (also WARNING, ERROR)
// and only lines whose header names cu-device.cc or cu-allocator.cc are read here:
//
//   "cudaSetDevice(N): NAME<tab>free:FM, used:UM, total:TM, free/total:R"
//        CuDevice::SelectGpuIdAuto: GPU N as the program found it while choosing a GPU, with its
//        own CUDA context just created on it and nothing allocated yet. U is the memory of the
//        other processes on that GPU plus this context (gpu_observation::before_own_use).
//   "The active GPU is [N]: NAME<tab>free:FM, ... version X.Y"
//        CuDevice::FinalizeActiveGpu: the GPU chosen, after its cuBLAS / cuSPARSE / cuRAND handles
//        were made, before the allocator's first region. Read as the GPU's reading only where
//        SelectGpuIdAuto printed none for it (compute-exclusive mode skips the choosing).
//   "Not in compute-exclusive mode.  Suggestion: use 'nvidia-smi -c 3' ..." (WARNING) and
//   "CUDA setup operating under Compute Exclusive Mode."
//        CuDevice::SelectGpuId: whether other processes may share the GPU (observation::
//        compute_mode).
//   "About to allocate new memory region of N bytes; current memory info is: free:FM, ..."
//        CuMemoryAllocator::AllocateNewRegion: the allocator grows by a region of
//        max(free x memory_proportion (0.5 by default), the request), rounded up to a MiB; the
//        first region is not logged. Three or more such lines make a series of the device's
//        used memory before each growth (figure_series::pool_growth).
//   "Memory usage: A/H bytes currently allocated/total-held; ...; largest free/allocated block
//    sizes are X/Y; ..."
//        CuMemoryAllocator::PrintMemoryUsage, printed just before a failure: A the live blocks,
//        H all regions held. X is the largest allocated block and Y the largest free one: the
//        code prints them in that order under the label "free/allocated".
//   "Failed to allocate a memory region of N bytes.  Possibly ...  Memory info: free:FM, used:UM,
//    total:TM, free/total:R CUDA error: 'out of memory'" (ERROR)
//        AllocateNewRegion when cudaMalloc refused the region: an oom_report (kind cuda, allocator
//        kaldi, runtime "kaldi") with requested N, capacity T and free F as measured just before
//        the cudaMalloc, pool_held H and in_use A from the Memory usage line before it. The
//        wording "Possibly this is due to sharing the GPU" is printed when the GPU is not in
//        compute-exclusive mode, "Possibly smaller minibatch size would help" when it is.
//   "cudaError_t 2 : \"out of memory\" returned from 'cudaMallocPitch(...)'" (ERROR)
//        CU_SAFE_CALL (cu-common.h) around the allocator's cudaMalloc when caching is off
//        (--cuda-cache-memory=false): the request is not printed.
//   "Cannot allocate the requested memory (R x C = N bytes)" (ERROR)
//        the allocator before 2018 (#2593): requested N.
//
// GetFreeGpuMemory (cu-allocator.cc) prints bytes / (1024 * 1024) in whole numbers, so every
// "M" figure is MiB rounded down; a total of 0 is a failed query (the code warns of it) and is
// not read. Pure function; linear in the text.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/observe/observation.hpp>

namespace vramscope::observe::detail {

struct kaldi_log {
  /// One reading per GPU: SelectGpuIdAuto's line, else the active GPU's line; the active GPU's
  /// is `selected`.
  std::vector<gpu_observation> gpus;
  std::optional<int> active_gpu;  // "The active GPU is [N]"
  std::vector<observation::compute_mode> compute_modes;
  std::vector<observation::figure_series> series;  // the allocator's growth, 3 lines or more
  std::vector<oom_report> ooms;
  /// No figure read: the compute mode alone is no fact to explain (observation::compute_mode).
  bool empty() const { return gpus.empty() && series.empty() && ooms.empty(); }
};

kaldi_log find_kaldi_lines(std::string_view text, const std::string& source);

/// Whether `line` is a Kaldi log line of cu-device.cc or cu-allocator.cc: this reader's, so the
/// reader of figures in prose (memory_figures.hpp) leaves it alone.
bool is_kaldi_cuda_line(std::string_view line);

}  // namespace vramscope::observe::detail
