#include "watch/nvml_api.hpp"

#include <dlfcn.h>

#include <charconv>
#include <string_view>

namespace vramscope::watch::nvml {

namespace {

template <typename Fn>
Fn symbol(void* handle, const char* name) {
  return reinterpret_cast<Fn>(dlsym(handle, name));
}

// The first of `names` that the library exports.
template <typename Fn>
Fn first_symbol(void* handle, std::initializer_list<const char*> names, int* which = nullptr) {
  int version = static_cast<int>(names.size());
  for (const char* name : names) {
    if (auto fn = symbol<Fn>(handle, name)) {
      if (which) *which = version;
      return fn;
    }
    --version;
  }
  return nullptr;
}

// Exported names of the process-list functions, by list and version (index 0 = v1).
constexpr const char* process_symbols[3][3] = {
    {"nvmlDeviceGetComputeRunningProcesses", "nvmlDeviceGetComputeRunningProcesses_v2",
     "nvmlDeviceGetComputeRunningProcesses_v3"},
    {"nvmlDeviceGetGraphicsRunningProcesses", "nvmlDeviceGetGraphicsRunningProcesses_v2",
     "nvmlDeviceGetGraphicsRunningProcesses_v3"},
    {"nvmlDeviceGetMPSComputeRunningProcesses", "nvmlDeviceGetMPSComputeRunningProcesses_v2",
     "nvmlDeviceGetMPSComputeRunningProcesses_v3"},
};

bool parse_int(std::string_view text, int& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end != text.data();
}

// nvitop's probe for drivers that do not say their version: _v3 process functions plus the
// confidential-computing memory query, but no process detail list -> the 535.43-535.98 ABI.
bool symbols_suggest_535(void* handle) {
  return dlsym(handle, "nvmlDeviceGetConfComputeMemSizeInfo") != nullptr &&
         dlsym(handle, "nvmlDeviceGetRunningProcessDetailList") == nullptr;
}

void set_process_version(void* handle, api& f, int version, bool records_32) {
  for (int list = 0; list < 3; ++list)
    f.processes[list] = symbol<process_fn>(handle, process_symbols[list][version - 1]);
  f.process_version = version;
  f.process_record_bytes = version == 1                   ? sizeof(process_v1)
                           : (version == 3 && records_32) ? sizeof(process_535)
                                                          : sizeof(process_v2);
}

}  // namespace

std::string error_text(const api& f, return_t code) {
  if (f.error_string) {
    if (const char* text = f.error_string(code)) return text;
  }
  return "NVML error " + std::to_string(code);
}

std::string resolve(void* handle, api& f) {
  f.init = first_symbol<init_fn>(handle, {"nvmlInit_v2", "nvmlInit"});
  if (!f.init) return "nvmlInit_v2";
  f.shutdown = symbol<init_fn>(handle, "nvmlShutdown");
  f.error_string = symbol<error_string_fn>(handle, "nvmlErrorString");
  f.device_count = first_symbol<count_fn>(handle, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
  if (!f.device_count) return "nvmlDeviceGetCount_v2";
  f.handle_by_index = first_symbol<handle_fn>(
      handle, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
  if (!f.handle_by_index) return "nvmlDeviceGetHandleByIndex_v2";
  // nvml.h does not remap GetMemoryInfo to _v2: resolve both by name.
  f.memory = first_symbol<memory_fn>(
      handle, {"nvmlDeviceGetMemoryInfo_v2", "nvmlDeviceGetMemoryInfo"}, &f.memory_version);
  if (!f.memory) return "nvmlDeviceGetMemoryInfo";
  f.name = symbol<text_fn>(handle, "nvmlDeviceGetName");
  f.uuid = symbol<text_fn>(handle, "nvmlDeviceGetUUID");
  f.pci = first_symbol<pci_fn>(handle, {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2"});
  f.utilization = symbol<utilization_fn>(handle, "nvmlDeviceGetUtilizationRates");
  f.process_name = symbol<process_name_fn>(handle, "nvmlSystemGetProcessName");
  f.driver_version = symbol<driver_version_fn>(handle, "nvmlSystemGetDriverVersion");
  return {};
}

bool driver_has_32_byte_process_records(const std::string& driver_version) {
  const std::string_view v = driver_version;
  const auto dot = v.find('.');
  if (dot == std::string_view::npos) return false;
  const auto second = v.find('.', dot + 1);
  int major = 0, minor = 0;
  if (!parse_int(v.substr(0, dot), major)) return false;
  if (!parse_int(v.substr(dot + 1, second == std::string_view::npos ? v.npos : second - dot - 1),
                 minor))
    return false;
  return major == 535 && minor >= 43 && minor <= 98;
}

bool choose_process_api(void* handle, api& f, const std::string& driver_version) {
  int version = 0;
  for (int v = 3; v >= 1 && version == 0; --v)
    if (dlsym(handle, process_symbols[0][v - 1])) version = v;
  if (version == 0) return false;
  const bool records_32 = driver_version.empty()
                              ? symbols_suggest_535(handle)
                              : driver_has_32_byte_process_records(driver_version);
  set_process_version(handle, f, version, records_32);
  return true;
}

bool downgrade_process_api(void* handle, api& f) {
  for (int v = f.process_version - 1; v >= 1; --v) {
    if (dlsym(handle, process_symbols[0][v - 1])) {
      set_process_version(handle, f, v, false);
      return true;
    }
  }
  return false;
}

}  // namespace vramscope::watch::nvml
