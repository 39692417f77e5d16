// statistics_adaptor scopes, tracking_adaptor logs, limiting_adaptor refusals, and the factory.

#include <vramscope/alloc/adaptors.hpp>

#include <gtest/gtest.h>

#include <vramscope/alloc/caching_allocator.hpp>
#include <vramscope/alloc/exact_allocator.hpp>
#include <vramscope/alloc/factory.hpp>

namespace vramscope::alloc {
namespace {

TEST(StatisticsAdaptor, RecordsPeaksPerNestedScope) {
  statistics_adaptor model(make_exact_allocator(1_GiB));
  model.push_scope("step");
  model.push_scope("forward");
  const handle a = model.allocate(10_MiB, 0).id;
  const scope_peaks forward = model.pop_scope();
  EXPECT_EQ(forward.name, "forward");
  EXPECT_EQ(forward.depth, 1u);
  EXPECT_EQ(forward.allocated_peak, 10_MiB);
  EXPECT_EQ(forward.allocations, 1u);

  model.push_scope("backward");
  const handle b = model.allocate(30_MiB, 0).id;
  model.free(a);
  model.free(b);
  const scope_peaks backward = model.pop_scope();
  EXPECT_EQ(backward.allocated_at_entry, 10_MiB);
  EXPECT_EQ(backward.allocated_peak, 40_MiB);
  EXPECT_EQ(backward.reserved_peak, 40_MiB);
  EXPECT_EQ(model.stats().allocated.current, 0u);

  const scope_peaks step = model.pop_scope();
  EXPECT_EQ(step.allocated_peak, 40_MiB) << "a closing scope passes its peak to its parent";
  EXPECT_EQ(step.allocations, 2u);
  EXPECT_EQ(model.closed_scopes().size(), 3u);
  EXPECT_THROW(model.pop_scope(), std::logic_error);
}

TEST(StatisticsAdaptor, MergesRepeatedScopeNames) {
  statistics_adaptor model(make_exact_allocator(100_MiB));
  for (bytes size : {10_MiB, 30_MiB, 20_MiB}) {
    model.push_scope("forward");
    const allocation a = model.allocate(size, 0);
    model.free(a.id);
    model.pop_scope();
  }
  model.push_scope("optimizer");
  EXPECT_FALSE(model.allocate(200_MiB, 0).ok);
  model.pop_scope();
  const auto by_name = model.peaks_by_name();
  ASSERT_EQ(by_name.size(), 2u);
  EXPECT_EQ(by_name.at("forward").allocated_peak, 30_MiB);
  EXPECT_EQ(by_name.at("forward").allocations, 3u);
  EXPECT_EQ(by_name.at("optimizer").ooms, 1u);
}

TEST(TrackingAdaptor, LogsEveryCallWithTheHandlesTheModelReturned) {
  tracking_adaptor model(make_caching_allocator({}));
  const handle a = model.allocate(5_MiB, 0).id;
  model.record_stream(a, 1);
  model.free(a);
  model.complete_stream(1);
  model.empty_cache();
  model.reset_peaks();
  const std::vector<logged_event> expected = {
      {event_op::alloc, 5_MiB, 0, a},   {event_op::record_stream, 0, 1, a},
      {event_op::free, 0, 0, a},        {event_op::complete_stream, 0, 1, 0},
      {event_op::empty_cache, 0, 0, 0}, {event_op::reset_peaks, 0, 0, 0}};
  EXPECT_EQ(model.events(), expected);
  EXPECT_EQ(model.name(), "tracking(torch-caching)");
}

TEST(TrackingAdaptor, ReplayOfTheLogReproducesTheStats) {
  tracking_adaptor recorded(make_caching_allocator({}));
  std::vector<handle> held;
  for (bytes i = 1; i <= 40; ++i) {
    held.push_back(recorded.allocate(i * 700_KiB, static_cast<stream_id>(i % 3)).id);
    if (i % 4 == 0) recorded.record_stream(held[i - 2], 2);
    if (i % 3 == 0) {
      recorded.free(held[i - 3]);
      recorded.complete_stream(2);
    }
  }
  auto parsed = parse_event_csv(to_event_csv(recorded.events()));
  ASSERT_TRUE(parsed) << parsed.error().to_string();
  EXPECT_EQ(*parsed, recorded.events());

  caching_allocator fresh;
  auto summary = replay(*parsed, fresh);
  ASSERT_TRUE(summary) << summary.error().to_string();
  EXPECT_EQ(summary->allocations, 40u);
  const allocator_stats& want = recorded.stats();
  const allocator_stats& got = fresh.stats();
  EXPECT_EQ(got.allocated.peak, want.allocated.peak);
  EXPECT_EQ(got.active.current, want.active.current);
  EXPECT_EQ(got.reserved.peak, want.reserved.peak);
  EXPECT_EQ(got.inactive_split, want.inactive_split);
}

TEST(LimitingAdaptor, RefusesAllocationsBeyondTheLimit) {
  limiting_adaptor model(make_exact_allocator(1_GiB), 25_MiB);
  ASSERT_TRUE(model.allocate(20_MiB, 0).ok);
  const allocation refused = model.allocate(10_MiB, 0);
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(
      refused.oom->message,
      "allocation of 10.0 MiB refused: 30.0 MiB allocated would exceed the limit of 25.0 MiB");
  EXPECT_EQ(model.stats().ooms, 1u);
  EXPECT_EQ(model.stats().allocated.current, 20_MiB);
  EXPECT_EQ(model.stats().device_allocs, 1u) << "the request never reached the model";
}

TEST(LimitingAdaptor, GivesBackABlockLargerThanTheRoomLeft) {
  limiting_adaptor model(make_caching_allocator({}), 11_MiB + 512_KiB);
  const allocation refused = model.allocate(11_MiB, 0);  // takes a whole 12 MiB block
  ASSERT_FALSE(refused.ok);
  EXPECT_EQ(model.stats().allocated.current, 0u);
  EXPECT_EQ(model.stats().reserved.current, 12_MiB) << "the block stays cached in the model";
}

TEST(Factory, BuildsTheModelTheConfigurationNames) {
  EXPECT_EQ(make_caching_allocator({})->name(), "torch-caching");
  caching_allocator_options async;
  async.backend = alloc_backend::cuda_malloc_async;
  async.capacity = 40_GiB;
  const auto model = make_caching_allocator(async);
  EXPECT_EQ(model->name(), "torch-cuda-malloc-async");
  EXPECT_EQ(model->capacity(), 40_GiB);
  EXPECT_EQ(make_exact_allocator(1_GiB)->name(), "exact");
  EXPECT_EQ(make_bfc_allocator(jax_bfc_options(80_GiB))->capacity(), 60_GiB);
}

}  // namespace
}  // namespace vramscope::alloc
