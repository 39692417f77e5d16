// Throughput of the what-if engine behind `vramscope fit --try` and `compare --vary`: a grid of
// 1,200 Llama-3.1-8B configurations on one node of 8 H100s (examples/llama-3.1-8b-fsdp2.yaml)
// over strategy x activation checkpointing x sequence length x micro-batch. The job and model
// are loaded once, outside the timed loop, as fit does; each iteration resolves and plans every
// row (what_if::evaluate_all), on all cores or on one, and as `compare` does on all cores (each
// row that does not fit planned again on an unlimited GPU). items_per_second is configurations
// a second. Results and the command are recorded in bench/README.md.

#include <benchmark/benchmark.h>

#include <stdexcept>
#include <string>

#include "cli/axes.hpp"
#include <vramscope/whatif/what_if.hpp>

namespace vramscope::cli {
namespace {

const std::vector<std::string> grid_axes{
    "parallel.strategy=fsdp2,fsdp1,zero3,ddp",
    "training.activation_checkpointing=none,full,selective",
    "training.seq_len=pow2:1024..16384",
    "training.micro_batch=1..20",
};

// need_when_missing: `compare`, which plans each row that does not fit again on a GPU of
// unlimited memory to show what it would need; `fit --try` does not.
void fit_grid(benchmark::State& state, unsigned threads, bool need_when_missing = false) {
  auto engine = whatif::what_if::open(VRAMSCOPE_SOURCE_DIR "/examples/llama-3.1-8b-fsdp2.yaml", {}, "");
  if (!engine) throw std::runtime_error(engine.error().to_string());
  auto axes = parse_axes(grid_axes, "--try");
  if (!axes) throw std::runtime_error(axes.error().to_string());
  const auto rows = combinations(*axes);
  std::size_t fitting = 0;
  for (auto _ : state) {
    fitting = 0;
    for (const auto& r : engine->evaluate_all(rows, "--try", need_when_missing, threads))
      if (r && r->fits) ++fitting;
    benchmark::DoNotOptimize(fitting);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(rows.size()));
  state.counters["configurations"] = static_cast<double>(rows.size());
  state.counters["fitting"] = static_cast<double>(fitting);
}

void BM_FitGridLlama8bAllCores(benchmark::State& state) { fit_grid(state, 0); }
void BM_FitGridLlama8bOneThread(benchmark::State& state) { fit_grid(state, 1); }
void BM_CompareGridLlama8bAllCores(benchmark::State& state) { fit_grid(state, 0, true); }

BENCHMARK(BM_FitGridLlama8bAllCores)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_FitGridLlama8bOneThread)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);
BENCHMARK(BM_CompareGridLlama8bAllCores)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace
}  // namespace vramscope::cli
