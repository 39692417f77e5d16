// The streaming replay against a brute-force one: random allocation histories, of which the
// snapshot keeps only the tail (as the ring buffer does), must give the same peaks, positions
// and blocks live at the peak as replaying the whole history with full knowledge.
#include <vramscope/observe/torch_snapshot.hpp>

#include <vramscope/observe/observe_json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "observe/snapshot_fixtures.hpp"

namespace vramscope::observe {
namespace {

using testing::snapshot_maker;

bytes rounded(bytes s) { return s < 512 ? 512 : (s + 511) / 512 * 512; }

struct step {
  const char* action;
  std::uint64_t addr;
  bytes size;
};

struct block_info {
  bytes size;
  bool pending;
  std::size_t alloc_at;  // position in the full history
};

struct expected_peak {
  bytes value = 0;
  std::optional<std::uint64_t> index;  // in the window; empty: before its first entry
  std::vector<std::tuple<std::uint64_t, vramscope::bytes, std::optional<std::uint64_t>>> live;  // allocated level
};

struct history {
  std::vector<step> steps;
  std::map<std::uint64_t, block_info> final_blocks;
};

history random_history(std::uint64_t seed, std::size_t length) {
  std::mt19937_64 rng(seed);
  history h;
  std::map<std::uint64_t, block_info> blocks;
  std::vector<std::uint64_t> free_addrs;
  for (std::uint64_t k = 0; k < 400; ++k) free_addrs.push_back(0x7f0000000000 + k * 0x100000);
  auto pick = [&](bool pending) -> std::optional<std::uint64_t> {
    std::vector<std::uint64_t> c;
    for (const auto& [a, b] : blocks) if (b.pending == pending) c.push_back(a);
    if (c.empty()) return std::nullopt;
    return c[rng() % c.size()];
  };
  while (h.steps.size() < length) {
    const auto r = rng() % 100;
    if (r < 45 && !free_addrs.empty()) {
      const std::size_t i = rng() % free_addrs.size();
      const std::uint64_t a = free_addrs[i];
      free_addrs.erase(free_addrs.begin() + static_cast<std::ptrdiff_t>(i));
      const bytes size = 1 + rng() % 200000;
      blocks[a] = {size, false, h.steps.size()};
      h.steps.push_back({"alloc", a, size});
    } else if (r < 75) {
      if (auto a = pick(false)) {
        blocks[*a].pending = true;
        h.steps.push_back({"free_requested", *a, blocks[*a].size});
      }
    } else if (auto a = pick(true)) {
      h.steps.push_back({"free_completed", *a, blocks[*a].size});
      blocks.erase(*a);
      free_addrs.push_back(*a);
    }
  }
  h.final_blocks = blocks;
  return h;
}

// Levels after each step of the full history; the window starts after `cut` steps.
expected_peak brute_force(const history& h, std::size_t cut, bool active) {
  std::map<std::uint64_t, block_info> live;
  expected_peak best;
  bool have = false;
  for (std::size_t i = 0; i <= h.steps.size(); ++i) {
    if (i > 0) {
      const step& s = h.steps[i - 1];
      if (std::string_view(s.action) == "alloc") live[s.addr] = {rounded(s.size), false, i - 1};
      else if (std::string_view(s.action) == "free_requested") live[s.addr].pending = true;
      else live.erase(s.addr);
    }
    if (i < cut) continue;
    bytes level = 0;
    for (const auto& [a, b] : live) if (active || !b.pending) level += b.size;
    if (have && level <= best.value) continue;
    have = true;
    best.value = level;
    best.index = i == cut ? std::nullopt : std::optional<std::uint64_t>(i - 1 - cut);
    best.live.clear();
    for (const auto& [a, b] : live)
      if (!b.pending)
        best.live.emplace_back(a, b.size, b.alloc_at >= cut ? std::optional<std::uint64_t>(b.alloc_at - cut) : std::nullopt);
  }
  return best;
}

std::string snapshot_of(const history& h, std::size_t cut, int protocol) {
  snapshot_maker m;
  for (std::size_t i = cut; i < h.steps.size(); ++i) m.event(0, h.steps[i].action, h.steps[i].addr, h.steps[i].size);
  for (const auto& [a, b] : h.final_blocks)
    m.segment(0, a, rounded(b.size),
              {m.block(rounded(b.size), b.size, b.pending ? "active_pending_free" : "active_allocated")});
  return m.bytes(protocol);
}

class RandomHistory : public ::testing::TestWithParam<std::uint64_t> {};

TEST_P(RandomHistory, StreamingReplayMatchesBruteForce) {
  const history h = random_history(GetParam(), 1200);
  const std::size_t cut = GetParam() % 3 == 0 ? 0 : static_cast<std::size_t>(GetParam() * 37 % 600);
  snapshot_options options;
  options.top_allocations = 100000;
  const std::string bytes = snapshot_of(h, cut, 2 + static_cast<int>(GetParam() % 4));
  auto s = analyze_snapshot_bytes(bytes, "random.pickle", options);
  ASSERT_TRUE(s) << s.error().to_string();
  ASSERT_EQ(s->devices.size(), 1u);
  const device_snapshot& d = s->devices[0];

  const expected_peak allocated = brute_force(h, cut, false);
  EXPECT_EQ(d.peak_allocated.value, allocated.value);
  EXPECT_EQ(d.peak_allocated.trace_index, allocated.index);
  std::vector<std::tuple<std::uint64_t, vramscope::bytes, std::optional<std::uint64_t>>> got;
  for (const auto& a : d.top_allocations) got.emplace_back(a.address, a.size, a.trace_index);
  std::sort(got.begin(), got.end());
  auto want = allocated.live;
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
  EXPECT_EQ(d.allocations_at_peak, want.size());

  const expected_peak active = brute_force(h, cut, true);
  EXPECT_EQ(d.peak_active.value, active.value);
  EXPECT_EQ(d.peak_active.trace_index, active.index);

  // The generic path alone reads the same snapshot to the same summary.
  options.fast_trace_entries = false;
  auto generic = analyze_snapshot_bytes(bytes, "random.pickle", options);
  ASSERT_TRUE(generic);
  EXPECT_EQ(to_json(*generic), to_json(*s));
}

// The timeline keeps at most timeline_points stretches and loses no peak: its highest point is
// the allocated peak whenever the peak lies inside the trace, and no point is above it.
TEST_P(RandomHistory, TimelineKeepsThePeakInAFewPoints) {
  const history h = random_history(GetParam(), 1200);
  const std::size_t cut = GetParam() % 3 == 0 ? 0 : static_cast<std::size_t>(GetParam() * 37 % 600);
  snapshot_options options;
  options.timeline_points = 16;
  const std::string data = snapshot_of(h, cut, 4);
  auto s = analyze_snapshot_bytes(data, "random.pickle", options);
  ASSERT_TRUE(s) << s.error().to_string();
  const device_snapshot& d = s->devices[0];
  ASSERT_FALSE(d.timeline.empty());
  EXPECT_LE(d.timeline.size(), 16u);
  EXPECT_GE(d.timeline.size(), 8u);  // halving only when full
  vramscope::bytes highest = 0;
  for (std::size_t i = 0; i < d.timeline.size(); ++i) {
    if (i > 0) {
      EXPECT_GT(d.timeline[i].first_entry, d.timeline[i - 1].first_entry);
    }
    EXPECT_LE(d.timeline[i].allocated, d.peak_allocated.value);
    highest = std::max(highest, d.timeline[i].allocated);
  }
  EXPECT_EQ(d.timeline.front().first_entry, 0u);
  if (d.peak_allocated.trace_index) {
    EXPECT_EQ(highest, d.peak_allocated.value);
  }
  options.fast_trace_entries = false;  // the generic path draws the same timeline
  auto generic = analyze_snapshot_bytes(data, "random.pickle", options);
  ASSERT_TRUE(generic);
  ASSERT_EQ(generic->devices[0].timeline.size(), d.timeline.size());
  for (std::size_t i = 0; i < d.timeline.size(); ++i)
    EXPECT_EQ(generic->devices[0].timeline[i].allocated, d.timeline[i].allocated);
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomHistory, ::testing::Range<std::uint64_t>(1, 41));

}  // namespace
}  // namespace vramscope::observe
