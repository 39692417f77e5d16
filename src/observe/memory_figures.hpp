#pragma once
// Memory figures a user pasted in a form no tool defines: what their own log or their words
// give. Read from a log beside its out-of-memory messages and memory_summary() tables:
//
//   "Allocated: 60.93 GB   Reserved (cached): 126.97 GB   Max reserved: 126.97 GB"
//                        a training script's own line: a size after each label naming the
//                        allocator's figure (allocated / reserved or cached, max or peak)
//   "step=1 TRAIN alloc=10.33 peak=73.94 GiB"
//                        the same with the unit written once, after the last figure: a bare
//                        number after an allocator figure's label takes the next figure's unit
//   "MA 12.5 GB  Max_MA 14.2 GB  CA 15.0 GB  Max_CA 15 GB"
//                        DeepSpeed's see_memory_usage (deepspeed/runtime/utils.py: torch's
//                        memory_allocated, max_memory_allocated, memory_reserved and
//                        max_memory_reserved divided by 1024^3; Max_CA rounded to a whole GB)
//   "| Reserved after load | 14,362 MB | 2,942 MB |"
//                        a markdown table with a label column and one column per state
//                        ("Before", "After"); thousands separators and bold marks allowed
//   "| One-shot side stream | 203,503.89 MiB | 242,670 MiB |"
//                        the same laid the other way: the header names the figures ("Peak
//                        allocated | Peak reserved"), a row per variant
//   "61352MiB /  81920MiB"
//                        nvidia-smi's memory-usage cell quoted in prose: used / total of a
//                        GPU the paste does not number
//   "total_gpu_memory (79.10GiB) x gpu_memory_utilization (0.90) = 71.19GiB",
//   "model weights take 0.00GiB; non_torch_memory takes ...; ... KV Cache is 71.19GiB.",
//   "Free memory on device (2.6/121.63 GiB) on startup is less than desired GPU memory
//    utilization (0.08, 9.73 GiB)"
//                        vLLM's start-up memory profile (observation.hpp, vllm_profile)
//   "XLA backend allocating 12060000000 bytes on device 0 for BFCAllocator."
//                        XLA's pool at its creation (observation::xla_pool)
//   "GPU 0 Memory Utilization: 44708986880 bytes", "cuda:1 free memory: 4 GiB"
//                        a device's row with one figure: used, free or total of that GPU; the
//                        latest reading of each (a log printing before and after a change)
//   "after import cucim       [6, 6, 6, 6]   <- one new client on all four GPUs"
//                        processes counted per GPU (observation::process_count)
//   "INFO:proc.py:186:main: comm.rank=3 device_id=0 0 540156928"
//                        a distributed program's rank and the GPU it selected on one line
//                        (observation::rank_device); numbers without a name are not read, a
//                        CuPy pool's "used_bytes=N total_bytes=M" are
//   "Found device 0 with properties: ... Total memory: 7.92GiB / Free memory: 190.31MiB"
//                        TensorFlow's device at its start (gpu_device.cc; later "totalMemory:
//                        ... freeMemory: ..." on one line): what others held before it
//   "assert cuda_memory <= start_cuda_memory, (cuda_memory, start_cuda_memory)" then
//   "AssertionError: (8519680, 0)"
//                        a test's check of the allocated bytes before and after some work
//                        (observation::allocated_check), when the assert's names speak of memory
//   "{unreliable: false, numTensors: 32, numDataBuffers: 22, numBytes: 9605380}"
//                        TensorFlow.js's tf.memory() printed each call: a series of its bytes and
//                        one of its live-tensor count (figure_series::tensor_count)
//
// A line of allocator figures becomes a torch_stats only when it names both an allocated and a
// reserved figure (one alone says nothing of the cache), or, in a paste with no such line, the
// allocated peak and the allocated figure at another moment ("peak_alloc = 35.575 GiB,
// final_alloc = 35.575 GiB"), its reserved and active figures named as missing; a line of an
// out-of-memory message is
// left to oom_report.hpp. Sizes follow text_util's units (GB as a power of 1024, as torch and
// DeepSpeed print it). Pure function; linear in the text.

#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/observe/observation.hpp>

namespace vramscope::observe::detail {

struct memory_figures {
  std::vector<torch_stats> stats;    // origin log_figures
  std::vector<gpu_observation> gpus; // usage quoted in prose: used and total, no index
  std::vector<vllm_profile> vllm;
  /// TensorFlow's devices as found at its start: used is total - free, memory held before
  /// TensorFlow made its pool (other processes, a context). A log with an out-of-memory message
  /// has its reader weigh these lines instead (oom_report.hpp), so the caller keeps them apart.
  std::vector<gpu_observation> devices_at_start;
  std::vector<observation::xla_pool> xla_pools;
  /// A figure printed under one label on three or more lines (observation::figure_series).
  std::vector<observation::figure_series> series;
  /// Processes counted per GPU: lines "LABEL [a, b, c, d]" (two or more whole numbers, every
  /// such line of the paste as long), where the paste speaks of processes, clients or contexts.
  std::vector<observation::process_count> process_counts;
  /// Lines naming a rank and the GPU it uses (observation::rank_device), the last of each rank.
  std::vector<observation::rank_device> rank_devices;
  /// A test's assertion on torch.cuda.memory_allocated() before and after some work, with the
  /// AssertionError printing both counts (observation::allocated_check).
  std::vector<observation::allocated_check> allocated_checks;
  /// Lines that hold a size but gave no figure above, as "LINE: text" (at most a few): what a
  /// refusal quotes so the user sees what was found.
  std::vector<std::string> unread;
  /// Lines whose allocator figure was read without its partner (allocated or active without
  /// reserved, or reserved alone), as "LINE: text (what it gives, what it lacks)" (at most a
  /// few): a refusal names what the paste lacks instead of calling the label unknown.
  std::vector<std::string> lone;
  bool empty() const {
    return stats.empty() && gpus.empty() && vllm.empty() && devices_at_start.empty() &&
           xla_pools.empty() && series.empty() && process_counts.empty() && rank_devices.empty() &&
           allocated_checks.empty();
  }
};

memory_figures find_memory_figures(std::string_view text, const std::string& source);

}  // namespace vramscope::observe::detail
