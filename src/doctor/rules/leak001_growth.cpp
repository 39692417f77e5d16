// LEAK001: memory that grows from one iteration (or run) to the next because something keeps
// tensors alive: a loss or output accumulated as a tensor with its autograd graph (`total +=
// loss` instead of loss.item()), a metric that stores every batch, a reference cycle that
// backward(create_graph=True) makes between a parameter and its gradient. Two readings:
//   - the same GPU pasted twice, its memory grown between the two (nvidia-smi before and after);
//   - an out-of-memory message that nothing places (no traceback frame): a leak ends on an
//     ordinary allocation once the kept tensors fill the GPU, which reads exactly like a step
//     that does not fit. The finding says so: it ranks below the job's size (weak), and names
//     what tells the two apart (memory_allocated() per iteration);
//   - a log's figure printed each step under one label, rising from print to print;
//   - a memory summary with live allocations by the hundred thousand, nearly all small.
#include <fmt/format.h>

#include <map>
#include <tuple>

#include "doctor/likelihood.hpp"
#include "doctor/oom_facts.hpp"
#include "doctor/replan.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor::rules {

namespace {

namespace lk = likelihood;

constexpr const char* cause_text =
    "tensors kept from one iteration to the next (a loss or output accumulated with its autograd graph, a "
    "metric that stores every batch, a parameter-gradient cycle from backward(create_graph=True)) grow until "
    "an ordinary allocation fails";
constexpr const char* fix_text =
    "keep numbers, not graphs: loss.item() / tensor.detach() for what is accumulated or logged, "
    "metrics "
    "computed per batch (or their stored states moved to the CPU), torch.autograd.grad instead of "
    "backward(create_graph=True) (or param.grad = None after it), and drop what is kept across "
    "iterations "
    "(del the references, clear lists and caches, gc.collect() for reference cycles); "
    "torch.cuda.memory_allocated() printed each iteration shows the growth";

// The same, short, for a reading the message only allows (one screen holds the differential).
// Failing after many iterations that ran is a leak's mark, failing at the first the job's size.
constexpr const char* short_cause =
    "tensors kept across iterations (a loss summed with its graph, a metric storing every batch) fill the GPU";
constexpr const char* short_fix =
    "loss.item() / .detach() / del for what is kept across iterations; watch memory_allocated() "
    "per "
    "iteration";

// Two pastes of one GPU (same machine, index, name and size), the later one holding more by
// more than a CUDA context could add (likelihood.hpp): what was kept grew.
std::optional<finding> from_snapshots(const observe::observation& obs) {
  using key = std::tuple<std::string, int, std::string, bytes>;
  std::map<key, const observe::gpu_observation*> first;
  finding f{"LEAK001", {}, severity::warning, {}, cause_text, fix_text, {}, {}, "leak", 0, {}, {}};
  bytes grown = 0;
  for (const auto& g : obs.gpus) {
    // A program's reading before its own allocations (Kaldi's GPU selection) is no paste of a
    // run's memory: what it held later is its own use, not memory kept.
    if (!g.index || !g.used || !g.total || g.before_own_use) continue;
    const key k{g.host, *g.index, g.name, *g.total};
    const auto [at, inserted] = first.emplace(k, &g);
    if (inserted) continue;
    const auto& before = *at->second;
    if (*g.used <= *before.used + lk::context_max) continue;
    const bytes growth = *g.used - *before.used;
    if (growth <= grown) continue;
    grown = growth;
    f.evidence = {fmt::format("GPU {}: {} of {} used, later {}: {} more", *g.index, format_bytes(*before.used),
                              format_bytes(*g.total), format_bytes(*g.used), format_bytes(growth))};
    f.support = {fmt::format("the same GPU holds {} more in the later paste: more than a CUDA context ({} at "
                             "most) could add",
                             format_bytes(growth), format_bytes(lk::context_max))};
    f.against.clear();
    f.likelihood = lk::possible;
    // Both at 0 % utilisation: nothing was running when either was taken, so what is held was
    // kept between runs, not a job still loading.
    if (before.utilization_gpu == 0 && g.utilization_gpu == 0) {
      f.likelihood = lk::likely;
      f.support.push_back("both pastes show 0 % utilisation: the memory is held between runs, not by a job "
                          "still starting");
    } else {
      f.against.push_back("a job still loading its model grows the same way between two pastes");
    }
    if (obs.processes.empty())
      f.against.push_back("the pastes have no process list: a process started between them would read the same");
  }
  if (f.evidence.empty()) return std::nullopt;
  f.saving = static_cast<std::int64_t>(grown);
  f.saving_basis = "the growth between the two pastes";
  return f;
}

// The count of live tensors printed after each call of the same work (TensorFlow.js's
// tf.memory().numTensors) that rises at every print: tensors each call makes and nothing
// disposes. TensorFlow.js frees a tensor's GPU memory only when it is disposed (tf.dispose, or
// tf.tidy around the call; the memory-management section of its tensors guide), so a count that
// grows with each call is memory kept, whatever its bytes.
std::optional<finding> from_tensor_count(const observe::observation::figure_series& s) {
  const auto& p = s.points;
  for (std::size_t k = 1; k < p.size(); ++k)
    if (p[k].second <= p[k - 1].second) return std::nullopt;
  finding f{"LEAK001", {}, severity::warning, {}, {}, {}, {}, {}, "leak", lk::possible, {}, {}};
  f.evidence.push_back(fmt::format("{} lines {} to {}: \"{}\" from {} to {} over {} prints",
                                   s.source, p.front().first, p.back().first, s.label,
                                   p.front().second, p.back().second, p.size()));
  f.support.push_back(
      fmt::format("the live tensors rise at every one of {} prints, by {} in all: each call "
                  "leaves tensors that nothing disposes",
                  p.size() - 1, p.back().second - p.front().second));
  f.against.push_back(
      "a cache or state the program keeps on purpose grows the same way until it is full");
  f.cause =
      "tensors made by each call are never disposed: TensorFlow.js frees a tensor's memory only "
      "when it is disposed, so every call leaves its intermediates behind";
  f.fix =
      "wrap the call in tf.tidy(() => ...) and dispose what it returns once used (tf.dispose / "
      "tensor.dispose()); tf.memory().numTensors stays flat when nothing leaks";
  return f;
}

// A figure a log prints under one label, step after step, that grows: more than a CUDA context
// from its first point to its last and rising at most of its steps. A job of fixed shapes holds
// the same memory each iteration after the first; what rises from one to the next was kept.
std::optional<finding> from_series(const observe::observation& obs) {
  for (const auto& s : obs.series) {
    const auto& p = s.points;
    const bytes first = p.front().second, last = p.back().second;
    if (s.tensor_count) {
      if (auto f = from_tensor_count(s)) return f;
      continue;
    }
    // A pool's growths (Kaldi's new regions, figure_series::pool_growth): its regions are kept
    // until the process ends (cu-allocator.cc frees them only in ~CuMemoryAllocator), so the
    // series rises with the largest demand so far whether or not anything is kept.
    if (s.pool_growth) continue;
    if (last <= first + lk::context_max) continue;
    std::size_t rises = 0, falls = 0;
    for (std::size_t k = 1; k < p.size(); ++k) {
      if (p[k].second > p[k - 1].second) ++rises;
      if (p[k].second < p[k - 1].second) ++falls;
    }
    if (falls * 3 > p.size() - 1 || rises * 2 < p.size() - 1) continue;  // not a steady rise
    finding f{"LEAK001", {}, severity::warning, {}, cause_text, fix_text, {}, {}, "leak", lk::possible, {}, {}};
    f.evidence.push_back(fmt::format("{} lines {} to {}: \"{}\" from {} to {} over {} prints", s.source,
                                     p.front().first, p.back().first, s.label, format_bytes(first),
                                     format_bytes(last), p.size()));
    f.support.push_back(fmt::format("it rises at {} of {} steps, by {} in all: a step of fixed shapes holds the "
                                    "same memory each time, so what rises was kept",
                                    rises, p.size() - 1, format_bytes(last - first)));
    f.against.push_back("a run whose inputs grow (longer sequences, a cache filling up to its limit) rises the "
                        "same way; the allocator's cache alone (reserved) may also rise while allocated does not");
    f.saving = static_cast<std::int64_t>(last - first);
    f.saving_basis = "the growth from the first print to the last";
    return f;
  }
  return std::nullopt;
}

// A memory summary (or memory_stats) whose live allocations number in the hundreds of thousands,
// nearly all in the small pool: far more tensors than any model's own, each a few KiB
// (likelihood.hpp, kept_allocations_min). Allocated bytes where the paste has them, else active
// (a cut summary: active is allocated plus blocks awaiting other streams' events).
std::optional<finding> from_small_tensor_pile(const observe::observation& obs) {
  for (const auto& s : obs.stats) {
    if (s.after_change) continue;
    const auto raw = [&](const std::string& key) -> std::optional<std::uint64_t> {
      const auto it = s.raw.find(key);
      return it == s.raw.end() ? std::nullopt : std::optional<std::uint64_t>(it->second);
    };
    const auto bytes_of = [&](const char* pool) {
      const auto allocated = raw(fmt::format("allocated_bytes.{}.current", pool));
      return allocated ? allocated : raw(fmt::format("active_bytes.{}.current", pool));
    };
    auto count = raw("allocation.all.current");
    if (!count) count = raw("allocation.small_pool.current");
    const auto small = bytes_of("small_pool");
    auto all = bytes_of("all");
    if (!all) {
      if (const auto large = bytes_of("large_pool"); large && small) all = *large + *small;
    }
    if (!count || !small || !all || *all == 0 || *count < lk::kept_allocations_min ||
        static_cast<double>(*small) < lk::small_pool_share_min * static_cast<double>(*all))
      continue;
    finding f{"LEAK001", {},     severity::warning, {}, cause_text, fix_text, {},
              {},        "leak", lk::possible,      {}, {}};
    f.title = "small tensors kept by the hundred thousand";
    f.evidence.push_back(
        fmt::format("{}: {} live allocations, {} of the {} allocated in the small pool", s.source,
                    *count, format_bytes(*small), format_bytes(*all)));
    f.support.push_back(fmt::format(
        "{} live tensors of {} on average: at least ten times what the largest models' "
        "parameters, gradients, optimizer state and one step's activations make together, and "
        "too small to be weights; tensors made each iteration and kept",
        *count, format_bytes(*small / *count)));
    f.against.push_back(
        "a program that holds many small tensors on purpose (a cache of per-item "
        "results) reads the same; the summary at two iterations decides");
    f.saving = static_cast<std::int64_t>(*small);
    f.saving_basis = "at most what the small pool holds: the small tensors kept";
    return f;
  }
  return std::nullopt;
}

// An allocator's message with nothing to place it (oom_facts' phase unknown). A leak fails on an
// ordinary allocation: a request of half the GPU or more is one tensor too large, not this.
std::optional<finding> from_unplaced_message(const observe::oom_report& r) {
  if (r.kind != observe::oom_kind::torch || r.origin != observe::oom_origin::allocator) return std::nullopt;
  const auto o = facts_of(r);
  if (o.phase != oom_phase::unknown) return std::nullopt;
  if (o.requested && o.capacity && 2 * *o.requested >= *o.capacity) return std::nullopt;
  finding f{"LEAK001", {}, severity::warning, {}, short_cause, short_fix, {}, {}, "leak", lk::weak - lk::step,
            {}, {}};
  f.evidence.push_back(fmt::format("{}: tried to allocate {}, {} allocated by PyTorch", where(r),
                                   size_or_unknown(o.requested), size_or_unknown(o.allocated)));
  f.against.push_back("one message shows no growth: nothing in the paste tells kept tensors from a step that does "
                      "not fit; the message (or nvidia-smi) at two iterations decides: memory grown between them "
                      "was kept");
  if (o.after_iterations()) {
    f.likelihood += lk::step;
    f.support.push_back(
        fmt::format("the progress before the error ({}) counts {} iterations that completed: the "
                    "same step fit that many times before it failed",
                    o.progress->line, o.progress->done));
  }
  if (o.at_first_iteration()) {
    f.likelihood -= lk::step;
    f.against.push_back(
        fmt::format("the progress before the error ({}) is at its loop's first iteration ({}/{}): "
                    "nothing had been kept from one iteration to the next yet",
                    o.progress->line, o.progress->done, o.progress->total));
  }
  return f;
}

}  // namespace

std::vector<finding> kept_across_iterations(const doctor_input& in) {
  if (!in.observed) return {};
  if (auto f = from_snapshots(*in.observed)) return {std::move(*f)};
  if (auto f = from_series(*in.observed)) return {std::move(*f)};
  if (auto f = from_small_tensor_pile(*in.observed)) return {std::move(*f)};
  for (const auto& r : in.observed->ooms)
    if (auto f = from_unplaced_message(r)) return {std::move(*f)};
  return {};
}

}  // namespace vramscope::doctor::rules
