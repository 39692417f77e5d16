// The caching allocator model against allocator histories recorded on a real GPU.
//
// Each log in tests/data/alloc/measured is the history torch recorded for one case of
// bench/matrices/full.yaml (an H200, torch 2.11, 2026-11-26; bench/data/snapshots), converted by
// bench/snapshot/trace_to_events.py. Fed the same requests in the same order, the model must
// end at the peaks torch's memory_stats reported for that run
// (bench/data/repeat/full-h200-of-h100-cases.jsonl), to the byte. Which cached block serves a
// request decides how much the allocator reserves, and ties between equal free blocks go to
// the lowest address: these histories only come out right with segments placed the way the
// CUDA driver places them (each new one below the last).
#include <string>

#include <gtest/gtest.h>

#include <vramscope/alloc/event_log.hpp>
#include <vramscope/alloc/factory.hpp>

namespace vramscope::alloc {
namespace {

struct measured_case {
  const char* name;
  bytes reserved_peak;   // reserved_bytes.all.peak of the run
  bytes allocated_peak;  // allocated_bytes.all.peak of the run
};

class MeasuredTrace : public ::testing::TestWithParam<measured_case> {};

TEST_P(MeasuredTrace, ReplayEndsAtTheMeasuredPeaks) {
  const auto& c = GetParam();
  const std::string path =
      std::string(VRAMSCOPE_SOURCE_DIR) + "/tests/data/alloc/measured/" + c.name + ".csv";
  auto events = read_event_log(path);
  ASSERT_TRUE(events.has_value()) << events.error().message;
  caching_allocator_options options;
  options.capacity = 140_GiB;  // the H200's room: no request of these runs came near it
  auto model = make_caching_allocator(options);
  auto summary = replay(*events, *model, path);
  ASSERT_TRUE(summary.has_value()) << summary.error().message;
  EXPECT_EQ(summary->failed_allocations, 0u);
  EXPECT_EQ(model->stats().allocated.peak, c.allocated_peak);
  EXPECT_EQ(model->stats().reserved.peak, c.reserved_peak);
}

INSTANTIATE_TEST_SUITE_P(
    H200, MeasuredTrace,
    ::testing::Values(measured_case{"ddp-llama1b-fullac", 31'851'544'576, 29'726'688'256},
                      measured_case{"ddp-bf16mixed-sgd", 23'567'794'176, 19'050'085'376},
                      measured_case{"fsdp1-full-limit", 21'242'052'608, 16'080'580'608},
                      measured_case{"fsdp1-full-fp32", 46'133'149'696, 40'777'939'968}),
    [](const auto& info) {
      std::string name = info.param.name;
      for (char& ch : name)
        if (ch == '-') ch = '_';
      return name;
    });

}  // namespace
}  // namespace vramscope::alloc
