#pragma once
// memory_stats() key names (docs/formats/memory-stats.md): "<stat>.<pool>.<field>" for the
// quadruple stats, plain names for the counters, and how they fill a torch_stats.

#include <string_view>

#include <vramscope/observe/observation.hpp>

namespace vramscope::observe::detail {

/// "allocated_bytes.all.peak", "num_ooms", "oversize_segments.current", ...
bool is_memory_stats_key(std::string_view key);

/// The objects of torch.cuda.memory_stats_as_nested_dict(): "allocated_bytes" and
/// "allocated_bytes.all" hold objects whose leaves complete the key ("allocated_bytes.all.peak").
bool is_memory_stats_group(std::string_view key);
/// Keys that describe the entry rather than the allocator ("rank", "device", ...).
bool is_meta_key(std::string_view key);

/// Fills the typed fields of `s` from `s.raw`.
void fill_from_raw(torch_stats& s);

}  // namespace vramscope::observe::detail
