#pragma once
// What a user observed about GPU memory, read from the files they can produce without vramscope:
// nvidia-smi output (per GPU and per process), torch.cuda.memory_stats() / memory_summary()
// (per rank, the allocator's own figures) and out-of-memory messages from logs. The doctor
// compares these with a prediction; `explain` reads them with read_observation().
//
// Every figure is in bytes. A figure the source did not report ("[N/A]", "[Not Supported]", a
// field an older driver does not print) is an empty std::optional, never 0. Values are plain
// data: copyable, no references into the text they came from.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vramscope/core/diagnostic.hpp>
#include <vramscope/core/units.hpp>

namespace vramscope::observe {

/// One GPU as nvidia-smi reports it (table row, --query-gpu CSV row or <gpu> XML element).
struct gpu_observation {
  std::optional<int> index;        // nvidia-smi's index (PCI order); XML: position of <gpu>
  std::string name;                // "NVIDIA A100-SXM4-80GB"; the old table truncates it ("...")
  std::string uuid;                // "GPU-529b3263-..."; empty when not reported
  std::string bus_id;              // "00000000:01:00.0"; empty when not reported
  std::optional<bytes> total;      // framebuffer memory, as the driver reports it
  std::optional<bytes> used;       // used by all processes plus driver allocations
  std::optional<bytes> free;
  std::optional<bytes> reserved;   // held back by the driver (newer drivers only)
  std::optional<int> utilization_gpu;     // percent
  std::optional<int> utilization_memory;  // percent of time memory was read or written
  std::string host;                // the machine, when files of several are read together
                                   // (vramscope trace across nodes); empty otherwise
  /// Read by the program itself on its GPU before it allocated anything (Kaldi's GPU selection,
  /// kaldi_log.hpp): `used` is the other processes' memory plus this process's own CUDA context
  /// (likelihood::context_max at most), none of its own data. False for nvidia-smi.
  bool before_own_use = false;
  /// The GPU the program then chose to run on (Kaldi's "The active GPU is [N]"); its other
  /// readings are GPUs it looked at and left.
  bool selected = false;
};

/// One process on one GPU as nvidia-smi lists it. PIDs are host PIDs even inside containers.
struct process_observation {
  std::optional<int> gpu_index;    // the table and XML give the GPU; CSV gives gpu_uuid instead
  std::string gpu_uuid;            // CSV --query-compute-apps=gpu_uuid; empty otherwise
  std::string gpu_bus_id;          // CSV gpu_bus_id, XML <gpu id=...>; empty otherwise
  std::int64_t pid = 0;
  std::string name;                // may be empty (containers) or truncated from the left (table)
  std::string type;                // "C" compute, "G" graphics, "C+G", "M+C" (MPS); CSV: empty
  std::optional<bytes> used;       // empty for "N/A" (e.g. Windows WDDM)
  std::optional<int> gpu_instance;      // MIG GI id; empty without MIG
  std::optional<int> compute_instance;  // MIG CI id; empty without MIG
  std::string host;                // as gpu_observation::host
};

/// Where a torch_stats came from; memory_summary figures are rounded down to the unit shown.
/// log_figures: a log's or a paste's own memory lines (a training script's "Allocated: X GB
/// Reserved: Y GB", DeepSpeed's see_memory_usage "MA ... Max_MA ... CA ... Max_CA", a markdown
/// table of figures), read by observe/memory_figures.hpp; rounded as printed.
enum class stats_origin { memory_stats_json, memory_summary_text, log_figures };

/// torch.cuda.memory_stats() of one rank (or the same figures read off memory_summary()).
struct torch_stats {
  struct level {
    std::optional<bytes> current;
    std::optional<bytes> peak;
  };
  std::optional<int> rank;          // from a "rank" field, a "[rankN]:" prefix or the file name
  std::optional<int> device;        // from a "device" field or "device ID N" in the summary
  stats_origin origin = stats_origin::memory_stats_json;
  level allocated;                  // allocated_bytes.all.*: live tensors, rounded block sizes
  level active;                     // active_bytes.all.*: allocated + freed blocks awaiting events
  level reserved;                   // reserved_bytes.all.*: segments held from cudaMalloc
  level requested;                  // requested_bytes.all.*: unrounded request sizes
  level inactive_split;             // inactive_split_bytes.all.*: non-releasable free bytes
  std::optional<std::uint64_t> inactive_split_blocks;  // inactive_split.all.current
  std::optional<std::uint64_t> num_alloc_retries;      // cudaMalloc failures followed by a retry
  std::optional<std::uint64_t> num_ooms;
  std::map<std::string, std::uint64_t> raw;  // every key as read, e.g. "allocated_bytes.all.peak"
  std::string source;                       // file name, for messages
  /// A paste cut short (a memory_summary() table without its last rows, memory_stats JSON that
  /// stops mid-way): what it holds is read, and what it lacks is named here, its figures empty
  /// (unknown, never 0). `missing`: the summary rows as printed ("GPU reserved memory") or the
  /// memory_stats keys ("reserved_bytes.all.peak") of the figures above that the paste lacks;
  /// `cut_at_line`: the last line read. Both empty for a whole table or file.
  std::vector<std::string> missing;
  std::optional<int> cut_at_line;
  /// The text ended before this entry did: memory_stats JSON whose document is unfinished, a
  /// memory_summary() table without its closing border or with its last row cut. Set for every
  /// entry a cut reaches, also when no headline figure is missing (then `missing` is empty), so
  /// a reader of files being written (watch's stats folder) can tell a file caught mid-write
  /// without reading the warnings. False for a whole table or file.
  bool cut = false;
  /// What the paste calls the moment the figures were taken (log_figures only): a table's
  /// column ("Before") and its rows' own words ("Reserved after load"), or the short line above
  /// a log's figures ("- Before"). Empty when the paste names none.
  std::string label;
  /// A later column of a before/after table ("After", "with the fix"): what a change achieved,
  /// not the state being explained. Rules that diagnose skip it.
  bool after_change = false;
};

/// vLLM's start-up memory profile, read from its log (vllm/worker/worker.py
/// determine_num_available_blocks; v1 gpu_worker.py): the engine sizes itself to
/// gpu_memory_utilization x the GPU's total, for its weights, activations and KV cache, whatever
/// else uses that GPU; the v1 engine refuses to start when less than that is free ("Free memory
/// on device (F/T GiB) on startup is less than desired GPU memory utilization (U, C GiB)").
struct vllm_profile {
  std::optional<bytes> total;            // total_gpu_memory, or T of the start-up check
  std::optional<double> utilization;     // gpu_memory_utilization
  std::optional<bytes> claimed;          // total x utilization, as printed
  std::optional<bytes> weights;          // "model weights take" / "Model loading took"
  std::optional<bytes> non_torch;        // "non_torch_memory takes"
  std::optional<bytes> activation_peak;  // "PyTorch activation peak memory takes"
  std::optional<bytes> kv_cache;         // "the rest of the memory reserved for KV Cache is"
  std::optional<bytes> free_at_start;    // F of the start-up check
  /// A traceback or an error follows the profile in the paste: the engine's start failed.
  bool error_after = false;
  int line = 0;                          // 1-based line of the first profile line
  std::string source;
};

/// Whose message: PyTorch's caching allocator, XLA's (JAX, TensorFlow's XLA runtime), or the CUDA
/// driver, runtime or a CUDA library (cuDNN, cuBLAS) directly, under any framework.
enum class oom_kind { torch, xla, cuda };

/// Where the failed allocation was made. An allocator's own message (PyTorch's "Tried to
/// allocate", XLA's BFC pool) comes from inside the framework's pool; the others were raised by
/// a call that does not go through it: the creation of a CUDA context (cuCtxCreate,
/// cuDevicePrimaryCtxRetain), a library's workspace (CUDNN_STATUS_ALLOC_FAILED,
/// CUBLAS_STATUS_ALLOC_FAILED) or a runtime call ("CUDA error: out of memory"). XLA's "Failed to
/// allocate request for ..." stays an allocator's: it is printed both when the job does not fit
/// and when a preallocated pool crowds the device, so it does not tell the two apart.
enum class oom_origin { allocator, outside_allocator, context_creation };

/// Which allocator's message a report was read from, so that a rule can word its cause and fix
/// in that runtime's own terms. The report's figures mean the same on every allocator (see
/// oom_report): capacity is what the allocator may hold, pool_held what it holds, in_use or
/// allocated_by_pytorch its live buffers, requested the failed request.
///  torch_caching: PyTorch's caching allocator (CUDA or ROCm/HIP: "HIP out of memory" is the same
///    allocator, c10/hip is generated from c10/cuda); torch_async: its cudaMallocAsync backend;
///  torch_mps: PyTorch's MPS allocator on Apple GPUs (aten/src/ATen/mps/MPSAllocator.mm);
///  cupy_pool: CuPy's memory pool (cupy/cuda/memory.pyx, also under Chainer);
///  cudajl_pool: Julia's CUDA.jl (and CuArrays.jl before it): its memory pool, the driver's
///    stream-ordered pool since CUDA.jl 3.4, its own binned/splitting pools before;
///  tf_bfc / xla_bfc: the BFC allocator of TensorFlow / of XLA's runtime (JAX), and what raises
///    through it; xla_client: XLA's client outside a BFC dump ("Failed to allocate request for",
///    PjRt's "Out of memory allocating"); paddle: PaddlePaddle's allocator; kaldi: Kaldi's
///    CuMemoryAllocator (src/cudamatrix/cu-allocator.cc; its capacity and free are the device's,
///    measured just before the failed cudaMalloc, not a pool limit); cuda: the driver or a
///    CUDA library directly; other: another framework's allocator read by the shape of its line.
enum class oom_allocator {
  torch_caching,
  torch_async,
  torch_mps,
  cupy_pool,
  cudajl_pool,
  tf_bfc,
  xla_bfc,
  xla_client,
  paddle,
  kaldi,
  cuda,
  other
};

/// The allocator's name as the report and `--json` print it ("cupy_pool").
std::string_view allocator_name(oom_allocator a);

/// A process named in an out-of-memory message; pid is empty for "this process".
struct oom_process {
  std::optional<std::int64_t> pid;
  bytes used = 0;
};

/// One out-of-memory error found in a log. Sizes in the message are printed with two decimals
/// ("79.15 GiB"), so they are exact only to about 0.01 of their unit.
struct oom_report {
  oom_kind kind = oom_kind::torch;
  oom_origin origin = oom_origin::allocator;
  oom_allocator allocator = oom_allocator::torch_caching;
  std::optional<int> rank;                  // "[rank3]:" prefix or "rank=3" before the message
  std::optional<int> gpu;                   // "GPU 0 ..." (torch) or allocator "GPU_0_bfc" (xla)
  std::optional<bytes> requested;           // "Tried to allocate X" / "trying to allocate N bytes"
  std::optional<bytes> capacity;            // torch: total capacity; xla: BFC memory limit;
                                            // cupy: the pool's set_limit; mps: max allowed
  std::optional<bytes> free;                // torch: free on the device when it failed
  std::vector<oom_process> processes;       // torch: "Process P has M memory in use", in order
  std::optional<bytes> allocated_by_pytorch;    // "A is allocated by PyTorch" / "A already allocated"
  std::optional<bytes> reserved_by_pytorch;     // allocated + reserved-but-unallocated
  std::optional<bytes> reserved_unallocated;    // "R is reserved by PyTorch but unallocated"
  std::optional<bytes> in_use;              // xla BFC "InUse"
  std::optional<bytes> peak_in_use;         // xla BFC "MaxInUse"
  std::optional<bytes> largest_free_block;  // xla BFC "LargestFreeBlock"
  /// What a pool allocator other than PyTorch's holds from the driver, its live buffers and its
  /// cached free blocks together: BFC's "total_region_allocated_bytes_" (bfc_allocator.cc,
  /// DumpMemoryLog); CuPy's "allocated so far" (the pool's total_bytes() when the request came,
  /// memory.pyx _try_malloc; the old "(total T bytes)" wording counts the request too, so T less
  /// the request). Empty when the message does not give it.
  std::optional<bytes> pool_held;
  /// Memory other allocations of the same process hold beside this allocator's: MPS's "other
  /// allocations" (MPSAllocator.mm, the driver's allocated size less the heap's).
  std::optional<bytes> other_allocations;
  /// The figures the message's own format has and the paste lacks (a line cut before "limit set
  /// to", a BFC dump without its "Stats:" block): named as the format prints them.
  std::vector<std::string> missing;
  std::optional<bytes> private_pools;       // torch >= 2.6: "... allocated in private pools (e.g.,
                                            // CUDA Graphs)", part of allocated_by_pytorch
  /// TensorFlow's BFC allocator or its StreamExecutor (kind xla): "OOM when allocating tensor
  /// with shape[...]", "failed to allocate ... from device", a "Found device" block before it.
  bool tensorflow = false;
  /// PyTorch's cudaMallocAsync backend (PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync):
  /// "Allocation on device N would exceed allowed memory" gives what PyTorch has allocated, the
  /// request, the device's total and free, and no reserved figure (the driver's pool keeps freed
  /// memory the message does not count). fraction_limit: the limit a memory fraction set
  /// (torch.cuda.set_per_process_memory_fraction), when it is below the total. CUDA.jl's
  /// cap on its pool takes the same field: "Memory limit: ... hard = H"
  /// (JULIA_CUDA_HARD_MEMORY_LIMIT) or, before 3.4, "CUDA allocator usage: A (capped at C)"
  /// (JULIA_CUDA_MEMORY_LIMIT).
  bool malloc_async = false;
  std::optional<bytes> fraction_limit;
  /// XLA's compiler before the program ran, not an allocation that failed: rematerialization
  /// could not bring the program's peak under its limit ("Can't reduce memory use below L by
  /// rematerialization; only reduced to P", xla/service/hlo_rematerialization.cc). `requested`
  /// is P, what the program needs at its peak; `compile_limit` is L, device memory x 80 % less
  /// the program's inputs and outputs (gpu_hlo_schedule.cc, GetSchedulerMemoryLimit), negative
  /// when those alone exceed it. Kept only where the log has no allocator's message of its own.
  bool compile_estimate = false;
  std::optional<std::int64_t> compile_limit;
  /// The CUDA library whose own allocation failed ("cudnn", "cublas": a workspace or a handle's
  /// buffers, origin outside_allocator); empty for the runtime's or an allocator's.
  std::string library;
  /// The runtime or framework the paste names by its own marks (failure_line.hpp,
  /// runtime_named: "caffe", "rapids", "torch"); empty when it names none.
  std::string runtime;
  /// The status as the line names it ("cudaErrorMemoryAllocation", "CUDNN_STATUS_ALLOC_FAILED
  /// (2)"); empty for an allocator's own message.
  std::string status;
  /// The status names no lack of memory (cuDNN's EXECUTION_FAILED in a convolution, pasted as
  /// the memory failure): read as the library's failure, not as proof of one.
  bool status_not_memory = false;
  /// The paste lacks the message itself: a traceback cut before its error line, or a line whose
  /// figures are elided ("..."). What is missing is named in `missing`.
  bool message_cut = false;
  int line = 0;                             // 1-based line of the message in the log
  std::string raw;                          // the message text as found (joined lines)
  /// The log's lines before the message, back to the previous message or at most
  /// oom_context_lines: the traceback that says where the program was (a checkpoint save, an
  /// evaluation loop, the optimizer's step). Each as "LINE: text", trimmed; empty lines dropped.
  std::vector<std::string> context;
};

/// How many lines before a message oom_report::context keeps.
inline constexpr std::size_t oom_context_lines = 60;

/// Everything read from one or more observation files. `append` merges bundles.
struct observation {
  std::vector<gpu_observation> gpus;
  std::vector<process_observation> processes;
  std::vector<torch_stats> stats;
  std::vector<oom_report> ooms;
  std::vector<vllm_profile> vllm;
  /// XLA's pool as its client logs it at creation (xla/pjrt/gpu/gpu_helpers.cc, reference/jax.md
  /// 2.1): "XLA backend allocating N bytes on device d for BFCAllocator." (preallocated) or "XLA
  /// backend will use up to N bytes on device d for BFCAllocator." (grown on demand).
  struct xla_pool {
    std::optional<int> device;
    bytes size = 0;
    bool preallocated = false;
    int line = 0;
    std::string source;
  };
  std::vector<xla_pool> xla_pools;
  /// One figure a log prints again and again under the same label, a number in the label aside
  /// ("GPU max memory allocated: 0.58 GB" each step, "Step 5: ~34.0 GiB"), in the order of its
  /// lines: at least three points. What it measures is the label's; its growth is what it says.
  struct figure_series {
    std::string label;  // the first line's label, as written
    std::vector<std::pair<int, bytes>> points;  // (line, size)
    std::string source;
    /// The points count live tensors, not bytes (TensorFlow.js's tf.memory().numTensors).
    bool tensor_count = false;
    /// The points are the device's used memory each time a caching pool grew by a region
    /// (Kaldi's "About to allocate new memory region", kaldi_log.hpp): the pool keeps every
    /// region until the process ends, so the series rises with the largest demand so far, and
    /// says nothing of what is live between growths.
    bool pool_growth = false;
  };
  std::vector<figure_series> series;
  /// How many processes each GPU lists, as a paste counts them without naming them (a script's
  /// "after import [6, 6, 6, 6]" of nvidia-smi's compute apps per GPU): one entry per line, the
  /// counts in GPU order. More processes on a GPU than the job runs there are contexts of the
  /// others (each rank touching every visible device).
  struct process_count {
    std::string label;         // the line's words before the list ("after import cucim")
    std::vector<int> per_gpu;  // index i: GPU i
    int line = 0;
    std::string source;
  };
  std::vector<process_count> process_counts;
  /// The GPU each process of a distributed program says it uses, as its log prints rank and
  /// device on one line ("comm.rank=3 device_id=0", "[rank1] cuda:1", "rank: 2 gpu_id=2"): one
  /// entry per rank, its last such line. Of what else those lines print, only a CuPy pool's
  /// used_bytes / total_bytes named as such is read.
  struct rank_device {
    int rank = 0;
    int device = 0;
    /// The rank's CuPy pool as the same line prints it (MemoryPool.used_bytes() and
    /// total_bytes(), cupy/cuda/memory.pyx): its arrays in use, and all it holds with its cached
    /// blocks. Empty when the line does not name them.
    std::optional<bytes> pool_used, pool_held;
    int line = 0;
    std::string source;
  };
  std::vector<rank_device> rank_devices;
  /// A check of the allocator's figure before and after some work, as a test asserts it
  /// ("assert mem <= start_mem, (mem, start_mem)" and the AssertionError printing the tuple):
  /// torch.cuda.memory_allocated() returns bytes, so the tuple's whole numbers are bytes. `after`
  /// is the figure the assertion bounds (the left of "<=", "<" or "=="), `before` its bound.
  struct allocated_check {
    bytes before = 0, after = 0;
    std::string assertion;  // the assert line, as written
    int line = 0;           // the AssertionError's line
    std::string source;
  };
  std::vector<allocated_check> allocated_checks;
  /// The compute mode a program found its GPU in, as its log says (Kaldi's SelectGpuId,
  /// cu-device.cc: the warning "Not in compute-exclusive mode" or "operating under Compute
  /// Exclusive Mode"). `shared`: the Default mode, where other processes may make contexts and
  /// allocate on the same GPU; exclusive mode lets one process hold it. Not a fact alone.
  struct compute_mode {
    std::optional<int> gpu;  // the GPU chosen after it, when the log names it
    bool shared = false;
    int line = 0;
    std::string source;
  };
  std::vector<compute_mode> compute_modes;
  /// The nvidia-smi output had its process list (a "Processes:" table, even one saying "No
  /// running processes found"): a GPU with memory in use and no process listed is then held by
  /// processes nvidia-smi cannot see (another container, a zombie). False when the paste had
  /// none, so nothing can be said of who holds the memory.
  bool process_table = false;
  /// The paste ends inside that process list (no closing border): the processes of this GPU
  /// (the last one listed, or 0 when no row came before the cut) and of higher-numbered GPUs
  /// may be missing, so memory no listed process holds is undecided there. Empty when the list
  /// is whole or absent.
  std::optional<int> processes_cut_from_gpu;
  std::string driver_version;               // when nvidia-smi printed it
  std::string cuda_version;
  vramscope::warnings warnings;             // recoverable oddities (unknown columns, ...)

  /// Whether anything was read that a finding can stand on: GPUs, processes, stats, OOM
  /// messages, vLLM profiles, XLA pools, figure series, process counts, ranks' devices or allocated
  /// checks (versions and warnings alone are not).
  bool has_facts() const {
    return !gpus.empty() || !processes.empty() || !stats.empty() || !ooms.empty() ||
           !vllm.empty() || !xla_pools.empty() || !series.empty() || !process_counts.empty() ||
           !rank_devices.empty() || !allocated_checks.empty();
  }
};

/// Moves everything from `from` into `into` (vectors appended; versions kept if `into` has none).
void append(observation& into, observation&& from);

}  // namespace vramscope::observe
