// nvidia-smi --query-gpu / --query-compute-apps CSV. Facts used (docs/formats/nvidia-smi.md):
// fields are separated by ", "; the header carries units in brackets ("memory.used [MiB]");
// `nounits` drops the units from values; bracketed tokens ("[N/A]", "[Not Supported]") mean no
// value; process names may be empty or contain commas; memory is in MiB.
#include <vramscope/observe/nvidia_smi.hpp>

#include <fmt/format.h>

#include <algorithm>

#include "observe/nvidia_smi_csv.hpp"
#include "observe/text_util.hpp"

namespace vramscope::observe {

namespace {

using detail::text_line;

enum class field {
  index, name, uuid, bus_id, memory_total, memory_used, memory_free, memory_reserved,
  util_gpu, util_memory, gpu_uuid, gpu_bus_id, pid, process_name, used_memory, unused
};

struct field_name {
  std::string_view text;
  field gpu_meaning;      // in a --query-gpu CSV
  field process_meaning;  // in a --query-compute-apps CSV
};

constexpr field_name field_names[] = {
    {"index", field::index, field::unused},
    {"name", field::name, field::process_name},
    {"gpu_name", field::name, field::unused},
    {"uuid", field::uuid, field::gpu_uuid},
    {"gpu_uuid", field::uuid, field::gpu_uuid},
    {"pci.bus_id", field::bus_id, field::gpu_bus_id},
    {"gpu_bus_id", field::bus_id, field::gpu_bus_id},
    {"memory.total", field::memory_total, field::unused},
    {"memory.used", field::memory_used, field::unused},
    {"memory.free", field::memory_free, field::unused},
    {"memory.reserved", field::memory_reserved, field::unused},
    {"utilization.gpu", field::util_gpu, field::unused},
    {"utilization.memory", field::util_memory, field::unused},
    {"pid", field::unused, field::pid},
    {"process_name", field::unused, field::process_name},
    {"used_gpu_memory", field::unused, field::used_memory},
    {"used_memory", field::unused, field::used_memory},
};

struct column {
  std::string name;  // without the unit
  bytes unit = MiB;  // from "[MiB]" in the header; nvidia-smi prints memory in MiB
  field meaning = field::unused;
};

struct csv_layout {
  std::vector<column> columns;
  bool processes = false;
  int text_column = -1;  // the column that may contain commas
};

std::vector<std::string_view> cells_of(std::string_view line) {
  auto cells = detail::split(line, ',');
  for (auto& c : cells) c = detail::trim(c);
  return cells;
}

bool is_field_name(std::string_view cell) {
  const std::size_t bracket = cell.find(" [");
  std::string_view name = cell.substr(0, bracket);
  if (bracket != std::string_view::npos && cell.back() != ']') return false;
  if (name.empty() || !((name[0] >= 'a' && name[0] <= 'z') || name[0] == '_')) return false;
  // Full --query-gpu lists have camelCase fields: "pci.baseClass", "encoder.stats.sessionCount".
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.';
  });
}

bool looks_like_header(std::string_view line) {
  const auto cells = cells_of(line);
  return std::all_of(cells.begin(), cells.end(), is_field_name);
}

column column_from(std::string_view cell) {
  column c;
  const std::size_t bracket = cell.find(" [");
  c.name = detail::to_lower(detail::trim(cell.substr(0, bracket)));
  if (bracket != std::string_view::npos) {
    const std::string_view unit = cell.substr(bracket + 2, cell.size() - bracket - 3);
    if (auto scale = detail::parse_size("1 " + std::string(unit), 0)) c.unit = *scale;
  }
  return c;
}

// Unused columns named one warning each, the rest counted in one more.
constexpr std::size_t max_column_warnings = 20;

csv_layout layout_from(std::vector<column> columns, warnings& warns, const std::string& source,
                       int header_line) {
  csv_layout layout;
  layout.processes = std::any_of(columns.begin(), columns.end(),
                                 [](const column& c) { return c.name == "pid"; });
  std::size_t unused = 0;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    auto& c = columns[i];
    for (const auto& f : field_names)
      if (f.text == c.name) c.meaning = layout.processes ? f.process_meaning : f.gpu_meaning;
    if (c.meaning == field::process_name || c.meaning == field::name)
      layout.text_column = static_cast<int>(i);
    if (c.meaning == field::unused && c.name != "timestamp" && ++unused <= max_column_warnings)
      warns.push_back(error_at(source, fmt::format("column \"{}\" is not used", c.name), header_line));
  }
  if (unused > max_column_warnings)
    warns.push_back(error_at(
        source, fmt::format("{} more columns are not used", unused - max_column_warnings),
        header_line));
  layout.columns = std::move(columns);
  return layout;
}

// Joins the cells that a comma inside the text column split apart.
std::vector<std::string_view> fit_cells(std::vector<std::string_view> cells, const csv_layout& layout) {
  const std::size_t want = layout.columns.size();
  if (cells.size() <= want || layout.text_column < 0) return cells;
  const auto k = static_cast<std::size_t>(layout.text_column);
  const std::size_t extra = cells.size() - want;
  const char* begin = cells[k].data();
  const char* end = cells[k + extra].data() + cells[k + extra].size();
  cells[k] = std::string_view(begin, static_cast<std::size_t>(end - begin));
  cells.erase(cells.begin() + static_cast<std::ptrdiff_t>(k + 1),
              cells.begin() + static_cast<std::ptrdiff_t>(k + 1 + extra));
  return cells;
}

bool is_missing(std::string_view v) { return v.size() >= 2 && v.front() == '[' && v.back() == ']'; }

// ---- A CSV without its header row: columns named from their values.
//
// What a value says of its column: an nvidia-smi GPU UUID ("GPU-5a3e...", "MIG-..."), a PCI bus
// id ("00000000:01:00.0"), a percentage, a size with its unit, a whole number (an index below
// 64, else a pid or, with `nounits`, a size in MiB), a GPU's name ("NVIDIA ...", "Tesla ...") or
// other text (a process's name or path).
enum class csv_value {
  missing,
  uuid,
  bus_id,
  percent,
  size,
  small_int,
  large_int,
  gpu_name,
  text,
  other
};

bool csv_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool csv_bus_id(std::string_view v) {
  // domain:bus:device.function, hex: "00000000:01:00.0" (or the 4-digit domain of older drivers)
  const auto parts = detail::split(v, ':');
  if (parts.size() != 3 || parts[2].size() < 3 || parts[2][parts[2].size() - 2] != '.')
    return false;
  for (const char c : v)
    if (!csv_hex(c) && c != ':' && c != '.') return false;
  return true;
}

bool csv_gpu_name(std::string_view v) {
  for (std::string_view p : {"NVIDIA", "Tesla", "Quadro", "GeForce", "TITAN", "GRID", "A100",
                             "H100", "H200", "A10", "L4", "L40", "RTX", "GH200", "GB200", "B200"})
    if (v.substr(0, p.size()) == p) return true;
  return false;
}

csv_value csv_kind_of(std::string_view v) {
  if (v.empty() || is_missing(v)) return csv_value::missing;
  if (v.substr(0, 4) == "GPU-" || v.substr(0, 4) == "MIG-") return csv_value::uuid;
  if (csv_bus_id(v)) return csv_value::bus_id;
  if (v.back() == '%')
    return detail::parse_uint(detail::trim(v.substr(0, v.size() - 1))) ? csv_value::percent
                                                                       : csv_value::other;
  if (const auto n = detail::parse_uint(v))
    return *n < 64 ? csv_value::small_int : csv_value::large_int;
  if (v.front() >= '0' && v.front() <= '9')
    return detail::parse_size(v, 0) ? csv_value::size : csv_value::other;  // "70.21 W", "1410 MHz"
  if (csv_gpu_name(v)) return csv_value::gpu_name;
  return csv_value::text;
}

// One row's values, each of a shape nvidia-smi prints: what tells a header-less CSV from prose
// with commas ("2024-02-19 15:14:56: W ...", "before import [5, 5, 5, 5]").
bool csv_value_shaped(std::string_view v) {
  if (v.empty() || is_missing(v)) return true;
  if (v.size() > 100 || detail::contains(v, ": ") || v.find('[') != std::string_view::npos ||
      v.find(']') != std::string_view::npos || v.find('(') != std::string_view::npos)
    return false;
  return std::count(v.begin(), v.end(), ' ') <= 6;
}

// The column meanings a header-less CSV's values leave one reading of, or the reason they do not.
result<std::vector<column>> infer_columns(const std::vector<std::vector<std::string_view>>& rows,
                                          const std::string& source, const text_line& first) {
  const std::size_t n = rows.front().size();
  std::vector<csv_value> kinds(n, csv_value::missing);
  for (std::size_t c = 0; c < n; ++c)
    for (const auto& row : rows) {
      if (row.size() != n) continue;
      const csv_value k = csv_kind_of(row[c]);
      if (k == csv_value::missing) continue;
      csv_value& have = kinds[c];
      if (have == csv_value::missing)
        have = k;
      else if (have == csv_value::small_int && k == csv_value::large_int)
        have = k;
      else if (have == csv_value::large_int && k == csv_value::small_int)
        continue;
      else if ((have == csv_value::text && k == csv_value::gpu_name) ||
               (have == csv_value::gpu_name && k == csv_value::text))
        have = csv_value::text;
      else if (have != k)
        have = csv_value::other;
    }
  const auto count = [&](csv_value k) {
    return static_cast<std::size_t>(std::count(kinds.begin(), kinds.end(), k));
  };
  const auto refuse = [&](std::string why) -> result<std::vector<column>> {
    return detail::error_on_line(source, first, 0,
                                 fmt::format("CSV without a header row (nvidia-smi "
                                             "--format=csv,noheader): {}; paste the header line "
                                             "nvidia-smi prints without noheader (e.g. \"index, "
                                             "memory.used [MiB], memory.total [MiB]\") "
                                             "above the rows",
                                             why));
  };
  // A process list names processes, or gives a GPU's id, a pid and a size and nothing of a GPU's
  // own (--query-compute-apps=gpu_uuid,pid,used_memory); a GPU list names GPUs or starts with an
  // index.
  const bool processes =
      count(csv_value::gpu_name) == 0 &&
      (count(csv_value::text) > 0 ||
       (count(csv_value::uuid) + count(csv_value::bus_id) > 0 && count(csv_value::large_int) == 1 &&
        count(csv_value::size) == 1 && count(csv_value::small_int) == 0));
  std::vector<column> columns(n);
  const auto name = [&](std::size_t c, std::string_view field) {
    columns[c].name = std::string(field);
  };
  std::vector<std::size_t> numbers;  // whole-number columns not yet named
  for (std::size_t c = 0; c < n; ++c) {
    switch (kinds[c]) {
      case csv_value::uuid:
        name(c, processes ? "gpu_uuid" : "uuid");
        break;
      case csv_value::bus_id:
        name(c, processes ? "gpu_bus_id" : "pci.bus_id");
        break;
      case csv_value::gpu_name:
        name(c, "name");
        break;
      case csv_value::text:
        name(c, processes ? "process_name" : "unnamed text");
        break;
      case csv_value::percent:
        name(c, "unnamed percentage");
        break;
      case csv_value::small_int:
      case csv_value::large_int:
        numbers.push_back(c);
        break;
      case csv_value::size:
        if (!processes)
          return refuse(
              fmt::format("column {} holds memory figures, and which of memory.used, "
                          "memory.free and memory.total it is cannot be told from its values",
                          c + 1));
        if (count(csv_value::size) > 1)
          return refuse("a process list with more than one memory column");
        name(c, "used_memory");
        break;
      default:
        name(c, "unnamed");
        break;
    }
  }
  if (processes) {
    // pid, and with nounits the used memory in MiB: two whole-number columns are not told apart.
    const std::size_t sizes = count(csv_value::size);
    if (numbers.size() == 1 && sizes == 1)
      name(numbers[0], "pid");
    else if (numbers.size() == 1 && sizes == 0)
      return refuse(fmt::format(
          "column {} holds whole numbers, a pid or (with nounits) the used memory in MiB",
          numbers[0] + 1));
    else if (!numbers.empty())
      return refuse(fmt::format(
          "columns {} hold whole numbers: which is the pid and which the used memory (nounits) "
          "cannot be told from their values",
          [&] {
            std::vector<std::size_t> shown;  // 1-based, as a spreadsheet counts
            for (const std::size_t c : numbers) shown.push_back(c + 1);
            return fmt::format("{}", fmt::join(shown, ", "));
          }()));
  } else {
    for (const std::size_t c : numbers) {
      if (c == 0 && kinds[c] == csv_value::small_int) {
        name(c, "index");
        continue;
      }
      return refuse(fmt::format(
          "column {} holds whole numbers ({}): with nounits a memory figure, and which of "
          "memory.used, memory.free and memory.total cannot be told from its values",
          c + 1, kinds[c] == csv_value::small_int ? "an index or a size in MiB" : "sizes in MiB"));
    }
  }
  return columns;
}

struct row_reader {
  const std::string& source;
  const text_line& line;

  diagnostic bad(std::string_view cell, const column& c, std::string_view expected) const {
    return detail::error_on_line(source, line, detail::column_of(line, cell),
                                 fmt::format("{}: expected {}, got {}", c.name, expected,
                                             detail::quoted(cell)));
  }
  result<std::optional<bytes>> size(std::string_view cell, const column& c) const {
    if (is_missing(cell)) return std::optional<bytes>{};
    if (auto v = detail::parse_size(cell, c.unit)) return std::optional<bytes>{*v};
    return bad(cell, c, "a size such as \"1024 MiB\"");
  }
  result<std::optional<int>> percent(std::string_view cell, const column& c) const {
    if (is_missing(cell)) return std::optional<int>{};
    std::string_view v = cell;
    if (!v.empty() && v.back() == '%') v = detail::trim(v.substr(0, v.size() - 1));
    if (auto n = detail::parse_uint(v); n && *n <= 100) return std::optional<int>{static_cast<int>(*n)};
    return bad(cell, c, "a percentage such as \"30 %\"");
  }
  result<std::optional<std::int64_t>> integer(std::string_view cell, const column& c) const {
    if (is_missing(cell)) return std::optional<std::int64_t>{};
    if (auto n = detail::parse_uint(cell); n && *n <= static_cast<std::uint64_t>(INT32_MAX))
      return std::optional<std::int64_t>{static_cast<std::int64_t>(*n)};
    return bad(cell, c, "a whole number");
  }
};

std::string text_value(std::string_view cell) { return is_missing(cell) ? std::string() : std::string(cell); }

status read_gpu_cell(const row_reader& r, std::string_view cell, const column& c, gpu_observation& g) {
  switch (c.meaning) {
    case field::index: {
      auto v = r.integer(cell, c);
      if (!v) return v.error();
      if (*v) g.index = static_cast<int>(**v);
      break;
    }
    case field::name: g.name = text_value(cell); break;
    case field::uuid: g.uuid = text_value(cell); break;
    case field::bus_id: g.bus_id = text_value(cell); break;
    case field::memory_total: case field::memory_used: case field::memory_free:
    case field::memory_reserved: {
      auto v = r.size(cell, c);
      if (!v) return v.error();
      auto& slot = c.meaning == field::memory_total ? g.total
                   : c.meaning == field::memory_used ? g.used
                   : c.meaning == field::memory_free ? g.free : g.reserved;
      slot = *v;
      break;
    }
    case field::util_gpu: case field::util_memory: {
      auto v = r.percent(cell, c);
      if (!v) return v.error();
      (c.meaning == field::util_gpu ? g.utilization_gpu : g.utilization_memory) = *v;
      break;
    }
    default: break;
  }
  return ok();
}

status read_process_cell(const row_reader& r, std::string_view cell, const column& c,
                         process_observation& p) {
  switch (c.meaning) {
    case field::gpu_uuid: p.gpu_uuid = text_value(cell); break;
    case field::gpu_bus_id: p.gpu_bus_id = text_value(cell); break;
    case field::process_name: p.name = text_value(cell); break;
    case field::pid: {
      auto v = r.integer(cell, c);
      if (!v) return v.error();
      if (!*v) return r.bad(cell, c, "a process id");
      p.pid = **v;
      break;
    }
    case field::used_memory: {
      auto v = r.size(cell, c);
      if (!v) return v.error();
      p.used = *v;
      break;
    }
    default: break;
  }
  return ok();
}

status read_row(const std::string& source, const text_line& line, bool last_unterminated,
                const csv_layout& layout, observation& out) {
  auto cells = fit_cells(cells_of(line.text), layout);
  if (cells.size() != layout.columns.size()) {
    std::string message = fmt::format("expected {} columns, got {}", layout.columns.size(), cells.size());
    if (last_unterminated && cells.size() < layout.columns.size()) message += " (is the file cut off?)";
    return detail::error_on_line(source, line, 0, std::move(message));
  }
  const row_reader reader{source, line};
  gpu_observation gpu;
  process_observation process;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    auto st = layout.processes ? read_process_cell(reader, cells[i], layout.columns[i], process)
                               : read_gpu_cell(reader, cells[i], layout.columns[i], gpu);
    if (!st) return st.error();
  }
  if (layout.processes) out.processes.push_back(std::move(process));
  else out.gpus.push_back(std::move(gpu));
  return ok();
}

// The most rows read: far above the GPUs and processes of any machine. Each row becomes an
// observation of a few hundred bytes, more than the row itself (a 2-byte row "0" of an
// "index" CSV included), and rows are not merged (a polling log, nvidia-smi -l, lists every
// GPU once a poll), so the count bounds memory: 100,000 rows stay under 60 MiB.
constexpr std::size_t max_csv_rows = 100'000;

}  // namespace

namespace detail {

bool looks_like_smi_csv(std::string_view text) {
  std::size_t seen = 0;
  std::size_t at = 0;
  while (at < text.size() && seen < 8) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(at, end - at));
    at = end + 1;
    if (line.empty()) continue;
    if (seen++ == 0 && looks_like_header(line)) return true;
    const auto cells = cells_of(line);
    if (cells.size() < 2 || !std::all_of(cells.begin(), cells.end(), csv_value_shaped))
      return false;
  }
  return seen > 0;
}

}  // namespace detail

result<observation> parse_nvidia_smi_csv(std::string_view text, const std::string& source,
                                         const smi_options& options) {
  // Lines are found one at a time (no index of them all: on a file of short rows it would be
  // many times the file's size).
  std::size_t next = 0;
  int number = 0;
  const auto next_line = [&](text_line& line) {
    if (next >= text.size()) return false;
    std::size_t end = text.find('\n', next);
    if (end == std::string_view::npos) end = text.size();
    std::string_view t = text.substr(next, end - next);
    if (!t.empty() && t.back() == '\r') t.remove_suffix(1);
    line = text_line{t, next, ++number};
    next = end + 1;
    return true;
  };
  text_line header;
  bool found = false;
  while ((found = next_line(header)) && detail::trim(header.text).empty()) {
  }
  if (!found) return error_at(source, "empty CSV: expected nvidia-smi --query-* output");

  observation out;
  std::vector<column> columns;
  const bool has_header = looks_like_header(header.text);
  if (has_header) {
    for (auto cell : cells_of(header.text)) columns.push_back(column_from(cell));
  } else if (!options.csv_fields.empty()) {
    for (const auto& f : options.csv_fields) columns.push_back(column_from(detail::trim(f)));
  } else {
    // The first rows (at most 64) name the columns by their values.
    std::vector<std::vector<std::string_view>> rows;
    std::size_t at = header.offset;
    for (std::size_t k = 0; k < 64 && at < text.size(); ++k) {
      std::size_t end = text.find('\n', at);
      if (end == std::string_view::npos) end = text.size();
      std::string_view t = text.substr(at, end - at);
      if (!t.empty() && t.back() == '\r') t.remove_suffix(1);
      if (!detail::trim(t).empty()) rows.push_back(cells_of(t));
      at = end + 1;
    }
    auto inferred = infer_columns(rows, source, header);
    if (!inferred) return inferred.error();
    columns = std::move(*inferred);
    std::vector<std::string> names;
    for (const auto& c : columns) names.push_back(c.name);
    out.warnings.push_back(detail::error_on_line(
        source, header, 0,
        fmt::format("CSV without a header row: columns named from their values ({})",
                    fmt::join(names, ", "))));
  }
  const csv_layout layout =
      layout_from(std::move(columns), out.warnings, source, has_header ? header.number : 0);
  const bool unterminated = !text.empty() && text.back() != '\n';
  text_line line = header;
  if (has_header && !next_line(line)) return out;
  do {
    if (detail::trim(line.text).empty()) continue;
    if (has_header && line.text == header.text) continue;  // repeated by a polling loop
    if (out.gpus.size() + out.processes.size() >= max_csv_rows)
      return detail::error_on_line(
          source, line, 0,
          fmt::format("more than {} rows, the most this reader holds (a bound on its memory; "
                      "no machine has as many GPUs and processes): one query's output is "
                      "expected, not a polling log",
                      max_csv_rows));
    auto st = read_row(source, line, unterminated && next >= text.size(), layout, out);
    if (!st) return st.error();
  } while (next_line(line));
  return out;
}

}  // namespace vramscope::observe
