// torchtune's memory features in the schedule: chunked cross-entropy, the optimizer stepped in
// backward, activation offloading, and the embedding and head sharded as FSDP2 units of their
// own.
#include <vramscope/schedule/schedule.hpp>

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "schedule/activations.hpp"
#include "schedule/offload.hpp"
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
  EXPECT_EQ(a.saved,
            (std::vector<bytes>{4 * 6 * vocab, 4 * 6 * vocab, 4 * 4 * vocab, 4 * 4 * vocab}));
  EXPECT_EQ(a.forward_temps.back(), 4 * 6 * vocab);        // the largest chunk's upcast
  EXPECT_EQ(loss_of(chunked_job(3, 8)).saved.size(), 3u);  // never more chunks than tokens
}

TEST(ChunkedLoss, Fp32LogitsNeedNoUpcast) {
  auto j = chunked_job(512, 8);
  j.precision.params = dtype::f32;
  const auto a = loss_of(j);
  EXPECT_EQ(a.forward_temps, std::vector<bytes>(8, 4 * 64 * vocab));
  EXPECT_EQ(a.backward_temps, (std::vector<bytes>{4 * 64 * vocab, 4 * 64 * vocab}));
}

TEST(ChunkedLoss, SavesWhatTheWholeLossSaves) {
  // Both keep only fp32 log-softmax outputs for backward (the whole, or one per chunk) and no
  // logits in the model dtype: the whole loss's output is dropped by the training loop, the
  // chunks by the recipe's `del logits`.
  auto hf = job_of(job::strategy::single, 1);
  auto chunked = chunked_job(hf.training.seq_len, 8);
  EXPECT_EQ(exact_replay(build(hf)).peak_of(category::activations),
            exact_replay(build(chunked)).peak_of(category::activations));
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
      EXPECT_EQ(phase_name_of(p, e).rfind("backward:", 0), 0u) << phase_name_of(p, e);
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

program pack_all(const job::job_spec& j, const std::vector<bytes>& sizes,
                 std::vector<tensor_id>* kept = nullptr) {
  program_builder out;
  activation_offloader o(j, out);
  for (auto b : sizes) {
    const tensor_id t = o.pack(b, 0, true);
    if (kept) kept->push_back(t);
  }
  return out.take();
}

TEST(ActivationOffloading, KeepsTheLastFivePackedTensorsUntilTheirCopiesAreDone) {
  auto j = job_of(job::strategy::single, 1);
  j.training.activation_offloading = true;
  std::vector<tensor_id> kept;
  const auto p = pack_all(j, std::vector<bytes>(8, 4096), &kept);
  EXPECT_EQ(exact_replay(p).at(category::activations), 5 * 4096u);
  EXPECT_EQ(p.offloaded, 8 * 4096u);
  EXPECT_EQ(kept, std::vector<tensor_id>(8, 0));  // nothing for autograd to hold on the GPU
}

TEST(ActivationOffloading, LeavesTensorsUnderOneKiBInPlace) {
  auto j = job_of(job::strategy::single, 1);
  j.training.activation_offloading = true;
  std::vector<tensor_id> kept;
  const auto p = pack_all(j, {1023, 1024}, &kept);
  EXPECT_NE(kept[0], 0u);
  EXPECT_EQ(kept[1], 0u);
  EXPECT_EQ(p.offloaded, 1024u);
  // Small tensors count towards the stash's window without releasing anything.
  EXPECT_EQ(exact_replay(pack_all(j, {2048, 8, 8, 8, 8, 2048})).at(category::activations),
            2048u + 4 * 8);
  EXPECT_EQ(exact_replay(pack_all(j, {2048, 8, 8, 8, 8, 8, 2048})).at(category::activations),
            2048u + 5 * 8);
}

TEST(ActivationOffloading, WithoutACopyStreamReleasesEachTensorAtOnce) {
  auto j = job_of(job::strategy::single, 1);
  j.training.activation_offloading = true;
  j.framework.version = "2.4";  // OffloadActivations uses streams from torch 2.5
  EXPECT_EQ(exact_replay(pack_all(j, std::vector<bytes>(8, 4096))).at(category::activations), 0u);
}

TEST(ActivationOffloading, BackwardBringsAUnitsTensorsBackOnTheCopyStream) {
  auto j = job_of(job::strategy::single, 1);
  j.training.activation_offloading = true;
  program_builder out;
  activation_offloader o(j, out);
  for (std::size_t unit = 0; unit < 3; ++unit)
    for (int i = 0; i < 3; ++i) (void)o.pack(4096, unit, false);
  // Packs 5 to 9 are stashed: unit 1's last two and unit 2's three.
  auto unit2 = o.unpack(2);
  EXPECT_EQ(unit2.size(), 3u);  // straight from the stash
  auto unit1 = o.unpack(1);     // all from the host: its two stashed ones went with unit 2
  EXPECT_EQ(unit1.size(), 3u);
  const auto p = out.take();
  EXPECT_EQ(exact_replay(p).at(category::activations), 6 * 4096u);
  int from_host = 0;
  for (const auto& e : p.events)
    if (e.kind == event_kind::alloc && e.stream == streams::offload) ++from_host;
  EXPECT_EQ(from_host, 3);
  EXPECT_EQ(p.offloaded, 0u);  // record was false
}

TEST(ActivationOffloading, TheOutputHeadsInputIsOutsideTheHook) {
  const auto& s = testing::tiny_llama().text;
  const auto j = job_of(job::strategy::single, 1);
  saved_inputs in;
  EXPECT_EQ(activations_for(model::unit_kind::norm, s, j, {1, 512}, 1, in).saved_by_head, 1u);
  in.head = false;
  EXPECT_EQ(activations_for(model::unit_kind::norm, s, j, {1, 512}, 1, in).saved_by_head, 0u);
}

TEST(ActivationOffloading, LowersTheActivationPeakOfACheckpointedModel) {
  const auto m = testing::tiny_llama(vocab, 1024, 4096, 12);
  auto j = job_of(job::strategy::single, 1);
  j.training.activation_checkpointing = job::checkpointing::full;
  auto plan = [&](const job::job_spec& job) { return *build_program(m, job, 0); };
  const auto resident = plan(j);
  j.training.activation_offloading = true;
  const auto offloaded = plan(j);
  const exact_replay a(resident), b(offloaded);
  EXPECT_TRUE(b.well_formed);
  EXPECT_EQ(b.at(category::activations), 0u);  // everything brought back is freed
  EXPECT_EQ(resident.offloaded, 0u);
  // Twelve block inputs of 512 tokens x 1024 bf16, the int64 token ids, and the final norm's
  // fp32 input copy, rsqrt and bf16 normalised value; its output is the head's input and stays.
  const bytes n = 512, h = 1024;
  EXPECT_EQ(offloaded.offloaded, 12 * 2 * n * h + 8 * n + 4 * n * h + 4 * n + 2 * n * h);
  EXPECT_LT(b.peak_of(category::activations), a.peak_of(category::activations));
}


// torchtune's shard_model applies fully_shard to every module named in custom_sharded_layers
// (['tok_embeddings', 'output'] in its large-vocabulary configs) besides the layers, then to the
// root (torchtune/training/_distributed.py, get_shard_conditions and shard_model): the
// embedding and the head are gathered for their own forward and backward instead of staying
// gathered with the root (which torch < 2.8 never reshards).
// Live parameter bytes where the first phase `name` begins, and the most during it.
struct phase_parameters {
  bytes at_start = 0, most = 0;
};
phase_parameters parameters_in(const program& p, const std::string& name) {
  std::map<std::uint32_t, bytes> live;
  bytes total = 0;
  phase_parameters out;
  int state = 0;  // 0: before the phase, 1: in it
  for (const auto& e : p.events) {
    if (e.kind == event_kind::phase) {
      if (state == 1) return out;
      if (p.phase_names[e.tensor] == name) {
        state = 1;
        out.at_start = out.most = total;
      }
    }
    if (e.kind == event_kind::alloc && e.cat == category::parameters) {
      live[e.tensor] = e.size;
      total += e.size;
    } else if (e.kind == event_kind::free) {
      if (auto it = live.find(e.tensor); it != live.end()) {
        total -= it->second;
        live.erase(it);
      }
    }
    if (state == 1) out.most = std::max(out.most, total);
  }
  if (state == 0) ADD_FAILURE() << "no phase " << name;
  return out;
}
bytes parameters_at(const program& p, const std::string& name) {
  return parameters_in(p, name).at_start;
}

job::job_spec torchtune_fsdp2(std::vector<std::string> separately) {
  auto j = job_of(job::strategy::fsdp2, 4);
  j.training.loss = job::loss_impl::chunked;
  j.framework.version = "2.5";
  j.parallel.shard_separately = std::move(separately);
  return j;
}

TEST(ShardSeparately, EmbeddingAndHeadAreGatheredOnlyForTheirOwnPasses) {
  const auto root = build(torchtune_fsdp2({}));
  const auto own = build(torchtune_fsdp2({"embedding", "head"}));
  const bytes gathered_each = vocab * 1024 * 2;  // bf16, 32000 x 1024 each (untied)
  // Mid-forward and mid-backward the root keeps both gathered; their own groups do not.
  for (const char* phase : {"forward:layers.1", "backward:layers.1"})
    EXPECT_EQ(parameters_at(root, phase) - parameters_at(own, phase), 2 * gathered_each) << phase;
  // The head is gathered again for the loss's backward (its projection's gradient) and
  // resharded after it; the embedding only for its own backward, the last.
  // (with it the root's pre-backward prefetches the last block).
  const auto loss = parameters_in(own, "backward:loss");
  EXPECT_GE(loss.most - loss.at_start, gathered_each);
  EXPECT_EQ(parameters_at(root, "backward:norm") - parameters_at(own, "backward:norm"),
            2 * gathered_each);
  EXPECT_EQ(parameters_at(root, "backward:embed_tokens") -
                parameters_at(own, "backward:embed_tokens"),
            gathered_each);
  // Only the embedding, only the head.
  EXPECT_EQ(parameters_at(root, "forward:layers.1") -
                parameters_at(build(torchtune_fsdp2({"embedding"})), "forward:layers.1"),
            gathered_each);
  // The shards are the same: the optimizer steps the same bytes.
  EXPECT_EQ(exact_replay(root).peak_of(category::optimizer),
            exact_replay(own).peak_of(category::optimizer));
  EXPECT_TRUE(exact_replay(own).well_formed);
}

// A tied head (TiedLinear) is no module: 'output' shards nothing of its own.
TEST(ShardSeparately, ATiedHeadHasNoGroupOfItsOwn) {
  auto j = torchtune_fsdp2({"head"});
  auto tied = build_program(testing::tiny_llama_tied(), j, 0);
  j.parallel.shard_separately.clear();
  auto root = build_program(testing::tiny_llama_tied(), j, 0);
  ASSERT_TRUE(tied);
  ASSERT_TRUE(root);
  EXPECT_TRUE(same_events(tied->events, root->events));
}

}  // namespace
}  // namespace vramscope::schedule
