// Snapshots written by CPython's own pickler (bench/snapshot/make_snapshot.py, committed under
// tests/data/observe/ with the figures the generator computed by replaying the full history).
#include <vramscope/observe/observe_json.hpp>
#include <vramscope/observe/torch_snapshot.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <numeric>

#include "observe/observe_data.hpp"

namespace vramscope::observe {
namespace {

using testing::data;
using testing::data_path;

void expect_matches_generator(const std::string& name, int protocol) {
  auto s = analyze_snapshot(data_path(name));
  ASSERT_TRUE(s) << s.error().to_string();
  EXPECT_EQ(s->protocol, protocol);
  const auto expected = nlohmann::json::parse(data(name + ".expected.json"));
  ASSERT_EQ(s->devices.size(), expected["devices"].size());
  for (const auto& e : expected["devices"]) {
    const device_snapshot& d = s->devices.at(e["device"].get<std::size_t>());
    SCOPED_TRACE(name + " device " + std::to_string(d.device));
    EXPECT_EQ(d.trace_entries, e["trace_entries"].get<std::uint64_t>());
    const std::pair<const char*, const trace_peak*> levels[] = {
        {"allocated", &d.peak_allocated}, {"active", &d.peak_active}, {"reserved", &d.peak_reserved}};
    for (const auto& [level, peak] : levels) {
      EXPECT_EQ(peak->value, e[level]["bytes"].get<std::uint64_t>()) << level;
      if (e[level]["trace_index"].is_null()) EXPECT_FALSE(peak->trace_index) << level;
      else EXPECT_EQ(peak->trace_index, e[level]["trace_index"].get<std::uint64_t>()) << level;
    }
    EXPECT_EQ(std::accumulate(d.categories_at_peak.begin(), d.categories_at_peak.end(), bytes{0}),
              d.peak_allocated.value);
    EXPECT_GT(d.categories_at_peak[static_cast<std::size_t>(memory_category::parameters)], 0u);
    EXPECT_GT(d.final_state.segments, 0u);
  }
  snapshot_options generic;
  generic.fast_trace_entries = false;
  auto slow = analyze_snapshot(data_path(name), generic);
  ASSERT_TRUE(slow);
  EXPECT_EQ(to_json(*slow), to_json(*s));
}

TEST(TorchSnapshotCpython, Protocol4WithFramingAndADroppedHead) {
  expect_matches_generator("snapshot_cpython_p4.pickle", 4);
}

TEST(TorchSnapshotCpython, Protocol2WithBinput) { expect_matches_generator("snapshot_cpython_p2.pickle", 2); }

TEST(TorchSnapshotCpython, EveryTruncationIsADiagnosticNeverACrash) {
  const std::string bytes = data("snapshot_cpython_p2.pickle");
  for (std::size_t cut = 0; cut < bytes.size(); cut += 97) {
    auto s = analyze_snapshot_bytes(std::string_view(bytes).substr(0, cut), "cut.pickle");
    ASSERT_FALSE(s) << "cut at " << cut;
    EXPECT_EQ(s.error().message.rfind("at byte offset ", 0), 0u) << s.error().message;
  }
}

}  // namespace
}  // namespace vramscope::observe
