#pragma once
// Helpers of the schedule tests: an exact replay of a program (no allocator) and a job on the
// tiny model of tests/support/tiny_model.hpp.

#include <vramscope/schedule/schedule.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <utility>

#include "support/tiny_model.hpp"

namespace vramscope::schedule {

// The phase of event `e` of `p` (which must hold it): the last phase event at or before it.
inline std::uint32_t phase_of(const program& p, const event& e) {
  for (auto i = static_cast<std::size_t>(&e - p.events.data()) + 1; i-- > 0;)
    if (p.events[i].kind == event_kind::phase) return p.events[i].tensor;
  return 0;
}

inline const std::string& phase_name_of(const program& p, const event& e) {
  return p.phase_names[phase_of(p, e)];
}

// Replays a program exactly (no allocator): live bytes per category, their peak, and checks
// that the program is well formed.
struct exact_replay {
  std::array<bytes, category_count> live{};
  bytes total = 0, peak = 0;
  std::array<bytes, category_count> peak_by_category{};
  std::array<bytes, category_count> training_peak_by_category{};  // phases after init
  bool well_formed = true;

  explicit exact_replay(const program& p) {
    std::map<std::uint32_t, std::pair<bytes, category>> tensors;
    std::uint32_t phase = 0;
    for (const auto& e : p.events) {
      phase = phase_after(e, phase);
      if (e.kind == event_kind::alloc) {
        if (!tensors.emplace(e.tensor, std::make_pair(e.size, e.cat)).second) well_formed = false;
        live[static_cast<std::size_t>(e.cat)] += e.size;
        total += e.size;
        peak = std::max(peak, total);
        for (std::size_t c = 0; c < category_count; ++c) {
          peak_by_category[c] = std::max(peak_by_category[c], live[c]);
          if (phase != 0) training_peak_by_category[c] = std::max(training_peak_by_category[c], live[c]);
        }
      } else if (e.kind == event_kind::free) {
        auto it = tensors.find(e.tensor);
        if (it == tensors.end()) {
          well_formed = false;
          continue;
        }
        live[static_cast<std::size_t>(it->second.second)] -= it->second.first;
        total -= it->second.first;
        tensors.erase(it);
      }
    }
  }
  bytes at(category c) const { return live[static_cast<std::size_t>(c)]; }
  bytes peak_of(category c) const { return peak_by_category[static_cast<std::size_t>(c)]; }
  bytes training_peak_of(category c) const {
    return training_peak_by_category[static_cast<std::size_t>(c)];
  }
};

inline job::job_spec job_of(job::strategy s, int gpus) {
  job::job_spec j;
  j.parallel.kind = s;
  j.hardware.gpus_per_node = gpus;
  j.hardware.capacity = 80_GiB;
  j.training.seq_len = 512;
  return j;
}

inline program build(const job::job_spec& j, int rank = 0) {
  auto p = build_program(testing::tiny_llama(), j, rank);
  EXPECT_TRUE(p) << (p ? "" : p.error().to_string());
  return std::move(*p);
}

}  // namespace vramscope::schedule
