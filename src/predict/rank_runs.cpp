#include <vramscope/predict/rank_runs.hpp>

#include <algorithm>
#include <string>

namespace vramscope::predict {

rank_prediction renumbered(const rank_prediction& r, int rank) {
  rank_prediction out = r;
  out.gpu = r.gpu + (rank - r.rank);
  out.rank = rank;
  return out;
}

namespace {

// "rank 12" followed by nothing or ':' at the start of `what`: the number is the share's rank.
bool begins_with_rank(const std::string& what, int rank, std::size_t& length) {
  const std::string prefix = "rank " + std::to_string(rank);
  if (what.compare(0, prefix.size(), prefix) != 0) return false;
  if (what.size() > prefix.size() && what[prefix.size()] != ':') return false;
  length = prefix.size();
  return true;
}

}  // namespace

gpu_prediction renumbered(const gpu_prediction& g, int index) {
  gpu_prediction out = g;
  const int shift = index - g.index;
  out.index = index;
  if (shift == 0) return out;
  for (auto& proc : out.processes) {
    if (proc.rank < 0) continue;
    std::size_t length = 0;
    if (begins_with_rank(proc.what, proc.rank, length))
      proc.what.replace(0, length, "rank " + std::to_string(proc.rank + shift));
    proc.rank += shift;
  }
  return out;
}

int rank_count(const prediction& p) {
  if (!p.classes.empty() && !p.ranges.empty()) {
    const auto& last = p.ranges.back();  // a block's last range ends where the block does
    return last.first + (last.period > 0 ? (last.times - 1) * last.period : 0) + last.count;
  }
  return static_cast<int>(p.ranks.size());
}

bool has_gpus(const prediction& p) {
  return !p.gpus.empty() || (!p.classes.empty() && !p.ranges.empty());
}

namespace {

bool holds(const rank_range& r, int rank) {
  const int offset = rank - r.first;
  if (offset < 0) return false;
  if (r.period <= 0) return offset < r.count;
  return offset / r.period < r.times && offset % r.period < r.count;
}

// The range of p.ranges that holds `rank`, or null: the last range that begins at or before it,
// or one of its node's block before it (rank_range).
const rank_range* range_holding(const prediction& p, int rank) {
  auto it = std::upper_bound(p.ranges.begin(), p.ranges.end(), rank,
                             [](int k, const rank_range& r) { return k < r.first; });
  while (it != p.ranges.begin()) {
    --it;
    if (holds(*it, rank)) return &*it;
    if (it->period <= 0) return nullptr;  // plain ranges before it end before it begins
  }
  return nullptr;
}

}  // namespace

std::optional<rank_prediction> rank_of(const prediction& p, int rank) {
  if (!p.ranks.empty() || p.classes.empty()) {
    for (const auto& r : p.ranks)
      if (r.rank == rank) return r;
    return std::nullopt;
  }
  const auto* range = range_holding(p, rank);
  if (range == nullptr) return std::nullopt;
  return renumbered(p.classes[range->cls].rank, rank);
}

std::optional<gpu_prediction> gpu_of(const prediction& p, int index) {
  if (!p.gpus.empty() || p.classes.empty()) {
    for (const auto& g : p.gpus)
      if (g.index == index) return g;
    return std::nullopt;
  }
  // A range's ranks run on the GPUs of the same numbers.
  const auto* range = range_holding(p, index);
  if (range == nullptr) return std::nullopt;
  const auto& c = p.classes[range->cls];
  return renumbered(c.gpu, index);
}

bytes first_gpu_capacity(const prediction& p) {
  if (!p.gpus.empty()) return p.gpus.front().capacity;
  if (!p.classes.empty() && !p.ranges.empty()) return p.classes[p.ranges.front().cls].gpu.capacity;
  return 0;
}

}  // namespace vramscope::predict
