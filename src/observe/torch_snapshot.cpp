#include <vramscope/observe/torch_snapshot.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "observe/pickle_machine.hpp"
#include "observe/pickle_opcodes.hpp"
#include "observe/pickle_source.hpp"
#include "observe/snapshot_builder.hpp"

namespace vramscope::observe {

std::string_view name_of(memory_category c) {
  switch (c) {
    case memory_category::parameters: return "parameters";
    case memory_category::gradients: return "gradients";
    case memory_category::optimizer: return "optimizer";
    case memory_category::activations: return "activations";
    case memory_category::communication: return "communication";
    case memory_category::other: return "other";
  }
  return "other";
}

namespace {

using namespace detail;

struct summarizer {
  const snapshot_builder& b;
  const string_table& strings;
  const snapshot_options& options;

  std::vector<stack_frame> frames_of(std::uint32_t traceback) const {
    const traceback_record& t = b.tracebacks[traceback];
    std::vector<stack_frame> out;
    for (std::uint32_t i = 0; i < t.count; ++i) {
      const frame_record& f = b.frames[b.display_frames[t.first + i]];
      out.push_back({std::string(strings.get(f.name)), std::string(strings.get(f.filename)), f.line});
    }
    return out;
  }

  // Final state of `device` from its segments; fills the live blocks the replay reconciles with.
  segment_state final_state(int device, std::vector<final_block>& live,
                            std::vector<segment_view>& views) const {
    segment_state s;
    for (const segment_record& seg : b.segments) {
      if (seg.device != device) continue;
      ++s.segments;
      s.expandable_segments += seg.expandable ? 1 : 0;
      s.reserved += seg.total_size;
      segment_view v;
      v.address = seg.address;
      v.size = seg.total_size;
      v.expandable = seg.expandable;
      v.blocks = seg.blocks.size();
      for (std::uint32_t id : seg.blocks) {
        const block_record& blk = b.blocks[id];
        ++s.blocks;
        switch (blk.state) {
          case block_state::active_allocated:
            s.allocated += blk.size;
            s.requested += blk.requested;
            v.allocated += blk.size;
            live.push_back({blk.address, blk.size, blk.requested, false, blk.traceback});
            break;
          case block_state::active_pending_free:
            s.active_pending_free += blk.size;
            v.pending_free += blk.size;
            live.push_back({blk.address, blk.size, blk.requested, true, blk.traceback});
            break;
          case block_state::inactive:
            s.inactive += blk.size;
            s.largest_inactive_block = std::max(s.largest_inactive_block, blk.size);
            v.free += blk.size;
            v.largest_free = std::max(v.largest_free, blk.size);
            if (seg.blocks.size() > 1) {
              s.inactive_split += blk.size;
              ++s.inactive_split_blocks;
            }
            break;
        }
      }
      views.push_back(v);
    }
    std::sort(views.begin(), views.end(),
              [](const segment_view& x, const segment_view& y) { return x.address < y.address; });
    return s;
  }

  void fill_peak_blocks(device_snapshot& d, std::vector<peak_block>& at_peak) const {
    d.allocations_at_peak = at_peak.size();
    for (const peak_block& p : at_peak)
      d.categories_at_peak[static_cast<std::size_t>(b.tracebacks[p.traceback].category)] += p.size;
    const std::size_t top = std::min(options.top_allocations, at_peak.size());
    std::partial_sort(at_peak.begin(), at_peak.begin() + static_cast<std::ptrdiff_t>(top), at_peak.end(),
                      [](const peak_block& x, const peak_block& y) {
                        return x.size != y.size ? x.size > y.size : x.address < y.address;
                      });
    for (std::size_t i = 0; i < top; ++i) {
      const peak_block& p = at_peak[i];
      d.top_allocations.push_back({p.address, p.size, p.requested, b.tracebacks[p.traceback].category,
                                   frames_of(p.traceback), p.trace_index});
    }
    std::unordered_map<std::uint32_t, allocation_site> sites;
    for (const peak_block& p : at_peak) {
      allocation_site& s = sites[p.traceback];
      ++s.count;
      s.total += p.size;
    }
    std::vector<std::pair<std::uint32_t, allocation_site>> ranked(sites.begin(), sites.end());
    std::sort(ranked.begin(), ranked.end(), [](const auto& x, const auto& y) {
      return x.second.total != y.second.total ? x.second.total > y.second.total : x.first < y.first;
    });
    if (ranked.size() > options.top_allocations) ranked.resize(options.top_allocations);
    for (auto& [traceback, site] : ranked) {
      site.category = b.tracebacks[traceback].category;
      site.frames = frames_of(traceback);
      d.top_sites.push_back(std::move(site));
    }
  }

  device_snapshot device(int index, trace_replay replay, warnings& warns, const std::string& source) const {
    device_snapshot d;
    d.device = index;
    std::vector<final_block> live;
    d.final_state = final_state(index, live, d.segments);
    d.trace_entries = replay.entries();
    d.allocs = replay.allocs;
    d.frees = replay.frees;
    d.segment_allocs = replay.segment_allocs;
    d.segment_frees = replay.segment_frees;
    d.other_entries = replay.others;
    d.ooms = replay.ooms;
    d.first_time_us = replay.first_time_us;
    d.last_time_us = replay.last_time_us;
    replay_result r = replay.finish(d.final_state.reserved, live);
    d.peak_allocated = r.allocated;
    d.peak_active = r.active;
    d.peak_reserved = r.reserved;
    d.reserved_at_allocated_peak = r.reserved_at_allocated_peak;
    d.allocated_before_trace = r.allocated_before_trace;
    d.timeline = std::move(r.timeline);
    if (r.reserved_inconsistent)
      warns.push_back(error_at(source, fmt::format("device {}: the trace frees more segment memory than the final "
                                                   "segments explain; reserved figures assume 0 at the first entry",
                                                   index)));
    fill_peak_blocks(d, r.at_peak);
    return d;
  }
};

void add_builder_warnings(const snapshot_builder& b, snapshot_summary& s) {
  if (b.skipped_frames > 0)
    s.warnings.push_back(error_at(s.source, fmt::format("{} frame-list items were not {{name, filename, line}} "
                                                        "dicts and were skipped", b.skipped_frames)));
  if (b.unknown_states > 0)
    s.warnings.push_back(error_at(s.source, fmt::format("{} blocks have an unknown state and were counted as "
                                                        "inactive", b.unknown_states)));
  if (b.unplaced_entries > 0)
    s.warnings.push_back(error_at(s.source, fmt::format("{} trace entries were outside \"device_traces\" and were "
                                                        "not analysed", b.unplaced_entries)));
}

snapshot_summary summarize(snapshot_builder& b, const pickle_context& ctx, int protocol, std::uint64_t size,
                           const std::string& source) {
  snapshot_summary s;
  s.source = source;
  s.file_bytes = size;
  s.protocol = protocol;
  s.alloc_conf = b.alloc_conf;
  s.expandable_segments = b.expandable_segments;
  std::map<int, std::optional<std::uint32_t>> devices;
  for (const segment_record& seg : b.segments) devices[seg.device];
  for (const auto& [device, replay] : b.device_replays) devices[device] = replay;
  const summarizer sum{b, ctx.strings, ctx.options};
  for (const auto& [device, replay] : devices) {
    trace_replay r = replay ? std::move(b.replays[*replay]) : trace_replay{};
    s.devices.push_back(sum.device(device, std::move(r), s.warnings, source));
  }
  add_builder_warnings(b, s);
  return s;
}

result<snapshot_summary> analyze(detail::byte_source& src, const std::string& source, const snapshot_options& options) {
  pickle_context ctx(options);
  // A memo entry takes at least 2 bytes of the file (a value and MEMOIZE); a trace entry, the
  // bulk of a snapshot, some 50. Reserving for one entry per 32 bytes keeps the memo from being
  // copied as it grows, and pages never written cost nothing.
  ctx.objects.reserve_memo(
      static_cast<std::size_t>(std::min<std::uint64_t>(src.size() / 32, max_memo)));
  snapshot_builder builder(ctx);
  pickle_machine machine(ctx, builder, src);
  if (!machine.run()) {
    const pickle_failure failure = ctx.failure.value_or(pickle_failure{src.offset(), "unreadable pickle"});
    return error_at(source, fmt::format("at byte offset {}: {}", failure.offset, failure.message));
  }
  return summarize(builder, ctx, machine.protocol(), src.size(), source);
}

}  // namespace

result<snapshot_summary> analyze_snapshot(const std::string& path, const snapshot_options& options) {
  auto src = detail::byte_source::open_file(path, options.chunk);
  if (!src) return src.error();
  return analyze(*src, path, options);
}

result<snapshot_summary> analyze_snapshot_bytes(std::string_view data, const std::string& source,
                                                const snapshot_options& options) {
  auto src = detail::byte_source::from_memory(data);
  return analyze(src, source, options);
}

}  // namespace vramscope::observe
