// plan(): simulate each representative rank, then lay the ranks out on GPUs with everything
// that lives outside the allocator.
#include <vramscope/predict/prediction.hpp>

#include <vramscope/core/version.hpp>

#include <vramscope/alloc/caching_options.hpp>
#include <vramscope/alloc/factory.hpp>
#include <vramscope/job/gpu_catalog.hpp>
#include <vramscope/schedule/schedule.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <tuple>

#include "predict/gpus.hpp"
#include "predict/jax_plan.hpp"
#include "predict/lengths.hpp"
#include <vramscope/predict/overheads.hpp>
#include "predict/replay.hpp"

namespace vramscope::predict {

namespace {

int compute_capability(const job::job_spec& job) {
  if (job.hardware.compute_capability > 0) return job.hardware.compute_capability;
  const auto* gpu = job::lookup_gpu(job.hardware.gpu);
  return gpu ? gpu->compute_capability : 80;
}

// `expandable`, when given, turns expandable segments on or off whatever the job says.
result<std::unique_ptr<alloc::allocator_model>> torch_allocator(
    const job::job_spec& job, bytes capacity, int device,
    std::optional<bool> expandable = std::nullopt) {
  if (job.env_value("PYTORCH_NO_CUDA_MEMORY_CACHING") == "1")
    return alloc::make_exact_allocator(capacity);
  std::string conf = job.env_value("PYTORCH_CUDA_ALLOC_CONF");
  if (conf.empty()) conf = job.env_value("PYTORCH_ALLOC_CONF");
  auto options = alloc::parse_alloc_conf(conf);
  if (!options) {
    auto d = options.error();
    d.source = "env.PYTORCH_CUDA_ALLOC_CONF";
    return d;
  }
  options->capacity = capacity;
  options->device_total = job::usable_capacity(job.hardware);  // torch's total_memory
  options->device = device;
  if (expandable) options->expandable_segments = *expandable;
  if (options->backend == alloc::alloc_backend::cuda_malloc_async)
    return alloc::make_exact_allocator(capacity);
  return alloc::make_caching_allocator(*options);
}

// Host memory of offloaded state per rank: the trainable master shard, its gradient and
// optimizer state (FSDP cpu_offload, ZeRO offload_optimizer), the frozen base's shard (FSDP
// cpu_offload, ZeRO-3 offload_param) and the compute-dtype parameter shard (ZeRO-3
// offload_param). Pinned buffers for the transfers are not counted.
// Bytes of optimizer state per trainable value (two moments for Adam, one for momentum SGD;
// bitsandbytes' 8-bit state one byte a moment, its paged fp32 state four).
bytes state_bytes_per_value(const job::job_spec& job) {
  const bytes s = bytes_of(job.optimizer.state, 1);
  switch (job.optimizer.kind) {
    case job::optimizer_kind::adamw:
    case job::optimizer_kind::adam: return 2 * s;
    case job::optimizer_kind::sgd_momentum: return s;
    case job::optimizer_kind::adamw_8bit:
    case job::optimizer_kind::paged_adamw_8bit: return 2;
    case job::optimizer_kind::paged_adamw: return 8;
    default: return 0;
  }
}

bytes host_memory(const model::model_spec& model, const job::job_spec& job) {
  const auto& p = job.parallel;
  if (!p.cpu_offload && !p.offload_optimizer && !p.offload_param) return 0;
  const auto world = static_cast<std::uint64_t>(std::max(1, job.world_size() / std::max(1, p.tp * p.dp_replicate)));
  const auto split = schedule::split_parameters(model, job);  // already split by TP
  const bytes shard = ceil_div(split.trainable, world);
  const bytes frozen = ceil_div(split.frozen, world);
  const bytes m = bytes_of(job.precision.master, 1);
  const bytes state_per_param = state_bytes_per_value(job);
  bytes total = 0;
  if (p.cpu_offload || p.offload_optimizer) total += shard * (2 * m + state_per_param);
  if (p.cpu_offload || p.offload_param) total += frozen;
  if (p.offload_param) total += shard * bytes_of(job.precision.params, 1);
  return total;
}

// Paged optimizer state (cudaMallocManaged) is prefetched to the GPU before each step and stays
// there while the GPU has room; under pressure the driver evicts pages to host memory instead
// of failing, so the GPU holds what fits beside the rank's reserved memory and overheads.
bytes resident_managed(const rank_prediction& r, bytes capacity) {
  const bytes rest = r.peak.reserved + r.context + r.nccl;
  return rest >= capacity ? 0 : std::min(r.managed, capacity - rest);
}

bool same_program(const schedule::program& a, const schedule::program& b) {
  return a.tensors == b.tensors && a.managed == b.managed && a.offloaded == b.offloaded &&
         a.phase_names == b.phase_names && schedule::same_events(a.events, b.events);
}

// Why a GPU's capacity is less than nvidia-smi's total, said once.
void capacity_note(const job::job_spec& job, std::vector<std::string>& notes) {
  if (job.hardware.driver_reserved == 0) return;
  notes.push_back(fmt::format("usable memory per GPU: {}, the {} total less {} the driver reserves "
                              "(nvidia-smi -q \"Reserved\"; hardware.driver_reserved)",
                              format_bytes(job::usable_capacity(job.hardware)),
                              format_bytes(job.hardware.capacity),
                              format_bytes(job.hardware.driver_reserved)));
}

// The first rank's figures for a rank with the same program and capacity on `device`, with the
// out-of-memory message worded by that device's allocator model; nullopt where the model cannot
// word it (then the rank is replayed).
std::optional<rank_prediction> same_as_first(const rank_prediction& first, const job::job_spec& job,
                                             bytes capacity, int device, bool figures_only) {
  if (!first.oom || figures_only) return first;
  auto allocator = torch_allocator(job, capacity, device);
  if (!allocator) return std::nullopt;
  auto message = (*allocator)->oom_message(*first.oom);
  if (!message) return std::nullopt;
  rank_prediction r = first;
  r.oom->message = std::move(*message);
  return r;
}

// Whether a rank's program may end where its replay runs out of memory (replay_while_built):
// the plan reads nothing of it past the failure. Not with the curve, whose sampling needs the
// program's length, nor where the plan reports a program total that may grow after the
// failure: paged optimizer state (program::managed, from the first optimizer step on; only
// the paged optimizers have it, schedule/optimizer_state.cpp) and the saved activations
// offloaded to the host (program::offloaded, in a note).
bool may_end_at_oom(const job::job_spec& job, const predict_options& options) {
  return !options.timeline && !job.training.activation_offloading &&
         job.optimizer.kind != job::optimizer_kind::paged_adamw &&
         job.optimizer.kind != job::optimizer_kind::paged_adamw_8bit;
}

// A rank's program built while it is replayed: the same figures as building it whole and
// replaying it, but the build stops at an out-of-memory failure. nullopt when the allocator
// options are bad (the caller builds the program first, so that its error comes first).
std::optional<result<std::pair<schedule::program, replay_result>>> build_and_replay(
    const model::model_spec& model, const job::job_spec& job, int rank,
    const schedule::schedule_options& sopts, bytes capacity, int device, std::string& name) {
  auto allocator = torch_allocator(job, capacity, device);
  if (!allocator) return std::nullopt;
  name = (*allocator)->name();
  replay_while_built replay(**allocator);
  auto program = schedule::build_program(model, job, rank, sopts, replay);
  if (!program) return program.error();
  // plan_torch compares a later rank's events with these only when this program is
  // rank-specific (otherwise a failed same_as_first replays that rank whole, which same_program
  // with no events leads to): the replay may keep them without a copy.
  auto figures =
      program->rank_specific ? replay.finish(*program) : replay.finish_taking_events(*program);
  return std::pair{std::move(*program), std::move(figures)};
}

// What a training checkpoint rank 0 wrote holds, when checkpoint.resume_map_location none
// restores it onto cuda:0 for the node's other ranks (gpus.cpp): the weights in their stored
// dtype, the frozen base and the optimizer's state for every trainable value. 0 otherwise.
bytes resumed_on_gpu0(const model::model_spec& model, const job::job_spec& job) {
  if (!resume_lands_on_gpu0(job) || job.hardware.gpus_per_node <= 1) return 0;
  const auto split = schedule::split_parameters(model, job);
  return split.trainable * (bytes_of(job.precision.master, 1) + state_bytes_per_value(job)) +
         split.frozen;
}

// Whether the job turns on phase `name` of outside_phase_names that a rank may not reach.
bool phase_turned_on(const job::job_spec& job, std::string_view name) {
  using job::strategy;
  if (name == "resume") return job.checkpoint.resume;
  if (name == "eval") return job.eval.enabled;
  if (name == "checkpoint_save") {
    const auto k = job.parallel.kind;
    return (job.checkpoint.save == job::state_dict_kind::full &&
            (job::is_fsdp(k) || k == strategy::zero3)) ||
           job.saves_int8_copies();
  }
  return false;
}

// The phases outside the training step on the rank's GPU: their device level, whether they
// fit, and the ones the job turns on that an earlier failure kept the rank from.
void place_phases(rank_prediction& r, const job::job_spec& job, bytes capacity) {
  const bytes outside = r.peak.device - r.peak.reserved;  // context, NCCL, managed, others
  for (auto& ph : r.phases) {
    ph.peak.device = ph.peak.reserved + outside;
    ph.fits = !ph.oom && ph.peak.device <= capacity;
  }
  if (!r.oom) return;
  std::vector<phase_peak> all;
  for (const char* name : outside_phase_names) {
    const auto it = std::find_if(r.phases.begin(), r.phases.end(),
                                 [&](const phase_peak& p) { return p.name == name; });
    if (it != r.phases.end()) all.push_back(*it);
    else if (phase_turned_on(job, name)) all.push_back(phase_peak{name, {}, false, false, false});
  }
  r.phases = std::move(all);
}

// The first rank whose paged optimizer state does not all fit on its GPU. Classes are in the
// order of their first rank, which has its class's figures: the first such class's is it.
const rank_prediction* evicting_rank(const prediction& p) {
  for (const auto& c : p.classes)
    if (c.rank.managed_resident < c.rank.managed) return &c.rank;
  return nullptr;
}

// Lays a rank out on its GPU: its representative's figures with its own numbers, its own
// process and, on GPU 0 of a node, what the node's other ranks leave there (stray_shares).
struct rank_placer {
  const job::job_spec& job;
  const std::map<int, rank_prediction>& simulated;
  bytes context = 0, nccl = 0, usable = 0, checkpoint = 0, resumed = 0;
  bool words = true;
  int world = 0;

  void place(int rank, rank_prediction& r, gpu_prediction& gpu) const {
    const int like = schedule::representative_of(job, rank);
    const auto it = simulated.find(like);
    r = it != simulated.end() ? it->second : rank_prediction{};
    if (rank != like) r.timeline.clear();
    r.rank = rank;
    r.gpu = rank;
    r.like_rank = like;
    r.context = context;
    r.nccl = nccl;
    r.managed_resident = resident_managed(r, usable);
    gpu.index = rank;
    gpu.capacity = usable;
    gpu.processes.push_back({rank, words ? fmt::format("rank {}", rank) : std::string(),
                             r.peak.reserved + context + nccl + r.managed_resident});
    const int per_node = job.hardware.gpus_per_node;
    if (rank % per_node == 0)
      for (int local = 1; local < per_node && rank + local < world; ++local)
        for (auto& share : stray_shares(job, rank + local, checkpoint, resumed))
          gpu.processes.push_back(std::move(share));
    for (const auto& p : gpu.processes) gpu.device += p.device;
    r.peak.device = gpu.device;
    r.parts.cuda_context = r.context;
    r.parts.nccl = r.nccl;
    r.parts.managed = r.managed_resident;
    r.parts.other_processes =
        gpu.device - (r.peak.reserved + r.context + r.nccl + r.managed_resident);
    place_phases(r, job, gpu.capacity);
  }

  // What a rank's figures and its GPU's follow from besides its numbers: its representative,
  // whether it is that rank (which keeps the curve), and on GPU 0 of a node how many of the
  // node's other ranks exist (each leaves the same shares there); -1 elsewhere.
  std::tuple<int, bool, int> class_key(int rank, int like) const {
    const int per_node = job.hardware.gpus_per_node;
    const int mates = rank % per_node == 0 ? std::min(per_node - 1, world - 1 - rank) : -1;
    return {like, rank == like, mates};
  }

  // The first rank after `rank` whose class may differ from its: the next one after GPU 0 of a
  // node, after a representative or after rank 0 or 1; else the next node's or the next
  // pipeline stage's first rank (schedule::representative_of: a stage's ranks have its first
  // rank as representative, stage 0's rank 1). The ranks between have one class.
  int run_end(int rank, int like) const {
    const int per_node = job.hardware.gpus_per_node;
    if (rank < 2 || rank % per_node == 0 || rank == like) return rank + 1;
    const int per_stage = std::max(1, world / std::max(1, job.parallel.pp));
    const int node_end = (rank / per_node + 1) * per_node;
    const int stage_end = (rank / per_stage + 1) * per_stage;
    return std::min({node_end, stage_end, world});
  }

  // Whether node `node`'s ranks are alike but for their numbers to those of every other regular
  // node of its pipeline stage (class_key): the whole node lies in the world and in one stage,
  // after the stage's representatives (its first rank, and rank 1 of stage 0).
  bool regular_node(int node) const {
    const int per_node = job.hardware.gpus_per_node;
    const int first = node * per_node, last = first + per_node - 1;
    if (last >= world) return false;
    const int per_stage = std::max(1, world / std::max(1, job.parallel.pp));
    if (first / per_stage != last / per_stage) return false;
    return first > schedule::representative_of(job, first) && first > 1;
  }

  // The node after the last of the regular nodes from `node` on in its stage (node itself when
  // it is not regular): they share the classes of `node`'s ranks, shifted by a node each.
  int regular_nodes_end(int node) const {
    if (!regular_node(node)) return node;
    const int per_node = job.hardware.gpus_per_node;
    const int per_stage = std::max(1, world / std::max(1, job.parallel.pp));
    const int stage_end = std::min(world, (node * per_node / per_stage + 1) * per_stage);
    return stage_end / per_node;  // nodes wholly before the stage's end
  }
};

// prediction::classes and ranges: runs of ranks in order (rank_placer::run_end), a new range
// where the class changes. Nodes alternate between two classes (GPU 0 and the rest), which
// are looked for first. A regular node (rank_placer::regular_node) placed range by range is
// followed by the other regular nodes of its stage as one block of its ranges with a period
// (rank_range), so that the cost follows the number of stages, not of nodes.
void place_classes(const rank_placer& placer, prediction& out) {
  using key_type = std::tuple<int, bool, int>;
  const key_type none{-1, false, -2};  // no rank's key: after a block, nothing merges with it
  std::map<key_type, std::uint32_t> class_of;
  std::pair<key_type, std::uint32_t> last{none, 0}, before_last{none, 0};
  const int per_node = placer.job.hardware.gpus_per_node;
  out.ranges.reserve(static_cast<std::size_t>(4 * std::max(1, placer.job.parallel.pp) + 8));
  for (int rank = 0; rank < placer.world;) {
    if (per_node > 1 && rank % per_node == 0 && rank > 0 &&
        placer.regular_node(rank / per_node - 1)) {
      const int node = rank / per_node;
      const int end = placer.regular_nodes_end(node);
      // The previous node's ranges, placed one by one: those from its first rank on.
      auto from = out.ranges.end();
      while (from != out.ranges.begin() && std::prev(from)->first >= rank - per_node) --from;
      if (end > node && from != out.ranges.end() && from->first == rank - per_node &&
          std::all_of(from, out.ranges.end(), [](const rank_range& r) { return r.period == 0; })) {
        const std::vector<rank_range> previous(from, out.ranges.end());
        for (auto r : previous) {
          r.first += per_node;
          r.period = per_node;
          r.times = end - node;
          out.ranges.push_back(r);
        }
        last = before_last = {none, 0};
        rank = end * per_node;
        continue;
      }
    }
    const int like = schedule::representative_of(placer.job, rank);
    const auto key = placer.class_key(rank, like);
    const int end = placer.run_end(rank, like);
    if (!out.ranges.empty() && key == last.first && out.ranges.back().period == 0) {
      out.ranges.back().count += end - rank;
      rank = end;
      continue;
    }
    std::uint32_t cls = before_last.second;
    if (out.ranges.size() < 2 || key != before_last.first) {
      const auto [it, added] =
          class_of.try_emplace(key, static_cast<std::uint32_t>(out.classes.size()));
      if (added) {
        rank_class c;
        placer.place(rank, c.rank, c.gpu);
        out.classes.push_back(std::move(c));
      }
      cls = it->second;
    }
    out.ranges.push_back({rank, end - rank, cls});
    before_last = last;
    last = {key, cls};
    rank = end;
  }
}

result<prediction> plan_torch(const model::model_spec& model, const job::job_spec& job,
                              const predict_options& options) {
  prediction out;
  const bool words = !options.figures_only;  // the job, notes, names and messages
  if (words) out.job = job;
  out.model_name = model.name;
  out.parameters = model.parameters();
  const int cc = compute_capability(job);
  const bytes context = cuda_context_bytes(job);
  const bytes nccl = nccl_bytes(job, cc) + symmetric_memory_bytes(job, model);
  const bytes checkpoint = model.size();
  const bytes resumed = resumed_on_gpu0(model, job);
  const bytes usable = job::usable_capacity(job.hardware);
  schedule::schedule_options sopts;
  sopts.cublas_workspace = cublas_workspace_bytes(job, cc);
  sopts.shared_model = options.shared_model;

  std::map<int, rank_prediction> simulated;
  std::optional<schedule::program> first_program;
  bytes first_capacity = 0;
  const bool may_end = may_end_at_oom(job, options);
  for (int rep : schedule::representative_ranks(job)) {
    const bytes outside = context + nccl + foreign_bytes_on(job, rep, checkpoint, resumed);
    const bytes capacity = usable > outside ? usable - outside : 0;
    const int device = rep % job.hardware.gpus_per_node;
    // A rank whose program and capacity equal the first one's replays to the same figures: the
    // replay is a pure function of them and the allocator options, which differ only in the
    // device index, and that appears only in an out-of-memory message. The first program is
    // every rank's when building it read nothing of the rank's place; cut short at its
    // failure (program::complete), it is every rank's beginning, where their replays fail too.
    const bool same_capacity = first_program && capacity == first_capacity;
    if (same_capacity && !first_program->rank_specific)
      if (auto same = same_as_first(simulated.begin()->second, job, capacity, device,
                                    options.figures_only)) {
        simulated[rep] = std::move(*same);
        continue;
      }
    // With no first program to compare with, the program is replayed as it is built; so is a
    // pipeline stage's, whose steady phase the replay may leave out
    // (schedule::program_watcher::period_repeats): one equal to the first program is found
    // equal while it is built (predict/replay.cpp), the first's being shortened.
    std::optional<result<std::pair<schedule::program, replay_result>>> built;
    if (may_end && (!same_capacity || job.parallel.pp > 1))
      built = build_and_replay(model, job, rep, sopts, capacity, device, out.allocator);
    if (!built) {
      auto program = schedule::build_program(model, job, rep, sopts);
      if (!program) return program.error();
      if (same_capacity && same_program(*program, *first_program))
        if (auto same = same_as_first(simulated.begin()->second, job, capacity, device,
                                    options.figures_only)) {
          simulated[rep] = std::move(*same);
          continue;
        }
      auto allocator = torch_allocator(job, capacity, device);
      if (!allocator) return allocator.error();
      out.allocator = (*allocator)->name();
      auto rr = replay(*program, **allocator, options.timeline ? options.timeline_points : 0);
      built = std::pair{std::move(*program), std::move(rr)};
    }
    if (!*built) return built->error();
    auto& [program, rr] = **built;
    rank_prediction r;
    fill_rank(r, rr, program);
    r.managed = program.managed;
    simulated[rep] = std::move(r);
    if (!first_program) {
      if (rep == 0 && job.parallel.pp <= 1) out.parameters_split = program.parameters;
      first_program = std::move(program);
      first_capacity = capacity;
    }
  }

  // Ranks alike in every figure are placed once a class (rank_placer::class_key); every rank
  // only where the caller wants them one by one.
  const rank_placer placer{.job = job,
                           .simulated = simulated,
                           .context = context,
                           .nccl = nccl,
                           .usable = usable,
                           .checkpoint = checkpoint,
                           .resumed = resumed,
                           .words = words,
                           .world = job.world_size()};
  place_classes(placer, out);
  for (const auto& c : out.classes)
    if (c.rank.oom || c.gpu.device > c.gpu.capacity) out.fits = false;
  if (!options.rank_ranges) {
    out.ranks.resize(static_cast<std::size_t>(placer.world));
    out.gpus.resize(static_cast<std::size_t>(placer.world));
    for (int rank = 0; rank < placer.world; ++rank)
      placer.place(rank, out.ranks[static_cast<std::size_t>(rank)],
                   out.gpus[static_cast<std::size_t>(rank)]);
  }
  out.cpu_memory = host_memory(model, job);
  if (job.training.lengths != "fixed" && words) {
    const bytes outside = context + nccl + foreign_bytes_on(job, 0, checkpoint, resumed);
    const bytes capacity = usable > outside ? usable - outside : 0;
    auto lengths = length_figures_of(model, job, sopts, [&](bool expandable) {
      return torch_allocator(job, capacity, 0, expandable);
    });
    if (!lengths) return lengths.error();
    out.lengths = std::move(*lengths);
  }
  if (!words) {
    for (auto& r : out.ranks)
      if (r.oom) r.oom->message.clear();
    for (auto& c : out.classes)
      if (c.rank.oom) c.rank.oom->message.clear();
    return out;
  }
  if (const auto* r = evicting_rank(out))
    out.notes.push_back(fmt::format(
        "rank {}: {} of its {} of paged optimizer state does not fit beside the allocator's peak; "
        "the driver evicts it to host memory (slower steps, no out-of-memory error)",
        r->rank, format_bytes(r->managed - r->managed_resident), format_bytes(r->managed)));
  capacity_note(job, out.notes);
  schedule::framework_notes(job, first_program ? first_program->offloaded : 0, out.notes);
  if (out.cpu_memory > 0)
    out.notes.push_back(fmt::format("offloaded state needs about {} of host memory per rank "
                                    "({} per node); the GPU figures exclude it",
                                    format_bytes(out.cpu_memory),
                                    format_bytes(out.cpu_memory * static_cast<bytes>(job.hardware.gpus_per_node))));
  return out;
}

}  // namespace

result<prediction> plan(const model::model_spec& model, const job::job_spec& job,
                        const predict_options& options) {
  auto p = job.parallel.kind == job::strategy::jax || job.framework.name == "jax"
               ? plan_jax(model, job, options)
               : plan_torch(model, job, options);
  if (p) p->margin = job::margin_bytes(job.hardware);
  return p;
}

std::string_view name_of(fit_state s) {
  switch (s) {
    case fit_state::fits:
      return "fits";
    case fit_state::tight:
      return "tight";
    case fit_state::does_not_fit:
      return "does_not_fit";
  }
  return "fits";
}

fit_state verdict_facts::state() const {
  if (oom || busiest_device > busiest_capacity) return fit_state::does_not_fit;
  if (busiest_gpu && busiest_capacity - busiest_device < margin) return fit_state::tight;
  return fit_state::fits;
}

fit_state state_of(const prediction& p) { return verdict_of(p).state(); }

void fill_whole_step_need(const model::model_spec& model, const job::job_spec& job, prediction& p) {
  p.whole_step_need.reset();
  if (p.fits || (p.ranks.empty() && p.classes.empty())) return;
  predict_options ranges;
  ranges.rank_ranges = true;  // only its busiest rank is read
  const auto unlimited = plan(model, job::with_unlimited_memory(job), ranges);
  if (!unlimited || !unlimited->fits) return;
  const bytes need = std::max(busiest_rank(*unlimited).peak.device, busiest_rank(p).peak.device);
  if (need > job::usable_capacity(job.hardware)) p.whole_step_need = need;
}

namespace {

// Calls f with every rank (or, where a plan kept only ranges, every class's rank) in order;
// stops where f returns true. A class's rank is its first, so the first rank found is the
// first rank of the plan with that property.
template <typename F>
void for_each_rank(const prediction& p, F f) {
  if (!p.ranks.empty() || p.classes.empty()) {
    for (const auto& r : p.ranks)
      if (f(r)) return;
    return;
  }
  for (const auto& c : p.classes)
    if (f(c.rank)) return;
}

template <typename F>
void for_each_gpu(const prediction& p, F f) {
  if (!p.gpus.empty() || p.classes.empty()) {
    for (const auto& g : p.gpus) f(g);
    return;
  }
  for (const auto& c : p.classes) f(c.gpu);
}

}  // namespace

const rank_prediction& busiest_rank(const prediction& p) {
  const rank_prediction* worst = nullptr;
  for_each_rank(p, [&](const rank_prediction& r) {
    if (!worst || std::tie(worst->peak.device, worst->peak.reserved) <
                      std::tie(r.peak.device, r.peak.reserved))
      worst = &r;
    return false;
  });
  VRAMSCOPE_EXPECTS(worst != nullptr, "prediction without ranks");
  return *worst;
}

std::string failing_phase_after_steps(const prediction& p) {
  std::string phase;
  bool other = false;
  for_each_rank(p, [&](const rank_prediction& r) {
    if (!r.oom) return false;
    if (r.oom_phase == "checkpoint_save" || r.oom_phase == "eval") {
      if (phase.empty()) phase = r.oom_phase;
      return false;
    }
    other = true;
    return true;
  });
  return other ? std::string() : phase;
}

verdict_facts verdict_of(const prediction& p) {
  verdict_facts v;
  v.margin = p.margin;
  for_each_rank(p, [&](const rank_prediction& r) {
    if (r.oom)
      v.oom = verdict_facts::out_of_memory{r.rank, r.oom_phase, r.oom->requested, r.oom->reserved,
                                           r.oom->capacity};
    return r.oom.has_value();
  });
  if (v.oom) return v;
  const gpu_prediction* worst = nullptr;
  for_each_gpu(p, [&](const gpu_prediction& g) {
    if (!worst || g.device > worst->device) worst = &g;
  });
  if (worst) {
    v.busiest_gpu = worst->index;
    v.busiest_device = worst->device;
    v.busiest_capacity = worst->capacity;
  }
  return v;
}

}  // namespace vramscope::predict
