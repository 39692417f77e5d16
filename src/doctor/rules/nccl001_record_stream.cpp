// NCCL001: active far above allocated: buffers of collectives freed through record_stream wait
// for the NCCL stream, so the allocator cannot reuse them and reserves more.
#include <vramscope/core/version.hpp>
#include <vramscope/schedule/schedule.hpp>

#include <fmt/format.h>

#include "doctor/likelihood.hpp"
#include "doctor/oom_facts.hpp"
#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

struct gap {
  std::optional<int> rank;
  bytes allocated, active;
  std::optional<bytes> reserved;  // empty when the paste lacks it (a memory_summary cut short)
};

// Active 30 % and 1 GiB above allocated: more than the few in-flight buffers of a step.
bool inflated(bytes allocated, bytes active) {
  return active >= allocated + 1_GiB && active * 10 >= allocated * 13;
}

// The job's collectives without record_stream (torch 2.1-2.7).
const std::vector<std::string> avoid_record_streams{"env.TORCH_NCCL_AVOID_RECORD_STREAMS=1"};

std::optional<gap> largest_gap(const observe::observation& o) {
  std::optional<gap> best;
  for (const auto& s : o.stats) {
    if (!s.allocated.peak || !s.active.peak) continue;
    const bytes a = *s.allocated.peak, act = *s.active.peak;
    if (!inflated(a, act)) continue;
    if (!best || act - a > best->active - best->allocated)
      best = gap{s.rank, a, act, s.reserved.peak};
  }
  return best;
}

// An out-of-memory message whose cache is more than its live blocks could pin (oom_facts): the
// cached blocks wait on another stream's events, the record_stream mark.
std::optional<finding> from_message(const observe::observation& o) {
  for (const auto& r : o.ooms) {
    if (r.kind != observe::oom_kind::torch) continue;
    const auto facts = facts_of(r);
    if (!facts.cache_beyond_what_live_blocks_pin()) continue;
    finding f{"NCCL001", {}, severity::warning, {}, {}, {}, {}, {}, "record_stream", likelihood::likely, {}, {}};
    f.evidence.push_back(fmt::format("{}: {} cached beside {} allocated, {} requested", where(r),
                                     format_bytes(*facts.cached), format_bytes(*facts.allocated),
                                     size_or_unknown(facts.requested)));
    f.support.push_back(fmt::format("live tensors under {} are all small-pool blocks, pinning at most {} each: the "
                                    "cache the retry could not free waits on another stream's events",
                                    format_bytes(likelihood::small_request_max),
                                    format_bytes(likelihood::small_segment)));
    f.against.push_back("the message does not name the stream: NCCL's, or a user's side stream with record_stream");
    f.cause = "blocks used on another stream (NCCL's, through record_stream, or a side stream) are freed only "
              "once that stream's recorded events complete; until then the allocator cannot reuse them and "
              "asks the driver for more";
    f.fix = "run collectives on the current stream or export TORCH_NCCL_AVOID_RECORD_STREAMS=1 (torch 2.1-2.7; "
            "torch >= 2.8 needs neither), and synchronise or free buffers used on side streams";
    f.saving = static_cast<std::int64_t>(*facts.cached);
    f.saving_basis = "the cache held by blocks waiting on another stream";
    return f;
  }
  return std::nullopt;
}

}  // namespace

std::vector<finding> record_stream_inflation(const doctor_input& in) {
  if (in.observed)
    if (auto f = from_message(*in.observed)) return {std::move(*f)};
  const auto observed = in.observed ? largest_gap(*in.observed) : std::nullopt;
  // From the plan alone: the same gap as in the stats, and only when planning the job without
  // record_stream shows that it is the cause (active can exceed allocated for other reasons,
  // FSDP1's flat-parameter buffers among them).
  std::optional<replanned> without_record_stream;
  if (!observed && in.prediction && in.job && schedule::collectives_record_stream(*in.job)) {
    const auto& peak = predict::busiest_rank(*in.prediction).peak;
    if (inflated(peak.allocated, peak.active))
      if (auto after = replan(in, avoid_record_streams);
          after && after->saving >= static_cast<std::int64_t>(1_MiB))
        without_record_stream = std::move(*after);
  }
  if (!observed && !without_record_stream) return {};
  finding f{"NCCL001", {}, severity::warning, {}, {}, {}, {}, {}, "record_stream",
            observed ? likelihood::strong : likelihood::possible, {}, {}};
  f.support.push_back(observed ? "memory_stats: active far above allocated, the mark of buffers waiting on "
                                 "another stream"
                               : "the plan's active peak is far above its allocated one, and planning "
                                 "without record_stream removes the gap");
  if (observed)
    f.evidence.push_back(fmt::format("memory_stats{}: active peak {} vs allocated peak {} (reserved {})",
                                     observed->rank ? fmt::format(" rank {}", *observed->rank) : "",
                                     format_bytes(observed->active), format_bytes(observed->allocated),
                                     observed->reserved ? format_bytes(*observed->reserved)
                                                        : "not in the paste"));
  if (in.prediction) {
    const auto& r = predict::busiest_rank(*in.prediction);
    f.evidence.push_back(fmt::format("plan: active {} vs allocated {}", format_bytes(r.peak.active),
                                     format_bytes(r.peak.allocated)));
  }
  f.cause = "ProcessGroupNCCL calls record_stream on the buffers of asynchronous collectives (tensor "
            "parallelism issues many); a freed buffer is reusable only once the NCCL stream has passed "
            "it and a later allocation notices, so freed buffers pile up as `active` and the allocator "
            "reserves new segments. FSDP1's limit_all_gathers throttled the CPU and hid this; FSDP2 does not";
  const std::string version = in.job ? in.job->framework.version : "";
  if (in.job && version_number(version) >= version_number("2.8")) {
    f.fix = "torch >= 2.8 no longer uses record_stream for these collectives; look for another "
            "cross-stream consumer (custom streams, pinned-memory copies)";
    return {f};
  }
  f.fix = "export TORCH_NCCL_AVOID_RECORD_STREAMS=1 (torch 2.1-2.7), or upgrade to torch >= 2.8";
  if (!without_record_stream) without_record_stream = replan(in, avoid_record_streams);
  if (const auto& after = without_record_stream) {
    f.saving = after->saving;
    f.saving_basis = replan_basis(avoid_record_streams);
  } else if (observed && observed->reserved && *observed->reserved > observed->allocated) {
    f.saving = static_cast<std::int64_t>(observed->active - observed->allocated);
    f.saving_basis = "observed active - allocated peak";
  }
  return {f};
}

}  // namespace vramscope::doctor::rules
