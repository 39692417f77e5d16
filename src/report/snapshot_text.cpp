// The text of `vramscope snapshot`: per device, the peaks and when they happened, the categories
// at the allocated peak, the largest allocations and call sites, and the final state.
#include <vramscope/report/snapshot_report.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <ctime>

#include "report/snapshot_frames.hpp"

namespace vramscope::report {

namespace {

using observe::device_snapshot;
using observe::snapshot_summary;
using observe::trace_peak;

// "2025-06-05 10:12:44.123 UTC"
std::string format_time(std::uint64_t time_us) {
  const auto seconds = static_cast<std::time_t>(time_us / 1'000'000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &utc);
  return fmt::format("{}.{:03} UTC", text, time_us % 1'000'000 / 1000);
}

// "+12.345 s" or, under a second, "+0.020 ms".
std::string format_duration(std::uint64_t us) {
  if (us >= 1'000'000) return fmt::format("{:.3f} s", static_cast<double>(us) / 1e6);
  return fmt::format("{:.3f} ms", static_cast<double>(us) / 1e3);
}

std::string when(const trace_peak& p, const device_snapshot& d) {
  if (!p.trace_index) return d.trace_entries ? "before the first trace entry" : "at the snapshot (no trace)";
  std::string s = fmt::format("at entry {}", format_count(*p.trace_index));
  if (p.time_us && d.first_time_us)
    s += fmt::format(" (+{}, {})", format_duration(*p.time_us - *d.first_time_us), format_time(*p.time_us));
  return s;
}

double percent(bytes part, bytes whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

void render_peaks(std::ostream& out, const device_snapshot& d) {
  out << fmt::format("  peak allocated  {:>11}  {}\n", format_bytes(d.peak_allocated.value), when(d.peak_allocated, d));
  out << fmt::format("  peak active     {:>11}  {}\n", format_bytes(d.peak_active.value), when(d.peak_active, d));
  out << fmt::format("  peak reserved   {:>11}  {}\n", format_bytes(d.peak_reserved.value), when(d.peak_reserved, d));
  const bytes slack = d.reserved_at_allocated_peak > d.peak_allocated.value
                          ? d.reserved_at_allocated_peak - d.peak_allocated.value : 0;
  out << fmt::format("  at the allocated peak: {} blocks live, {} reserved, {} of it not allocated "
                     "(fragmentation and cache)\n",
                     format_count(d.allocations_at_peak), format_bytes(d.reserved_at_allocated_peak),
                     format_bytes(slack));
  if (d.allocated_before_trace > 0)
    out << fmt::format("  {} blocks were allocated before recording started; they count from the first entry\n",
                       format_count(d.allocated_before_trace));
}

void render_categories(std::ostream& out, const device_snapshot& d) {
  out << "\n  by category at the allocated peak (guessed from call stacks):\n";
  for (std::size_t c = 0; c < observe::memory_category_count; ++c) {
    const bytes b = d.categories_at_peak[c];
    if (b == 0) continue;
    out << fmt::format("    {:<14} {:>11}  {:5.1f}%\n", observe::name_of(static_cast<observe::memory_category>(c)),
                       format_bytes(b), percent(b, d.peak_allocated.value));
  }
}

void render_top(std::ostream& out, const device_snapshot& d, std::size_t top) {
  out << fmt::format("\n  largest allocations at the peak (top {}):\n", std::min(top, d.top_allocations.size()));
  std::size_t i = 0;
  for (const auto& a : d.top_allocations) {
    if (i++ == top) break;
    out << fmt::format("    {:>3}. {:>11}  {:<13}  {}{}\n", i, format_bytes(a.size), observe::name_of(a.category),
                       detail::frames_line(a.frames, 3, " <- "), a.trace_index ? "" : "  [before recording]");
  }
  out << "\n  call sites at the peak:\n";
  i = 0;
  for (const auto& s : d.top_sites) {
    if (i++ == top) break;
    out << fmt::format("    {:>3}. {:>11} in {:>6} blocks  {:<13}  {}\n", i, format_bytes(s.total), format_count(s.count),
                       observe::name_of(s.category), detail::frames_line(s.frames, 3, " <- "));
  }
}

void render_final_state(std::ostream& out, const device_snapshot& d) {
  const auto& f = d.final_state;
  out << fmt::format("\n  at the snapshot: {} segments ({} expandable), reserved {}, allocated {}, "
                     "waiting for streams {}\n",
                     format_count(f.segments), format_count(f.expandable_segments), format_bytes(f.reserved),
                     format_bytes(f.allocated), format_bytes(f.active_pending_free));
  out << fmt::format("  free inside segments {}; not releasable (in split segments) {} in {} blocks; "
                     "largest free block {}\n",
                     format_bytes(f.inactive), format_bytes(f.inactive_split), format_count(f.inactive_split_blocks),
                     format_bytes(f.largest_inactive_block));
  if (!d.ooms.empty()) {
    const auto& o = d.ooms.back();
    out << fmt::format("  out of memory: {} time(s); the last at entry {} asked for {} with {} free on the device\n",
                       d.ooms.size(), format_count(o.trace_index), format_bytes(o.requested),
                       format_bytes(o.device_free));
  }
}

void render_device(std::ostream& out, const device_snapshot& d, std::size_t top) {
  out << fmt::format("\ndevice {}: {} trace entries ({} allocs, {} frees, {} segment allocs, {} segment frees)\n",
                     d.device, format_count(d.trace_entries), format_count(d.allocs), format_count(d.frees),
                     format_count(d.segment_allocs), format_count(d.segment_frees));
  if (d.first_time_us && d.last_time_us)
    out << fmt::format("  recorded from {} to {} ({})\n", format_time(*d.first_time_us), format_time(*d.last_time_us),
                       format_duration(*d.last_time_us - *d.first_time_us));
  render_peaks(out, d);
  render_categories(out, d);
  render_top(out, d, top);
  render_final_state(out, d);
}

}  // namespace

void render_snapshot_text(std::ostream& out, const observe::snapshot_summary& s, std::size_t top) {
  out << fmt::format("{}: {}, pickle protocol {}, {} device(s)\n", s.source, format_bytes(s.file_bytes),
                     s.protocol, s.devices.size());
  if (!s.alloc_conf.empty()) out << "PYTORCH_CUDA_ALLOC_CONF=" << s.alloc_conf << "\n";
  if (s.devices.empty()) out << "the snapshot holds no segments and no trace entries\n";
  for (const auto& d : s.devices) render_device(out, d, top);
  for (const auto& w : s.warnings) out << "\nwarning: " << w.to_string() << "\n";
}

}  // namespace vramscope::report
