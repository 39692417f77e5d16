// The event log CSV: exact text, the parser's failure cases one by one, and replay errors.

#include <vramscope/alloc/event_log.hpp>

#include <gtest/gtest.h>

#include <vramscope/alloc/exact_allocator.hpp>

namespace vramscope::alloc {
namespace {

TEST(EventLogCsv, WritesHeaderAndOneRowPerEvent) {
  const std::vector<logged_event> events = {{event_op::alloc, 1_MiB, 0, 4294967297},
                                            {event_op::record_stream, 0, 1, 4294967297},
                                            {event_op::free, 0, 0, 4294967297},
                                            {event_op::complete_stream, 0, 1, 0}};
  EXPECT_EQ(to_event_csv(events),
            "op,size,stream,handle\n"
            "alloc,1048576,0,4294967297\n"
            "record_stream,0,1,4294967297\n"
            "free,0,0,4294967297\n"
            "complete_stream,0,1,0\n");
}

TEST(EventLogCsv, ReadsCrlfAndSkipsBlankLines) {
  auto parsed = parse_event_csv("op,size,stream,handle\r\nalloc,512,2,7\r\n\r\nfree,0,0,7\r\n");
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)[0], (logged_event{event_op::alloc, 512, 2, 7}));
}

TEST(EventLogCsv, RejectsMissingHeader) {
  auto parsed = parse_event_csv("alloc,512,0,1\n", "run.csv");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().to_string(),
            "run.csv:1:1: expected the header \"op,size,stream,handle\"\n"
            "alloc,512,0,1\n"
            "^ near here");
}

TEST(EventLogCsv, RejectsRowWithMissingField) {
  auto parsed = parse_event_csv("op,size,stream,handle\nalloc,512,0\n", "run.csv");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().to_string(),
            "run.csv:2:1: expected 4 fields, got 3\n"
            "alloc,512,0\n"
            "^ near here");
}

TEST(EventLogCsv, RejectsUnknownOpWithSuggestion) {
  auto parsed = parse_event_csv("op,size,stream,handle\nallco,512,0,1\n", "run.csv");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().message, "unknown op \"allco\" (did you mean \"alloc\"?)");
}

TEST(EventLogCsv, RejectsFieldThatIsNotANumber) {
  auto parsed = parse_event_csv("op,size,stream,handle\nalloc,1MiB,0,1\n", "run.csv");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().to_string(),
            "run.csv:2:7: size: expected an unsigned number, got \"1MiB\"\n"
            "alloc,1MiB,0,1\n"
            "      ^ near here");
  auto negative = parse_event_csv("op,size,stream,handle\nfree,0,-1,1\n", "run.csv");
  ASSERT_FALSE(negative);
  EXPECT_EQ(negative.error().message, "stream: expected an unsigned number, got \"-1\"");
}

TEST(Replay, FailsOnFreeOfUnknownHandle) {
  exact_allocator model(1_GiB);
  const std::vector<logged_event> events = {{event_op::alloc, 512, 0, 5},
                                            {event_op::free, 0, 0, 6}};
  auto summary = replay(events, model, "run.csv");
  ASSERT_FALSE(summary);
  EXPECT_EQ(summary.error().to_string(),
            "run.csv:3: free of handle 6, which no earlier alloc returned or which was already "
            "freed");
}

TEST(Replay, SkipsEventsOfAllocationsTheModelRefused) {
  exact_allocator model(1_MiB);
  const std::vector<logged_event> events = {{event_op::alloc, 2_MiB, 0, 5},
                                            {event_op::record_stream, 0, 1, 5},
                                            {event_op::free, 0, 0, 5},
                                            {event_op::alloc, 512, 0, 9}};
  auto summary = replay(events, model);
  ASSERT_TRUE(summary) << summary.error().to_string();
  EXPECT_EQ(summary->failed_allocations, 1u);
  EXPECT_EQ(summary->skipped, 2u);
  EXPECT_EQ(summary->allocations, 1u);
  EXPECT_EQ(model.stats().allocated.current, 512u);
}

}  // namespace
}  // namespace vramscope::alloc
