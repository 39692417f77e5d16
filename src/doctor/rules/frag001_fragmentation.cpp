// FRAG001: the caching allocator holds memory it cannot hand out for the sizes being asked: an
// out-of-memory error while its cache could have served the request, or reserved far above
// allocated with many non-releasable split blocks.
#include <fmt/format.h>

#include "doctor/likelihood.hpp"
#include "doctor/oom_facts.hpp"
#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

namespace lk = likelihood;

// The message: the cache covers the request (at an out-of-memory error it holds only pieces of
// segments that still have live blocks, each too small for the request: the allocator freed every
// whole cached segment and retried first, reference/allocator-torch.md 5), and by PyTorch's own
// test reserved is far above allocated (likelihood.hpp). A cache that covers the request, is a
// sizeable share of the reserve but smaller than the live tensors leaves fragmentation possible,
// second to the job's size; a cache of a few per cent of the reserve, below the readings the
// message is silent on.
void weigh_message(const oom_facts& o, finding& f, bytes& wasted) {
  if (!o.cached || !o.requested || *o.cached == 0) return;
  const bytes covered = o.free.value_or(0) + *o.cached;
  if (covered < *o.requested) return;  // even a perfect allocator lacked the bytes: not this
  f.evidence.push_back(
      fmt::format(fmt::runtime(o.allocator == observe::oom_allocator::torch_caching
                                   ? "{}: {} reserved by PyTorch but unallocated, {} requested"
                                   : "{}: {} held by the pool but not in use, {} requested"),
                  where(*o.report), format_bytes(*o.cached), format_bytes(*o.requested)));
  wasted = std::max(wasted, *o.cached);
  const bool room_for_next = covered >= 2 * *o.requested;
  const bool far_above = o.reserved_far_above_allocated();
  if (o.cache_beyond_what_live_blocks_pin()) {
    f.likelihood = std::max(f.likelihood, lk::weak - lk::step);
    f.against.push_back(fmt::format("{} of live tensors are all small-pool blocks, which pin at most {} a block: "
                                    "the {} cached is more than they could hold, so it waits on another stream "
                                    "(NCCL001), it is not split around them",
                                    size_or_unknown(o.allocated), format_bytes(lk::small_segment),
                                    format_bytes(*o.cached)));
    return;
  }
  const bool large_share = o.reserved && *o.cached >= static_cast<bytes>(lk::cached_share_large *
                                                                        static_cast<double>(*o.reserved));
  // The device had most of the request free and the cache holds the rest several times over in
  // pieces (likelihood.hpp, free_share_of_split_request): the memory was there, split between
  // the device and the cache, which is what expandable segments join. The free memory alone
  // covering the request (as printed) shows no split, and the message's rounding hides how
  // short it was.
  const bytes free_now = o.free.value_or(0);
  const bool split_with_device =
      free_now < *o.requested && *o.cached >= lk::cache_sizeable_min &&
      static_cast<double>(free_now) >=
          lk::free_share_of_split_request * static_cast<double>(*o.requested);
  double level = lk::weak;
  if (split_with_device) {
    level = lk::strong;
    f.support.push_back(
        fmt::format("the GPU had {} free for a request of {}, and the cache holds the {} short of "
                    "it in {}: neither alone could serve it, together they could; expandable "
                    "segments let a cached piece at a segment's end grow into free memory",
                    format_bytes(free_now), format_bytes(*o.requested),
                    format_bytes(*o.requested - free_now), format_bytes(*o.cached)));
    // A phase the paste names (an evaluation, a save) has its own finding for a one-off large
    // request: fragmentation stays a reading, second to it.
    if (o.phase != oom_phase::unknown) {
      level -= lk::step;
      f.against.push_back(fmt::format("the paste places the failure outside the training step ({})",
                                      o.phase_line.substr(0, 120)));
    }
  } else if (room_for_next && far_above) {
    level = lk::strong;
    f.support.push_back(fmt::format("the cache could have served this request and the next of its size, and "
                                    "holds {} beside {} of live tensors: reserved >> allocated, PyTorch's own test",
                                    format_bytes(*o.cached), size_or_unknown(o.allocated)));
  } else if (room_for_next && large_share) {
    level = lk::possible;
    f.support.push_back(fmt::format("the cache ({}) could have served this request and the next of its size",
                                    format_bytes(*o.cached)));
    f.against.push_back(fmt::format("the live tensors ({}) are most of what the process reserved ({}): "
                                    "defragmented, the step would grow into the same wall a few allocations "
                                    "later unless it was near its peak; the message does not say which",
                                    size_or_unknown(o.allocated), size_or_unknown(o.reserved)));
  } else {
    // A cache that is a small share of the reserve and small in itself (below cache_sizeable_min),
    // for a request the free memory alone could not have served either: the facts argue against
    // it twice, which ranks it below the readings the message is merely silent on (an unplaced
    // evaluation or kept tensors, weak - step), which the traceback or a second message can still
    // decide. A request the free memory alone covered failed for something other than room, a
    // cache far above the live tensors is PyTorch's own test, and a cache of a gigabyte or more
    // is what fragmentation headroom is sized for: those stay weak.
    if (!large_share && !far_above && o.free.value_or(0) <= *o.requested &&
        *o.cached < lk::cache_sizeable_min)
      level = lk::weak - 2 * lk::step;
    f.against.push_back(fmt::format("the cache ({}) is small beside what the process holds ({} reserved): "
                                    "defragmenting would not leave room for the step",
                                    format_bytes(*o.cached), size_or_unknown(o.reserved)));
  }
  if (o.outside_covers()) {
    level -= lk::step;
    f.against.push_back(fmt::format("{} of the GPU is held outside this process", format_bytes(*o.outside)));
  }
  f.likelihood = std::max(f.likelihood, level);
}

// CuPy's pool: under a limit, its total, cached blocks included, plus the request passed the limit
// the request alone fits under (oom_facts::pool_limit_counts_cache); in CuPy 5 and older, the last
// retry kept the blocks gc.collect() returned (oom_facts::retry_kept_collected_blocks). The
// message does not split the pool's total into live arrays and cache: likely under a limit, which
// never released anything, possible for the old retry.
void weigh_pool(const oom_facts& o, finding& f, bytes& wasted) {
  const bool limit = o.pool_limit_counts_cache();
  f.evidence.push_back(
      fmt::format("{}: the CuPy pool held {} (live arrays and cached free blocks){}; {} requested",
                  where(*o.report), format_bytes(*o.reserved),
                  limit ? fmt::format(" under its limit of {}", format_bytes(*o.capacity)) : "",
                  format_bytes(*o.requested)));
  f.support.push_back(
      limit ? "CuPy compares its limit with the pool's total, cached free blocks included, before "
              "it releases any of them; the request alone fits under the limit"
            : "this CuPy's last retry ran gc.collect() without releasing the blocks it returned "
              "to the pool (fixed by cupy#1984): arrays freed by the collector stayed cached");
  f.against.push_back(
      "the message does not split the pool's total into live arrays and cached blocks: if the "
      "arrays alone fill it, releasing the cache changes nothing");
  wasted = std::max(wasted, *o.reserved);
  f.likelihood = std::max(f.likelihood, limit ? lk::likely : lk::possible);
}

// A BFC pool's statistics without its regions' figure: room in its limit that did not serve the
// request (oom_facts::bfc_room_in_limit). TensorFlow 1.x without allow_growth took its whole
// limit as one region at the first request, so the room sat in free chunks none of which held
// it; with allow_growth, part may be a region the driver refused. Room for this request and the
// next of its size is likely fragmentation; room for this one only, possible: the pool is near
// full either way.
void weigh_bfc_limit(const oom_facts& o, bytes room, finding& f, bytes& wasted) {
  const auto& r = *o.report;
  f.evidence.push_back(
      fmt::format("{}: the pool's limit {}, {} in use: {} of the limit not in use, {} requested",
                  where(r), format_bytes(*r.capacity), format_bytes(*r.in_use), format_bytes(room),
                  format_bytes(*r.requested)));
  f.support.push_back(
      "the pool grows its regions up to its limit before it refuses a request, so the room "
      "left in the limit sat in free chunks none of which held the request");
  f.against.push_back(
      "the paste lacks the regions' total (total_region_allocated_bytes_): with allow_growth, "
      "part of the room may be a region the driver refused, memory another process held");
  wasted = std::max(wasted, room);
  f.likelihood = std::max(f.likelihood, room >= 2 * *r.requested ? lk::likely : lk::possible);
}

// A CUDA library's own allocation (a cuFFT plan, a cuBLAS or cuSOLVER handle's workspace) failed
// in a CuPy process: the library allocates with cudaMalloc, outside CuPy's pool, and the pool
// keeps the blocks of freed arrays cached rather than returning them to the device (CuPy's user
// guide, "Memory Management": free_all_blocks releases them), so the memory the library lacks
// may be the pool's cache (cupy#1219 retries a failed cuFFT plan after free_all_blocks). No
// figure in the paste says how much the pool held, but the pool caches by design: likely, above
// the library's own workspace reading (DEV001, a step lower in a CuPy process).
void weigh_library_beside_pool(const observe::oom_report& r, finding& f) {
  f.evidence.push_back(fmt::format("{}: {} in a CuPy process", where(r), r.status));
  f.support.push_back(
      "the library allocates with cudaMalloc, outside CuPy's pool, and the pool keeps freed "
      "arrays' blocks cached: the memory the library lacks may be the pool's");
  f.against.push_back("the paste does not say how much the pool held");
  f.likelihood = std::max(f.likelihood, lk::likely);
}

// memory_stats / memory_summary / snapshot peaks: reserved far above allocated.
// A log's own figures may give only the current pair ("Allocated: X  Reserved: Y"): then the
// gap between them now is the cache the allocator keeps, read the same way.
// A log's figures without an allocated one but with active ("Peak active: X  Peak reserved: Y"):
// active (allocated plus freed blocks awaiting other streams' events) stands for it, and the gap
// above it is cache that neither live tensors nor pending blocks hold; the paste cannot tell the
// pending blocks (record_stream, NCCL001) from live tensors, and says so.
void weigh_stats(const observe::torch_stats& s, finding& f, bytes& wasted) {
  if (s.after_change) return;  // a before/after table's later column: the outcome of a change
  const bool log = s.origin == observe::stats_origin::log_figures;
  const auto& held = log && !s.allocated.peak && !s.allocated.current ? s.active : s.allocated;
  const bool by_active = &held == &s.active;
  const bool peaks = s.reserved.peak && held.peak;
  const bool currents = log && s.reserved.current && held.current;
  if (!peaks && !currents) return;
  const bytes reserved = peaks ? *s.reserved.peak : *s.reserved.current;
  const bytes allocated = peaks ? *held.peak : *held.current;
  const bytes gap = reserved > allocated ? reserved - allocated : 0;
  if (gap < lk::cache_sizeable_min || static_cast<double>(gap) < lk::cached_share_large * 2 * static_cast<double>(reserved))
    return;
  // Active well above allocated points at record_stream (NCCL001), not fragmentation.
  if (!by_active && s.active.peak && *s.active.peak > allocated + gap / 2) return;
  wasted = std::max(wasted, gap);
  if (by_active)
    f.against.push_back(fmt::format(
        "{}: no allocated figure, only active: blocks freed but awaiting another stream's events "
        "(record_stream, NCCL001) count as active, so the paste cannot tell them from live tensors",
        s.source));
  f.evidence.push_back(fmt::format(
      "{}: reserved{} {} vs {}{} {}{}", s.source, peaks ? " peak" : "", format_bytes(reserved),
      by_active ? "active" : "allocated", peaks ? " peak" : "", format_bytes(allocated),
      s.inactive_split.current
          ? fmt::format(", {} in inactive split blocks", format_bytes(*s.inactive_split.current))
          : ""));
  const char* held_by =
      by_active ? "its tensors and the blocks awaiting other streams" : "its tensors";
  f.support.push_back(
      peaks ? fmt::format("{}: the allocator reserved {} more than {} ever needed at once",
                          s.source, format_bytes(gap), held_by)
            : fmt::format("{}: the allocator holds {} more than {}", s.source, format_bytes(gap),
                          by_active ? "its live tensors and pending blocks" : "its live tensors"));
  double level = lk::likely;
  if (s.num_alloc_retries && *s.num_alloc_retries > 0) {
    level += lk::step;
    f.support.push_back(fmt::format("{}: {} cudaMalloc retries (the cache was flushed to make room)", s.source,
                                    *s.num_alloc_retries));
  }
  f.likelihood = std::max(f.likelihood, level);
}

// Two readings of the same paste (a benchmark's variants, a before/after table; not readings of
// different ranks or devices) with the same
// peak of live tensors and peaks of reserved memory apart by at least cache_sizeable_min: what
// one variant reserved beyond the other is cache, not tensors, so the allocator's cache is what
// the change moved (split segments, or blocks stranded on another stream). The difference is
// the waste the other variant shows is avoidable. Equal means within rounding
// (lk::same_reading_spread).
void weigh_variants(const std::vector<observe::torch_stats>& stats, finding& f, bytes& wasted) {
  for (std::size_t a = 0; a < stats.size(); ++a)
    for (std::size_t b = 0; b < stats.size(); ++b) {
      const auto& hi = stats[a];
      const auto& lo = stats[b];
      if (a == b || hi.origin != observe::stats_origin::log_figures || lo.origin != hi.origin ||
          hi.source != lo.source || hi.rank || lo.rank || hi.device || lo.device ||
          !hi.allocated.peak || !lo.allocated.peak || !hi.reserved.peak || !lo.reserved.peak ||
          *hi.reserved.peak <= *lo.reserved.peak + lk::cache_sizeable_min ||
          *hi.reserved.peak <= *hi.allocated.peak)
        continue;
      const auto x = static_cast<double>(std::max(*hi.allocated.peak, *lo.allocated.peak));
      const auto y = static_cast<double>(std::min(*hi.allocated.peak, *lo.allocated.peak));
      if (y <= 0 || x / y > lk::same_reading_spread) continue;
      const bytes moved = *hi.reserved.peak - *lo.reserved.peak;
      wasted = std::max(wasted, moved);
      f.evidence.push_back(fmt::format(
          "{}: \"{}\" reserved peak {} and \"{}\" {}, with the same allocated peak {}", hi.source,
          hi.label.substr(0, 60), format_bytes(*hi.reserved.peak), lo.label.substr(0, 60),
          format_bytes(*lo.reserved.peak), format_bytes(*hi.allocated.peak)));
      f.support.push_back(fmt::format(
          "the live tensors peak alike in both, yet one reserves {} more: the difference is memory "
          "the allocator held beyond its tensors (split or stranded cached blocks), which is what "
          "the change moved",
          format_bytes(moved)));
      f.likelihood = std::max(f.likelihood, lk::likely);
      return;
    }
}

// Statistics cut short before both "Active memory" and "GPU reserved memory": what the
// allocator holds beyond its live tensors, and why (blocks waiting on another stream: active -
// allocated; split segments: reserved - allocated), is not in the paste. The finding names no
// cause and says what to paste, where "no findings" would read as "nothing is wrong".
std::optional<finding> cut_before_the_deciding_rows(const observe::observation& o) {
  for (const auto& s : o.stats) {
    // Cut short, or a log's line that gave the allocated figures alone (memory_figures.hpp).
    if ((!s.cut && s.missing.empty()) || s.reserved.peak || s.active.peak || !s.allocated.peak)
      continue;
    finding f{"FRAG001",
              s.cut ? "memory statistics cut before the rows that decide"
                    : "allocated figures without the active and reserved figures that decide",
              severity::info,
              {},
              {},
              {},
              {},
              {},
              {},
              0,
              {},
              {}};
    if (s.cut)
      f.evidence.push_back(
          fmt::format("{}: allocated peak {}, cut at line {} before its active and reserved "
                      "figures",
                      s.source, format_bytes(*s.allocated.peak), s.cut_at_line.value_or(0)));
    else
      f.evidence.push_back(fmt::format(
          "{} line {}: allocated peak {}{}, no active or reserved figure", s.source,
          s.raw.contains("line") ? s.raw.at("line") : 0, format_bytes(*s.allocated.peak),
          s.allocated.current ? fmt::format(" and {} at the line's other moment",
                                            format_bytes(*s.allocated.current))
                              : ""));
    f.cause = "without active and reserved the paste cannot tell freed blocks waiting on another stream "
              "(record_stream: active - allocated) from a fragmented cache (reserved - allocated) or a job "
              "that simply holds this much";
    f.fix = "paste the whole torch.cuda.memory_summary() (its \"Active memory\" and \"GPU reserved memory\" "
            "rows) or torch.cuda.memory_stats()";
    return f;
  }
  return std::nullopt;
}

// PyTorch's allocator settings against fragmentation, as the failing message's release has them.
// Its wording tells the release: "... cached)" before 1.5; "... reserved in total by PyTorch)"
// from 1.5 to 2.0, whose hint names max_split_size_mb (added in 1.10); "... reserved by PyTorch
// but unallocated" from 2.1, whose hint names expandable_segments from 2.2 (c10/cuda/
// CUDACachingAllocator.cpp's message in each release). Without a message (memory_stats), the
// current setting. Each ends with emptying the cache between phases, which every release has.
std::string torch_fragmentation_fix(const std::vector<const observe::oom_report*>& deciding) {
  const std::string between = ", or torch.cuda.empty_cache() where tensor sizes change";
  std::string setting = "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True";
  for (const auto* o : deciding) {
    if (o->kind != observe::oom_kind::torch) continue;
    const auto says = [&](std::string_view words) {
      return o->raw.find(words) != std::string::npos;
    };
    if (says("expandable_segments") || says("but unallocated")) break;
    if (says("reserved in total") || says("max_split_size_mb")) {
      setting =
          "export PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:N (N in MiB, e.g. 128 or 512: "
          "cached blocks above it are never split, so large requests find whole blocks; "
          "torch 1.10 and later, and from 2.1 expandable_segments:True instead)";
      break;
    }
    if (says(" cached)") || says(" cached;") || says(" cache)")) {
      return "torch.cuda.empty_cache() where the sizes change (this release predates the "
             "allocator's settings: max_split_size_mb came in torch 1.10, "
             "expandable_segments:True in 2.1)";
    }
  }
  return setting + between;
}

}  // namespace

std::vector<finding> fragmentation(const doctor_input& in) {
  if (!in.observed) return {};
  bytes wasted = 0;
  finding f{"FRAG001", {}, severity::warning, {}, {}, {}, {}, {}, "fragmentation", 0, {}, {}};
  for (const auto& s : in.observed->stats) weigh_stats(s, f, wasted);
  weigh_variants(in.observed->stats, f, wasted);
  auto runtime =
      observe::oom_allocator::torch_caching;  // whose figures decided, for the fix's words
  std::vector<const observe::oom_report*> deciding;  // the messages that gave evidence
  for (const auto& o : in.observed->ooms) {
    const auto facts = facts_of(o);
    const std::size_t before = f.evidence.size();
    bool beside_pool = false;  // a library's failure read as CuPy's pool's: its fix is CuPy's
    if (o.kind == observe::oom_kind::torch || facts.cache_figures()) {
      weigh_message(facts, f, wasted);
    } else if (const auto room = facts.bfc_room_in_limit();
               room && o.origin == observe::oom_origin::allocator &&
               (o.allocator == observe::oom_allocator::tf_bfc ||
                o.allocator == observe::oom_allocator::xla_bfc)) {
      weigh_bfc_limit(facts, *room, f, wasted);
    } else if (facts.pool_limit_counts_cache() || facts.retry_kept_collected_blocks()) {
      weigh_pool(facts, f, wasted);
    } else if (o.origin == observe::oom_origin::outside_allocator && !o.library.empty() &&
               o.runtime == "cupy") {
      weigh_library_beside_pool(o, f);
      beside_pool = true;
    }
    if (f.evidence.size() > before) {
      deciding.push_back(&o);
      if (beside_pool)
        runtime = observe::oom_allocator::cupy_pool;
      else if (runtime == observe::oom_allocator::torch_caching)
        runtime = facts.allocator;
    }
  }
  if (f.evidence.empty()) {
    if (auto undecided = cut_before_the_deciding_rows(*in.observed)) return {std::move(*undecided)};
    return {};
  }
  // A memory_summary() cut off before its reserved row can neither confirm nor rule out a cache.
  for (const auto& s : in.observed->stats)
    if (!s.reserved.peak && s.allocated.peak && s.cut_at_line)
      f.against.push_back(fmt::format("{}: the memory summary is cut off at line {} before its \"GPU reserved "
                                      "memory\" row, so its cache (reserved - allocated) is unknown",
                                      s.source, *s.cut_at_line));
  f.cause = "freed blocks are split pieces of larger segments, or belong to another stream; they cannot "
            "serve the sizes being requested, so the allocator asks the driver for new segments";
  f.fix = torch_fragmentation_fix(deciding);
  if (auto own = runtime_fix(runtime, fix_kind::release_cache); !own.empty()) {
    // Another runtime's pool: its own fix; PyTorch's setting would change nothing there.
    f.cause =
        "the pool holds free blocks that cannot serve the size being requested (split, or cached "
        "and "
        "counted against its limit), so the allocation fails although the pool's memory would "
        "cover it";
    f.fix = std::move(own);
    f.saving = static_cast<std::int64_t>(wasted);
    f.saving_basis = "at most what the pool held beyond its live buffers";
    return {f};
  }
  const std::string setting = "env.PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True";
  if (auto after = replan(in, {setting}); after && after->saving > 0) {
    f.saving = after->saving;
    f.saving_basis = replan_basis({setting});
  } else {
    f.saving = static_cast<std::int64_t>(wasted);
    f.saving_basis = "at most the observed reserved - allocated";
  }
  return {f};
}

}  // namespace vramscope::doctor::rules
