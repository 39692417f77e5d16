#pragma once
// What /proc says about a process that holds GPU memory: its rank in a distributed job (from
// the launcher's environment variables), the GPUs it was allowed to see, whether it is a
// PyTorch or JAX process, and its name. NVML reports host PIDs; inside a container without
// the host PID namespace /proc/<pid> may be missing or belong to another process, so every
// figure here is a hint, and an unreadable file (permission denied, process gone) leaves the
// figures empty. Nothing here throws or fails. Thread-safe (reads files only).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <vramscope/watch/gpu_source.hpp>

namespace vramscope::watch {

/// Reads a NUL-separated environment block (the content of /proc/<pid>/environ). Rank from
/// RANK, else OMPI_COMM_WORLD_RANK, else SLURM_PROCID; local rank from LOCAL_RANK,
/// OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID; world size from WORLD_SIZE,
/// OMPI_COMM_WORLD_SIZE, SLURM_NTASKS. A value that is not a whole number is ignored.
/// framework: "jax" when an XLA_PYTHON_CLIENT_* or JAX_* variable is set, "torch" when a
/// PYTORCH_* / TORCH_* / TORCHELASTIC_* variable is set, else "". Sets environ_readable.
process_details details_from_environ(std::string_view environ);

/// "jax" when the memory map names jaxlib / xla_extension, "torch" when it names
/// libtorch_cuda, else "". `maps` is the content of /proc/<pid>/maps.
std::string framework_from_maps(std::string_view maps);

/// Reads <proc_root>/<pid>/environ, and <proc_root>/<pid>/maps when the environment does not
/// tell the framework (at most 16 MiB of it).
process_details read_process_details(std::int64_t pid, const std::string& proc_root = "/proc");

/// <proc_root>/<pid>/comm without its newline; "" when unreadable.
std::string read_process_comm(std::int64_t pid, const std::string& proc_root = "/proc");

/// The parent pid from <proc_root>/<pid>/stat; empty when unreadable or malformed.
std::optional<std::int64_t> read_parent_pid(std::int64_t pid,
                                            const std::string& proc_root = "/proc");

/// True when `pid` is `ancestor` or one of its descendants (follows parents up to pid 1, at
/// most 64 steps).
bool descends_from(std::int64_t pid, std::int64_t ancestor, const std::string& proc_root = "/proc");

/// Reads a /proc file (whose size stat reports as 0) up to `limit` bytes; empty when it cannot
/// be opened.
std::optional<std::string> read_proc_file(const std::string& path, std::size_t limit);

}  // namespace vramscope::watch
