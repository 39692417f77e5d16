#include <vramscope/watch/sample_json.hpp>

#include <fmt/format.h>

#include <vramscope/observe/observe_json.hpp>

#include <limits>

namespace vramscope::watch {

using nlohmann::json;

namespace {

// ---- writing ----

template <typename T>
void put(json& o, const char* key, const std::optional<T>& v) {
  if (v) o[key] = *v;
}

void put(json& o, const char* key, const std::string& v) {
  if (!v.empty()) o[key] = v;
}

// A GPU and a process are written in observe's JSON form of them (observe::to_json), plus what
// only watch knows.
json gpu_json(const gpu_reading& g) {
  json o = observe::to_json(g.gpu);
  put(o, "peak_used", g.peak_used);
  if (g.lost) o["lost"] = true;
  return o;
}

json process_json(const process_reading& p) {
  json o = observe::to_json(p.process);
  put(o, "peak_used", p.peak_used);
  put(o, "rank", p.details.rank);
  put(o, "local_rank", p.details.local_rank);
  put(o, "world_size", p.details.world_size);
  put(o, "cuda_visible_devices", p.details.cuda_visible_devices);
  put(o, "framework", p.details.framework);
  put(o, "xla_mem_fraction", p.details.xla_mem_fraction);
  return o;
}

// ---- reading ----

struct line_ctx {
  const std::string& source;
  int line;
  std::string_view text;
};

// Reads fields of one JSON object, remembering the first type error.
class object_reader {
 public:
  object_reader(const json& o, std::string path, const line_ctx& c)
      : o_(o), path_(std::move(path)), c_(c) {}

  [[nodiscard]] status done() const { return error_ ? status(*error_) : ok(); }

  void size(const char* key, std::optional<bytes>& out) {
    if (const json* v = find(key, "a non-negative integer", &json::is_number_unsigned))
      out = v->get<bytes>();
  }
  void integer(const char* key, std::optional<int>& out) {
    const json* v = find(key, "an integer", &json::is_number_integer);
    if (!v) return;
    const auto n = v->get<std::int64_t>();
    if (n < std::numeric_limits<int>::min() || n > std::numeric_limits<int>::max())
      return fail(key, "an integer");
    out = static_cast<int>(n);
  }
  void integer64(const char* key, std::int64_t& out) {
    if (const json* v = find(key, "an integer", &json::is_number_integer))
      out = v->get<std::int64_t>();
  }
  void number(const char* key, std::optional<double>& out) {
    if (const json* v = find(key, "a number", &json::is_number)) out = v->get<double>();
  }
  void text(const char* key, std::string& out) {
    if (const json* v = find(key, "a string", &json::is_string)) out = v->get<std::string>();
  }
  void text(const char* key, std::optional<std::string>& out) {
    if (const json* v = find(key, "a string", &json::is_string)) out = v->get<std::string>();
  }
  void flag(const char* key, bool& out) {
    if (const json* v = find(key, "true or false", &json::is_boolean)) out = v->get<bool>();
  }
  void require(const char* key) {
    if (!error_ && !o_.contains(key)) fail(key, "a value (the field is required)");
  }

 private:
  const json* find(const char* key, std::string_view expected, bool (json::*is)() const noexcept) {
    if (error_) return nullptr;
    auto it = o_.find(key);
    if (it == o_.end() || it->is_null()) return nullptr;
    if (!((*it).*is)()) {
      fail(key, expected);
      return nullptr;
    }
    return &*it;
  }
  void fail(const char* key, std::string_view expected) {
    error_ = error_at(c_.source, fmt::format("{}.{}: expected {}", path_, key, expected), c_.line);
  }

  const json& o_;
  std::string path_;
  const line_ctx& c_;
  std::optional<diagnostic> error_;
};

status read_gpu(const json& o, const std::string& path, const line_ctx& c, gpu_reading& g) {
  object_reader r(o, path, c);
  r.require("index");
  r.integer("index", g.gpu.index);
  r.text("name", g.gpu.name);
  r.text("uuid", g.gpu.uuid);
  r.text("bus_id", g.gpu.bus_id);
  r.size("total", g.gpu.total);
  r.size("used", g.gpu.used);
  r.size("free", g.gpu.free);
  r.size("reserved", g.gpu.reserved);
  r.integer("utilization_gpu", g.gpu.utilization_gpu);
  r.integer("utilization_memory", g.gpu.utilization_memory);
  // Logs written before the names matched explain --json's.
  r.integer("util_gpu", g.gpu.utilization_gpu);
  r.integer("util_memory", g.gpu.utilization_memory);
  r.size("peak_used", g.peak_used);
  r.flag("lost", g.lost);
  return r.done();
}

status read_process(const json& o, const std::string& path, const line_ctx& c, process_reading& p) {
  object_reader r(o, path, c);
  r.require("pid");
  r.integer64("pid", p.process.pid);
  r.integer("gpu_index", p.process.gpu_index);
  r.integer("gpu", p.process.gpu_index);  // the name before it matched explain --json's
  r.text("gpu_uuid", p.process.gpu_uuid);
  r.text("gpu_bus_id", p.process.gpu_bus_id);
  r.text("name", p.process.name);
  r.text("type", p.process.type);
  r.size("used", p.process.used);
  r.size("peak_used", p.peak_used);
  r.integer("gpu_instance", p.process.gpu_instance);
  r.integer("compute_instance", p.process.compute_instance);
  r.integer("rank", p.details.rank);
  r.integer("local_rank", p.details.local_rank);
  r.integer("world_size", p.details.world_size);
  r.text("cuda_visible_devices", p.details.cuda_visible_devices);
  r.text("framework", p.details.framework);
  r.number("xla_mem_fraction", p.details.xla_mem_fraction);
  return r.done();
}

template <typename T, typename Read>
status read_array(const json& top, const char* key, const line_ctx& c, std::vector<T>& out,
                  Read read) {
  auto it = top.find(key);
  if (it == top.end()) return ok();
  if (!it->is_array()) return error_at(c.source, fmt::format("{}: expected an array", key), c.line);
  for (std::size_t i = 0; i < it->size(); ++i) {
    const std::string path = fmt::format("{}[{}]", key, i);
    if (!(*it)[i].is_object()) return error_at(c.source, path + ": expected an object", c.line);
    T item;
    if (auto st = read((*it)[i], path, c, item); !st) return st.error();
    out.push_back(std::move(item));
  }
  return ok();
}

std::string excerpt(std::string_view text) {
  return std::string(text.substr(0, 160)) + (text.size() > 160 ? "..." : "");
}

}  // namespace

json to_json(const sample& s, std::span<const alert> alerts, std::string_view source) {
  json o = json::object();
  o["time_ms"] = s.time_ms;
  if (!source.empty()) o["source"] = source;
  o["gpus"] = json::array();
  for (const auto& g : s.gpus) o["gpus"].push_back(gpu_json(g));
  o["processes"] = json::array();
  for (const auto& p : s.processes) o["processes"].push_back(process_json(p));
  o["alerts"] = json::array();
  for (const auto& a : alerts)
    o["alerts"].push_back(
        {{"id", alert_id(a.kind)}, {"gpu", a.gpu}, {"pids", a.pids}, {"message", a.message}});
  if (!s.warnings.empty()) {
    o["warnings"] = json::array();
    for (const auto& w : s.warnings) o["warnings"].push_back(w.to_string());
  }
  return o;
}

std::string to_json_line(const sample& s, std::span<const alert> alerts, std::string_view source) {
  return to_json(s, alerts, source).dump(-1, ' ', false, json::error_handler_t::replace);
}

result<sample> sample_from_json_line(std::string_view text, const std::string& source, int line) {
  const line_ctx c{source, line, text};
  json top;
  try {
    top = json::parse(text);
  } catch (const json::parse_error& e) {
    const auto column = static_cast<int>(std::min<std::size_t>(e.byte, 160));
    return error_at(source, "not a JSON sample: " + std::string(e.what()), line, column,
                    excerpt(text));
  }
  if (!top.is_object())
    return error_at(source, "expected a JSON object per line", line, 1, excerpt(text));
  sample s;
  if (auto it = top.find("time_ms"); it != top.end()) {
    if (!it->is_number_integer()) return error_at(source, "time_ms: expected an integer", line);
    s.time_ms = it->get<std::int64_t>();
  }
  if (!top.contains("gpus"))
    return error_at(source, "gpus: expected an array (the field is required)", line);
  if (auto st = read_array(top, "gpus", c, s.gpus, read_gpu); !st) return st.error();
  if (auto st = read_array(top, "processes", c, s.processes, read_process); !st) return st.error();
  return s;
}

}  // namespace vramscope::watch
