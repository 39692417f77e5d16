// Part of the CUPTI injection library too (built position-independent): no fmt, no
// exceptions, no vramscope::core symbols, so the library drags nothing into the traced program.
#include <vramscope/trace/trace_record.hpp>

#include <unistd.h>

#include <charconv>
#include <cstdlib>

namespace vramscope::trace {

namespace {

// CUpti_ActivityMemoryKind values that are device memory (cupti_activity.h).
constexpr std::uint32_t kind_device = 3, kind_array = 4, kind_device_static = 6;
// CUpti_ActivityMemoryOperationType.
constexpr std::uint32_t operation_allocation = 1, operation_release = 2;

void append_uint(std::string& out, std::uint64_t v) {
  char buffer[24];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, end);
}

void append_int(std::string& out, std::int64_t v) {
  char buffer[24];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  out.append(buffer, end);
}

void append_hex(std::string& out, std::uint64_t v) {
  char buffer[24];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v, 16);
  out += "\"0x";
  out.append(buffer, end);
  out += '"';
}

// JSON string; control characters escaped, bytes above 0x7f replaced so every line is valid
// UTF-8 whatever the driver or the environment hands us.
void append_string(std::string& out, std::string_view text) {
  static constexpr char hex[] = "0123456789abcdef";
  out += '"';
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\')
      (out += '\\') += c;
    else if (u < 0x20)
      (out += "\\u00") += std::string{hex[u >> 4], hex[u & 15]};
    else
      out += u < 0x80 ? c : '?';
  }
  out += '"';
}

void key(std::string& out, std::string_view name) {
  out += ",\"";
  out += name;
  out += "\":";
}

void optional_int(std::string& out, std::string_view name, const std::optional<int>& v) {
  if (!v) return;
  key(out, name);
  append_int(out, *v);
}

std::optional<int> env_int(const char* name) {
  const char* text = std::getenv(name);
  if (!text || !*text) return std::nullopt;
  int value = 0;
  const std::string_view s(text);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return value;
}

}  // namespace

std::string_view trace_kind_name(trace_kind kind) {
  switch (kind) {
    case trace_kind::alloc:
      return "alloc";
    case trace_kind::free:
      return "free";
    case trace_kind::map:
      return "map";
    case trace_kind::unmap:
      return "unmap";
  }
  return "alloc";
}

trace_record trace_recorder::make(trace_kind kind, std::uint64_t t, int device,
                                  std::uint64_t address, bytes size,
                                  std::optional<std::uint32_t> stream, std::string_view api) const {
  return trace_record{t, device, pid_, rank_, kind, address, size, stream, api};
}

trace_recorder::extent trace_recorder::take(std::unordered_map<std::uint64_t, extent>& map,
                                            std::uint64_t key) {
  auto it = map.find(key);
  if (it == map.end()) return {};
  const extent e = it->second;
  map.erase(it);
  return e;
}

std::optional<trace_record> trace_recorder::on_memory_activity(const memory_activity& a) {
  const bool device_memory = a.memory_kind == kind_device || a.memory_kind == kind_array ||
                             a.memory_kind == kind_device_static;
  if (!device_memory || a.is_async ||
      (a.operation != operation_allocation && a.operation != operation_release)) {
    ++skipped_;
    return std::nullopt;
  }
  const auto device = static_cast<int>(a.device_id);
  const auto stream = a.has_stream ? std::optional<std::uint32_t>(a.stream_id) : std::nullopt;
  if (a.operation == operation_allocation) {
    allocations_[a.address] = {a.bytes, device};
    return make(trace_kind::alloc, a.timestamp_ns, device, a.address, a.bytes, stream, "memory2");
  }
  const extent e = take(allocations_, a.address);
  return make(trace_kind::free, a.timestamp_ns, device, a.address, a.bytes ? a.bytes : e.size,
              stream, "memory2");
}

trace_record trace_recorder::on_driver_call(const driver_call& c) {
  const auto t = c.timestamp_ns;
  switch (c.call) {
    case driver_call_kind::mem_create:
      handles_[c.handle] = {c.size, c.device};
      return make(trace_kind::alloc, t, c.device, 0, c.size, std::nullopt, "cuMemCreate");
    case driver_call_kind::mem_release: {
      const extent e = take(handles_, c.handle);
      return make(trace_kind::free, t, e.device, 0, e.size, std::nullopt, "cuMemRelease");
    }
    case driver_call_kind::mem_map: {
      auto it = handles_.find(c.handle);
      const int device = it != handles_.end() ? it->second.device : c.device;
      mappings_[c.address] = {c.size, device};
      return make(trace_kind::map, t, device, c.address, c.size, std::nullopt, "cuMemMap");
    }
    case driver_call_kind::mem_unmap: {
      const extent e = take(mappings_, c.address);
      return make(trace_kind::unmap, t, e.device, c.address, c.size ? c.size : e.size, std::nullopt,
                  "cuMemUnmap");
    }
    case driver_call_kind::mem_alloc_async:
      allocations_[c.address] = {c.size, c.device};
      return make(trace_kind::alloc, t, c.device, c.address, c.size, c.stream, "cuMemAllocAsync");
    case driver_call_kind::mem_free_async: {
      const extent e = take(allocations_, c.address);
      return make(trace_kind::free, t, e.device >= 0 ? e.device : c.device, c.address, e.size,
                  c.stream, "cuMemFreeAsync");
    }
  }
  return make(trace_kind::alloc, t, c.device, c.address, c.size, c.stream, "unknown");
}

void append_event_line(std::string& out, const trace_record& r) {
  out += "{\"type\":\"event\"";
  key(out, "timestamp");
  append_uint(out, r.timestamp_ns);
  key(out, "device");
  append_int(out, r.device);
  key(out, "pid");
  append_int(out, r.pid);
  optional_int(out, "rank", r.rank);
  key(out, "kind");
  append_string(out, trace_kind_name(r.kind));
  key(out, "address");
  append_hex(out, r.address);
  key(out, "bytes");
  append_uint(out, r.size);
  if (r.stream) {
    key(out, "stream");
    append_uint(out, *r.stream);
  }
  key(out, "api");
  append_string(out, r.api);
  out += "}\n";
}

void append_device_line(std::string& out, int device, std::string_view uuid, std::string_view name,
                        bytes total) {
  out += "{\"type\":\"device\"";
  key(out, "device");
  append_int(out, device);
  key(out, "uuid");
  append_string(out, uuid);
  key(out, "name");
  append_string(out, name);
  key(out, "total");
  append_uint(out, total);
  out += "}\n";
}

void append_header_line(std::string& out, const trace_header& h) {
  out += "{\"type\":\"header\",\"version\":1";
  key(out, "pid");
  append_int(out, h.pid);
  optional_int(out, "rank", h.rank);
  optional_int(out, "local_rank", h.local_rank);
  optional_int(out, "world_size", h.world_size);
  if (h.cuda_visible_devices) {
    key(out, "cuda_visible_devices");
    append_string(out, *h.cuda_visible_devices);
  }
  if (!h.host.empty()) {
    key(out, "host");
    append_string(out, h.host);
  }
  key(out, "status");
  append_string(out, h.status);
  key(out, "message");
  append_string(out, h.message);
  out += "}\n";
}

void append_dropped_line(std::string& out, std::uint64_t count) {
  out += "{\"type\":\"dropped\"";
  key(out, "count");
  append_uint(out, count);
  out += "}\n";
}

trace_header header_from_environment(std::int64_t pid) {
  trace_header h;
  h.pid = pid;
  h.rank = env_int("RANK");
  h.local_rank = env_int("LOCAL_RANK");
  h.world_size = env_int("WORLD_SIZE");
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) h.cuda_visible_devices = v;
  h.host = host_name();
  return h;
}

std::string host_name() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return {};
  return host;
}

std::string format_gpu_uuid(const unsigned char (&b)[16]) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += hex[b[i] >> 4];
    out += hex[b[i] & 15];
  }
  return out;
}

}  // namespace vramscope::trace
