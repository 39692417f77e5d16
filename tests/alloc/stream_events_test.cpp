// stream_events: the per-stream event FIFOs every model polls at each allocation. A poll does
// nothing until a complete() finds events to finish, and then takes exactly those.

#include "alloc/stream_events.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace vramscope::alloc::detail {
namespace {

std::vector<std::uint32_t> poll(stream_events& events) {
  std::vector<std::uint32_t> done;
  events.poll([&done](std::uint32_t block) { done.push_back(block); });
  return done;
}

TEST(StreamEvents, PollTakesOnlyEventsRecordedBeforeTheCompletion) {
  stream_events events;
  events.record(1, 10);
  EXPECT_TRUE(poll(events).empty()) << "not complete yet";
  events.complete(1);
  events.record(1, 11);  // after the completion: still running
  EXPECT_EQ(poll(events), std::vector<std::uint32_t>{10});
  EXPECT_TRUE(poll(events).empty());
  EXPECT_FALSE(events.empty());
  events.complete(1);
  EXPECT_EQ(poll(events), std::vector<std::uint32_t>{11});
  EXPECT_TRUE(events.empty());
}

TEST(StreamEvents, CompletingAStreamWithNothingPendingReadiesNothingLater) {
  stream_events events;
  events.record(2, 20);
  events.complete(1);  // unknown stream
  events.complete(2);
  EXPECT_EQ(poll(events), std::vector<std::uint32_t>{20});
  events.complete(2);  // nothing pending
  events.record(2, 21);
  EXPECT_TRUE(poll(events).empty()) << "recorded after the last completion";
}

TEST(StreamEvents, PollGoesThroughEveryStreamInOrder) {
  stream_events events;
  events.record(3, 30);
  events.record(1, 10);
  events.record(3, 31);
  events.record(2, 20);
  events.complete(3);
  events.complete(1);
  EXPECT_EQ(poll(events), (std::vector<std::uint32_t>{10, 30, 31}));
  std::vector<std::uint32_t> drained;
  events.drain([&drained](std::uint32_t block) { drained.push_back(block); });
  EXPECT_EQ(drained, std::vector<std::uint32_t>{20});
  EXPECT_TRUE(events.empty());
  EXPECT_TRUE(poll(events).empty());
}

}  // namespace
}  // namespace vramscope::alloc::detail
