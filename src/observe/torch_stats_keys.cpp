#include "observe/torch_stats_keys.hpp"

#include <algorithm>

namespace vramscope::observe::detail {

namespace {

// Stats kept as {current, peak, allocated, freed} per pool (c10/cuda/CUDACachingAllocator.cpp,
// increase_stat / decrease_stat; key names in docs/formats/memory-stats.md).
constexpr std::string_view quadruple_stats[] = {
    "allocated_bytes", "active_bytes", "reserved_bytes", "requested_bytes", "inactive_split_bytes",
    "allocation", "active", "segment", "inactive_split", "oversize_allocations", "oversize_segments",
};

constexpr std::string_view counters[] = {
    "num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc", "num_device_free",
    "max_split_size", "num_oom_rejections", "reserved_bytes_by_private_pools",
};

constexpr std::string_view meta_keys[] = {"rank", "device", "local_rank", "global_rank"};

template <std::size_t N>
bool one_of(std::string_view s, const std::string_view (&list)[N]) {
  return std::find(std::begin(list), std::end(list), s) != std::end(list);
}

std::optional<bytes> get(const torch_stats& s, const std::string& key) {
  const auto it = s.raw.find(key);
  if (it == s.raw.end()) return std::nullopt;
  return it->second;
}

torch_stats::level level_of(const torch_stats& s, const std::string& stat) {
  return {get(s, stat + ".all.current"), get(s, stat + ".all.peak")};
}

}  // namespace

bool is_memory_stats_key(std::string_view key) {
  if (one_of(key, counters)) return true;
  const std::size_t dot = key.find('.');
  return dot != std::string_view::npos && one_of(key.substr(0, dot), quadruple_stats);
}

bool is_memory_stats_group(std::string_view key) {
  const std::size_t dot = key.find('.');
  const std::string_view base = key.substr(0, dot);
  if (!one_of(base, quadruple_stats)) return false;
  if (dot == std::string_view::npos) return true;
  const std::string_view pool = key.substr(dot + 1);
  return !base.starts_with("oversize_") && (pool == "all" || pool == "large_pool" || pool == "small_pool");
}

bool is_meta_key(std::string_view key) { return one_of(key, meta_keys); }

void fill_from_raw(torch_stats& s) {
  s.allocated = level_of(s, "allocated_bytes");
  s.active = level_of(s, "active_bytes");
  s.reserved = level_of(s, "reserved_bytes");
  s.requested = level_of(s, "requested_bytes");
  s.inactive_split = level_of(s, "inactive_split_bytes");
  s.inactive_split_blocks = get(s, "inactive_split.all.current");
  s.num_alloc_retries = get(s, "num_alloc_retries");
  s.num_ooms = get(s, "num_ooms");
}

}  // namespace vramscope::observe::detail
