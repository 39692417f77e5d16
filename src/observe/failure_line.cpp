// Failure lines named by the CUDA runtime or a CUDA library (failure_line.hpp). Status numbers:
// cuda_runtime_api.h / driver_types.h (cudaErrorMemoryAllocation = 2), cudnn.h
// (CUDNN_STATUS_ALLOC_FAILED = 2, CUDNN_STATUS_EXECUTION_FAILED = 8), cublas_api.h
// (CUBLAS_STATUS_ALLOC_FAILED = 3). glog's CHECK_EQ prints "Check failed: a == b (x vs. y)"
// (Caffe's CUDA_CHECK, CUDNN_CHECK and CUBLAS_CHECK, include/caffe/util/device_alternate.hpp and
// cudnn.hpp), the status's number first.
#include "observe/failure_line.hpp"

#include <array>
#include <tuple>

#include "observe/text_util.hpp"

namespace vramscope::observe::detail {

namespace {

// The number x of "NAME (x vs. y)" after `name` on the line, or nullopt.
std::optional<std::uint64_t> checked_status(std::string_view line, std::string_view name,
                                            std::size_t& at) {
  at = line.find(name);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = line.substr(at + name.size());
  if (!rest.starts_with(" (")) return std::nullopt;
  rest.remove_prefix(2);
  const std::size_t end = rest.find(" vs.");
  if (end == std::string_view::npos || end == 0 || end > 6) return std::nullopt;
  return parse_uint(rest.substr(0, end));
}

// Where glog's "Check failed:" starts before `at`, or `at`.
std::size_t check_start(std::string_view line, std::size_t at) {
  const std::size_t c = line.rfind("Check failed:", at);
  return c == std::string_view::npos ? at : c;
}

}  // namespace

std::optional<failure_line> failure_line_of(std::string_view line) {
  failure_line f;
  if (const std::size_t at = line.find("cudaErrorMemoryAllocation"); at != std::string_view::npos) {
    f.at = at;
    f.status = "cudaErrorMemoryAllocation";
    // Thrust reports a kernel launch of its parallel_for that failed as "parallel_for failed:
    // STATUS" (thrust/system/cuda/detail/parallel_for.h, throw_on_error): the launch, not an
    // allocator's request, found no memory (its local memory, the driver's launch resources).
    if (const std::size_t p = line.find("parallel_for failed");
        p != std::string_view::npos && p < at) {
      f.at = p;
      f.origin = oom_origin::outside_allocator;
      f.status = "cudaErrorMemoryAllocation (a Thrust kernel launch)";
    }
    return f;
  }
  std::size_t at = 0;
  if (const auto s = checked_status(line, "cudaSuccess", at); s && *s == 2) {
    f.at = check_start(line, at);
    f.status = "cudaErrorMemoryAllocation (2)";
    return f;
  }
  if (const auto s = checked_status(line, "CUDNN_STATUS_SUCCESS", at); s && (*s == 2 || *s == 8)) {
    f.at = check_start(line, at);
    f.origin = oom_origin::outside_allocator;
    f.library = "cudnn";
    f.status = *s == 2 ? "CUDNN_STATUS_ALLOC_FAILED (2)" : "CUDNN_STATUS_EXECUTION_FAILED (8)";
    f.names_memory = *s == 2;
    // An execution failure is a memory failure's stand-in only in a convolution, the call whose
    // workspace the library sizes by the algorithm it picks.
    if (!f.names_memory && !contains(to_lower(line), "conv")) return std::nullopt;
    return f;
  }
  if (const auto s = checked_status(line, "CUBLAS_STATUS_SUCCESS", at); s && *s == 3) {
    f.at = check_start(line, at);
    f.origin = oom_origin::outside_allocator;
    f.library = "cublas";
    f.status = "CUBLAS_STATUS_ALLOC_FAILED (3)";
    return f;
  }
  if (const std::size_t w = line.find("NOT_ENOUGH_WORKSPACE"); w != std::string_view::npos) {
    f.at = w;
    f.origin = oom_origin::outside_allocator;
    const std::size_t word = line.find_last_of(" :(", w);
    f.at = word == std::string_view::npos ? 0 : word + 1;
    f.library = to_lower(line.substr(f.at, 5)) == "cudnn" ? "cudnn" : "";
    f.status = std::string(line.substr(f.at, w + 20 - f.at));
    return f;
  }
  if (const std::size_t e = line.find("CUDNN_STATUS_EXECUTION_FAILED");
      e != std::string_view::npos && contains(to_lower(line), "conv")) {
    f.at = check_start(line, e);
    f.origin = oom_origin::outside_allocator;
    f.library = "cudnn";
    f.status = "CUDNN_STATUS_EXECUTION_FAILED";
    f.names_memory = false;
    return f;
  }
  // ONNX Runtime's BFC arena refusing a request (onnxruntime/core/framework/bfc_arena.cc,
  // AllocateRawInternal): "Failed to allocate memory for requested buffer of size N", N in bytes.
  constexpr std::string_view arena = "Failed to allocate memory for requested buffer of size ";
  if (const std::size_t a = line.find(arena); a != std::string_view::npos) {
    const std::string_view rest = line.substr(a + arena.size());
    std::size_t digits = 0;
    while (digits < rest.size() && digits < 20 && rest[digits] >= '0' && rest[digits] <= '9')
      ++digits;
    f.at = a;
    f.status = "BFCArena: failed to allocate";
    f.framework_pool = true;
    if (digits > 0) f.requested = parse_uint(rest.substr(0, digits));
    return f;
  }
  // CNTK's CUDA_CALL check (Source/Math/GPUMatrix.cu, CudaCall), kept by ONNX Runtime
  // (core/providers/cuda/cuda_call.cc, with "; file=F ; line=L" added): "LIB failure N: TEXT ;
  // GPU=G ; hostname=H ; expr=CALL", LIB one of CUDA, CUBLAS, cuDNN with the library's own status
  // number: CUDA 2 is cudaErrorMemoryAllocation, CUBLAS 3 CUBLAS_STATUS_ALLOC_FAILED, cuDNN 2
  // CUDNN_STATUS_ALLOC_FAILED (the headers named above).
  for (const auto& [name, number, library, status] :
       {std::tuple<std::string_view, std::uint64_t, std::string_view, std::string_view>{
            "CUDA failure ", 2, "", "cudaErrorMemoryAllocation (2)"},
        {"CUBLAS failure ", 3, "cublas", "CUBLAS_STATUS_ALLOC_FAILED (3)"},
        {"cuDNN failure ", 2, "cudnn", "CUDNN_STATUS_ALLOC_FAILED (2)"}}) {
    const std::size_t c = line.find(name);
    if (c == std::string_view::npos) continue;
    const std::string_view rest = line.substr(c + name.size());
    const std::size_t colon = rest.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon > 6) continue;
    if (parse_uint(rest.substr(0, colon)) != number) continue;
    f.at = c;
    f.library = std::string(library);
    f.origin = library.empty() ? oom_origin::allocator : oom_origin::outside_allocator;
    f.status = std::string(status);
    return f;
  }
  // DyNet's CUDA_CHECK (dynet/cuda.h): "CUDA failure in STMT" with the CUDA error's text on the
  // next line; a STMT of cudaMalloc is a device allocation that failed.
  if (const std::size_t c = line.find("CUDA failure in cudaMalloc("); c != std::string_view::npos) {
    f.at = c;
    f.status = "cudaMalloc failed";
    return f;
  }
  // CNMeM, the pool Theano's old back-end creates at start with lib.cnmem of the GPU (cnmem.h:
  // CNMEM_STATUS_OUT_OF_MEMORY; Theano's config documentation, lib.cnmem): "initCnmem:
  // cnmemInit call failed! Reason=CNMEM_STATUS_OUT_OF_MEMORY" when the pool could not be made,
  // the same status from a later allocation out of it.
  if (const std::size_t c = line.find("CNMEM_STATUS_OUT_OF_MEMORY"); c != std::string_view::npos) {
    const std::size_t init = line.find("cnmemInit");
    f.at = init != std::string_view::npos && init < c ? line.rfind("initCnmem", init) : c;
    if (f.at == std::string_view::npos) f.at = init;
    f.library = "cnmem";
    f.status = init != std::string_view::npos && init < c ? "cnmemInit: CNMEM_STATUS_OUT_OF_MEMORY"
                                                          : "CNMEM_STATUS_OUT_OF_MEMORY";
    return f;
  }
  // cuDNN's handle could not be created ("could not create cuDNN handle:
  // CUDNN_STATUS_INTERNAL_ERROR" in Theano's and TensorFlow's wording, "Could not create cudnn
  // handle"): cudnnCreate allocates the handle's device resources (cuDNN API reference,
  // cudnnCreate), and fails so on a device with no memory left. The status names no lack of
  // memory unless it is ALLOC_FAILED, so it is read as the library's failure, not proof of one.
  if (const std::string low = to_lower(line); contains(low, "create cudnn handle")) {
    const std::size_t c = low.find("create cudnn handle");
    const std::size_t start = low.rfind("could not", c);
    f.at = start == std::string::npos ? c : start;
    f.origin = oom_origin::outside_allocator;
    f.library = "cudnn";
    f.names_memory = contains(line, "ALLOC_FAILED");
    const std::size_t st = line.find("CUDNN_STATUS_", c);
    f.status = st == std::string_view::npos
                   ? std::string("cudnnCreate failed")
                   : "cudnnCreate: " +
                         std::string(line.substr(st, line.find_first_of(" '\\\")\n", st) - st));
    return f;
  }
  // TensorFlow's and XLA's StreamExecutor log a cuBLAS handle that cublasCreate could not make
  // as "failed to create cublas handle: CUBLAS_STATUS_..." (stream_executor/cuda/cuda_blas.cc,
  // CUDABlas::Init): the same failure as the call's own.
  if (const std::string low = to_lower(line); contains(low, "failed to create cublas handle")) {
    f.at = low.find("failed to create cublas handle");
    f.origin = oom_origin::outside_allocator;
    f.library = "cublas";
    f.names_memory = contains(line, "ALLOC_FAILED");
    const std::size_t st = line.find("CUBLAS_STATUS_", f.at);
    f.status = st == std::string_view::npos
                   ? std::string("cublasCreate failed")
                   : "cublasCreate failed: " +
                         std::string(line.substr(st, line.find_first_of(" '\\\")\n", st) - st));
    return f;
  }
  // TensorFlow's convolution kernels raise "Failed to get convolution algorithm. This is probably
  // because cuDNN failed to initialize" when no cuDNN handle could be made for the stream
  // (tensorflow/core/kernels/conv_ops*.cc): cudnnCreate's failure as the Python error shows it.
  if (contains(line, "Failed to get convolution algorithm") &&
      contains(line, "cuDNN failed to initialize")) {
    f.at = line.find("Failed to get convolution algorithm");
    f.origin = oom_origin::outside_allocator;
    f.library = "cudnn";
    f.status =
        "cudnnCreate failed (Failed to get convolution algorithm: cuDNN failed to "
        "initialize)";
    return f;
  }
  // The other CUDA libraries' own allocation statuses: a plan, handle or workspace the library
  // allocates itself with cudaMalloc (cufft.h: CUFFT_ALLOC_FAILED; cusolver_common.h:
  // CUSOLVER_STATUS_ALLOC_FAILED; cusparse.h: CUSPARSE_STATUS_ALLOC_FAILED; curand.h:
  // CURAND_STATUS_ALLOCATION_FAILED), wherever the line prints it (CuPy's CuFftError,
  // a framework's check).
  for (const auto& [name, library] :
       {std::pair<std::string_view, std::string_view>{"CUFFT_ALLOC_FAILED", "cufft"},
        {"CUSOLVER_STATUS_ALLOC_FAILED", "cusolver"},
        {"CUSPARSE_STATUS_ALLOC_FAILED", "cusparse"},
        {"CURAND_STATUS_ALLOCATION_FAILED", "curand"}}) {
    const std::size_t c = line.find(name);
    if (c == std::string_view::npos) continue;
    f.at = check_start(line, c);
    f.origin = oom_origin::outside_allocator;
    f.library = std::string(library);
    f.status = std::string(name);
    return f;
  }
  // A library handle that could not be created: cusolverDnCreate, cublasCreate, cusparseCreate
  // allocate the handle's device state (each library's API reference, the Create function), so
  // they fail this way on a device with no memory left (TensorFlow's "Failed to create
  // cuSolverDN instance", PyTorch's "CUBLAS_STATUS_NOT_INITIALIZED when calling
  // cublasCreate(handle)"). Unless its status is ALLOC_FAILED, the status names no lack of memory:
  // read as the library's failure, not proof of one.
  for (const auto& [call, library] :
       {std::pair<std::string_view, std::string_view>{"cusolverDnCreate", "cusolver"},
        {"cublasCreate", "cublas"},
        {"cublasLtCreate", "cublas"},
        {"cusparseCreate", "cusparse"}}) {
    const std::size_t c = line.find(call);
    if (c == std::string_view::npos) continue;
    const std::string low = to_lower(line);
    const bool failed = contains(low, "fail") || contains(low, "not_initialized") ||
                        contains(low, "error") || contains(low, "check failed");
    if (!failed || contains(low, "success:")) continue;
    f.at = check_start(line, c);
    f.origin = oom_origin::outside_allocator;
    f.library = std::string(library);
    f.names_memory = contains(line, "ALLOC_FAILED");
    f.status = std::string(call) + " failed";
    return f;
  }
  // "cudaMalloc failed", "cudaMalloc(&p, n) failed: out of memory"; not cudaMallocHost (pinned
  // host memory) nor cudaMallocManaged's other names.
  for (std::size_t m = line.find("cudaMalloc"); m != std::string_view::npos;
       m = line.find("cudaMalloc", m + 1)) {
    const std::string_view rest = line.substr(m + 10);
    if (!rest.empty() && (std::isalpha(static_cast<unsigned char>(rest.front())) != 0)) continue;
    const std::size_t failed = rest.find("failed");
    if (failed != std::string_view::npos && failed <= 60) {
      f.at = m;
      f.status = "cudaMalloc failed";
      return f;
    }
  }
  return std::nullopt;
}

std::string runtime_named(std::string_view text) {
  struct mark {
    std::string_view runtime;
    std::array<std::string_view, 4> words;  // any one, as printed
  };
  static constexpr mark marks[] = {
      {"caffe", {"caffe::", "syncedmem.cpp", "_layer.cu:", "caffe::"}},
      {"rapids", {"ai.rapids", "spark.rapids", "rmm::", "rmm::"}},
      // ONNX Runtime's CudaCall, CNTK's descendant, adds "; file=F ; line=L" to CNTK's format.
      {"onnxruntime", {"onnxruntime", "ONNXRuntime", "; file=", "OrtRun"}},
      // CNTK's CudaCall prints "; GPU=G ; hostname=H ; expr=CALL" after the status.
      {"cntk", {"CNTK", "cntk", "Microsoft.MSR", "; hostname="}},
      // Theano names itself in its frames and config; a node it could not compile is reported
      // as "('The following error happened while compiling the node', NODE, ...)", the tuple
      // Theano raises when building a node's thunk fails; pygpu is libgpuarray's Python module,
      // its new back-end.
      {"theano", {"theano", "Theano", "while compiling the node", "pygpu"}},
      {"knet", {"Knet", "Knet.", "Knet", "Knet"}},
      // DyNet by its name, its memory option, or its CUDA_CHECK's words (dynet/cuda.h).
      {"dynet", {"dynet", "DyNet", "--dynet-mem", "CUDA failure in "}},
      {"mxnet", {"mxnet", "MXNet", "mxnet", "mxnet"}},
      {"paddle", {"paddle", "Paddle", "paddle", "paddle"}},
      // TensorFlow by name, or by its convolution kernels' error (tensorflow/core/kernels).
      {"tensorflow",
       {"tensorflow", "TensorFlow", "Failed to get convolution algorithm", "tensorflow"}},
      // CuPy by its package's frames and modules (cupy/cuda/..., cupy.cuda.memory).
      {"cupy", {"cupy/", "cupy.", "CuPy", "cupy_backends"}},
      {"jax", {"jaxlib", "XlaRuntimeError", "jax/", "jax/"}},
      {"torch", {"torch/", "torch.", "PyTorch", "PyTorch"}},
  };
  // Caffe by its namespace and source files, not its name: PyTorch's paths hold "caffe2".
  for (const auto& m : marks)
    for (std::string_view w : m.words)
      if (contains(text, w)) return std::string(m.runtime);
  return {};
}

}  // namespace vramscope::observe::detail
