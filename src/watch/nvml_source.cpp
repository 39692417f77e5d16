// NVML through dlopen. The call protocols (NVIDIA's nvml.h) and the driver pitfalls this code
// works around (the 535.x process record size) are summarised in docs/watch.md, "Reading NVML
// without its header".
#include <vramscope/watch/nvml_source.hpp>

#include <dlfcn.h>

#include <fmt/format.h>

#include <cstdlib>
#include <set>

#include "watch/clock.hpp"
#include "watch/nvml_api.hpp"
#include "watch/nvml_processes.hpp"

namespace vramscope::watch {

struct nvml_source::impl {
  void* handle = nullptr;
  bool initialised = false;
  nvml::api f;
  nvml_capabilities caps;
  std::set<unsigned> lost;        // GPUs reported lost (warned once each)
  std::set<std::string> refused;  // "what@gpu" NVML refused (warned once each)
  unsigned devices = 0;           // GPUs NVML counted at the previous read

  ~impl() {
    if (initialised && f.shutdown) f.shutdown();
    if (handle) dlclose(handle);
  }

  diagnostic failure(const std::string& what, nvml::return_t rc) const {
    return error_at("nvml", fmt::format("{}: {}: {}", caps.library, what, nvml::error_text(f, rc)));
  }
  void warn_once(sample& s, unsigned gpu, const std::string& what, nvml::return_t rc);
  void read_gpu(unsigned index, sample& s);
  void mark_lost(unsigned index, gpu_reading& g, sample& s);
  bool read_memory(nvml::device_t dev, gpu_reading& g, sample& s);
};

namespace {

std::string library_name(const std::string& requested) {
  if (!requested.empty()) return requested;
  if (const char* env = std::getenv("VRAMSCOPE_NVML_LIBRARY"); env && *env) return env;
  return "libnvidia-ml.so.1";
}

std::string read_text(nvml::text_fn fn, nvml::device_t dev, unsigned size, nvml::return_t& rc) {
  if (!fn) {
    rc = nvml::function_not_found;
    return {};
  }
  std::string buffer(size, '\0');
  rc = fn(dev, buffer.data(), size);
  if (rc != nvml::success) return {};
  buffer.resize(buffer.find('\0') == std::string::npos ? size : buffer.find('\0'));
  return buffer;
}

std::string driver_version(const nvml::api& f) {
  if (!f.driver_version) return {};
  char buffer[nvml::driver_buffer] = {};
  if (f.driver_version(buffer, sizeof buffer) != nvml::success) return {};
  buffer[sizeof buffer - 1] = '\0';
  return buffer;
}

}  // namespace

void nvml_source::impl::warn_once(sample& s, unsigned gpu, const std::string& what,
                                  nvml::return_t rc) {
  if (!refused.insert(fmt::format("{}@{}", what, gpu)).second) return;
  s.warnings.push_back(error_at(
      "nvml", fmt::format("GPU {}: {} unavailable: {}", gpu, what, nvml::error_text(f, rc))));
}

void nvml_source::impl::mark_lost(unsigned index, gpu_reading& g, sample& s) {
  auto keep = g.gpu;
  g.gpu = observe::gpu_observation{};
  g.gpu.index = keep.index;
  g.gpu.name = keep.name;
  g.gpu.uuid = keep.uuid;
  g.gpu.bus_id = keep.bus_id;
  g.lost = true;
  if (lost.insert(index).second)
    s.warnings.push_back(error_at(
        "nvml",
        fmt::format("GPU {}{} is lost ({}); its figures are left out until it answers again", index,
                    g.gpu.uuid.empty() ? "" : " (" + g.gpu.uuid + ")",
                    nvml::error_text(f, nvml::gpu_is_lost))));
}

bool nvml_source::impl::read_memory(nvml::device_t dev, gpu_reading& g, sample& s) {
  const unsigned index = static_cast<unsigned>(*g.gpu.index);
  nvml::return_t rc = nvml::success;
  if (f.memory_version == 2) {
    nvml::memory_v2 m{};
    m.version = nvml::memory_v2_version;
    rc = f.memory(dev, &m);
    if (rc == nvml::success && m.total > 0) {
      g.gpu.total = m.total;
      g.gpu.used = m.used;
      g.gpu.free = m.free;
      g.gpu.reserved = m.reserved;
      return true;
    }
    const bool rejected = rc == nvml::argument_version_mismatch || rc == nvml::function_not_found;
    auto v1 = reinterpret_cast<nvml::memory_fn>(dlsym(handle, "nvmlDeviceGetMemoryInfo"));
    if (rejected && v1) {
      // Some drivers export _v2 but reject the struct: use v1 from now on.
      f.memory = v1;
      f.memory_version = 1;
      caps.memory_api = 1;
    }
  }
  if (f.memory_version == 1) {
    nvml::memory_v1 m{};
    rc = f.memory(dev, &m);
    if (rc == nvml::success && m.total > 0) {
      g.gpu.total = m.total;
      g.gpu.used = m.used;  // includes what the driver reserves
      g.gpu.free = m.free;
      return true;
    }
  }
  if (rc == nvml::gpu_is_lost) return false;
  // NOT_SUPPORTED or total 0: a unified-memory GPU (GB10) has no framebuffer figures.
  warn_once(s, index, "memory information", rc == nvml::success ? nvml::not_supported : rc);
  return true;
}

void nvml_source::impl::read_gpu(unsigned index, sample& s) {
  gpu_reading g;
  g.gpu.index = static_cast<int>(index);
  nvml::device_t dev = nullptr;
  nvml::return_t rc = f.handle_by_index(index, &dev);
  if (rc == nvml::gpu_is_lost) return mark_lost(index, s.gpus.emplace_back(std::move(g)), s);
  if (rc != nvml::success) {
    warn_once(s, index, "device handle", rc);
    s.gpus.push_back(std::move(g));
    return;
  }
  g.gpu.name = read_text(f.name, dev, nvml::name_buffer, rc);
  g.gpu.uuid = read_text(f.uuid, dev, nvml::uuid_buffer, rc);
  if (f.pci) {
    nvml::pci_info pci{};
    if (f.pci(dev, &pci) == nvml::success) {
      pci.bus_id[sizeof pci.bus_id - 1] = '\0';
      g.gpu.bus_id = pci.bus_id;
    }
  }
  bool alive = read_memory(dev, g, s);
  if (alive && f.utilization) {
    nvml::utilization u{};
    rc = f.utilization(dev, &u);
    if (rc == nvml::success) {
      g.gpu.utilization_gpu = static_cast<int>(u.gpu);
      g.gpu.utilization_memory = static_cast<int>(u.memory);
    } else if (rc == nvml::gpu_is_lost) {
      alive = false;
    } else {
      warn_once(s, index, "utilisation", rc);
    }
  }
  if (alive)
    alive = nvml::read_processes(
        handle, f, dev, g.gpu, s,
        [&](const std::string& what, nvml::return_t code) { warn_once(s, index, what, code); });
  if (!alive) return mark_lost(index, s.gpus.emplace_back(std::move(g)), s);
  lost.erase(index);
  s.gpus.push_back(std::move(g));
}

result<std::unique_ptr<nvml_source>> nvml_source::open(const std::string& library) {
  auto p = std::make_unique<impl>();
  p->caps.library = library_name(library);
  p->handle = dlopen(p->caps.library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!p->handle) {
    const char* why = dlerror();
    return error_at("nvml", fmt::format("cannot load {}: {}", p->caps.library,
                                        why ? why : "unknown dlopen error"));
  }
  if (auto missing = nvml::resolve(p->handle, p->f); !missing.empty())
    return error_at("nvml", fmt::format("{}: symbol {} not found; is this NVIDIA's NVML library?",
                                        p->caps.library, missing));
  if (auto rc = p->f.init(); rc != nvml::success) return p->failure("nvmlInit failed", rc);
  p->initialised = true;
  p->caps.driver_version = driver_version(p->f);
  if (!nvml::choose_process_api(p->handle, p->f, p->caps.driver_version))
    return error_at("nvml", fmt::format("{}: no nvmlDeviceGetComputeRunningProcesses function",
                                        p->caps.library));
  p->caps.memory_api = p->f.memory_version;
  p->caps.process_api = p->f.process_version;
  p->caps.process_record_bytes = p->f.process_record_bytes;
  unsigned count = 0;
  if (auto rc = p->f.device_count(&count); rc != nvml::success)
    return p->failure("cannot count GPUs", rc);
  if (count == 0) return error_at("nvml", fmt::format("{}: NVML sees no GPU", p->caps.library));
  return std::unique_ptr<nvml_source>(new nvml_source(std::move(p)));
}

nvml_source::nvml_source(std::unique_ptr<impl> impl) : impl_(std::move(impl)) {}
nvml_source::~nvml_source() = default;

const nvml_capabilities& nvml_source::capabilities() const { return impl_->caps; }

result<sample> nvml_source::read() {
  sample s;
  s.time_ms = now_ms();
  unsigned count = 0;
  if (auto rc = impl_->f.device_count(&count); rc != nvml::success)
    return impl_->failure("cannot count GPUs", rc);
  if (impl_->devices > count)
    s.warnings.push_back(
        error_at("nvml", fmt::format("NVML now counts {} GPU{}, {} before: a GPU "
                                     "fell off the bus or its driver was reset",
                                     count, count == 1 ? "" : "s", impl_->devices)));
  impl_->devices = count;
  for (unsigned i = 0; i < count; ++i) impl_->read_gpu(i, s);
  // A process-list call may have fallen back to an older API version.
  impl_->caps.process_api = impl_->f.process_version;
  impl_->caps.process_record_bytes = impl_->f.process_record_bytes;
  return s;
}

}  // namespace vramscope::watch
