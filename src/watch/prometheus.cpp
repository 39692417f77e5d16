#include <vramscope/watch/prometheus.hpp>

#include <fmt/format.h>

#include <charconv>
#include <vector>

namespace vramscope::watch {

namespace {

using labels = std::vector<std::pair<std::string, std::string>>;

// One metric family: HELP and TYPE, then all of its samples together (the format requires
// that the lines of one name form one group).
struct family {
  family(std::string_view n, std::string_view t, std::string_view h) : name(n), type(t), help(h) {}

  std::string_view name;
  std::string_view type;
  std::string_view help;
  std::string lines;

  void add(const labels& l, const std::string& value) {
    lines += name;
    std::string set;
    for (const auto& [k, v] : l) {
      if (v.empty()) continue;  // an empty label value equals an absent label
      set += fmt::format("{}{}=\"{}\"", set.empty() ? "" : ",", k, escape_label_value(v));
    }
    if (!set.empty()) lines += "{" + set + "}";
    lines += " " + value + "\n";
  }
  void add(const labels& l, std::optional<bytes> value) {
    if (value) add(l, std::to_string(*value));
  }
  void add_ratio(const labels& l, std::optional<int> percent) {
    if (percent) add(l, fmt::format("{}", *percent / 100.0));
  }
  void render(std::string& out) const {
    if (lines.empty()) return;
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
    out += lines;
  }
};

struct families {
  family total{"vramscope_gpu_memory_total_bytes", "gauge", "Framebuffer memory of the GPU."};
  family used{"vramscope_gpu_memory_used_bytes", "gauge",
              "Memory in use on the GPU (all processes and the driver's allocations)."};
  family free{"vramscope_gpu_memory_free_bytes", "gauge", "Free memory on the GPU."};
  family reserved{"vramscope_gpu_memory_reserved_bytes", "gauge",
                  "Memory the driver reserves for itself (newer drivers only)."};
  family gpu_window{"vramscope_gpu_memory_window_peak_bytes", "gauge",
                    "Highest used memory sampled since the previous refresh."};
  family gpu_peak{"vramscope_gpu_memory_peak_bytes", "gauge",
                  "Highest used memory sampled since vramscope watch started."};
  family util{"vramscope_gpu_utilization_ratio", "gauge",
              "Fraction of the last sample period in which a kernel ran."};
  family activity{"vramscope_gpu_memory_activity_ratio", "gauge",
                  "Fraction of the last sample period in which memory was read or written."};
  family lost{"vramscope_gpu_lost", "gauge", "1 when the driver reports the GPU lost."};
  family proc_used{"vramscope_process_memory_used_bytes", "gauge",
                   "GPU memory a process holds on one GPU."};
  family proc_window{"vramscope_process_memory_window_peak_bytes", "gauge",
                     "Highest memory of the process on the GPU since the previous refresh."};
  family proc_peak{"vramscope_process_memory_peak_bytes", "gauge",
                   "Highest memory of the process on the GPU since vramscope watch started."};
  family alerts{"vramscope_alert_active", "gauge",
                "1 while the named alert holds on the GPU, else 0; see docs/watch.md."};
  family samples{"vramscope_samples_total", "counter", "Samples read since the start."};
  family stamp{"vramscope_last_sample_timestamp_seconds", "gauge",
               "Unix time of the latest sample."};
  // watch --stats DIR: each rank's torch.cuda.memory_stats()
  family torch_allocated{"vramscope_torch_allocated_bytes", "gauge",
                         "Bytes of live tensors in the rank's caching allocator."};
  family torch_active{"vramscope_torch_active_bytes", "gauge",
                      "Allocated bytes plus freed blocks still waiting on a stream."};
  family torch_reserved{"vramscope_torch_reserved_bytes", "gauge",
                        "Bytes the rank's caching allocator holds from the driver."};
  family torch_allocated_peak{"vramscope_torch_allocated_peak_bytes", "gauge",
                              "Highest allocated bytes since the rank started or reset its peaks."};
  family torch_reserved_peak{"vramscope_torch_reserved_peak_bytes", "gauge",
                             "Highest reserved bytes since the rank started or reset its peaks."};
  family torch_retries{"vramscope_torch_alloc_retries_total", "counter",
                       "cudaMalloc failures the allocator answered by freeing its cache and retrying."};
  family torch_ooms{"vramscope_torch_ooms_total", "counter",
                    "Out-of-memory errors the rank's allocator raised."};
  family torch_age{"vramscope_torch_stats_age_seconds", "gauge",
                   "Seconds since the rank last wrote its memory_stats file."};
  family torch_skipped{"vramscope_torch_stats_files_skipped", "gauge",
                       "memory_stats files in the folder that could not be read at this refresh."};
};

// dcgm-exporter's names for the same facts go after ours: Hostname, UUID, modelName.
labels gpu_labels(const observe::gpu_observation& g, const std::string& host) {
  return {{"gpu", std::to_string(g.index.value_or(-1))},
          {"uuid", g.uuid},
          {"pci_bus_id", g.bus_id},
          {"model_name", g.name},
          {"Hostname", host},
          {"UUID", g.uuid},
          {"modelName", g.name}};
}

std::string opt_int(const std::optional<int>& v) { return v ? std::to_string(*v) : std::string(); }

std::string comm_of(const std::string& name) {
  const auto slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

labels process_labels(const process_reading& p, const std::string& host) {
  return {{"gpu", opt_int(p.process.gpu_index)},  {"uuid", p.process.gpu_uuid},
          {"pid", std::to_string(p.process.pid)}, {"comm", comm_of(p.process.name)},
          {"rank", opt_int(p.details.rank)},      {"local_rank", opt_int(p.details.local_rank)},
          {"Hostname", host},                     {"UUID", p.process.gpu_uuid}};
}

void add_gpu(families& m, const gpu_reading& g, const peak_tracker& peaks, const std::string& host) {
  const auto l = gpu_labels(g.gpu, host);
  m.lost.add(l, std::string(g.lost ? "1" : "0"));
  if (g.lost) return;
  m.total.add(l, g.gpu.total);
  m.used.add(l, g.gpu.used);
  m.free.add(l, g.gpu.free);
  m.reserved.add(l, g.gpu.reserved);
  m.gpu_window.add(l, g.peak_used);
  m.gpu_peak.add(l, peaks.gpu_peak(g));
  m.util.add_ratio(l, g.gpu.utilization_gpu);
  m.activity.add_ratio(l, g.gpu.utilization_memory);
}

void add_alerts(families& m, const frame& f, const std::string& host) {
  for (const auto& g : f.now.gpus) {
    if (!g.gpu.index) continue;
    for (auto kind : all_alert_kinds()) {
      bool active = false;
      for (const auto& a : f.alerts) active = active || (a.kind == kind && a.gpu == *g.gpu.index);
      m.alerts.add({{"alert", std::string(alert_id(kind))},
                    {"gpu", std::to_string(*g.gpu.index)},
                    {"Hostname", host}},
                   std::string(active ? "1" : "0"));
    }
  }
}

void add_ranks(families& m, const stats_folder& folder, const std::string& host) {
  for (const auto& r : folder.ranks) {
    const labels l{{"rank", opt_int(r.stats.rank)}, {"file", r.file}, {"Hostname", host}};
    const auto& s = r.stats;
    m.torch_allocated.add(l, s.allocated.current);
    m.torch_active.add(l, s.active.current);
    m.torch_reserved.add(l, s.reserved.current);
    m.torch_allocated_peak.add(l, s.allocated.peak);
    m.torch_reserved_peak.add(l, s.reserved.peak);
    m.torch_retries.add(l, s.num_alloc_retries);
    m.torch_ooms.add(l, s.num_ooms);
    m.torch_age.add(l, fmt::format("{:.3f}", r.age_seconds));
  }
  m.torch_skipped.add({{"Hostname", host}}, std::to_string(folder.skipped));
}

}  // namespace

namespace {

// The length of the well-formed UTF-8 sequence at the start of `s` (RFC 3629: no overlong forms,
// no surrogates, nothing past U+10FFFF), 0 when it is not one.
std::size_t utf8_sequence(std::string_view s) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = byte(0);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) low = 0xA0;
    if (c == 0xED) high = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) low = 0x90;
    if (c == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (s.size() < n || byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < n; ++i)
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  return n;
}

}  // namespace

std::string escape_label_value(const std::string& value) {
  std::string out;
  out.reserve(value.size());
  for (std::size_t i = 0; i < value.size();) {
    const char c = value[i];
    const std::size_t n = utf8_sequence(std::string_view(value).substr(i));
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else if (n == 0)  // not UTF-8 (a name cut mid-character): U+FFFD, as decoders do
      out += "\xEF\xBF\xBD";
    else
      out.append(value, i, n);
    i += n == 0 ? 1 : n;
  }
  return out;
}

std::string render_prometheus(const frame& f, const peak_tracker& peaks,
                              const exposition_extras& extras) {
  families m;
  const std::string& host = extras.hostname;
  for (const auto& g : f.now.gpus) add_gpu(m, g, peaks, host);
  for (const auto& p : f.now.processes) {
    const auto l = process_labels(p, host);
    m.proc_used.add(l, p.process.used);
    m.proc_window.add(l, p.peak_used);
    m.proc_peak.add(l, peaks.process_peak(p));
  }
  add_alerts(m, f, host);
  if (extras.ranks) add_ranks(m, *extras.ranks, host);
  m.samples.add({}, std::to_string(peaks.samples()));
  m.stamp.add({}, fmt::format("{:.3f}", static_cast<double>(f.now.time_ms) / 1000.0));
  std::string out;
  for (const family* x :
       {&m.total, &m.used, &m.free, &m.reserved, &m.gpu_window, &m.gpu_peak, &m.util, &m.activity,
        &m.lost, &m.proc_used, &m.proc_window, &m.proc_peak, &m.alerts, &m.torch_allocated,
        &m.torch_active, &m.torch_reserved, &m.torch_allocated_peak, &m.torch_reserved_peak,
        &m.torch_retries, &m.torch_ooms, &m.torch_age, &m.torch_skipped, &m.samples, &m.stamp})
    x->render(out);
  return out;
}

result<std::pair<std::string, int>> parse_listen_address(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos)
    return error_at("--prometheus",
                    fmt::format("expected HOST:PORT such as 127.0.0.1:9400, got \"{}\"", address));
  std::string host = address.substr(0, colon);
  const std::string port_text = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  int port = -1;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || end != port_text.data() + port_text.size() || port < 0 || port > 65535)
    return error_at("--prometheus",
                    fmt::format("expected a port from 0 to 65535, got \"{}\"", port_text));
  return std::pair{host, port};
}

}  // namespace vramscope::watch
