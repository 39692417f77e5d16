// Out-of-memory messages in logs (docs/formats/memory-stats.md). PyTorch's wording
// (c10/cuda/CUDACachingAllocator.cpp, DeviceCachingAllocator::malloc) changed in 2.1 from
// "(GPU 0; T total capacity; A already allocated; F free; R reserved in total by PyTorch)" to
// sentences ("GPU 0 has a total capacity of T of which F is free. ...");
// some 2.1 builds spell "capacty". Sizes are printed with two decimals and B/bytes/KiB/MiB/GiB.
// XLA reports "Out of memory while trying to allocate N bytes." after the BFC allocator's dump
// (TensorFlow-era runtimes prefix "Resource exhausted: ", newer ones "RESOURCE_EXHAUSTED: "); the
// PjRt GPU client says "Out of memory allocating N bytes." instead. Messages pasted from a
// terminal may be wrapped anywhere, the anchor phrase included, and are sometimes pasted from
// "Tried to allocate" on. Two messages carry no figures: "CUDA error: out of memory", raised
// outside the caching allocator (context creation, cuBLAS/cuDNN workspaces), and torch <= 0.4's
// "cuda runtime error (2) : out of memory" (THC); they are reports without sizes.
// Below every framework, the CUDA driver and libraries name the error themselves
// (cuda.h's CUDA_ERROR_OUT_OF_MEMORY, cudnn.h's CUDNN_STATUS_ALLOC_FAILED, cublas_api.h's
// CUBLAS_STATUS_ALLOC_FAILED, a runtime call's "cudaX(...): out of memory"): a report without
// sizes too, placed by the call that failed (a context's creation when cuCtxCreate or
// cuDevicePrimaryCtxRetain is named on its line or the stack printed after it).
// TensorFlow (tensorflow/core/common_runtime/bfc_allocator.cc, gpu/gpu_device.cc,
// stream_executor/cuda/cuda_driver.cc) prints the same BFC allocator lines as XLA, raises
// "ResourceExhaustedError: OOM when allocating tensor with shape[64,372,32,32] and type float on
// /job:.../device:GPU:0 by allocator GPU_0_bfc", and logs the pool's own requests to the driver as
// "failed to allocate 378.60M (396990720 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY": the pool
// being made or grown, so an allocator's report. Before that, TensorFlow 1.x prints the device it
// found ("Total memory: 7.92GiB" / "Free memory: 190.31MiB", later "totalMemory: ...
// freeMemory: ..." on one line): what was free before this process held a pool.
// PyTorch's cudaMallocAsync backend (c10/cuda/CUDAMallocAsyncAllocator.cpp, mallocAsync) words
// its error differently: "Allocation on device 0 would exceed allowed memory. (out of memory)",
// then one figure a line, "Currently allocated     : 21.55 GiB", "Requested : ...", "Device limit
// : ..." (cudaMemGetInfo's total), "Free (according to CUDA): ..." and "PyTorch limit (set by
// user-supplied memory fraction)" with its value on the next line (UINT64_MAX unless a fraction
// was set). TensorFlow 1.0's pool said "Ran out of memory trying to allocate 392.00MiB. See logs
// for memory state." (bfc_allocator.cc), capitalised, with no allocator name.
// CuPy's memory pool (cupy/cuda/memory.pyx, OutOfMemoryError, raised unchanged under Chainer)
// says "Out of memory allocating 805,306,368 bytes (allocated so far: 536,870,912 bytes, limit set
// to: 1,073,741,824 bytes)." (Python's "{:,}" grouping; no limit clause when no limit was set):
// the request and the pool's total_bytes() when it came, its live arrays and cached free blocks
// together. CuPy 5 and older wrote "out of memory to allocate N bytes (total T bytes)", T being
// the request plus the pool's total. PyTorch's MPS allocator (aten/src/ATen/mps/MPSAllocator.mm)
// says "MPS backend out of memory (MPS allocated: A, other allocations: O, max allowed: M). Tried
// to allocate R on private pool.", M being the high-watermark limit. ROCm builds of PyTorch print
// the caching allocator's message with "HIP" for "CUDA" (c10/hip is generated from c10/cuda) and
// are read as PyTorch's.
// Other frameworks' allocators (Theano's "Error allocating 45158400 bytes of device memory (out of
// memory). Driver report 44666880 bytes free and 536543232 bytes total") are read by their shape:
// "out of memory" with a byte count on the line, no other anchor; kind cuda, from an allocator.
#include <vramscope/observe/oom_report.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <deque>
#include <set>
#include <utility>

#include "observe/failure_line.hpp"
#include "observe/text_util.hpp"

namespace vramscope::observe {

namespace {

using detail::text_line;

constexpr std::string_view torch_anchor = "out of memory. Tried to allocate";
constexpr std::string_view xla_anchor = "Out of memory while trying to allocate";
constexpr std::string_view xla_pjrt_anchor = "Out of memory allocating ";
// The GPU client's own allocation path: "RESOURCE_EXHAUSTED: Failed to allocate request for
// 176.00MiB (184549376B) on device ordinal 0".
constexpr std::string_view xla_request_anchor = "Failed to allocate request for ";
constexpr std::string_view bfc_anchor = "ran out of memory trying to allocate";
constexpr std::string_view bfc_anchor_tf1 = "Ran out of memory trying to allocate";
constexpr std::string_view async_anchor = " would exceed allowed memory";
constexpr std::size_t max_async_lines = 8;  // the figures' lines after the anchor's
constexpr std::string_view tf_tensor_anchor = "OOM when allocating tensor";
constexpr std::string_view tf_region_anchor = "from device: CUDA_ERROR_OUT_OF_MEMORY";
constexpr std::string_view anchors[] = {torch_anchor, xla_anchor, xla_pjrt_anchor, bfc_anchor};
// The caching allocator's warning when an expandable segment cannot map more memory
// (CUDACachingAllocator.cpp, ExpandableSegment::map): "expandable_segments: memory mapping
// failed with OOM on device D while trying to map N bytes (free: F, total: T)". The error that
// follows it, when pasted, is read as any torch message. The same wording for an allocation
// ("memory allocation failed with OOM on device D while trying to allocate N bytes (free: F,
// total: T)") is read by the same reader: the anchor is what the two share.
constexpr std::string_view device_oom_anchor = "failed with OOM on device ";
// PaddlePaddle's allocator (paddle/fluid/memory/allocation): "Out of memory error on GPU 0.
// Cannot allocate X memory on GPU 0, Y memory has been allocated and available memory is only Z."
constexpr std::string_view paddle_anchor = "Out of memory error on GPU ";
// CuPy: the message since CuPy 6 (it shares its first words with XLA's PjRt client, so it is told
// apart by its "(allocated so far: " clause, grouped counts or the exception's module) and the
// message of CuPy 5 and older.
constexpr std::string_view cupy_so_far = "(allocated so far: ";
constexpr std::string_view cupy_limit = "limit set to: ";
constexpr std::string_view cupy_old_anchor = "out of memory to allocate ";
constexpr std::string_view mps_anchor = "MPS backend out of memory";
// Julia's CUDA.jl: OutOfGPUMemoryError's Base.showerror (JuliaGPU/CUDA.jl, CUDACore/src/memory.jl
// at fd1008df7add, src/pool.jl from 3.0, src/memory.jl in 1.x/2.x) prints "Out of GPU memory",
// " trying to allocate S" when the size is known (always before 3.0), then the device's status
// on the lines after it (pool_status, memory_status before 4.0), sizes as Base.format_bytes
// writes them ("653.794 MiB", "8 bytes"):
//   "Effective GPU memory usage: P% (U/T)": the device's total T and what is in use on it, U =
//     T less cuMemGetInfo's free, every process's memory together;
//   from 3.4 (c3dbe3bad, the driver's stream-ordered pool): "Memory pool usage: A (R reserved)",
//     A its live buffers (MEMPOOL_ATTR_USED_MEM_CURRENT), R what it holds from the driver
//     (MEMPOOL_ATTR_RESERVED_MEM_CURRENT, A included), or "No memory pool is in use."
//     (JULIA_CUDA_MEMORY_POOL=none), or "Memory pool statistics require CUDA 11.3.";
//     from 4.0 (f9822e3af) "Memory limit: soft = S, hard = H" when a limit is set;
//   1.0 to 3.3 (6485df512, adb929dd1): "CUDA allocator usage: H[ (capped at C)]", what the
//     allocator holds from CUDA and JULIA_CUDA_MEMORY_LIMIT, then "NAME usage: H (A allocated, C
//     cached)", NAME the pool's ("BinnedPool", "SplittingPool") or, from 3.0, "Memory pool";
//   CuArrays.jl before it (ae3fa0443) logged "Error: Out of GPU memory trying to allocate S" and
//     the same lines with "CuArrays GPU memory usage: H" for the allocator's.
// The pool has run a full garbage collection and trimmed itself before it raises (memory.jl,
// retry_reclaim: RECLAIM_GC), so what it still reserves beyond its live buffers is what it could
// not release.
constexpr std::string_view cudajl_anchor = "Out of GPU memory";
constexpr std::string_view cudajl_request = " trying to allocate ";
constexpr std::string_view cudajl_device = "Effective GPU memory usage: ";
constexpr std::string_view cudajl_allocator_labels[] = {"CUDA allocator usage: ",
                                                        "CuArrays GPU memory usage: "};
constexpr std::string_view cudajl_no_pool[] = {"No memory pool is in use",
                                               "Memory pool statistics require"};
// The status lines after the first, CuArrays' pool dump among them.
constexpr std::size_t max_cudajl_lines = 12;
constexpr std::string_view bare_anchors[] = {"CUDA error: out of memory", "runtime error (2) : out of memory"};
// The driver's and the libraries' names for the error; a runtime call's own wording
// ("cudaFuncSetAttribute(...): out of memory") is found by runtime_call_oom.
// Darknet's check_error prints the runtime's error string after "CUDA Error: " (src/cuda.c:
// printf("CUDA Error: %s\n", cudaGetErrorString(status)) before assert(0)).
constexpr std::string_view cuda_anchors[] = {
    "CUDA_ERROR_OUT_OF_MEMORY", "CUDNN_STATUS_ALLOC_FAILED", "CUBLAS_STATUS_ALLOC_FAILED",
    "CUDA Error: out of memory"};
// The driver calls that create a context, and StreamExecutor's wording when creating one failed
// (TensorFlow and XLA: "failed initializing StreamExecutor for CUDA device ordinal N").
constexpr std::string_view context_calls[] = {"cuCtxCreate", "cuDevicePrimaryCtxRetain",
                                              "failed initializing StreamExecutor"};
// How many lines after a driver error its stack may name the call (JCuda prints "at
// jcuda.driver.JCudaDriver.cuCtxCreate" a few lines below the exception).
constexpr std::size_t stack_lines_after = 8;
constexpr std::size_t max_wrapped_lines = 5;
constexpr std::size_t max_dump_lines = 5000;  // a BFC dump lists every chunk; stop looking after this

// Text after a "[rank3]:" prefix, or the line itself.
std::string_view without_rank_prefix(std::string_view line) {
  std::string_view t = detail::trim(line);
  if (t.substr(0, 5) == "[rank") {
    const std::size_t close = t.find("]:");
    if (close != std::string_view::npos) return detail::trim(t.substr(close + 2));
  }
  return line;
}

std::optional<int> number_at(std::string_view s, std::size_t at) {
  std::size_t end = at;
  while (end < s.size() && end - at < 7 && s[end] >= '0' && s[end] <= '9') ++end;
  if (auto v = detail::parse_uint(s.substr(at, end - at))) return static_cast<int>(*v);
  return std::nullopt;
}

std::optional<int> rank_before(std::string_view line, std::size_t anchor) {
  const std::string_view head = line.substr(0, anchor);
  if (const std::size_t at = head.find("[rank"); at != std::string_view::npos) return number_at(head, at + 5);
  // TensorRT-LLM's logger: "[TRT-LLM] [RANK 1] [E] ...".
  if (const std::size_t at = head.find("[RANK "); at != std::string_view::npos) return number_at(head, at + 6);
  if (const std::size_t at = head.find("rank="); at != std::string_view::npos) return number_at(head, at + 5);
  return std::nullopt;
}

// The size right after the first `label` at or after `from`; `from` moves past it.
std::optional<bytes> size_after(std::string_view m, std::string_view label, std::size_t& from) {
  const std::size_t at = m.find(label, from);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t used = 0;
  auto size = detail::parse_size_prefix(m.substr(at + label.size()), used);
  if (size) from = at + label.size() + used;
  return size;
}

// Where "GPU N has S capacity" (the sentence with its size before the word, as an abridged or
// reworded message gives it: "GPU 0 has 14.56 GiB capacity, of which 768.81 MiB is free") starts
// in `t`, and the size's offset; nullopt when `t` has no such sentence.
std::optional<std::pair<std::size_t, std::size_t>> sized_capacity(std::string_view t) {
  for (std::size_t gpu = t.find("GPU "); gpu != std::string_view::npos; gpu = t.find("GPU ", gpu + 4)) {
    const std::size_t has = t.find(" has ", gpu);
    if (has == std::string_view::npos || has > gpu + 8) continue;
    std::size_t used = 0;
    const std::string_view rest = t.substr(has + 5);
    if (!detail::parse_size_prefix(rest, used)) continue;
    const std::string_view after = detail::trim(rest.substr(used));
    if (after.substr(0, 8) == "capacity" || after.substr(0, 14) == "total capacity")
      return std::pair{gpu, has + 5};
  }
  return std::nullopt;
}

void read_sentences(std::string_view m, oom_report& r) {
  std::size_t at = 0;
  if (const std::size_t gpu = m.find("GPU "); gpu != std::string_view::npos &&
                                              m.find(" has a total capac", gpu) != std::string_view::npos)
    r.gpu = number_at(m, gpu + 4);
  std::size_t pos = 0;
  r.capacity = size_after(m, "total capacity of ", pos);
  if (!r.capacity) r.capacity = size_after(m, "total capacty of ", pos);
  if (const auto sized = sized_capacity(m); !r.capacity && sized) {
    r.gpu = number_at(m, sized->first + 4);
    std::size_t used = 0;
    r.capacity = detail::parse_size_prefix(m.substr(sized->second), used);
    pos = sized->second + used;
  }
  r.free = size_after(m, " of which ", pos);
  while ((at = m.find("Process ", pos)) != std::string_view::npos) {
    std::size_t p = at + 8, end = p;
    while (end < m.size() && m[end] >= '0' && m[end] <= '9') ++end;
    const auto pid = detail::parse_int(m.substr(p, end - p));
    pos = end;
    if (auto used = size_after(m, " has ", pos); pid && used) r.processes.push_back({pid, *used});
  }
  pos = 0;
  if (auto own = size_after(m, "this process has ", pos)) r.processes.push_back({std::nullopt, *own});
  pos = 0;
  r.allocated_by_pytorch = size_after(m, "Of the allocated memory ", pos);
  // torch >= 2.6 puts "with P allocated in private pools (e.g., CUDA Graphs)," between the two
  // figures; P is part of the allocated figure.
  if (const std::size_t with = m.find("is allocated by PyTorch, with ", pos); with != std::string_view::npos) {
    std::size_t at = with;
    r.private_pools = size_after(m, "is allocated by PyTorch, with ", at);
    pos = at;
    r.reserved_unallocated = size_after(m, ", and ", pos);
  } else {
    r.reserved_unallocated = size_after(m, "is allocated by PyTorch, and ", pos);
  }
  if (r.allocated_by_pytorch && r.reserved_unallocated)
    r.reserved_by_pytorch = *r.allocated_by_pytorch + *r.reserved_unallocated;
}

// "(GPU 0; 79.15 GiB total capacity; 70.12 GiB already allocated; 1.25 GiB free; 76.63 GiB
// reserved in total by PyTorch)". The 1.0-1.3 releases ended with "C cached)" instead, and C was
// the cache the allocator held beyond what was allocated (reserved minus allocated), not the
// total: real messages of those releases print C below the allocated figure ("643.57 MiB already
// allocated; 8.20 GiB free; 32.43 MiB cached", RenYurui/StructureFlow#35), which a total could
// never be.
// Pasted without its parentheses ("Tried to allocate 20.00 MiB GPU 0; 8.00 GiB total capacity;
// ..."), the list is read the same way, up to the advice that follows it.
std::optional<std::size_t> parenthesis_start(std::string_view m) {
  if (const std::size_t open = m.find("(GPU "); open != std::string_view::npos) return open;
  for (std::size_t at = m.find("GPU "); at != std::string_view::npos; at = m.find("GPU ", at + 1)) {
    std::size_t end = at + 4;
    while (end < m.size() && m[end] >= '0' && m[end] <= '9') ++end;
    if (end > at + 4 && end < m.size() && m[end] == ';') return at == 0 ? at : at - 1;
  }
  return std::nullopt;
}

void read_parenthesis(std::string_view m, oom_report& r) {
  const auto start = parenthesis_start(m);
  if (!start) return;
  const std::size_t open = *start;
  const std::size_t close = m.find(')', open);
  r.gpu = number_at(m, open + 5);
  for (auto part : detail::split(m.substr(open + 1, close == std::string_view::npos ? std::string_view::npos : close - open - 1), ';')) {
    part = detail::trim(part);
    std::size_t used = 0;
    const auto size = detail::parse_size_prefix(part, used);
    if (!size) continue;
    const std::string_view what = detail::trim(part.substr(used));
    if (what == "total capacity") r.capacity = size;
    else if (what == "already allocated") r.allocated_by_pytorch = size;
    else if (what == "free") r.free = size;
    else if (what == "reserved in total by PyTorch") r.reserved_by_pytorch = size;
    else if (what == "cached") r.reserved_unallocated = size;
  }
  if (r.allocated_by_pytorch && r.reserved_unallocated && !r.reserved_by_pytorch) {
    r.reserved_by_pytorch = *r.allocated_by_pytorch + *r.reserved_unallocated;
    return;
  }
  if (r.allocated_by_pytorch && r.reserved_by_pytorch && *r.reserved_by_pytorch >= *r.allocated_by_pytorch)
    r.reserved_unallocated = *r.reserved_by_pytorch - *r.allocated_by_pytorch;
}

// The message from its anchor, joined over wrapped lines, cut before the advice that follows it.
std::string torch_message(const std::vector<text_line>& lines, std::size_t i, std::size_t anchor) {
  std::string_view first = lines[i].text;
  std::size_t start = first.rfind("CUDA", anchor);
  if (start == std::string_view::npos || anchor - start > 8) start = anchor;
  std::string m(first.substr(start));
  for (std::size_t k = i + 1; k < lines.size() && k <= i + max_wrapped_lines; ++k) {
    const std::string_view next = detail::trim(without_rank_prefix(lines[k].text));
    if (next.empty() || detail::contains(next, torch_anchor) || detail::contains(next, "Traceback")) break;
    if (detail::contains(m, "See documentation") || detail::contains(m, "reserved in total by PyTorch") ||
        detail::contains(m, " cached)"))
      break;
    m += ' ';
    m += next;
  }
  for (std::string_view end : {" If reserved", " See documentation"})
    if (const std::size_t at = m.find(end); at != std::string::npos) m.resize(at);
  return m;
}

// Where a message pasted from "Tried to allocate X (GPU 0; ..." or "Tried to allocate X. GPU 0
// has a total capacity ..." starts in `line`, without the "CUDA out of memory." before it. The
// capacity may wrap to `next`, and the exception's name may come first ("torch.OutOfMemoryError:
// Tried to allocate ..." where the paste left out the words between).
std::optional<std::size_t> headless_torch(std::string_view line, std::string_view next) {
  std::string_view t = detail::trim(without_rank_prefix(line));
  for (std::string_view name : {"torch.cuda.OutOfMemoryError: ", "torch.OutOfMemoryError: ", "OutOfMemoryError: "})
    if (t.substr(0, name.size()) == name) {
      t.remove_prefix(name.size());
      break;
    }
  if (t.substr(0, 18) != "Tried to allocate ") return std::nullopt;
  const std::string_view n = detail::trim(without_rank_prefix(next));
  const bool wrapped = n.substr(0, 4) == "GPU " && (detail::contains(n, " has a total capac") || sized_capacity(n));
  if (!detail::contains(t, "(GPU ") && !detail::contains(t, " has a total capac") && !sized_capacity(t) &&
      !wrapped)
    return std::nullopt;
  return static_cast<std::size_t>(t.data() - line.data());
}

// PyTorch's message with its "Tried to allocate X" cut out and its figures kept ("RuntimeError:
// CUDA out of memory.(GPU 1; 14.76 GiB total capacity;)", as an issue's title quotes it): where
// "out of memory" starts, when the parenthesised list follows it.
std::optional<std::size_t> torch_without_request(std::string_view line) {
  const std::size_t at = line.find("CUDA out of memory");
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + 18);
  while (!rest.empty() && (rest.front() == '.' || rest.front() == ' ')) rest.remove_prefix(1);
  if (!rest.starts_with("(GPU ") || !parenthesis_start(rest)) return std::nullopt;
  return at + 5;
}

std::optional<std::size_t> bare_torch(std::string_view line) {
  for (std::string_view anchor : bare_anchors)
    if (const std::size_t at = line.find(anchor); at != std::string_view::npos) return at;
  // PyTorch's message cut after its first sentence ("RuntimeError: CUDA out of memory",
  // "torch.OutOfMemoryError: CUDA out of memory."; c10/cuda/CUDACachingAllocator.cpp starts it
  // so): the allocator's failure, its figures not pasted.
  std::string_view rest = detail::trim(line);
  while (!rest.empty() && (rest.back() == '.' || rest.back() == ' ')) rest.remove_suffix(1);
  constexpr std::string_view cut = "Error: CUDA out of memory";
  if (rest.ends_with(cut)) return line.find(cut) + 7;
  return std::nullopt;
}

// A runtime call that failed for lack of memory: "cudaX(...): out of memory" (any CUDA runtime
// API, whose error string for cudaErrorMemoryAllocation is "out of memory").
std::optional<std::size_t> runtime_call_oom(std::string_view line) {
  const std::size_t oom = line.find("): out of memory");
  if (oom == std::string_view::npos) return std::nullopt;
  // The call's own parenthesis: the one that the ')' before ": out of memory" closes.
  int depth = 0;
  std::size_t open = oom + 1;
  while (open > 0) {
    const char c = line[--open];
    if (c == ')') ++depth;
    if (c == '(' && --depth == 0) break;
  }
  if (depth != 0) return std::nullopt;
  std::size_t name = open;
  while (name > 0 && (std::isalnum(static_cast<unsigned char>(line[name - 1])) || line[name - 1] == '_')) --name;
  if (line.substr(name, 4) != "cuda" || name == open) return std::nullopt;
  return name;
}

std::optional<std::size_t> cuda_error(std::string_view line) {
  for (std::string_view anchor : cuda_anchors)
    if (const std::size_t at = line.find(anchor); at != std::string_view::npos) return at;
  return runtime_call_oom(line);
}

// The size in bytes of one element of a TensorFlow dtype as printed ("type float"); 0 unknown.
bytes tf_dtype_size(std::string_view type) {
  static constexpr std::pair<std::string_view, bytes> sizes[] = {
      {"float", 4}, {"half", 2},  {"bfloat16", 2}, {"double", 8}, {"int32", 4}, {"int64", 8},
      {"int16", 2}, {"uint8", 1}, {"int8", 1},     {"bool", 1},   {"complex64", 8}, {"complex128", 16}};
  for (const auto& [name, size] : sizes)
    if (type == name) return size;
  return 0;
}

// "OOM when allocating tensor with shape[64,372,32,32] and type float": the tensor's bytes.
// TensorFlow 1.x wrote "tensor of shape [1024]", and its early releases gave no type: the type
// is then read as float, TensorFlow's default (float32, 4 bytes), and `type_assumed` says so.
// Dimensions are separated by commas (or spaces, where a paste lost them).
struct tf_tensor_size {
  bytes size = 0;
  bool type_assumed = false;
};

std::optional<tf_tensor_size> tf_tensor_bytes(std::string_view t) {
  std::size_t open = t.find("shape[");
  std::size_t dims = open + 6;
  if (open == std::string_view::npos && (open = t.find("shape [")) != std::string_view::npos)
    dims = open + 7;
  if (open == std::string_view::npos) return std::nullopt;
  const std::size_t close = t.find(']', dims);
  if (close == std::string_view::npos) return std::nullopt;
  std::string list(t.substr(dims, close - dims));
  std::replace(list.begin(), list.end(), ' ', ',');
  bytes n = 1;
  std::size_t count = 0;
  for (auto dim : detail::split(list, ',')) {
    if (dim.empty()) continue;
    const auto v = detail::parse_uint(dim);
    if (!v || (*v != 0 && n > UINT64_MAX / *v)) return std::nullopt;
    n *= *v;
    ++count;
  }
  if (count == 0) return std::nullopt;
  const std::size_t type = t.find(" type ", close);
  if (type == std::string_view::npos) {
    if (n > UINT64_MAX / 4) return std::nullopt;
    return tf_tensor_size{n * 4, true};
  }
  std::string_view name = t.substr(type + 6);
  name = name.substr(0, std::min(name.size(), name.find(' ')));
  const bytes size = tf_dtype_size(name);
  if (size == 0 || n > UINT64_MAX / size) return std::nullopt;
  return tf_tensor_size{n * size, false};
}

// Another framework's allocator: "out of memory" (any case) and "allocat..." or a runtime
// allocation call by name with a byte count. Faiss's GPU resources: "Failed to cudaMalloc N bytes
// on device D (error 2 out of memory" (faiss/gpu/StandardGpuResources.cpp, allocMemory).
bool other_framework_oom(std::string_view t) {
  std::string low(t);
  std::transform(low.begin(), low.end(), low.begin(), [](unsigned char c) { return std::tolower(c); });
  return low.find("out of memory") != std::string::npos &&
         (low.find("allocat") != std::string::npos || low.find("cudamalloc") != std::string::npos ||
          low.find("cumemalloc") != std::string::npos) &&
         low.find(" bytes") != std::string::npos;
}

// A byte count as Python's "{:,}" prints it ("805,306,368") or plain ("205520896"); `used` is how
// many characters it took. Groups after the first must be three digits.
std::optional<bytes> grouped_count(std::string_view s, std::size_t& used) {
  const auto digit = [&](std::size_t k) { return k < s.size() && s[k] >= '0' && s[k] <= '9'; };
  std::string digits;
  std::size_t i = 0;
  while (digit(i)) digits += s[i++];
  if (digits.empty()) return std::nullopt;
  while (i < s.size() && s[i] == ',' && digit(i + 1) && digit(i + 2) && digit(i + 3) &&
         !digit(i + 4)) {
    digits.append(s.substr(i + 1, 3));
    i += 4;
  }
  // A group cut short (",2" at the end of a cut line) leaves the count unknown, not smaller.
  if (digits.size() > 19 || (i < s.size() && s[i] == ',' && digit(i + 1))) return std::nullopt;
  used = i;
  return detail::parse_uint(digits);
}

// The names a cut line lacks, as the message would print them: a", "b.
std::string joined_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : "\", \"") + n;
  return out;
}

// The count right after `label` in `t` at or after `from`, followed by its word "bytes"; nullopt
// when absent or when the line ends inside it (a count at the end of a cut line may lack digits).
std::optional<bytes> count_after(std::string_view t, std::string_view label, std::size_t from = 0) {
  const std::size_t at = t.find(label, from);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view rest = detail::trim(t.substr(at + label.size()));
  std::size_t used = 0;
  const auto v = grouped_count(rest, used);
  if (!v || !detail::trim(rest.substr(used)).starts_with("byte")) return std::nullopt;
  return v;
}

// Where CuPy's message starts on the line, or npos: "Out of memory allocating N bytes" with
// CuPy's own marks, or CuPy 5's "out of memory to allocate N bytes (total".
std::size_t cupy_message_at(std::string_view t) {
  if (const std::size_t at = t.find(xla_pjrt_anchor); at != std::string_view::npos) {
    const std::string_view rest = t.substr(at + xla_pjrt_anchor.size());
    std::size_t used = 0;
    const bool grouped = grouped_count(rest, used).has_value() &&
                         rest.substr(0, used).find(',') != std::string_view::npos;
    if (grouped || detail::contains(rest, cupy_so_far) || detail::contains(t.substr(0, at), "cupy"))
      return at;
  }
  if (const std::size_t at = t.find(cupy_old_anchor);
      at != std::string_view::npos && detail::contains(t.substr(at), "(total "))
    return at;
  return std::string_view::npos;
}

// Where CUDA.jl's message starts on line `t`, or npos: "Out of GPU memory" followed by its
// request, or standing alone as an error's text (after "ERROR: " or at the line's start) or
// with the device's status on the next line.
std::size_t cudajl_message_at(std::string_view t, std::string_view next) {
  const std::size_t at = t.find(cudajl_anchor);
  if (at == std::string_view::npos) return std::string_view::npos;
  const std::string_view rest = t.substr(at + cudajl_anchor.size());
  if (rest.starts_with(cudajl_request.substr(0, cudajl_request.size() - 1))) return at;
  if (!detail::trim(rest).empty()) return std::string_view::npos;
  const std::string_view head = detail::trim(t.substr(0, at));
  if (head.empty() || head.ends_with(':') || detail::contains(next, cudajl_device)) return at;
  return std::string_view::npos;
}

// "P% (U/T)" after CUDA.jl's device label: U and T; nullopt unless both read.
std::optional<std::pair<bytes, bytes>> cudajl_device_usage(std::string_view t, std::size_t at) {
  const std::size_t open = t.find('(', at);
  if (open == std::string_view::npos) return std::nullopt;
  std::size_t used = 0;
  const std::string_view rest = t.substr(open + 1);
  const auto in_use = detail::parse_size_prefix(rest, used);
  if (!in_use || used >= rest.size() || rest[used] != '/') return std::nullopt;
  std::size_t total_used = 0;
  const auto total = detail::parse_size_prefix(rest.substr(used + 1), total_used);
  if (!total) return std::nullopt;
  return std::pair{*in_use, *total};
}

// A failure line in words, of a tool or framework no reader knows by name: "OOM during weight
// sync (attempted 970 MiB, only 758 MiB available)", "out of memory: requested 2.10 GiB but only
// 1.30 GiB is free", "not enough GPU memory: need 3 GB, 1.2 GB free". A failure word ("OOM" as a
// word, "out of memory", "not enough (GPU) memory", "insufficient (GPU) memory"), a size after a
// word of asking (attempted, requested, need, require, tried/trying to allocate) and, where the
// line gives one, a size next to a word of what was left (available, free, remaining, left).
struct worded_failure {
  bytes requested = 0;
  std::optional<bytes> available;
};

std::optional<worded_failure> worded_failure_of(std::string_view t) {
  const std::string low = detail::to_lower(t);
  if (!detail::names_memory_failure(low)) return std::nullopt;
  struct sized {
    std::size_t start, end;
    bytes value;
  };
  std::vector<sized> sizes;
  for (std::size_t i = 0; i < t.size() && sizes.size() < 16; ++i) {
    const bool starts =
        t[i] >= '0' && t[i] <= '9' &&
        (i == 0 || (!std::isalnum(static_cast<unsigned char>(t[i - 1])) && t[i - 1] != '.'));
    if (!starts) continue;
    std::size_t used = 0;
    if (const auto v = detail::parse_size_prefix(t.substr(i), used); v && used > 0) {
      sizes.push_back({i, i + used, *v});
      i += used - 1;
    }
  }
  worded_failure out;
  bool requested = false;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const std::size_t from = k == 0 ? 0 : sizes[k - 1].end;
    std::string_view before = std::string_view(low).substr(from, sizes[k].start - from);
    if (before.size() > 40) before = before.substr(before.size() - 40);
    const std::size_t to = k + 1 < sizes.size() ? sizes[k + 1].start : low.size();
    std::string_view after =
        detail::trim(std::string_view(low).substr(sizes[k].end, to - sizes[k].end));
    for (std::string_view filler : {"is ", "are ", "of memory ", "memory ", "still "})
      if (after.substr(0, filler.size()) == filler) after.remove_prefix(filler.size());
    const auto any_of = [](std::string_view text, std::initializer_list<std::string_view> words) {
      for (auto w : words)
        if (detail::contains(text, w)) return true;
      return false;
    };
    const bool left_after = any_of(after.substr(0, 12), {"available", "free", "remaining", "left"});
    const bool left_before =
        any_of(before, {"available:", "free:", "remaining:", "available memory", "free memory"});
    if (!requested && !left_after &&
        any_of(before, {"attempt", "request", "need", "require", "tried to allocate",
                        "trying to allocate", "asked for"})) {
      out.requested = sizes[k].value;
      requested = true;
    } else if (!out.available && (left_after || left_before)) {
      out.available = sizes[k].value;
    }
  }
  if (!requested) return std::nullopt;
  return out;
}

// XLA's rematerialization warning: "Can't reduce memory use below -30.29GiB (-32529110990 bytes)
// by rematerialization; only reduced to 49.62GiB (53280000080 bytes), down from ...". The byte
// counts in parentheses are read (the limit may be negative); the human-readable sizes where
// they are missing.
constexpr std::string_view remat_anchor = "Can't reduce memory use below ";

struct remat_figures {
  std::optional<std::int64_t> limit;
  std::optional<bytes> peak;
};

// The signed byte count of "X (N bytes)" starting at `at`, or X itself when non-negative.
std::optional<std::int64_t> remat_figure(std::string_view t, std::size_t at) {
  const std::size_t open = t.find('(', at);
  const std::size_t close = open == std::string_view::npos ? open : t.find(" bytes)", open);
  if (close != std::string_view::npos && close - open < 24)
    if (const auto v = detail::parse_int(t.substr(open + 1, close - open - 1))) return *v;
  std::size_t used = 0;
  if (const auto v = detail::parse_size_prefix(t.substr(at), used);
      v && *v <= static_cast<bytes>(INT64_MAX))
    return static_cast<std::int64_t>(*v);
  return std::nullopt;
}

remat_figures remat_of(std::string_view t, std::size_t at) {
  remat_figures r;
  r.limit = remat_figure(t, at + remat_anchor.size());
  if (const std::size_t to = t.find("only reduced to ", at); to != std::string_view::npos)
    if (const auto v = remat_figure(t, to + 16); v && *v > 0) r.peak = static_cast<bytes>(*v);
  return r;
}

oom_report read_torch(const std::vector<text_line>& lines, std::size_t i, std::size_t anchor) {
  oom_report r;
  r.kind = oom_kind::torch;
  r.line = lines[i].number;
  r.rank = rank_before(lines[i].text, anchor);
  r.raw = torch_message(lines, i, anchor);
  std::size_t pos = 0;
  r.requested = size_after(r.raw, "Tried to allocate ", pos);
  if (parenthesis_start(r.raw)) read_parenthesis(r.raw, r);
  else read_sentences(r.raw, r);
  return r;
}

// The plain byte count after `label` ("total_region_allocated_bytes_: 1074790400 ..."), or nullopt.
std::optional<bytes> digits_after(std::string_view t, std::string_view label) {
  const std::size_t at = t.find(label);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view rest = t.substr(at + label.size());
  return detail::parse_uint(
      rest.substr(0, std::min(rest.size(), rest.find_first_not_of("0123456789"))));
}

// A line only a BFC allocator's dump prints (bfc_allocator.cc, DumpMemoryLog): a paste may begin
// there, its "ran out of memory" line cut off above it.
bool bfc_dump_line(std::string_view t) {
  return detail::contains(t, "total_region_allocated_bytes_: ") ||
         detail::contains(t, "Sum Total of in-use chunks: ") ||
         (detail::contains(t, "bfc_allocator.cc") && detail::trim(t).ends_with("Stats:"));
}

// The first line of the allocator statistics a BFC dump ends with ("Limit:   536870912",
// AllocatorStats::DebugString, tsl/framework/allocator.cc): a label and a plain byte count. The
// pool prints them only when it refuses a request (BFCAllocator::DumpMemoryLog), so a paste of
// the block alone is the end of an out-of-memory dump.
bool bfc_stats_first_line(std::string_view t) {
  t = detail::trim(t);
  if (!t.starts_with("Limit:")) return false;
  const std::string_view count = detail::trim(t.substr(6));
  return !count.empty() && count.find_first_not_of("0123456789") == std::string_view::npos;
}

// What a BFC statistics block pasted alone lacks: the allocator's line with the request.
constexpr std::string_view stats_alone_missing = "ran out of memory trying to allocate";

// The XLA report being assembled: the BFC dump lines come before the error that ends it.
struct xla_reader {
  bool open = false;
  bool has_error = false;
  bool bfc_line = false;     // the report began with the BFC allocator's own line
  bool bfc_figures = false;  // a figure of its dump was read
  bool dump_only = false;    // begun at a dump line, no allocator's line above it: kept only if an
                             // error ends it, or if it is the dump's statistics block
  bool stats_limit = false, stats_in_use = false;  // the statistics block's Limit and InUse read
  std::size_t started = 0;
  std::size_t last_error = 0;
  oom_report report;

  // The label stands alone: "MaxInUse:" is not "InUse:". A paste may wrap the block in Markdown
  // bold ("**Limit:  12049707828"), so any mark but a letter or digit may come before it.
  static std::optional<bytes> stat_value(std::string_view line, std::string_view label) {
    const std::size_t at = line.find(label);
    if (at == std::string_view::npos ||
        (at > 0 && std::isalnum(static_cast<unsigned char>(line[at - 1]))))
      return std::nullopt;
    std::string_view value = detail::trim(line.substr(at + label.size()));
    while (value.ends_with('*')) value.remove_suffix(1);  // the bold's closing mark
    return detail::parse_size(detail::trim(value), 1);
  }

  void read_dump_line(std::string_view line) {
    if (auto v = stat_value(line, "Limit:")) {
      report.capacity = v;
      stats_limit = true;
    }
    if (auto v = stat_value(line, "InUse:")) {
      report.in_use = v;
      stats_in_use = true;
    }
    if (auto v = stat_value(line, "MaxInUse:")) report.peak_in_use = v;
    if (auto v = stat_value(line, "LargestFreeBlock:")) report.largest_free_block = v;
    std::size_t pos = 0;
    if (!report.capacity) report.capacity = size_after(line, "memory_limit_: ", pos);
    // "total_region_allocated_bytes_: N memory_limit_: L available bytes: A" (bfc_allocator.cc,
    // DumpMemoryLog): the regions the pool holds from the driver; "Sum Total of in-use chunks:
    // 3.08GiB", the live chunks, where a paste lacks the Stats block's InUse.
    if (auto v = digits_after(line, "total_region_allocated_bytes_: ")) report.pool_held = v;
    if (!report.capacity) report.capacity = digits_after(line, "memory_limit_: ");
    pos = 0;
    if (auto v = size_after(line, "Sum Total of in-use chunks: ", pos); v && !report.in_use)
      report.in_use = v;
    bfc_figures = bfc_figures || report.capacity || report.in_use || report.pool_held;
  }

  void start(const text_line& line, std::size_t i) {
    open = true;
    has_error = false;
    started = i;
    report = oom_report{};
    bfc_line = false;
    bfc_figures = false;
    dump_only = false;
    stats_limit = stats_in_use = false;
    report.kind = oom_kind::xla;
    report.line = line.number;
  }

  // "Allocator (GPU_0_bfc) ran out of memory trying to allocate 16.00GiB (rounded to 17179869184)"
  void start_bfc(const text_line& line, std::size_t i) {
    start(line, i);
    read_bfc_line(line);
  }

  // TensorFlow 1.0's pool dumped its state first and then said "Ran out of memory trying to
  // allocate 39.81MiB.  See logs for memory state." (bfc_allocator.cc: the dump's lines at
  // :6xx-7xx, then the occupancy map and this line at :274-275 of one log): the dump open above
  // it, with no error yet, is this failure's.
  void end_dump_with_bfc_line(const text_line& line) {
    dump_only = false;
    report.line = line.number;
    read_bfc_line(line);
  }

  void read_bfc_line(const text_line& line) {
    bfc_line = true;
    report.raw = std::string(detail::trim(line.text));
    const std::string_view t = line.text;
    // TensorFlow's own build logs its path from the source root; jaxlib's from its vendored copy
    // ("external/org_tensorflow/...") or from xla/.
    report.tensorflow = detail::contains(t, "tensorflow/core/common_runtime/bfc_allocator") &&
                        !detail::contains(t, "org_tensorflow");
    if (const std::size_t at = t.find("(GPU_"); at != std::string_view::npos) report.gpu = number_at(t, at + 5);
    // "(rounded to 35758080)": the exact bytes the pool looked for, a plain count.
    report.requested = digits_after(t, "(rounded to ");
    std::size_t pos = 0;
    if (!report.requested) report.requested = size_after(t, "trying to allocate ", pos);
  }

  // The allocator named: TensorFlow's or XLA's BFC pool where its line or figures were read,
  // else XLA's client. A BFC line without the dump's figures names what the paste lacks.
  void close(std::vector<oom_report>& out) {
    if (!open) return;
    // A dump with no failure after it is kept only as its statistics block, printed at a
    // refusal: the pool's limit and what it had in use, the request and the error not pasted.
    const bool stats_alone = dump_only && !has_error && stats_limit && stats_in_use;
    if (dump_only && !has_error && !stats_alone) {
      open = false;
      return;
    }
    if (report.tensorflow)
      report.allocator = oom_allocator::tf_bfc;
    else
      report.allocator =
          bfc_line || bfc_figures ? oom_allocator::xla_bfc : oom_allocator::xla_client;
    if (bfc_line && !bfc_figures)
      report.missing = {"Stats: Limit", "InUse", "total_region_allocated_bytes_"};
    if (stats_alone) {
      report.missing = {std::string(stats_alone_missing)};
      report.message_cut = true;
    }
    out.push_back(std::move(report));
    open = false;
  }
};

struct oom_scanner {
  const std::string& source;
  const std::vector<text_line>& lines;
  warnings& warns;
  std::vector<oom_report> out;
  std::set<std::pair<int, std::string>> seen_torch;
  xla_reader xla;
  std::size_t context_from = 0;  // the first line after the previous message
  std::optional<bytes> tf_total, tf_free;  // TensorFlow's "Found device" block, the latest

  void tf_device_line(std::string_view t) {
    for (std::string_view label : {"Total memory: ", "totalMemory: "}) {
      std::size_t pos = 0;
      if (auto v = size_after(t, label, pos)) tf_total = v;
    }
    for (std::string_view label : {"Free memory: ", "freeMemory: "}) {
      std::size_t pos = 0;
      if (auto v = size_after(t, label, pos)) tf_free = v;
    }
  }

  // A pool's error at line i: a report of its own, unless it ends the dump still open (no error
  // yet, within max_dump_lines of its start).
  void open_for_error(std::size_t i) {
    if (xla.open && !xla.has_error && i - xla.started <= max_dump_lines) return;
    xla.close(out);
    xla.start(lines[i], i);
    xla.report.context = context_before(i);
  }

  // Line i, from `at`, as the open pool report's error line; `without` warns when no request
  // size was read from it or before it.
  void error_line(std::size_t i, std::size_t at, const char* without) {
    if (xla.dump_only && !xla.has_error)
      xla.report.line = lines[i].number;  // the error's, not the dump's
    xla.has_error = true;
    xla.last_error = i;
    if (!xla.report.raw.empty()) xla.report.raw += '\n';
    xla.report.raw += detail::trim(lines[i].text.substr(at));
    if (!xla.report.requested)
      warns.push_back(detail::error_on_line(source, lines[i], static_cast<int>(at) + 1, without));
  }

  // "OOM when allocating tensor with shape[...] and type T on .../device:GPU:0 by allocator
  // GPU_0_bfc": the error that ends a BFC dump when one is open, else a report of its own.
  void tf_tensor(std::size_t i, std::size_t at) {
    const std::string_view t = lines[i].text;
    open_for_error(i);
    xla.report.tensorflow = true;
    const auto size = tf_tensor_bytes(t);
    if (size) xla.report.requested = size->size;
    if (size && size->type_assumed)
      warns.push_back(detail::error_on_line(
          source, lines[i], static_cast<int>(at) + 1,
          fmt::format(
              "tensor message without its type: read as float (4 bytes an element, TensorFlow's "
              "default), {} bytes; half that for a float16 tensor",
              size->size)));
    if (const std::size_t g = t.find("GPU_"); g != std::string_view::npos && !xla.report.gpu)
      xla.report.gpu = number_at(t, g + 4);
    else if (const std::size_t d = t.find("device:GPU:"); d != std::string_view::npos && !xla.report.gpu)
      xla.report.gpu = number_at(t, d + 11);
    error_line(i, at, "out-of-memory message without a readable tensor shape and type");
  }

  // TensorFlow's pool asking the driver for a region: "failed to allocate 378.60M (396990720
  // bytes) from device: CUDA_ERROR_OUT_OF_MEMORY". Made at the device's creation (a "Found
  // device" block read before it) with most of the GPU already taken, it failed before this
  // process held anything: a context's failure. Otherwise the pool grew and the GPU was full.
  void tf_region(std::size_t i, std::size_t at) {
    xla.close(out);
    const std::string_view t = lines[i].text;
    oom_report r;
    r.kind = oom_kind::xla;
    r.tensorflow = true;
    r.allocator = oom_allocator::tf_bfc;
    r.line = lines[i].number;
    r.raw = std::string(detail::trim(t.substr(t.find("failed to allocate") == std::string_view::npos
                                                  ? at : t.find("failed to allocate"))));
    std::size_t pos = 0;
    if (const std::size_t open = t.find(" ("); open != std::string_view::npos && open < at) {
      pos = open + 2;
      std::size_t used = 0;
      r.requested = detail::parse_size_prefix(t.substr(pos), used);
    }
    r.capacity = tf_total;
    r.free = tf_free;
    if (tf_total && tf_free && *tf_free * 2 < *tf_total) r.origin = oom_origin::context_creation;
    r.context = context_before(i);
    if (seen_torch.insert({-1, r.raw}).second) out.push_back(std::move(r));
  }

  // Another framework's allocator: the byte counts the line gives, with a warning naming what
  // it does not (the framework's own share of the GPU).
  void other_framework(std::size_t i) {
    xla.close(out);
    const std::string_view t = lines[i].text;
    oom_report r;
    r.kind = oom_kind::cuda;
    r.allocator = oom_allocator::other;
    r.line = lines[i].number;
    r.raw = std::string(detail::trim(t));
    std::size_t pos = 0;
    for (std::string_view word :
         {"allocating ", "allocate ", "Allocating ", "Allocate ", "cudaMalloc ", "cuMemAlloc "}) {
      pos = 0;
      if ((r.requested = size_after(t, word, pos))) break;
    }
    // "... bytes on device 0": the GPU the request was for.
    if (const std::size_t dev = t.find(" on device "); dev != std::string_view::npos) {
      const std::string_view rest = t.substr(dev + 11);
      const std::string_view digits =
          rest.substr(0, std::min(rest.find_first_not_of("0123456789"), std::size_t{4}));
      if (const auto n = detail::parse_uint(digits)) r.gpu = static_cast<int>(*n);
    }
    // "Driver report F bytes free and T bytes total"
    if (const std::size_t rep = t.find("report "); rep != std::string_view::npos) {
      std::size_t used = 0;
      const auto free = detail::parse_size_prefix(t.substr(rep + 7), used);
      if (free && detail::trim(t.substr(rep + 7 + used)).starts_with("free")) {
        r.free = free;
        std::size_t p2 = rep + 7 + used;
        r.capacity = size_after(t, " and ", p2);
      }
    }
    r.context = context_before(i);
    warns.push_back(detail::error_on_line(
        source, lines[i], 1,
        fmt::format("out-of-memory message of a framework that is not PyTorch, JAX or TensorFlow: read its "
                    "figures (request {}, free {}, total {}); how much the framework itself held is not in it",
                    r.requested ? fmt::format("{} bytes", *r.requested) : "not given",
                    r.free ? fmt::format("{} bytes", *r.free) : "not given",
                    r.capacity ? fmt::format("{} bytes", *r.capacity) : "not given")));
    if (seen_torch.insert({-1, r.raw}).second) out.push_back(std::move(r));
  }

  // A failure line in words (worded_failure_of): the request and what was left, with a warning
  // naming what the line does not give.
  void worded(std::size_t i, const worded_failure& w) {
    oom_report r = started(i, 0, oom_kind::cuda);
    r.allocator = oom_allocator::other;
    r.requested = w.requested;
    r.free = w.available;
    warns.push_back(detail::error_on_line(
        source, lines[i], 1,
        fmt::format(
            "out-of-memory line in words, of no framework this reader knows: read the request ({} "
            "bytes) and {}; the device's capacity and what this process held are not in it",
            w.requested,
            w.available ? fmt::format("what was available ({} bytes)", *w.available)
                        : std::string("no figure of what was available"))));
    keep(std::move(r));
  }

  // XLA's rematerialization warning: what the compiled program needs at its peak against the
  // compiler's limit, before anything was allocated.
  void remat(std::size_t i, std::size_t at) {
    const std::string_view t = lines[i].text;
    const auto figures = remat_of(t, at);
    oom_report r = started(i, at, oom_kind::xla);
    r.allocator = oom_allocator::xla_client;
    r.compile_estimate = true;
    r.requested = figures.peak;
    r.compile_limit = figures.limit;
    if (!r.requested)
      warns.push_back(detail::error_on_line(
          source, lines[i], static_cast<int>(at) + 1,
          "rematerialization warning without a readable \"only reduced to\" size"));
    keep(std::move(r));
  }

  // The caching allocator's expandable-segment warning: the request, the device's free and total
  // bytes, as the driver gave them when the mapping failed.
  void expandable_map(std::size_t i, std::size_t at) {
    const std::string_view t = lines[i].text;
    oom_report r = started(i, at, oom_kind::torch);
    r.gpu = number_at(t, t.find(device_oom_anchor, at) + device_oom_anchor.size());
    std::size_t pos = at;
    r.requested = size_after(t, "trying to map ", pos);
    pos = at;
    if (!r.requested) r.requested = size_after(t, "trying to allocate ", pos);
    r.free = size_after(t, "free: ", pos);
    r.capacity = size_after(t, "total: ", pos);
    // A paste that elides the counts ("... bytes (free: ..., total: ...)"): the figures are named
    // as missing, never read as 0.
    if (!r.requested) r.missing.push_back("trying to allocate");
    if (!r.free) r.missing.push_back("free");
    if (!r.capacity) r.missing.push_back("total");
    r.message_cut = !r.missing.empty();
    keep(std::move(r));
  }

  // PaddlePaddle's message: the request and what the device had free; its "has been allocated"
  // figure is the allocator's own count (it can read as petabytes when the count is corrupt), so
  // it is not taken as what the framework held.
  void paddle(std::size_t i, std::size_t at) {
    const std::string_view t = lines[i].text;
    oom_report r = started(i, at, oom_kind::cuda);
    r.allocator = oom_allocator::paddle;
    r.gpu = number_at(t, at + paddle_anchor.size());
    std::size_t pos = at;
    r.requested = size_after(t, "Cannot allocate ", pos);  // a small request in "kB"
    r.free = size_after(t, "available memory is only ", pos);
    warns.push_back(detail::error_on_line(
        source, lines[i], 1,
        fmt::format("PaddlePaddle's out-of-memory message: read its request ({}) and the memory "
                    "the device had free ({}); what Paddle itself held is not in it",
                    r.requested ? fmt::format("{} bytes", *r.requested) : "not given",
                    r.free ? fmt::format("{} bytes", *r.free) : "not given")));
    keep(std::move(r));
  }

  // A report of the message at `at` on line i: its kind, line, rank prefix and text, and the
  // traceback before it; an open XLA dump ends here.
  oom_report started(std::size_t i, std::size_t at, oom_kind kind) {
    xla.close(out);
    oom_report r;
    r.kind = kind;
    r.line = lines[i].number;
    r.rank = rank_before(lines[i].text, at);
    r.raw = std::string(detail::trim(lines[i].text.substr(at)));
    r.context = context_before(i);
    return r;
  }

  // Keeps a report unless this rank's same message was kept already (one failure printed again
  // by each layer it passes).
  void keep(oom_report r) {
    if (seen_torch.insert({r.rank.value_or(-1), r.raw}).second) out.push_back(std::move(r));
  }

  // The lines before line i, back to the previous message: the traceback of this one.
  std::vector<std::string> context_before(std::size_t i) {
    std::vector<std::string> context;
    const std::size_t from = std::max(context_from, i > oom_context_lines ? i - oom_context_lines : 0);
    for (std::size_t k = from; k < i; ++k) {
      const std::string_view t = detail::trim(without_rank_prefix(lines[k].text));
      if (!t.empty()) context.push_back(fmt::format("{}: {}", lines[k].number, t.substr(0, 300)));
    }
    context_from = i + 1;
    return context;
  }

  void torch(std::size_t i, std::size_t at) {
    xla.close(out);
    oom_report r = read_torch(lines, i, at);
    r.context = context_before(i);
    // A warning or traceback pasted onto the message's own line comes before it there.
    if (const std::string_view head = detail::trim(lines[i].text.substr(0, at)); head.size() > 40)
      r.context.push_back(fmt::format("{}: {}", lines[i].number, head.substr(0, 300)));
    if (!seen_torch.insert({r.rank.value_or(-1), r.raw}).second) return;
    if (!r.requested)
      warns.push_back(detail::error_on_line(source, lines[i], static_cast<int>(at) + 1,
                                            "out-of-memory message without a readable \"Tried to allocate\" size"));
    out.push_back(std::move(r));
  }

  // cudaMallocAsync's message: the anchor's line and the figures' lines after it, up to a blank
  // line or another message.
  void torch_async(std::size_t i, std::size_t at) {
    xla.close(out);
    const std::string_view t = lines[i].text;
    oom_report r;
    r.kind = oom_kind::torch;
    r.malloc_async = true;
    r.allocator = oom_allocator::torch_async;
    r.line = lines[i].number;
    r.rank = rank_before(t, at);
    const std::size_t start = t.rfind("Allocation on device", at);
    if (start != std::string_view::npos) r.gpu = number_at(t, start + 21);
    std::string m(detail::trim(t.substr(start == std::string_view::npos ? at : start)));
    for (std::size_t k = i + 1; k < lines.size() && k <= i + max_async_lines; ++k) {
      const std::string_view next = detail::trim(without_rank_prefix(lines[k].text));
      if (next.empty() || detail::contains(next, async_anchor) || detail::contains(next, torch_anchor)) break;
      m += '\n';
      m += next;
    }
    // "Label<spaces>: SIZE", the colon possibly on the next line (the limit's).
    const auto figure = [&](std::string_view label) -> std::optional<bytes> {
      const std::size_t l = m.find(label);
      if (l == std::string::npos) return std::nullopt;
      const std::size_t colon = m.find(':', l + label.size());
      if (colon == std::string::npos) return std::nullopt;
      std::size_t used = 0;
      return detail::parse_size_prefix(detail::trim(std::string_view(m).substr(colon + 1)), used);
    };
    r.allocated_by_pytorch = figure("Currently allocated");
    r.requested = figure("Requested");
    r.capacity = figure("Device limit");
    r.free = figure("Free (according to CUDA)");
    // UINT64_MAX bytes when no fraction was set: too large to read, or above the total.
    if (const auto limit = figure("PyTorch limit"); limit && r.capacity && *limit < *r.capacity)
      r.fraction_limit = limit;
    r.raw = m;
    r.context = context_before(i);
    if (!seen_torch.insert({r.rank.value_or(-1), r.raw}).second) return;
    if (!r.requested)
      warns.push_back(detail::error_on_line(source, lines[i], static_cast<int>(at) + 1,
                                            "cudaMallocAsync out-of-memory message without a readable "
                                            "\"Requested\" size on the lines after it"));
    out.push_back(std::move(r));
  }

  // A figure-less message: one report per line, its text as raw.
  void torch_bare(std::size_t i, std::size_t at) {
    oom_report r = started(i, at, oom_kind::torch);
    // "CUDA error: out of memory" is a runtime call's error, not the caching allocator's.
    if (r.raw.starts_with(bare_anchors[0])) r.origin = oom_origin::outside_allocator;
    keep(std::move(r));
  }

  // A driver's or library's error: no figures; a context's creation when the line or the stack
  // printed after it names the call; XLA's when raised through jaxlib (XlaRuntimeError).
  void cuda_report(std::size_t i, std::size_t at) {
    const std::string_view t = lines[i].text;
    oom_report r = started(i, at,
                           detail::contains(t, "XlaRuntimeError") || detail::contains(t, "jaxlib")
                               ? oom_kind::xla
                               : oom_kind::cuda);
    r.origin = oom_origin::outside_allocator;
    r.allocator = oom_allocator::cuda;
    for (std::string_view anchor : cuda_anchors)
      if (t.substr(at, anchor.size()) == anchor) r.status = std::string(anchor);
    if (!out.empty() && out.back().status == r.status && out.back().kind == r.kind &&
        lines[i].number > out.back().line && lines[i].number - out.back().line <= repeat_lines)
      return;  // the same failure printed again (repeats_last)
    if (r.status.starts_with("CUDNN")) r.library = "cudnn";
    if (r.status.starts_with("CUBLAS")) r.library = "cublas";
    // The status of a handle the library could not create ("failed to create cublas handle:
    // CUBLAS_STATUS_ALLOC_FAILED", failure_line.cpp): that Create call's failure.
    if (const auto named = detail::failure_line_of(t);
        named && named->library == r.library &&
        named->status.find("Create failed") != std::string::npos)
      r.status = named->status;
    // The driver's device allocation named as the failed call: a framework's own allocator that
    // calls the driver directly (libgpuarray's "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY", Numba's
    // "Call to cuMemAlloc results in CUDA_ERROR_OUT_OF_MEMORY"), not a call beside a pool. Not
    // cuMemAllocHost (pinned host memory).
    for (std::size_t m = t.find("cuMemAlloc"); m != std::string_view::npos;
         m = t.find("cuMemAlloc", m + 1))
      if (!t.substr(m + 10).starts_with("Host") && r.library.empty())
        r.origin = oom_origin::allocator;
    for (std::size_t k = i; k < lines.size() && k <= i + stack_lines_after; ++k)
      for (std::string_view call : context_calls)
        if (detail::contains(lines[k].text, call) && (k == i || !cuda_error(lines[k].text)))
          r.origin = oom_origin::context_creation;
    if (r.origin == oom_origin::context_creation) r.kind = oom_kind::cuda;
    // TensorFlow's StreamExecutor: "...: out of memory; total memory reported: 11523260416".
    if (const std::size_t at_total = t.find("total memory reported: "); at_total != std::string_view::npos) {
      std::string_view digits = t.substr(at_total + 23);
      digits = digits.substr(0, std::min(digits.size(), digits.find_first_not_of("0123456789")));
      r.capacity = detail::parse_size(digits, 1);
    }
    keep(std::move(r));  // JCuda prints one failure twice: its exception, then its cause
  }

  // A failure the runtime or a library names (failure_line.hpp): no figures; a device
  // allocation of the runtime's, or a library's own (its workspace).
  // The runtime's log line and the exception that repeats it ("cuDNN failure 2: ..." then
  // "EXCEPTION occurred: cuDNN failure 2: ...", CNTK; the error logged, then raised again in a
  // RuntimeError's text, Theano): the same status again within a traceback's length of the
  // last report, with no other report between, is that failure printed twice.
  static constexpr int repeat_lines = 20;
  bool repeats_last(std::size_t i, const detail::failure_line& f) const {
    if (out.empty()) return false;
    const oom_report& last = out.back();
    return last.status == f.status && last.library == f.library && lines[i].number > last.line &&
           lines[i].number - last.line <= repeat_lines;
  }

  void failure(std::size_t i, const detail::failure_line& f) {
    if (repeats_last(i, f)) return;
    oom_report r = started(i, f.at, oom_kind::cuda);
    r.origin = f.origin;
    r.allocator = oom_allocator::cuda;
    r.library = f.library;
    r.status = f.status;
    r.status_not_memory = !f.names_memory;
    if (f.requested) r.requested = *f.requested;
    if (f.framework_pool) {
      r.allocator = oom_allocator::other;
      if (!r.requested) r.missing.push_back("requested buffer of size");
      keep(std::move(r));
      return;
    }
    for (std::size_t k = i; k < lines.size() && k <= i + stack_lines_after; ++k)
      for (std::string_view call : context_calls)
        if (detail::contains(lines[k].text, call)) r.origin = oom_origin::context_creation;
    keep(std::move(r));
  }

  // CuPy's pool: the request, what the pool held (pool_held) and the limit set on it, which is
  // then the capacity it may fill; free is what the limit left. Without a limit the device's
  // capacity is not in the message, and the figures a cut line lacks are named.
  void cupy(std::size_t i, std::size_t at) {
    const std::string_view t = lines[i].text;
    oom_report r = started(i, at, oom_kind::cuda);
    r.allocator = oom_allocator::cupy_pool;
    r.rank = r.rank ? r.rank : rank_before(t, at);
    const bool old = t.substr(at, cupy_old_anchor.size()) == cupy_old_anchor;
    r.requested = count_after(t, old ? cupy_old_anchor : xla_pjrt_anchor, at);
    if (old) {
      // CuPy <= 5: "(total T bytes)", T = the request + the pool's total_bytes() (memory.pyx).
      const auto total = count_after(t, "(total ", at);
      if (total && r.requested && *total >= *r.requested) r.pool_held = *total - *r.requested;
      if (!total) r.missing.push_back("total");
    } else {
      r.pool_held = count_after(t, cupy_so_far, at);
      if (!r.pool_held) r.missing.push_back("allocated so far");
      const std::size_t limit_at = t.find(cupy_limit, at);
      if (limit_at != std::string_view::npos) {
        r.capacity = count_after(t, cupy_limit, limit_at);
        if (!r.capacity) r.missing.push_back("limit set to");
      } else if (r.pool_held && !detail::contains(t.substr(at), "bytes)")) {
        // Cut after the pool's figure, before its closing parenthesis: a limit clause may follow.
        r.missing.push_back("limit set to");
      }
      if (r.capacity && r.pool_held && *r.capacity >= *r.pool_held)
        r.free = *r.capacity - *r.pool_held;
    }
    if (!r.requested) r.missing.insert(r.missing.begin(), "Out of memory allocating");
    std::string note =
        r.capacity ? fmt::format("a limit of {} bytes set on the pool (set_limit)", *r.capacity)
                   : std::string(
                         "no limit set on the pool, and the device's capacity and free memory are "
                         "not in CuPy's message");
    warns.push_back(detail::error_on_line(
        source, lines[i], static_cast<int>(at) + 1,
        fmt::format(
            "CuPy memory pool out of memory: read the request ({}) and what the pool held, live "
            "arrays and cached free blocks together ({}); {}{}",
            r.requested ? fmt::format("{} bytes", *r.requested) : "not given",
            r.pool_held ? fmt::format("{} bytes", *r.pool_held) : "not given", note,
            r.missing.empty()
                ? std::string()
                : fmt::format("; the line is cut: it lacks \"{}\"", joined_names(r.missing)))));
    keep(std::move(r));
  }

  // CUDA.jl's pool (cudajl_anchor above): the request on the first line, the device's total and
  // use and the pool's figures on the status lines after it, up to a stack trace, another
  // message or max_cudajl_lines; each figure from its first line. Free is the total less what
  // is in use; the lines a cut paste lacks are named.
  void cudajl(std::size_t i, std::size_t at) {
    const std::string_view t = lines[i].text;
    oom_report r = started(i, at, oom_kind::cuda);
    r.allocator = oom_allocator::cudajl_pool;
    std::string m(detail::trim(t.substr(at)));
    const std::string_view rest = t.substr(at + cudajl_anchor.size());
    const bool asks = rest.starts_with(cudajl_request.substr(0, cudajl_request.size() - 1));
    if (asks) {
      std::size_t pos = 0;
      r.requested = size_after(rest, cudajl_request, pos);
      if (!r.requested) r.missing.push_back("trying to allocate");
    }
    bool device = false, pool = false, no_pool = false;
    std::optional<bytes> allocator_held;
    for (std::size_t k = i + 1; k < lines.size() && k <= i + max_cudajl_lines; ++k) {
      const std::string_view next = detail::trim(without_rank_prefix(lines[k].text));
      if (next.starts_with("Stacktrace") || detail::contains(next, cudajl_anchor) ||
          detail::contains(next, torch_anchor))
        break;
      bool read = false;
      if (const std::size_t d = next.find(cudajl_device); d != std::string_view::npos && !device) {
        device = read = true;
        if (const auto usage = cudajl_device_usage(next, d + cudajl_device.size());
            usage && usage->second >= usage->first) {
          r.capacity = usage->second;
          r.free = usage->second - usage->first;
        } else {
          r.missing.push_back("Effective GPU memory usage");
        }
      }
      for (std::string_view label : cudajl_allocator_labels)
        if (const std::size_t a = next.find(label);
            a != std::string_view::npos && !allocator_held) {
          read = true;
          std::size_t pos = a;
          allocator_held = size_after(next, label, pos);
          if (const std::size_t cap = next.find("(capped at ", pos);
              cap != std::string_view::npos) {
            std::size_t cpos = cap;
            r.fraction_limit = size_after(next, "(capped at ", cpos);
          }
        }
      for (std::string_view words : cudajl_no_pool)
        if (detail::contains(next, words)) no_pool = read = true;
      // "NAME usage: A (R reserved)" / "NAME usage: H (A allocated, C cached)"; not the device's
      // or the allocator's line.
      if (const std::size_t u = next.find(" usage: ");
          u != std::string_view::npos && !pool &&
          !detail::contains(next.substr(0, u), "GPU memory") &&
          !detail::contains(next.substr(0, u), "allocator")) {
        pool = read = true;
        std::size_t pos = u;
        const auto first = size_after(next, " usage: ", pos);
        const std::size_t open = next.find('(', pos);
        std::size_t used = 0;
        const auto second = open == std::string_view::npos
                                ? std::nullopt
                                : detail::parse_size_prefix(next.substr(open + 1), used);
        const std::string_view word =
            second ? detail::trim(next.substr(open + 1 + used)) : std::string_view{};
        if (first && second && word.starts_with("reserved")) {
          r.in_use = first;
          r.pool_held = second;
        } else if (first && second && word.starts_with("allocated")) {
          r.pool_held = first;
          r.in_use = second;
        } else {
          r.missing.push_back("Memory pool usage");
        }
      }
      if (const std::size_t l = next.find("Memory limit: "); l != std::string_view::npos) {
        read = true;
        std::size_t pos = l;
        if (const auto hard = size_after(next, "hard = ", pos)) r.fraction_limit = hard;
      }
      if (read) {
        m += '\n';
        m += next;
      }
    }
    if (!r.pool_held && allocator_held) r.pool_held = allocator_held;
    if (!device) r.missing.push_back("Effective GPU memory usage");
    if (!pool && !no_pool && !allocator_held) r.missing.push_back("Memory pool usage");
    r.raw = m;
    warns.push_back(detail::error_on_line(
        source, lines[i], static_cast<int>(at) + 1,
        fmt::format(
            "CUDA.jl out of GPU memory: read the request ({}), the device's total ({}) and free "
            "memory ({}), and the pool's live buffers ({}) and what it held ({}){}{}",
            r.requested ? fmt::format("{} bytes", *r.requested)
            : asks      ? "not readable"
                        : "not given: CUDA.jl printed no size",
            r.capacity ? fmt::format("{} bytes", *r.capacity) : "not given",
            r.free ? fmt::format("{} bytes", *r.free) : "not given",
            r.in_use ? fmt::format("{} bytes", *r.in_use) : "not given",
            r.pool_held ? fmt::format("{} bytes", *r.pool_held) : "not given",
            no_pool ? "; no pool in use" : "",
            r.missing.empty() ? std::string()
                              : fmt::format("; the paste lacks \"{}\"", joined_names(r.missing)))));
    keep(std::move(r));
  }

  // PyTorch's MPS allocator: its live tensors, the process's other allocations on the device,
  // the high-watermark limit and the request.
  void mps(std::size_t i, std::size_t at) {
    const std::string_view t = lines[i].text;
    oom_report r = started(i, at, oom_kind::cuda);
    r.allocator = oom_allocator::torch_mps;
    std::size_t pos = at;
    r.allocated_by_pytorch = size_after(t, "MPS allocated: ", pos);
    if (!r.allocated_by_pytorch) r.missing.push_back("MPS allocated");
    pos = at;
    r.other_allocations = size_after(t, "other allocations: ", pos);
    if (!r.other_allocations) r.missing.push_back("other allocations");
    pos = at;
    r.capacity = size_after(t, "max allowed: ", pos);
    if (!r.capacity) r.missing.push_back("max allowed");
    pos = at;
    r.requested = size_after(t, "Tried to allocate ", pos);
    if (!r.requested) r.missing.push_back("Tried to allocate");
    if (r.capacity && r.allocated_by_pytorch) {
      const bytes held = *r.allocated_by_pytorch + r.other_allocations.value_or(0);
      r.free = *r.capacity > held ? *r.capacity - held : 0;
    }
    if (!r.missing.empty())
      warns.push_back(detail::error_on_line(
          source, lines[i], static_cast<int>(at) + 1,
          fmt::format("MPS out-of-memory message cut: it lacks \"{}\"", joined_names(r.missing))));
    keep(std::move(r));
  }

  void xla_error(std::size_t i, std::size_t at) {
    const std::string_view t = lines[i].text;
    std::size_t pos = at;
    auto size = size_after(t, "Out of memory while trying to allocate ", pos);
    pos = at;
    if (!size) size = size_after(t, xla_pjrt_anchor, pos);
    pos = at;
    if (!size) size = size_after(t, xla_request_anchor, pos);
    // The runtime logs the error, then Python raises it again: one failure, not two.
    const bool repeat = xla.open && xla.has_error && size == xla.report.requested && i - xla.last_error <= 50;
    if (!repeat) open_for_error(i);
    if (size) xla.report.requested = size;
    error_line(i, at, "out-of-memory message without a readable allocation size");
  }

  void line(std::size_t i) {
    const std::string_view t = lines[i].text;
    if (const std::size_t at = t.find(torch_anchor); at != std::string_view::npos) {
      torch(i, at);
    } else if (const auto tried = headless_torch(t, i + 1 < lines.size() ? lines[i + 1].text : std::string_view{})) {
      torch(i, *tried);
    } else if (const auto cut = torch_without_request(t)) {
      torch(i, *cut);
    } else if (const std::size_t as = t.find(async_anchor); as != std::string_view::npos) {
      torch_async(i, as);
    } else if ((detail::contains(t, bfc_anchor) || detail::contains(t, bfc_anchor_tf1)) &&
               !detail::contains(t, "not a failure")) {
      if (detail::contains(t, bfc_anchor_tf1) && xla.open && xla.dump_only && !xla.has_error &&
          i - xla.started <= max_dump_lines) {
        xla.end_dump_with_bfc_line(lines[i]);
      } else {
        xla.close(out);
        xla.start_bfc(lines[i], i);
        xla.report.context = context_before(i);
      }
    } else if (const std::size_t tt = t.find(tf_tensor_anchor); tt != std::string_view::npos) {
      tf_tensor(i, tt);
    } else if (const std::size_t tr = t.find(tf_region_anchor); tr != std::string_view::npos) {
      tf_region(i, tr);
    } else if (const std::size_t cp = cupy_message_at(t); cp != std::string_view::npos) {
      cupy(i, cp);
    } else if (const std::size_t mp = t.find(mps_anchor); mp != std::string_view::npos) {
      mps(i, mp);
    } else if (const std::size_t x = t.find(xla_anchor); x != std::string_view::npos) {
      xla_error(i, x);
    } else if (const std::size_t p = t.find(xla_pjrt_anchor); p != std::string_view::npos) {
      xla_error(i, p);
    } else if (const std::size_t q = t.find(xla_request_anchor); q != std::string_view::npos) {
      xla_error(i, q);
    } else if (const std::size_t em = t.find(device_oom_anchor); em != std::string_view::npos) {
      const std::size_t memory =
          t.rfind("memory ", em);  // "memory mapping " / "memory allocation "
      expandable_map(i, memory != std::string_view::npos && em - memory <= 20 ? memory : em);
    } else if (const std::size_t pd = t.find(paddle_anchor); pd != std::string_view::npos) {
      paddle(i, pd);
    } else if (const std::size_t jl = cudajl_message_at(
                   t, i + 1 < lines.size() ? lines[i + 1].text : std::string_view{});
               jl != std::string_view::npos) {
      cudajl(i, jl);
    } else if (const auto bare = bare_torch(t)) {
      torch_bare(i, *bare);
    } else if (const auto driver = cuda_error(t)) {
      cuda_report(i, *driver);
    } else if (const auto failed = detail::failure_line_of(t)) {
      failure(i, *failed);
    } else if (other_framework_oom(t)) {
      other_framework(i);
    } else if (const std::size_t rm = t.find(remat_anchor); rm != std::string_view::npos) {
      remat(i, rm);
    } else if (const auto w = worded_failure_of(t)) {
      worded(i, *w);
    } else if (xla.open && !xla.has_error && i - xla.started <= max_dump_lines) {
      xla.read_dump_line(t);
    } else if (bfc_dump_line(t) || bfc_stats_first_line(t)) {
      // A dump whose allocator's line the paste lacks: its figures wait for the error after it.
      xla.close(out);
      xla.start(lines[i], i);
      xla.dump_only = true;
      xla.report.context = context_before(i);
      xla.read_dump_line(t);
    } else {
      tf_device_line(t);
    }
  }
};

// How line `a` joins the next line `b` to be read: " " when wrapped at a space, "" when cut in a
// word, nullopt when not wrapped. Wrapped means an anchor phrase starts on `a` and ends on `b`,
// or stands last on `a` with its size on `b`.
std::optional<std::string_view> joiner(std::string_view a, std::string_view b) {
  a = detail::trim(a);
  b = detail::trim(b);
  if (b.empty()) return std::nullopt;
  for (std::string_view anchor : anchors) {
    if (a.ends_with(detail::trim(anchor))) return " ";
    for (std::size_t k = 1; k < anchor.size(); ++k) {
      const std::string_view head = anchor.substr(0, k), tail = anchor.substr(k);
      if (head.back() == ' ' && a.ends_with(detail::trim(head)) &&
          b.substr(0, tail.size()) == tail)
        return " ";
      if (head.back() != ' ' && tail.front() != ' ' && a.ends_with(head) &&
          b.substr(0, tail.size()) == tail)
        return "";
    }
  }
  return std::nullopt;
}

// The lines with wrapped messages joined; `store` keeps the joined text.
std::vector<text_line> unwrap(std::vector<text_line> lines, std::deque<std::string>& store) {
  std::vector<text_line> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    text_line line = lines[i];
    for (int joins = 0; joins < 3 && i + 1 < lines.size(); ++joins) {
      const auto sep = joiner(line.text, lines[i + 1].text);
      if (!sep) break;
      store.push_back(std::string(detail::trim(line.text)) + std::string(*sep) +
                      std::string(detail::trim(lines[++i].text)));
      line.text = store.back();
    }
    out.push_back(line);
  }
  return out;
}

// A Python traceback at the paste's end with no error line after its frames (a paste cut
// short): a failure whose message is missing, its frames kept as the context that places it.
// Every non-blank line after "Traceback (most recent call last):" is a frame ("File ...") or
// indented (a frame's code line); a line at the margin is the error, and then it is not cut.
std::optional<oom_report> cut_traceback(const std::vector<text_line>& lines) {
  std::size_t start = lines.size();
  for (std::size_t k = lines.size(); k-- > 0;)
    if (detail::trim(without_rank_prefix(lines[k].text))
            .starts_with("Traceback (most recent call last)")) {
      start = k;
      break;
    }
  if (start == lines.size()) return std::nullopt;
  oom_report r;
  bool torch = false;
  std::size_t frames = 0;
  for (std::size_t k = start + 1; k < lines.size(); ++k) {
    const std::string_view t = lines[k].text;
    const std::string_view trimmed = detail::trim(t);
    if (trimmed.empty()) continue;
    const bool frame = trimmed.starts_with("File \"");
    if (!frame && !(t.front() == ' ' || t.front() == '\t')) return std::nullopt;
    frames += frame;
    torch = torch || (frame && detail::contains(trimmed, "torch"));
    r.line = lines[k].number;
    r.raw = std::string(trimmed.substr(0, 300));
  }
  if (frames == 0) return std::nullopt;
  for (std::size_t k = start; k < lines.size(); ++k)
    if (const std::string_view t = detail::trim(lines[k].text); !t.empty())
      r.context.push_back(fmt::format("{}: {}", lines[k].number, t.substr(0, 300)));
  r.kind = torch ? oom_kind::torch : oom_kind::cuda;
  r.allocator = torch ? oom_allocator::torch_caching : oom_allocator::other;
  r.message_cut = true;
  r.missing.push_back("the error line");
  return r;
}

}  // namespace

std::vector<oom_report> find_oom_reports(std::string_view text, const std::string& source,
                                         warnings& found_warnings) {
  std::deque<std::string> joined;
  const auto lines = unwrap(detail::split_lines(text), joined);
  oom_scanner scan{source, lines, found_warnings, {}, {}, {}, {}, {}, {}};
  for (std::size_t i = 0; i < lines.size(); ++i) scan.line(i);
  scan.xla.close(scan.out);
  // The compiler's estimate stands for a failure only where no allocator's message is pasted:
  // beside one, the message says what failed and the estimate is what led to it.
  if (std::any_of(scan.out.begin(), scan.out.end(),
                  [](const oom_report& r) { return !r.compile_estimate; }))
    std::erase_if(scan.out, [](const oom_report& r) { return r.compile_estimate; });
  for (const auto& r : scan.out)
    if (r.compile_estimate && r.requested)
      found_warnings.push_back(error_at(
          source,
          fmt::format("XLA's compiler could not bring the program's peak ({} bytes) under its "
                      "limit ({}: 80 % "
                      "of the device less the program's inputs and outputs): read as what the "
                      "program needs; "
                      "the allocator's own message, which would say what failed and what the "
                      "device held, is "
                      "not in the paste",
                      *r.requested,
                      r.compile_limit ? fmt::format("{} bytes", *r.compile_limit) : "not read"),
          r.line));
  // A BFC allocator's line without its dump: whether the pool's free chunks covered the request
  // (fragmentation) or it was full cannot be told; say what to paste.
  for (const auto& r : scan.out) {
    if ((r.allocator != oom_allocator::tf_bfc && r.allocator != oom_allocator::xla_bfc) ||
        r.missing.empty())
      continue;
    if (r.missing.size() == 1 && r.missing.front() == stats_alone_missing)
      found_warnings.push_back(error_at(
          source,
          fmt::format("a BFC allocator's statistics block without the dump above it: read as the "
                      "end of its out-of-memory dump (the pool's limit and what it had in use); "
                      "the request, the allocator's name and the error (\"{}\") are not in the "
                      "paste; paste the log from the allocator's line through the error",
                      stats_alone_missing),
          r.line));
    else
      found_warnings.push_back(error_at(
          source,
          fmt::format(
              "the BFC allocator's out-of-memory line without the memory dump it prints after it "
              "(\"{}\"): what the pool held and had in use is unknown; paste the log from the "
              "allocator's line through the error",
              joined_names(r.missing)),
          r.line));
  }
  // A traceback pasted below its message (an issue's summary puts the error first and the frames
  // after it): where the last message has no frame above it and frame lines follow it, they are
  // its traceback (innermost last as Python prints them, first as a JVM does: "\tat
  // pkg.Class.method(File.java:N)", "(Native Method)", where a Spark job's trace names the plugin
  // whose pool it ran under).
  const auto frame = [](std::string_view t) {
    const std::string_view jvm = detail::trim(t);
    if (jvm.starts_with("at ") && jvm.ends_with(")") && jvm.find('(') != std::string_view::npos &&
        jvm.find('.') < jvm.find('('))
      return true;
    return t.find("File \"") != std::string_view::npos && t.find(", line ") != std::string_view::npos &&
           t.find(", in ") != std::string_view::npos;
  };
  if (scan.out.empty())
    if (auto cut = cut_traceback(lines)) {
      found_warnings.push_back(error_at(
          source,
          "a traceback cut before its error line: what failed and its figures are not in the "
          "paste, so only where it failed is read (its frames); paste the traceback's last lines, "
          "the error and its message, to decide",
          cut->line));
      scan.out.push_back(std::move(*cut));
    }
  const std::string runtime = detail::runtime_named(text);
  for (auto& r : scan.out) {
    if (r.runtime.empty()) r.runtime = runtime;
    if (r.message_cut && !r.missing.empty() &&
        r.raw.find("failed with OOM on device") != std::string::npos)
      found_warnings.push_back(error_at(
          source,
          fmt::format("an out-of-memory line whose figures are elided or cut (\"{}\" not given): "
                      "read as a device allocation that failed, its sizes unknown; paste the "
                      "line as printed to weigh them",
                      joined_names(r.missing)),
          r.line));
    if (!r.status.empty() && r.allocator == oom_allocator::other)
      found_warnings.push_back(error_at(
          source,
          fmt::format(
              "{}{}: the framework's memory arena refused {}; what the arena held, its limit "
              "and what the device had free are not in the message: nvidia-smi's output "
              "taken as it fails would tell whether the job or others filled the device",
              r.status, r.runtime.empty() ? "" : fmt::format(" ({})", r.runtime),
              r.requested ? fmt::format("{} bytes", *r.requested) : "a request of unread size"),
          r.line));
    if (!r.status.empty() && r.allocator == oom_allocator::cuda && !r.requested && !r.capacity)
      found_warnings.push_back(error_at(
          source,
          fmt::format(
              "{}{}: {} without figures{}; what was asked and what the device held are not "
              "in the paste: nvidia-smi's output taken as it fails (or the log's memory "
              "lines before it) would tell whether the job or others filled the device",
              r.status, r.runtime.empty() ? "" : fmt::format(" ({})", r.runtime),
              r.origin == oom_origin::context_creation ? "a context's creation that failed"
              : r.library == "cnmem"
                  ? "CNMeM's pool (Theano's lib.cnmem) that could not take its memory"
              : r.library.empty()
                  ? "a device allocation that failed"
                  : fmt::format("{}'s own allocation (its workspace) that failed", r.library),
              r.status_not_memory ? "; the status names no lack of memory, so it is read "
                                    "as the library's failure, not proof of one"
                                  : ""),
          r.line));
  }
  if (!scan.out.empty()) {
    auto& last = scan.out.back();
    const bool framed = std::any_of(last.context.begin(), last.context.end(),
                                    [&](const std::string& c) { return frame(c); });
    const auto after = [&](const text_line& l) { return l.number > last.line; };
    const bool follows =
        std::any_of(lines.begin(), lines.end(), [&](const text_line& l) { return after(l) && frame(l.text); });
    if (!framed && follows)
      for (const auto& l : lines)
        if (const std::string_view t = detail::trim(l.text); after(l) && !t.empty())
          last.context.push_back(fmt::format("{}: {}", l.number, t.substr(0, 300)));
  }
  return std::move(scan.out);
}

}  // namespace vramscope::observe
