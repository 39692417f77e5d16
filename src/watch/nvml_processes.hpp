#pragma once
// The process lists of one GPU through NVML: the call protocol nvml.h documents for the
// nvmlDevice*RunningProcesses functions (ask for the count, allocate with slack, retry while the
// list grows), the record layouts of each API version, and the merge of the compute, graphics
// and MPS lists by pid.

#include <functional>
#include <string>
#include <vector>

#include <vramscope/watch/gpu_source.hpp>

#include "watch/nvml_api.hpp"

namespace vramscope::watch::nvml {

/// Called with what failed ("compute process list") and NVML's code, for a warning.
using warn_fn = std::function<void(const std::string&, return_t)>;

/// One record decoded from any of the three layouts.
struct process_record {
  std::uint32_t pid = 0;
  std::uint64_t used = 0;  // value_not_available when the driver cannot tell
  std::uint32_t gpu_instance = 0xFFFFFFFF;
  std::uint32_t compute_instance = 0xFFFFFFFF;
};

/// Decodes `count` records laid out every `record_bytes` bytes (16, 24 or 32) in `buffer`.
std::vector<process_record> decode_records(const unsigned char* buffer, unsigned count,
                                           std::size_t record_bytes);

/// Calls one process-list function with the count/retry protocol. Returns NVML's final code;
/// on success `out` holds the records. Gives up after a few growing retries with the last
/// INSUFFICIENT_SIZE.
return_t call_process_list(process_fn fn, device_t dev, std::size_t record_bytes,
                           std::vector<process_record>& out);

/// Appends the processes of `gpu` (compute, graphics and MPS merged by pid, with the type as
/// nvidia-smi prints it: "C", "G", "C+G", "M+C") to `s.processes`, with names from
/// nvmlSystemGetProcessName. Falls back to an older API version when the driver answers
/// FUNCTION_NOT_FOUND or ARGUMENT_VERSION_MISMATCH. Returns false when the GPU is lost.
bool read_processes(void* handle, api& f, device_t dev, const observe::gpu_observation& gpu,
                    sample& s, const warn_fn& warn);

}  // namespace vramscope::watch::nvml
