// The default `nvidia-smi` table. Facts used (docs/formats/nvidia-smi.md, "The default table"):
// each GPU takes a row with "index name persistence | bus-id disp | ECC" followed by a row with
// "... | used MiB / total MiB | util% mode"; the process table lists "GPU [GI CI] PID Type name
// memory", names truncated from the left with "...", memory "N/A" on some systems (Windows WDDM,
// WSL); types C, G, C+G, M+C. Windows tables end the name cell with the driver model (WDDM, TCC,
// MCDM) instead of On/Off. The layout is not guaranteed stable, so cells are found by their
// content rather than by column positions.
#include <vramscope/observe/nvidia_smi.hpp>

#include <fmt/format.h>

#include <algorithm>

#include "observe/text_util.hpp"

namespace vramscope::observe {

namespace {

using detail::text_line;

std::vector<std::string_view> tokens_of(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

// Cells between the outer '|' borders of a table line; empty when the line is not a table row.
std::vector<std::string_view> table_cells(std::string_view line) {
  line = detail::trim(line);
  if (line.size() < 2 || line.front() != '|' || line.back() != '|') return {};
  return detail::split(line.substr(1, line.size() - 2), '|');
}

bool is_bus_id(std::string_view s) {
  if (std::count(s.begin(), s.end(), ':') != 2 || s.find('.') == std::string_view::npos) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
  });
}

bool is_process_type(std::string_view s) {
  return !s.empty() && s.size() <= 5 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c == 'C' || c == 'G' || c == 'M' || c == '+'; });
}

std::string_view value_after(std::string_view line, std::string_view label) {
  const std::size_t at = line.find(label);
  if (at == std::string_view::npos) return {};
  const auto toks = tokens_of(line.substr(at + label.size()));
  return toks.empty() ? std::string_view{} : toks.front();
}

bool is_gpu_row(const std::vector<std::string_view>& cells) {
  if (cells.size() < 2) return false;
  const auto first = tokens_of(cells[0]);
  const auto second = tokens_of(cells[1]);
  return first.size() >= 2 && detail::is_digits(first[0]) && !second.empty() && is_bus_id(second[0]);
}

gpu_observation gpu_from_row(const std::vector<std::string_view>& cells) {
  gpu_observation g;
  std::string_view head = detail::trim(cells[0]);
  const auto toks = tokens_of(head);
  g.index = static_cast<int>(detail::parse_uint(toks[0]).value_or(0));
  std::string_view name = detail::trim(head.substr(toks[0].size()));
  const auto rest = tokens_of(name);
  // The name column ends with Persistence-M (On/Off) on Linux and with the driver model on
  // Windows ("TCC/WDDM" or "Driver-Model" header: WDDM, TCC, MCDM).
  const auto mode = rest.empty() ? std::string_view{} : rest.back();
  if (rest.size() >= 2 && (mode == "On" || mode == "Off" || mode == "WDDM" || mode == "TCC" || mode == "MCDM"))
    name = detail::trim(name.substr(0, static_cast<std::size_t>(rest.back().data() - name.data())));
  g.name = std::string(name);
  g.bus_id = std::string(tokens_of(cells[1])[0]);
  return g;
}

// "| N/A 49C P0 24W / 75W |  7719MiB /   8192MiB |  6%  Default |"
status read_memory_row(const std::string& source, const text_line& line, gpu_observation& g) {
  const auto cells = table_cells(line.text);
  const std::string missing = fmt::format(
      "expected GPU {}'s memory row (\"used MiB / total MiB\") after its name row", g.index.value_or(0));
  if (cells.size() < 2) return detail::error_on_line(source, line, 0, missing);
  const auto parts = detail::split(cells[1], '/');
  if (parts.size() != 2) return detail::error_on_line(source, line, 0, missing);
  const auto used = detail::parse_size(parts[0], 0);
  const auto total = detail::parse_size(parts[1], 0);
  if (!used || !total)
    return detail::error_on_line(source, line, detail::column_of(line, detail::trim(parts[0])),
                                 fmt::format("expected \"used MiB / total MiB\", got {}",
                                             detail::quoted(detail::trim(cells[1]))));
  g.used = used;
  g.total = total;
  if (cells.size() >= 3) {
    const auto toks = tokens_of(cells[2]);
    if (!toks.empty() && toks[0].size() > 1 && toks[0].back() == '%')
      if (auto u = detail::parse_uint(toks[0].substr(0, toks[0].size() - 1)); u && *u <= 100)
        g.utilization_gpu = static_cast<int>(*u);
  }
  return ok();
}

std::optional<int> optional_id(std::string_view s) {
  if (auto v = detail::parse_uint(s); v && *v < 1'000'000) return static_cast<int>(*v);
  return std::nullopt;
}

// "|    0   N/A  N/A     10734      C   python3     160MiB |" (GI/CI columns optional).
result<process_observation> read_process_row(const std::string& source, const text_line& line,
                                             std::string_view content) {
  const auto toks = tokens_of(content);
  const auto fail = [&](std::string_view at, std::string message) -> diagnostic {
    return detail::error_on_line(source, line, detail::column_of(line, at), std::move(message));
  };
  if (toks.size() < 4) return fail(content, "expected a process row: GPU, PID, type, name and memory");
  std::size_t type_at = is_process_type(toks[2]) ? 2 : (toks.size() >= 6 && is_process_type(toks[4])) ? 4 : 0;
  if (type_at == 0) {
    // Where the type should be: after GPU, GI, CI and PID when the row has MIG columns.
    const bool mig_columns = toks.size() >= 6 && (toks[1] == "N/A" || detail::is_digits(toks[3]));
    const std::string_view got = toks[mig_columns ? 4 : 2];
    return fail(got, fmt::format("expected a process type (C, G, C+G, M+C) after the PID, got {}",
                                 detail::quoted(got)));
  }
  if (type_at + 2 > toks.size()) return fail(toks.back(), "expected the process's GPU memory at the end of the row");
  process_observation p;
  const auto gpu = optional_id(toks[0]);
  const auto pid = detail::parse_uint(toks[type_at - 1]);
  if (!gpu) return fail(toks[0], fmt::format("expected a GPU index, got {}", detail::quoted(toks[0])));
  if (!pid || *pid > static_cast<std::uint64_t>(INT32_MAX))
    return fail(toks[type_at - 1], fmt::format("expected a PID, got {}", detail::quoted(toks[type_at - 1])));
  p.gpu_index = gpu;
  p.pid = static_cast<std::int64_t>(*pid);
  p.type = std::string(toks[type_at]);
  if (type_at == 4) {
    p.gpu_instance = optional_id(toks[1]);
    p.compute_instance = optional_id(toks[2]);
  }
  const std::string_view memory = toks.back();
  if (memory != "N/A") {
    auto used = detail::parse_size(memory, 0);
    if (!used) return fail(memory, fmt::format("expected GPU memory such as \"160MiB\" or \"N/A\", got {}",
                                               detail::quoted(memory)));
    p.used = used;
  }
  const char* name_begin = toks[type_at].data() + toks[type_at].size();
  if (toks.size() > type_at + 2)
    p.name = std::string(detail::trim(std::string_view(name_begin, static_cast<std::size_t>(memory.data() - name_begin))));
  return p;
}

}  // namespace

bool looks_like_process_row(std::string_view line) {
  line = detail::trim(line);
  while (!line.empty() && (line.front() == '|' || line.back() == '|')) {
    if (line.front() == '|') line.remove_prefix(1);
    if (!line.empty() && line.back() == '|') line.remove_suffix(1);
    line = detail::trim(line);
  }
  const auto toks = tokens_of(line);
  if (toks.size() < 5 || !detail::is_digits(toks[0])) return false;
  const bool typed = is_process_type(toks[2]) || (toks.size() >= 7 && is_process_type(toks[4]));
  const std::string_view memory = toks.back();
  return typed && (memory == "N/A" || memory.ends_with("MiB") || memory.ends_with("GiB"));
}

namespace {

enum class section { gpus, mig, processes };

struct table_reader {
  const std::string& source;
  std::vector<text_line> lines;
  observation out;
  section where = section::gpus;
  bool headless_noted = false;
  bool headless_gpus_noted = false;
  bool header_seen = false;  // "NVIDIA-SMI", the column names or a border line came before
  bool processes_closed = false;        // the process list's closing "+---" border was read
  std::optional<diagnostic> cut_gpu = std::nullopt;  // a last GPU row without its memory row, dropped
  std::optional<std::size_t> cut_process_row = std::nullopt;  // a last process row cut mid-way, dropped

  static bool has_border(std::string_view text) {
    text = detail::trim(text);
    return text.starts_with("+--") || text.starts_with("|==");
  }

  static std::string_view without_borders(std::string_view text) {
    text = detail::trim(text);
    if (!text.empty() && text.front() == '|') text.remove_prefix(1);
    if (!text.empty() && text.back() == '|') text.remove_suffix(1);
    return text;
  }

  status read_line(std::size_t& i) {
    const text_line& line = lines[i];
    if (detail::contains(line.text, "NVIDIA-SMI")) {
      header_seen = true;
      // Driver 610 renamed them "KMD Version:" and "CUDA UMD Version:".
      out.driver_version = std::string(value_after(line.text, "Driver Version:"));
      if (out.driver_version.empty()) out.driver_version = std::string(value_after(line.text, "KMD Version:"));
      out.cuda_version = std::string(value_after(line.text, "CUDA Version:"));
      return ok();
    }
    if (detail::contains(line.text, "MIG devices:")) {
      where = section::mig;
      out.warnings.push_back(error_at(source, "the MIG devices table is not read", line.number));
      return ok();
    }
    if (detail::contains(line.text, "Processes:")) {
      where = section::processes;
      out.process_table = true;
      return ok();
    }
    const auto cells = table_cells(line.text);
    if (where == section::processes && detail::trim(line.text).starts_with("+-")) processes_closed = true;
    if ((where == section::processes || headless_noted) && is_cut_row(i)) {
      cut_process_row = i;
      return ok();
    }
    if (where == section::processes) return read_process_line(line, cells);
    // Process rows pasted without the table's "Processes:" header (or its first border).
    if (where == section::gpus && looks_like_process_row(line.text)) {
      if (!headless_noted) {
        out.warnings.push_back(error_at(source, "process rows without the table's \"Processes:\" header: "
                                                "read as nvidia-smi's process list; the GPU rows (memory "
                                                "used and total) are missing from the paste", line.number));
        headless_noted = true;
      }
      return read_process_line(line, {without_borders(line.text)});
    }
    if (detail::contains(line.text, "Memory-Usage") || has_border(line.text)) header_seen = true;
    if (where == section::gpus && is_gpu_row(cells)) {
      // GPU rows pasted without the table's header, borders and process list.
      if (!header_seen && !headless_gpus_noted) {
        out.warnings.push_back(error_at(source, "GPU rows without the table's header: read as nvidia-smi's GPU "
                                                "rows; the header (driver, CUDA version) and the process list "
                                                "are missing from the paste", line.number));
        headless_gpus_noted = true;
      }
      return read_gpu(i, cells);
    }
    return ok();
  }

  status read_gpu(std::size_t& i, const std::vector<std::string_view>& cells) {
    gpu_observation g = gpu_from_row(cells);
    const bool memory_row_cut = i + 1 < lines.size() && is_cut_row(i + 1);
    if (is_last_line(i) || memory_row_cut) {
      if (memory_row_cut) ++i;
      cut_gpu = detail::error_on_line(
          source, lines[i], 0,
          memory_row_cut
              ? fmt::format("GPU {}'s memory row is cut off in the middle (no closing \"|\")", g.index.value_or(0))
              : fmt::format("GPU {}'s row is the last line: its memory row is missing (is the table cut off?)",
                            g.index.value_or(0)));
      return ok();
    }
    ++i;
    auto st = read_memory_row(source, lines[i], g);
    if (!st) return st.error();
    out.gpus.push_back(std::move(g));
    return ok();
  }

  // The line is the paste's last non-blank one.
  bool is_last_line(std::size_t i) const {
    for (std::size_t j = i + 1; j < lines.size(); ++j)
      if (!detail::trim(lines[j].text).empty()) return false;
    return true;
  }

  // A last line that opens a table row ("|    0   N/A  N/A   2190441      C   /opt/co") and
  // does not close it: the paste was cut in the middle of the row.
  bool is_cut_row(std::size_t i) const {
    const std::string_view text = detail::trim(lines[i].text);
    return text.size() > 1 && text.front() == '|' && text.back() != '|' && text[1] != '=' && is_last_line(i);
  }

  // Warnings for what a cut-off paste lacks; fails when the cut left nothing read.
  status note_cut() {
    if (cut_gpu) {
      if (out.gpus.empty() && out.processes.empty()) return *cut_gpu;
      diagnostic d = *cut_gpu;
      d.message += ": that GPU is not read";
      out.warnings.push_back(std::move(d));
    }
    const bool list_open = out.process_table && !processes_closed;
    if (list_open || cut_process_row) {
      const int from = out.processes.empty() ? 0 : out.processes.back().gpu_index.value_or(0);
      if (list_open) out.processes_cut_from_gpu = from;
      const text_line& last = cut_process_row ? lines[*cut_process_row] : lines.back();
      out.warnings.push_back(detail::error_on_line(
          source, last, 0,
          fmt::format("nvidia-smi's process list is cut off {}: processes of GPU {} and higher may be "
                      "missing from the paste, so whether memory there is held by unlisted processes is "
                      "undecided",
                      cut_process_row ? "in the middle of this row (dropped)" : "after this line", from)));
    } else if (header_seen && !out.gpus.empty() && !out.process_table && !headless_noted) {
      out.warnings.push_back(error_at(source, "nvidia-smi's screen ends before its process list: who holds "
                                              "the memory is not in the paste",
                                      lines.empty() ? 0 : lines.back().number));
    }
    if (out.process_table && out.gpus.empty() && !out.processes.empty())
      out.warnings.push_back(
          error_at(source,
                   "nvidia-smi's process list without the GPU rows above it: what "
                   "each GPU uses in all and its size are missing from the paste",
                   lines.front().number));
    return ok();
  }

  status read_process_line(const text_line& line, const std::vector<std::string_view>& cells) {
    if (cells.size() != 1) return ok();  // borders, "+---" lines
    const std::string_view content = detail::trim(cells[0]);
    if (content.empty() || content.front() == '=' || detail::contains(content, "PID") ||
        detail::contains(content, "No running processes found") ||
        !(content.front() >= '0' && content.front() <= '9'))
      return ok();
    auto p = read_process_row(source, line, content);
    if (!p) return p.error();
    out.processes.push_back(std::move(*p));
    return ok();
  }
};

}  // namespace

result<observation> parse_nvidia_smi_table(std::string_view text, const std::string& source) {
  table_reader reader{source, detail::split_lines(text), {}, section::gpus, false};
  for (std::size_t i = 0; i < reader.lines.size(); ++i) {
    auto st = reader.read_line(i);
    if (!st) return st.error();
  }
  if (auto st = reader.note_cut(); !st) return st.error();
  if (reader.out.gpus.empty() && reader.out.processes.empty())
    return error_at(source, "no GPU rows and no process rows found: expected the table printed by nvidia-smi");
  return std::move(reader.out);
}

}  // namespace vramscope::observe
