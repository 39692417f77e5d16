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

}  // namespace
}  // namespace vramscope::schedule
