#pragma once
// Reads the folder `vramscope trace --out DIR` wrote: one trace-<pid>.jsonl per traced process
// (trace_record.hpp) and, where CUPTI could not be used, one sample-<pid>.jsonl of NVML
// samples (trace_launcher.hpp). Merges the processes by GPU and computes peaks: per process on
// each GPU, and per GPU over all processes, replaying alloc/free events in timestamp order.
//
// Many nodes: the folders of several machines can be read as one, with each node's files in
// a subfolder (DIR/node-a/trace-*.jsonl, DIR/node-b/...; any depth) or all together. A file's
// machine is the host its header names, else the subfolder it is in. GPUs are told apart by
// UUID, or by host and index when no UUID was recorded, so the same pid or GPU index on two
// machines never merge. Timestamps are compared only within a machine.
//
// What the peaks mean: the bytes the traced processes asked the driver for (cudaMalloc and
// friends, cuMemCreate, stream-ordered allocations), i.e. about the `reserved` level of
// docs/design.md ("Four levels of memory") plus NCCL and library buffers, without the CUDA
// context. map/unmap events describe
// address space and do not count. Timestamps from different processes are compared as CUPTI
// gives them (one clock per machine).
//
// A line that does not parse is a warning (file:line), never an error: a process killed
// mid-write leaves a partial last line. Pure apart from reading the folder; thread-safe.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/result.hpp>
#include <vramscope/core/units.hpp>
#include <vramscope/observe/observation.hpp>

namespace vramscope::trace {

/// One process on one GPU.
struct trace_process_peak {
  std::string host;  // the machine; empty when the file does not say and is not in a subfolder
  std::int64_t pid = 0;
  std::optional<int> rank;
  std::string gpu;           // the GPU key, as in trace_gpu_peak::gpu
  bytes peak = 0;            // highest live bytes
  bytes final_live = 0;      // live bytes after the last event (0 for a clean exit)
  std::uint64_t events = 0;  // alloc/free/map/unmap events, or samples
  bool sampled = false;      // from NVML samples (CUPTI was unavailable)
};

/// One GPU, over every process that used it.
struct trace_gpu_peak {
  std::string gpu;             // the GPU's UUID; "#N" for physical index N when no UUID was
                               // recorded ("HOST#N" when the folder holds several machines)
  std::string host;            // the machine, as trace_process_peak::host
  std::optional<int> index;    // physical index, when known (samples, CUDA_VISIBLE_DEVICES)
  std::string name;            // model name from the device record; may be empty
  std::optional<bytes> total;  // memory of the GPU, from the device record
  bytes peak = 0;              // highest sum of live bytes of all processes
  std::uint64_t peak_timestamp_ns = 0;
  std::vector<trace_process_peak> processes;  // largest peak first
};

struct trace_summary {
  std::vector<trace_gpu_peak> gpus;            // ordered by key
  std::uint64_t events = 0;                    // event lines read
  std::uint64_t samples = 0;                   // sample lines read
  std::uint64_t dropped = 0;                   // records CUPTI reported dropped
  std::vector<std::int64_t> untraced_pids;     // headers whose status is not "ok"
  std::vector<std::string> untraced_messages;  // their messages, same order
  std::uint64_t files = 0;
  std::vector<std::string> hosts;              // distinct machines named, sorted
  vramscope::warnings warnings;  // skipped lines, unreadable files
};

/// Reads every trace-*.jsonl and sample-*.jsonl in `dir`. Fails when `dir` is not a folder;
/// an empty folder gives an empty summary.
result<trace_summary> read_trace_folder(const std::string& dir);

/// The summary as an observation for `explain`: each GPU's peak as `used` (with total and
/// name when known), each process's peak on each GPU as a process_observation.
observe::observation to_observation(const trace_summary& summary);

}  // namespace vramscope::trace
