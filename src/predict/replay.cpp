#include "predict/replay.hpp"

#include <algorithm>
#include <cassert>

namespace vramscope::predict {

// Not in an anonymous namespace: replay_while_built::state holds one.
namespace replay_detail {

using schedule::event_kind;

struct live_tensor {
  alloc::handle id = 0;
  bytes size = 0;
  schedule::category cat = schedule::category::temporary;
  bool live = false;
};

// The tensor count of the last program this thread replayed: the next (another rank, the next
// what-if row) is usually alike, so its table is reserved at once instead of regrown.
thread_local std::size_t last_tensors = 0;

class replayer {
 public:
  replayer(alloc::allocator_model& a, std::size_t points, std::size_t total_events)
      : allocator_(a), total_events_(total_events) {
    stride_ = points > 0 ? std::max<std::size_t>(1, total_events / points) : 0;
    tensors_.reserve(last_tensors);
  }
  ~replayer() { last_tensors = tensors_.size(); }
  replayer(const replayer&) = delete;
  replayer& operator=(const replayer&) = delete;

  // Replays the events of `p` from where the last call stopped; false once an allocation has
  // failed (the replay ends there).
  bool advance(const schedule::program& p) {
    if (result_.oom) return false;
    if (tensors_.size() < p.tensors) tensors_.resize(p.tensors);
    for (; next_ < p.events.size(); ++next_) {
      close_steps(p);
      const auto& e = p.events[next_];
      phase_ = schedule::phase_after(e, phase_);
      if (e.kind == event_kind::phase) begin_phase(p.phase_names[phase_]);
      if (!apply(e)) return false;
      // Without a curve to sample, only an allocation can raise what observe keeps (peaks, the
      // breakdown at the allocated peak, init's figures): a free, record_stream, sync or
      // empty_cache never raises allocated, active or reserved in any model.
      if (stride_ > 0 || e.kind == event_kind::alloc) observe(next_);
    }
    close_steps(p);
    return true;
  }

  replay_result take() { return std::move(result_); }

  // What the replay has done so far, besides the allocator's state (no curve: stride 0).
  struct progress {
    std::size_t next;
    std::uint32_t phase;
    int outside;
    std::vector<live_tensor> tensors;
    std::array<bytes, schedule::category_count> by_category;
    replay_result result;
    std::size_t next_step;
    bool in_steps;
    replay_result::step_peak step_peak;
  };
  [[nodiscard]] progress saved() const {
    assert(stride_ == 0);
    return progress{next_,   phase_,   outside_,  tensors_, by_category_,
                    result_, next_step_, in_steps_, step_peak_};
  }
  void restore(const progress& p) {
    assert(stride_ == 0);
    next_ = p.next;
    phase_ = p.phase;
    outside_ = p.outside;
    tensors_ = p.tensors;
    by_category_ = p.by_category;
    result_ = p.result;
    next_step_ = p.next_step;
    in_steps_ = p.in_steps;
    step_peak_ = p.step_peak;
  }
  [[nodiscard]] bool started() const { return next_ > 0 || result_.oom; }
  [[nodiscard]] bool failed() const { return result_.oom.has_value(); }

  // The state the replay goes on from (the allocator's; each live tensor's size, category and
  // block, in the order of their ids; the bytes live per category; the phase slot), appended
  // to `key`; false where the allocator cannot say. The ids themselves are left out: a tensor
  // a step makes and keeps (a gradient) has a new id in each step, and the builder's next step
  // refers to it as its last did to the one before. The figures so far are left out too: they
  // only ever rise.
  // A few figures of the state (each also in state_key): the bytes live per category, the
  // phase slot, the allocator's current levels, segments and allocations.
  void summary(std::vector<std::uint64_t>& out) const {
    out.assign(by_category_.begin(), by_category_.end());
    out.push_back(static_cast<std::uint64_t>(static_cast<std::int64_t>(outside_)));
    const auto& s = allocator_.stats();
    for (const alloc::stat* f : {&s.allocated, &s.active, &s.reserved, &s.requested})
      out.push_back(f->current);
    out.push_back(s.segments);
    out.push_back(s.allocations);
  }

  bool state_key(std::vector<std::uint64_t>& key, std::vector<alloc::handle>& live) const {
    live.clear();
    const auto first = key.size();
    for (std::size_t t = 0; t < tensors_.size(); ++t)
      if (tensors_[t].live) {
        live.push_back(tensors_[t].id);
        key.push_back(tensors_[t].size);
        key.push_back(static_cast<std::uint64_t>(tensors_[t].cat));
      }
    key.insert(key.begin() + static_cast<std::ptrdiff_t>(first), live.size());
    for (bytes b : by_category_) key.push_back(b);
    key.push_back(static_cast<std::uint64_t>(static_cast<std::int64_t>(outside_)));
    return allocator_.state_key(live, key);
  }

 private:
  bool apply(const schedule::event& e) {
    switch (e.kind) {
      case event_kind::alloc: return allocate(e);
      case event_kind::free: release(e.tensor); break;
      case event_kind::record_stream:
        if (tensors_[e.tensor].live) allocator_.record_stream(tensors_[e.tensor].id, e.stream);
        break;
      case event_kind::sync: allocator_.complete_stream(e.stream); break;
      case event_kind::empty_cache: allocator_.empty_cache(); break;
      case event_kind::phase: break;
    }
    return true;
  }

  // The steps of program::steps that end before the next event: each one's peaks go to the
  // result, and the next step's begin with the levels now.
  void close_steps(const schedule::program& p) {
    for (; next_step_ < p.steps.size() && p.steps[next_step_].end <= next_; ++next_step_) {
      const auto& s = allocator_.stats();
      step_peak_.allocated = std::max(step_peak_.allocated, s.allocated.current);
      step_peak_.reserved = std::max(step_peak_.reserved, s.reserved.current);
      result_.steps.push_back(step_peak_);
      step_peak_ = {s.allocated.current, s.reserved.current};
    }
  }

  // A phase begins: outside_ becomes its slot in replay_result::outside, or -1 for a phase of
  // the training step. The slot starts at the levels the phase begins with.
  void begin_phase(const std::string& name) {
    outside_ = -1;
    if (!in_steps_ && name.starts_with("forward:")) {  // the first step's first forward
      const auto& s = allocator_.stats();
      in_steps_ = true;
      step_peak_ = {s.allocated.current, s.reserved.current};
    }
    constexpr std::size_t first_step = 1;  // outside_phase_names[1]: the first "optimizer"
    for (std::size_t i = 0; i < outside_phase_names.size(); ++i) {
      const bool match = i == first_step ? name == "optimizer" : name == outside_phase_names[i];
      if (!match || result_.outside[i].reached) continue;
      auto& slot = result_.outside[i];
      const auto& s = allocator_.stats();
      slot.reached = true;
      slot.peak = levels{s.allocated.current, s.active.current, s.reserved.current, 0};
      outside_ = static_cast<int>(i);
    }
  }

  bool allocate(const schedule::event& e) {
    const auto a = allocator_.allocate(e.size, e.stream);
    if (!a.ok) {
      result_.oom = a.oom;
      result_.oom_phase = phase_;
      if (outside_ >= 0) result_.outside[static_cast<std::size_t>(outside_)].oom = true;
      return false;
    }
    tensors_[e.tensor] = live_tensor{a.id, a.block_size, e.cat, true};
    by_category_[static_cast<std::size_t>(e.cat)] += a.block_size;
    return true;
  }

  void release(std::uint32_t tensor) {
    auto& t = tensors_[tensor];
    if (!t.live) return;
    allocator_.free(t.id);
    by_category_[static_cast<std::size_t>(t.cat)] -= t.size;
    t.live = false;
  }

  void observe(std::size_t index) {
    const auto& s = allocator_.stats();
    auto& r = result_;
    if (s.allocated.current > r.peak.allocated) {
      r.peak.allocated = s.allocated.current;
      r.allocated_peak_phase = phase_;
      r.at_peak = by_category_;
      r.fragmentation = s.reserved.current - s.active.current;
    }
    r.peak.active = std::max(r.peak.active, s.active.current);
    if (s.reserved.current > r.peak.reserved) {
      r.peak.reserved = s.reserved.current;
      r.reserved_peak_phase = phase_;
    }
    if (in_steps_) {
      step_peak_.allocated = std::max(step_peak_.allocated, s.allocated.current);
      step_peak_.reserved = std::max(step_peak_.reserved, s.reserved.current);
    }
    if (phase_ == 0) {
      r.init_allocated = std::max(r.init_allocated, s.allocated.current);
      r.init_reserved = std::max(r.init_reserved, s.reserved.current);
    }
    if (outside_ >= 0) {
      auto& p = r.outside[static_cast<std::size_t>(outside_)].peak;
      p.allocated = std::max(p.allocated, s.allocated.current);
      p.active = std::max(p.active, s.active.current);
      p.reserved = std::max(p.reserved, s.reserved.current);
    }
    if (stride_ > 0) sample(s, phase_, index);
  }

  // Keeps the highest point of each window, so downsampling never hides a peak.
  void sample(const alloc::allocator_stats& s, std::uint32_t phase, std::size_t index) {
    if (s.allocated.current >= window_.allocated || s.reserved.current > window_.reserved)
      window_ = timeline_point{index, s.allocated.current, s.active.current, s.reserved.current,
                               phase, by_category_};
    if ((index + 1) % stride_ == 0 || index + 1 == total_events_) {
      result_.timeline.push_back(window_);
      window_ = timeline_point{};
    }
  }

  alloc::allocator_model& allocator_;
  std::size_t total_events_;
  std::size_t next_ = 0;  // the next event to replay
  std::uint32_t phase_ = 0;  // of the event replayed last
  int outside_ = -1;         // its slot in replay_result::outside, or -1
  std::vector<live_tensor> tensors_;
  std::array<bytes, schedule::category_count> by_category_{};
  replay_result result_;
  std::size_t stride_ = 0;
  timeline_point window_{};
  std::size_t next_step_ = 0;  // the next of program::steps to close
  bool in_steps_ = false;      // the first step's first forward has begun
  replay_result::step_peak step_peak_;  // of the step under way
};

}  // namespace replay_detail

void fill_rank(rank_prediction& r, const replay_result& rr, const schedule::program& p) {
  r.peak.allocated = rr.peak.allocated;
  r.peak.active = rr.peak.active;
  r.peak.reserved = rr.peak.reserved;
  r.peak_phase = p.phase_names[rr.allocated_peak_phase];
  r.reserved_peak_phase = p.phase_names[rr.reserved_peak_phase];
  r.init_allocated = rr.init_allocated;
  r.init_reserved = rr.init_reserved;
  using schedule::category;
  auto at = [&](category c) { return rr.at_peak[static_cast<std::size_t>(c)]; };
  r.parts.parameters = at(category::parameters);
  r.parts.gradients = at(category::gradients);
  r.parts.optimizer = at(category::optimizer);
  r.parts.activations = at(category::activations);
  r.parts.communication = at(category::communication);
  r.parts.temporary = at(category::temporary);
  r.parts.fragmentation = rr.fragmentation;
  r.oom = rr.oom;
  if (rr.oom) r.oom_phase = p.phase_names[rr.oom_phase];
  r.phases.clear();
  for (std::size_t i = 0; i < outside_phase_names.size(); ++i) {
    const auto& o = rr.outside[i];
    if (!o.reached) continue;
    r.phases.push_back(phase_peak{outside_phase_names[i], o.peak, true, o.oom, !o.oom});
  }
  r.timeline = rr.timeline;
  if (!rr.timeline.empty()) r.phase_names = p.phase_names;
}

replay_result replay(const schedule::program& program, alloc::allocator_model& allocator,
                     std::size_t timeline_points) {
  replay_detail::replayer r(allocator, timeline_points, program.events.size());
  r.advance(program);
  return r.take();
}

// Not in an anonymous namespace either: replay_while_built::state points into them.
namespace replay_detail {

// A whole program replayed after an init kept below (first_phase). What-if rows whose programs
// are equal event by event replay to the same figures: a row's micro-batch doubled and its
// sequence halved often gives every tensor the same size. The last 64 programs this thread
// replayed, which reaches back over a grid's doublings: some 11 MiB a thread in the 8B grid
// (programs of about 11,000 events of 16 bytes).
struct replayed_program {
  std::uint64_t init = 0;               // first_phase::serial of the init it began with
  std::vector<schedule::event> events;  // all of them, the init's included
  std::uint32_t tensors = 0;
  bool complete = true;  // false: cut at the phase boundary after its replay failed
  // Events so far wherever the program's watcher answered steady() with true, in order.
  std::vector<std::size_t> steady_at;
  // Events so far and the answer wherever period_repeats() answered other than 0, in order.
  std::vector<std::pair<std::size_t, std::size_t>> repeats_at;
  replay_result result;
};
constexpr std::size_t programs_kept = 64;
thread_local std::vector<replayed_program> programs;
thread_local std::size_t next_program = 0;  // the one to replace next

// The replay of the first phase (init: parameters, gradients, optimizer state) of the last
// programs this thread replayed while building them. What-if rows that differ only after init
// (sequence length, micro-batch, checkpointing) have the same init events, and a replay is a
// pure function of the events and the allocator's options (allocator_model::clone): such a
// row takes a copy of the allocator and the replayer after init instead of replaying it. A few
// entries, since fit's rows alternate with their plans on an unlimited GPU (another capacity).
struct first_phase {
  std::vector<schedule::event> events;  // compared event by event before any reuse
  std::uint32_t tensors = 0;
  std::unique_ptr<alloc::allocator_model> allocator;  // its state after the events
  replay_detail::replayer::progress after;
  std::uint64_t serial = 0;  // this thread's count of inits kept when this one was
};
constexpr std::size_t first_phases_kept = 4;
thread_local std::array<first_phase, first_phases_kept> first_phases;
thread_local std::size_t next_first_phase = 0;  // the entry to replace next
thread_local std::uint64_t inits_kept = 0;

}  // namespace replay_detail

using replay_detail::first_phase;
using replay_detail::first_phases;
using replay_detail::first_phases_kept;
using replay_detail::next_first_phase;
using replay_detail::programs_kept;
using replay_detail::replayed_program;

struct replay_while_built::state {
  explicit state(alloc::allocator_model& a) : allocator(a), run(a, 0, 0) {}

  // The program's first phase: taken from an earlier replay of the same events under the same
  // options where there is one, else replayed and kept.
  bool first(const schedule::program& so_far) {
    for (auto& f : first_phases)
      if (f.allocator && f.tensors == so_far.tensors &&
          f.allocator->capacity() == allocator.capacity() &&
          schedule::same_events(f.events, so_far.events) &&
          allocator.copy_state_from(*f.allocator)) {
        run.restore(f.after);
        init = &f;
        checked = so_far.events.size();
        for (const auto& p : replay_detail::programs)
          if (p.init == f.serial) candidates.push_back(&p);
        return true;
      }
    if (!run.advance(so_far)) return false;
    auto copy = allocator.clone();
    if (!copy) return true;
    auto& f = first_phases[next_first_phase];
    next_first_phase = (next_first_phase + 1) % first_phases_kept;
    f.events = so_far.events;
    f.tensors = so_far.tensors;
    f.allocator = std::move(copy);
    f.after = run.saved();
    f.serial = ++replay_detail::inits_kept;
    init = &f;
    return true;
  }

  // The events after the first phase, while they equal those of a program replayed after the
  // same init, are not replayed: the figures will be that program's. false where that program's
  // replay failed in the phase that ends here (so does this one's).
  bool next(const schedule::program& so_far) {
    if (!candidates.empty()) {
      narrow(so_far.events);
      for (const auto* p : candidates)
        if (!p->complete && p->events.size() == so_far.events.size()) return false;
      if (!candidates.empty()) return true;
    }
    return run.advance(so_far);  // from where the replay stopped
  }

  // A step or micro-batch ends: whether the replay is back in the state the previous one of
  // its kind left it in (keys compared whole). Where the program so far is one replayed
  // before, that program's answer here. A failed replay is never steady (the build ends at
  // the next phase).
  bool steady(const schedule::program& so_far, schedule::boundary kind) {
    if (kind == schedule::boundary::step) {  // micro-batches and periods: this step's
      last_key[1].clear();
      periods.clear();
      keys_made = 0;
    }
    if (!candidates.empty()) {
      narrow(so_far.events);
      if (!candidates.empty()) {
        const bool cut = std::any_of(candidates.begin(), candidates.end(), [&](const auto* p) {
          return std::find(p->steady_at.begin(), p->steady_at.end(), so_far.events.size()) !=
                 p->steady_at.end();
        });
        if (cut) steady_at.push_back(so_far.events.size());
        return cut;
      }
    }
    if (!run.advance(so_far)) return false;
    auto& last = last_key[kind == schedule::boundary::step ? 0 : 1];
    key.clear();
    if (!run.state_key(key, live)) {
      last.clear();
      return false;
    }
    if (!last.empty() && key == last) {
      steady_at.push_back(so_far.events.size());
      return true;
    }
    last.swap(key);
    return false;
  }

  // A pipeline period ends: how many periods back (of those kept, all since the step began but
  // the oldest) the replay was in the state it is in now. The answer of a program replayed
  // before where the program so far is one. Periods are kept only once no program replayed
  // before is: they run on from there without a gap, so that their count back is the periods'.
  // Each is kept with a summary of its state (part of the key: the bytes live per category,
  // the phase slot, the allocator's levels and counts), and its whole key only where the
  // summary is that of a period before: a state whose levels keep changing (blocks whose
  // frees wait on a stream that never syncs in the step) is never keyed whole.
  std::size_t period_repeats(const schedule::program& so_far) {
    const std::size_t at = so_far.events.size();
    if (!candidates.empty()) {
      narrow(so_far.events);
      if (!candidates.empty()) {
        std::size_t back = 0;
        for (const auto* p : candidates)
          for (const auto& [where, b] : p->repeats_at)
            if (where == at) back = b;
        if (back > 0) repeats_at.emplace_back(at, back);
        return back;
      }
    }
    if (!run.advance(so_far)) return 0;
    if (periods.size() == periods_kept) periods.erase(periods.begin());
    period_key now;
    run.summary(now.summary);
    const bool seen = std::any_of(periods.begin(), periods.end(),
                                  [&](const period_key& p) { return p.summary == now.summary; });
    if (seen && keys_made < keys_tried) {
      ++keys_made;
      if (!run.state_key(now.key, live)) {
        periods.clear();
        return 0;
      }
      // FNV-1a over the words: most keys differ from the others somewhere in the middle.
      now.hash = 14695981039346656037ull;
      for (std::uint64_t v : now.key) now.hash = (now.hash ^ v) * 1099511628211ull;
      now.keyed = true;
      for (std::size_t k = periods.size(); k-- > 0;)
        if (periods[k].keyed && periods[k].hash == now.hash && periods[k].key == now.key) {
          const std::size_t back = periods.size() - k;
          repeats_at.emplace_back(at, back);
          return back;
        }
    }
    periods.push_back(std::move(now));
    return 0;
  }

  // `take`: the program's events, which go to the kept program instead of a copy of them.
  replay_result finish(const schedule::program& program, std::vector<schedule::event>* take) {
    if (!candidates.empty()) {
      narrow(program.events);
      for (const auto* p : candidates)
        if (p->events.size() == program.events.size() && p->tensors == program.tensors &&
            p->complete == program.complete) {
          // An out-of-memory message names the device of the allocator that gave it: this one's.
          auto result = p->result;
          if (result.oom)
            if (auto message = allocator.oom_message(*result.oom)) result.oom->message = *message;
          return result;
        }
    }
    run.advance(program);
    replay_result result = run.take();
    if (init != nullptr) keep(program, result, take);
    return result;
  }

  // Drops the candidates that differ from `events` (the program so far) in what was not yet
  // compared.
  void narrow(const std::vector<schedule::event>& events) {
    const auto from = static_cast<std::ptrdiff_t>(checked);
    std::erase_if(candidates, [&](const replayed_program* p) {
      return p->events.size() < events.size() ||
             !schedule::same_events(events.data() + from, events.data() + events.size(),
                                    p->events.data() + from);
    });
    checked = events.size();
  }

  void keep(const schedule::program& program, const replay_result& result,
            std::vector<schedule::event>* take) {
    auto& kept = replay_detail::programs;
    auto& next = replay_detail::next_program;
    if (kept.size() < programs_kept) kept.emplace_back();
    auto& p = kept[next];
    next = (next + 1) % programs_kept;
    p.init = init->serial;
    if (take != nullptr) {
      p.events.swap(*take);
      take->clear();
    } else {
      p.events = program.events;
    }
    p.tensors = program.tensors;
    p.complete = program.complete;
    p.steady_at = steady_at;
    p.repeats_at = repeats_at;
    p.result = result;
  }

  alloc::allocator_model& allocator;
  replay_detail::replayer run;
  first_phase* init = nullptr;                      // the kept init this replay began with
  std::vector<const replayed_program*> candidates;  // equal to the program so far
  std::size_t checked = 0;  // events of the program so far compared with the candidates
  // steady(): the key where the last step [0] and the last micro-batch of this step [1] ended
  // (empty: none, or no key), the key now and its live handles, and where it said true.
  std::array<std::vector<std::uint64_t>, 2> last_key;
  std::vector<std::uint64_t> key;
  std::vector<alloc::handle> live;
  std::vector<std::size_t> steady_at;
  // period_repeats(): the keys where this step's pipeline periods ended, the oldest first (at
  // most periods_kept: a ring of micro-batches in flight is seldom longer), with a hash each;
  // and where it answered other than 0.
  struct period_key {
    std::vector<std::uint64_t> summary;
    bool keyed = false;  // `hash` and `key` are made
    std::uint64_t hash = 0;
    std::vector<std::uint64_t> key;
  };
  static constexpr std::size_t periods_kept = 64;
  // Whole keys made for periods in this step: after keys_tried without a repeat (a state
  // whose blocks keep moving though its levels repeat) no more are, which only costs the
  // periods that might have been left out.
  static constexpr std::size_t keys_tried = 24;
  std::size_t keys_made = 0;
  std::vector<period_key> periods;
  std::vector<std::pair<std::size_t, std::size_t>> repeats_at;
};

replay_while_built::replay_while_built(alloc::allocator_model& allocator)
    : state_(std::make_unique<state>(allocator)) {}

replay_while_built::~replay_while_built() = default;

bool replay_while_built::grown(const schedule::program& so_far) {
  if (!state_->run.started()) return state_->first(so_far);
  return state_->next(so_far);
}

bool replay_while_built::steady(const schedule::program& so_far, schedule::boundary kind) {
  if (!state_->run.started()) return false;
  return state_->steady(so_far, kind);
}

std::size_t replay_while_built::period_repeats(const schedule::program& so_far) {
  if (!state_->run.started()) return 0;
  return state_->period_repeats(so_far);
}

replay_result replay_while_built::finish(const schedule::program& program) {
  return state_->finish(program, nullptr);
}

replay_result replay_while_built::finish_taking_events(schedule::program& program) {
  return state_->finish(program, &program.events);
}

}  // namespace vramscope::predict
