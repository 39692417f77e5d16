#include "watch/nvml_processes.hpp"

#include <algorithm>
#include <cstring>
#include <map>

namespace vramscope::watch::nvml {

namespace {

// The list grows between calls when processes start; nvitop allocates 2n + 5 records.
constexpr int max_attempts = 8;

template <typename T>
T load(const unsigned char* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

constexpr const char* list_names[3] = {"compute process list", "graphics process list",
                                       "MPS process list"};
constexpr char list_letters[3] = {'C', 'G', 'M'};

struct merged {
  process_record record;
  bool in[3] = {false, false, false};  // by process_list
};

// "C", "G", "C+G", "M+C", "M+C+G": nvidia-smi's order.
std::string type_of(const merged& m) {
  std::string type;
  for (int list : {2, 0, 1}) {
    if (!m.in[list]) continue;
    if (!type.empty()) type += '+';
    type += list_letters[list];
  }
  return type;
}

std::string process_name(const api& f, std::uint32_t pid) {
  if (!f.process_name) return {};
  char buffer[256] = {};
  if (f.process_name(pid, buffer, sizeof buffer) != success) return {};
  buffer[sizeof buffer - 1] = '\0';
  return buffer;
}

bool needs_older_api(return_t rc) {
  return rc == function_not_found || rc == argument_version_mismatch;
}

}  // namespace

std::vector<process_record> decode_records(const unsigned char* buffer, unsigned count,
                                           std::size_t record_bytes) {
  std::vector<process_record> out;
  out.reserve(count);
  for (unsigned i = 0; i < count; ++i) {
    const unsigned char* p = buffer + i * record_bytes;
    process_record r;
    r.pid = load<std::uint32_t>(p + offsetof(process_v2, pid));
    r.used = load<std::uint64_t>(p + offsetof(process_v2, used_gpu_memory));
    if (record_bytes >= sizeof(process_v2)) {
      r.gpu_instance = load<std::uint32_t>(p + offsetof(process_v2, gpu_instance_id));
      r.compute_instance = load<std::uint32_t>(p + offsetof(process_v2, compute_instance_id));
    }
    out.push_back(r);
  }
  return out;
}

return_t call_process_list(process_fn fn, device_t dev, std::size_t record_bytes,
                           std::vector<process_record>& out) {
  out.clear();
  unsigned count = 0;
  return_t rc = fn(dev, &count, nullptr);  // SUCCESS: no processes; else count = needed
  std::vector<unsigned char> buffer;
  unsigned capacity = 0;
  for (int attempt = 0; rc == insufficient_size && attempt < max_attempts; ++attempt) {
    capacity = 2 * count + 5;
    buffer.assign(capacity * record_bytes, 0);
    count = capacity;
    rc = fn(dev, &count, buffer.data());
  }
  if (rc == success && capacity > 0)
    out = decode_records(buffer.data(), std::min(count, capacity), record_bytes);
  return rc;
}

bool read_processes(void* handle, api& f, device_t dev, const observe::gpu_observation& gpu,
                    sample& s, const warn_fn& warn) {
  std::map<std::uint32_t, merged> by_pid;
  std::vector<std::uint32_t> order;
  for (int list = 0; list < 3; ++list) {
    std::vector<process_record> records;
    return_t rc = not_supported;
    while (f.processes[list]) {
      rc = call_process_list(f.processes[list], dev, f.process_record_bytes, records);
      if (!(list == 0 && needs_older_api(rc) && downgrade_process_api(handle, f))) break;
    }
    if (rc == gpu_is_lost) return false;
    if (rc != success) {
      if (list == 0 && f.processes[0]) warn(list_names[list], rc);
      continue;
    }
    for (const auto& r : records) {
      auto [it, fresh] = by_pid.try_emplace(r.pid, merged{r});
      if (fresh) order.push_back(r.pid);
      if (!fresh && r.used != value_not_available &&
          (it->second.record.used == value_not_available || r.used > it->second.record.used))
        it->second.record.used = r.used;
      it->second.in[list] = true;
    }
  }
  for (std::uint32_t pid : order) {
    const merged& m = by_pid[pid];
    process_reading p;
    p.process.gpu_index = gpu.index;
    p.process.gpu_uuid = gpu.uuid;
    p.process.gpu_bus_id = gpu.bus_id;
    p.process.pid = pid;
    p.process.name = process_name(f, pid);
    p.process.type = type_of(m);
    if (m.record.used != value_not_available) p.process.used = m.record.used;
    if (m.record.gpu_instance != 0xFFFFFFFF)
      p.process.gpu_instance = static_cast<int>(m.record.gpu_instance);
    if (m.record.compute_instance != 0xFFFFFFFF)
      p.process.compute_instance = static_cast<int>(m.record.compute_instance);
    s.processes.push_back(std::move(p));
  }
  return true;
}

}  // namespace vramscope::watch::nvml
