#include <vramscope/predict/overheads.hpp>

#include <vramscope/core/version.hpp>

#include <vramscope/schedule/schedule.hpp>

#include <algorithm>
#include <cstdlib>

namespace vramscope::predict {

bytes cuda_context_bytes(const job::job_spec& job) {
  // Lazy module loading (default since torch 1.13 with CUDA >= 11.7, PR #86509) keeps the
  // context near 300-500 MiB; a training process loads cuBLAS, NCCL and attention kernels, so
  // the upper end is taken. Eager loading measured 636 MiB for a bare context (PR #86509) and
  // grows past 1 GiB with libraries. JAX's context is created on every visible GPU.
  //
  // CUDA 13: measured on an H100 80GB HBM3 (driver 580.159.04, torch 2.11.0+cu130;
  // bench/data/full-h100.jsonl): 612 MiB of the process's memory before its first kernel, and
  // 742 MiB outside the caching allocator at the peak of every DDP and one-GPU training case, the
  // kernels it ran loaded by then (FSDP cases: 812 MiB, not yet explained).
  const bool eager = job.env_value("CUDA_MODULE_LOADING") == "EAGER" ||
                     version_number(job.framework.cuda) < version_number("11.7");
  if (eager) return 1024_MiB;
  return version_number(job.framework.cuda) >= version_number("13.0") ? 742_MiB : 500_MiB;
}

int nccl_communicators(const job::job_spec& job) {
  if (job.world_size() <= 1 || job.parallel.kind == job::strategy::single) return 0;
  int count = 1;  // the default (world) process group
  if (job.parallel.tp > 1) ++count;
  if (job.parallel.tp > 1 || job.parallel.dp_replicate > 1) ++count;  // the data-parallel mesh dim
  if (job.parallel.dp_replicate > 1) ++count;
  return count;
}

bytes nccl_bytes(const job::job_spec& job, int compute_capability) {
  const int communicators = nccl_communicators(job);
  if (communicators == 0) return 0;
  // Per connection: LL 512 KiB + LL128 4,915,200 B + SIMPLE 4 MiB (NCCL src/init.cc defaults);
  // a ring has 2 connections per channel. Channel counts: about 16 on Ampere NVLink systems,
  // 32 on Hopper and later (NCCL logs); PCIe-only GPUs use few channels (assume 4).
  constexpr bytes per_connection = 512_KiB + 4'915'200 + 4_MiB;
  int channels = 4;
  if (compute_capability >= 90) channels = 32;
  else if (compute_capability == 80) channels = 16;
  bytes total = static_cast<bytes>(communicators) * 2 * static_cast<bytes>(channels) * per_connection;
  // NVLink SHARP on Hopper NVSwitch systems with more than 2 GPUs: 288 MiB per rank
  // (nvlsPerRankSize 301,989,888 in NCCL's log), unless NCCL_NVLS_ENABLE=0.
  if (compute_capability >= 90 && job.hardware.gpus_per_node > 2 &&
      job.env_value("NCCL_NVLS_ENABLE") != "0")
    total += 301'989'888;
  return total;
}

bytes symmetric_memory_bytes(const job::job_spec& job, const model::model_spec& model) {
  if (!job.parallel.async_tp || job.parallel.tp <= 1) return 0;
  // torch/distributed/_symmetric_memory/__init__.py: one workspace per group, grown to the
  // largest request: an all-gather-matmul asks for its input shard, a matmul-reduce-scatter for
  // two output chunks (double buffering), each tokens / tp x hidden in the compute dtype.
  // Allocated through the CUDA driver (cuMem), outside the caching allocator.
  const auto tokens = static_cast<std::uint64_t>(job.training.micro_batch) *
                      static_cast<std::uint64_t>(job.training.seq_len) /
                      static_cast<std::uint64_t>(std::max(1, job.parallel.cp));
  const auto local = (tokens + static_cast<std::uint64_t>(job.parallel.tp) - 1) /
                     static_cast<std::uint64_t>(job.parallel.tp);
  return 2 * local * model.text.hidden * bytes_of(job.precision.params, 1);
}

bytes cublas_workspace_bytes(const job::job_spec& job, int compute_capability) {
  // aten/src/ATen/cuda/CublasHandlePool.cpp: 32 MiB on compute capability 9.x and later,
  // ":4096:2:16:8" = 8,519,680 B before; torch < 2.1 used 4 MiB everywhere.
  if (version_number(job.framework.version) < version_number("2.1")) return 4_MiB;
  return compute_capability >= 90 ? 32_MiB : 8'519'680;
}

}  // namespace vramscope::predict
