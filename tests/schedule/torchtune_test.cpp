// torchtune's memory features in the schedule: chunked cross-entropy, the optimizer stepped in
// backward, and activation offloading.
#include <vramscope/schedule/schedule.hpp>

#include <gtest/gtest.h>

#include <string>

#include "schedule/activations.hpp"
#include "schedule/schedule_support.hpp"
#include "support/tiny_model.hpp"

namespace vramscope::schedule {
namespace {

constexpr std::uint64_t vocab = 32000;

job::job_spec chunked_job(std::uint64_t seq, int chunks) {
  auto j = job_of(job::strategy::single, 1);
  j.training.seq_len = seq;
  j.training.loss = job::loss_impl::chunked;
  j.training.loss_chunks = chunks;
  return j;
}

unit_activations loss_of(const job::job_spec& j) {
  return activations_for(model::unit_kind::head, testing::tiny_llama().text, j,
                         {j.training.micro_batch, j.training.seq_len}, 1, saved_inputs{});
}

TEST(ChunkedLoss, SavesEachChunksFp32LogSoftmaxAndUpcastsOneChunkAtATime) {
  const auto a = loss_of(chunked_job(512, 8));
  const bytes chunk = 64 * vocab;  // elements of one chunk of 512 / 8 tokens
  EXPECT_EQ(a.saved, std::vector<bytes>(8, 4 * chunk));
  // The eight bf16 logit chunks the model returns, then one fp32 upcast.
  std::vector<bytes> forward(8, 2 * chunk);
  forward.push_back(4 * chunk);
  EXPECT_EQ(a.forward_temps, forward);
  EXPECT_EQ(a.backward_temps, (std::vector<bytes>{4 * chunk, 4 * chunk, 2 * chunk}));
}

TEST(ChunkedLoss, SplitsTheSequenceAsTensorSplitDoes) {
  auto j = chunked_job(10, 4);
  j.training.micro_batch = 2;
  const auto a = loss_of(j);  // 3, 3, 2, 2 tokens per sequence
  EXPECT_EQ(a.saved, (std::vector<bytes>{4 * 6 * vocab, 4 * 6 * vocab, 4 * 4 * vocab, 4 * 4 * vocab}));
  EXPECT_EQ(a.forward_temps.back(), 4 * 6 * vocab);  // the largest chunk's upcast
  EXPECT_EQ(loss_of(chunked_job(3, 8)).saved.size(), 3u);  // never more chunks than tokens
}

TEST(ChunkedLoss, Fp32LogitsNeedNoUpcast) {
  auto j = chunked_job(512, 8);
  j.precision.params = dtype::f32;
  const auto a = loss_of(j);
  EXPECT_EQ(a.forward_temps, std::vector<bytes>(8, 4 * 64 * vocab));
  EXPECT_EQ(a.backward_temps, (std::vector<bytes>{4 * 64 * vocab, 4 * 64 * vocab}));
}

TEST(ChunkedLoss, KeepsNoModelDtypeLogitsForBackward) {
  // The Hugging Face loss keeps the bf16 logits beside the fp32 log-softmax until backward;
  // torchtune's recipe deletes the chunks once the loss is computed.
  auto hf = job_of(job::strategy::single, 1);
  auto chunked = chunked_job(hf.training.seq_len, 8);
  const bytes n = hf.training.seq_len;
  EXPECT_EQ(exact_replay(build(hf)).peak_of(category::activations) -
                exact_replay(build(chunked)).peak_of(category::activations),
            2 * n * vocab);
}

job::job_spec bf16_true(job::strategy s, int gpus) {
  auto j = job_of(s, gpus);
  j.precision.params = j.precision.master = j.precision.reduce = j.precision.buffers = dtype::bf16;
  j.optimizer.state = dtype::bf16;
  return j;
}

TEST(OptimizerInBackward, HoldsOneGradientAtATime) {
  auto j = bf16_true(job::strategy::single, 1);
  const auto m = testing::tiny_llama();
  EXPECT_EQ(exact_replay(build(j)).peak_of(category::gradients), 2 * m.parameters());
  j.optimizer.in_backward = true;
  exact_replay r(build(j));
  EXPECT_TRUE(r.well_formed);
  EXPECT_EQ(r.peak_of(category::gradients), 2 * vocab * 1024);  // the embedding's or the head's
  EXPECT_EQ(r.at(category::gradients), 0u);
}

TEST(OptimizerInBackward, CreatesTheSameStateDuringTheFirstBackward) {
  auto j = bf16_true(job::strategy::single, 1);
  const bytes state = exact_replay(build(j)).at(category::optimizer);
  j.optimizer.in_backward = true;
  const auto p = build(j);
  EXPECT_EQ(exact_replay(p).at(category::optimizer), state);
  for (const auto& e : p.events)
    if (e.kind == event_kind::alloc && e.cat == category::optimizer) {
      EXPECT_EQ(p.phase_names[e.phase].rfind("backward:", 0), 0u) << p.phase_names[e.phase];
      break;
    }
}

TEST(OptimizerInBackward, Fsdp2StepsEachShardUnderTheReduceScatterStream) {
  auto j = bf16_true(job::strategy::fsdp2, 4);
  const exact_replay before(build(j));
  j.optimizer.in_backward = true;
  const auto p = build(j);
  const exact_replay after(p);
  EXPECT_TRUE(after.well_formed);
  EXPECT_EQ(after.at(category::optimizer), before.at(category::optimizer));
  EXPECT_LE(after.peak, before.peak);
  int allocs = 0;
  for (const auto& e : p.events)
    if (e.kind == event_kind::alloc && e.cat == category::optimizer) {
      EXPECT_EQ(e.stream, streams::reduce);
      ++allocs;
    }
  EXPECT_GT(allocs, 0);
}

}  // namespace
}  // namespace vramscope::schedule
