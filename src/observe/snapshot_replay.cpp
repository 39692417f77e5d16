#include "observe/snapshot_replay.hpp"

namespace vramscope::observe::detail {

namespace {

// The caching allocator rounds every request up to a multiple of 512 B (default configuration;
// c10/cuda/CUDACachingAllocator.cpp, round_size; docs/allocators.md, "Sizes"). Blocks handed
// out unsplit can be larger; the trace does not say.
bytes round_block(bytes size) { return size < 512 ? 512 : round_up(size, 512); }

std::optional<std::uint64_t> index_of(std::int64_t seq) {
  if (seq < 0) return std::nullopt;
  return static_cast<std::uint64_t>(seq);
}

}  // namespace

// Within a stretch the entry only raises its maxima; the rest happens once a stretch.
inline void trace_replay::record_timeline() {
  if (seq_ < next_stretch_seq_) [[likely]] {
    stretch& s = timeline_.back();
    s.allocated = std::max(s.allocated, allocated_);
    s.reserved_delta = std::max(s.reserved_delta, reserved_delta_);
    return;
  }
  start_stretch();
}

void trace_replay::feed(const trace_event& e) {
  if (e.has_time) {
    time_ = e.time_us;
    if (!first_time_us) first_time_us = e.time_us;
    last_time_us = e.time_us;
  } else {
    time_.reset();
  }
  switch (e.action) {
    case trace_action::alloc: ++allocs; alloc(e); break;
    case trace_action::free_requested: ++frees; free_requested(e); break;
    case trace_action::free_completed: free_completed(e); break;
    case trace_action::free_legacy:
      ++frees;
      free_requested(e);
      free_completed(e);
      break;
    case trace_action::segment_alloc:
    case trace_action::segment_map:
      ++segment_allocs;
      segment(static_cast<std::int64_t>(e.size));
      break;
    case trace_action::segment_free:
    case trace_action::segment_unmap:
      ++segment_frees;
      segment(-static_cast<std::int64_t>(e.size));
      break;
    case trace_action::oom: ooms.push_back({seq_, time_, e.size, e.device_free}); break;
    case trace_action::snapshot:
    case trace_action::other: ++others; break;
  }
  record_timeline();
  ++seq_;
}

void trace_replay::start_stretch() {
  if (timeline_capacity_ == 0) return;
  const std::uint64_t index = seq_ >> stretch_shift_;
  if (index >= timeline_.size()) {
    if (timeline_.size() == timeline_capacity_) {  // merge neighbours: twice as long each
      std::vector<stretch> merged;
      merged.reserve(timeline_.size() / 2 + 1);
      for (std::size_t i = 0; i < timeline_.size(); i += 2) {
        stretch s = timeline_[i];
        if (i + 1 < timeline_.size()) {
          s.allocated = std::max(s.allocated, timeline_[i + 1].allocated);
          s.reserved_delta = std::max(s.reserved_delta, timeline_[i + 1].reserved_delta);
        }
        merged.push_back(s);
      }
      timeline_ = std::move(merged);
      ++stretch_shift_;
      next_stretch_seq_ = timeline_.size() << stretch_shift_;
      return record_timeline();
    }
    timeline_.push_back({seq_, time_, allocated_, reserved_delta_});
    next_stretch_seq_ = timeline_.size() << stretch_shift_;
    return;
  }
  stretch& s = timeline_.back();
  s.allocated = std::max(s.allocated, allocated_);
  s.reserved_delta = std::max(s.reserved_delta, reserved_delta_);
}

void trace_replay::raise_timeline(bytes size) {
  for (stretch& s : timeline_) s.allocated += size;
}

void trace_replay::raise_allocated_peak() {
  if (allocated_ <= peak_allocated_.value) return;
  peak_allocated_ = {allocated_, static_cast<std::int64_t>(seq_), time_};
  journal_.clear();
  reserved_delta_at_allocated_peak_ = reserved_delta_;
}

void trace_replay::raise_active_peak() {
  if (active_ <= peak_active_.value) return;
  peak_active_ = {active_, static_cast<std::int64_t>(seq_), time_};
}

void trace_replay::journal_if_live_at_peak(std::uint64_t addr, const live_block& b) {
  if (b.alloc_seq <= peak_allocated_.seq)
    journal_.push_back({addr, b.size, b.requested, b.traceback, index_of(b.alloc_seq)});
}

void trace_replay::alloc(const trace_event& e) {
  if (live_block* old = live_.find(e.addr)) {  // its free was not recorded: retire it now
    if (!old->pending) {
      allocated_ -= old->size;
      journal_if_live_at_peak(e.addr, *old);
    }
    active_ -= old->size;
    live_.erase(e.addr);
  }
  const bytes size = round_block(e.size);
  live_.insert(e.addr, {size, e.size, static_cast<std::int64_t>(seq_), e.traceback, false});
  allocated_ += size;
  active_ += size;
  raise_allocated_peak();
  raise_active_peak();
}

void trace_replay::free_requested(const trace_event& e) {
  if (live_block* b = live_.find(e.addr)) {
    if (b->pending) return;  // a repeated request changes nothing
    allocated_ -= b->size;
    b->pending = true;
    journal_if_live_at_peak(e.addr, *b);
    return;
  }
  // Allocated before the trace: live (allocated and active) from the first entry until now.
  const bytes size = round_block(e.size);
  ++found_before_;
  raise_timeline(size);
  peak_allocated_.value += size;
  peak_active_.value += size;
  journal_.push_back({e.addr, size, e.size, 0, std::nullopt});
  live_.insert(e.addr, {size, e.size, -1, 0, true});
  active_ += size;
}

void trace_replay::free_completed(const trace_event& e) {
  if (live_block* b = live_.find(e.addr)) {
    if (!b->pending) {  // completed without a recorded request
      allocated_ -= b->size;
      journal_if_live_at_peak(e.addr, *b);
    }
    active_ -= b->size;
    live_.erase(e.addr);
    return;
  }
  // Freed by the program before the trace and still waiting on stream events until now.
  peak_active_.value += round_block(e.size);
}

void trace_replay::segment(std::int64_t delta) {
  reserved_delta_ += delta;
  if (reserved_delta_ > peak_reserved_delta_) {
    peak_reserved_delta_ = reserved_delta_;
    peak_reserved_seq_ = static_cast<std::int64_t>(seq_);
    peak_reserved_time_ = time_;
  }
}

replay_result trace_replay::finish(bytes reserved_end, const std::vector<final_block>& live_end) {
  replay_result r;
  std::vector<peak_block> before;
  for (const final_block& fb : live_end) {
    const live_block* b = live_.find(fb.address);
    if (b) continue;  // the trace accounts for it (live or pending)
    peak_active_.value += fb.size;
    if (fb.pending_free) continue;
    peak_allocated_.value += fb.size;
    raise_timeline(fb.size);
    ++found_before_;
    before.push_back({fb.address, fb.size, fb.requested, fb.traceback, std::nullopt});
  }
  r.allocated = {peak_allocated_.value, index_of(peak_allocated_.seq), peak_allocated_.time_us};
  r.active = {peak_active_.value, index_of(peak_active_.seq), peak_active_.time_us};

  std::int64_t start = static_cast<std::int64_t>(reserved_end) - reserved_delta_;
  if (start < 0) {
    r.reserved_inconsistent = true;
    start = 0;
  }
  r.reserved = {static_cast<bytes>(start + peak_reserved_delta_), index_of(peak_reserved_seq_), peak_reserved_time_};
  const std::int64_t at_peak = start + reserved_delta_at_allocated_peak_;
  r.reserved_at_allocated_peak = at_peak < 0 ? 0 : static_cast<bytes>(at_peak);

  r.at_peak = std::move(journal_);
  live_.for_each([&](std::uint64_t addr, const live_block& b) {
    if (!b.pending && b.alloc_seq <= peak_allocated_.seq)
      r.at_peak.push_back({addr, b.size, b.requested, b.traceback, index_of(b.alloc_seq)});
  });
  r.at_peak.insert(r.at_peak.end(), before.begin(), before.end());
  r.allocated_before_trace = found_before_;
  for (const stretch& s : timeline_) {
    const std::int64_t reserved = start + s.reserved_delta;
    r.timeline.push_back({s.first_entry, s.time_us, s.allocated, reserved < 0 ? 0 : static_cast<bytes>(reserved)});
  }
  return r;
}

}  // namespace vramscope::observe::detail
