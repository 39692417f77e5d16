// OOM001: an out-of-memory message read from a log, PyTorch's or XLA's, each case with its own
// message.
#include <vramscope/core/units.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <vramscope/doctor/finding.hpp>
#include "doctor/likelihood.hpp"
#include "doctor/planned_job.hpp"
#include "doctor/rules/rules.hpp"

namespace vramscope::doctor {
namespace {

// "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.69 GiB of
// which 1.50 GiB is free. This process has 20.00 GiB memory in use. Of the allocated memory
// 18.00 GiB is allocated by PyTorch, and R is reserved by PyTorch but unallocated."
observe::oom_report torch_oom(bytes reserved_unallocated) {
  observe::oom_report o;
  o.kind = observe::oom_kind::torch;
  o.line = 12;
  o.gpu = 0;
  o.requested = 2_GiB;
  o.capacity = 23_GiB + 704_MiB;
  o.free = 1_GiB + 512_MiB;
  o.processes.push_back({std::nullopt, *o.capacity - *o.free - 256_MiB});  // nothing else on the GPU
  o.allocated_by_pytorch = 18_GiB;
  o.reserved_unallocated = reserved_unallocated;
  o.reserved_by_pytorch = 18_GiB + reserved_unallocated;
  return o;
}

std::vector<finding> check(const observe::observation& o) {
  doctor_input in;
  in.observed = &o;
  return rules::out_of_memory_message(in);
}

std::vector<finding> check(const observe::oom_report& oom) {
  observe::observation o;
  o.ooms = {oom};
  return check(o);
}

// What the job's own memory explains: free + cached below the request is a shortfall no
// allocator could have avoided; the same message with a large cache ranks below fragmentation.
TEST(Oom001, TheJobsOwnMemoryFillsTheGpu) {
  const auto found = check(torch_oom(256_MiB));
  ASSERT_EQ(found.size(), 1u);
  const finding& f = found[0];
  EXPECT_EQ(f.rule, "OOM001");
  EXPECT_EQ(f.cause_class, "does_not_fit");
  EXPECT_EQ(f.level, severity::error);
  EXPECT_EQ(f.evidence,
            (std::vector<std::string>{
                "line 12: tried to allocate 2.00 GiB on GPU 0, 1.50 GiB free of 23.69 GiB",
                "allocated by PyTorch 18.00 GiB, reserved but unallocated 256.0 MiB"}));
  EXPECT_EQ(f.likelihood, likelihood::strong);
  EXPECT_NE(f.fix.find("a smaller batch (with gradient accumulation)"), std::string::npos) << f.fix;
  // Without a job, the GPU the step would take as it is: its 18 GiB of tensors and the request.
  EXPECT_NE(f.fix.find("else a GPU with over 20.00 GiB"), std::string::npos) << f.fix;
  EXPECT_FALSE(f.saving);

  // 3 GiB cached beside 18 GiB of tensors: room for this request and the next, but the tensors
  // are most of what the process holds (reserved is not >> allocated): the job first, the
  // allocator second.
  const auto cached = check(torch_oom(3_GiB));
  ASSERT_EQ(cached.size(), 1u);
  EXPECT_EQ(cached[0].likelihood, likelihood::likely);
  // A cache of gigabytes is room for more than a few allocations: the finding says how much more,
  // and that the message does not tell whether the peak was that near.
  ASSERT_EQ(cached[0].support.size(), 1u);
  EXPECT_NE(cached[0].support[0].find("the 3.00 GiB of cache would give the step 17 % more room"),
            std::string::npos)
      << cached[0].support[0];
  auto small_cache = torch_oom(512_MiB);
  small_cache.requested = 256_MiB;
  EXPECT_NE(check(small_cache)[0].support.at(0).find("moves the wall only a few allocations on"),
            std::string::npos);
  const auto rank = [](const observe::oom_report& oom) {
    observe::observation o;
    o.ooms = {oom};
    doctor_input in;
    in.observed = &o;
    std::vector<std::string> order;
    for (const auto& f : diagnose(in)) order.push_back(f.cause_class);
    return order;
  };
  // With the GPU filled (little free beside the cache), the cache's pieces are all there is.
  auto filled = torch_oom(3_GiB);
  filled.free = 200_MiB;
  filled.processes = {{std::nullopt, *filled.capacity - *filled.free - 256_MiB}};
  auto order = rank(filled);
  ASSERT_GE(order.size(), 2u);
  EXPECT_EQ(order[0], "does_not_fit");
  EXPECT_EQ(order[1], "fragmentation");
  // With most of the request free on the device (1.50 of 2 GiB) and the rest in the cache, the
  // request was split between the two (FRAG001's reading): fragmentation first.
  order = rank(torch_oom(3_GiB));
  ASSERT_GE(order.size(), 2u);
  EXPECT_EQ(order[0], "fragmentation");
  EXPECT_EQ(order[1], "does_not_fit");
  // 20 GiB cached beside 4 GiB of tensors: reserved >> allocated, the allocator failed.
  auto spread = torch_oom(20_GiB);
  spread.allocated_by_pytorch = 4_GiB;
  spread.reserved_by_pytorch = 24_GiB;
  spread.processes.clear();
  const auto far = check(spread);
  ASSERT_EQ(far.size(), 1u);
  EXPECT_LT(far[0].likelihood, likelihood::possible);
  order = rank(spread);
  ASSERT_FALSE(order.empty());
  EXPECT_EQ(order[0], "fragmentation");
}

// cudaMallocAsync's message gives no cache: the tensors and the request fitting in the GPU beside
// a context argue against the job's size, and the rest held outside them is other processes'.
TEST(Oom001, AsyncAllocatorsTensorsThatFitArgueAgainstIt) {
  observe::oom_report oom;
  oom.kind = observe::oom_kind::torch;
  oom.malloc_async = true;
  oom.line = 1;
  oom.gpu = 0;
  oom.requested = 952_MiB;
  oom.capacity = 24_GiB;
  oom.free = 0;
  oom.allocated_by_pytorch = 21_GiB + 563_MiB;
  const auto found = check(oom);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].likelihood, likelihood::weak);
  ASSERT_FALSE(found[0].against.empty());
  EXPECT_NE(found[0].against.back().find("beside a CUDA context"), std::string::npos) << found[0].against.back();
  // A memory fraction below what the tensors and the request need: the limit ran out.
  oom.fraction_limit = 16_GiB;
  const auto limited = check(oom);
  ASSERT_EQ(limited.size(), 1u);
  EXPECT_EQ(limited[0].likelihood, likelihood::strong);
  EXPECT_NE(limited[0].support.back().find("set_per_process_memory_fraction"), std::string::npos);
}

// Other processes named in the message hold what this one needed: PROC001 comes first, OOM001
// says so against itself.
TEST(Oom001, MemoryHeldOutsideThisProcessArguesAgainstIt) {
  auto oom = torch_oom(0);
  oom.free = 100_MiB;  // 23.69 GiB - 100 MiB - 18.5 GiB: 5.09 GiB held by process 4100
  oom.processes = {{4100, 5_GiB}, {std::nullopt, 18_GiB + 512_MiB}};
  observe::observation o;
  o.ooms = {oom};
  doctor_input in;
  in.observed = &o;
  const auto ranked = diagnose(in);
  ASSERT_GE(ranked.size(), 2u);
  EXPECT_EQ(ranked[0].rule, "PROC001");
  EXPECT_EQ(ranked[0].cause_class, "other_process");
  EXPECT_NE(ranked[0].fix.find("kill"), std::string::npos);
  const auto own = check(oom);
  ASSERT_EQ(own.size(), 1u);
  EXPECT_FALSE(own[0].against.empty());
}

TEST(Oom001, FiguresTheMessageLacksAreQuestionMarks) {
  observe::oom_report oom;
  oom.line = 3;
  oom.gpu = 1;
  oom.allocated_by_pytorch = 18_GiB;
  const auto found = check(oom);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence, (std::vector<std::string>{
                                   "line 3: tried to allocate ? on GPU 1, ? free of ?",
                                   "allocated by PyTorch 18.00 GiB, reserved but unallocated ?"}));
  EXPECT_FALSE(found[0].saving);
  // A message cut before its GPU names none (tests/data/threads 774).
  oom.gpu.reset();
  EXPECT_EQ(check(oom)[0].evidence[0], "line 3: tried to allocate ?, ? free of ?");
}

// A message with no line above it leaves the phase undecided: the finding names the readings the
// message alone cannot tell apart and what decides them; a traceback above it says nothing of
// the kind.
// Where the changes are priced: without a job, the command that prices them; with a job whose
// plan does not fit either, MEM001 on it (the user already gave the job); with one whose plan
// fits, none, and the words say so.
TEST(Oom001, TheFixSaysWhereItsChangesArePriced) {
  observe::observation o;
  o.ooms = {torch_oom(256_MiB)};
  doctor_input bare;
  bare.observed = &o;
  EXPECT_NE(
      rules::out_of_memory_message(bare)[0].fix.find("(`vramscope explain JOB.yaml` prices each)"),
      std::string::npos);
  const auto job_of = [](int micro_batch) {
    return plan_yaml(
        "model: llama-3.2-1b\nhardware: { gpu: RTX-3090 }\nparallel: { strategy: single }\n"
        "precision: bf16-true\noptimizer: adamw\ntraining: { micro_batch: " +
        std::to_string(micro_batch) + ", seq_len: 4096 }\n");
  };
  const auto big = job_of(8), small = job_of(1);
  ASSERT_TRUE(big && small);
  ASSERT_FALSE(big->prediction.fits);
  ASSERT_TRUE(small->prediction.fits);
  EXPECT_NE(
      rules::out_of_memory_message(big->input(&o))[0].fix.find("(MEM001 prices each on this job)"),
      std::string::npos);
  EXPECT_NE(rules::out_of_memory_message(small->input(&o))[0].fix.find(
                "the plan of this job fits, so it prices none"),
            std::string::npos);
}

// A plan whose steps fit and which fails only in its save argues against the step's size, where
// it said "the plan of the job does not fit either" beside CKPT001's finding.
TEST(Oom001, APlanFailingOnlyAfterItsStepsArguesAgainstTheStep) {
  observe::observation o;
  o.ooms = {torch_oom(256_MiB)};
  const auto save = plan_yaml(
      "model: llama-3.1-8b\nhardware: { gpu: A100-40GB, gpus_per_node: 8 }\n"
      "parallel: { strategy: fsdp1, wrap: block }\nprecision: bf16-mixed\noptimizer: adamw\n"
      "training: { micro_batch: 1, seq_len: 4096, activation_checkpointing: full }\n"
      "checkpoint: { save: full, offload_to_cpu: false }\n");
  ASSERT_TRUE(save);
  ASSERT_FALSE(save->prediction.fits);
  const auto found = rules::out_of_memory_message(save->input(&o));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].likelihood, likelihood::strong - likelihood::step);
  EXPECT_NE(
      std::find(found[0].against.begin(), found[0].against.end(),
                "the plan of the job fits its training steps and fails only in checkpoint_save"),
      found[0].against.end());
  for (const auto& s : found[0].support)
    EXPECT_EQ(s.find("does not fit either"), std::string::npos) << s;
  EXPECT_NE(found[0].fix.find("the finding of the phase the plan fails in prices its fix"),
            std::string::npos);
}

TEST(Oom001, AMessageWithoutItsTracebackSaysWhatWouldDecide) {
  auto oom = torch_oom(256_MiB);
  auto found = check(oom);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].cause.find("cannot tell this from an evaluation without no_grad, tensors kept across "
                                "iterations, or a checkpoint save or load"),
            std::string::npos)
      << found[0].cause;
  EXPECT_NE(found[0].cause.find("the traceback above the message decides"), std::string::npos);
  oom.context = {"  File \"train.py\", line 40, in train_one_epoch", "    out = model(x)"};
  found = check(oom);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].cause, "the job's live tensors and this request need more than the GPU has at this point");
}

TEST(Oom001, XlaResourceExhausted) {
  observe::oom_report oom;
  oom.kind = observe::oom_kind::xla;
  oom.line = 7;
  oom.gpu = 0;
  oom.requested = 4_GiB;
  oom.capacity = 60_GiB;
  oom.in_use = 58_GiB;
  const auto found = check(oom);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].title, "XLA out of memory (RESOURCE_EXHAUSTED)");
  EXPECT_EQ(found[0].level, severity::error);
  EXPECT_EQ(found[0].evidence, (std::vector<std::string>{"line 7: tried to allocate 4.00 GiB; pool "
                                                         "limit 60.00 GiB, in use 58.00 GiB"}));
  EXPECT_NE(found[0].fix.find("XLA_PYTHON_CLIENT_MEM_FRACTION"), std::string::npos);
  EXPECT_FALSE(found[0].saving);
}

// The pool's limit left room for the request beyond what was in use: nearly full, but its free
// chunks too small (FRAG001 weighs it), so the job's size is a step less likely.
TEST(Oom001, XlaPoolWhoseLimitLeftRoomForTheRequest) {
  observe::oom_report oom;
  oom.kind = observe::oom_kind::xla;
  oom.line = 7;
  oom.requested = 41746432;    // tests/data/threads 663: TensorFlow 1.0 on a 12 GB Titan X
  oom.capacity = 12049707828;  // its pool's limit
  oom.in_use = 11984328960;
  const auto found = check(oom);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_DOUBLE_EQ(found[0].likelihood, likelihood::likely - likelihood::step);
  ASSERT_EQ(found[0].against.size(), 1u);
  EXPECT_EQ(found[0].against[0].rfind("the pool's limit left 62.4 MiB beyond what was in use", 0),
            0u);
  oom.pool_held = 12049707828;  // the regions' total given: the pool's own figures decide
  EXPECT_DOUBLE_EQ(check(oom)[0].likelihood, likelihood::likely);
}

TEST(Oom001, OneFindingPerMessageInLogOrder) {
  observe::observation o;
  o.ooms = {torch_oom(3_GiB), torch_oom(0)};
  o.ooms[1].line = 40;
  const auto found = check(o);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_TRUE(found[0].evidence[0].starts_with("line 12: ")) << found[0].evidence[0];
  EXPECT_TRUE(found[1].evidence[0].starts_with("line 40: ")) << found[1].evidence[0];
}

TEST(Oom001, SilentWithoutAMessage) {
  observe::observation o;
  o.stats.emplace_back();
  EXPECT_TRUE(check(o).empty());
  EXPECT_TRUE(rules::out_of_memory_message(doctor_input{}).empty());
}

}  // namespace
}  // namespace vramscope::doctor
