// The records a snapshot is made of: frames and call stacks, blocks, segments, the top level.
#include <fmt/format.h>

#include <algorithm>

#include "observe/snapshot_builder.hpp"
#include "observe/snapshot_frames.hpp"
#include "observe/snapshot_keys.hpp"

namespace vramscope::observe::detail {

std::size_t snapshot_builder::frame_key_hash::operator()(const frame_record& f) const {
  return std::hash<std::uint64_t>{}((std::uint64_t{f.name} << 32 | f.filename) ^
                                    (static_cast<std::uint64_t>(f.line) * 0x9E3779B97F4A7C15ull));
}

bool snapshot_builder::frame_key_equal::operator()(const frame_record& a, const frame_record& b) const {
  return a.name == b.name && a.filename == b.filename && a.line == b.line;
}

bool snapshot_builder::make_block(object_slot& d, value& top, std::uint64_t offset) {
  field_reader r{ctx_, offset, "block"};
  block_record b;
  bool has_requested = false;
  std::uint32_t state = 0;
  for (std::size_t i = 0; i + 1 < d.items.size(); i += 2) {
    const std::uint32_t k = known_key(d.items[i]);
    const value& v = d.items[i + 1];
    bool fine = true;
    switch (k) {
      case k_size: fine = r.size(v, k, b.size); break;
      case k_requested_size: fine = r.size(v, k, b.requested); has_requested = true; break;
      case k_address: fine = r.number(v, k, b.address); b.has_address = true; break;
      case k_state: fine = r.string(v, k, state); break;
      case k_frames: fine = traceback_of(v, b.traceback, offset, "block"); break;
      default: break;  // history (old releases)
    }
    if (!fine) return false;
  }
  if (!has_requested) b.requested = b.size;
  if (state == s_active_allocated) b.state = block_state::active_allocated;
  else if (state == s_active_pending_free || state == s_active_awaiting_free) b.state = block_state::active_pending_free;
  else if (state != s_inactive) ++unknown_states;
  blocks.push_back(b);
  ctx_.retained_bytes += sizeof(block_record);
  const value compact{vkind::block, static_cast<std::uint32_t>(blocks.size() - 1), 0};
  replace(top, &compact);
  return true;
}

// The segment's blocks, in address order; old releases give no block address, which is then the
// segment start plus the sizes of the blocks before it.
bool snapshot_builder::attach_blocks(segment_record& s, const value& block_list, std::uint64_t offset) {
  object_slot* list = ctx_.objects.get(block_list);
  if (!list || list->kind != okind::list)
    return ctx_.fail(offset, fmt::format("segment: \"blocks\" is {}, expected a list of block dicts",
                                         block_list.kind == vkind::object ? "not a list" : describe(block_list.kind)));
  std::uint64_t at = s.address;
  for (const value& item : list->items) {
    if (item.kind != vkind::block)
      return ctx_.fail(offset, fmt::format("segment: \"blocks\" holds {}, expected block dicts", describe(item.kind)));
    block_record& b = blocks[item.ref];
    if (!b.has_address) b.address = at;
    at += b.size;
    s.blocks.push_back(item.ref);
  }
  return true;
}

bool snapshot_builder::make_segment(object_slot& d, value& top, std::uint64_t offset) {
  field_reader r{ctx_, offset, "segment"};
  segment_record s;
  bool has_address = false;
  value block_list;
  for (std::size_t i = 0; i + 1 < d.items.size(); i += 2) {
    const std::uint32_t k = known_key(d.items[i]);
    const value& v = d.items[i + 1];
    bool fine = true;
    std::uint64_t n = 0;
    switch (k) {
      case k_device:
        fine = r.number(v, k, n) && (n < 65536 || ctx_.fail(offset, "segment: \"device\" is not a device index"));
        s.device = static_cast<int>(n);
        break;
      case k_address: fine = r.number(v, k, s.address); has_address = true; break;
      case k_total_size: fine = r.size(v, k, s.total_size); break;
      case k_is_expandable: s.expandable = v.kind == vkind::boolean && v.payload != 0; break;
      case k_blocks: block_list = v; break;
      default: break;
    }
    if (!fine) return false;
  }
  if (!has_address) return r.missing(k_address);
  if (!attach_blocks(s, block_list, offset)) return false;
  replace(block_list, nullptr);
  ctx_.retained_bytes += sizeof(segment_record) + s.blocks.size() * sizeof(std::uint32_t);
  segments.push_back(std::move(s));
  const value compact{vkind::segment, static_cast<std::uint32_t>(segments.size() - 1), 0};
  replace(top, &compact);
  return true;
}

bool snapshot_builder::make_frame(object_slot& d, value& top, std::uint64_t offset) {
  field_reader r{ctx_, offset, "frame"};
  frame_record f;
  for (std::size_t i = 0; i + 1 < d.items.size(); i += 2) {
    const std::uint32_t k = known_key(d.items[i]);
    const value& v = d.items[i + 1];
    bool fine = true;
    switch (k) {
      case k_name: fine = r.string(v, k, f.name); break;
      case k_filename: fine = r.string(v, k, f.filename); break;
      case k_line:
        if (v.kind != vkind::integer)
          fine = ctx_.fail(offset, fmt::format("frame: \"line\" is {}, expected an integer", describe(v.kind)));
        f.line = v.as_int();
        break;
      default: break;
    }
    if (!fine) return false;
  }
  auto [it, added] = frame_ids_.try_emplace(f, static_cast<std::uint32_t>(frames.size()));
  if (added) {
    f.flags = classify_frame(ctx_.strings.get(f.name), ctx_.strings.get(f.filename));
    frames.push_back(f);
    ctx_.retained_bytes += sizeof(frame_record) + 64;  // with its hash-map entry
  }
  const value compact{vkind::frame, it->second, 0};
  replace(top, &compact);
  return true;
}

std::uint32_t snapshot_builder::intern_traceback(const std::vector<std::uint32_t>& frame_ids) {
  std::uint8_t flags = 0;
  for (auto id : frame_ids) flags = static_cast<std::uint8_t>(flags | frames[id].flags);
  const std::size_t keep = std::min<std::size_t>(ctx_.options.frames_per_allocation, 16);
  std::vector<std::uint32_t> shown;
  for (auto id : frame_ids)
    if (shown.size() < keep && !(frames[id].flags & frame_internal)) shown.push_back(id);
  if (shown.empty())  // C++ frames only (the autograd thread): the first that do the work
    for (auto id : frame_ids)
      if (shown.size() < keep && !(frames[id].flags & frame_plumbing)) shown.push_back(id);
  if (shown.empty())
    shown.assign(frame_ids.begin(), frame_ids.begin() + static_cast<std::ptrdiff_t>(std::min(keep, frame_ids.size())));
  const memory_category category = category_of(flags);
  std::string key(1, static_cast<char>(category));
  key.append(reinterpret_cast<const char*>(shown.data()), shown.size() * sizeof(std::uint32_t));
  auto [it, added] = traceback_ids_.try_emplace(std::move(key), static_cast<std::uint32_t>(tracebacks.size()));
  if (added) {
    tracebacks.push_back({static_cast<std::uint32_t>(display_frames.size()), static_cast<std::uint8_t>(shown.size()), category});
    display_frames.insert(display_frames.end(), shown.begin(), shown.end());
    ctx_.retained_bytes += sizeof(traceback_record) + shown.size() * 4 + 64 + it->first.size();
  }
  return it->second;
}

bool snapshot_builder::traceback_of(const value& v, std::uint32_t& out, std::uint64_t offset, const char* what) {
  if (v.kind == vkind::traceback) {
    out = v.ref;
    return true;
  }
  if (v.kind == vkind::none) {
    out = 0;
    return true;
  }
  object_slot* list = ctx_.objects.get(v);
  if (!list || (list->kind != okind::list && list->kind != okind::tuple))
    return ctx_.fail(offset, fmt::format("{}: \"frames\" is {}, expected a list of frames", what,
                                         v.kind == vkind::object ? "a dict" : describe(v.kind)));
  std::vector<std::uint32_t> ids;
  for (const value& item : list->items) {
    if (item.kind == vkind::frame) ids.push_back(item.ref);
    else ++skipped_frames;
  }
  out = ids.empty() ? 0 : intern_traceback(ids);
  const value compact{vkind::traceback, out, 0};
  value list_value = v;
  replace(list_value, &compact);
  return true;
}

bool snapshot_builder::finish(const value& top, std::uint64_t offset) {
  const std::string expected =
      "expected the dict written by torch.cuda.memory._dump_snapshot (with \"segments\" and \"device_traces\")";
  object_slot* t = ctx_.objects.get(top);
  if (t && t->kind == okind::list) return true;  // a bare list of segments (torch.cuda.memory_snapshot())
  if (!t || t->kind != okind::dict)
    return ctx_.fail(offset, fmt::format("the pickle holds {} at the top level; {}",
                                         top.kind == vkind::object ? "a tuple" : describe(top.kind), expected));
  const std::uint64_t mask = key_mask(*t);
  if (!(mask & (bit(k_segments) | bit(k_device_traces))))
    return ctx_.fail(offset, "the top-level dict has neither \"segments\" nor \"device_traces\"; " + expected);
  for (std::size_t i = 0; i + 1 < t->items.size(); i += 2) {
    const std::uint32_t k = known_key(t->items[i]);
    const value v = t->items[i + 1];
    if (k == k_device_traces && !read_device_traces(v, offset)) return false;
    if (k == k_allocator_settings) read_settings(v);
  }
  std::uint64_t placed = 0;
  for (const auto& [device, replay] : device_replays) placed += replays[replay].entries();
  std::uint64_t all = 0;
  for (const auto& r : replays) all += r.entries();
  unplaced_entries = all - placed;
  return true;
}

bool snapshot_builder::read_device_traces(const value& v, std::uint64_t offset) {
  object_slot* outer = ctx_.objects.get(v);
  if (!outer || outer->kind != okind::list)
    return ctx_.fail(offset, fmt::format("\"device_traces\" is {}, expected a list with one list per device",
                                         v.kind == vkind::object ? "not a list" : describe(v.kind)));
  for (std::size_t d = 0; d < outer->items.size(); ++d) {
    object_slot* inner = ctx_.objects.get(outer->items[d]);
    if (!inner || inner->kind != okind::list)
      return ctx_.fail(offset, fmt::format("\"device_traces\"[{}] is {}, expected a list of trace entries", d,
                                           describe(outer->items[d].kind)));
    if (!inner->items.empty())
      return ctx_.fail(offset, fmt::format("\"device_traces\"[{}] holds {}, expected trace entry dicts", d,
                                           describe(inner->items.front().kind)));
    if (inner->replay != no_index) device_replays.emplace_back(static_cast<int>(d), inner->replay);
  }
  return true;
}

void snapshot_builder::read_settings(const value& v) {
  object_slot* s = ctx_.objects.get(v);
  if (!s || s->kind != okind::dict) return;
  for (std::size_t i = 0; i + 1 < s->items.size(); i += 2) {
    const std::uint32_t k = known_key(s->items[i]);
    const value& x = s->items[i + 1];
    if (k == k_alloc_conf && x.kind == vkind::string) alloc_conf = std::string(ctx_.strings.get(x.ref));
    if (k == k_expandable_segments && x.kind == vkind::boolean) expandable_segments = x.payload != 0;
  }
}

}  // namespace vramscope::observe::detail
