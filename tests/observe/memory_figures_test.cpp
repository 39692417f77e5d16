// Memory figures pasted in a log or in prose (observe/memory_figures.hpp): each form read to
// the figures it gives, and lines that give none left alone.
#include <gtest/gtest.h>

#include <vramscope/observe/read_observation.hpp>

#include "observe/memory_figures.hpp"

namespace vramscope::observe {
namespace {

using detail::find_memory_figures;

// A training script's own line, as cosmos-rl's pull request #388 pasted it.
TEST(MemoryFigures, ReadsATrainingLogsAllocatedAndReservedLine) {
  const auto f = find_memory_figures(
      "  - Before\n"
      "  Allocated (real tensor memory): 60.93 GB     Reserved  (cached by PyTorch): 126.97 GB     Max reserved "
      "this process ever: 126.97 GB\n"
      "  pynvml info: (pid 752970: 128.88 GiB)\n",
      "stats.txt");
  ASSERT_EQ(f.stats.size(), 1u);
  const auto& s = f.stats[0];
  EXPECT_EQ(s.origin, stats_origin::log_figures);
  EXPECT_EQ(s.allocated.current, static_cast<bytes>(60.93 * 1024 * 1024 * 1024 + 0.5));
  EXPECT_EQ(s.reserved.current, static_cast<bytes>(126.97 * 1024 * 1024 * 1024 + 0.5));
  EXPECT_EQ(s.reserved.peak, s.reserved.current);
  EXPECT_FALSE(s.allocated.peak);
  EXPECT_EQ(s.label, "Before");
  EXPECT_TRUE(f.gpus.empty());
}

// Peak active and peak reserved on two lines, as an FSDP benchmark in a pull request gives them
// (tests/data/threads 152): active stands where no allocated figure is given; a label naming
// active beside another figure ("active - allocated") is a difference, no figure.
TEST(MemoryFigures, ReadsActiveFiguresBesideReserved) {
  const auto f = find_memory_figures(
      "For my AWS setup with 4 40 GB A100 GPUs:\n"
      "- With `limit_all_gathers=False`:\n"
      "    - Peak active: 25.86 GB\n"
      "    - Peak reserved: 32.67 GB\n",
      "stats.txt");
  ASSERT_EQ(f.stats.size(), 1u);
  const auto& s = f.stats[0];
  EXPECT_EQ(s.active.peak, static_cast<bytes>(25.86 * 1024 * 1024 * 1024 + 0.5));
  EXPECT_EQ(s.reserved.peak, static_cast<bytes>(32.67 * 1024 * 1024 * 1024 + 0.5));
  EXPECT_FALSE(s.allocated.peak);
  EXPECT_FALSE(s.allocated.current);
  const auto diff = find_memory_figures("active - allocated: 2.5 GB\nreserved: 9.0 GB\n", "d.txt");
  EXPECT_TRUE(diff.stats.empty());
}

// A figure printed under one label each step is a series, a step number in the label aside;
// figures under different labels, and a label seen twice, are not.
TEST(MemoryFigures, ReadsAFigurePrintedEachStepAsASeries) {
  const auto f = find_memory_figures(
      "epoch 1 GPU max memory allocated: 0.5 GB\n"
      "loss 0.31\n"
      "epoch 2 GPU max memory allocated: 1.5 GB\n"
      "Step 7: 2.0 GiB\n"
      "epoch 3 GPU max memory allocated: 2.5 GB\n"
      "Step 8: 2.0 GiB\n",
      "log.txt");
  ASSERT_EQ(f.series.size(), 1u);
  const auto& s = f.series[0];
  EXPECT_EQ(s.label, "epoch 1 GPU max memory allocated:");
  ASSERT_EQ(s.points.size(), 3u);
  EXPECT_EQ(s.points[0], (std::pair<int, bytes>{1, 512_MiB}));
  EXPECT_EQ(s.points[2], (std::pair<int, bytes>{5, 2560_MiB}));
  EXPECT_EQ(s.source, "log.txt");
  EXPECT_FALSE(f.empty());
}

// deepspeed/runtime/utils.py see_memory_usage: MA, Max_MA, CA in GB to two decimals, Max_CA whole.
TEST(MemoryFigures, ReadsDeepSpeedsSeeMemoryUsage) {
  const auto f = find_memory_figures(
      "[2024-05-01 10:00:00,000] [INFO] [utils.py:791:see_memory_usage] After forward\n"
      "[2024-05-01 10:00:00,001] [INFO] [utils.py:792:see_memory_usage] MA 1.5 GB         Max_MA 2.25 GB         "
      "CA 3.0 GB         Max_CA 4 GB \n"
      "[2024-05-01 10:00:00,002] [INFO] [utils.py:799:see_memory_usage] CPU Virtual Memory:  used = 22.5 GB, "
      "percent = 18.0%\n",
      "ds.log");
  ASSERT_EQ(f.stats.size(), 1u);
  EXPECT_EQ(f.stats[0].allocated.current, 1536_MiB);
  EXPECT_EQ(f.stats[0].allocated.peak, 2304_MiB);
  EXPECT_EQ(f.stats[0].reserved.current, 3_GiB);
  EXPECT_EQ(f.stats[0].reserved.peak, 4_GiB);
  EXPECT_TRUE(f.gpus.empty());  // the CPU line is no GPU's
}

// A pull request's before/after table (prime-rl #2154): one entry per column, the later one the
// outcome of the change; rows of differences and deltas name no figure.
TEST(MemoryFigures, ReadsABeforeAfterTable) {
  const auto f = find_memory_figures(
      "| Metric | Before | After |\n"
      "|---|---|---|\n"
      "| Reserved after load | 14,362 MB | 2,942 MB |\n"
      "| Allocated after load | 2,884 MB | 2,884 MB |\n"
      "| **Wasted (reserved − allocated)** | **11,478 MB** | **58 MB** |\n"
      "| Spike from baseline | 11,420 MB | 0 MB |\n",
      "table.md");
  ASSERT_EQ(f.stats.size(), 2u);
  EXPECT_EQ(f.stats[0].reserved.current, 14362_MiB);
  EXPECT_EQ(f.stats[0].allocated.current, 2884_MiB);
  EXPECT_FALSE(f.stats[0].after_change);
  EXPECT_EQ(f.stats[0].label, "Before (Reserved after load; Allocated after load)");
  EXPECT_EQ(f.stats[1].reserved.current, 2942_MiB);
  EXPECT_TRUE(f.stats[1].after_change);
}

// Columns that are not a before/after comparison (one per rank) are each an observation.
TEST(MemoryFigures, ATableOfRanksIsNoComparison) {
  const auto f = find_memory_figures(
      "| | rank 0 | rank 1 |\n|:--|--:|--:|\n| max allocated | 10 GiB | 9 GiB |\n| max reserved | 12 GiB | 11 GiB |\n",
      "t.md");
  ASSERT_EQ(f.stats.size(), 2u);
  EXPECT_FALSE(f.stats[1].after_change);
  EXPECT_EQ(f.stats[1].allocated.peak, 9_GiB);
}

// nvidia-smi's usage cell quoted in a sentence (neural-tangents #204): a GPU reading without index.
TEST(MemoryFigures, ReadsUsageQuotedInProse) {
  const auto f = find_memory_figures(
      "Usage from first SMI call: 426MiB /  81920MiB\nUsage from second SMI call: 61352MiB /  81920MiB\n", "smi.txt");
  ASSERT_EQ(f.gpus.size(), 2u);
  EXPECT_EQ(f.gpus[0].used, 426_MiB);
  EXPECT_EQ(f.gpus[1].used, 61352_MiB);
  EXPECT_EQ(f.gpus[1].total, 81920_MiB);
  EXPECT_FALSE(f.gpus[1].index);
  // A host's memory in the same shape is no GPU's.
  EXPECT_TRUE(find_memory_figures("CPU RAM: 12 GiB / 64 GiB\n", "x").gpus.empty());
}

// gpustat's row gives its GPU's index and leaves the used figure's unit to the total; a
// download's progress in the same shape is no GPU's.
TEST(MemoryFigures, ReadsGpustatsRowAndUnitlessUsage) {
  const auto f = find_memory_figures(
      "[1] NVIDIA A100-SXM4-80GB | 34'C,   0 % | 61352 / 81920 MB | alice(61000M)\n"
      "Task manager: dedicated GPU memory 7.5/8.0 GB\n"
      "model.safetensors: 100%|##########| 4.9GB/4.9GB\n",
      "gpustat.txt");
  ASSERT_EQ(f.gpus.size(), 2u);
  EXPECT_EQ(f.gpus[0].index, 1);
  EXPECT_EQ(f.gpus[0].used, 61352_MiB);
  EXPECT_EQ(f.gpus[0].total, 81920_MiB);
  EXPECT_FALSE(f.gpus[1].index);
  EXPECT_EQ(f.gpus[1].used, 7680_MiB);
}

// A script printing allocated and reserved on two lines: one entry of both.
TEST(MemoryFigures, JoinsAllocatedAndReservedPrintedOnConsecutiveLines) {
  const auto f = find_memory_figures("after step 3\nmemory allocated: 10.5 GiB\nmemory reserved: 14.0 GiB\n", "x");
  ASSERT_EQ(f.stats.size(), 1u);
  EXPECT_EQ(f.stats[0].allocated.current, 10_GiB + 512_MiB);
  EXPECT_EQ(f.stats[0].reserved.current, 14_GiB);
  EXPECT_EQ(f.stats[0].label, "after step 3");
  EXPECT_TRUE(f.unread.empty());
}

// TensorFlow 1's device at its start, over several lines, and the later one-line form.
TEST(MemoryFigures, ReadsTensorflowsDeviceAtItsStart) {
  const auto f = find_memory_figures(
      "I tensorflow/core/common_runtime/gpu/gpu_device.cc:885] Found device 1 with properties: \n"
      "name: GeForce GTX 1080\nmajor: 6 minor: 1 memoryClockRate (GHz) 1.7335\npciBusID 0000:01:00.0\n"
      "Total memory: 7.92GiB\nFree memory: 190.31MiB\n"
      "2018-01-01 I gpu_device.cc:1030] Found device 0 with properties: name: Tesla K80 major: 3 minor: 7 "
      "memoryClockRate(GHz): 0.8235 pciBusID: 0000:00:04.0 totalMemory: 11.17GiB freeMemory: 11.10GiB\n",
      "tf.log");
  ASSERT_EQ(f.devices_at_start.size(), 2u);
  EXPECT_EQ(f.devices_at_start[0].index, 1);
  EXPECT_EQ(f.devices_at_start[0].total, static_cast<bytes>(7.92 * 1024 * 1024 * 1024 + 0.5));
  EXPECT_EQ(f.devices_at_start[0].used, static_cast<bytes>(7.92 * 1024 * 1024 * 1024 + 0.5) -
                                            static_cast<bytes>(190.31 * 1024 * 1024 + 0.5));
  EXPECT_EQ(f.devices_at_start[1].index, 0);
  EXPECT_TRUE(f.gpus.empty());
}

// vLLM's start-up profile (worker.py), then the error it ends in (TRL #2688).
TEST(MemoryFigures, ReadsVllmsProfile) {
  const auto f = find_memory_figures(
      "INFO 01-30 05:50:16 worker.py:266] Memory profiling takes 3.26 seconds\n"
      "INFO 01-30 05:50:16 worker.py:266] the current vLLM instance can use total_gpu_memory (79.10GiB) x "
      "gpu_memory_utilization (0.90) = 71.19GiB\n"
      "INFO 01-30 05:50:16 worker.py:266] model weights take 12.50GiB; non_torch_memory takes 0.20GiB; PyTorch "
      "activation peak memory takes 1.25GiB; the rest of the memory reserved for KV Cache is 57.24GiB.\n"
      "[rank0]: Traceback (most recent call last):\n",
      "vllm.log");
  ASSERT_EQ(f.vllm.size(), 1u);
  const auto& v = f.vllm[0];
  EXPECT_EQ(v.line, 2);
  EXPECT_EQ(v.total, static_cast<bytes>(79.10 * 1024 * 1024 * 1024 + 0.5));
  ASSERT_TRUE(v.utilization);
  EXPECT_DOUBLE_EQ(*v.utilization, 0.90);
  EXPECT_EQ(v.claimed, static_cast<bytes>(71.19 * 1024 * 1024 * 1024 + 0.5));
  EXPECT_EQ(v.weights, static_cast<bytes>(12.5 * 1024 * 1024 * 1024));
  EXPECT_EQ(v.activation_peak, static_cast<bytes>(1.25 * 1024 * 1024 * 1024));
  EXPECT_EQ(v.kv_cache, static_cast<bytes>(57.24 * 1024 * 1024 * 1024 + 0.5));
  EXPECT_TRUE(v.error_after);
  EXPECT_TRUE(f.stats.empty());
}

// The v1 engine's start-up check (gpu_worker.py): free and total share the unit printed once.
TEST(MemoryFigures, ReadsVllmsStartupRefusal) {
  const auto f = find_memory_figures(
      "ValueError: Free memory on device cuda:0 (7.34/15.49 GiB) on startup is less than desired GPU memory "
      "utilization (0.8, 12.39 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.\n",
      "v.log");
  ASSERT_EQ(f.vllm.size(), 1u);
  const auto& v = f.vllm[0];
  EXPECT_EQ(v.total, static_cast<bytes>(15.49 * 1024 * 1024 * 1024 + 0.5));
  ASSERT_TRUE(v.free_at_start);
  EXPECT_NEAR(static_cast<double>(*v.free_at_start), 7.34 * 1024 * 1024 * 1024, 1024.0);
  EXPECT_DOUBLE_EQ(v.utilization.value_or(0), 0.8);
  EXPECT_EQ(v.claimed, static_cast<bytes>(12.39 * 1024 * 1024 * 1024 + 0.5));
}

// The same check wrapped over two lines (a CI log's width) is read as the one line vLLM printed.
TEST(MemoryFigures, ReadsVllmsStartupRefusalWrappedOverTwoLines) {
  const auto f = find_memory_figures(
      "ValueError: Free memory on device cuda:0 (24.68/255.98 GiB) on startup is less than\n"
      "desired GPU memory utilization (0.9, 230.39 GiB).\n",
      "v.log");
  ASSERT_EQ(f.vllm.size(), 1u);
  const auto& v = f.vllm[0];
  ASSERT_TRUE(v.free_at_start);
  EXPECT_NEAR(static_cast<double>(*v.free_at_start), 24.68 * 1024 * 1024 * 1024, 1024.0);
  EXPECT_DOUBLE_EQ(v.utilization.value_or(0), 0.9);
  EXPECT_EQ(v.claimed, static_cast<bytes>(230.39 * 1024 * 1024 * 1024 + 0.5));
}

// An out-of-memory message's figures are its reader's; one figure alone says nothing of the cache.
TEST(MemoryFigures, LeavesMessagesAndLoneFiguresAlone) {
  const auto f = find_memory_figures(
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 12.00 MiB. GPU 0 has a total capacity of "
      "8.00 GiB of which 0 bytes is free.\n"
      "Of the allocated memory 14.33 GiB is allocated by PyTorch, and 162.40 MiB is reserved by PyTorch but "
      "unallocated.\n"
      "Allocated: 3 GB\n",
      "x.log");
  EXPECT_TRUE(f.empty());
  // A known label alone is quoted with what it lacks, not as a label the reader does not know.
  EXPECT_TRUE(f.unread.empty());
  ASSERT_EQ(f.lone.size(), 1u);
  EXPECT_EQ(f.lone[0], "3: Allocated: 3 GB (allocated without reserved)");
  EXPECT_EQ(find_memory_figures("Peak reserved: 32.67 GB\n", "x.log").lone,
            std::vector<std::string>{
                "1: Peak reserved: 32.67 GB (reserved without allocated or active)"});
  // Halves on consecutive lines are joined: neither is quoted.
  const auto joined =
      find_memory_figures("Peak active: 25.86 GB\nPeak reserved: 32.67 GB\n", "x.log");
  EXPECT_EQ(joined.stats.size(), 1u);
  EXPECT_TRUE(joined.lone.empty());
}

// The refusal of a paste of one figure says which figure it read and what it lacks.
TEST(MemoryFigures, ARefusalOfOneFigureNamesItsMissingPartner) {
  const auto o = parse_observation("step 10 Allocated: 20.5 GB\n", "notes.txt");
  ASSERT_FALSE(o);
  const std::string m = o.error().to_string();
  EXPECT_NE(m.find("memory figures, but no pair of them to weigh"), std::string::npos) << m;
  EXPECT_NE(m.find("(allocated without reserved)"), std::string::npos) << m;
  EXPECT_EQ(m.find("without a label this reader knows"), std::string::npos) << m;
  EXPECT_EQ(m.find("could not tell the format"), std::string::npos) << m;
}

// Read through the entry point: a log of figures is a log, and its figures reach the observation.
TEST(MemoryFigures, AFileOfFiguresIsReadAsALog) {
  const std::string text = "MA 1.5 GB  Max_MA 2.25 GB  CA 3.0 GB  Max_CA 4 GB\n";
  EXPECT_EQ(detect_observation_format(text), observation_format::log);
  auto o = parse_observation(text, "ds.log");
  ASSERT_TRUE(o) << o.error().to_string();
  EXPECT_EQ(o->stats.size(), 1u);
}

// Rows of one figure per device, in plain bytes, before and after a change: the latest reading
// of each GPU.
TEST(MemoryFigures, ReadsPerDeviceRowsTheLatestReadingOfEach) {
  const auto f = find_memory_figures(
      "=== before ===\n"
      "GPU 0 memory used: 1000000000 bytes\n"
      "GPU 1 memory used: 1000000000 bytes\n"
      "=== after ===\n"
      "GPU 0 memory used: 30000000000 bytes\n"
      "GPU 1 memory used: 2000000000 bytes\n"
      "cuda:2 free memory: 4 GiB\n"
      "cuda:2 total memory: 16 GiB\n"
      "GPU 3 max allocated: 5 GiB\n",
      "rows.txt");
  ASSERT_EQ(f.gpus.size(), 3u);
  EXPECT_EQ(f.gpus[0].index, 0);
  EXPECT_EQ(f.gpus[0].used, 30000000000u);
  EXPECT_EQ(f.gpus[1].used, 2000000000u);
  EXPECT_EQ(f.gpus[2].index, 2);
  EXPECT_EQ(f.gpus[2].total, 16 * GiB);
  EXPECT_EQ(f.gpus[2].used, 12 * GiB);  // total less free
}

// A step's figure on a line that goes on to the failure is the series' last point.
TEST(MemoryFigures, AFailureAfterAStepsFigureKeepsItInTheSeries) {
  const auto f = find_memory_figures(
      "iter 10: 20.0 GiB\n"
      "iter 20: 22.0 GiB\n"
      "iter 30: 24.5 GiB, then OOM (requested 2 GiB, 1 GiB free)\n",
      "steps.txt");
  ASSERT_EQ(f.series.size(), 1u);
  ASSERT_EQ(f.series[0].points.size(), 3u);
  EXPECT_EQ(f.series[0].points[2].second, static_cast<bytes>(24.5 * 1024 * 1024 * 1024));
}

// Processes counted per GPU by a script, one list a line: read where the paste speaks of
// processes; lists of other things (no such word) and lists of unequal length are not.
// torch.cuda's memory API printed without a unit: a series when printed three times or more,
// one unit for the whole series (whole numbers of a mebibyte or more: bytes; all below 256: GiB;
// else MiB), the unit read named in the label; one or two prints are not read, nor are they
// allocator figures.
TEST(MemoryFigures, ReadsTheMemoryApisUnitlessPrintsAsASeries) {
  const auto gib = find_memory_figures(
      "iter: 0 memory_allocated: 0.25\niter: 1 memory_allocated: 0.5\n"
      "iter: 2 memory_allocated: 1.0\n",
      "log.txt");
  ASSERT_EQ(gib.series.size(), 1u);
  EXPECT_EQ(gib.series[0].points.front().second, GiB / 4);
  EXPECT_EQ(gib.series[0].points.back().second, GiB);
  EXPECT_NE(gib.series[0].label.find("[no unit: read as GiB]"), std::string::npos)
      << gib.series[0].label;
  EXPECT_TRUE(gib.stats.empty());
  const auto mib = find_memory_figures(
      "step 1 torch.cuda.max_memory_reserved() 100\nstep 2 torch.cuda.max_memory_reserved() "
      "200\nstep 3 torch.cuda.max_memory_reserved() 300\n",
      "log.txt");
  ASSERT_EQ(mib.series.size(), 1u);
  EXPECT_EQ(mib.series[0].points.back().second, 300 * MiB);
  // A print that would scale past what a byte count holds is no memory figure (found by fuzzing:
  // a whole number of 6e14 read as MiB): the series is not read.
  EXPECT_TRUE(find_memory_figures("iter: 0 memory_reserved: 0.5\niter: 1 memory_reserved: 0.7\n"
                                  "iter: 2 memory_reserved: 610128301953124.5\n",
                                  "log.txt")
                  .series.empty());
  const auto raw = find_memory_figures(
      "memory_reserved=2097152\nmemory_reserved=4194304\nmemory_reserved=6291456\n", "log.txt");
  ASSERT_EQ(raw.series.size(), 1u);
  EXPECT_EQ(raw.series[0].points.back().second, 6 * MiB);
  EXPECT_TRUE(find_memory_figures("memory_allocated: 0.5\nmemory_allocated: 0.7\n", "log.txt")
                  .series.empty());
  EXPECT_TRUE(
      find_memory_figures(
          "memory_allocated_mb: 1\nmemory_allocated_mb: 2\nmemory_allocated_mb: 3\n", "log.txt")
          .series.empty());
}

TEST(MemoryFigures, ReadsProcessesCountedPerGpu) {
  const auto f = find_memory_figures(
      "nvidia-smi compute apps per GPU\n"
      "at start        [1, 1, 1]\n"
      "after warmup    [3, 3, 3]   <- two more on each\n",
      "counts.txt");
  ASSERT_EQ(f.process_counts.size(), 2u);
  EXPECT_EQ(f.process_counts[1].label, "after warmup");
  EXPECT_EQ(f.process_counts[1].per_gpu, (std::vector<int>{3, 3, 3}));
  EXPECT_EQ(f.process_counts[1].line, 3);
  EXPECT_FALSE(f.empty());
  EXPECT_TRUE(
      find_memory_figures("epochs [1, 2, 3]\nlosses [4, 5, 6]\n", "x.txt").process_counts.empty());
  EXPECT_TRUE(
      find_memory_figures("processes\na [1, 2]\nb [1, 2, 3]\n", "x.txt").process_counts.empty());
}

// A test's assertion on memory_allocated() and the AssertionError printing its tuple: the
// tuple's names matched to the comparison's sides, whatever their order; an assertion that does
// not speak of memory, a tuple naming other things, or a message of other than two whole numbers
// gives no check.
TEST(MemoryFigures, ReadsAnAssertionOfAllocatedBytesBeforeAndAfter) {
  auto f = find_memory_figures(
      "  File \"repro.py\", line 16, in <module>\n"
      "    assert cuda_memory <= start_cuda_memory, (cuda_memory, start_cuda_memory)\n"
      "AssertionError: (8519680, 0)\n",
      "oom.txt");
  ASSERT_EQ(f.allocated_checks.size(), 1u);
  EXPECT_EQ(f.allocated_checks[0].after, 8519680u);
  EXPECT_EQ(f.allocated_checks[0].before, 0u);
  EXPECT_EQ(f.allocated_checks[0].line, 3);
  EXPECT_EQ(f.allocated_checks[0].source, "oom.txt");
  EXPECT_FALSE(f.empty());

  f = find_memory_figures(
      "    assert torch.cuda.memory_allocated() == base, (base, torch.cuda.memory_allocated())\n"
      "AssertionError: (1024, 4096)\n",
      "oom.txt");
  ASSERT_EQ(f.allocated_checks.size(), 1u);
  EXPECT_EQ(f.allocated_checks[0].after, 4096u);
  EXPECT_EQ(f.allocated_checks[0].before, 1024u);

  for (const char* text :
       {"    assert loss <= best, (loss, best)\nAssertionError: (3, 2)\n",
        "    assert mem <= start_mem, (a, b)\nAssertionError: (3, 2)\n",
        "    assert mem <= start_mem, (mem, start_mem)\nAssertionError: (3, 2, 1)\n",
        "    assert mem <= start_mem, (mem, start_mem)\nAssertionError: (3.5, 2)\n",
        "AssertionError: (8519680, 0)\n"})
    EXPECT_TRUE(find_memory_figures(text, "oom.txt").allocated_checks.empty()) << text;
}

// DeepSpeed's memory_status line (deepspeed/runtime/utils.py): each "max=" inside the brackets is
// the peak of the figure labelled before it; a "max" with no figure labelled before it names none.
TEST(MemoryFigures, ReadsAPeakLabelledOnlyMaxAsThePeakOfTheFigureBeforeIt) {
  auto f = find_memory_figures(
      "RANK=1 MEMSTATS after step device=cuda:1 current alloc=25.5GB (delta=0.0000GB max=56.0GB) "
      "current "
      "cache=69.0GB (delta=0.0000GB max=70.0GB)\n",
      "stats.txt");
  ASSERT_EQ(f.stats.size(), 1u);
  EXPECT_EQ(f.stats[0].allocated.current, static_cast<bytes>(25.5 * 1024 * 1024 * 1024));
  EXPECT_EQ(f.stats[0].allocated.peak, 56_GiB);
  EXPECT_EQ(f.stats[0].reserved.current, 69_GiB);
  EXPECT_EQ(f.stats[0].reserved.peak, 70_GiB);

  f = find_memory_figures("max=56.0GB allocated=25.5GB reserved=69.0GB\n", "stats.txt");
  ASSERT_EQ(f.stats.size(), 1u);
  EXPECT_FALSE(f.stats[0].allocated.peak);
  EXPECT_FALSE(f.stats[0].reserved.peak);
}

// TensorFlow.js's tf.memory() printed each call (console.log's object, JSON.stringify's): a series
// of its bytes and one of its tensor count.
TEST(MemoryFigures, ReadsTensorFlowJsMemoryInfoAsTwoSeries) {
  const auto f = find_memory_figures(
      "{unreliable: false, numTensors: 10, numDataBuffers: 8, numBytes: 4000}\n"
      "{unreliable: false, numTensors: 14, numDataBuffers: 10, numBytes: 4400}\n"
      "{\"unreliable\":false,\"numTensors\":18,\"numDataBuffers\":12,\"numBytes\":4800}\n",
      "stats.txt");
  ASSERT_EQ(f.series.size(), 2u);
  const auto& count = f.series[0].tensor_count ? f.series[0] : f.series[1];
  const auto& held = f.series[0].tensor_count ? f.series[1] : f.series[0];
  EXPECT_TRUE(count.tensor_count);
  EXPECT_FALSE(held.tensor_count);
  ASSERT_EQ(count.points.size(), 3u);
  EXPECT_EQ(count.points[2].second, 18u);
  EXPECT_EQ(held.points[2].second, 4800u);
  EXPECT_EQ(held.points[2].first, 3);
  EXPECT_TRUE(find_memory_figures("{numTensors: 10}\n{numTensors: 12}\n{numTensors: 14}\n", "s")
                  .series.empty());
}

}  // namespace
}  // namespace vramscope::observe
