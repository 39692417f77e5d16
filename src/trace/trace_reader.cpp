#include <vramscope/trace/trace_reader.hpp>

#include <vramscope/core/io.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

namespace vramscope::trace {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct timed {
  std::uint64_t t = 0;
  std::int64_t delta = 0;  // events: +size / -size; samples: the sampled bytes
};

struct device_info {
  std::string uuid, name;
  std::optional<bytes> total;
};

// Everything read from one file, before its device ordinals are resolved to GPUs.
struct file_info {
  std::string host;
  std::int64_t pid = 0;
  std::optional<int> rank;
  std::optional<std::string> visible_devices;
  std::map<int, device_info> devices;
  std::map<int, std::vector<timed>> events;  // by CUDA ordinal
  std::map<int, std::uint64_t> counts;       // events of any kind, by ordinal
  std::map<std::pair<std::string, int>, std::vector<timed>> samples;  // (uuid, index)
};

struct gpu_acc {
  trace_gpu_peak peak;
  std::vector<timed> events;
  std::map<std::uint64_t, bytes> sample_sums;  // timestamp -> bytes of all processes
};

std::optional<int> opt_int(const json& o, const char* key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int>();
}

// A field that is present but not what the format says; the line is skipped with a warning.
struct bad_field : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An integer field, `fallback` when absent. Anything else throws bad_field, a number too long
// for 64 bits included: nlohmann keeps that as a double, and its value() would convert it with
// a static_cast, undefined behaviour when out of range.
template <typename T>
T integer_or(const json& o, const char* key, T fallback) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return fallback;
  if (!it->is_number_integer())
    throw bad_field(std::string(key) + ": expected an integer, got " + it->dump().substr(0, 40));
  return it->get<T>();
}

// A size as the running sums take it. No GPU holds a petabyte: a larger one is a damaged line,
// skipped like other bad fields, so that sums of real sizes stay far inside 64 bits.
constexpr bytes largest_size = bytes{1} << 50;

std::int64_t signed_size(bytes b, const char* key) {
  if (b > largest_size)
    throw bad_field(std::string(key) + ": " + std::to_string(b) +
                    " is more than any GPU holds (at most 2^50 bytes)");
  return static_cast<std::int64_t>(b);
}

void read_line(const json& o, file_info& f, trace_summary& s) {
  const std::string type = o.value("type", "");
  if (type == "header") {
    f.pid = integer_or(o, "pid", f.pid);
    f.rank = opt_int(o, "rank");
    if (o.contains("host")) f.host = o.value("host", f.host);
    if (o.contains("cuda_visible_devices")) f.visible_devices = o.value("cuda_visible_devices", "");
    if (o.value("status", "ok") != "ok") {
      s.untraced_pids.push_back(f.pid);
      s.untraced_messages.push_back(o.value("message", o.value("status", "")));
    }
  } else if (type == "device") {
    f.devices[integer_or(o, "device", -1)] = {
        o.value("uuid", ""), o.value("name", ""),
        o.contains("total") ? std::optional<bytes>(integer_or(o, "total", bytes{0})) : std::nullopt};
  } else if (type == "event") {
    ++s.events;
    f.pid = integer_or(o, "pid", f.pid);
    if (!f.rank) f.rank = opt_int(o, "rank");
    const int device = integer_or(o, "device", -1);
    ++f.counts[device];
    const std::string kind = o.value("kind", "");
    const auto size = signed_size(integer_or(o, "bytes", bytes{0}), "bytes");
    if (kind == "alloc" || kind == "free")
      f.events[device].push_back(
          {integer_or(o, "timestamp", std::uint64_t{0}), kind == "alloc" ? size : -size});
  } else if (type == "sample") {
    ++s.samples;
    f.pid = integer_or(o, "pid", f.pid);
    if (!f.rank) f.rank = opt_int(o, "rank");
    if (f.host.empty()) f.host = o.value("host", "");
    f.samples[{o.value("uuid", ""), integer_or(o, "gpu", -1)}].push_back(
        {integer_or(o, "timestamp", std::uint64_t{0}),
         signed_size(integer_or(o, "bytes", bytes{0}), "bytes")});
  } else if (type == "dropped") {
    s.dropped += integer_or(o, "count", std::uint64_t{0});
  }
}

// The longest line read. vramscope trace writes lines of a few hundred bytes; a longer one is
// damage (or a file that is not a trace), skipped without holding it: the reader keeps at most
// this much of a file in memory, whatever the file's size.
constexpr std::size_t max_trace_line = std::size_t{1} << 20;

void read_row(std::string_view row, bool last, int line, const fs::path& path, file_info& f,
              trace_summary& s) {
  const json o = json::parse(row, nullptr, false);
  if (o.is_discarded() || !o.is_object()) {
    s.warnings.push_back(error_at(path.string(),
                                  last ? "partial last line skipped (the process ended while "
                                         "writing)"
                                       : "line skipped: not a JSON object",
                                  line));
    return;
  }
  try {
    read_line(o, f, s);
  } catch (const json::exception& e) {  // a field of the wrong type
    s.warnings.push_back(error_at(path.string(), std::string("line skipped: ") + e.what(), line));
  } catch (const bad_field& e) {
    s.warnings.push_back(error_at(path.string(), std::string("line skipped: ") + e.what(), line));
  }
}

// Reads the file in blocks, one line at a time: memory stays within max_trace_line and a block.
status read_file_lines(const fs::path& path, file_info& f, trace_summary& s) {
  if (auto size = file_size(path.string()); !size) return size.error();
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (in == nullptr)
    return error_at(path.string(), fmt::format("cannot open: {}", std::strerror(errno)));
  std::string row;
  bool too_long = false;
  int line = 1;
  std::vector<char> block(std::size_t{1} << 16);
  const auto finish = [&](bool last) {
    if (too_long)
      s.warnings.push_back(error_at(
          path.string(),
          fmt::format("line skipped: longer than {}, and no trace line is",
                      format_bytes(max_trace_line)),
          line));
    else if (!row.empty())
      read_row(row, last, line, path, f, s);
    row.clear();
    too_long = false;
    ++line;
  };
  for (;;) {
    const std::size_t n = std::fread(block.data(), 1, block.size(), in);
    for (std::size_t i = 0; i < n;) {
      const char* nl = static_cast<const char*>(std::memchr(block.data() + i, '\n', n - i));
      const std::size_t take = (nl ? static_cast<std::size_t>(nl - block.data()) : n) - i;
      if (!too_long && row.size() + take > max_trace_line) {
        too_long = true;
        std::string().swap(row);
      }
      if (!too_long) row.append(block.data() + i, take);
      i += take;
      if (nl) {
        finish(false);
        ++i;
      }
    }
    if (n < block.size()) break;
  }
  const bool failed = std::ferror(in) != 0;
  std::fclose(in);
  if (failed) return error_at(path.string(), "read failed");
  if (!row.empty() || too_long) finish(true);
  return ok();
}

// A GPU known only by its index: the index is per machine.
std::string index_key(const std::string& host, int index) {
  return host + "#" + std::to_string(index);
}

// The GPU an ordinal of this process ran on: its UUID from a device line, else through
// CUDA_VISIBLE_DEVICES, else the ordinal itself as a physical index. The physical index is
// filled whenever it can be known (a numeric CUDA_VISIBLE_DEVICES entry, or none set), so GPUs
// keyed by UUID still carry their nvidia-smi index.
std::string resolve_gpu(int ordinal, const file_info& f, std::optional<int>& index) {
  std::string entry;
  if (f.visible_devices && ordinal >= 0) {
    std::vector<std::string> entries;
    for (std::size_t b = 0; b <= f.visible_devices->size();) {
      const auto e = std::min(f.visible_devices->find(',', b), f.visible_devices->size());
      entries.push_back(f.visible_devices->substr(b, e - b));
      b = e + 1;
    }
    if (static_cast<std::size_t>(ordinal) < entries.size()) entry = entries[static_cast<std::size_t>(ordinal)];
  }
  const bool numeric = !entry.empty() && entry.size() < 6 &&
                       entry.find_first_not_of("0123456789") == std::string::npos;
  if (numeric) index = std::stoi(entry);
  else if (!f.visible_devices && ordinal >= 0) index = ordinal;
  if (auto it = f.devices.find(ordinal); it != f.devices.end() && !it->second.uuid.empty())
    return it->second.uuid;
  if (entry.starts_with("GPU-") || entry.starts_with("MIG-")) return entry;
  return index_key(f.host, index.value_or(ordinal));
}

// Peak of a running sum over events sorted by time.
std::pair<bytes, std::uint64_t> replay(std::vector<timed> events, bytes* final_live = nullptr) {
  std::stable_sort(events.begin(), events.end(), [](auto& a, auto& b) { return a.t < b.t; });
  std::int64_t live = 0, peak = 0;
  std::uint64_t when = 0;
  for (const auto& e : events) {
    // Sizes are at most 2^50 (signed_size), but a file may hold any number of them.
    if (__builtin_add_overflow(live, e.delta, &live)) live = e.delta > 0 ? INT64_MAX : INT64_MIN;
    if (live > peak) {
      peak = live;
      when = e.t;
    }
  }
  if (final_live) *final_live = static_cast<bytes>(std::max<std::int64_t>(live, 0));
  return {static_cast<bytes>(peak), when};
}

void merge_file(const file_info& f, std::map<std::string, gpu_acc>& gpus) {
  for (const auto& [ordinal, count] : f.counts) {
    std::optional<int> index;
    const std::string key = resolve_gpu(ordinal, f, index);
    auto& g = gpus[key];
    g.peak.gpu = key;
    g.peak.host = f.host;
    if (index) g.peak.index = index;
    if (auto it = f.devices.find(ordinal); it != f.devices.end()) {
      g.peak.name = it->second.name;
      g.peak.total = it->second.total;
    }
    trace_process_peak p{f.host, f.pid, f.rank, key, 0, 0, count, false};
    auto it = f.events.find(ordinal);
    if (it != f.events.end()) {
      p.peak = replay(it->second, &p.final_live).first;
      g.events.insert(g.events.end(), it->second.begin(), it->second.end());
    }
    g.peak.processes.push_back(p);
  }
  for (const auto& [where, samples] : f.samples) {
    const std::string key = !where.first.empty() ? where.first : index_key(f.host, where.second);
    auto& g = gpus[key];
    g.peak.gpu = key;
    g.peak.host = f.host;
    if (where.second >= 0) g.peak.index = where.second;
    trace_process_peak p{f.host, f.pid, f.rank, key, 0, 0, samples.size(), true};
    for (const auto& s : samples) {
      p.peak = std::max(p.peak, static_cast<bytes>(s.delta));
      bytes& sum = g.sample_sums[s.t];
      if (__builtin_add_overflow(sum, static_cast<bytes>(s.delta), &sum)) sum = UINT64_MAX;
    }
    p.final_live = samples.empty() ? 0 : static_cast<bytes>(samples.back().delta);
    g.peak.processes.push_back(p);
  }
}

}  // namespace

result<trace_summary> read_trace_folder(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return error_at(dir, "not a folder (expected the --out folder of vramscope trace)");
  std::vector<fs::path> files, special;
  // Subfolders too (one per node); links to folders are not followed, so no cycle.
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if ((name.starts_with("trace-") || name.starts_with("sample-")) && name.ends_with(".jsonl")) {
      if (it->is_regular_file(ec))
        files.push_back(it->path());
      else if (!it->is_directory(ec))  // a pipe or device named like a trace: never opened
        special.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end());
  trace_summary s;
  if (ec) s.warnings.push_back(error_at(dir, "not every subfolder could be read: " + ec.message()));
  std::sort(special.begin(), special.end());
  for (const auto& path : special)
    s.warnings.push_back(error_at(path.string(), "skipped: not a regular file (a pipe, device or "
                                                 "socket named like a trace file)"));
  std::map<std::string, gpu_acc> gpus;
  std::set<std::string> hosts;
  for (const auto& path : files) {
    file_info f;
    if (auto st = read_file_lines(path, f, s); !st) {
      s.warnings.push_back(st.error());
      continue;
    }
    if (f.host.empty()) {  // an older file: the node's subfolder names the machine
      const auto parent = path.parent_path().lexically_relative(dir);
      if (!parent.empty() && parent != ".") f.host = parent.begin()->string();
    }
    ++s.files;
    if (!f.host.empty()) hosts.insert(f.host);
    merge_file(f, gpus);
  }
  s.hosts.assign(hosts.begin(), hosts.end());
  for (auto& [key, g] : gpus) {
    if (s.hosts.size() <= 1) {  // one machine: GPUs known by index are named as nvidia-smi does
      const auto hash = g.peak.gpu.find('#');
      if (hash != std::string::npos) g.peak.gpu.erase(0, hash);
      for (auto& p : g.peak.processes) p.gpu = g.peak.gpu;
    }
    std::tie(g.peak.peak, g.peak.peak_timestamp_ns) = replay(std::move(g.events));
    for (const auto& [t, sum] : g.sample_sums)
      if (sum > g.peak.peak) {
        g.peak.peak = sum;
        g.peak.peak_timestamp_ns = t;
      }
    std::stable_sort(g.peak.processes.begin(), g.peak.processes.end(),
                     [](const auto& a, const auto& b) { return a.peak > b.peak; });
    s.gpus.push_back(std::move(g.peak));
  }
  return s;
}

observe::observation to_observation(const trace_summary& summary) {
  observe::observation o;
  // Hosts only where they tell machines apart, so one machine's trace reads like its nvidia-smi.
  const bool many = summary.hosts.size() > 1;
  for (const auto& g : summary.gpus) {
    observe::gpu_observation gpu;
    if (many) gpu.host = g.host;
    gpu.index = g.index;
    gpu.name = g.name;
    if (g.gpu.find('#') == std::string::npos) gpu.uuid = g.gpu;
    gpu.total = g.total;
    gpu.used = g.peak;
    o.gpus.push_back(gpu);
    for (const auto& p : g.processes) {
      observe::process_observation proc;
      proc.gpu_index = g.index;
      if (many) proc.host = p.host;
      proc.gpu_uuid = gpu.uuid;
      proc.pid = p.pid;
      proc.used = p.peak;
      proc.type = "C";
      o.processes.push_back(proc);
    }
  }
  o.warnings = summary.warnings;
  return o;
}

}  // namespace vramscope::trace
