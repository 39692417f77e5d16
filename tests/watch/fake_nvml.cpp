// A fake libnvidia-ml for tests: exports the NVML symbols nvml_source resolves, with the
// layouts of nvml.h (as src/watch/nvml_api.hpp declares them), and answers from a JSON file
// named by $VRAMSCOPE_FAKE_NVML_CONFIG, read at nvmlInit. Compile-time switches drop symbols to
// play older drivers: FAKE_NVML_NO_V3 (no _v3 process functions, no GetMemoryInfo_v2),
// FAKE_NVML_NO_V2 (only the v1 process functions), FAKE_NVML_535 (the 535.43-535.98 symbol
// set: no nvmlDeviceGetRunningProcessDetailList), FAKE_NVML_NO_COUNT (not an NVML at all).
//
// Config (every field optional):
//   {"init_error": 9, "driver": "550.54.15", "v3_record_bytes": 24,
//    "process_names": {"101": "/usr/bin/python3"},
//    "devices": [{"name", "uuid", "bus_id", "total", "used", "free", "reserved",
//                 "util_gpu", "util_memory", "compute": [{"pid", "used"}], "graphics": [...],
//                 "mps": [...], "lost_after": N, "insufficient_times": K,
//                 "errors": {"nvmlDeviceGetUtilizationRates": 3}}]}
// "lost_after": N answers GPU_IS_LOST to every call on the device from its (N+1)-th sample on
// (a sample starts with nvmlDeviceGetHandleByIndex).
// "insufficient_times": K answers INSUFFICIENT_SIZE to K filled process-list calls in a row.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace {

constexpr int ok = 0, not_supported = 3, insufficient_size = 7, not_found = 6, lost = 15;
constexpr std::uint64_t not_available = ~std::uint64_t{0};

struct fake_process {
  std::uint32_t pid = 0;
  std::uint64_t used = not_available;
};

struct fake_device {
  nlohmann::json config;
  std::vector<fake_process> lists[3];  // compute, graphics, mps
  int samples = 0;
  int insufficient_left = 0;
};

struct fake_state {
  nlohmann::json config;
  std::vector<fake_device> devices;
  std::map<std::string, int> calls;
};

fake_state& state() {
  static fake_state s;
  return s;
}

std::vector<fake_process> processes_of(const nlohmann::json& list) {
  std::vector<fake_process> out;
  for (const auto& p : list) {
    fake_process f;
    f.pid = p.value("pid", 0u);
    f.used = p.value("used", not_available);
    out.push_back(f);
  }
  return out;
}

int load_config() {
  auto& s = state();
  s = fake_state{};
  const char* path = std::getenv("VRAMSCOPE_FAKE_NVML_CONFIG");
  if (path) {
    std::ifstream in(path);
    s.config = nlohmann::json::parse(in, nullptr, false);
    if (s.config.is_discarded()) return 999;
  }
  for (const auto& d : s.config.value("devices", nlohmann::json::array())) {
    fake_device dev;
    dev.config = d;
    const char* keys[3] = {"compute", "graphics", "mps"};
    for (int i = 0; i < 3; ++i)
      dev.lists[i] = processes_of(d.value(keys[i], nlohmann::json::array()));
    dev.insufficient_left = d.value("insufficient_times", 0);
    s.devices.push_back(std::move(dev));
  }
  return s.config.value("init_error", ok);
}

fake_device* device_of(void* handle) { return static_cast<fake_device*>(handle); }

// Counts the call; returns the configured error for it, GPU_IS_LOST for a lost device, or 0.
int enter(const char* name, fake_device* dev = nullptr) {
  ++state().calls[name];
  if (!dev) return state().config.value("errors", nlohmann::json::object()).value(name, ok);
  const int lost_after = dev->config.value("lost_after", -1);
  if (lost_after >= 0 && dev->samples > lost_after) return lost;
  return dev->config.value("errors", nlohmann::json::object()).value(name, ok);
}

int copy_text(const std::string& text, char* buffer, unsigned length) {
  if (text.size() + 1 > length) return insufficient_size;
  std::memcpy(buffer, text.c_str(), text.size() + 1);
  return ok;
}

template <typename T>
void store(unsigned char* p, T value) {
  std::memcpy(p, &value, sizeof value);
}

int process_list(const char* name, void* handle, unsigned* count, void* out, int list,
                 std::size_t record_bytes) {
  auto* dev = device_of(handle);
  if (int rc = enter(name, dev)) return rc;
  const auto& procs = dev->lists[list];
  const auto needed = static_cast<unsigned>(procs.size());
  if (out && dev->insufficient_left > 0) {
    --dev->insufficient_left;
    *count = *count + 1;  // the list grew past what the caller allocated
    return insufficient_size;
  }
  if (*count < needed || (!out && needed > 0)) {
    *count = needed;
    return insufficient_size;
  }
  auto* bytes = static_cast<unsigned char*>(out);
  for (unsigned i = 0; i < needed; ++i) {
    unsigned char* r = bytes + i * record_bytes;
    std::memset(r, 0, record_bytes);
    store<std::uint32_t>(r, procs[i].pid);
    store<std::uint64_t>(r + 8, procs[i].used);
    if (record_bytes >= 24) {
      store<std::uint32_t>(r + 16, 0xFFFFFFFFu);
      store<std::uint32_t>(r + 20, 0xFFFFFFFFu);
    }
    if (record_bytes >= 32) store<std::uint64_t>(r + 24, 0);
  }
  *count = needed;
  return ok;
}

[[maybe_unused]] std::size_t v3_bytes() {
  return state().config.value("v3_record_bytes", std::size_t{24});
}

}  // namespace

extern "C" {

// Test hooks, looked up with dlsym by the tests.
int fake_nvml_calls(const char* name) { return state().calls[name]; }

int nvmlInit_v2() {
  ++state().calls["nvmlInit_v2"];
  return load_config();
}
int nvmlInit() { return nvmlInit_v2(); }
int nvmlShutdown() { return enter("nvmlShutdown"); }

const char* nvmlErrorString(int rc) {
  switch (rc) {
    case 3:
      return "Not Supported";
    case 7:
      return "Insufficient Size";
    case 9:
      return "Driver Not Loaded";
    case 13:
      return "Function Not Found";
    case 15:
      return "GPU is lost";
    case 25:
      return "Argument version mismatch";
    default:
      return "Unknown Error";
  }
}

int nvmlSystemGetDriverVersion(char* buffer, unsigned length) {
  if (int rc = enter("nvmlSystemGetDriverVersion")) return rc;
  if (!state().config.contains("driver")) return not_supported;
  return copy_text(state().config["driver"].get<std::string>(), buffer, length);
}

#ifndef FAKE_NVML_NO_COUNT
// "count_after": [N, M] reports M devices from the (N+1)-th count on (a GPU fell off the bus).
int nvmlDeviceGetCount_v2(unsigned* count) {
  if (int rc = enter("nvmlDeviceGetCount_v2")) return rc;
  *count = static_cast<unsigned>(state().devices.size());
  const auto after = state().config.value("count_after", nlohmann::json::array());
  if (after.size() == 2 && state().calls["nvmlDeviceGetCount_v2"] > after[0].get<int>())
    *count = after[1].get<unsigned>();
  return ok;
}
#endif

int nvmlDeviceGetHandleByIndex_v2(unsigned index, void** handle) {
  if (index >= state().devices.size()) return 2;
  auto* dev = &state().devices[index];
  ++dev->samples;
  if (int rc = enter("nvmlDeviceGetHandleByIndex_v2", dev)) return rc;
  *handle = dev;
  return ok;
}

int nvmlDeviceGetName(void* handle, char* buffer, unsigned length) {
  if (int rc = enter("nvmlDeviceGetName", device_of(handle))) return rc;
  return copy_text(device_of(handle)->config.value("name", "Fake GPU"), buffer, length);
}

int nvmlDeviceGetUUID(void* handle, char* buffer, unsigned length) {
  if (int rc = enter("nvmlDeviceGetUUID", device_of(handle))) return rc;
  return copy_text(device_of(handle)->config.value("uuid", ""), buffer, length);
}

int nvmlDeviceGetPciInfo_v3(void* handle, void* pci) {
  if (int rc = enter("nvmlDeviceGetPciInfo_v3", device_of(handle))) return rc;
  std::memset(pci, 0, 68);
  const std::string bus = device_of(handle)->config.value("bus_id", "");
  std::memcpy(static_cast<char*>(pci) + 36, bus.c_str(), std::min<std::size_t>(bus.size(), 31));
  return ok;
}

#ifndef FAKE_NVML_NO_V3
int nvmlDeviceGetMemoryInfo_v2(void* handle, void* memory) {
  auto* dev = device_of(handle);
  if (int rc = enter("nvmlDeviceGetMemoryInfo_v2", dev)) return rc;
  unsigned version = 0;
  std::memcpy(&version, memory, sizeof version);
  if (version != 0x02000028u) return 25;
  auto* p = static_cast<unsigned char*>(memory);
  store<std::uint64_t>(p + 8, dev->config.value("total", std::uint64_t{0}));
  store<std::uint64_t>(p + 16, dev->config.value("reserved", std::uint64_t{0}));
  store<std::uint64_t>(p + 24, dev->config.value("free", std::uint64_t{0}));
  store<std::uint64_t>(p + 32, dev->config.value("used", std::uint64_t{0}));
  return ok;
}
#endif

int nvmlDeviceGetMemoryInfo(void* handle, void* memory) {
  auto* dev = device_of(handle);
  if (int rc = enter("nvmlDeviceGetMemoryInfo", dev)) return rc;
  auto* p = static_cast<unsigned char*>(memory);
  const auto reserved = dev->config.value("reserved", std::uint64_t{0});
  store<std::uint64_t>(p + 0, dev->config.value("total", std::uint64_t{0}));
  store<std::uint64_t>(p + 8, dev->config.value("free", std::uint64_t{0}));
  store<std::uint64_t>(p + 16, dev->config.value("used", std::uint64_t{0}) + reserved);
  return ok;
}

int nvmlDeviceGetUtilizationRates(void* handle, unsigned* rates) {
  if (int rc = enter("nvmlDeviceGetUtilizationRates", device_of(handle))) return rc;
  rates[0] = device_of(handle)->config.value("util_gpu", 0u);
  rates[1] = device_of(handle)->config.value("util_memory", 0u);
  return ok;
}

int nvmlSystemGetProcessName(unsigned pid, char* buffer, unsigned length) {
  if (int rc = enter("nvmlSystemGetProcessName")) return rc;
  const auto names = state().config.value("process_names", nlohmann::json::object());
  const auto key = std::to_string(pid);
  if (!names.contains(key)) return not_found;
  return copy_text(names[key].get<std::string>(), buffer, length);
}

int nvmlDeviceGetComputeRunningProcesses(void* h, unsigned* n, void* out) {
  return process_list("nvmlDeviceGetComputeRunningProcesses", h, n, out, 0, 16);
}
int nvmlDeviceGetGraphicsRunningProcesses(void* h, unsigned* n, void* out) {
  return process_list("nvmlDeviceGetGraphicsRunningProcesses", h, n, out, 1, 16);
}
#ifndef FAKE_NVML_NO_V2
int nvmlDeviceGetComputeRunningProcesses_v2(void* h, unsigned* n, void* out) {
  return process_list("nvmlDeviceGetComputeRunningProcesses_v2", h, n, out, 0, 24);
}
int nvmlDeviceGetGraphicsRunningProcesses_v2(void* h, unsigned* n, void* out) {
  return process_list("nvmlDeviceGetGraphicsRunningProcesses_v2", h, n, out, 1, 24);
}
int nvmlDeviceGetMPSComputeRunningProcesses_v2(void* h, unsigned* n, void* out) {
  return process_list("nvmlDeviceGetMPSComputeRunningProcesses_v2", h, n, out, 2, 24);
}
#endif
#if !defined(FAKE_NVML_NO_V3) && !defined(FAKE_NVML_NO_V2)
int nvmlDeviceGetComputeRunningProcesses_v3(void* h, unsigned* n, void* out) {
  return process_list("nvmlDeviceGetComputeRunningProcesses_v3", h, n, out, 0, v3_bytes());
}
int nvmlDeviceGetGraphicsRunningProcesses_v3(void* h, unsigned* n, void* out) {
  return process_list("nvmlDeviceGetGraphicsRunningProcesses_v3", h, n, out, 1, v3_bytes());
}
int nvmlDeviceGetMPSComputeRunningProcesses_v3(void* h, unsigned* n, void* out) {
  return process_list("nvmlDeviceGetMPSComputeRunningProcesses_v3", h, n, out, 2, v3_bytes());
}
// Presence probes of the 535.x heuristic; never called.
int nvmlDeviceGetConfComputeMemSizeInfo(void*, void*) { return not_supported; }
#ifndef FAKE_NVML_535
int nvmlDeviceGetRunningProcessDetailList(void*, void*) { return not_supported; }
#endif
#endif

}  // extern "C"
