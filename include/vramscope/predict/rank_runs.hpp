#pragma once
// Reading a prediction's ranks and GPUs whichever form the plan kept them in: one by one
// (prediction::ranks, prediction::gpus) or as ranges of alike ranks (prediction::classes,
// prediction::ranges, predict_options::rank_ranges). Reports walk runs of consecutive ranks
// that share one set of figures, so that their cost follows the number of ranges, not the
// world size, and ask for a single rank or GPU with its own numbers where they show one.

#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include <vramscope/predict/prediction.hpp>

namespace vramscope::predict {

/// Ranks first .. first + count - 1: each has the figures of *rank but for its own numbers
/// (renumbered(*rank, that rank)).
struct rank_run {
  int first = 0;
  int count = 0;
  const rank_prediction* rank = nullptr;
};

/// GPUs first .. first + count - 1 (global indices): each has the figures of *gpu but for its
/// own numbers (renumbered(*gpu, that index)).
struct gpu_run {
  int first = 0;
  int count = 0;
  const gpu_prediction* gpu = nullptr;
};

/// `r` moved to rank `rank` of its class: the rank's number, and its GPU's shifted by as much;
/// every figure (like_rank included) kept.
rank_prediction renumbered(const rank_prediction& r, int rank);

/// `g` moved to GPU `index` of its class: the index, and the processes' ranks shifted by as
/// much (a process of no rank of the job, -1, keeps it), with the "rank N" that begins the
/// description of a rank's share (process_share::what: "rank 3", "rank 3: CUDA context ...")
/// renumbered with it.
gpu_prediction renumbered(const gpu_prediction& g, int index);

/// Calls f(block) for p.ranges in rank order, `block` a std::span<const rank_range>: a plain
/// range alone, or a node's block of ranges with a period (rank_range) whole.
template <typename F>
void for_each_range_block(const prediction& p, F&& f) {
  const auto& r = p.ranges;
  for (std::size_t i = 0; i < r.size();) {
    std::size_t end = i + 1;
    if (r[i].period > 0)
      while (end < r.size() && r[end].period == r[i].period && r[end].times == r[i].times &&
             r[end].first < r[i].first + r[i].period)
        ++end;
    f(std::span<const rank_range>(r.data() + i, end - i));
    i = end;
  }
}

/// Calls f(first, count, cls) for the runs of p.ranges in rank order: a plain range once, a
/// node's block of ranges with a period (rank_range) once for each of its nodes.
template <typename F>
void for_each_range_run(const prediction& p, F&& f) {
  for_each_range_block(p, [&](std::span<const rank_range> block) {
    const int times = block.front().period > 0 ? block.front().times : 1;
    for (int j = 0; j < times; ++j)
      for (const auto& r : block) f(r.first + j * r.period, r.count, r.cls);
  });
}

/// Calls f(rank_run) for the ranks in rank order: one run a rank from prediction::ranks where
/// it is filled (a full plan, or one that --rank narrowed), else one a range (for_each_range_run).
template <typename F>
void for_each_rank_run(const prediction& p, F&& f) {
  if (!p.ranks.empty() || p.classes.empty()) {
    for (const auto& r : p.ranks) f(rank_run{r.rank, 1, &r});
    return;
  }
  for_each_range_run(p, [&](int first, int count, std::uint32_t cls) {
    f(rank_run{first, count, &p.classes[cls].rank});
  });
}

/// Calls f(gpu_run) for the GPUs in index order: one run a GPU from prediction::gpus where it
/// is filled, else one a range (a range's ranks run on the GPUs of the same numbers).
template <typename F>
void for_each_gpu_run(const prediction& p, F&& f) {
  if (!p.gpus.empty() || p.classes.empty()) {
    for (const auto& g : p.gpus) f(gpu_run{g.index, 1, &g});
    return;
  }
  for_each_range_run(p, [&](int first, int count, std::uint32_t cls) {
    const auto& c = p.classes[cls];
    f(gpu_run{c.gpu.index + (first - c.rank.rank), count, &c.gpu});
  });
}

/// Calls f(runs, period, times) with the ranks in rank order as for_each_rank_run has them, a
/// node's block at once: `runs` (a std::span<const rank_run>) as the block's first node has
/// them, repeated on `times` nodes each `period` ranks after the one before; every other run
/// alone (period 0, times 1).
template <typename F>
void for_each_rank_block(const prediction& p, F&& f) {
  if (!p.ranks.empty() || p.classes.empty()) {
    for_each_rank_run(p, [&](const rank_run& run) { f(std::span<const rank_run>(&run, 1), 0, 1); });
    return;
  }
  std::vector<rank_run> runs;
  for_each_range_block(p, [&](std::span<const rank_range> block) {
    runs.clear();
    for (const auto& r : block) runs.push_back({r.first, r.count, &p.classes[r.cls].rank});
    const auto& head = block.front();
    f(std::span<const rank_run>(runs), head.period, head.period > 0 ? head.times : 1);
  });
}

/// Calls f(r, rank) for every rank whose figures carry a memory curve (r.timeline, kept for the
/// simulated ranks), in rank order, `r` being the class's figures that rank shares; a node's
/// block of ranks that were not simulated is passed over at once.
template <typename F>
void for_each_rank_with_timeline(const prediction& p, F&& f) {
  for_each_rank_block(p, [&](std::span<const rank_run> block, int period, int times) {
    const auto has_curve = [](const rank_run& run) { return !run.rank->timeline.empty(); };
    if (std::none_of(block.begin(), block.end(), has_curve)) return;
    for (int j = 0; j < times; ++j)
      for (const auto& run : block) {
        if (run.rank->timeline.empty()) continue;
        const int first = run.first + j * period;
        for (int rank = first; rank < first + run.count; ++rank) f(*run.rank, rank);
      }
  });
}

/// for_each_rank_block for GPUs (for_each_gpu_run).
template <typename F>
void for_each_gpu_block(const prediction& p, F&& f) {
  if (!p.gpus.empty() || p.classes.empty()) {
    for_each_gpu_run(p, [&](const gpu_run& run) { f(std::span<const gpu_run>(&run, 1), 0, 1); });
    return;
  }
  std::vector<gpu_run> runs;
  for_each_range_block(p, [&](std::span<const rank_range> block) {
    runs.clear();
    for (const auto& r : block) {
      const auto& c = p.classes[r.cls];
      runs.push_back({c.gpu.index + (r.first - c.rank.rank), r.count, &c.gpu});
    }
    const auto& head = block.front();
    f(std::span<const gpu_run>(runs), head.period, head.period > 0 ? head.times : 1);
  });
}

/// How many ranks the prediction holds, in either form.
int rank_count(const prediction& p);

/// Whether it holds any GPU, in either form.
bool has_gpus(const prediction& p);

/// Rank `rank` with its own numbers, in either form; nullopt when the prediction has no such
/// rank.
std::optional<rank_prediction> rank_of(const prediction& p, int rank);

/// GPU `index` with its own numbers, in either form; nullopt when the prediction has no such
/// GPU.
std::optional<gpu_prediction> gpu_of(const prediction& p, int index);

/// The first GPU's capacity (every GPU of a job has the same); 0 without GPUs.
bytes first_gpu_capacity(const prediction& p);

}  // namespace vramscope::predict
