// FRAG001: reserved far above allocated with many non-releasable split blocks: the caching
// allocator holds memory it cannot hand out for the sizes being asked.
#include <fmt/format.h>

#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

std::vector<finding> fragmentation(const doctor_input& in) {
  if (!in.observed) return {};
  bytes wasted = 0;
  std::vector<std::string> evidence;
  for (const auto& s : in.observed->stats) {
    if (!s.reserved.peak || !s.allocated.peak) continue;
    const bytes gap = *s.reserved.peak > *s.allocated.peak ? *s.reserved.peak - *s.allocated.peak : 0;
    if (gap < 1_GiB || gap * 5 < *s.reserved.peak) continue;
    // Active well above allocated points at record_stream (NCCL001), not fragmentation.
    if (s.active.peak && *s.active.peak > *s.allocated.peak + gap / 2) continue;
    wasted = std::max(wasted, gap);
    evidence.push_back(fmt::format("{}: reserved peak {} vs allocated peak {}{}", s.source,
                                   format_bytes(*s.reserved.peak), format_bytes(*s.allocated.peak),
                                   s.inactive_split.current
                                       ? fmt::format(", {} in inactive split blocks", format_bytes(*s.inactive_split.current))
                                       : ""));
  }
  for (const auto& o : in.observed->ooms)
    if (o.reserved_unallocated && *o.reserved_unallocated >= 1_GiB) {
      wasted = std::max(wasted, *o.reserved_unallocated);
      evidence.push_back(fmt::format("OOM message (line {}): {} reserved by PyTorch but unallocated", o.line,
                                     format_bytes(*o.reserved_unallocated)));
    }
  if (evidence.empty()) return {};
  finding f{"FRAG001", {}, severity::warning, evidence, {}, {}, {}, {}};
  f.cause = "freed blocks are split pieces of larger segments, or belong to another stream; they cannot "
            "serve the sizes being requested, so the allocator asks the driver for new segments";
  f.fix = "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True";
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
