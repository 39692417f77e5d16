// DEV001: memory outside the framework's pool. nvidia-smi shows more than PyTorch reserved on a
// GPU (the gap explained item by item), or a library's own allocation failed where no
// allocator's figures say the framework's pool filled the GPU.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>

#include <vramscope/predict/overheads.hpp>
#include "doctor/likelihood.hpp"
#include "doctor/oom_facts.hpp"
#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

int gpu_of(const observe::torch_stats& s, const doctor_input& in) {
  if (s.device) return *s.device;
  const int per_node = in.job ? in.job->hardware.gpus_per_node : 8;
  return s.rank ? *s.rank % per_node : 0;
}

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  return out;
}

// The status each CUDA library returns when an allocation of its own (a workspace, a plan, a
// handle's state) fails: cuDNN's cudnnStatus_t, cuBLAS's cublasStatus_t ("resource allocation
// failed inside the cuBLAS library, usually a cudaMalloc() failure"), cuFFT's cufftResult,
// cuSPARSE's and cuSOLVER's statuses, cuRAND's curandStatus_t (each library's API reference,
// "status codes"). The library allocates with cudaMalloc, outside every framework's pool.
constexpr std::array<std::string_view, 6> library_alloc_statuses{
    "CUDNN_STATUS_ALLOC_FAILED",    "CUBLAS_STATUS_ALLOC_FAILED",
    "CUFFT_ALLOC_FAILED",           "CUSPARSE_STATUS_ALLOC_FAILED",
    "CUSOLVER_STATUS_ALLOC_FAILED", "CURAND_STATUS_ALLOCATION_FAILED"};

// The status families themselves: a report read as out of memory that names another status of a
// library (cuDNN's EXECUTION_FAILED after its workspace could not be had, Caffe's "Check failed:
// status == CUDNN_STATUS_SUCCESS") is the library's failure too, a step less sure.
constexpr std::array<std::string_view, 5> library_status_families{
    "CUDNN_STATUS_", "CUBLAS_STATUS_", "CUFFT_", "CUSPARSE_STATUS_", "CUSOLVER_STATUS_"};

// The first status of a library the text names other than its success, if any.
std::optional<std::string> other_library_status(const std::string& raw_upper) {
  for (const auto family : library_status_families)
    for (auto at = raw_upper.find(family); at != std::string::npos;
         at = raw_upper.find(family, at + 1)) {
      auto end = at + family.size();
      while (end < raw_upper.size() &&
             (std::isupper(static_cast<unsigned char>(raw_upper[end])) || raw_upper[end] == '_'))
        ++end;
      const std::string status = raw_upper.substr(at, end - at);
      if (status.size() > family.size() && !status.ends_with("SUCCESS")) return status;
    }
  return std::nullopt;
}

// cuDNN's algorithm search: cudnnFind*Algorithm (without Ex) allocates the workspace each
// algorithm it times needs with cudaMalloc itself (cuDNN API reference, "this function allocates
// memory using cudaMalloc()"; the Ex variants take a workspace from the caller), so the search
// tries algorithms whose workspace is large beside a pool that holds the rest of the GPU;
// frameworks' autotuners (PyTorch's cudnn.benchmark, CNTK's and Caffe's finder) run it.
bool names_algorithm_search(std::string_view raw_upper) {
  for (const std::string_view w :
       {"CUDNNFIND", "FIND_ALGO", "FINDALGO", "FINDER(", "ALGO_PICKER", "ALGORITHM PICKER"})
    if (raw_upper.find(w) != std::string_view::npos) return true;
  return false;
}

// A library's own allocation failed, and the paste holds no allocator's message whose figures
// would say the framework's own buffers filled the GPU (that is does_not_fit, OOM001's reading),
// and no XLA or TensorFlow runtime, whose preallocated pool leaves the library only the rest
// (JAX001). The workspace, or the library's state beside the context, is memory outside the
// framework's pool: device overhead, fixed in the library's own terms.
std::optional<finding> library_allocation(const observe::observation& o) {
  const observe::oom_report* failed = nullptr;
  std::string status;
  for (const auto& r : o.ooms) {
    if (r.origin == observe::oom_origin::allocator || r.kind == observe::oom_kind::xla ||
        r.tensorflow)
      return std::nullopt;
    const std::string raw = upper(r.raw);
    for (const auto s : library_alloc_statuses)
      if (!failed && raw.find(s) != std::string::npos) {
        failed = &r;
        status = s;
      }
  }
  bool allocation = failed != nullptr;
  if (!failed)
    for (const auto& r : o.ooms)
      if (auto s = other_library_status(upper(r.raw)); s && !failed) {
        failed = &r;
        status = *s;
      }
  if (!failed || !o.xla_pools.empty()) return std::nullopt;
  const bool search = names_algorithm_search(upper(failed->raw));
  double weight = search ? likelihood::likely + likelihood::step : likelihood::likely;
  if (!allocation) weight -= likelihood::step;
  // In a CuPy process the pool's cached blocks are as likely what the library lacked (FRAG001).
  if (failed->runtime == "cupy") weight -= likelihood::step;
  finding f{"DEV001", {}, severity::warning, {}, {}, {}, {}, {}, "device_overhead", weight, {}, {}};
  if (!allocation)
    f.against.push_back(
        "the library's status does not name an allocation: it is read as one because the "
        "message was read as out of memory");
  if (failed->runtime == "cupy")
    f.against.push_back(
        "CuPy's pool keeps freed arrays' blocks cached: the memory the library "
        "lacked may be the pool's (FRAG001)");
  f.evidence.push_back(
      fmt::format("{}: {} ({})", where(*failed), status, failed->raw.substr(0, 160)));
  f.support.push_back(
      "the library's own allocation failed: it allocates its workspace with cudaMalloc, "
      "outside the framework's pool, from what the pool left");
  if (search)
    f.support.push_back(
        "it failed in cuDNN's algorithm search, which allocates each candidate's workspace "
        "itself and times memory-hungry algorithms too");
  f.against.push_back("no figures: the framework's own buffers may have filled the GPU first");
  f.cause =
      "a CUDA library (cuDNN, cuBLAS, cuFFT) allocates its workspace or state outside the "
      "framework's "
      "memory pool; the pool, or the process's context, left it too little";
  // torch.backends.cudnn.benchmark (PyTorch docs, "torch.backends"): benchmark mode times every
  // algorithm, workspace-hungry ones included. CUBLAS_WORKSPACE_CONFIG=:4096:8 (cuBLAS docs,
  // "cuBLAS workspace"; PyTorch's reproducibility notes) sizes cuBLAS's per-stream workspace.
  // TF_CUDNN_WORKSPACE_LIMIT_IN_MB (TensorFlow's stream executor, 4096 by default) and
  // MXNET_CUDNN_AUTOTUNE_DEFAULT=0 (MXNet's environment variables) bound or skip the search.
  f.fix =
      search
          ? "turn the cuDNN algorithm search off or bound its workspace "
            "(torch.backends.cudnn.benchmark = "
            "False; TF_CUDNN_WORKSPACE_LIMIT_IN_MB; MXNET_CUDNN_AUTOTUNE_DEFAULT=0; a framework "
            "that "
            "hands cuDNN a workspace from its own pool, cudnnFind*AlgorithmEx), or leave headroom "
            "outside the pool"
          : "leave headroom outside the framework's pool for the library (a smaller pool or "
            "batch), bound "
            "its workspace (CUBLAS_WORKSPACE_CONFIG=:4096:8 for cuBLAS, "
            "torch.backends.cudnn.benchmark = "
            "False for cuDNN), and do not initialise CUDA in a process that does not compute on "
            "the GPU";
  return f;
}

// cuBLAS's workspace, which PyTorch allocates through its caching allocator once per (handle,
// stream) that runs a GEMM and keeps until torch._C._cuda_clearCublasWorkspaces() (pytorch
// aten/src/ATen/cuda/CublasHandlePool.cpp; reference/overheads.md 3): 4 MiB before about 2.1,
// then 8,519,680 B (":4096:2:16:8") before Hopper and 32 MiB on Hopper and later. A test's
// allocated bytes that stay above their baseline by a whole number of one of these sizes (a
// stream or two each) are the workspace, not a tensor kept: fixed per-process overhead.
constexpr bytes cublas_workspaces[] = {4_MiB, 8'519'680, 32_MiB};
constexpr bytes cublas_workspace_streams_max = 4;  // the compute stream and a few side streams

std::optional<finding> workspace_left_allocated(const observe::observation& o) {
  for (const auto& c : o.allocated_checks) {
    if (c.after <= c.before) continue;
    const bytes left = c.after - c.before;
    for (const bytes w : cublas_workspaces) {
      if (left % w != 0 || left / w > cublas_workspace_streams_max) continue;
      finding f{"DEV001",
                "cuBLAS's workspace counted by memory_allocated()",
                severity::info,
                {},
                {},
                {},
                {},
                {},
                "device_overhead",
                likelihood::likely,
                {},
                {}};
      f.evidence.push_back(fmt::format("{}:{}: memory_allocated() {} B after, {} B before ({})",
                                       c.source, c.line, c.after, c.before, c.assertion));
      f.support.push_back(
          fmt::format("the {} B left allocated are {} cuBLAS workspace{} of {} B, the size "
                      "PyTorch gives each (handle, stream) that runs a matrix multiply",
                      left, left / w, left / w == 1 ? "" : "s", w));
      f.against.push_back(
          "a tensor of exactly that size kept alive would read the same; the figure alone "
          "cannot tell them apart");
      f.cause =
          "PyTorch allocates cuBLAS's workspace through its caching allocator on the first matrix "
          "multiply of each stream and keeps it for the process: memory_allocated() counts it "
          "although no tensor of the program holds it";
      f.fix =
          "count the workspace as fixed overhead: call torch._C._cuda_clearCublasWorkspaces() "
          "(then torch.cuda.empty_cache()) before measuring, or set CUBLAS_WORKSPACE_CONFIG to a "
          "smaller size";
      return f;
    }
  }
  return std::nullopt;
}

}  // namespace

std::vector<finding> device_above_reserved(const doctor_input& in) {
  if (!in.observed) return {};
  std::vector<finding> out;
  if (auto f = library_allocation(*in.observed)) out.push_back(std::move(*f));
  if (auto f = workspace_left_allocated(*in.observed)) out.push_back(std::move(*f));
  for (const auto& s : in.observed->stats) {
    if (!s.reserved.current) continue;
    const int gpu = gpu_of(s, in);
    const auto used = observed_used(*in.observed, gpu);
    if (!used || *used < *s.reserved.current + 1_GiB) continue;
    const bytes gap = *used - *s.reserved.current;
    finding f{"DEV001", {}, severity::info, {}, {}, {}, {}, {}, "device_overhead", likelihood::possible, {}, {}};
    f.support.push_back(fmt::format("GPU {}: nvidia-smi shows {} beyond what PyTorch reserved", gpu,
                                    format_bytes(gap)));
    f.evidence.push_back(fmt::format("GPU {}: nvidia-smi {} used, memory_stats ({}) reserved {}: {} outside "
                                     "PyTorch", gpu, format_bytes(*used), s.source,
                                     format_bytes(*s.reserved.current), format_bytes(gap)));
    std::size_t processes = 0;
    for (const auto& p : in.observed->processes)
      processes += p.gpu_index && *p.gpu_index == gpu && p.host.empty();
    const job::job_spec defaults;
    const auto& j = in.job ? *in.job : defaults;
    const bytes context = predict::cuda_context_bytes(j);
    const bytes nccl = in.job ? predict::nccl_bytes(j, j.hardware.compute_capability) : 0;
    f.evidence.push_back(fmt::format("CUDA context: about {} per process, {} process{} on this GPU",
                                     format_bytes(context), processes, processes == 1 ? "" : "es"));
    if (nccl > 0) f.evidence.push_back(fmt::format("NCCL communicator buffers: about {}", format_bytes(nccl)));
    const bytes explained = context * std::max<std::size_t>(1, processes) + nccl;
    f.evidence.push_back(fmt::format("unexplained: {}", format_bytes(gap > explained ? gap - explained : 0)));
    f.cause = "the CUDA context, NCCL's buffers, cuDNN/cuBLAS library state and other processes' memory are "
              "allocated outside PyTorch's caching allocator: nvidia-smi counts them, memory_reserved() does not";
    f.fix = "nothing to fix if the figures match; to shrink NCCL set NCCL_NVLS_ENABLE=0 (Hopper) or create "
            "fewer process groups; keep one process per GPU";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace vramscope::doctor::rules
