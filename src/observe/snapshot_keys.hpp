#pragma once
// The keys and values the snapshot builder recognises, and typed reads of dict fields that
// explain what is wrong. The keys are those of the dict PyTorch builds in
// torch/csrc/cuda/Module.cpp (THCPModule_memorySnapshot); docs/formats/snapshot.md shows them.

#include <fmt/format.h>

#include <cstdint>
#include <iterator>
#include <string_view>

#include "observe/snapshot_builder.hpp"

namespace vramscope::observe::detail {

// Strings the builder recognises, interned first so that their string id is their enum value.
enum known : std::uint32_t {
  k_empty, k_action, k_addr, k_size, k_time_us, k_frames, k_device_free, k_address, k_requested_size,
  k_state, k_total_size, k_blocks, k_device, k_is_expandable, k_name, k_filename, k_line, k_segments,
  k_device_traces, k_allocator_settings, k_alloc_conf, k_expandable_segments,
  a_alloc, a_free_requested, a_free_completed, a_free, a_segment_alloc, a_segment_free, a_segment_map,
  a_segment_unmap, a_oom, a_snapshot,
  s_active_allocated, s_active_pending_free, s_active_awaiting_free, s_inactive,
  known_count
};

inline constexpr std::string_view known_names[] = {
    "", "action", "addr", "size", "time_us", "frames", "device_free", "address", "requested_size",
    "state", "total_size", "blocks", "device", "is_expandable", "name", "filename", "line", "segments",
    "device_traces", "allocator_settings", "PYTORCH_CUDA_ALLOC_CONF", "expandable_segments",
    "alloc", "free_requested", "free_completed", "free", "segment_alloc", "segment_free", "segment_map",
    "segment_unmap", "oom", "snapshot",
    "active_allocated", "active_pending_free", "active_awaiting_free", "inactive",
};
static_assert(std::size(known_names) == known_count);

// No GPU has 256 TiB; a larger size is corruption, and refusing it keeps sums far from overflow.
inline constexpr std::uint64_t max_size = std::uint64_t{1} << 48;

inline std::uint64_t bit(std::uint32_t k) { return std::uint64_t{1} << k; }

inline std::uint32_t known_key(const value& key) {
  return key.kind == vkind::string && key.ref < known_count ? key.ref : k_empty;
}

inline std::uint64_t key_mask(const object_slot& d) {
  std::uint64_t mask = 0;
  for (std::size_t i = 0; i + 1 < d.items.size(); i += 2) mask |= bit(known_key(d.items[i]));
  return mask;
}

inline const char* key_name(std::uint32_t k) { return known_names[k].data(); }

inline bool quiet_number(const value& v, std::uint64_t& out) {
  if ((v.kind == vkind::integer && v.as_int() >= 0) || v.kind == vkind::big_integer) {
    out = v.payload;
    return true;
  }
  return false;
}

inline trace_action action_of(std::uint32_t id) {
  switch (id) {
    case a_alloc: return trace_action::alloc;
    case a_free_requested: return trace_action::free_requested;
    case a_free_completed: return trace_action::free_completed;
    case a_free: return trace_action::free_legacy;
    case a_segment_alloc: return trace_action::segment_alloc;
    case a_segment_free: return trace_action::segment_free;
    case a_segment_map: return trace_action::segment_map;
    case a_segment_unmap: return trace_action::segment_unmap;
    case a_oom: return trace_action::oom;
    case a_snapshot: return trace_action::snapshot;
    default: return trace_action::other;
  }
}


// Reads an unsigned integer field, or explains why it is not one.
struct field_reader {
  pickle_context& ctx;
  std::uint64_t offset;
  const char* what;  // "trace entry", "block", ...

  bool number(const value& v, std::uint32_t key, std::uint64_t& out) {
    if (v.kind == vkind::integer && v.as_int() >= 0) {
      out = v.payload;
    } else if (v.kind == vkind::big_integer) {
      out = v.payload;  // 2^63 .. 2^64-1: fits unsigned
    } else {
      return ctx.fail(offset, fmt::format("{}: \"{}\" is {}, expected a non-negative integer", what,
                                          key_name(key), v.kind == vkind::integer ? "negative" : describe(v.kind)));
    }
    return true;
  }
  bool size(const value& v, std::uint32_t key, std::uint64_t& out) {
    if (!number(v, key, out)) return false;
    if (out > max_size)
      return ctx.fail(offset, fmt::format("{}: \"{}\" is {} bytes, more than any GPU holds", what, key_name(key), out));
    return true;
  }
  bool string(const value& v, std::uint32_t key, std::uint32_t& out) {
    if (v.kind != vkind::string)
      return ctx.fail(offset, fmt::format("{}: \"{}\" is {}, expected a string", what, key_name(key), describe(v.kind)));
    out = v.ref;
    return true;
  }
  bool missing(std::uint32_t key) {
    return ctx.fail(offset, fmt::format("{}: the \"{}\" key is missing", what, key_name(key)));
  }
};


// Trace entries are read both by the generic path and by the fast path (pickle_fast_entry.cpp);
// one definition, inline in both, keeps them identical.
[[gnu::always_inline]] inline bool snapshot_builder::event_field(trace_event& e, event_keys& seen, const value& key, const value& v,
                                   std::uint64_t offset, bool report) {
  field_reader r{ctx_, offset, "trace entry"};
  const std::uint32_t k = known_key(key);
  switch (k) {
    case k_action:
      seen.action = true;
      seen.action_id = v.ref;
      return report ? r.string(v, k, seen.action_id) : v.kind == vkind::string;
    case k_addr: seen.addr = true; return report ? r.number(v, k, e.addr) : quiet_number(v, e.addr);
    case k_size: seen.size = true; return report ? r.size(v, k, e.size) : quiet_number(v, e.size) && e.size <= max_size;
    case k_time_us: e.has_time = true; return report ? r.number(v, k, e.time_us) : quiet_number(v, e.time_us);
    case k_device_free: return report ? r.number(v, k, e.device_free) : quiet_number(v, e.device_free);
    case k_frames:
      if (!report && v.kind != vkind::traceback && v.kind != vkind::none) return false;
      return traceback_of(v, e.traceback, offset, "trace entry");
    default: return true;  // stream, compile_context, user_metadata
  }
}

inline bool snapshot_builder::event_done(trace_event& e, const event_keys& seen, std::uint64_t offset, bool report) {
  field_reader r{ctx_, offset, "trace entry"};
  if (!seen.action) return report ? r.missing(k_action) : false;
  e.action = action_of(seen.action_id);
  const bool needs_addr = e.action != trace_action::oom && e.action != trace_action::snapshot &&
                          e.action != trace_action::other;
  if (needs_addr && !seen.addr) return report ? r.missing(k_addr) : false;
  if ((needs_addr || e.action == trace_action::oom) && !seen.size) return report ? r.missing(k_size) : false;
  return true;
}

}  // namespace vramscope::observe::detail
