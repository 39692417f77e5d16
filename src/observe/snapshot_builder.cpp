#include "observe/snapshot_builder.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "observe/snapshot_keys.hpp"

namespace vramscope::observe::detail {


bool pickle_context::over_budget() const {
  return strings.bytes() + retained_values * sizeof(value) + retained_bytes > options.max_retained;
}

snapshot_builder::snapshot_builder(pickle_context& ctx) : ctx_(ctx) {
  for (std::size_t i = 1; i < known_count; ++i) ctx_.strings.intern(known_names[i]);
  tracebacks.push_back({0, 0, memory_category::other});
}


void snapshot_builder::replace(value& top, const value* replacement) {
  if (object_slot* d = ctx_.objects.get(top)) ctx_.retained_values -= std::min<std::uint64_t>(ctx_.retained_values, d->items.size());
  ctx_.objects.release(top, replacement);
  top = replacement ? *replacement : value{};
}

bool snapshot_builder::dict_filled(value& top, std::uint64_t offset) {
  object_slot* d = ctx_.objects.get(top);
  if (!d || d->kind != okind::dict) return true;
  const std::uint64_t mask = key_mask(*d);
  if (mask & bit(k_action)) return make_event(*d, top, offset);
  if ((mask & bit(k_blocks)) && (mask & bit(k_total_size))) return make_segment(*d, top, offset);
  if ((mask & bit(k_state)) && (mask & bit(k_size))) return make_block(*d, top, offset);
  if ((mask & bit(k_filename)) && (mask & bit(k_line))) return make_frame(*d, top, offset);
  return true;
}

bool snapshot_builder::too_many_pending(std::uint64_t offset) {
  return ctx_.fail(offset, "too many trace entries outside a device_traces list");
}

bool snapshot_builder::make_event(object_slot& d, value& top, std::uint64_t offset) {
  trace_event e;
  event_keys seen;
  for (std::size_t i = 0; i + 1 < d.items.size(); i += 2)
    if (!event_field(e, seen, d.items[i], d.items[i + 1], offset, true)) return false;
  if (!event_done(e, seen, offset, true)) return false;
  replace(top, nullptr);  // a trace entry is never referred to twice: free its slot and memo entry
  return push_event(e, top, offset);
}

bool snapshot_builder::replay_into(object_slot& list, const value& item, std::uint64_t offset) {
  if (item.payload != pending_epoch_ || item.ref >= pending_.size() || pending_done_[item.ref])
    return ctx_.fail(offset, "a trace entry is appended to a list twice");
  if (list.replay == no_index) {
    list.replay = static_cast<std::uint32_t>(replays.size());
    replays.emplace_back(ctx_.options.timeline_points);
  }
  trace_replay& replay = replays[list.replay];
  const std::size_t live_before = replay.live_blocks();
  replay.feed(pending_[item.ref]);
  // A live block costs its map slot (with the map's spare room) in the replay.
  constexpr std::uint64_t live_block_bytes = 96;
  const std::size_t live_after = replay.live_blocks();
  if (live_after > live_before) {
    ctx_.retained_bytes += live_block_bytes;
    if (ctx_.over_budget())
      return ctx_.fail(offset, fmt::format("more than {} kept for blocks live in the trace (limit)",
                                           format_bytes(ctx_.options.max_retained)));
  } else if (live_after < live_before) {
    ctx_.retained_bytes -= std::min<std::uint64_t>(ctx_.retained_bytes, live_block_bytes);
  }
  pending_done_[item.ref] = 1;
  ++list.streamed;
  if (++pending_consumed_ == pending_.size()) {  // every entry built so far is replayed: start over
    pending_.clear();
    pending_done_.clear();
    pending_consumed_ = 0;
    ++pending_epoch_;
  }
  return true;
}

bool snapshot_builder::list_extended(const value& list_value, const value* items, std::size_t n,
                                     std::uint64_t offset) {
  object_slot* list = ctx_.objects.get(list_value);
  if (!list) return ctx_.fail(offset, "list extended after it was consumed");
  for (std::size_t i = 0; i < n; ++i) {
    if (items[i].kind == vkind::event) {
      if (!replay_into(*list, items[i], offset)) return false;
      continue;
    }
    list->items.push_back(items[i]);
    ++ctx_.retained_values;
  }
  if (ctx_.over_budget())
    return ctx_.fail(offset, fmt::format("the snapshot keeps more than {} outside trace entries (limit)",
                                         format_bytes(ctx_.options.max_retained)));
  return true;
}

}  // namespace vramscope::observe::detail

