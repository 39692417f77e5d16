// Replays a training-like sequence of 100k allocator events (three streams: compute, all-gather,
// reduce-scatter) through every allocator model. The simulator pushes millions of such events
// per plan, so the figure that matters is nanoseconds per event.

#include <benchmark/benchmark.h>

#include <functional>
#include <random>
#include <vector>

#include <vramscope/alloc/factory.hpp>

namespace vramscope::alloc {
namespace {

enum class op : std::uint8_t { alloc, free, record_stream, complete_stream };

struct bench_event {
  op kind;
  stream_id stream;
  std::uint32_t tensor;  // index into the replay's handle table
  bytes size;
};

// Forward: per layer, keep a few activations (freed in backward, LIFO) and drop temporaries at
// once; a parameter all-gather on stream 1 is used by stream 0 (record_stream). Backward: free
// the layer's activations, reduce gradients on stream 2. Sizes mix the small pool (<= 1 MiB),
// 20 MiB segments and large blocks.
std::vector<bench_event> make_events(std::size_t target) {
  std::mt19937_64 rng(7);
  auto size_of = [&rng]() -> bytes {
    const auto kind = rng() % 10;
    if (kind < 5) return 256 + rng() % 1_MiB;
    if (kind < 8) return 1_MiB + rng() % 9_MiB;
    return 10_MiB + rng() % 118_MiB;
  };
  std::vector<bench_event> events;
  std::uint32_t next_tensor = 0;
  auto alloc = [&](stream_id s, bytes n) {
    events.push_back({op::alloc, s, next_tensor, n});
    return next_tensor++;
  };
  auto release = [&](std::uint32_t t) { events.push_back({op::free, 0, t, 0}); };
  while (events.size() < target) {
    std::vector<std::uint32_t> saved;
    for (int layer = 0; layer < 32; ++layer) {
      const std::uint32_t gathered = alloc(1, size_of());
      events.push_back({op::record_stream, 0, gathered, 0});
      for (int i = 0; i < 3; ++i) saved.push_back(alloc(0, size_of()));
      for (int i = 0; i < 4; ++i) release(alloc(0, size_of()));
      release(gathered);  // its event is on stream 0, which finishes the layer next
      events.push_back({op::complete_stream, 0, 0, 0});
    }
    while (!saved.empty()) {
      const std::uint32_t grad = alloc(2, size_of());
      for (int i = 0; i < 3 && !saved.empty(); ++i) {
        release(saved.back());
        saved.pop_back();
      }
      release(alloc(0, size_of()));
      release(grad);
      events.push_back({op::complete_stream, 2, 0, 0});
    }
  }
  return events;
}

const std::vector<bench_event>& events() {
  static const std::vector<bench_event> all = make_events(100'000);
  return all;
}

void replay_events(benchmark::State& state,
                   const std::function<std::unique_ptr<allocator_model>()>& make) {
  const auto& evs = events();
  std::vector<handle> handles(evs.size());
  allocator_stats last;
  for (auto _ : state) {
    state.PauseTiming();
    auto model = make();
    state.ResumeTiming();
    for (const bench_event& e : evs) {
      switch (e.kind) {
        case op::alloc:
          handles[e.tensor] = model->allocate(e.size, e.stream).id;
          break;
        case op::free:
          model->free(handles[e.tensor]);
          break;
        case op::record_stream:
          model->record_stream(handles[e.tensor], e.stream);
          break;
        case op::complete_stream:
          model->complete_stream(e.stream);
          break;
      }
    }
    benchmark::DoNotOptimize(model->stats().reserved.peak);
    state.PauseTiming();
    last = model->stats();
    model.reset();
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(evs.size()));
  state.counters["reserved_peak_GiB"] = static_cast<double>(last.reserved.peak) / (1 << 30);
  state.counters["allocated_peak_GiB"] = static_cast<double>(last.allocated.peak) / (1 << 30);
  state.counters["ooms"] = static_cast<double>(last.ooms);
}

caching_allocator_options torch(bool expandable) {
  caching_allocator_options o;
  o.expandable_segments = expandable;
  return o;
}

void BM_ReplayCaching(benchmark::State& state) {
  replay_events(state, [] { return make_caching_allocator(torch(false)); });
}
void BM_ReplayCachingExpandable(benchmark::State& state) {
  replay_events(state, [] { return make_caching_allocator(torch(true)); });
}
void BM_ReplayCachingMaxSplit(benchmark::State& state) {
  replay_events(state, [] {
    caching_allocator_options o = torch(false);
    o.max_split_size = 64_MiB;
    o.roundup_power2_divisions.fill(4);
    return make_caching_allocator(o);
  });
}
void BM_ReplayExact(benchmark::State& state) {
  replay_events(state, [] { return make_exact_allocator(80_GiB); });
}
void BM_ReplayBfc(benchmark::State& state) {
  replay_events(state, [] { return make_bfc_allocator(jax_bfc_options(80_GiB)); });
}
BENCHMARK(BM_ReplayCaching)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayCachingExpandable)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayCachingMaxSplit)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayExact)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayBfc)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace vramscope::alloc
