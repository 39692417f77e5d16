// The full-screen view of `vramscope watch`, laid out as styled lines of exactly the terminal's
// size. At 80 x 24 with eight GPUs:
//
//   vramscope watch  2025-11-21 10:00:00  nvml  every 1 s                       (title)
//   GPU NAME           MEMORY (GiB)     USED/TOTAL UTIL   PEAK    MAX HISTORY
//   0   H100 80GB HBM3 ██████████▌····    70.0/79.6  88%  71.2  72.0 ▁▂▅▇██▇█
//   ...                                                                (one row per GPU)
//   ! [near_limit] GPU 7 peaked at 96 % of ...   (most urgent first, wrapped at spaces:
//       ... continued                             three rows, more when processes leave room)
//   GPU PID      RANK   NAME                GiB   PEAK    MAX
//   0   4242     0/8    python3           69.50  70.70  70.70 torch     (processes that fit)
//
//    q quit  s sort: index  p processes   not shown: 2 processes              (key line)
#include <vramscope/report/watch_report.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <numeric>

#include "report/watch_common.hpp"

namespace vramscope::report {

namespace {

constexpr std::size_t max_alert_lines = 3;

double in_gib(bytes b) { return static_cast<double>(b) / static_cast<double>(GiB); }

// Printable ASCII only, so that every character is one column wide and no control character
// reaches the terminal.
std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

// Builds one line of runs, merging neighbours of the same style, and cuts it at a width.
class line_builder {
 public:
  explicit line_builder(std::size_t width) : width_(width) {}

  line_builder& add(std::string_view text, screen_style style = screen_style::plain) {
    for (std::size_t i = 0; i < text.size() && used_ < width_;) {
      std::size_t len = 1;  // the byte length of the code point at i
      const auto lead = static_cast<unsigned char>(text[i]);
      if (lead >= 0xf0)
        len = 4;
      else if (lead >= 0xe0)
        len = 3;
      else if (lead >= 0xc0)
        len = 2;
      append(text.substr(i, len), style);
      ++used_;
      i += len;
    }
    return *this;
  }
  /// Text left-aligned in a field of `field` columns (cut when longer), then one space.
  line_builder& cell(std::string_view text, std::size_t field,
                     screen_style style = screen_style::plain, bool right = false) {
    const std::size_t n = columns(text);
    if (n >= field) {
      std::string cut(text.substr(0, field));  // ASCII fields only are cut
      add(cut, style);
    } else if (right) {
      add(std::string(field - n, ' '), style).add(text, style);
    } else {
      add(text, style).add(std::string(field - n, ' '), style);
    }
    return add(" ");
  }
  /// Spaces in `style` up to the full width (for the title and key lines).
  line_builder& fill(screen_style style) {
    if (used_ < width_) add(std::string(width_ - used_, ' '), style);
    return *this;
  }
  screen_line take() { return std::move(line_); }

 private:
  void append(std::string_view piece, screen_style style) {
    if (line_.empty() || line_.back().style != style) line_.push_back({"", style});
    line_.back().text += piece;
  }
  std::size_t width_, used_ = 0;
  screen_line line_;
};

screen_style fill_style(double filled) {
  if (filled >= 0.90) return screen_style::bad;
  if (filled >= 0.75) return screen_style::warn;
  return screen_style::good;
}

std::optional<double> filled_of(const observe::gpu_observation& g) {
  if (!g.used || !g.total || *g.total == 0) return std::nullopt;
  return std::clamp(static_cast<double>(*g.used) / static_cast<double>(*g.total), 0.0, 1.0);
}

// A bar of `width` cells, in eighths of a cell with block characters, in whole cells in ASCII.
void add_bar(line_builder& line, double filled, std::size_t width, bool unicode) {
  static constexpr std::array<std::string_view, 8> eighths = {"",  "▏", "▎", "▍",
                                                              "▌", "▋", "▊", "▉"};
  const auto steps = static_cast<std::size_t>(filled * static_cast<double>(width * 8) + 0.5);
  std::size_t full = steps / 8, part = unicode ? steps % 8 : 0;
  if (!unicode && steps % 8 >= 4) ++full;
  full = std::min(full, width);
  std::string bar;
  for (std::size_t i = 0; i < full; ++i) bar += unicode ? "█" : "#";
  if (part && full < width) bar += eighths[part];
  const std::size_t drawn = full + (part && full < width ? 1 : 0);
  line.add(bar, fill_style(filled));
  std::string rest;
  for (std::size_t i = drawn; i < width; ++i) rest += unicode ? "·" : ".";
  line.add(rest, screen_style::dim).add(" ");
}

// The last `width` history points, one character each, coloured by how full the GPU was.
void add_history(line_builder& line, const std::vector<double>& filled, std::size_t width,
                 bool unicode) {
  static constexpr std::array<std::string_view, 8> blocks = {"▁", "▂", "▃", "▄",
                                                             "▅", "▆", "▇", "█"};
  static constexpr std::string_view ascii = "_.-:=+*#";
  const std::size_t first = filled.size() > width ? filled.size() - width : 0;
  for (std::size_t i = first; i < filled.size(); ++i) {
    if (filled[i] < 0) {
      line.add(" ");
      continue;
    }
    const auto level = std::min<std::size_t>(7, static_cast<std::size_t>(filled[i] * 8.0));
    line.add(unicode ? blocks[level] : ascii.substr(level, 1), fill_style(filled[i]));
  }
}

std::string gib_text(const std::optional<bytes>& b, int decimals) {
  return b ? fmt::format("{:.{}f}", in_gib(*b), decimals) : "-";
}

// GPU names without the vendor ("NVIDIA H100 80GB HBM3" -> "H100 80GB HBM3").
std::string gpu_name(const std::string& name) {
  std::string_view n = name;
  if (n.starts_with("NVIDIA ")) n.remove_prefix(7);
  return printable(n.empty() ? "?" : n);
}

// Column widths of the GPU rows for a terminal `width` wide. The fixed columns take 36 + name;
// the bar and the history share the rest.
struct gpu_columns {
  std::size_t name = 14, bar = 15, history = 15;
  explicit gpu_columns(std::size_t width) {
    name = width >= 110 ? 24 : 14;
    const std::size_t fixed = 36 + name;
    const std::size_t rest = width > fixed ? width - fixed : 0;
    bar = std::max<std::size_t>(4, rest / 2);
    history = rest > bar ? rest - bar : 0;
    if (history < 4) {  // too narrow for a useful history: the bar takes it all
      bar = std::max<std::size_t>(4, rest);
      history = 0;
    }
  }
};

// Splits `text` into lines of at most `width` columns at spaces (a word longer than a line is
// split where it must); continuation lines start with `indent` spaces.
std::vector<std::string> wrap(std::string_view text, std::size_t width, std::size_t indent) {
  std::vector<std::string> lines;
  if (width == 0) return lines;
  if (indent >= width) indent = 0;
  std::size_t i = 0;
  while (true) {
    while (i < text.size() && text[i] == ' ') ++i;  // no line starts with a space
    if (i >= text.size()) break;
    const std::size_t room = width - (lines.empty() ? 0 : indent);
    const std::string_view rest = text.substr(i);
    std::size_t take = std::min(rest.size(), room);
    if (take < rest.size() && rest[take] != ' ') {  // break at the last space that fits
      const auto space = rest.substr(0, take).rfind(' ');
      if (space != std::string_view::npos && space > 0) take = space;
    }
    lines.push_back(std::string(lines.empty() ? 0 : indent, ' ') +
                    std::string(rest.substr(0, take)));
    i += take;
  }
  return lines;
}

// The GPU's peak fill, for ordering alerts of one kind: the fullest GPU first.
double alert_fill(const watch::frame& f, const watch::alert& a) {
  for (const auto& g : f.now.gpus)
    if (g.gpu.index == a.gpu) {
      observe::gpu_observation at_peak = g.gpu;
      if (g.peak_used) at_peak.used = std::max(*g.peak_used, at_peak.used.value_or(0));
      return filled_of(at_peak).value_or(0.0);
    }
  return 0.0;
}

// Lays out the alerts (most urgent first), then the warnings, in at most `budget` rows; an
// alert that does not fit whole is left out and counted in `notes`, except the first, which
// is cut at a word boundary ("...") rather than hidden.
void alert_rows(const watch::frame& f, std::size_t width, std::size_t budget,
                std::vector<screen_line>& rows, std::vector<std::string>& notes) {
  std::vector<const watch::alert*> alerts;
  for (const auto& a : f.alerts) alerts.push_back(&a);
  std::stable_sort(alerts.begin(), alerts.end(), [&f](const auto* a, const auto* b) {
    const int ua = watch::urgency(a->kind), ub = watch::urgency(b->kind);
    if (ua != ub) return ua < ub;
    return alert_fill(f, *a) > alert_fill(f, *b);
  });
  std::vector<std::pair<std::string, screen_style>> messages;
  for (const auto* a : alerts)
    messages.emplace_back(fmt::format("! [{}] {}", watch::alert_id(a->kind), a->message),
                          screen_style::alert);
  for (const auto& w : f.now.warnings)
    messages.emplace_back("warning: " + w.to_string(), screen_style::dim);
  std::size_t used = 0, shown = 0;
  for (const auto& [text, style] : messages) {
    auto lines = wrap(printable(text), width, 4);
    if (used + lines.size() > budget) {
      if (shown > 0 || budget == used) break;
      lines.resize(budget - used);  // the most urgent alert, cut after a whole word
      auto& last = lines.back();
      if (last.size() + 4 > width) {
        last.resize(width >= 4 ? width - 4 : 0);
        if (const auto space = last.rfind(' '); space != std::string::npos && space > 4)
          last.resize(space);
      }
      last = (last + " ...").substr(0, width);
    }
    for (const auto& l : lines) {
      line_builder line(width);
      rows.push_back(line.add(l, style).take());
    }
    used += lines.size();
    ++shown;
  }
  if (shown < messages.size())
    notes.push_back(fmt::format("{} alert{}", messages.size() - shown,
                                messages.size() - shown == 1 ? "" : "s"));
}

}  // namespace

std::size_t columns(std::string_view utf8) {
  return static_cast<std::size_t>(std::count_if(utf8.begin(), utf8.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  }));
}

std::string line_text(const screen_line& line) {
  std::string out;
  for (const auto& run : line) out += run.text;
  return out;
}

std::string_view sort_name(screen_sort s) {
  switch (s) {
    case screen_sort::index:
      return "index";
    case screen_sort::memory:
      return "memory";
    case screen_sort::utilization:
      return "utilization";
  }
  return "index";
}

void watch_screen::cycle_sort() {
  sort_ = sort_ == screen_sort::index    ? screen_sort::memory
          : sort_ == screen_sort::memory ? screen_sort::utilization
                                         : screen_sort::index;
}

void watch_screen::add(const watch::frame& f, const watch::peak_tracker& peaks) {
  shown_refresh s{f, {}, {}};
  for (const auto& g : f.now.gpus) s.gpu_max.push_back(peaks.gpu_peak(g));
  for (const auto& p : f.now.processes) s.process_max.push_back(peaks.process_peak(p));
  for (const auto& g : f.now.gpus) {
    auto& filled = histories_[watch::gpu_key(g.gpu)];
    // The window's peak, so that a spike between refreshes shows in the history too.
    observe::gpu_observation at_peak = g.gpu;
    if (g.peak_used) at_peak.used = std::max(*g.peak_used, at_peak.used.value_or(0));
    filled.push_back(g.lost ? -1.0 : filled_of(at_peak).value_or(-1.0));
    if (filled.size() > options_.history)
      filled.erase(filled.begin(),
                   filled.begin() + static_cast<std::ptrdiff_t>(filled.size() - options_.history));
  }
  shown_ = std::move(s);
}

std::vector<screen_line> watch_screen::layout(int width_in, int height_in) const {
  const auto width = static_cast<std::size_t>(std::max(width_in, 0));
  const auto height = static_cast<std::size_t>(std::max(height_in, 0));
  std::vector<screen_line> page;
  if (width == 0 || height == 0) return page;
  const bool u = options_.unicode;

  // The title, and the key line that ends the page; the notes say what did not fit.
  std::vector<std::string> notes;
  auto key_line = [&] {
    line_builder k(width);
    k.add(" q", screen_style::footer).add(" quit  ", screen_style::footer);
    k.add("s", screen_style::footer)
        .add(fmt::format(" sort: {}  ", sort_name(sort_)), screen_style::footer);
    k.add("p", screen_style::footer)
        .add(show_processes_ ? " processes" : " processes (off)", screen_style::footer);
    for (std::size_t i = 0; i < notes.size(); ++i)
      k.add((i == 0 ? "   not shown: " : ", ") + notes[i], screen_style::footer);
    return k.fill(screen_style::footer).take();
  };
  if (!shown_) {
    line_builder t(width);
    page.push_back(t.add(" vramscope watch: waiting for the first sample", screen_style::title)
                       .fill(screen_style::title)
                       .take());
    while (page.size() + 1 < height) page.emplace_back();
    if (page.size() < height) page.push_back(key_line());
    page.resize(height);
    return page;
  }
  const watch::frame& f = shown_->frame;
  {
    line_builder t(width);
    t.add(fmt::format(" vramscope watch  {}  {}  every {}, peaks over {} sample{}",
                      detail::watch_clock(f.now.time_ms, options_.utc), printable(f.source),
                      detail::watch_interval(options_.interval), f.samples_in_window,
                      f.samples_in_window == 1 ? "" : "s"),
          screen_style::title);
    page.push_back(t.fill(screen_style::title).take());
  }
  if (height < 3) {  // room for the title and the keys only
    if (height == 2) page.push_back(key_line());
    return page;
  }
  const std::size_t body = height - 2;  // rows between the title and the key line

  // GPU rows, in the chosen order.
  const gpu_columns col(width);
  std::vector<std::size_t> order(f.now.gpus.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto used_of = [&](std::size_t i) { return f.now.gpus[i].gpu.used.value_or(0); };
  auto util_of = [&](std::size_t i) { return f.now.gpus[i].gpu.utilization_gpu.value_or(-1); };
  if (sort_ == screen_sort::memory)
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return used_of(a) > used_of(b); });
  else if (sort_ == screen_sort::utilization)
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return util_of(a) > util_of(b); });

  std::vector<screen_line> rows;
  {
    line_builder h(width);
    h.cell("GPU", 3, screen_style::header)
        .cell("NAME", col.name, screen_style::header)
        .cell("MEMORY (GiB)", col.bar, screen_style::header)
        .cell("USED/TOTAL", 11, screen_style::header, true)
        .cell("UTIL", 4, screen_style::header, true)
        .cell("PEAK", 6, screen_style::header, true)
        .cell("MAX", 6, screen_style::header, true);
    if (col.history) h.add("HISTORY", screen_style::header);
    rows.push_back(h.take());
  }
  const std::size_t gpu_rows = std::min(order.size(), body - 1);
  for (std::size_t r = 0; r < gpu_rows; ++r) {
    const std::size_t i = order[r];
    const auto& g = f.now.gpus[i];
    line_builder line(width);
    line.cell(std::to_string(g.gpu.index.value_or(-1)), 3).cell(gpu_name(g.gpu.name), col.name);
    if (g.lost) {
      line.add("lost: the driver cannot reach this GPU", screen_style::bad);
      rows.push_back(line.take());
      continue;
    }
    const auto filled = filled_of(g.gpu);
    if (filled)
      add_bar(line, *filled, col.bar, u);
    else
      line.cell("-", col.bar, screen_style::dim);
    const std::string usage =
        g.gpu.used && g.gpu.total
            ? fmt::format("{:.1f}/{:.1f}", in_gib(*g.gpu.used), in_gib(*g.gpu.total))
            : "-";
    line.cell(usage, 11, filled ? fill_style(*filled) : screen_style::plain, true)
        .cell(g.gpu.utilization_gpu ? fmt::format("{}%", *g.gpu.utilization_gpu) : "-", 4,
              screen_style::plain, true)
        .cell(gib_text(g.peak_used, 1), 6, screen_style::plain, true)
        .cell(gib_text(shown_->gpu_max[i], 1), 6, screen_style::dim, true);
    if (col.history)
      if (const auto h = histories_.find(watch::gpu_key(g.gpu)); h != histories_.end())
        add_history(line, h->second, col.history, u);
    rows.push_back(line.take());
  }
  if (gpu_rows < order.size())
    notes.push_back(
        fmt::format("{} GPU{}", order.size() - gpu_rows, order.size() - gpu_rows == 1 ? "" : "s"));

  // Alerts, most urgent first, then warnings, each wrapped at spaces; they take at least three
  // rows and whatever the processes leave free. The key line counts what did not fit.
  const std::size_t process_rows =
      show_processes_ && !f.now.processes.empty() ? f.now.processes.size() + 1 : 0;
  const std::size_t left = body - rows.size();
  const std::size_t budget =
      std::min(left, std::max(max_alert_lines, left > process_rows ? left - process_rows : 0));
  alert_rows(f, width, budget, rows, notes);

  // Processes, largest first (by GPU first when GPUs are in index order), as many as fit.
  const auto& procs = f.now.processes;
  if (show_processes_ && !procs.empty()) {
    std::vector<std::size_t> porder(procs.size());
    std::iota(porder.begin(), porder.end(), std::size_t{0});
    auto pused = [&](std::size_t i) { return procs[i].process.used.value_or(0); };
    std::stable_sort(porder.begin(), porder.end(), [&](std::size_t a, std::size_t b) {
      if (sort_ == screen_sort::index && procs[a].process.gpu_index != procs[b].process.gpu_index)
        return procs[a].process.gpu_index < procs[b].process.gpu_index;
      return pused(a) > pused(b);
    });
    const std::size_t left = body - rows.size();
    if (left >= 2) {
      line_builder h(width);
      h.cell("GPU", 3, screen_style::header)
          .cell("PID", 8, screen_style::header)
          .cell("RANK", 6, screen_style::header)
          .cell("NAME", 18, screen_style::header)
          .cell("GiB", 7, screen_style::header, true)
          .cell("PEAK", 7, screen_style::header, true)
          .cell("MAX", 7, screen_style::header, true)
          .fill(screen_style::header);
      rows.push_back(h.take());
      const std::size_t fit = std::min(porder.size(), left - 1);
      for (std::size_t r = 0; r < fit; ++r) {
        const std::size_t i = porder[r];
        const auto& p = procs[i];
        line_builder line(width);
        line.cell(p.process.gpu_index ? std::to_string(*p.process.gpu_index) : "-", 3)
            .cell(std::to_string(p.process.pid), 8)
            .cell(detail::watch_rank(p.details), 6)
            .cell(printable(detail::watch_process_name(p.process.name, 18)), 18)
            .cell(gib_text(p.process.used, 2), 7, screen_style::plain, true)
            .cell(gib_text(p.peak_used, 2), 7, screen_style::plain, true)
            .cell(gib_text(shown_->process_max[i], 2), 7, screen_style::dim, true)
            .add(printable(detail::watch_process_tags(p)), screen_style::dim);
        rows.push_back(line.take());
      }
      if (fit < porder.size())
        notes.push_back(
            fmt::format("{} process{}", porder.size() - fit, porder.size() - fit == 1 ? "" : "es"));
    } else {
      notes.push_back(fmt::format("{} process{}", procs.size(), procs.size() == 1 ? "" : "es"));
    }
  }

  for (auto& r : rows) page.push_back(std::move(r));
  while (page.size() + 1 < height) page.emplace_back();
  page.push_back(key_line());
  return page;
}

}  // namespace vramscope::report
