// `nvidia-smi -q`, the plain-text query. Layout, the same from driver 369 (2016) to 610 (2026)
// on Linux and Windows: a "==============NVSMI LOG==============" banner, top-level
// "Key : Value" lines (Driver Version, CUDA Version, Attached GPUs), then one block per device
// opened by "GPU <bus id>" at column 1. Inside a block every level is indented four more spaces
// and a line without " : " opens a section ("FB Memory Usage", "Processes"). Read:
//   FB Memory Usage/{Total, Reserved, Used, Free} ("46068 MiB"; Reserved since driver 510),
//   Product Name, GPU UUID, Utilization/{Gpu, Memory}, and Processes, where each process is a
//   "Process ID" line with Type, Name and Used GPU Memory nested under it; MIG drivers print
//   "GPU instance ID" and "Compute instance ID" just before it. BAR1 and Conf Compute Protected
//   Memory sections have the same child names but are not device memory; MIG Devices repeat
//   FB Memory Usage one level deeper. Both are told apart by their path.
#include <vramscope/observe/nvidia_smi.hpp>

#include <fmt/format.h>

#include <initializer_list>

#include "observe/text_util.hpp"

namespace vramscope::observe {

namespace {

/// One line of the log: its indentation, key and value ("" for a section opener).
struct entry {
  detail::text_line line;
  std::size_t indent = 0;
  std::string_view key;
  std::string_view value;
  bool section = false;
};

entry split_entry(const detail::text_line& line) {
  entry e{line, 0, {}, {}, false};
  while (e.indent < line.text.size() && line.text[e.indent] == ' ') ++e.indent;
  const std::string_view body = detail::trim(line.text);
  const std::size_t colon = body.find(" :");
  if (colon == std::string_view::npos) {
    e.key = body;
    e.section = true;
    return e;
  }
  e.key = detail::trim(body.substr(0, colon));
  e.value = detail::trim(body.substr(colon + 2));
  return e;
}

std::string_view first_word(std::string_view v) { return v.substr(0, v.find(' ')); }

bool text_missing(std::string_view v) {
  return v.empty() || v == "N/A" || v.front() == '[' || detail::contains(v, "Not Supported") ||
         detail::contains(v, "Not available") || detail::contains(v, "Insufficient Permissions") ||
         detail::contains(v, "deprecated");
}

/// Reads the device blocks. `path` holds the keys of the sections enclosing the current line,
/// below the "GPU <bus id>" line; sections are closed by indentation.
class text_reader {
 public:
  text_reader(std::string_view text, const std::string& source) : text_(text), source_(source) {}

  result<observation> read() {
    for (const auto& line : detail::split_lines(text_)) {
      if (detail::trim(line.text).empty()) continue;
      auto st = take(split_entry(line));
      if (!st) return st.error();
    }
    if (auto st = close_gpu(); !st) return st.error();
    if (out_.gpus.empty()) out_.warnings.push_back(error_at(source_, "nvidia-smi -q lists no \"GPU <bus id>\" block"));
    return std::move(out_);
  }

 private:
  struct open_section {
    std::size_t indent;
    std::string_view key;
  };

  status take(const entry& e) {
    if (e.indent == 0) return top_level(e);
    if (!in_gpu_) return ok();
    while (!path_.empty() && path_.back().indent >= e.indent) path_.pop_back();
    if (e.section || e.key == "Process ID") path_.push_back({e.indent, e.key});
    return e.section ? ok() : device_value(e);
  }

  status top_level(const entry& e) {
    if (auto st = close_gpu(); !st) return st;
    path_.clear();
    // Driver 610 keeps "Driver Version : 610.62 [Deprecated; ...]" beside "KMD Version : 610.62".
    if (e.key == "Driver Version" || e.key == "KMD Version") out_.driver_version = std::string(first_word(e.value));
    if (e.key == "CUDA Version" || e.key == "CUDA UMD Version") out_.cuda_version = std::string(first_word(e.value));
    if (e.section && e.key.substr(0, 4) == "GPU ") {
      in_gpu_ = true;
      gpu_ = gpu_observation{};
      gpu_.index = static_cast<int>(out_.gpus.size());
      gpu_.bus_id = std::string(detail::trim(e.key.substr(4)));
      first_process_ = out_.processes.size();
    }
    return ok();
  }

  bool at(std::initializer_list<std::string_view> want) const {
    if (path_.size() != want.size()) return false;
    std::size_t i = 0;
    for (std::string_view w : want)
      if (path_[i++].key != w) return false;
    return true;
  }

  status device_value(const entry& e) {
    if (path_.empty()) {
      if (e.key == "Product Name") gpu_.name = std::string(e.value);
      if (e.key == "GPU UUID") gpu_.uuid = std::string(e.value);
      return ok();
    }
    if (at({"FB Memory Usage"})) return memory_value(e);
    if (at({"Utilization"})) return utilization_value(e);
    if (at({"Processes"}) || at({"Processes", "Process ID"})) return process_value(e);
    return ok();
  }

  result<std::optional<bytes>> size_of(const entry& e) const {
    if (text_missing(e.value)) return std::optional<bytes>{};
    if (auto b = detail::parse_size(e.value, 0)) return std::optional<bytes>{*b};
    return detail::error_on_line(source_, e.line, detail::column_of(e.line, e.value),
                                 fmt::format("{}: expected a size such as \"8188 MiB\", got {}", e.key,
                                             detail::quoted(e.value)));
  }

  status memory_value(const entry& e) {
    std::optional<bytes>* field = e.key == "Total"      ? &gpu_.total
                                  : e.key == "Reserved" ? &gpu_.reserved
                                  : e.key == "Used"     ? &gpu_.used
                                  : e.key == "Free"     ? &gpu_.free
                                                        : nullptr;
    if (field == nullptr) return ok();
    auto size = size_of(e);
    if (!size) return size.error();
    *field = *size;
    return ok();
  }

  status utilization_value(const entry& e) {
    std::optional<int>* field = e.key == "Gpu" ? &gpu_.utilization_gpu : e.key == "Memory" ? &gpu_.utilization_memory : nullptr;
    if (field == nullptr || text_missing(e.value)) return ok();
    std::string_view v = e.value;
    if (!v.empty() && v.back() == '%') v = detail::trim(v.substr(0, v.size() - 1));
    if (auto n = detail::parse_uint(v); n && *n <= 100) {
      *field = static_cast<int>(*n);
      return ok();
    }
    return detail::error_on_line(source_, e.line, detail::column_of(e.line, e.value),
                                 fmt::format("Utilization {}: expected a percentage such as \"30 %\", got {}",
                                             e.key, detail::quoted(e.value)));
  }

  static std::optional<int> small_int(std::string_view v) {
    if (auto n = detail::parse_uint(v); n && *n < 1'000'000) return static_cast<int>(*n);
    return std::nullopt;
  }

  status process_value(const entry& e) {
    if (e.key == "GPU instance ID") pending_gi_ = small_int(e.value);
    if (e.key == "Compute instance ID") pending_ci_ = small_int(e.value);
    if (e.key == "Process ID") return start_process(e);
    if (out_.processes.size() == first_process_) return ok();
    process_observation& p = out_.processes.back();
    if (e.key == "Type") p.type = std::string(e.value);
    if (e.key == "Name") p.name = std::string(e.value);
    if (e.key == "Used GPU Memory") {
      auto size = size_of(e);
      if (!size) return size.error();
      p.used = *size;
    }
    return ok();
  }

  status start_process(const entry& e) {
    const auto pid = detail::parse_uint(e.value);
    if (!pid || *pid > static_cast<std::uint64_t>(INT32_MAX))
      return detail::error_on_line(source_, e.line, detail::column_of(e.line, e.value),
                                   fmt::format("Process ID: expected a process id, got {}", detail::quoted(e.value)));
    process_observation p;
    p.gpu_index = gpu_.index;
    p.gpu_bus_id = gpu_.bus_id;
    p.pid = static_cast<std::int64_t>(*pid);
    p.gpu_instance = pending_gi_;
    p.compute_instance = pending_ci_;
    pending_gi_.reset();
    pending_ci_.reset();
    out_.processes.push_back(std::move(p));
    return ok();
  }

  status close_gpu() {
    if (!in_gpu_) return ok();
    in_gpu_ = false;
    out_.gpus.push_back(std::move(gpu_));
    return ok();
  }

  std::string_view text_;
  const std::string& source_;
  observation out_;
  bool in_gpu_ = false;
  gpu_observation gpu_;
  std::vector<open_section> path_;
  std::size_t first_process_ = 0;
  std::optional<int> pending_gi_;
  std::optional<int> pending_ci_;
};

}  // namespace

result<observation> parse_nvidia_smi_text(std::string_view text, const std::string& source) {
  if (detect_smi_format(text) != smi_format::text)
    return error_at(source, "expected the \"==============NVSMI LOG==============\" banner of nvidia-smi -q");
  return text_reader(text, source).read();
}

}  // namespace vramscope::observe
