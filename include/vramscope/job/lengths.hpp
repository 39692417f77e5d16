#pragma once
// Variable-length training: the distribution of sequence lengths a job's steps draw from
// (training.lengths) and the lengths of its steps. Unpacked datasets give every batch its own
// padded length; the caching allocator sees each step's activations at that length, and what it
// reserves for a long step after short ones is what the plan reports (docs/job-spec.md,
// "Variable lengths").

#include <cstdint>
#include <string>
#include <vector>

#include <vramscope/core/result.hpp>
#include <vramscope/job/job_spec.hpp>

namespace vramscope::job {

/// One length and its relative weight (> 0).
struct length_weight {
  std::uint64_t length = 0;
  double weight = 0;
};

/// Where a job's step lengths come from.
struct length_distribution {
  /// Uniform lengths lo..hi (both included) when `weighted` is empty; else unused.
  std::uint64_t lo = 0, hi = 0;
  /// Distinct lengths in ascending order with their weights (buckets, histogram, fixed).
  std::vector<length_weight> weighted;
  /// How many distinct lengths a step may draw.
  [[nodiscard]] std::uint64_t support() const {
    return weighted.empty() ? hi - lo + 1 : weighted.size();
  }
  [[nodiscard]] std::uint64_t shortest() const {
    return weighted.empty() ? lo : weighted.front().length;
  }
  [[nodiscard]] std::uint64_t longest() const {
    return weighted.empty() ? hi : weighted.back().length;
  }
};

/// The job's distribution: fixed (seq_len alone), uniform (seq_len_min..seq_len), buckets
/// (length_buckets, "LENGTH:WEIGHT" each) or histogram (length_file). The histogram file is
/// read here: CSV rows "length,count" (a first row that is not two numbers is a header; blank
/// lines and lines starting with # are skipped) or JSON, an array of [length, count] pairs or
/// of {"length": L, "count": C} objects. A length appearing twice adds its weights. Fails
/// naming the field, or the file and line (JSON: the item) and what was expected.
result<length_distribution> length_distribution_of(const job_spec& job);

/// The lengths of `steps` steps drawn from `d`, the same on every platform for the same seed:
/// SplitMix64 (Steele, Lea and Flood 2014) seeded with `seed` gives one 64-bit value a step;
/// uniform lengths take lo + floor(value x count / 2^64), weighted ones the first length whose
/// cumulative weight exceeds (value / 2^64) x total weight. Requires: d.support() >= 1.
std::vector<std::uint64_t> draw_lengths(const length_distribution& d, int steps,
                                        std::uint64_t seed);

/// "uniform 512..8192", "3 buckets 512..4096", "histogram of 12 lengths 17..2048 (file.csv)",
/// "fixed 2048": the distribution in words for reports.
std::string describe(const length_distribution& d, const job_spec& job);

}  // namespace vramscope::job
