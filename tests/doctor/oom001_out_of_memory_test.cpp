// OOM001: an out-of-memory message read from a log, PyTorch's or XLA's, each case with its own
// message.
#include <vramscope/core/units.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

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
  o.processes.push_back({std::nullopt, 20_GiB});
  o.allocated_by_pytorch = 18_GiB;
  o.reserved_unallocated = reserved_unallocated;
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

TEST(Oom001, ReservedButUnallocatedAboveTheRequestIsFragmentation) {
  const auto found = check(torch_oom(3_GiB));
  ASSERT_EQ(found.size(), 1u);
  const finding& f = found[0];
  EXPECT_EQ(f.rule, "OOM001");
  EXPECT_EQ(f.title, "CUDA out of memory");
  EXPECT_EQ(f.level, severity::error);
  EXPECT_EQ(f.evidence,
            (std::vector<std::string>{
                "line 12: tried to allocate 2.00 GiB on GPU 0, 1.50 GiB free of 23.69 GiB",
                "allocated by PyTorch 18.00 GiB, reserved but unallocated 3.00 GiB"}));
  EXPECT_EQ(f.cause,
            "enough memory is reserved but free, in pieces too small or on another stream: "
            "fragmentation");
  EXPECT_EQ(f.fix, "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True");
  EXPECT_EQ(f.saving, static_cast<std::int64_t>(3_GiB));
  EXPECT_EQ(f.saving_basis, "reserved-but-unallocated memory in the message");
}

TEST(Oom001, ReservedButUnallocatedMustCoverTheRequest) {
  const auto equal = check(torch_oom(2_GiB));
  ASSERT_EQ(equal.size(), 1u);
  EXPECT_EQ(equal[0].saving, static_cast<std::int64_t>(2_GiB));

  const auto under = check(torch_oom(2_GiB - 1_MiB));
  ASSERT_EQ(under.size(), 1u);
  EXPECT_EQ(under[0].level, severity::error);
  EXPECT_EQ(under[0].cause, "the job's live tensors need more than the GPU has at this point");
  EXPECT_TRUE(under[0].fix.starts_with("run `vramscope plan` on the job")) << under[0].fix;
  EXPECT_FALSE(under[0].saving);
}

TEST(Oom001, OtherProcessesInTheMessageAreTheCause) {
  auto oom = torch_oom(0);
  oom.processes.insert(oom.processes.begin(), observe::oom_process{4100, 3_GiB});
  const auto found = check(oom);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].evidence[1], "2 processes hold memory on that GPU");
  EXPECT_EQ(found[0].cause,
            "several processes share this GPU; the others hold memory this process needs");
  EXPECT_EQ(found[0].fix,
            "one process per GPU: torch.cuda.set_device(local_rank) first, torch.load(..., "
            "map_location=\"cpu\")");
  EXPECT_FALSE(found[0].saving);
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
