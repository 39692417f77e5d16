// FRAG001: reserved far above allocated in memory_stats, or a large reserved-but-unallocated
// share in an out-of-memory message, each case with its own evidence.
#include <vramscope/core/units.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "doctor/planned_job.hpp"
#include "doctor/likelihood.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor {
namespace {

observe::torch_stats peaks(bytes reserved, bytes allocated, std::optional<bytes> active = {}) {
  observe::torch_stats s;
  s.rank = 0;
  s.reserved.peak = reserved;
  s.allocated.peak = allocated;
  s.active.peak = active;
  s.source = "rank0.json";
  return s;
}

observe::oom_report oom(bytes reserved_unallocated) {
  observe::oom_report o;
  o.line = 12;
  o.requested = 2_GiB;
  o.reserved_unallocated = reserved_unallocated;
  return o;
}

std::vector<finding> check(const observe::observation& o) {
  doctor_input in;
  in.observed = &o;
  return rules::fragmentation(in);
}

// lit-gpt's FSDP1 Llama-2-7B on 8 x A100 80 GB (examples/cases/3-fsdp-options).
std::string litgpt_job(const std::string& env = "") {
  return "model: llama-2-7b\n"
         "hardware: { gpu: A100-80GB, gpus_per_node: 8, nodes: 1 }\n"
         "parallel: { strategy: fsdp1, wrap: block, limit_all_gathers: true, cpu_offload: false }\n"
         "precision: bf16-true\n"
         "optimizer: adamw\n"
         "training: { micro_batch: 4, seq_len: 4096, activation_checkpointing: full }\n"
         "checkpoint: { save: full }\n"
         "framework: { name: torch, version: \"2.3\" }\n" +
         (env.empty() ? "" : "env: { " + env + " }\n");
}

const std::string expandable = "PYTORCH_CUDA_ALLOC_CONF: \"expandable_segments:True\"";

TEST(Frag001, ReservedFarAboveAllocatedInMemoryStats) {
  observe::observation o;
  o.stats = {peaks(30_GiB, 20_GiB)};
  o.stats[0].inactive_split.current = 3_GiB;
  const auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  const finding& f = found[0];
  EXPECT_EQ(f.rule, "FRAG001");
  EXPECT_EQ(f.level, severity::warning);
  EXPECT_EQ(f.evidence,
            (std::vector<std::string>{"rank0.json: reserved peak 30.00 GiB vs allocated "
                                      "peak 20.00 GiB, 3.00 GiB in inactive split "
                                      "blocks"}));
  EXPECT_EQ(f.fix,
            "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True, or "
            "torch.cuda.empty_cache() where tensor sizes change");
  EXPECT_EQ(f.saving, static_cast<std::int64_t>(10_GiB));
  EXPECT_EQ(f.saving_basis, "at most the observed reserved - allocated");
}

TEST(Frag001, GapMustBeOneGiBAndAFifthOfReserved) {
  const auto fires = [](bytes reserved, bytes allocated) {
    observe::observation o;
    o.stats = {peaks(reserved, allocated)};
    return !check(o).empty();
  };
  EXPECT_TRUE(fires(30_GiB, 24_GiB));           // 6 GiB = 20 % of 30 GiB
  EXPECT_FALSE(fires(30_GiB, 24_GiB + 1_MiB));  // just under 20 %
  EXPECT_TRUE(fires(4_GiB, 3_GiB));             // 1 GiB = 25 %
  EXPECT_FALSE(fires(4_GiB, 3_GiB + 1_MiB));    // just under 1 GiB
  EXPECT_FALSE(fires(20_GiB, 30_GiB));          // allocated above reserved: no gap
}

TEST(Frag001, ActiveFarAboveAllocatedIsLeftToNccl001) {
  // The 10 GiB gap with active holding half of it or less is fragmentation; more is record_stream.
  observe::observation o;
  o.stats = {peaks(30_GiB, 20_GiB, 25_GiB)};
  EXPECT_EQ(check(o).size(), 1u);
  o.stats = {peaks(30_GiB, 20_GiB, 25_GiB + 1_MiB)};
  EXPECT_TRUE(check(o).empty());
}

// A log's peak active and peak reserved without an allocated figure (tests/data/threads 152):
// the gap above active is cache no tensor or pending block holds, read as the gap above
// allocated is; the finding says the paste cannot tell pending blocks from live tensors. A
// memory_stats reading (not a log's) keeps needing its allocated figures.
TEST(Frag001, ALogsActiveStandsForAllocatedWhenItGivesNone) {
  observe::observation o;
  auto s = peaks(32_GiB, 0);
  s.allocated.peak.reset();
  s.active.peak = 25_GiB;
  s.origin = observe::stats_origin::log_figures;
  o.stats = {s};
  const auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence.front(),
            "rank0.json: reserved peak 32.00 GiB vs active peak 25.00 GiB");
  ASSERT_FALSE(found[0].against.empty());
  EXPECT_NE(found[0].against.front().find("no allocated figure, only active"), std::string::npos);
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(7_GiB));
  o.stats[0].origin = observe::stats_origin::memory_stats_json;
  EXPECT_TRUE(check(o).empty());
}

// The message: the cache could have served the request (free + cached >= requested), strongly
// when it could serve the next one too and reserved is at least twice allocated (PyTorch's own
// "reserved >> allocated"); beside live tensors that are most of the reserve, possible.
TEST(Frag001, OutOfMemoryMessageWhoseCacheCouldServeTheRequest) {
  observe::observation o;
  o.ooms = {oom(5_GiB)};
  o.ooms[0].allocated_by_pytorch = 5_GiB;
  o.ooms[0].reserved_by_pytorch = 10_GiB;
  auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence, (std::vector<std::string>{"the out-of-memory message at line 12: 5.00 GiB reserved "
                                                         "by PyTorch but unallocated, 2.00 GiB requested"}));
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(5_GiB));
  EXPECT_EQ(found[0].likelihood, likelihood::strong);
  // The same cache beside 15 GiB of live tensors: reserved is not >> allocated.
  o.ooms[0].allocated_by_pytorch = 15_GiB;
  o.ooms[0].reserved_by_pytorch = 20_GiB;
  found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].likelihood, likelihood::possible);
  EXPECT_FALSE(found[0].against.empty());
  // Enough for this request only: weak, whatever the share.
  o.ooms = {oom(3_GiB)};
  o.ooms[0].allocated_by_pytorch = 1_GiB;
  o.ooms[0].reserved_by_pytorch = 4_GiB;
  found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].likelihood, likelihood::weak);
  // Free + cached below the request: the allocator had no bytes to place, so not fragmentation.
  o.ooms = {oom(2_GiB - 1_MiB)};
  EXPECT_TRUE(check(o).empty());
}

// The fix is the setting the failing message's release has, told by its wording: torch 2.1's
// "reserved by PyTorch but unallocated" (expandable_segments), 1.5 to 2.0's "reserved in total by
// PyTorch" (max_split_size_mb), and before 1.5 "cached" (only empty_cache).
TEST(Frag001, TheFixIsTheSettingTheMessagesReleaseHas) {
  const auto fix_for = [](const std::string& raw) {
    observe::observation o;
    o.ooms = {oom(5_GiB)};
    o.ooms[0].allocated_by_pytorch = 5_GiB;
    o.ooms[0].reserved_by_pytorch = 10_GiB;
    o.ooms[0].raw = raw;
    const auto found = check(o);
    return found.empty() ? std::string() : found[0].fix;
  };
  EXPECT_EQ(
      fix_for("Of the allocated memory 5 GiB is allocated by PyTorch, and 5 GiB is reserved by "
              "PyTorch but unallocated.")
          .find("expandable_segments:True, or torch.cuda.empty_cache()"),
      std::string("export PYTORCH_CUDA_ALLOC_CONF=").size());
  const std::string middle = fix_for(
      "(GPU 0; 23.65 GiB total capacity; 5 GiB already allocated; "
      "1 GiB free; 10 GiB reserved in total by PyTorch)");
  EXPECT_EQ(middle.rfind("export PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:N", 0), 0u) << middle;
  EXPECT_NE(middle.find("torch.cuda.empty_cache() where tensor sizes change"), std::string::npos);
  EXPECT_EQ(fix_for("(GPU 0; 31.72 GiB total capacity; 5 GiB already allocated; 1 GiB free; 10 "
                    "GiB cached)")
                .rfind("torch.cuda.empty_cache() where the sizes change", 0),
            0u);
}

// The device had most of the request free and the cache the rest: neither alone served it,
// together they could (expandable segments join a segment's free tail with free memory).
TEST(Frag001, ARequestSplitBetweenTheDeviceAndASizeableCache) {
  const auto level = [](bytes free, bytes cached) {
    observe::observation o;
    o.ooms = {oom(cached)};
    o.ooms[0].free = free;
    o.ooms[0].capacity = 32_GiB;
    o.ooms[0].allocated_by_pytorch = 26_GiB;
    o.ooms[0].reserved_by_pytorch = 26_GiB + cached;
    const auto found = check(o);
    return found.empty() ? 0.0 : found[0].likelihood;
  };
  EXPECT_EQ(level(1200_MiB, 1536_MiB), likelihood::strong);
  EXPECT_EQ(level(1_GiB, 1536_MiB), likelihood::strong);  // exactly half the request free
  // A GPU the process filled: the cache's pieces were all there was.
  EXPECT_LT(level(900_MiB, 1536_MiB), likelihood::likely);
  EXPECT_LT(level(10_MiB, 3_GiB), likelihood::likely);
  // A cache below a gigabyte is not weighed in itself; free memory that covers the request as
  // printed shows no split.
  EXPECT_LT(level(1200_MiB, 900_MiB), likelihood::likely);
  EXPECT_LT(level(2_GiB, 1536_MiB), likelihood::likely);
}

// A cache small in itself and beside the reserve, for a request the free memory did not cover,
// ranks below the readings the message is silent on. Free printed equal to the request did not
// cover it: the message rounds both to two decimals, and the request failed.
TEST(Frag001, ASmallCacheRanksBelowWhatTheMessageIsSilentOn) {
  const auto level = [](bytes free) {
    observe::observation o;
    o.ooms = {oom(563_MiB)};
    o.ooms[0].requested = 2_MiB;
    o.ooms[0].free = free;
    o.ooms[0].capacity = 24_GiB;
    o.ooms[0].allocated_by_pytorch = 21_GiB;
    o.ooms[0].reserved_by_pytorch = 21_GiB + 563_MiB;
    const auto found = check(o);
    return found.empty() ? 0.0 : found[0].likelihood;
  };
  EXPECT_DOUBLE_EQ(level(1_MiB), likelihood::weak - 2 * likelihood::step);
  EXPECT_DOUBLE_EQ(level(2_MiB), likelihood::weak - 2 * likelihood::step);
  EXPECT_DOUBLE_EQ(level(3_MiB), likelihood::weak);  // the free memory covered it: not for room
}

// A BFC pool's statistics without its regions' total: room in its limit beyond what was in use
// that did not serve the request sat in free chunks too small for it.
TEST(Frag001, RoomInABfcPoolsLimitThatDidNotServeTheRequest) {
  const auto bfc = [](bytes limit, bytes in_use, bytes requested) {
    observe::observation o;
    observe::oom_report r;
    r.kind = observe::oom_kind::xla;
    r.allocator = observe::oom_allocator::tf_bfc;
    r.tensorflow = true;
    r.line = 11;
    r.capacity = limit;
    r.in_use = in_use;
    r.requested = requested;
    o.ooms = {r};
    return check(o);
  };
  auto found = bfc(12049707828, 11984328960, 41746432);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].likelihood, likelihood::possible);
  EXPECT_EQ(found[0].evidence[0],
            "the out-of-memory message at line 11: the pool's limit 11.22 GiB, 11.16 GiB in use: "
            "62.4 MiB of "
            "the limit not in use, 39.8 MiB requested");
  EXPECT_NE(found[0].fix.find("TF_GPU_ALLOCATOR=cuda_malloc_async"), std::string::npos);
  EXPECT_NE(found[0].fix.find("restart from a checkpoint"), std::string::npos);
  EXPECT_EQ(bfc(12_GiB, 10_GiB, 512_MiB)[0].likelihood, likelihood::likely);  // this and the next
  EXPECT_TRUE(bfc(12_GiB, 11_GiB + 900_MiB, 512_MiB).empty());  // the limit was reached
}

TEST(Frag001, TheLargestWasteIsTheSaving) {
  observe::observation o;
  o.stats = {peaks(30_GiB, 20_GiB), peaks(12_GiB, 8_GiB)};
  o.ooms = {oom(6_GiB)};
  const auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence.size(), 3u);
  EXPECT_EQ(found[0].saving, static_cast<std::int64_t>(10_GiB));
}

TEST(Frag001, AJobIsPricedByPlanningItWithExpandableSegments) {
  const auto job = plan_yaml(litgpt_job());
  const auto fixed = plan_yaml(litgpt_job(expandable));
  ASSERT_TRUE(job && fixed);
  const std::int64_t planned = job->busiest_device() - fixed->busiest_device();
  ASSERT_GT(planned, 0);
  observe::observation o;
  o.stats = {peaks(30_GiB, 20_GiB)};
  const auto found = rules::fragmentation(job->input(&o));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].saving, planned);
  EXPECT_EQ(found[0].saving_basis,
            "re-planned with env.PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");

  // Already on expandable segments the re-plan saves nothing: the observed gap is the bound.
  const auto found_fixed = rules::fragmentation(fixed->input(&o));
  ASSERT_EQ(found_fixed.size(), 1u);
  EXPECT_EQ(found_fixed[0].saving, static_cast<std::int64_t>(10_GiB));
  EXPECT_EQ(found_fixed[0].saving_basis, "at most the observed reserved - allocated");
}

TEST(Frag001, SilentWithoutObservations) {
  const auto job = plan_yaml(litgpt_job());
  ASSERT_TRUE(job);
  EXPECT_TRUE(rules::fragmentation(job->input()).empty());
  observe::observation no_peaks;
  no_peaks.stats = {peaks(30_GiB, 20_GiB)};
  no_peaks.stats[0].allocated.peak.reset();
  EXPECT_TRUE(check(no_peaks).empty());
}

// A memory summary cut before its "Active memory" and "GPU reserved memory" rows: no cause can be
// read, and the finding says so and what to paste, where "no findings" would read as "all well".
// With the reserved figure the cut no longer hides the cache, and no such finding is made.
TEST(Frag001, StatisticsCutBeforeActiveAndReservedNameNoCauseAndWhatToPaste) {
  observe::observation o;
  observe::torch_stats s;
  s.allocated.peak = 18803_MiB;
  s.allocated.current = 13975_MiB;
  s.cut = true;
  s.cut_at_line = 9;
  s.source = "summary.txt";
  o.stats = {s};
  auto found = check(o);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause_class, "");
  EXPECT_EQ(found[0].level, severity::info);
  EXPECT_EQ(found[0].evidence.at(0),
            "summary.txt: allocated peak 18.36 GiB, cut at line 9 before its active and reserved figures");
  EXPECT_NE(found[0].fix.find("\"Active memory\" and \"GPU reserved memory\""), std::string::npos);
  o.stats[0].cut = false;
  EXPECT_TRUE(check(o).empty()) << "a whole file lacking them is not a cut paste";
  o.stats[0].cut = true;
  o.stats[0].reserved.peak = 18900_MiB;
  for (const auto& f : check(o)) EXPECT_NE(f.title, "memory statistics cut before the rows that decide");
}

}  // namespace
}  // namespace vramscope::doctor
