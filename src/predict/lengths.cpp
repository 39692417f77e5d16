#include "predict/lengths.hpp"

#include <vramscope/job/lengths.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace vramscope::predict {

namespace {

// The nearest-rank percentile `p` (0 < p <= 100) of `sorted`, ascending and not empty.
template <typename T>
T nearest_rank(const std::vector<T>& sorted, double p) {
  const auto n = static_cast<double>(sorted.size());
  const auto rank = static_cast<std::size_t>(std::max(1.0, std::ceil(p / 100 * n)));
  return sorted[std::min(rank, sorted.size()) - 1];
}

}  // namespace

length_replay summarise_steps(const std::vector<schedule::program::step_mark>& marks,
                              const replay_result& rr, const std::vector<std::uint64_t>& drawn) {
  length_replay out;
  const std::size_t replayed = std::min(marks.size(), rr.steps.size());
  out.steps_replayed = static_cast<int>(replayed);
  std::vector<bytes> reserved;
  std::map<std::uint64_t, bytes> last_of_length;
  for (std::size_t i = 0; i < replayed; ++i) {
    reserved.push_back(rr.steps[i].reserved);
    last_of_length[marks[i].seq_len] = rr.steps[i].reserved;
  }
  if (rr.oom) {
    out.oom_step = static_cast<int>(replayed) + 1;
  } else {
    for (std::size_t i = replayed; i < drawn.size(); ++i) {
      const auto it = last_of_length.find(drawn[i]);
      if (it == last_of_length.end()) break;  // not left out by the schedule: cannot happen
      reserved.push_back(it->second);
    }
  }
  if (reserved.empty()) return out;
  out.first = reserved.front();
  bytes highest = 0;
  for (std::size_t i = 0; i < reserved.size(); ++i)
    if (reserved[i] > highest) {
      highest = reserved[i];
      out.last_growth_step = static_cast<int>(i) + 1;
    }
  out.highest = highest;
  std::sort(reserved.begin(), reserved.end());
  out.p50 = nearest_rank(reserved, 50);
  out.p99 = nearest_rank(reserved, 99);
  return out;
}

result<length_figures> length_figures_of(const model::model_spec& model, const job::job_spec& job,
                                         const schedule::schedule_options& options,
                                         const allocator_factory& make) {
  auto dist = job::length_distribution_of(job);
  if (!dist) return dist.error();
  length_figures out;
  out.distribution = job::describe(*dist, job);
  out.steps = std::max(1, job.training.steps);
  out.seed = static_cast<std::uint64_t>(job.training.length_seed);
  auto drawn = job::draw_lengths(*dist, out.steps, out.seed);
  auto sorted = drawn;
  std::sort(sorted.begin(), sorted.end());
  out.shortest = sorted.front();
  out.median = nearest_rank(sorted, 50);
  out.longest = sorted.back();
  for (const bool expandable : {false, true}) {
    auto allocator = make(expandable);
    if (!allocator) return allocator.error();
    replay_while_built watcher(**allocator);
    auto program = schedule::build_program(model, job, 0, options, watcher);
    if (!program) return program.error();
    const auto rr = watcher.finish(*program);
    auto& r = expandable ? out.with_expandable : out.without_expandable;
    r = summarise_steps(program->steps, rr, drawn);
    r.expandable_segments = expandable;
  }
  return out;
}

}  // namespace vramscope::predict
