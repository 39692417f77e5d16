#include "observe/memory_figures.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>
#include <utility>

#include "observe/kaldi_log.hpp"
#include "observe/text_util.hpp"

namespace vramscope::observe::detail {

namespace {

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// One size in a line: where its number starts and ends (unit included).
struct size_at {
  std::size_t start = 0, end = 0;
  bytes value = 0;
};

// The size whose number starts at `at` ("14,362 MB", "0.90GiB", "61352MiB"): digits with
// thousands separators between groups of three and an optional fraction, then a unit.
std::optional<size_at> size_starting(std::string_view line, std::size_t at) {
  std::string number;
  std::size_t i = at;
  while (i < line.size()) {
    if (is_digit(line[i])) {
      number += line[i++];
    } else if (line[i] == ',' && i + 3 < line.size() && is_digit(line[i + 1]) && is_digit(line[i + 2]) &&
               is_digit(line[i + 3]) && (i + 4 == line.size() || !is_digit(line[i + 4]))) {
      ++i;  // a thousands separator: exactly three digits follow
    } else {
      break;
    }
  }
  if (i < line.size() && line[i] == '.' && i + 1 < line.size() && is_digit(line[i + 1])) {
    number += line[i++];
    while (i < line.size() && is_digit(line[i])) number += line[i++];
  }
  if (number.empty() || number.size() > 24) return std::nullopt;
  const std::size_t digits = number.size();
  std::string candidate = number + std::string(line.substr(i, 8));
  std::size_t used = 0;
  const auto value = parse_size_prefix(candidate, used);
  // "21.1G": the suffix GNU's human-readable sizes print (coreutils' -h: powers of 1024), as
  // users quote a GPU's memory ("vram usage 21.1G", "A100-80G"); only right after the number and
  // not the start of a word.
  if ((!value || used <= digits) && i < line.size() && line[i] == 'G' &&
      (i + 1 == line.size() || !is_alnum(line[i + 1]))) {
    const auto gib = parse_decimal(number);
    if (!gib || *gib > 1e9) return std::nullopt;
    return size_at{at, i + 1, static_cast<bytes>(*gib * static_cast<double>(1_GiB))};
  }
  if (!value || used <= digits) return std::nullopt;
  return size_at{at, i + (used - digits), *value};
}

// The figure after a name of torch.cuda's memory API printed without a unit ("iter: 3
// memory_allocated: 1.0093", "torch.cuda.max_memory_reserved() 2147483648"). The functions
// return bytes, so an integer of a mebibyte or more is bytes; a smaller or fractional number was
// divided by the script: GiB below 256 (a GPU's memory in GiB is below that), MiB from there.
// Only a point of a series (three or more prints under one label), whose rise does not depend on
// the unit; one such figure alone is not read.
std::vector<size_at> unitless_api_figure(std::string_view line, double& raw) {
  static constexpr std::string_view names[] = {"max_memory_allocated", "max_memory_reserved",
                                               "memory_allocated",     "memory_reserved",
                                               "max_memory_cached",    "memory_cached"};
  for (std::string_view name : names) {
    const std::size_t at = line.find(name);
    if (at == std::string_view::npos) continue;
    std::size_t i = at + name.size();
    if (i < line.size() && (is_alnum(line[i]) || line[i] == '_')) continue;
    while (i < line.size() && (line[i] == '(' || line[i] == ')' || line[i] == ':' ||
                               line[i] == '=' || line[i] == ' ' || line[i] == '\t'))
      ++i;
    const std::size_t start = i;
    while (i < line.size() && is_digit(line[i])) ++i;
    bool fraction = false;
    if (i + 1 < line.size() && line[i] == '.' && is_digit(line[i + 1])) {
      fraction = true;
      ++i;
      while (i < line.size() && is_digit(line[i])) ++i;
    }
    if (i == start || i - start > 24) return {};
    if (i < line.size() && !(line[i] == ' ' || line[i] == ',' || line[i] == ';' || line[i] == '\t'))
      return {};
    const std::string number(line.substr(start, i - start));
    raw = std::strtod(number.c_str(), nullptr);
    if (!(raw >= 0) || raw > 1e15) return {};
    return {
        size_at{start, i, fraction ? bytes{0} : bytes{1}}};  // value: 1 when the number was whole
  }
  return {};
}

// Every size in `line`, left to right.
std::vector<size_at> sizes_in(std::string_view line) {
  std::vector<size_at> out;
  std::size_t i = 0;
  while (i < line.size()) {
    const bool starts = is_digit(line[i]) && (i == 0 || (!is_alnum(line[i - 1]) && line[i - 1] != '.' &&
                                                         line[i - 1] != ',' && line[i - 1] != '_'));
    if (starts)
      if (const auto s = size_starting(line, i)) {
        out.push_back(*s);
        i = s->end;
        continue;
      }
    ++i;
  }
  return out;
}

// The words of a label, lower case, split at anything but letters and digits ("Max_MA" -> max, ma).
std::vector<std::string> words_of(std::string_view label) {
  std::vector<std::string> out;
  std::string w;
  for (const char c : label) {
    if (is_alnum(c)) {
      w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!w.empty()) {
      out.push_back(std::move(w));
      w.clear();
    }
  }
  if (!w.empty()) out.push_back(std::move(w));
  return out;
}

enum class figure_kind { none, allocated, reserved, active };

struct figure_label {
  figure_kind kind = figure_kind::none;
  bool peak = false;
};

// What a label names: torch's allocated figure ("Allocated", "memory_allocated", DeepSpeed's
// "MA"), its reserved one ("Reserved", "cached", "CA") or its active one ("Active", memory_stats'
// active_bytes: allocated plus freed blocks still awaiting other streams' events), current or
// peak ("Max", "peak"). A label naming two is a difference ("reserved - allocated"), and one
// naming what is free, a change or a total, none of them.
figure_label classify(std::string_view label) {
  bool allocated = false, reserved = false, active = false, peak = false, other = false;
  for (const auto& w : words_of(label)) {
    if (w == "ma" || w.starts_with("alloc")) allocated = true;
    else if (w == "ca" || w.starts_with("reserv") || w.starts_with("cache")) reserved = true;
    else if (w == "active")
      active = true;
    else if (w == "max" || w == "peak" || w == "maximum" || w == "highest") peak = true;
    else if (w == "free" || w == "wasted" || w == "spike" || w == "delta" || w == "diff" || w == "difference" ||
             w == "total" || w == "unallocated" || w == "saved" || w == "saving" || w == "increase" ||
             w == "growth" || w == "cpu" || w == "ram" || w == "host")
      other = true;
  }
  if (other || allocated + reserved + active != 1) return {};
  return {allocated  ? figure_kind::allocated
          : reserved ? figure_kind::reserved
                     : figure_kind::active,
          peak};
}

// Whether a label's only words name a peak ("max=", "(peak:").
bool names_only_a_peak(std::string_view label) {
  const auto words = words_of(label);
  return !words.empty() && std::all_of(words.begin(), words.end(), [](const std::string& w) {
    return w == "max" || w == "peak" || w == "maximum" || w == "highest";
  });
}

// Figures that share one unit written after the last ("alloc=10.33 peak=68.03 GiB", a training
// loop's own print): a bare number after "LABEL=" (or "LABEL: "), followed by the next
// "LABEL=SIZE" of the line, takes that size's unit when its label names an allocator figure or a
// peak. Read right to left, so a chain of such numbers takes the last unit.
void add_shared_unit_figures(std::string_view line, std::vector<size_at>& sizes) {
  if (sizes.empty()) return;
  std::vector<size_at> found;
  size_at next = sizes.front();
  while (true) {
    // "LABEL=" right before `next`.
    std::size_t k = next.start;
    if (k == 0 || (line[k - 1] != '=' && line[k - 1] != ':')) break;
    std::size_t label_start = k - 1;
    while (label_start > 0 && (is_alnum(line[label_start - 1]) || line[label_start - 1] == '_'))
      --label_start;
    if (label_start == k - 1 || label_start == 0 || line[label_start - 1] != ' ') break;
    // A bare number before the spaces ahead of that label.
    std::size_t number_end = label_start;
    while (number_end > 0 && line[number_end - 1] == ' ') --number_end;
    std::size_t number_start = number_end;
    while (number_start > 0 && (is_digit(line[number_start - 1]) || line[number_start - 1] == '.'))
      --number_start;
    if (number_start == number_end || !is_digit(line[number_start]) || number_start == 0 ||
        (line[number_start - 1] != '=' && line[number_start - 1] != ':' &&
         line[number_start - 1] != ' '))
      break;
    std::size_t own_label_end = number_start;
    while (own_label_end > 0 && (line[own_label_end - 1] == ' ' || line[own_label_end - 1] == '=' ||
                                 line[own_label_end - 1] == ':'))
      --own_label_end;
    std::size_t own_label_start = own_label_end;
    while (own_label_start > 0 &&
           (is_alnum(line[own_label_start - 1]) || line[own_label_start - 1] == '_'))
      --own_label_start;
    const std::string_view own_label =
        line.substr(own_label_start, own_label_end - own_label_start);
    if (own_label.empty() ||
        (classify(own_label).kind == figure_kind::none && !names_only_a_peak(own_label)))
      break;
    // The unit as `next` writes it: what follows its number.
    std::size_t unit_at = next.start;
    while (unit_at < next.end &&
           (is_digit(line[unit_at]) || line[unit_at] == '.' || line[unit_at] == ','))
      ++unit_at;
    const std::string candidate =
        std::string(line.substr(number_start, number_end - number_start)) +
        std::string(line.substr(unit_at, next.end - unit_at));
    std::size_t used = 0;
    const auto value = parse_size_prefix(candidate, used);
    if (!value || used != candidate.size()) break;
    next = size_at{number_start, number_end, *value};
    found.push_back(next);
  }
  sizes.insert(sizes.begin(), found.rbegin(), found.rend());
}

// The level of `s` that a figure of kind `kind` (not none) fills; Stats is torch_stats, const
// or not.
template <typename Stats>
auto& level_of(Stats& s, figure_kind kind) {
  return kind == figure_kind::allocated  ? s.allocated
         : kind == figure_kind::reserved ? s.reserved
                                         : s.active;
}

// Sets the figure a label names; false when it names none or the entry has it already.
bool put(torch_stats& s, figure_label what, bytes value) {
  if (what.kind == figure_kind::none) return false;
  auto& level = level_of(s, what.kind);
  auto& slot = what.peak ? level.peak : level.current;
  if (slot) return false;
  slot = value;
  return true;
}

// A reading: what the tensors hold (allocated, or active where the paste gives no allocated
// figure) and what the allocator reserved.
bool has_both(const torch_stats& s) {
  return (s.allocated.current || s.allocated.peak || s.active.current || s.active.peak) &&
         (s.reserved.current || s.reserved.peak);
}

// A line of an out-of-memory message or an allocator dump: oom_report.hpp reads those.
bool message_line(std::string_view t) {
  for (std::string_view m : {"out of memory", "Tried to allocate", "allocated by PyTorch", "total capacity",
                             "total capacty", "already allocated", "reserved in total", "InUse", "Limit:",
                             "memory summary", "would exceed allowed memory", "Out of memory"})
    if (contains(t, m)) return true;
  return false;
}

std::string cut_label(std::string_view t) {
  t = trim(t);
  while (!t.empty() && (t.front() == '-' || t.front() == '*' || t.front() == '#' || t.front() == '>' ||
                        t.front() == ' '))
    t.remove_prefix(1);
  while (!t.empty() && (t.back() == ':' || t.back() == ' ')) t.remove_suffix(1);
  return std::string(t.substr(0, 60));
}

// ---- vLLM's profile.

std::optional<bytes> size_after(std::string_view t, std::string_view label) {
  const std::size_t at = t.find(label);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t i = at + label.size();
  while (i < t.size() && (t[i] == ' ' || t[i] == '(' || t[i] == ':')) ++i;
  if (i >= t.size() || !is_digit(t[i])) return std::nullopt;
  if (const auto s = size_starting(t, i)) return s->value;
  return std::nullopt;
}

std::optional<double> decimal_after(std::string_view t, std::string_view label) {
  const std::size_t at = t.find(label);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t i = at + label.size();
  while (i < t.size() && (t[i] == ' ' || t[i] == '(' || t[i] == '=')) ++i;
  std::size_t end = i;
  while (end < t.size() && (is_digit(t[end]) || t[end] == '.')) ++end;
  return parse_decimal(t.substr(i, end - i));
}

// "(2.6/121.63 GiB)": F takes T's unit.
void read_startup_check(std::string_view t, vllm_profile& v) {
  const std::size_t open = t.find('(', t.find("Free memory on device"));
  const std::size_t slash = open == std::string_view::npos ? open : t.find('/', open);
  if (slash == std::string_view::npos) return;
  const auto free = parse_decimal(trim(t.substr(open + 1, slash - open - 1)));
  const std::size_t close = t.find(')', slash);
  if (!free || close == std::string_view::npos) return;
  // T with its unit; F is in the same unit.
  const std::string_view total_text = trim(t.substr(slash + 1, close - slash - 1));
  const auto total = total_text.empty() || !is_digit(total_text.front()) ? std::nullopt : size_starting(total_text, 0);
  const std::size_t digits = total_text.find_first_not_of("0123456789.");
  const auto total_number = parse_decimal(total_text.substr(0, digits));
  if (!total || !total_number || *total_number <= 0 || *free > *total_number) return;  // free above total: misread
  v.total = total->value;
  v.free_at_start = static_cast<bytes>(*free / *total_number * static_cast<double>(total->value));
  // "... utilization (0.9, 14.39 GiB)"
  const std::size_t util = t.find("utilization (", close);
  if (util == std::string_view::npos) return;
  v.utilization = decimal_after(t.substr(util), "utilization (");
  const std::size_t comma = t.find(',', util);
  if (comma != std::string_view::npos) {
    std::size_t i = comma + 1;
    while (i < t.size() && t[i] == ' ') ++i;
    if (const auto c = size_starting(t, i)) v.claimed = c->value;
  }
}

// Reads vLLM's figures off `t` into `v`; true when the line held one.
bool read_vllm(std::string_view t, vllm_profile& v) {
  bool any = false;
  const auto set = [&any](auto& slot, auto value) {
    if (value && !slot) {
      slot = value;
      any = true;
    }
  };
  if (contains(t, "total_gpu_memory")) {
    set(v.total, size_after(t, "total_gpu_memory"));
    set(v.utilization, decimal_after(t, "gpu_memory_utilization ("));
    if (const std::size_t eq = t.rfind("= "); eq != std::string_view::npos && eq + 2 < t.size() && is_digit(t[eq + 2]))
      if (const auto c = size_starting(t, eq + 2)) set(v.claimed, std::optional<bytes>(c->value));
  }
  set(v.weights, size_after(t, "model weights take"));
  set(v.weights, size_after(t, "Model loading took"));
  set(v.weights, size_after(t, "Loading model weights took"));
  set(v.non_torch, size_after(t, "non_torch_memory takes"));
  set(v.activation_peak, size_after(t, "activation peak memory takes"));
  set(v.kv_cache, size_after(t, "reserved for KV Cache is"));
  set(v.kv_cache, size_after(t, "Available KV cache memory"));
  if (contains(t, "No available memory for the cache blocks")) set(v.kv_cache, std::optional<bytes>(0));
  if (contains(t, "Free memory on device") && contains(t, "on startup")) {
    const bool had = v.free_at_start.has_value();
    read_startup_check(t, v);
    any = any || (!had && v.free_at_start);
  }
  return any;
}

// A device named at a line's start ("GPU 0", "GPU:1", "gpu 2", "cuda:0", "Device 3", after a
// list mark): its index and where the rest of the line starts.
struct device_at {
  int index = 0;
  std::size_t end = 0;
};

std::optional<device_at> device_designator(std::string_view t) {
  std::size_t i = 0;
  while (i < t.size() && (t[i] == '-' || t[i] == '*' || t[i] == ' ')) ++i;
  const std::string low = to_lower(t.substr(i, 12));
  for (std::string_view name : {"gpu", "cuda", "device"}) {
    if (low.substr(0, name.size()) != name) continue;
    std::size_t k = i + name.size();
    if (k < t.size() && (t[k] == ' ' || t[k] == ':' || t[k] == '#')) ++k;
    const std::size_t digits = k;
    while (k < t.size() && is_digit(t[k]) && k - digits < 4) ++k;
    if (k == digits || (k < t.size() && is_alnum(t[k]))) return std::nullopt;
    const auto v = parse_uint(t.substr(digits, k - digits));
    if (!v) return std::nullopt;
    return device_at{static_cast<int>(*v), k};
  }
  return std::nullopt;
}

// ---- A markdown table of figures.

std::vector<std::string_view> cells_of(std::string_view row) {
  row = trim(row);
  if (!row.empty() && row.front() == '|') row.remove_prefix(1);
  if (!row.empty() && row.back() == '|') row.remove_suffix(1);
  std::vector<std::string_view> out;
  for (auto c : split(row, '|')) out.push_back(trim(c));
  return out;
}

bool separator_row(std::string_view row) {
  const auto cells = cells_of(row);
  return !cells.empty() && std::all_of(cells.begin(), cells.end(), [](std::string_view c) {
    return !c.empty() && c.find_first_not_of("-: ") == std::string_view::npos && c.find('-') != std::string_view::npos;
  });
}

// The one size a cell holds ("**11,478 MB**", "2,942 MB"), or none.
std::optional<bytes> cell_size(std::string_view cell) {
  while (!cell.empty() && (cell.front() == '*' || cell.front() == '`' || cell.front() == ' ')) cell.remove_prefix(1);
  while (!cell.empty() && (cell.back() == '*' || cell.back() == '`' || cell.back() == ' ')) cell.remove_suffix(1);
  if (cell.empty() || !is_digit(cell.front())) return std::nullopt;
  const auto s = size_starting(cell, 0);
  if (!s || trim(cell.substr(s->end)).size() > 0) return std::nullopt;
  return s->value;
}

// Headers that put a state before a change ("Before", "without", "baseline") or after it.
bool names_before(std::string_view header) {
  for (const auto& w : words_of(header))
    if (w == "before" || w == "without" || w == "baseline" || w == "old" || w == "main") return true;
  return false;
}

// Reads the table of `rows` (header, separator, body) into one torch_stats per value column, or
// per row when the header names the figures.
void read_table(const std::vector<text_line>& rows, const std::string& source, memory_figures& out) {
  if (rows.size() < 3 || !separator_row(rows[1].text)) return;
  for (const auto& r : rows)
    if (contains(r.text, "Cur Usage") || contains(r.text, "memory summary")) return;  // memory_summary's
  const auto header = cells_of(rows[0].text);
  if (header.size() < 2) return;
  const bool comparison = names_before(header[1]);
  bool read_any = false;
  for (std::size_t col = 1; col < header.size(); ++col) {
    torch_stats s;
    s.origin = stats_origin::log_figures;
    s.source = source;
    std::vector<std::string> rows_read;
    for (std::size_t r = 2; r < rows.size(); ++r) {
      const auto cells = cells_of(rows[r].text);
      if (cells.size() <= col) continue;
      const auto value = cell_size(cells[col]);
      if (!value) continue;
      if (put(s, classify(cells[0]), *value)) rows_read.push_back(cut_label(cells[0]));
    }
    if (!has_both(s)) continue;
    s.label = cut_label(header[col]);
    if (!rows_read.empty()) s.label += fmt::format(" ({})", fmt::join(rows_read, "; "));
    s.after_change = comparison && col > 1;
    s.cut_at_line = std::nullopt;
    s.raw["line"] = static_cast<std::uint64_t>(rows[0].number);
    out.stats.push_back(std::move(s));
    read_any = true;
  }
  if (read_any) return;
  const std::size_t stats_before = out.stats.size();
  // The same figures laid the other way, as benchmarks in pull requests print them: the header
  // names a figure in each column ("Peak allocated | Peak reserved"), each row is one variant
  // ("One-shot side stream", "Current stream"). The first row is the state being compared; the
  // later rows are what a change gave when the first one's label names a before state.
  const auto first_row = cells_of(rows[2].text);
  const bool first_before =
      rows.size() > 3 && !first_row.empty() && names_before(first_row.front());
  for (std::size_t r = 2; r < rows.size(); ++r) {
    const auto cells = cells_of(rows[r].text);
    if (cells.empty()) continue;
    torch_stats s;
    s.origin = stats_origin::log_figures;
    s.source = source;
    std::vector<std::string> columns_read;
    for (std::size_t col = 1; col < header.size() && col < cells.size(); ++col)
      if (const auto value = cell_size(cells[col]); value && put(s, classify(header[col]), *value))
        columns_read.push_back(cut_label(header[col]));
    if (!has_both(s)) continue;
    s.label = cut_label(cells[0]);
    // A row per rank or per GPU ("rank 3", "GPU 1", "cuda:0", a bare index) is a reading of that
    // rank or device, not a variant.
    const std::string low = to_lower(trim(cells[0]));
    if (const auto index = parse_uint(low); index && *index < 100'000) {
      s.rank = static_cast<int>(*index);
    } else if (const auto dev = device_designator(cells[0])) {
      if (trim(cells[0].substr(dev->end)).empty()) s.device = dev->index;
    } else if (low.starts_with("rank") && low.size() > 4) {
      const std::string_view n =
          trim(std::string_view(low).substr(low[4] == ' ' || low[4] == ':' ? 5 : 4));
      if (const auto r = parse_uint(n); r && *r < 100'000) s.rank = static_cast<int>(*r);
    }
    if (!columns_read.empty()) s.label += fmt::format(" ({})", fmt::join(columns_read, "; "));
    s.after_change = first_before && r > 2;
    s.raw["line"] = static_cast<std::uint64_t>(rows[r].number);
    out.stats.push_back(std::move(s));
  }
  if (out.stats.size() > stats_before) return;
  // Nothing read: the rows that hold sizes are what a refusal quotes.
  for (std::size_t r = 2; r < rows.size() && out.unread.size() < 4; ++r)
    if (!sizes_in(rows[r].text).empty())
      out.unread.push_back(
          fmt::format("{}: {}", rows[r].number, trim(rows[r].text).substr(0, 120)));
}

// "N / SIZE": a number without unit before the slash, in the total's unit.
std::optional<bytes> unitless_before(std::string_view t, const size_at& total) {
  std::size_t i = total.start;
  while (i > 0 && t[i - 1] == ' ') --i;
  if (i == 0 || t[i - 1] != '/') return std::nullopt;
  --i;
  while (i > 0 && t[i - 1] == ' ') --i;
  const std::size_t end = i;
  while (i > 0 && (is_digit(t[i - 1]) || t[i - 1] == '.')) --i;
  if (i == end || (i > 0 && (is_alnum(t[i - 1]) || t[i - 1] == ','))) return std::nullopt;
  const auto used = parse_decimal(t.substr(i, end - i));
  std::string total_digits;  // the total's number without its thousands separators
  for (std::size_t k = total.start; k < total.end && (is_digit(t[k]) || t[k] == '.' || t[k] == ','); ++k)
    if (t[k] != ',') total_digits += t[k];
  const auto total_number = parse_decimal(total_digits);
  if (!used || !total_number || *total_number <= 0 || *used > *total_number) return std::nullopt;
  return static_cast<bytes>(*used / *total_number * static_cast<double>(total.value));
}

// gpustat's "[0] NVIDIA A100-SXM4-80GB | ...": the GPU's index at the line's start.
std::optional<int> bracketed_index(std::string_view t) {
  if (t.size() < 3 || t.front() != '[') return std::nullopt;
  const std::size_t close = t.find(']');
  if (close == std::string_view::npos || close > 4) return std::nullopt;
  const auto v = parse_uint(t.substr(1, close - 1));
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

// What a device row's label says its one size is: used (memory used, in use, utilization,
// usage), free or total; none for the allocator's own figures (allocated, reserved: a
// torch_stats line), a peak, or memory that is not the GPU's.
enum class device_figure { none, used, free, total };

device_figure device_figure_of(std::string_view label) {
  bool memory = false, used = false, free = false, total = false;
  for (const auto& w : words_of(label)) {
    if (w.starts_with("alloc") || w.starts_with("reserv") || w.starts_with("cache") || w == "max" ||
        w == "peak" || w == "cpu" || w == "ram" || w == "host" || w == "swap" || w == "ma" ||
        w == "ca")
      return device_figure::none;
    if (w == "memory" || w == "mem" || w == "vram")
      memory = true;
    else if (w == "used" || w == "use" || w == "usage" || w.starts_with("utili"))
      used = true;
    else if (w == "free" || w == "available")
      free = true;
    else if (w == "total" || w == "capacity")
      total = true;
  }
  if (!memory && !used) return device_figure::none;
  if (free + total + used > 1) return device_figure::none;
  return free ? device_figure::free : total ? device_figure::total : device_figure::used;
}

// "LABEL [a, b, c, d]": the label and two or more whole numbers (each below 100,000), or nothing.
std::optional<observation::process_count> counted_list(std::string_view t) {
  const std::size_t open = t.find('[');
  if (open == std::string_view::npos || open == 0) return std::nullopt;
  const std::size_t close = t.find(']', open);
  if (close == std::string_view::npos) return std::nullopt;
  observation::process_count c;
  for (auto item : split(t.substr(open + 1, close - open - 1), ',')) {
    const auto v = parse_uint(trim(item));
    if (!v || *v >= 100'000) return std::nullopt;
    c.per_gpu.push_back(static_cast<int>(*v));
  }
  if (c.per_gpu.size() < 2) return std::nullopt;
  c.label = cut_label(t.substr(0, open));
  if (c.label.empty()) return std::nullopt;
  return c;
}

// Whether the paste speaks of processes (a count of them is what its lists are).
bool speaks_of_processes(std::string_view text) {
  const std::string low = to_lower(text.substr(0, 64 * 1024));
  for (std::string_view w :
       {"process", "client", "context", "procs", "compute-apps", "compute apps"})
    if (low.find(w) != std::string::npos) return true;
  return false;
}

// The whole number right after `key` at `at` in `low` (lower case) when `key` starts a word
// ("comm.rank", "local_rank" and "[rank" count; "ranking" does not) and one of `seps` (or none,
// when `bare`) stands between them: "rank=3", "rank: 3", "[rank3]", "cuda:0".
std::optional<int> number_after(std::string_view low, std::string_view key, std::string_view seps,
                                bool bare) {
  for (std::size_t at = low.find(key); at != std::string_view::npos; at = low.find(key, at + 1)) {
    if (at > 0 && is_alnum(low[at - 1])) continue;
    std::size_t k = at + key.size();
    const std::size_t sep = k;
    while (k < low.size() && k - sep < 2 && seps.find(low[k]) != std::string_view::npos) ++k;
    if (k == sep && !bare) continue;
    const std::size_t digits = k;
    while (k < low.size() && is_digit(low[k]) && k - digits < 5) ++k;
    if (k == digits || (k < low.size() && is_alnum(low[k]))) continue;
    if (const auto v = parse_uint(low.substr(digits, k - digits))) return static_cast<int>(*v);
  }
  return std::nullopt;
}

// A line naming a process's rank and the GPU it uses: "rank" (also comm.rank, local_rank,
// "[rankN]") with its number, and a device as a distributed program names it ("device_id=0",
// "device=0", "gpu_id=0", "gpu=0", "cuda:0"). The separators are required for the device so
// that words ("device 0 has ...") are not read as a selection.
std::optional<observation::rank_device> rank_device_of(std::string_view t) {
  if (t.size() > 400) return std::nullopt;
  const std::string low = to_lower(t);
  const auto rank = number_after(low, "rank", "=: ", true);
  if (!rank) return std::nullopt;
  std::optional<int> device;
  for (std::string_view key : {"device_id", "deviceid", "device", "gpu_id", "gpu"})
    if ((device = number_after(low, key, "=:", false))) break;
  if (!device) device = number_after(low, "cuda:", "", true);
  if (!device || *device >= 4096 || *rank >= 1'000'000) return std::nullopt;
  observation::rank_device out;
  out.rank = *rank;
  out.device = *device;
  return out;
}

// The count right after `key` in `low` (lower case), separated by "=", ":", "()" or spaces and
// followed by no letter: a byte count as a Python method returns it.
std::optional<bytes> count_after_key(std::string_view low, std::string_view key) {
  const std::size_t at = low.find(key);
  if (at == std::string_view::npos || (at > 0 && (is_alnum(low[at - 1]) || low[at - 1] == '_')))
    return std::nullopt;
  std::size_t k = at + key.size();
  while (k < low.size() && k - at - key.size() < 6 &&
         (low[k] == '=' || low[k] == ':' || low[k] == '(' || low[k] == ')' || low[k] == ' '))
    ++k;
  const std::size_t digits = k;
  while (k < low.size() && is_digit(low[k]) && k - digits < 20) ++k;
  if (k == digits || (k < low.size() && (is_alnum(low[k]) || low[k] == '.'))) return std::nullopt;
  return parse_uint(low.substr(digits, k - digits));
}

// (used_bytes, total_bytes) of a CuPy pool named on the line, the first no more than the second.
std::optional<std::pair<bytes, bytes>> cupy_pool_counts(std::string_view t) {
  if (t.size() > 400) return std::nullopt;
  const std::string low = to_lower(t);
  const auto used = count_after_key(low, "used_bytes");
  const auto total = count_after_key(low, "total_bytes");
  if (!used || !total || *used > *total) return std::nullopt;
  return std::pair{*used, *total};
}

}  // namespace

// Figures typed into Python's interactive prompt: ">>> torch.cuda.memory_reserved(0)" and the
// count it printed on the next line ("2097152"), bytes as torch.cuda's functions return them
// (torch/cuda/memory.py: memory_allocated, memory_reserved and their max_ forms; memory_cached
// is memory_reserved's old name). The first answer of each is kept; a torch_stats when both an
// allocated and a reserved figure are given, as for a log's lines.
std::optional<torch_stats> repl_figures(const std::vector<text_line>& lines,
                                        const std::string& source) {
  static constexpr std::pair<std::string_view, figure_label> calls[] = {
      {"max_memory_allocated(", figure_label{figure_kind::allocated, true}},
      {"max_memory_reserved(", figure_label{figure_kind::reserved, true}},
      {"max_memory_cached(", figure_label{figure_kind::reserved, true}},
      {"memory_allocated(", figure_label{figure_kind::allocated, false}},
      {"memory_reserved(", figure_label{figure_kind::reserved, false}},
      {"memory_cached(", figure_label{figure_kind::reserved, false}}};
  torch_stats s;
  s.origin = stats_origin::log_figures;
  s.source = source;
  s.label = "typed at the Python prompt";
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    const std::string_view t = trim(lines[i].text);
    if (!t.starts_with(">>> ") || !contains(t, "cuda.")) continue;
    const std::string_view answer = trim(lines[i + 1].text);
    const auto value = parse_uint(answer);
    if (!value || answer.starts_with(">>>")) continue;
    for (const auto& [call, what] : calls)
      if (const std::size_t at = t.find(call);
          at != std::string_view::npos && (at == 0 || t[at - 1] == '.' || t[at - 1] == ' ')) {
        put(s, what, *value);
        break;
      }
  }
  if (!has_both(s)) return std::nullopt;
  return s;
}

// A test's check of torch.cuda.memory_allocated() before and after some work: the traceback's
// source line "assert A <= B, (X, Y)" (also "<" and "=="), whose names speak of memory, and the
// AssertionError under it printing the tuple "(N, M)". Python prints an assertion's message
// with str(), so a tuple of two ints is "(N, M)"; torch.cuda.memory_allocated() returns bytes
// (torch/cuda/memory.py). The tuple's names are matched to the comparison's sides, so the figure
// bounded (A) is `after` and its bound (B) `before`, whatever order the tuple gives.
std::optional<observation::allocated_check> allocated_check_of(std::string_view assert_line,
                                                               std::string_view error_line) {
  constexpr std::string_view error_anchor = "AssertionError: (";
  if (!error_line.starts_with(error_anchor) || !error_line.ends_with(")")) return std::nullopt;
  const auto values = split(
      error_line.substr(error_anchor.size(), error_line.size() - error_anchor.size() - 1), ',');
  if (values.size() != 2) return std::nullopt;
  const auto first = parse_uint(trim(values[0]));
  const auto second = parse_uint(trim(values[1]));
  if (!first || !second) return std::nullopt;
  if (!assert_line.starts_with("assert ")) return std::nullopt;
  const std::string low = to_lower(assert_line);
  if (!contains(low, "memory") && !contains(low, "alloc")) return std::nullopt;
  std::string_view rest = assert_line.substr(7);
  const std::size_t comma = rest.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  const std::string_view comparison = rest.substr(0, comma);
  std::string_view tuple = trim(rest.substr(comma + 1));
  if (tuple.size() < 2 || tuple.front() != '(' || tuple.back() != ')') return std::nullopt;
  const auto names = split(tuple.substr(1, tuple.size() - 2), ',');
  if (names.size() != 2) return std::nullopt;
  for (std::string_view op : {"<=", "==", "<"}) {
    const std::size_t at = comparison.find(op);
    if (at == std::string_view::npos) continue;
    const std::string_view bounded = trim(comparison.substr(0, at));
    const std::string_view bound = trim(comparison.substr(at + op.size()));
    observation::allocated_check c;
    if (trim(names[0]) == bounded && trim(names[1]) == bound) {
      c.after = *first;
      c.before = *second;
    } else if (trim(names[0]) == bound && trim(names[1]) == bounded) {
      c.after = *second;
      c.before = *first;
    } else {
      return std::nullopt;
    }
    c.assertion = std::string(assert_line.substr(0, 200));
    return c;
  }
  return std::nullopt;
}

// TensorFlow.js's tf.memory() as console.log or JSON.stringify prints it: "{unreliable: false,
// numTensors: 32, numDataBuffers: 22, numBytes: 9605380}" (MemoryInfo, tfjs-core engine.ts:
// numBytes the bytes of all live tensors, numTensors their count). The two figures, or none.
std::optional<std::pair<bytes, bytes>> tfjs_memory(std::string_view t) {
  const auto after = [&](std::string_view key) -> std::optional<bytes> {
    const std::size_t at = t.find(key);
    if (at == std::string_view::npos) return std::nullopt;
    std::size_t i = at + key.size();
    if (i < t.size() && t[i] == '"') ++i;
    while (i < t.size() && (t[i] == ':' || t[i] == ' ')) ++i;
    std::size_t end = i;
    while (end < t.size() && is_digit(t[end])) ++end;
    if (end == i || end - i > 18) return std::nullopt;
    return parse_uint(t.substr(i, end - i));
  };
  const auto tensors = after("numTensors");
  const auto bytes_held = after("numBytes");
  if (!tensors || !bytes_held) return std::nullopt;
  return std::pair{*bytes_held, *tensors};
}

memory_figures find_memory_figures(std::string_view text, const std::string& source) {
  memory_figures out;
  const auto lines = split_lines(text);
  std::optional<vllm_profile> profile;
  const auto close_profile = [&] {
    if (profile) out.vllm.push_back(std::move(*profile));
    profile.reset();
  };
  std::vector<text_line> table;
  std::string previous_label;
  struct tf_device {
    std::optional<int> index;
    std::optional<bytes> total, free;
  } tf;
  std::optional<torch_stats> half;  // a line's allocated or reserved figures alone
  std::vector<torch_stats> allocated_only;  // a line's allocated peak and current, no reserved
  int half_line = 0;
  std::map<std::string, observation::figure_series> runs;  // by label, numbers aside
  // Runs of unitless API figures: each print's number, and whether it was whole.
  std::map<std::string, std::vector<std::pair<double, bool>>> unitless_raw;
  // Per-device rows ("GPU 0 Memory Utilization: 44708986880 bytes"), the latest reading of each
  // device: a row whose figure that device has already starts a new reading.
  std::map<int, gpu_observation> device_rows;
  std::map<int, int> device_readings;
  std::vector<observation::process_count>
      counts;  // kept when all are as long and the paste names processes
  for (std::size_t i = 0; i <= lines.size(); ++i) {
    std::string_view t = i < lines.size() ? trim(lines[i].text) : std::string_view{};
    // Tables: a run of lines that start with '|'.
    if (i < lines.size() && !t.empty() && t.front() == '|') {
      table.push_back(lines[i]);
      continue;
    }
    if (!table.empty()) {
      read_table(table, source, out);
      table.clear();
    }
    if (i == lines.size()) break;
    if (t.empty() || is_kaldi_cuda_line(t)) continue;  // Kaldi's own reader's (kaldi_log.hpp)
    if (const auto tfjs = tfjs_memory(t)) {
      for (const bool count : {false, true}) {
        auto& run = runs[count ? "tf.memory() numTensors" : "tf.memory() numBytes"];
        run.label = count ? "tf.memory() numTensors" : "tf.memory() numBytes";
        run.source = source;
        run.tensor_count = count;
        run.points.emplace_back(lines[i].number, count ? tfjs->second : tfjs->first);
      }
      continue;
    }
    if (i > 0)
      if (auto check = allocated_check_of(trim(lines[i - 1].text), t)) {
        check->line = lines[i].number;
        check->source = source;
        out.allocated_checks.push_back(std::move(*check));
        continue;
      }
    // The vLLM start-up check's message wrapped over two lines (a terminal's or a CI log's
    // width): read as the one line vLLM printed.
    std::string joined;
    // vLLM's profile: figures over several lines, one profile until a figure repeats.
    {
      if (contains(t, "Free memory on device") && !contains(t, "utilization (") &&
          i + 1 < lines.size() && contains(lines[i + 1].text, "utilization (")) {
        joined = std::string(t) + " " + std::string(trim(lines[i + 1].text));
        t = joined;
      }
      vllm_profile probe;
      if (read_vllm(t, probe)) {
        if (!profile) {
          profile = vllm_profile{};
          profile->line = lines[i].number;
          profile->source = source;
        }
        vllm_profile merged = *profile;
        if (!read_vllm(t, merged)) {  // every figure of this line was set already: a new profile
          close_profile();
          profile = vllm_profile{};
          profile->line = lines[i].number;
          profile->source = source;
          read_vllm(t, *profile);
        } else {
          *profile = merged;
        }
        continue;
      }
      if (profile && (contains(t, "Traceback") || contains(t, "Error:") || contains(t, "Error ") ||
                      contains(t, "error:")))
        profile->error_after = true;
    }
    if (message_line(t)) {
      previous_label.clear();
      continue;
    }
    if (auto rd = rank_device_of(t)) {
      rd->line = lines[i].number;
      rd->source = source;
      // A CuPy pool's own counts on the rank's line, in bytes as its methods return them:
      // used_bytes() (the arrays in use) and total_bytes() (all the pool holds, cached blocks
      // included; cupy/cuda/memory.pyx, MemoryPool), printed under those names.
      if (const auto pool = cupy_pool_counts(t)) {
        rd->pool_used = pool->first;
        rd->pool_held = pool->second;
      }
      std::erase_if(out.rank_devices, [&](const auto& r) { return r.rank == rd->rank; });
      out.rank_devices.push_back(std::move(*rd));
      if (rd->pool_held) continue;
    }
    // XLA's pool at its creation.
    for (const auto& [anchor, preallocated] : {std::pair<std::string_view, bool>{"XLA backend allocating ", true},
                                               std::pair<std::string_view, bool>{"XLA backend will use up to ", false}})
      if (const std::size_t at = t.find(anchor); at != std::string_view::npos) {
        if (at + anchor.size() >= t.size() || !is_digit(t[at + anchor.size()])) continue;
        const auto size = size_starting(t, at + anchor.size());
        if (!size) continue;
        observation::xla_pool pool;
        pool.size = size->value;
        pool.preallocated = preallocated;
        pool.line = lines[i].number;
        pool.source = source;
        if (const std::size_t dev = t.find("on device ", size->end); dev != std::string_view::npos) {
          std::size_t end = dev + 10;
          while (end < t.size() && is_digit(t[end])) ++end;
          if (const auto v = parse_uint(t.substr(dev + 10, end - dev - 10)); v && *v < 4096)
            pool.device = static_cast<int>(*v);
        }
        out.xla_pools.push_back(std::move(pool));
        break;
      }
    if (!out.xla_pools.empty() && out.xla_pools.back().line == lines[i].number) continue;
    // TensorFlow's device at its start.
    if (const std::size_t found = t.find("Found device "); found != std::string_view::npos) {
      std::size_t end = found + 13;
      while (end < t.size() && is_digit(t[end])) ++end;
      tf = tf_device{};
      if (const auto v = parse_uint(t.substr(found + 13, end - found - 13)); v && *v < 4096)
        tf.index = static_cast<int>(*v);
    }
    bool tf_line = false;
    for (std::string_view label : {"Total memory:", "totalMemory:"})
      if (const auto v = size_after(t, label)) {
        tf.total = v;
        tf_line = true;
      }
    for (std::string_view label : {"Free memory:", "freeMemory:"})
      if (const auto v = size_after(t, label)) {
        tf.free = v;
        tf_line = true;
      }
    if (tf_line) {
      if (tf.total && tf.free && *tf.free <= *tf.total) {
        gpu_observation g;
        g.index = tf.index;
        g.total = tf.total;
        g.used = *tf.total - *tf.free;
        out.devices_at_start.push_back(std::move(g));
        tf = tf_device{};
      }
      continue;
    }
    auto sizes = sizes_in(t);
    add_shared_unit_figures(t, sizes);
    // A figure of torch.cuda's memory API without a unit: a series point only (below).
    double raw = 0;
    const bool unitless = sizes.empty() && (sizes = unitless_api_figure(t, raw)).size() == 1;
    if (sizes.empty())
      if (auto c = counted_list(t)) {
        c->line = lines[i].number;
        c->source = source;
        counts.push_back(std::move(*c));
        continue;
      }
    if (sizes.empty()) {
      previous_label = t.size() <= 60 ? cut_label(t) : std::string();
      continue;
    }
    // One size after a label: a point of the label's series (its numbers aside, so that "Step 1:"
    // and "Step 5:" are one label).
    // A line that goes on past its figure to a failure ("Step 9: 38.2 GiB -> OOM (attempted 970
    // MiB, ...)") gives its first size as the point.
    const bool failure_after =
        sizes.size() > 1 && names_memory_failure(to_lower(t.substr(sizes[0].end)));
    if ((sizes.size() == 1 || failure_after) && sizes[0].start > 0 && sizes[0].start <= 80) {
      std::string key;
      for (char c : t.substr(0, sizes[0].start)) {
        if (is_digit(c) || c == '.') {
          if (key.empty() || key.back() != '#') key += '#';
        } else if (c != '~' && c != ' ' && c != '\t' && c != '=') {
          key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
      }
      if (std::any_of(key.begin(), key.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; })) {
        auto& run = runs[key];
        if (run.points.empty()) {
          std::string_view label = trim(t.substr(0, sizes[0].start));
          while (!label.empty() && (label.back() == '~' || label.back() == ' '))
            label.remove_suffix(1);
          run.label = std::string(label);
          run.source = source;
          if (unitless) unitless_raw[key];  // its unit is chosen from all its prints, below
        }
        const auto raws = unitless_raw.find(key);
        if (unitless != (raws != unitless_raw.end()))
          continue;  // a series is all unitless or all sized
        if (unitless) raws->second.push_back({raw, sizes[0].value == 1});
        run.points.emplace_back(lines[i].number, unitless ? 0 : sizes[0].value);
      }
    }
    if (unitless) continue;
    // Allocator figures: a size after each label. A script that prints allocated and reserved
    // on two lines gives half on each: the halves of consecutive lines are joined.
    torch_stats s;
    s.origin = stats_origin::log_figures;
    s.source = source;
    std::size_t from = 0;
    // A label that names only a peak ("max=") is the peak of the figure labelled before it on the
    // line: DeepSpeed's memory_status (deepspeed/runtime/utils.py) prints "current alloc=XGB
    // (delta=YGB max=ZGB) current cache=XGB (delta=YGB max=ZGB)", max_memory_allocated and
    // max_memory_reserved after their current figures.
    figure_kind line_kind = figure_kind::none;
    for (const auto& z : sizes) {
      const std::string_view label = t.substr(from, z.start - from);
      figure_label what = classify(label);
      if (what.kind == figure_kind::none && line_kind != figure_kind::none &&
          names_only_a_peak(label))
        what = {line_kind, true};
      if (what.kind != figure_kind::none) line_kind = what.kind;
      put(s, what, z.value);
      from = z.end;
    }
    const bool any = s.allocated.current || s.allocated.peak || s.reserved.current ||
                     s.reserved.peak || s.active.current || s.active.peak;
    if (any && !has_both(s) && half && half_line + 1 == lines[i].number) {
      for (const figure_label what :
           {figure_label{figure_kind::allocated, false}, figure_label{figure_kind::allocated, true},
            figure_label{figure_kind::reserved, false}, figure_label{figure_kind::reserved, true},
            figure_label{figure_kind::active, false}, figure_label{figure_kind::active, true}}) {
        const auto& level = level_of(std::as_const(*half), what.kind);
        if (const auto& v = what.peak ? level.peak : level.current) put(s, what, *v);
      }
      if (has_both(s)) {
        for (auto* quoted : {&out.unread, &out.lone})
          if (!quoted->empty() && quoted->back().starts_with(fmt::format("{}: ", half_line)))
            quoted->pop_back();
        s.label = half->label;
        s.raw["line"] = static_cast<std::uint64_t>(half_line);
      }
    } else if (has_both(s)) {
      s.label = previous_label;
      s.raw["line"] = static_cast<std::uint64_t>(lines[i].number);
    }
    half.reset();
    if (has_both(s)) {
      out.stats.push_back(std::move(s));
      previous_label.clear();
      continue;
    }
    // What a line of one allocator figure gives and lacks, for a refusal to name.
    const char* lone_kind = nullptr;
    if (any)
      lone_kind = s.reserved.current || s.reserved.peak ? "reserved without allocated or active"
                  : s.active.current || s.active.peak   ? "active without reserved"
                                                        : "allocated without reserved";
    if (any) {
      s.label = previous_label;
      // A line with the live tensors' peak and their figure at another moment and no reserved
      // figure ("peak_alloc = 35.575 GiB, final_alloc = 35.575 GiB", a benchmark's line): what
      // the tensors held at their peak and after it, kept aside in case the paste has no
      // allocator figures of its own. What would say where the rest went is named as missing.
      if (s.allocated.peak && s.allocated.current && !s.reserved.current && !s.reserved.peak &&
          allocated_only.size() < 4) {
        torch_stats a = s;
        a.raw["line"] = static_cast<std::uint64_t>(lines[i].number);
        if (a.label.empty()) a.label = cut_label(t.substr(0, sizes[0].start));
        a.missing = {"reserved_bytes.all.peak", "active_bytes.all.peak"};
        allocated_only.push_back(std::move(a));
      }
      half = std::move(s);
      half_line = lines[i].number;
    }
    // A device's row with one figure of its own.
    if (const auto dev = device_designator(t);
        dev && !any && sizes.size() == 1 && sizes[0].start >= dev->end) {
      const auto what = device_figure_of(t.substr(dev->end, sizes[0].start - dev->end));
      if (what != device_figure::none) {
        auto& g = device_rows[dev->index];
        auto& slot = what == device_figure::used   ? g.used
                     : what == device_figure::free ? g.free
                                                   : g.total;
        if (slot || device_readings[dev->index] == 0) {
          g = gpu_observation{};
          g.index = dev->index;
          ++device_readings[dev->index];
        }
        (what == device_figure::used   ? g.used
         : what == device_figure::free ? g.free
                                       : g.total) = sizes[0].value;
        previous_label.clear();
        continue;
      }
    }
    // nvidia-smi's usage cell quoted in prose: "USED / TOTAL", used no more than total. The
    // used figure may leave its unit to the total ("61352 / 81920 MB", gpustat; "7.8/8.0 GB").
    bool read = false;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      std::optional<bytes> used;
      if (k > 0 && trim(t.substr(sizes[k - 1].end, sizes[k].start - sizes[k - 1].end)) == "/")
        used = sizes[k - 1].value;
      else
        used = unitless_before(t, sizes[k]);
      if (!used || *used > sizes[k].value || sizes[k].value < 256_MiB) continue;
      const auto words = words_of(t);
      if (std::any_of(words.begin(), words.end(), [](const std::string& w) {
            return w == "cpu" || w == "ram" || w == "host" || w == "swap" || w == "disk" || w == "kv" ||
                   w == "cache" || w == "shared" || w.starts_with("download") || w.starts_with("upload") ||
                   w == "safetensors" || w == "bin" || w == "file" || w == "files";
          }))
        break;
      gpu_observation g;
      g.index = bracketed_index(t);
      if (const auto dev = device_designator(t); !g.index && dev && dev->end <= sizes[0].start)
        g.index = dev->index;
      g.used = used;
      g.total = sizes[k].value;
      out.gpus.push_back(std::move(g));
      read = true;
      break;
    }
    if (!read && lone_kind && out.lone.size() < 4)
      out.lone.push_back(fmt::format("{}: {} ({})", lines[i].number, t.substr(0, 120), lone_kind));
    else if (!read && out.unread.size() < 4)
      out.unread.push_back(fmt::format("{}: {}", lines[i].number, t.substr(0, 120)));
    previous_label.clear();
  }
  close_profile();
  for (auto& [index, g] : device_rows) {
    if (g.used && g.free && !g.total) g.total = *g.used + *g.free;
    if (g.total && g.free && !g.used && *g.free <= *g.total) g.used = *g.total - *g.free;
    // A reading whose used exceeds its total contradicts itself (rows of two GPUs numbered
    // alike): not read.
    if ((g.used || g.total) && !(g.used && g.total && *g.used > *g.total))
      out.gpus.push_back(std::move(g));
  }
  if (!counts.empty() && speaks_of_processes(text) &&
      std::all_of(counts.begin(), counts.end(),
                  [&](const auto& c) { return c.per_gpu.size() == counts.front().per_gpu.size(); }))
    out.process_counts = std::move(counts);
  for (auto& [key, run] : runs) {
    if (run.points.size() < 3) continue;
    if (const auto raws = unitless_raw.find(key); raws != unitless_raw.end()) {
      // One unit for the series (unitless_api_figure): bytes when every print is a whole number
      // of a mebibyte or more, else GiB when every print is below 256, else MiB.
      const auto& r = raws->second;
      const bool bytes_each = std::all_of(
          r.begin(), r.end(), [](const auto& p) { return p.second && p.first >= double(MiB); });
      const bool gib = std::all_of(r.begin(), r.end(), [](const auto& p) { return p.first < 256; });
      const double scale = bytes_each ? 1.0 : gib ? double(GiB) : double(MiB);
      // A print that scales past 2^63 bytes is no memory figure: the series is not read (the
      // cast would be undefined behaviour).
      const bool representable = std::all_of(r.begin(), r.end(), [&](const auto& p) {
        const double v = p.first * scale;
        return v >= 0 && v < 9.2e18;
      });
      if (!representable) continue;
      for (std::size_t k = 0; k < r.size(); ++k)
        run.points[k].second = static_cast<bytes>(r[k].first * scale);
      run.label += bytes_each ? " [no unit: read as bytes]"
                   : gib      ? " [no unit: read as GiB]"
                              : " [no unit: read as MiB]";
    }
    out.series.push_back(std::move(run));
  }
  std::sort(out.series.begin(), out.series.end(),
            [](const auto& a, const auto& b) { return a.points.front().first < b.points.front().first; });
  if (auto repl = repl_figures(lines, source)) out.stats.push_back(std::move(*repl));
  if (out.stats.empty() && !allocated_only.empty()) {
    for (const auto& a : allocated_only) {
      const std::string prefix = fmt::format("{}: ", a.raw.at("line"));
      std::erase_if(out.unread, [&](const std::string& u) { return u.starts_with(prefix); });
    }
    out.stats = std::move(allocated_only);
  }
  return out;
}

}  // namespace vramscope::observe::detail
