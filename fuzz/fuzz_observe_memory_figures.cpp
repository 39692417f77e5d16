// Fuzzes the reader of memory figures pasted in a log or in prose (observe/memory_figures.hpp)
// and the reader of Kaldi's GPU lines (observe/kaldi_log.hpp): any text, never a crash, every
// figure one the text could hold.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "observe/kaldi_log.hpp"
#include "observe/memory_figures.hpp"

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto found = vramscope::observe::detail::find_memory_figures(text, "fuzz.log");
  // Allocated (or active, where no allocated figure is given) and reserved both, or (a paste
  // without such a line) the allocated peak and its other reading, the reserved figure named as
  // missing.
  for (const auto& s : found.stats)
    check(((s.allocated.current || s.allocated.peak || s.active.current || s.active.peak) &&
           (s.reserved.current || s.reserved.peak)) ||
          (s.allocated.peak && s.allocated.current && !s.reserved.current && !s.reserved.peak &&
           !s.missing.empty()));
  // One entry per rank, each with its line and a device number a machine can have.
  for (std::size_t i = 0; i < found.rank_devices.size(); ++i) {
    check(found.rank_devices[i].line >= 1 && found.rank_devices[i].device >= 0 &&
          found.rank_devices[i].device < 4096 && found.rank_devices[i].rank >= 0);
    // A pool's counts come in pairs, its arrays in use within what it holds.
    check(found.rank_devices[i].pool_used.has_value() ==
          found.rank_devices[i].pool_held.has_value());
    check(!found.rank_devices[i].pool_used ||
          *found.rank_devices[i].pool_used <= *found.rank_devices[i].pool_held);
    for (std::size_t k = 0; k < i; ++k)
      check(found.rank_devices[k].rank != found.rank_devices[i].rank);
  }
  // Usage quoted in prose gives used and total; a device's row one of used, free or total.
  for (const auto& g : found.gpus)
    check((g.used || g.total) && (!g.used || !g.total || *g.used <= *g.total));
  for (const auto& v : found.vllm) {
    check(v.line >= 1);
    if (v.free_at_start && v.total) check(*v.free_at_start <= *v.total + 1);
  }
  // An assertion's check: its line, and the assert it was read from.
  for (const auto& c : found.allocated_checks) check(c.line >= 2 && !c.assertion.empty());
  check(found.unread.size() <= 4);
  check(found.lone.size() <= 4);
  // Kaldi: a GPU's reading has its index, total, used and free, used and free within the total;
  // a growth series has three points or more; failures come in line order, the device's free
  // within its total.
  const auto kaldi = vramscope::observe::detail::find_kaldi_lines(text, "fuzz.log");
  for (const auto& g : kaldi.gpus)
    check(g.index && *g.index >= 0 && *g.index < 4096 && g.total && g.used && g.free &&
          *g.used <= *g.total && *g.free <= *g.total && g.before_own_use);
  for (const auto& s : kaldi.series) check(s.pool_growth && s.points.size() >= 3);
  int last = 0;
  for (const auto& r : kaldi.ooms) {
    check(r.line > last && r.runtime == "kaldi");
    check(!r.free || (r.capacity && *r.free <= *r.capacity));
    last = r.line;
  }
  return 0;
}
