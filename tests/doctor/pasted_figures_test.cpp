// Findings from memory figures a user pasted in a log or in prose (observe/memory_figures.hpp),
// read through the same entry point as `explain`: a vLLM engine's share (VLLM001), figures
// labelled with the phase they were taken in (CKPT002), a log's own allocated and reserved
// (FRAG001), nvidia-smi's usage quoted in a sentence (JAX001).
#include <vramscope/core/units.hpp>
#include <vramscope/observe/read_observation.hpp>

#include <gtest/gtest.h>

#include <string>

#include "doctor/oom_facts.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor {
namespace {

observe::observation read(const std::string& text) {
  auto o = observe::parse_observation(text, "paste.txt");
  EXPECT_TRUE(o) << o.error().to_string();
  return o ? std::move(*o) : observe::observation{};
}

const std::string vllm_profile =
    "INFO worker.py:266] the current vLLM instance can use total_gpu_memory (79.10GiB) x gpu_memory_utilization "
    "(0.90) = 71.19GiB\n"
    "INFO worker.py:266] model weights take 15.00GiB; non_torch_memory takes 0.50GiB; PyTorch activation peak "
    "memory takes 2.00GiB; the rest of the memory reserved for KV Cache is 53.69GiB.\n";

TEST(Vllm001, AnEnginesShareThatAnErrorFollowsIsLikely) {
  const auto o = read(vllm_profile + "[rank0]: Traceback (most recent call last):\n");
  doctor_input in;
  in.observed = &o;
  const auto found = rules::vllm_engine_claim(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "other_process");
  EXPECT_DOUBLE_EQ(found[0].likelihood, 0.7);
  EXPECT_EQ(found[0].evidence[0],
            "paste.txt line 1: total 79.10 GiB x gpu_memory_utilization 0.90 = 71.19 GiB claimed by the engine");
  EXPECT_NE(found[0].fix.find("gpu_memory_utilization"), std::string::npos);
  // The same profile with nothing failing after it: a risk, ranked as possible.
  const auto quiet = read(vllm_profile);
  in.observed = &quiet;
  ASSERT_EQ(rules::vllm_engine_claim(in).size(), 1u);
  EXPECT_DOUBLE_EQ(rules::vllm_engine_claim(in)[0].likelihood, 0.5);
}

TEST(Vllm001, TooLittleFreeAtStartIsOtherProcesses) {
  const auto o = read(
      "ValueError: Free memory on device cuda:0 (3.25/23.43 GiB) on startup is less than desired GPU memory "
      "utilization (0.96, 22.49 GiB). Decrease GPU memory utilization or reduce GPU memory used by other "
      "processes.\n");
  doctor_input in;
  in.observed = &o;
  const auto found = rules::vllm_engine_claim(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].level, severity::error);
  EXPECT_DOUBLE_EQ(found[0].likelihood, 0.95);
  ASSERT_TRUE(found[0].saving);
  EXPECT_NEAR(static_cast<double>(*found[0].saving), (23.43 - 3.25) * 1024 * 1024 * 1024, 1e6);
  EXPECT_NE(found[0].fix.find("0.14"), std::string::npos) << found[0].fix;  // 3.25 / 23.43
  const auto ranked = diagnose(in);
  ASSERT_FALSE(ranked.empty());
  EXPECT_EQ(ranked[0].rule, "VLLM001");
}

// Figures a pull request measured right after loading a checkpoint: the load left the cache.
TEST(Ckpt002, FiguresLabelledAfterALoadPlaceTheResume) {
  const auto o = read(
      "| Metric | Before | After |\n|---|---|---|\n| Reserved after load | 14,362 MB | 2,942 MB |\n"
      "| Allocated after load | 2,884 MB | 2,884 MB |\n");
  doctor_input in;
  in.observed = &o;
  const auto found = rules::checkpoint_resume(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(found[0].likelihood, 0.85);
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(14362_MiB - 2884_MiB));
  const auto ranked = diagnose(in);
  ASSERT_GE(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].rule, "CKPT002");
  EXPECT_EQ(ranked[1].rule, "FRAG001");  // the same gap, without the phase
  // Labelled with no phase, the same figures place nothing.
  const auto plain = read("| Metric | Before |\n|---|---|\n| Reserved | 14,362 MB |\n| Allocated | 2,884 MB |\n");
  in.observed = &plain;
  EXPECT_TRUE(rules::checkpoint_resume(in).empty());
}

TEST(PhaseOfLabel, WholeWordsOnly) {
  EXPECT_EQ(phase_of_label("Reserved after load"), oom_phase::checkpoint_resume);
  EXPECT_EQ(phase_of_label("peak while saving"), oom_phase::checkpoint_save);
  EXPECT_EQ(phase_of_label("Validation peak"), oom_phase::eval);
  EXPECT_EQ(phase_of_label("download workload"), oom_phase::unknown);
}

// A training log's own line with only current figures: the gap now is the cache kept.
TEST(Frag001, ALogsCurrentFiguresWeighLikePeaks) {
  const auto o = read("Allocated: 60.93 GB   Reserved (cached by PyTorch): 126.97 GB\n");
  doctor_input in;
  in.observed = &o;
  const auto found = rules::fragmentation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(found[0].likelihood, 0.7);
  EXPECT_EQ(found[0].evidence[0], "paste.txt: reserved 126.97 GiB vs allocated 60.93 GiB");
  // A later column of a before/after table is the outcome of a change, not weighed.
  const auto after = read("| | Before | After |\n|---|---|---|\n| Reserved | 3 GiB | 126 GiB |\n"
                          "| Allocated | 2.9 GiB | 60 GiB |\n");
  in.observed = &after;
  EXPECT_TRUE(rules::fragmentation(in).empty());
}

// nvidia-smi's usage quoted twice in a sentence: a context, then the context plus 0.75 of the
// total at once, on the one GPU the paste shows.
TEST(Jax001, UsageQuotedInProseAtThePoolAfterAContext) {
  const auto o = read("Usage from first SMI call: 426MiB /  81920MiB\nUsage from second SMI call: 61352MiB /  81920MiB\n");
  doctor_input in;
  in.observed = &o;
  const auto found = rules::jax_preallocation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(found[0].likelihood, 0.7);  // possible, + GPU 0 alone, + the context before
  EXPECT_EQ(found[0].evidence[0], "the GPU: 59.91 GiB of 80.00 GiB used (75 %, XLA's 0.75 pool plus a context)");
}

// One GPU at the fraction: GPU 0 alone may be all of a one-GPU machine; GPU 7 alone leaves its
// machine's other GPUs unseen.
TEST(Jax001, OneGpuWeighsByWhetherItCanBeTheWholeMachine) {
  const auto screen = [](int index) {
    return "+-----------------------------------------------------------------------------+\n"
           "| NVIDIA-SMI 470.129.06   Driver Version: 470.129.06   CUDA Version: 11.8     |\n"
           "|-------------------------------+----------------------+----------------------+\n"
           "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
           "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
           "|===============================+======================+======================|\n"
           "|   " + std::to_string(index) + "  Tesla V100-PCIE...  On   | 00000001:00:00.0 Off |                  Off |\n"
           "| N/A   26C    P0    36W / 250W |  12626MiB / 16160MiB |      0%      Default |\n"
           "+-------------------------------+----------------------+----------------------+\n";
  };
  const auto zero = read(screen(0));
  doctor_input in;
  in.observed = &zero;
  ASSERT_EQ(rules::jax_preallocation(in).size(), 1u);
  EXPECT_DOUBLE_EQ(rules::jax_preallocation(in)[0].likelihood, 0.6);
  const auto seven = read(screen(7));
  in.observed = &seven;
  ASSERT_EQ(rules::jax_preallocation(in).size(), 1u);
  EXPECT_DOUBLE_EQ(rules::jax_preallocation(in)[0].likelihood, 0.4);
}

// XLA's client logs its pool's creation: taken up front, the pool is JAX's preallocation; grown
// on demand, it is not.
TEST(Jax001, TheClientsLogLineSaysWhetherThePoolWasTakenUpFront) {
  const auto o = read("I0412 10:00:00.123 gpu_helpers.cc:95] XLA backend allocating 12060000000 bytes on device 0 "
                      "for BFCAllocator.\n");
  ASSERT_EQ(o.xla_pools.size(), 1u);
  doctor_input in;
  in.observed = &o;
  auto found = rules::jax_preallocation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(found[0].likelihood, 0.7);
  EXPECT_EQ(found[0].evidence[0], "paste.txt line 1: XLA's pool of 11.23 GiB on device 0 allocated at creation");
  const auto grown = read("XLA backend will use up to 12060000000 bytes on device 0 for BFCAllocator.\n"
                          "RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4294967296 bytes.\n");
  in.observed = &grown;
  found = rules::jax_preallocation(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_LE(found[0].likelihood, 0.3);
}

// A loop's prints of what stays allocated and each step's peak: level between steps and peaking
// far above it is the step's own working memory (MEM001 without a job); a print of another phase
// that peaks lower does not count, and a level that rises is no such reading.
TEST(Mem001, AStepsOwnPeakOverALevelAllocationIsTheStepsWorkingMemory) {
  const auto o = read(
      "step=0 TRAIN alloc=10 peak=68 GiB\nstep=1 TRAIN alloc=10 peak=74 GiB\n"
      "step=4 VAL   alloc=13 peak=15 GiB\n");
  doctor_input in;
  in.observed = &o;
  const auto found = rules::does_not_fit(in);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "does_not_fit");
  EXPECT_EQ(found[0].evidence[0],
            "paste.txt line 2: 10.00 GiB stays allocated, the step peaks at 74.00 GiB");
  EXPECT_NE(found[0].fix.find("activation checkpointing"), std::string::npos);
  const auto rising = read("step=0 alloc=10 peak=68 GiB\nstep=1 alloc=14 peak=74 GiB\n");
  in.observed = &rising;
  EXPECT_TRUE(rules::does_not_fit(in).empty());
}

}  // namespace
}  // namespace vramscope::doctor
