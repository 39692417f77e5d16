#pragma once
// The monitor boundary: `vramscope watch` reads the GPUs of this machine through one small
// interface, `gpu_source`, with three implementations:
//
//   nvml_source    libnvidia-ml.so.1 loaded with dlopen at run time (the build never needs a
//                  driver); the primary source.
//   smi_source     runs `nvidia-smi --query-gpu=... --format=csv` and parses the output; the
//                  fallback when NVML cannot be loaded but the tool is installed.
//   replay_source  reads a JSONL log written by `watch --log` and plays it back; it is also the
//                  fake the tests use.
//
// A source returns a `sample`: every GPU and every process it saw at one moment. Every metric
// is an std::optional: a value a source or driver does not report is empty, never 0. Sizes are
// bytes. Samples are plain data (copyable, no references into a source).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/result.hpp>
#include <vramscope/core/units.hpp>
#include <vramscope/observe/observation.hpp>

namespace vramscope::watch {

/// What vramscope learnt about a process from /proc/<pid> (see process_info.hpp). Everything is
/// empty when /proc/<pid> cannot be read (another user's process, another PID namespace).
struct process_details {
  std::optional<int> rank;        // RANK (torchrun, accelerate), else MPI / Slurm equivalents
  std::optional<int> local_rank;  // LOCAL_RANK, ...
  std::optional<int> world_size;  // WORLD_SIZE, ...
  std::optional<std::string> cuda_visible_devices;  // as set in the process's environment
  std::string framework;                   // "torch", "jax" or "" when it could not be told
  std::optional<double> xla_mem_fraction;  // XLA_PYTHON_CLIENT_MEM_FRACTION, when set
  bool environ_readable = false;           // false: permission denied or the process is gone
};

/// One GPU in a sample. `gpu.index` is always set by the sources of this module.
struct gpu_reading {
  observe::gpu_observation gpu;
  bool lost = false;               // the driver reported the GPU lost; metrics are empty
  std::optional<bytes> peak_used;  // highest `used` seen since the previous refresh; set by
                                   // the sampler before display/log, and read back by replay
};

/// One process holding memory on one GPU. `process.gpu_index` and `process.gpu_uuid` are set.
struct process_reading {
  observe::process_observation process;
  process_details details;
  std::optional<bytes> peak_used;  // as gpu_reading::peak_used
};

/// Everything a source saw at one moment.
struct sample {
  std::int64_t time_ms = 0;                // milliseconds since the Unix epoch
  std::vector<gpu_reading> gpus;           // in index order
  std::vector<process_reading> processes;  // grouped by GPU, in the source's order
  vramscope::warnings warnings;            // recoverable problems of this read (a GPU lost, a
                                           // metric the driver refused), for the user to see
};

/// A live or recorded view of the GPUs of one machine. Not thread-safe: one reader at a time.
class gpu_source {
 public:
  virtual ~gpu_source() = default;

  /// "nvml", "nvidia-smi" or "replay", for messages and the log.
  [[nodiscard]] virtual std::string_view name() const = 0;

  /// Reads every GPU now. Problems with one GPU or one metric are warnings in the sample; an
  /// error means the source as a whole failed (the library went away, nvidia-smi failed).
  virtual result<sample> read() = 0;

  /// True for a recording: each read is one recorded refresh, with its own peaks.
  [[nodiscard]] virtual bool recorded() const { return false; }

  /// True once a recorded source has nothing left to play. Live sources never finish.
  [[nodiscard]] virtual bool finished() const { return false; }
};

enum class source_kind {
  automatic,  // NVML when libnvidia-ml loads and sees a GPU, else nvidia-smi when it works
  nvml,
  smi,
};

struct source_options {
  source_kind kind = source_kind::automatic;
  /// Library to dlopen for NVML. Empty: $VRAMSCOPE_NVML_LIBRARY, else "libnvidia-ml.so.1".
  std::string nvml_library;
  /// nvidia-smi to run. Empty: $VRAMSCOPE_NVIDIA_SMI, else "nvidia-smi" looked up in PATH.
  std::string nvidia_smi;
};

/// Opens a live source. Fails with a diagnostic (no source: it names no file) that says what
/// was tried and why each failed, e.g. "no GPU found: libnvidia-ml.so.1: cannot open shared object
/// file ...; nvidia-smi: not found in PATH". The CLI maps that failure to exit code 3.
result<std::unique_ptr<gpu_source>> open_gpu_source(const source_options& options);

/// Parses "auto", "nvml" or "smi" (also "nvidia-smi"). Empty when the text is none of them.
std::optional<source_kind> parse_source_kind(std::string_view text);

}  // namespace vramscope::watch
