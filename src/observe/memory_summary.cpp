// torch.cuda.memory_summary(). Layout (torch/cuda/memory.py, memory_summary; described in
// docs/formats/memory-stats.md): a 75-column table between "|" borders; a title "PyTorch CUDA
// memory summary, device ID N"; a line "CUDA OOMs: N | cudaMalloc retries: N"; then groups of
// rows "label | current | peak | allocated | freed", each group an "all" row followed (unless
// abbreviated) by "from large pool" and "from small pool". Byte cells are "<n> <unit>" with n
// rounded down to the unit; count cells "<n> [K|M]".
#include <vramscope/observe/torch_stats.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "observe/text_util.hpp"
#include "observe/torch_stats_keys.hpp"

namespace vramscope::observe {

namespace {

using detail::text_line;

struct row_kind {
  std::string_view label;  // matched against the end of the row label
  std::string_view stat;
  bool is_bytes;
  bool pooled;             // has all/large/small rows
};

constexpr row_kind row_kinds[] = {
    {"Allocated memory", "allocated_bytes", true, true},
    {"Active memory", "active_bytes", true, true},
    {"Requested memory", "requested_bytes", true, true},
    {"reserved memory", "reserved_bytes", true, true},  // "GPU reserved memory"
    {"Non-releasable memory", "inactive_split_bytes", true, true},
    {"Allocations", "allocation", false, true},
    {"Active allocs", "active", false, true},
    {"reserved segments", "segment", false, true},  // "GPU reserved segments"
    {"Non-releasable allocs", "inactive_split", false, true},
    {"Oversize allocations", "oversize_allocations", false, false},
    {"Oversize GPU segments", "oversize_segments", false, false},
};

// Rows a complete table has, in order; a table missing one was cut off.
constexpr std::array<std::pair<std::string_view, std::string_view>, 4> required_rows{{
    {"allocated_bytes.all.current", "Allocated memory"},
    {"active_bytes.all.current", "Active memory"},
    {"reserved_bytes.all.current", "GPU reserved memory"},
    {"inactive_split_bytes.all.current", "Non-releasable memory"},
}};

constexpr std::string_view column_names[] = {"Cur Usage", "Peak Usage", "Tot Alloc", "Tot Freed"};
constexpr std::string_view stat_columns[] = {"current", "peak", "allocated", "freed"};

const row_kind* kind_of(std::string_view label) {
  for (const auto& k : row_kinds)
    if (label.size() >= k.label.size() && label.substr(label.size() - k.label.size()) == k.label) return &k;
  return nullptr;
}

// "[rank3]" at the start of a line (after spaces), or empty.
std::string_view rank_tag(std::string_view line) {
  line = detail::trim(line);
  if (line.substr(0, 5) != "[rank") return {};
  const std::size_t close = line.find(']');
  if (close == std::string_view::npos || !detail::is_digits(line.substr(5, close - 5))) return {};
  return line.substr(0, close + 1);
}

std::optional<std::uint64_t> parse_count(std::string_view cell) {
  cell = detail::trim(cell);
  std::uint64_t scale = 1;
  if (!cell.empty() && (cell.back() == 'K' || cell.back() == 'M')) {
    scale = cell.back() == 'K' ? 1000 : 1000 * 1000;
    cell = detail::trim(cell.substr(0, cell.size() - 1));
  }
  const auto n = detail::parse_uint(cell);
  if (!n || *n > UINT64_MAX / scale) return std::nullopt;
  return *n * scale;
}

struct table_parser {
  const std::string& source;
  const std::vector<text_line>& lines;
  warnings& warns;
  torch_stats stats;
  std::string_view tag;
  const row_kind* group = nullptr;
  bool saw_rows = false;

  status read_cells(const text_line& line, const std::vector<std::string_view>& cells,
                    const row_kind& kind, std::string_view pool) {
    for (std::size_t c = 0; c < 4; ++c) {
      const std::string_view cell = detail::trim(cells[c + 1]);
      const auto value = kind.is_bytes ? detail::parse_size(cell, 0) : parse_count(cell);
      if (!value)
        return detail::error_on_line(
            source, line, detail::column_of(line, cell),
            fmt::format("expected {} in the \"{}\" column, got {}",
                        kind.is_bytes ? "a size such as \"1234 MiB\"" : "a count such as \"12\" or \"3 K\"",
                        column_names[c], detail::quoted(cell)));
      const std::string key = kind.pooled ? fmt::format("{}.{}.{}", kind.stat, pool, stat_columns[c])
                                          : fmt::format("{}.{}", kind.stat, stat_columns[c]);
      stats.raw[key] = *value;
    }
    return ok();
  }

  status read_row(const text_line& line, const std::vector<std::string_view>& cells) {
    const std::string_view label = detail::trim(cells[0]);
    if (label == "Metric") return ok();
    if (label.substr(0, 5) == "from ") {
      if (!group) return ok();  // pool row of a skipped group
      const std::string_view pool = label == "from large pool" ? "large_pool" : "small_pool";
      return read_cells(line, cells, *group, pool);
    }
    group = kind_of(label);
    if (!group) {
      warns.push_back(detail::error_on_line(source, line, detail::column_of(line, label),
                                            fmt::format("memory summary row {} is not known; skipped",
                                                        detail::quoted(label))));
      return ok();
    }
    saw_rows = true;
    return read_cells(line, cells, *group, "all");
  }

  void read_counters(std::string_view content) {
    const auto number_after = [&](std::string_view label) -> std::optional<std::uint64_t> {
      const std::size_t at = content.find(label);
      if (at == std::string_view::npos) return std::nullopt;
      std::string_view rest = detail::trim(content.substr(at + label.size()));
      std::size_t n = 0;
      while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9') ++n;
      return detail::parse_uint(rest.substr(0, n));
    };
    if (auto v = number_after("OOMs:")) stats.raw["num_ooms"] = *v;
    if (auto v = number_after("retries:")) stats.raw["num_alloc_retries"] = *v;
  }

  // Returns the index of the line after the table.
  result<std::size_t> read(std::size_t title) {
    std::size_t i = title + 1;
    for (; i < lines.size(); ++i) {
      const text_line& line = lines[i];
      const std::string_view line_tag = rank_tag(line.text);
      if (!tag.empty() && !line_tag.empty() && line_tag != tag) continue;  // another rank's line
      const std::size_t bar = line.text.find('|');
      if (bar == std::string_view::npos) break;
      std::string_view content = detail::trim(line.text.substr(bar));
      if (content.size() >= 2 && (content[1] == '=' || content[1] == '-')) {
        if (content[1] == '=' && saw_rows) return i + 1;
        continue;
      }
      if (detail::contains(content, "OOMs:")) {
        read_counters(content);
        continue;
      }
      if (content.size() < 2 || content.back() != '|')
        return detail::error_on_line(source, line, 0, "memory summary row is cut off: expected it to end with \"|\"");
      const auto cells = detail::split(content.substr(1, content.size() - 2), '|');
      if (cells.size() != 5)
        return detail::error_on_line(source, line, 0,
                                     fmt::format("memory summary row has {} cells, expected 5 (a label and 4 figures)",
                                                 cells.size()));
      auto st = read_row(line, cells);
      if (!st) return st.error();
    }
    return i;
  }

  status check_complete(std::size_t end) const {
    for (const auto& [key, label] : required_rows) {
      if (stats.raw.count(std::string(key))) continue;
      const text_line& last = lines[std::min(end, lines.size()) - 1];
      return detail::error_on_line(source, last, 0,
                                   fmt::format("memory summary is cut off: it ends before the \"{}\" row", label));
    }
    return ok();
  }
};

torch_stats start_stats(const text_line& title, const std::string& source) {
  torch_stats s;
  s.source = source;
  s.origin = stats_origin::memory_summary_text;
  const std::size_t at = title.text.find("device ID ");
  std::string_view rest = title.text.substr(at + 10);
  std::size_t n = 0;
  while (n < rest.size() && rest[n] >= '0' && rest[n] <= '9') ++n;
  if (auto d = detail::parse_uint(rest.substr(0, n)); d && *d < 1'000'000) s.device = static_cast<int>(*d);
  const std::string_view tag = rank_tag(title.text);
  if (!tag.empty()) s.rank = static_cast<int>(detail::parse_uint(tag.substr(5, tag.size() - 6)).value_or(0));
  return s;
}

}  // namespace

result<std::vector<torch_stats>> parse_memory_summary(std::string_view text, const std::string& source,
                                                      warnings& found_warnings) {
  const auto lines = detail::split_lines(text);
  std::vector<torch_stats> out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (!detail::contains(lines[i].text, "memory summary, device ID ")) continue;
    table_parser parser{source, lines, found_warnings, start_stats(lines[i], source), rank_tag(lines[i].text)};
    auto end = parser.read(i);
    if (!end) return end.error();
    auto st = parser.check_complete(*end);
    if (!st) return st.error();
    detail::fill_from_raw(parser.stats);
    out.push_back(std::move(parser.stats));
    i = *end - 1;
  }
  return out;
}

}  // namespace vramscope::observe
