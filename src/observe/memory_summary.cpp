// torch.cuda.memory_summary(). Layout (torch/cuda/memory.py, memory_summary; described in
// docs/formats/memory-stats.md): a 75-column table between "|" borders; a title "PyTorch CUDA
// memory summary, device ID N"; a line "CUDA OOMs: N | cudaMalloc retries: N"; then groups of
// rows "label | current | peak | allocated | freed", each group an "all" row followed (unless
// abbreviated) by "from large pool" and "from small pool". Byte cells are "<n> <unit>" with n
// rounded down to the unit; count cells "<n> [K|M]".
#include <vramscope/observe/torch_stats.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

#include "observe/text_util.hpp"
#include "observe/torch_stats_keys.hpp"

namespace vramscope::observe {

namespace {

using detail::text_line;

struct row_kind {
  std::string_view label;    // matched against the end of the row label
  std::string_view stat;
  bool is_bytes;
  bool pooled;               // has all/large/small rows
  std::string_view printed;  // the label as torch prints it, for messages
  bool in_every_release;     // false: rows older releases do not print (Requested: torch 2.0)
};

// In the order a complete table prints them (torch/cuda/memory.py, memory_summary).
constexpr row_kind row_kinds[] = {
    {"Allocated memory", "allocated_bytes", true, true, "Allocated memory", true},
    {"Active memory", "active_bytes", true, true, "Active memory", true},
    {"Requested memory", "requested_bytes", true, true, "Requested memory", false},
    {"reserved memory", "reserved_bytes", true, true, "GPU reserved memory", true},
    {"Non-releasable memory", "inactive_split_bytes", true, true, "Non-releasable memory", true},
    {"Allocations", "allocation", false, true, "Allocations", true},
    {"Active allocs", "active", false, true, "Active allocs", true},
    {"reserved segments", "segment", false, true, "GPU reserved segments", true},
    {"Non-releasable allocs", "inactive_split", false, true, "Non-releasable allocs", true},
    {"Oversize allocations", "oversize_allocations", false, false, "Oversize allocations", false},
    {"Oversize GPU segments", "oversize_segments", false, false, "Oversize GPU segments", false},
};
constexpr std::size_t row_count = std::size(row_kinds);

// What a missing row leaves undecided, for the note that names it.
struct row_consequence {
  std::string_view stat;
  std::string_view undecided;
};
constexpr row_consequence consequences[] = {
    {"allocated_bytes", "what live tensors hold (allocated)"},
    {"active_bytes", "freed blocks still waiting on other streams (active - allocated)"},
    {"reserved_bytes", "what the allocator holds from CUDA (reserved), its cache (reserved - allocated) "
                       "and so fragmentation, and how far nvidia-smi's used lies above reserved"},
    {"inactive_split_bytes", "the free bytes trapped in split blocks (non-releasable)"},
};

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
  std::array<bool, row_count> seen{};
  bool closed = false;                    // ended by the table's closing "|===|" border
  bool cut_row = false;                   // a last row cut in the middle, dropped
  std::size_t last_read = 0;              // the table's last line

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
    seen[static_cast<std::size_t>(group - row_kinds)] = true;
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

  // The line after `i` that belongs to this table's text (other ranks' lines skipped), or
  // lines.size().
  std::size_t next_line(std::size_t i) const {
    for (++i; i < lines.size(); ++i) {
      const std::string_view line_tag = rank_tag(lines[i].text);
      if (tag.empty() || line_tag.empty() || line_tag == tag) break;
    }
    return i;
  }

  // A row with no closing "|" or fewer than 5 cells is a paste cut in the middle of that row
  // when nothing of the table follows it; anywhere else it is a broken row.
  bool is_last_table_line(std::size_t i) const {
    const std::size_t next = next_line(i);
    return next == lines.size() || lines[next].text.find('|') == std::string_view::npos;
  }

  // Returns the index of the line after the table.
  result<std::size_t> read(std::size_t title) { return read_rows(title, next_line(title)); }

  // Reads the table's lines from `first`; `title` is the line before them (the title's, or for a
  // table cut above its title, its first row's).
  result<std::size_t> read_rows(std::size_t title, std::size_t first) {
    last_read = title;
    std::size_t i = first;
    for (; i < lines.size(); i = next_line(i)) {
      const text_line& line = lines[i];
      const std::size_t bar = line.text.find('|');
      if (bar == std::string_view::npos) break;
      last_read = i;
      std::string_view content = detail::trim(line.text.substr(bar));
      if (content.size() >= 2 && (content[1] == '=' || content[1] == '-')) {
        if (content[1] == '=' && saw_rows) {
          closed = true;
          return i + 1;
        }
        continue;
      }
      if (detail::contains(content, "OOMs:")) {
        read_counters(content);
        continue;
      }
      const bool open_ended = content.size() < 2 || content.back() != '|';
      const auto cells = open_ended ? std::vector<std::string_view>{}
                                    : detail::split(content.substr(1, content.size() - 2), '|');
      if ((open_ended || cells.size() < 5) && is_last_table_line(i)) {
        cut_row = true;
        return i + 1;
      }
      if (open_ended)
        return detail::error_on_line(source, line, 0, "memory summary row is cut off: expected it to end with \"|\"");
      if (cells.size() != 5)
        return detail::error_on_line(source, line, 0,
                                     fmt::format("memory summary row has {} cells, expected 5 (a label and 4 figures)",
                                                 cells.size()));
      auto st = read_row(line, cells);
      if (!st) return st.error();
    }
    return i;
  }

  // The rows the paste lacks, as printed. A closed table lacks only rows its release did not
  // print when it lacks no others; an open one (cut off) lacks every row not read.
  std::vector<std::string> missing_rows() const {
    std::vector<std::string> out;
    for (std::size_t k = 0; k < row_count; ++k)
      if (!seen[k] && !(closed && !row_kinds[k].in_every_release)) out.emplace_back(row_kinds[k].printed);
    return out;
  }

  // "summary.txt:16: memory summary is cut off after this line: ..." naming the rows the paste
  // lacks and what they leave undecided; the stats keep empty figures for them.
  void note_missing() {
    stats.cut = !closed || cut_row;
    if (stats.cut) stats.cut_at_line = lines[last_read].number;
    const auto missing = missing_rows();
    if (missing.empty() && !cut_row) return;
    std::vector<std::string_view> undecided;
    for (const auto& c : consequences)
      for (std::size_t k = 0; k < row_count; ++k)
        if (row_kinds[k].stat == c.stat && !seen[k]) undecided.push_back(c.undecided);
    const std::size_t last = last_read;
    std::string message =
        cut_row ? "memory summary is cut off in the middle of this row: the row is dropped"
        : closed ? "memory summary lacks rows"
                 : "memory summary is cut off after this line";
    if (!missing.empty()) {
      std::vector<std::string> quoted_rows;
      for (const auto& m : missing) quoted_rows.push_back("\"" + m + "\"");
      message += fmt::format("; not in the paste, so unknown (not 0): {}", fmt::join(quoted_rows, ", "));
    }
    if (!undecided.empty()) message += fmt::format("; this leaves undecided {}", fmt::join(undecided, "; "));
    warns.push_back(detail::error_on_line(source, lines[last], 0, std::move(message)));
    stats.missing = missing;
    if (!closed) stats.cut_at_line = lines[last].number;
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

// A row as memory_summary() prints it: a label it prints (or a pool's) and four figures.
bool is_summary_row(std::string_view line) {
  const std::string_view content = detail::trim(line);
  if (content.size() < 2 || content.front() != '|' || content.back() != '|') return false;
  const auto cells = detail::split(content.substr(1, content.size() - 2), '|');
  if (cells.size() != 5) return false;
  const std::string_view label = detail::trim(cells[0]);
  if (label == "from large pool" || label == "from small pool") return true;
  return std::any_of(std::begin(row_kinds), std::end(row_kinds),
                     [&](const row_kind& k) { return k.printed == label; });
}

// A table pasted without its title and counters (cut above them, or quoted in part): its first
// rows, two or more of them, are rows memory_summary() prints. The device is then unknown and
// the rows above the cut are named as missing like those below one.
result<std::optional<torch_stats>> read_untitled(const std::vector<text_line>& lines,
                                                 const std::string& source, warnings& warns) {
  const auto is_border = [](std::string_view line) {
    line = detail::trim(line);
    return line.size() >= 2 && line[0] == '|' && (line[1] == '-' || line[1] == '=');
  };
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (!is_summary_row(lines[i].text)) continue;
    std::size_t next = i + 1;
    while (next < lines.size() && is_border(lines[next].text)) ++next;
    if (next == lines.size() || !is_summary_row(lines[next].text)) continue;
    torch_stats s;
    s.source = source;
    s.origin = stats_origin::memory_summary_text;
    table_parser parser{source, lines, warns, std::move(s), {}};
    auto end = parser.read_rows(i, i);
    if (!end) return end.error();
    if (!parser.saw_rows) return std::optional<torch_stats>{};
    warns.push_back(detail::error_on_line(
        source, lines[i], 0,
        "memory summary starts here, without its title: the device and the rows above this one are "
        "not in the paste"));
    parser.note_missing();
    parser.stats.cut = true;
    detail::fill_from_raw(parser.stats);
    return std::optional<torch_stats>{std::move(parser.stats)};
  }
  return std::optional<torch_stats>{};
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
    parser.note_missing();
    detail::fill_from_raw(parser.stats);
    out.push_back(std::move(parser.stats));
    i = *end - 1;
  }
  if (out.empty()) {
    auto untitled = read_untitled(lines, source, found_warnings);
    if (!untitled) return untitled.error();
    if (*untitled) out.push_back(std::move(**untitled));
  }
  return out;
}

}  // namespace vramscope::observe
