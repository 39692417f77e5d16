// How long predict::plan takes for whole jobs, cold: Llama-3.1-8B on one node of 8 GPUs (FSDP2
// and DDP), the 8B FSDP2 job over 1 and 100 training steps, the 8B job under 4-stage pipeline
// parallelism with 64 micro-batches, Llama-3.1-70B on 64 nodes x 8 GPUs (FSDP2, 512 ranks) and
// the 8B DDP job on 100,000 nodes (800,000 ranks), and that job and one on 62,500 nodes of 16
// GPUs (10^6 ranks) planned as ranges of alike ranks (predict_options::rank_ranges). Models come
// from the preset catalog through model::load_model and jobs from YAML, both once, outside the
// timed loop; loading and parsing have benchmarks of their own, so the time of a whole
// `vramscope plan` is their sum.
//
// Every iteration plans on a thread of its own: the replay keeps each thread's last programs and
// initial phases (predict/replay.cpp), so repeating one job on one thread would time a cache hit
// after the first iteration, not a plan. A fresh thread starts with empty caches, as a `vramscope
// plan` process does; starting it costs some 20 us, under 1 % of the smallest plan here.
// The CPU column is the whole process's (the planning thread's included). The report benchmarks
// render what `vramscope plan` and `plan --json` print from the 10^6-rank plan kept as ranges
// (planned once, outside the loop), as the command does. Results and the command are recorded in
// bench/README.md.

#include <benchmark/benchmark.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

#include <vramscope/job/job_reader.hpp>
#include <vramscope/model/model_spec.hpp>
#include <vramscope/predict/prediction.hpp>
#include <vramscope/report/plan_report.hpp>

namespace vramscope {
namespace {

constexpr const char* llama8b_fsdp2 = R"(model: llama-3.1-8b
hardware: { gpu: H100-80GB, gpus_per_node: 8, nodes: 1 }
parallel: { strategy: fsdp2 }
precision: { params: bf16, master: fp32, reduce: fp32 }
optimizer: adamw
training: { micro_batch: 1, seq_len: 8192, activation_checkpointing: full, attention: flash }
)";

constexpr const char* llama8b_fsdp2_steps1 = R"(model: llama-3.1-8b
hardware: { gpu: H100-80GB, gpus_per_node: 8, nodes: 1 }
parallel: { strategy: fsdp2 }
precision: { params: bf16, master: fp32, reduce: fp32 }
optimizer: adamw
training: { micro_batch: 1, seq_len: 8192, activation_checkpointing: full, attention: flash,
            steps: 1 }
)";

constexpr const char* llama8b_fsdp2_steps100 = R"(model: llama-3.1-8b
hardware: { gpu: H100-80GB, gpus_per_node: 8, nodes: 1 }
parallel: { strategy: fsdp2 }
precision: { params: bf16, master: fp32, reduce: fp32 }
optimizer: adamw
training: { micro_batch: 1, seq_len: 8192, activation_checkpointing: full, attention: flash,
            steps: 100 }
)";

constexpr const char* llama8b_pp4_micro64 = R"(model: llama-3.1-8b
hardware: { gpu: H100-80GB, gpus_per_node: 8, nodes: 1 }
parallel: { strategy: megatron, pp: 4, tp: 2 }
precision: bf16-mixed
optimizer: adamw
training: { micro_batch: 1, seq_len: 4096, activation_checkpointing: full, attention: flash,
            gradient_accumulation: 64, steps: 1 }
)";

constexpr const char* llama8b_ddp = R"(model: llama-3.1-8b
hardware: { gpu: H100-80GB, gpus_per_node: 8, nodes: 1 }
parallel: { strategy: ddp }
precision: bf16-mixed
optimizer: adamw
training: { micro_batch: 1, seq_len: 2048, activation_checkpointing: full, attention: flash }
)";

constexpr const char* llama8b_ddp_ranks800k = R"(model: llama-3.1-8b
hardware: { gpu: H100-80GB, gpus_per_node: 8, nodes: 100000 }
parallel: { strategy: ddp }
precision: bf16-mixed
optimizer: adamw
training: { micro_batch: 1, seq_len: 2048, activation_checkpointing: full, attention: flash }
)";

constexpr const char* llama8b_ddp_ranks1m = R"(model: llama-3.1-8b
hardware: { gpu: H100-80GB, gpus_per_node: 16, nodes: 62500 }
parallel: { strategy: ddp }
precision: bf16-mixed
optimizer: adamw
training: { micro_batch: 1, seq_len: 2048, activation_checkpointing: full, attention: flash }
)";

// The same with each rank's CUDA context created on GPU 0 of its node before set_device:
// GPU 0 of every node holds the node's other ranks' contexts, so it differs from the others.
constexpr const char* llama8b_ddp_ranks1m_gpu0 = R"(model: llama-3.1-8b
hardware: { gpu: H100-80GB, gpus_per_node: 16, nodes: 62500 }
parallel: { strategy: ddp }
precision: bf16-mixed
optimizer: adamw
training: { micro_batch: 1, seq_len: 2048, activation_checkpointing: full, attention: flash }
init: { set_device_first: false }
)";

constexpr const char* llama70b_fsdp2 = R"(model: llama-3.1-70b
hardware: { gpu: H100-80GB, gpus_per_node: 8, nodes: 64 }
parallel: { strategy: fsdp2 }
precision: { params: bf16, master: fp32, reduce: fp32 }
optimizer: adamw
training: { micro_batch: 1, seq_len: 8192, activation_checkpointing: full, attention: flash }
init: { meta_device: true }
)";

template <typename T>
T value_or_throw(result<T> r) {
  if (!r) throw std::runtime_error(r.error().to_string());
  return std::move(r).value();
}

// `ranges`: predict_options::rank_ranges, the ranks as ranges of alike ones (the counter
// "ranges" says how many) instead of one rank_prediction and gpu_prediction each.
void plan_job(benchmark::State& state, const char* yaml, const char* model_name,
              bool ranges = false) {
  const auto model = value_or_throw(model::load_model(model_name));
  const auto job = value_or_throw(job::parse_job_yaml(yaml, "plan_bench"));
  predict::predict_options options;
  options.rank_ranges = ranges;
  std::size_t ranks = 0, range_count = 0;
  std::optional<std::string> failed;
  for (auto _ : state) {
    std::thread cold([&] {
      auto p = predict::plan(model, job, options);
      if (!p) {
        failed = p.error().to_string();
        return;
      }
      ranks = static_cast<std::size_t>(p->job.world_size());
      range_count = p->ranges.size();
      benchmark::DoNotOptimize(p->fits);
    });
    cold.join();
    if (failed) {
      state.SkipWithError(failed->c_str());
      return;
    }
  }
  state.counters["ranks"] = static_cast<double>(ranks);
  state.counters["ranges"] = static_cast<double>(range_count);
}

void BM_PlanLlama8bFsdp2Ranks8(benchmark::State& state) {
  plan_job(state, llama8b_fsdp2, "llama-3.1-8b");
}
void BM_PlanLlama8bFsdp2Steps1(benchmark::State& state) {
  plan_job(state, llama8b_fsdp2_steps1, "llama-3.1-8b");
}
void BM_PlanLlama8bFsdp2Steps100(benchmark::State& state) {
  plan_job(state, llama8b_fsdp2_steps100, "llama-3.1-8b");
}
void BM_PlanLlama8bPp4Micro64(benchmark::State& state) {
  plan_job(state, llama8b_pp4_micro64, "llama-3.1-8b");
}
void BM_PlanLlama8bDdpRanks8(benchmark::State& state) {
  plan_job(state, llama8b_ddp, "llama-3.1-8b");
}
void BM_PlanLlama8bDdpRanks800k(benchmark::State& state) {
  plan_job(state, llama8b_ddp_ranks800k, "llama-3.1-8b");
}
void BM_PlanLlama8bDdpRanks800kAsRanges(benchmark::State& state) {
  plan_job(state, llama8b_ddp_ranks800k, "llama-3.1-8b", true);
}
void BM_PlanLlama8bDdpRanks1mAsRanges(benchmark::State& state) {
  plan_job(state, llama8b_ddp_ranks1m, "llama-3.1-8b", true);
}
void BM_PlanLlama8bDdpRanks1mGpu0AsRanges(benchmark::State& state) {
  plan_job(state, llama8b_ddp_ranks1m_gpu0, "llama-3.1-8b", true);
}
void BM_PlanLlama70bFsdp2Ranks512(benchmark::State& state) {
  plan_job(state, llama70b_fsdp2, "llama-3.1-70b");
}

// `json`: plan_json(...).dump(2), else render_plan_text, of a 10^6-rank DDP plan as ranges.
void report_job(benchmark::State& state, bool json, const char* yaml = llama8b_ddp_ranks1m) {
  const auto model = value_or_throw(model::load_model("llama-3.1-8b"));
  const auto job = value_or_throw(job::parse_job_yaml(yaml, "plan_bench"));
  predict::predict_options options;
  options.rank_ranges = true;
  auto p = value_or_throw(predict::plan(model, job, options));
  predict::fill_whole_step_need(model, job, p);
  std::size_t size = 0;
  for (auto _ : state) {
    const auto text = json ? report::plan_json(p).dump(2) : report::render_plan_text(p);
    size = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["bytes"] = static_cast<double>(size);
}

void BM_ReportTextDdpRanks1m(benchmark::State& state) { report_job(state, false); }
void BM_ReportJsonDdpRanks1m(benchmark::State& state) { report_job(state, true); }
void BM_ReportTextDdpRanks1mGpu0(benchmark::State& state) {
  report_job(state, false, llama8b_ddp_ranks1m_gpu0);
}
void BM_ReportJsonDdpRanks1mGpu0(benchmark::State& state) {
  report_job(state, true, llama8b_ddp_ranks1m_gpu0);
}

void BM_LoadModelLlama70b(benchmark::State& state) {
  for (auto _ : state) {
    auto m = model::load_model("llama-3.1-70b");
    benchmark::DoNotOptimize(m.has_value());
  }
}

void BM_ParseJobLlama70b(benchmark::State& state) {
  for (auto _ : state) {
    auto j = job::parse_job_yaml(llama70b_fsdp2, "plan_bench");
    benchmark::DoNotOptimize(j.has_value());
  }
}

BENCHMARK(BM_PlanLlama8bFsdp2Ranks8)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_PlanLlama8bFsdp2Steps1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_PlanLlama8bFsdp2Steps100)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_PlanLlama8bPp4Micro64)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_PlanLlama8bDdpRanks8)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_PlanLlama8bDdpRanks800k)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_PlanLlama8bDdpRanks800kAsRanges)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_PlanLlama8bDdpRanks1mAsRanges)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_PlanLlama8bDdpRanks1mGpu0AsRanges)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_PlanLlama70bFsdp2Ranks512)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(BM_ReportTextDdpRanks1m)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_ReportJsonDdpRanks1m)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_ReportTextDdpRanks1mGpu0)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_ReportJsonDdpRanks1mGpu0)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_LoadModelLlama70b)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ParseJobLlama70b)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace vramscope
