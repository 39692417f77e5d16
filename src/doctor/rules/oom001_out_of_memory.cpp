// OOM001: an out-of-memory message from a log: what was asked, what was free, who held what.
#include <fmt/format.h>

#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

finding explain_torch(const observe::oom_report& o) {
  finding f{"OOM001", "CUDA out of memory", severity::error, {}, {}, {}, {}, {}};
  f.evidence.push_back(fmt::format("line {}: tried to allocate {} on GPU {}, {} free of {}", o.line,
                                   o.requested ? format_bytes(*o.requested) : "?", o.gpu.value_or(-1),
                                   o.free ? format_bytes(*o.free) : "?",
                                   o.capacity ? format_bytes(*o.capacity) : "?"));
  bytes others = 0;
  for (const auto& p : o.processes)
    if (p.pid) others += p.used;
  if (o.processes.size() > 1)
    f.evidence.push_back(fmt::format("{} processes hold memory on that GPU", o.processes.size()));
  if (o.allocated_by_pytorch)
    f.evidence.push_back(fmt::format("allocated by PyTorch {}, reserved but unallocated {}",
                                     format_bytes(*o.allocated_by_pytorch),
                                     o.reserved_unallocated ? format_bytes(*o.reserved_unallocated) : "?"));
  const bool fragmented = o.reserved_unallocated && o.requested && *o.reserved_unallocated >= *o.requested;
  if (fragmented) {
    f.cause = "enough memory is reserved but free, in pieces too small or on another stream: fragmentation";
    f.fix = "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True";
    f.saving = static_cast<std::int64_t>(*o.reserved_unallocated);
    f.saving_basis = "reserved-but-unallocated memory in the message";
  } else if (o.processes.size() > 1) {
    f.cause = "several processes share this GPU; the others hold memory this process needs";
    f.fix = "one process per GPU: torch.cuda.set_device(local_rank) first, torch.load(..., map_location=\"cpu\")";
  } else {
    f.cause = "the job's live tensors need more than the GPU has at this point";
    f.fix = "run `vramscope plan` on the job for the cheapest change that fits (activation checkpointing, "
            "sharding, smaller micro-batch)";
  }
  return f;
}

finding explain_xla(const observe::oom_report& o) {
  finding f{"OOM001", "XLA out of memory (RESOURCE_EXHAUSTED)", severity::error, {}, {}, {}, {}, {}};
  f.evidence.push_back(fmt::format("line {}: tried to allocate {}; pool limit {}, in use {}", o.line,
                                   o.requested ? format_bytes(*o.requested) : "?",
                                   o.capacity ? format_bytes(*o.capacity) : "?",
                                   o.in_use ? format_bytes(*o.in_use) : "?"));
  f.cause = "the XLA BFC pool (XLA_PYTHON_CLIENT_MEM_FRACTION x total) cannot hold the program's buffers; "
            "several JAX processes seeing the same GPUs each take their own pool";
  f.fix = "one JAX process per set of GPUs (CUDA_VISIBLE_DEVICES), a larger XLA_PYTHON_CLIENT_MEM_FRACTION, "
          "or less memory per step (remat, smaller batch)";
  return f;
}

}  // namespace

std::vector<finding> out_of_memory_message(const doctor_input& in) {
  if (!in.observed) return {};
  std::vector<finding> out;
  for (const auto& o : in.observed->ooms)
    out.push_back(o.kind == observe::oom_kind::torch ? explain_torch(o) : explain_xla(o));
  return out;
}

}  // namespace vramscope::doctor::rules
