// Fuzzes the snapshot unpickler and analysis on bytes in memory: any bytes give a summary or a
// diagnostic with a byte offset, within the memory limits, and a summary is self-consistent:
// the categories add up to the allocated peak and the largest allocations come first.
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string_view>

#include <vramscope/observe/observe_json.hpp>
#include <vramscope/observe/torch_snapshot.hpp>

namespace {

void check(bool condition) {
  if (!condition) __builtin_trap();
}

void check_device(const vramscope::observe::device_snapshot& d) {
  const auto sum = std::accumulate(d.categories_at_peak.begin(), d.categories_at_peak.end(), std::uint64_t{0});
  check(sum == d.peak_allocated.value);
  check(d.top_allocations.size() <= d.allocations_at_peak);
  for (std::size_t i = 1; i < d.top_allocations.size(); ++i)
    check(d.top_allocations[i - 1].size >= d.top_allocations[i].size);
  check(d.allocs + d.frees + d.segment_allocs + d.segment_frees + d.other_entries <= d.trace_entries * 2);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  vramscope::observe::snapshot_options options;
  options.max_retained = 64 * 1024 * 1024;
  options.max_string = 1024 * 1024;
  options.fast_trace_entries = size % 2 == 0;  // both paths
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto s = vramscope::observe::analyze_snapshot_bytes(bytes, "fuzz.pickle", options);
  if (!s) {
    check(s.error().message.rfind("at byte offset ", 0) == 0);
    return 0;
  }
  for (const auto& d : s->devices) check_device(d);
  (void)vramscope::observe::to_json(*s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return 0;
}
