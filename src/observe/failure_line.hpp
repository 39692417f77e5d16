#pragma once
// A GPU memory failure named by the runtime or library that raised it, whatever framework sits
// above: the words a paste keeps when it has no allocator's figures. What is read is the
// failure's kind (where the failed allocation was made), the library when one is named, and the
// runtime above it when the paste names one (a frame's package, a log's source file); figures are
// left to the allocators' readers (oom_report.hpp).
//
//   "cudaErrorMemoryAllocation: out of memory"    the CUDA runtime's enum name for error 2
//                                                  (RAPIDS' cudf/RMM, Java bindings print it)
//   "Check failed: error == cudaSuccess (2 vs. 0)  out of memory"
//                                                  glog's CHECK_EQ on a CUDA runtime call (Caffe's
//                                                  CUDA_CHECK): status 2 is
//                                                  cudaErrorMemoryAllocation
//   "Check failed: status == CUDNN_STATUS_SUCCESS (2 vs. 0)  CUDNN_STATUS_ALLOC_FAILED"
//                                                  the same for cuDNN (cudnn.h: 2 ALLOC_FAILED) and
//                                                  cuBLAS (cublas_api.h: 3 ALLOC_FAILED)
//   "CUDNN_STATUS_NOT_ENOUGH_WORKSPACE", "CUDNN_STATUS_EXECUTION_FAILED" in a convolution
//                                                  cuDNN's workspace: too small for the algorithm
//                                                  chosen, or a kernel that could not run; the
//                                                  second names no memory and is read as a
//                                                  library's failure only beside a cuDNN call
//   "cudaMalloc failed", "cudaMalloc(...) failed"  a framework's own check of cudaMalloc
//   "CUDA failure 2: out of memory ; GPU=0 ; hostname=H ; expr=cudaMalloc(...)"
//                                                  CNTK's and ONNX Runtime's CUDA_CALL check
//   "initCnmem: cnmemInit call failed! Reason=CNMEM_STATUS_OUT_OF_MEMORY"
//                                                  Theano's CNMeM pool
//   "could not create cuDNN handle: CUDNN_STATUS_INTERNAL_ERROR"
//                                                  cuDNN's handle not created (Theano, TensorFlow)
//   "BFCArena::AllocateRawInternal(...) Failed to allocate memory for requested buffer of size N"
//                                                  ONNX Runtime's arena refusing a request
//
// CUDA_ERROR_OUT_OF_MEMORY (the driver), CUDNN_STATUS_ALLOC_FAILED and CUBLAS_STATUS_ALLOC_FAILED
// as plain names are read by oom_report.cpp's driver reader; this reader takes the forms it
// does not. Pure functions; linear in the line.

#include <optional>
#include <string>
#include <string_view>

#include <vramscope/observe/observation.hpp>

namespace vramscope::observe::detail {

struct failure_line {
  std::size_t at = 0;  // where the failure's words start on the line
  /// allocator: a device allocation (cudaMalloc or the runtime's allocation call failed);
  /// outside_allocator: a library's own allocation (its workspace, its handle's buffers).
  oom_origin origin = oom_origin::allocator;
  std::string library;  // "cudnn", "cublas"; empty for the runtime's own allocation
  std::string status;   // the status as the line names it ("cudaErrorMemoryAllocation")
  /// The status names a lack of memory. False for a library's execution failure pasted as the
  /// memory failure (cuDNN v2 reported a workspace it could not allocate that way).
  bool names_memory = true;
  /// The request the line names, in bytes, when it gives one (ONNX Runtime's arena).
  std::optional<std::uint64_t> requested;
  /// The failure is a framework's own pool refusing the request (ONNX Runtime's BFC arena), not
  /// the CUDA runtime or a library: read as that allocator's message.
  bool framework_pool = false;
};

/// The failure one line names, if any.
std::optional<failure_line> failure_line_of(std::string_view line);

/// The runtime or framework a paste names by its own marks (a Java package, a log's source
/// file, a frame's module): "caffe", "rapids", "onnxruntime", "cntk", "theano", "knet", "mxnet",
/// "paddle", "tensorflow", "jax", "torch"; empty when none. The first framework in this order wins,
/// so a framework over another's library (Caffe over cuDNN, RAPIDS over RMM) is named by itself.
std::string runtime_named(std::string_view text);

}  // namespace vramscope::observe::detail
