#pragma once
// The GPUs vramscope knows by name: total memory as the driver reports it, compute capability
// and generation. `hardware.gpu` in a job spec is looked up here to fill `hardware.capacity`
// (unless `hardware.gpu_memory` is given) and `hardware.compute_capability` (which decides, for
// example, the cuBLAS workspace size: docs/schedule.md, "Outside the allocator").
//
// Memory figures are NVML's "total" (what `nvidia-smi --query-gpu=memory.total` prints), in
// bytes: MiB figures times 1,048,576. This is the capacity a job can see before the CUDA
// context, and it is less than the marketing size (an "80 GB" H100 reports 81,559 MiB). Each
// row records where its number comes from and whether it is confirmed; the table with sources
// is in docs/job-spec.md. The catalog is immutable and thread-safe.

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/core/units.hpp>

namespace vramscope::job {

struct gpu_info {
  std::string_view name;           // canonical catalog name, e.g. "H100-80GB"
  std::string_view smi_name;       // name as nvidia-smi prints it, e.g. "NVIDIA H100 80GB HBM3"
  bytes memory = 0;                // NVML total memory in bytes
  int compute_capability = 0;      // major * 10 + minor: 80 = sm_80, 90 = sm_90
  std::string_view generation;     // "Volta", "Turing", "Ampere", "Ada Lovelace", "Hopper", ...
  std::string_view source;         // where the memory figure comes from
  bool confirmed = false;          // false: the figure is believed but not confirmed (see source)
  // Memory the driver keeps out of every process's reach: nvidia-smi -q's "FB Memory Usage /
  // Reserved", the difference between NVML's total and cudaMemGetInfo's (torch's "total
  // capacity"). 0 where no figure is known. It varies a little with the driver.
  bytes reserved = 0;
  std::string_view reserved_source;
};

/// Every catalog row, in a stable order (by generation, then size).
std::span<const gpu_info> gpu_catalog();

/// Finds a GPU by canonical name, alias or nvidia-smi name. Matching ignores case, spaces,
/// dashes and underscores ("h100", "H100-SXM", "a100_80gb", "NVIDIA A100-SXM4-80GB" all work).
/// Returns nullptr when unknown. The pointer is into the static catalog (never dangles).
const gpu_info* lookup_gpu(std::string_view name);

/// As lookup_gpu, but an unknown name is a diagnostic (no location; callers add it):
///   unknown GPU "H100-90GB" (did you mean "H100-80GB"?); known GPUs: V100-16GB, ...;
///   for another GPU set hardware.gpu_memory
result<const gpu_info*> find_gpu(std::string_view name);

/// The canonical names, in catalog order.
std::vector<std::string> gpu_names();

/// "9.0" for 90.
std::string format_compute_capability(int cc);

}  // namespace vramscope::job
