#pragma once
// `vramscope trace -- COMMAND`: runs COMMAND with the CUPTI injection library
// (libvramscope_trace.so, built only where CUDA's CUPTI was found) named in
// CUDA_INJECTION64_PATH, so every process of the command that initialises CUDA writes its own
// trace-<pid>.jsonl into the out folder (trace_record.hpp). While the command runs, the
// launcher reads the header of each new trace file; a process whose header says CUPTI was not
// available (another profiler holds CUPTI's single subscriber slot) is sampled through NVML
// every `fallback_interval` into sample-<pid>.jsonl instead, so its peak is still measured
// (less precisely: short spikes between samples are missed).
//
// SIGTERM and SIGHUP sent to vramscope are forwarded to the command; SIGINT (Ctrl-C) reaches
// the command from the terminal directly, and vramscope keeps waiting for it to finish.

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/watch/gpu_source.hpp>

namespace vramscope::trace {

struct trace_options {
  /// Folder for the per-process files; created when missing. Files of an earlier run in the
  /// same folder are read together with the new ones: use a fresh folder per run.
  std::string out_dir = "vramscope-trace";
  /// The injection library. Empty: find_trace_library().
  std::string library;
  /// NVML sampling period for processes CUPTI cannot trace. Shorter catches shorter spikes
  /// and costs about a millisecond of CPU per sample and GPU.
  std::chrono::milliseconds fallback_interval{100};
  /// How to reach NVML for the fallback.
  watch::source_options fallback_source;
  /// After SIGINT, SIGTERM or SIGHUP reaches vramscope, how long the command's process group
  /// has to end after the signal is passed on to it, before it gets SIGKILL (a second signal
  /// sends SIGKILL at once).
  std::chrono::milliseconds stop_grace{10'000};
  std::string proc_root = "/proc";
};

struct trace_run {
  int exit_code = 0;                  // the command's; 128 + signal when a signal ended it, or
                                      // when one reached vramscope and was passed on
  int stop_signal = 0;                // the signal that reached vramscope and was passed on; 0
  bool killed = false;                // the group outlived stop_grace and got SIGKILL
  std::vector<std::int64_t> sampled;  // pids sampled through NVML instead of CUPTI
  std::string fallback_problem;       // why sampling was needed but could not run; "" if fine
};

/// The injection library to use: $VRAMSCOPE_TRACE_LIBRARY when set ("none" means no library),
/// else the one this build produced, else libvramscope_trace.so next to the executable or in
/// ../lib. Empty when there is none (this build found no CUDA CUPTI).
std::string find_trace_library();

/// Runs `command` (searched in PATH) traced, waits for it and returns its exit code. Progress
/// messages ("sampling pid 42 through NVML: ...") go to `log`. Fails (source "trace") when
/// the library does not exist, the folder cannot be created or the command cannot start.
/// The command runs in a process group of its own (its workers with it), which holds the
/// terminal while it runs when vramscope held it, so Ctrl-C there reaches the command alone,
/// as under a shell. SIGINT, SIGTERM or SIGHUP sent to vramscope itself is passed on to that
/// group; vramscope waits at most `stop_grace` for the command and its group to end (then
/// SIGKILL), and returns with exit_code 128 + the signal. Requires: command is not empty.
result<trace_run> run_traced(const std::vector<std::string>& command, const trace_options& options,
                             std::ostream& log);

/// Reads the header line of a trace file; empty when the file has no complete first line.
/// `ok` is false when the header's status is not "ok"; `message` holds its message.
struct trace_file_status {
  std::int64_t pid = 0;
  bool ok = true;
  std::string message;
};
std::optional<trace_file_status> read_trace_header(const std::string& path);

}  // namespace vramscope::trace
