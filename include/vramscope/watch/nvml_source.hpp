#pragma once
// nvml_source: reads GPUs and their processes through NVML, loaded with dlopen at run time and
// never linked, so vramscope builds and runs on machines without a driver.
//
// Symbols are resolved by their exported (versioned) names with fallbacks, as the driver
// exports them (nvml.h; docs/watch.md, "Reading NVML without its header"):
//   nvmlInit_v2, nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2   (required)
//   nvmlDeviceGetMemoryInfo_v2 -> nvmlDeviceGetMemoryInfo               (v2 separates reserved)
//   nvmlDevice{Compute,Graphics,MPSCompute}RunningProcesses _v3 -> _v2 -> v1
//   nvmlDeviceGetName, nvmlDeviceGetUUID, nvmlDeviceGetPciInfo_v3 -> _v2,
//   nvmlDeviceGetUtilizationRates, nvmlSystemGetProcessName, nvmlSystemGetDriverVersion
// Drivers 535.43-535.98 lay out the _v3 process records in 32 bytes instead of 24; the source
// picks the record size from the driver version (or, without one, from the symbols present).

#include <cstddef>
#include <memory>
#include <string>

#include <vramscope/core/result.hpp>
#include <vramscope/watch/gpu_source.hpp>

namespace vramscope::watch {

/// Which NVML entry points the loaded library offered; for messages and tests.
struct nvml_capabilities {
  std::string library;                   // the path or name that was loaded
  std::string driver_version;            // "550.54.15"; empty when NVML does not say
  int memory_api = 0;                    // 2: nvmlDeviceGetMemoryInfo_v2, 1: v1
  int process_api = 0;                   // 3, 2 or 1: which _vN process-list functions are used
  std::size_t process_record_bytes = 0;  // 24 (v2/v3), 32 (535.43-535.98 v3) or 16 (v1)
};

/// Owns the dlopen handle and one nvmlInit; the destructor calls nvmlShutdown and dlclose.
/// Not thread-safe. Implementation in src/watch/nvml_source.cpp.
class nvml_source final : public gpu_source {
 public:
  /// Loads `library` ("" means $VRAMSCOPE_NVML_LIBRARY, else "libnvidia-ml.so.1"), resolves
  /// the function table and initialises NVML. Fails (source "nvml") when the library does not
  /// load, a required symbol is missing, nvmlInit fails or no GPU is present; the message
  /// names the library and NVML's own error text.
  static result<std::unique_ptr<nvml_source>> open(const std::string& library = {});

  ~nvml_source() override;
  nvml_source(const nvml_source&) = delete;
  nvml_source& operator=(const nvml_source&) = delete;

  [[nodiscard]] std::string_view name() const override { return "nvml"; }

  /// One sample. A GPU that reports GPU_IS_LOST stays in the sample with `lost` set and a
  /// warning (once per GPU); metrics NVML refuses are empty, with a warning the first time.
  result<sample> read() override;

  [[nodiscard]] const nvml_capabilities& capabilities() const;

  struct impl;

 private:
  explicit nvml_source(std::unique_ptr<impl> impl);
  std::unique_ptr<impl> impl_;
};

}  // namespace vramscope::watch
