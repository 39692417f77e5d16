#include "predict/gpus.hpp"

#include <fmt/format.h>

#include <vramscope/predict/overheads.hpp>

namespace vramscope::predict {

namespace {

bool checkpoint_lands_on_gpu0(const job::job_spec& job) {
  // torch.load without map_location restores storages to the device they were saved from.
  return job.init.load == job::weight_load::all_ranks && job.init.map_location != "cpu";
}

}  // namespace

bool resume_lands_on_gpu0(const job::job_spec& job) {
  const auto& c = job.checkpoint;
  // A sharded save under a strategy that shards parameters (schedule's shards_parameters)
  // wrote one file per rank, from the rank's own device.
  const auto kind = job.parallel.kind;
  const bool per_rank_files =
      c.save == job::state_dict_kind::sharded &&
      ((kind == job::strategy::fsdp1 && job.parallel.fsdp_sharding != job::sharding::no_shard) ||
       kind == job::strategy::fsdp2 || kind == job::strategy::zero3);
  return c.resume && c.resume_map_location == "none" && !per_rank_files;
}

std::vector<process_share> stray_shares(const job::job_spec& job, int rank, bytes checkpoint_bytes,
                                        bytes resume_bytes) {
  std::vector<process_share> out;
  const int local = rank % job.hardware.gpus_per_node;
  if (local == 0) return out;
  if (!job.init.set_device_first) {
    out.push_back({rank, fmt::format("rank {}: CUDA context created before set_device", rank),
                   cuda_context_bytes(job)});
    if (job.init.early_tensors > 0)
      out.push_back({rank, fmt::format("rank {}: tensors created before set_device", rank),
                     round_up(job.init.early_tensors, 2_MiB)});
  }
  if (checkpoint_lands_on_gpu0(job)) {
    if (job.init.set_device_first)
      out.push_back({rank, fmt::format("rank {}: CUDA context for the checkpoint's cuda:0 tensors", rank),
                     cuda_context_bytes(job)});
    // The loaded copy is freed into that process's cache on GPU 0 and stays reserved.
    out.push_back({rank, fmt::format("rank {}: checkpoint loaded onto cuda:0 (no map_location)", rank),
                   round_up(checkpoint_bytes, 2_MiB)});
  }
  if (resume_lands_on_gpu0(job) && resume_bytes > 0) {
    if (job.init.set_device_first && !checkpoint_lands_on_gpu0(job))
      out.push_back({rank, fmt::format("rank {}: CUDA context for the resumed checkpoint's cuda:0 "
                                       "tensors", rank),
                     cuda_context_bytes(job)});
    // Loaded there whole; what load_state_dict does not keep goes back to that process's cache
    // on GPU 0, which keeps it reserved.
    out.push_back({rank, fmt::format("rank {}: resumed checkpoint on cuda:0 (no map_location)",
                                     rank),
                   round_up(resume_bytes, 2_MiB)});
  }
  return out;
}

bytes foreign_bytes_on(const job::job_spec& job, int rank, bytes checkpoint_bytes,
                       bytes resume_bytes) {
  if (rank % job.hardware.gpus_per_node != 0) return 0;
  bytes total = 0;
  for (int local = 1; local < job.hardware.gpus_per_node && rank + local < job.world_size(); ++local)
    for (const auto& s : stray_shares(job, rank + local, checkpoint_bytes, resume_bytes))
      total += s.device;
  return total;
}

}  // namespace vramscope::predict
