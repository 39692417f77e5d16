// FSDP001: FSDP1 with meta-device ranks but without sync_module_states / device_id: rank 0 and
// the other ranks initialise along different paths and peak differently.
#include <fmt/format.h>

#include <algorithm>

#include "doctor/likelihood.hpp"
#include "doctor/oom_facts.hpp"
#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

bool risky_init_job(const job::job_spec& j) {
  return j.parallel.kind == job::strategy::fsdp1 && j.init.meta_device &&
         j.init.load == job::weight_load::rank0 &&
         (!j.parallel.sync_module_states || !j.parallel.device_id);
}

// Rank 0's reserved peak more than 10 % (and 1 GiB) away from the median of the others.
std::optional<std::string> uneven_ranks(const observe::observation& o) {
  std::optional<bytes> rank0;
  std::vector<bytes> others;
  for (const auto& s : o.stats) {
    if (!s.rank || !s.reserved.peak) continue;
    if (*s.rank == 0) rank0 = *s.reserved.peak;
    else others.push_back(*s.reserved.peak);
  }
  if (!rank0 || others.empty()) return std::nullopt;
  std::nth_element(others.begin(), others.begin() + static_cast<std::ptrdiff_t>(others.size() / 2), others.end());
  const bytes median = others[others.size() / 2];
  const bytes gap = *rank0 > median ? *rank0 - median : median - *rank0;
  if (gap < 1_GiB || gap * 10 < median) return std::nullopt;
  return fmt::format("memory_stats: rank 0 reserved peak {}, other ranks' median {}", format_bytes(*rank0),
                     format_bytes(median));
}

// An out-of-memory error raised while a whole model's tensors move to the GPU (oom_facts'
// placing_model: Module.to / .cuda()). On a GPU other than 0 the job runs on several GPUs, and a
// job that shards its model (FSDP, ZeRO-3) must never hold all of it on one: each rank placed the
// whole model before sharding it (likely). On GPU 0 alone the model may just not fit one GPU
// (possible, below MEM001's reading).
std::optional<finding> placing_whole_model(const observe::observation& o) {
  for (const auto& r : o.ooms) {
    const oom_facts facts = facts_of(r);
    if (facts.placing_model.empty()) continue;
    const bool other_gpu = r.gpu && *r.gpu > 0;
    finding f{"FSDP001",
              "the whole model placed on a GPU before it is sharded",
              severity::warning,
              {},
              {},
              {},
              {},
              {},
              "meta_init",
              other_gpu ? likelihood::likely : likelihood::possible,
              {},
              {}};
    f.evidence.push_back(
        fmt::format("the out-of-memory message at line {}{} is raised in {}", r.line,
                    r.gpu ? fmt::format(" (GPU {})", *r.gpu) : std::string(), facts.placing_model));
    f.support.push_back(
        "the innermost frame is torch.nn.Module moving its tensors to the device (Module.to / "
        ".cuda()): the model's weights were being placed, before any step ran");
    if (other_gpu)
      f.support.push_back(
          fmt::format("the failing device is GPU {}: the job runs on several GPUs, where a sharded "
                      "model (FSDP, ZeRO-3) should never be whole on one",
                      *r.gpu));
    else
      f.against.push_back(
          "on GPU 0 alone the model may simply be larger than one GPU, sharded or not");
    f.cause =
        "the whole model is placed on each GPU (model.to(device) / .cuda(), or a checkpoint loaded "
        "onto it) "
        "before it is sharded: every rank first holds all of the weights, so the peak at start is "
        "the "
        "full model, not its shard";
    f.fix =
        "build or load the model without a whole copy per GPU: FSDP from the meta device (rank 0 "
        "loads on the "
        "CPU, sync_module_states=True, device_id), DeepSpeed's zero.Init (HfDeepSpeedConfig before "
        "from_pretrained) for ZeRO-3, or load the checkpoint with map_location='cpu' and let the "
        "wrapper "
        "move each shard";
    return f;
  }
  return std::nullopt;
}

}  // namespace

std::vector<finding> fsdp1_meta_init(const doctor_input& in) {
  if (in.observed && !(in.job && risky_init_job(*in.job)))
    if (auto placed = placing_whole_model(*in.observed)) return {std::move(*placed)};
  const bool job_risk = in.job && risky_init_job(*in.job);
  const auto observed = in.observed ? uneven_ranks(*in.observed) : std::nullopt;
  if (!job_risk && !(observed && (!in.job || in.job->parallel.kind == job::strategy::fsdp1))) return {};
  finding f{"FSDP001", {}, severity::warning, {}, {}, {}, {}, {}, "meta_init", likelihood::possible, {}, {}};
  if (observed) {
    f.evidence.push_back(*observed);
    f.support.push_back("rank 0 peaks apart from the other ranks");
    f.likelihood = likelihood::likely;
  }
  if (observed && job_risk) f.likelihood = likelihood::strong;
  if (job_risk) {
    f.support.push_back("the job initialises FSDP1 on the meta device without sync_module_states / device_id");
    f.evidence.push_back(fmt::format("job: init.meta_device=true, init.load=rank0, "
                                     "parallel.sync_module_states={}, parallel.device_id={}",
                                     in.job->parallel.sync_module_states, in.job->parallel.device_id));
    if (in.prediction && in.prediction->ranks.size() > 1)
      f.evidence.push_back(fmt::format("plan: init peak rank 0 {}, rank 1 {}",
                                       format_bytes(in.prediction->ranks[0].init_allocated),
                                       format_bytes(in.prediction->ranks[1].init_allocated)));
  }
  f.cause = "rank 0 holds the loaded model on the CPU and, without device_id, shards it there; the "
            "meta-device ranks materialise each unit on the GPU (to_empty) before flattening and "
            "sharding it. Without sync_module_states nothing makes the ranks consistent, so their "
            "weights differ and their init peaks differ";
  f.fix = "FullyShardedDataParallel(..., sync_module_states=True, device_id=torch.cuda.current_device())";
  const std::vector<std::string> fix{"parallel.sync_module_states=true", "parallel.device_id=true"};
  if (auto after = replan(in, fix)) {
    f.evidence.push_back(fmt::format("with the fix every rank's init peak is {}",
                                     format_bytes(after->after.ranks.front().init_allocated)));
    f.saving = after->saving;
    f.saving_basis = replan_basis(fix);
  }
  return {f};
}

}  // namespace vramscope::doctor::rules
