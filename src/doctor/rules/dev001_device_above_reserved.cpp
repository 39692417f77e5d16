// DEV001: nvidia-smi shows more than PyTorch reserved on a GPU; explain the gap item by item.
#include <fmt/format.h>

#include "doctor/likelihood.hpp"
#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"
#include <vramscope/predict/overheads.hpp>

namespace vramscope::doctor::rules {

namespace {

int gpu_of(const observe::torch_stats& s, const doctor_input& in) {
  if (s.device) return *s.device;
  const int per_node = in.job ? in.job->hardware.gpus_per_node : 8;
  return s.rank ? *s.rank % per_node : 0;
}

}  // namespace

std::vector<finding> device_above_reserved(const doctor_input& in) {
  if (!in.observed) return {};
  std::vector<finding> out;
  for (const auto& s : in.observed->stats) {
    if (!s.reserved.current) continue;
    const int gpu = gpu_of(s, in);
    const auto used = observed_used(*in.observed, gpu);
    if (!used || *used < *s.reserved.current + 1_GiB) continue;
    const bytes gap = *used - *s.reserved.current;
    finding f{"DEV001", {}, severity::info, {}, {}, {}, {}, {}, "device_overhead", likelihood::possible, {}, {}};
    f.support.push_back(fmt::format("GPU {}: nvidia-smi shows {} beyond what PyTorch reserved", gpu,
                                    format_bytes(gap)));
    f.evidence.push_back(fmt::format("GPU {}: nvidia-smi {} used, memory_stats ({}) reserved {}: {} outside "
                                     "PyTorch", gpu, format_bytes(*used), s.source,
                                     format_bytes(*s.reserved.current), format_bytes(gap)));
    std::size_t processes = 0;
    for (const auto& p : in.observed->processes)
      processes += p.gpu_index && *p.gpu_index == gpu && p.host.empty();
    const job::job_spec defaults;
    const auto& j = in.job ? *in.job : defaults;
    const bytes context = predict::cuda_context_bytes(j);
    const bytes nccl = in.job ? predict::nccl_bytes(j, j.hardware.compute_capability) : 0;
    f.evidence.push_back(fmt::format("CUDA context: about {} per process, {} process{} on this GPU",
                                     format_bytes(context), processes, processes == 1 ? "" : "es"));
    if (nccl > 0) f.evidence.push_back(fmt::format("NCCL communicator buffers: about {}", format_bytes(nccl)));
    const bytes explained = context * std::max<std::size_t>(1, processes) + nccl;
    f.evidence.push_back(fmt::format("unexplained: {}", format_bytes(gap > explained ? gap - explained : 0)));
    f.cause = "the CUDA context, NCCL's buffers, cuDNN/cuBLAS library state and other processes' memory are "
              "allocated outside PyTorch's caching allocator: nvidia-smi counts them, memory_reserved() does not";
    f.fix = "nothing to fix if the figures match; to shrink NCCL set NCCL_NVLS_ENABLE=0 (Hopper) or create "
            "fewer process groups; keep one process per GPU";
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace vramscope::doctor::rules
