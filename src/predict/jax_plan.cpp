#include "predict/jax_plan.hpp"

#include <vramscope/core/version.hpp>
#include <vramscope/alloc/factory.hpp>
#include <vramscope/schedule/schedule.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include <vramscope/predict/overheads.hpp>
#include "predict/replay.hpp"

namespace vramscope::predict {

namespace {

diagnostic env_error(const std::string& key, const std::string& message) {
  return error_at("env." + key, message);
}

}  // namespace

result<std::vector<int>> visible_devices(const job::job_spec& job) {
  const std::string value = job.env_value("CUDA_VISIBLE_DEVICES");
  std::vector<int> out;
  if (value.empty() && job.env.count("CUDA_VISIBLE_DEVICES") == 0) {
    for (int i = 0; i < job.hardware.gpus_per_node; ++i) out.push_back(i);
    return out;
  }
  std::istringstream in(value);
  std::string piece;
  while (std::getline(in, piece, ',')) {
    if (piece.empty() || piece.find_first_not_of("0123456789") != std::string::npos)
      return env_error("CUDA_VISIBLE_DEVICES",
                       fmt::format("expected a comma-separated list of GPU indices, got \"{}\"", value));
    const int index = std::atoi(piece.c_str());
    if (index >= job.hardware.gpus_per_node)
      return env_error("CUDA_VISIBLE_DEVICES",
                       fmt::format("GPU {} does not exist on a node of {} GPUs", index,
                                   job.hardware.gpus_per_node));
    out.push_back(index);
  }
  return out;
}

result<double> jax_mem_fraction(const job::job_spec& job) {
  const std::string current = job.env_value("XLA_CLIENT_MEM_FRACTION");
  const std::string legacy = job.env_value("XLA_PYTHON_CLIENT_MEM_FRACTION");
  if (!current.empty() && !legacy.empty())
    return env_error("XLA_CLIENT_MEM_FRACTION",
                     "XLA_CLIENT_MEM_FRACTION and XLA_PYTHON_CLIENT_MEM_FRACTION are both set; jax refuses that");
  const std::string& text = current.empty() ? legacy : current;
  const std::string key = current.empty() ? "XLA_PYTHON_CLIENT_MEM_FRACTION" : "XLA_CLIENT_MEM_FRACTION";
  if (!text.empty()) {
    char* end = nullptr;
    const double f = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || !(f > 0) || f > 1)
      return env_error(key, fmt::format("expected a fraction in (0, 1], got \"{}\"", text));
    return f;
  }
  // XLA's default changed from 0.9 to 0.75 with jax/jaxlib 0.4.14 (jax docs PR #16724).
  const std::string& v = job.framework.jaxlib.empty() ? job.framework.version : job.framework.jaxlib;
  return version_number(v) < version_number("0.4.14") ? 0.9 : 0.75;
}

result<prediction> plan_jax(const model::model_spec& model, const job::job_spec& job,
                            const predict_options& options) {
  auto visible = visible_devices(job);
  if (!visible) return visible.error();
  auto fraction = jax_mem_fraction(job);
  if (!fraction) return fraction.error();
  const std::string kind = job.env_value("XLA_PYTHON_CLIENT_ALLOCATOR");
  const std::string pre = job.env_value("XLA_PYTHON_CLIENT_PREALLOCATE");
  const bool platform = kind == "platform";
  const bool preallocate = !platform && pre != "false" && pre != "False" && pre != "0";
  const bytes pool = static_cast<bytes>(std::floor(*fraction * static_cast<double>(job::usable_capacity(job.hardware))));
  const auto devices = static_cast<int>(visible->size());

  // The working set of one device: sharded over the FSDP axis, data over the rest.
  job::job_spec sim = job;
  sim.parallel.kind = job::strategy::fsdp2;
  sim.parallel.dp_shard = std::max(1, std::min(job.parallel.fsdp_devices, devices));
  sim.parallel.dp_replicate = std::max(1, devices / sim.parallel.dp_shard);
  sim.parallel.tp = 1;
  sim.hardware.nodes = 1;
  sim.hardware.gpus_per_node = std::max(1, devices);
  sim.init.meta_device = true;
  sim.init.load = job::weight_load::none;
  auto program = schedule::build_program(model, sim, 0);
  if (!program) return program.error();
  auto allocator = platform ? alloc::make_exact_allocator(pool)
                            : alloc::make_bfc_allocator(alloc::bfc_options{pool, preallocate});
  const auto rr = replay(*program, *allocator, options.timeline ? options.timeline_points : 0);

  prediction out;
  out.job = job;
  out.model_name = model.name;
  out.parameters = model.parameters();
  out.allocator = allocator->name();
  out.jax_fraction = *fraction;
  const double need = static_cast<double>(rr.peak.allocated) * 1.1 / static_cast<double>(job::usable_capacity(job.hardware));
  out.jax_recommended_fraction = std::min(1.0, std::ceil(need * 100.0) / 100.0);
  const bytes context = cuda_context_bytes(job);
  for (int g = 0; g < job.hardware.gpus_per_node; ++g) {
    gpu_prediction gpu{g, job::usable_capacity(job.hardware), 0, {}};
    if (std::find(visible->begin(), visible->end(), g) != visible->end()) {
      const bytes held = platform ? rr.peak.reserved : preallocate ? pool : rr.peak.reserved;
      gpu.processes.push_back({0, "JAX process: CUDA context", context});
      gpu.processes.push_back({0, preallocate ? "JAX process: preallocated BFC pool" : "JAX process: BFC pool",
                               held});
      gpu.device = context + held;
    }
    out.gpus.push_back(std::move(gpu));
  }
  for (int i = 0; i < devices; ++i) {
    rank_prediction r;
    r.rank = i;
    r.gpu = (*visible)[static_cast<std::size_t>(i)];
    fill_rank(r, rr, *program);
    // optax creates its state with the parameters, and XLA runs the step as one program: no
    // phase outside the training step is planned (docs/schedule.md).
    r.phases.clear();
    if (preallocate) {  // the pool is taken whole at the first operation
      r.peak.reserved = pool;
      r.reserved_peak_phase = "init";
    }
    r.peak.device = out.gpus[static_cast<std::size_t>(r.gpu)].device;
    r.context = context;
    r.parts.fragmentation = r.peak.reserved - std::min(r.peak.reserved, rr.peak.active);
    r.parts.cuda_context = context;
    if (i != 0) {
      r.timeline.clear();
      r.phase_names.clear();
    }
    if (r.oom || r.peak.device > job::usable_capacity(job.hardware)) out.fits = false;
    out.ranks.push_back(std::move(r));
  }
  out.notes.push_back(fmt::format(
      "one JAX process sees {} GPU(s) and takes a pool of {:.2f} x total memory on each; "
      "fsdp_devices={} shards parameters over {} of them",
      devices, *fraction, job.parallel.fsdp_devices, sim.parallel.dp_shard));
  return out;
}

}  // namespace vramscope::predict
