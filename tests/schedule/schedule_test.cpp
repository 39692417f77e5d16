#include <vramscope/schedule/schedule.hpp>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "schedule/schedule_support.hpp"
#include "support/tiny_model.hpp"

namespace vramscope::schedule {
namespace {

TEST(Schedule, EveryStrategyProducesAWellFormedProgram) {
  for (auto s : {job::strategy::single, job::strategy::ddp, job::strategy::fsdp1,
                 job::strategy::fsdp2, job::strategy::zero1, job::strategy::zero2,
                 job::strategy::zero3, job::strategy::megatron}) {
    exact_replay r(build(job_of(s, 4)));
    EXPECT_TRUE(r.well_formed) << static_cast<int>(s);
    EXPECT_GT(r.peak, 0u);
  }
}

// plan builds one program for all ranks when building rank 0's read nothing of its place in
// the mesh (program::rank_specific): every rank must then have that program, event for event.
void expect_rank_specific_tells_the_truth(const job::job_spec& j, const std::string& label) {
  const program first = build(j, 0);
  for (int rank = 1; rank < j.world_size(); ++rank) {
    const program other = build(j, rank);
    const bool same = other.tensors == first.tensors && other.phase_names == first.phase_names &&
                      other.events == first.events;
    if (!first.rank_specific) {
      EXPECT_TRUE(same) << label << ": rank " << rank;
    }
  }
}

// Live bytes just before the `n`th event (counting from 1) that opens phase `name`.
bytes live_at_phase(const program& p, const std::string& name, int n) {
  std::map<std::uint32_t, bytes> sizes;
  bytes live = 0;
  for (const auto& e : p.events) {
    if (e.kind == event_kind::phase && p.phase_names[e.tensor] == name && --n == 0) return live;
    if (e.kind == event_kind::alloc) {
      sizes[e.tensor] = e.size;
      live += e.size;
    } else if (e.kind == event_kind::free && sizes.count(e.tensor) != 0) {
      live -= sizes[e.tensor];
      sizes.erase(e.tensor);
    }
  }
  return 0;
}

// A LitGPT QLoRA job as litgpt's finetune/lora.py runs it (bitsandbytes through Lightning's
// BitsandbytesPrecision, which converts the head too).
job::job_spec litgpt_qlora(const std::string& version) {
  auto j = job_of(job::strategy::single, 1);
  j.training.model_code = job::model_impl::litgpt;
  j.training.loss = job::loss_impl::litgpt;
  j.training.gradient_accumulation = 2;
  j.lora.enabled = true;
  j.lora.base_quantization = dtype::nf4;
  j.lora.quantize_skip = {};
  j.optimizer.kind = job::optimizer_kind::paged_adamw;
  j.framework.litgpt = version;
  return j;
}

// litgpt 0.1-0.5.4 (bitsandbytes 0.42.0) keeps the last micro-batch's graph, and with it each
// 4-bit matmul's input, until the next forward's output: the second micro-batch starts with
// them allocated. bitsandbytes >= 0.44 (litgpt 0.5.5) keeps no input; lit-gpt before 0.1 plans
// its first, longest step, which has no graph before it.
TEST(Schedule, LitgptQloraKeepsTheLastGraphsMatmulInputsToTheNextOutput) {
  const auto at_second_forward = [](const std::string& version) {
    return live_at_phase(build(litgpt_qlora(version)), "forward:embed_tokens", 2);
  };
  const bytes h = 1024, i = 4096, tokens = 512;
  const bytes kept = tokens * 2 * ((h + h + i) + 3 * (h + h + h + i) + h);  // blocks 0-3, head
  EXPECT_EQ(at_second_forward("0.4.0") - at_second_forward("0.5.5"), kept);
  EXPECT_EQ(at_second_forward(""), at_second_forward("0.5.5"));
  // Released once the model's output exists: the backward of the second micro-batch starts
  // with what the first one's did and the gradients accumulated since, as without them.
  const auto growth = [](const std::string& version) {
    const auto p = build(litgpt_qlora(version));
    return live_at_phase(p, "backward:loss", 2) - live_at_phase(p, "backward:loss", 1);
  };
  EXPECT_EQ(growth("0.4.0"), growth("0.5.5"));
  EXPECT_TRUE(exact_replay(build(litgpt_qlora("0.4.0"))).well_formed);
}

// LitGPT's LoRA head under autocast over fp32 weights (bf16-mixed): lora.py's GPT.forward runs
// the frozen head on 128-token slices, and autocast casts its weight for each slice's matmul
// (no cache without a gradient), which keeps the cast: one bf16 copy of the head a slice. One
// token past a multiple of 128 adds a slice; the activations per token are linear, so the
// second difference over three lengths is one cast.
TEST(Schedule, LitgptSlicedHeadKeepsOneAutocastCastASlice) {
  auto j = job_of(job::strategy::single, 1);
  j.training.model_code = job::model_impl::litgpt;
  j.training.loss = job::loss_impl::litgpt;
  j.lora.enabled = true;
  j.precision.params = dtype::bf16;
  j.precision.master = dtype::f32;
  j.precision.autocast = true;
  const auto at_loss = [&](std::uint64_t seq) {
    auto k = j;
    k.training.seq_len = seq;
    const auto p = build(k);
    EXPECT_TRUE(exact_replay(p).well_formed);
    return static_cast<std::int64_t>(live_at_phase(p, "backward:loss", 1));
  };
  const std::int64_t a = at_loss(256), b = at_loss(257), c = at_loss(258);  // 2, 3, 3 slices
  EXPECT_EQ((b - a) - (c - b), std::int64_t{32000} * 1024 * 2);  // the head's bf16 cast
}

// LitGPT fine-tunes a tied model with a head of its own (model::with_own_head): its weight is
// planned, quantised as any Linear under QLoRA, where transformers' job shares the embedding's.
TEST(Schedule, LitgptPlansATiedModelsHeadAsItsOwnWeight) {
  const auto tied = testing::tiny_llama_tied();
  auto lit = job_of(job::strategy::single, 1);
  lit.lora.enabled = true;
  auto hf = lit;
  lit.training.model_code = job::model_impl::litgpt;
  const auto params = [&](const job::job_spec& j) {
    auto p = build_program(tied, j, 0);
    EXPECT_TRUE(p) << (p ? "" : p.error().to_string());
    return exact_replay(*p).peak_of(category::parameters);
  };
  EXPECT_EQ(params(lit) - params(hf), 32000u * 1024u * 2u);  // the bf16 head
  EXPECT_EQ(split_parameters(tied, lit).frozen - split_parameters(tied, hf).frozen,
            32000u * 1024u * 2u);
}

TEST(Schedule, ARankSpecificProgramIsMarkedSo) {
  for (auto s : {job::strategy::single, job::strategy::ddp, job::strategy::fsdp1,
                 job::strategy::fsdp2, job::strategy::zero1, job::strategy::zero2,
                 job::strategy::zero3, job::strategy::megatron}) {
    expect_rank_specific_tells_the_truth(job_of(s, 4), std::to_string(static_cast<int>(s)));
    auto j = job_of(s, 4);
    j.init.meta_device = true;
    j.init.load = job::weight_load::rank0;
    expect_rank_specific_tells_the_truth(j, "meta init " + std::to_string(static_cast<int>(s)));
  }
  auto fsdp1 = job_of(job::strategy::fsdp1, 4);
  EXPECT_FALSE(build(fsdp1).rank_specific);
  fsdp1.init.meta_device = true;
  fsdp1.init.load = job::weight_load::rank0;
  EXPECT_TRUE(build(fsdp1).rank_specific);  // rank 0 loads, the others build on meta
}

// Stops the build at the phase boundary after `phases` phases have begun.
struct stop_after final : program_watcher {
  explicit stop_after(std::size_t n) : phases(n) {}
  bool grown(const program& so_far) override {
    seen_events = so_far.events.size();
    return so_far.phase_names.size() < phases;
  }
  std::size_t phases, seen_events = 0;
};

bool same_events(const program& a, const program& b, std::size_t n) {
  return std::equal(a.events.begin(), a.events.begin() + static_cast<std::ptrdiff_t>(n),
                    b.events.begin());
}

// plan stops building a rank that has run out of memory (predict's replay_while_built): what
// a watcher ends must be the whole program's beginning, up to the phase where it stopped.
TEST(Schedule, AWatcherEndsTheProgramAtAPhaseBoundary) {
  for (auto s : {job::strategy::ddp, job::strategy::fsdp1, job::strategy::fsdp2,
                 job::strategy::zero3, job::strategy::megatron}) {
    auto j = job_of(s, 4);
    j.training.gradient_accumulation = 2;
    const program whole = build(j);
    for (std::size_t phases : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{30},
                               whole.phase_names.size() - 1, whole.phase_names.size()}) {
      stop_after watcher(phases);
      auto cut = build_program(testing::tiny_llama(), j, 0, {}, watcher);
      ASSERT_TRUE(cut);
      const std::string label =
          std::to_string(static_cast<int>(s)) + " after " + std::to_string(phases);
      const bool stopped = phases < whole.phase_names.size();
      EXPECT_EQ(cut->complete, !stopped) << label;
      ASSERT_LE(cut->events.size(), whole.events.size()) << label;
      EXPECT_TRUE(same_events(*cut, whole, cut->events.size())) << label;
      EXPECT_EQ(cut->phase_names.size(), std::min(phases, whole.phase_names.size())) << label;
      EXPECT_TRUE(
          std::equal(cut->phase_names.begin(), cut->phase_names.end(), whole.phase_names.begin()))
          << label;
      if (stopped) {
        EXPECT_EQ(cut->events.size(), watcher.seen_events) << label;  // up to the boundary
        EXPECT_EQ(whole.events[cut->events.size()].kind, event_kind::phase) << label;
      } else {
        EXPECT_EQ(cut->events.size(), whole.events.size()) << label;
        EXPECT_EQ(cut->tensors, whole.tensors) << label;
      }
      std::uint32_t used = 1;
      for (const auto& e : cut->events)
        if (e.kind == event_kind::alloc) used = std::max(used, e.tensor + 1);
      EXPECT_EQ(cut->tensors, used) << label;
      EXPECT_EQ(cut->parameters.has_value(), whole.parameters.has_value()) << label;
    }
  }
}

TEST(Schedule, DdpFp32AdamwHoldsSixteenBytesPerParameterAfterTheStep) {
  auto j = job_of(job::strategy::ddp, 2);
  j.precision.params = j.precision.master = j.precision.reduce = dtype::f32;
  j.parallel.gradient_as_bucket_view = true;
  exact_replay r(build(j));
  const bytes p = testing::tiny_llama().parameters();
  // 4 (weights) + 4 (gradients, as views into the buckets) + 8 (exp_avg, exp_avg_sq).
  EXPECT_EQ(r.at(category::parameters), 4 * p);
  EXPECT_EQ(r.at(category::gradients), 4 * p);
  EXPECT_EQ(r.at(category::optimizer), 8 * p);
}

// Megatron-LM's bytes per parameter (docs/source/api-guide/dist_optimizer.md): bf16 parameters
// with fp32 gradients hold 18 (2 + 4 + 12) without the distributed optimizer and 6 + 12/dp
// with it; fp16 gradients (no --accumulate-allreduce-grads-in-fp32) hold 2 fewer.
TEST(Schedule, MegatronHoldsWhatItsDistributedOptimizerDocumentSays) {
  const bytes p = testing::tiny_llama().parameters();
  auto j = job_of(job::strategy::megatron, 4);  // bf16 params, fp32 master and reduce
  exact_replay plain(build(j));
  EXPECT_EQ(plain.at(category::parameters), 2 * p);
  EXPECT_EQ(plain.at(category::gradients), 4 * p);
  EXPECT_EQ(plain.at(category::optimizer), 12 * p);
  j.parallel.distributed_optimizer = true;
  exact_replay sharded(build(j));
  EXPECT_EQ(sharded.at(category::parameters), 2 * p);
  EXPECT_EQ(sharded.at(category::gradients), 4 * p);
  EXPECT_EQ(sharded.at(category::optimizer), 12 * ((p + 3) / 4));
  // During init the model and the contiguous parameter buffer coexist.
  EXPECT_EQ(sharded.peak_of(category::parameters), 4 * p);
  j.precision.reduce = dtype::bf16;
  EXPECT_EQ(exact_replay(build(j)).at(category::gradients), 2 * p);
}

// ZeRO-3 steps its fp32 partition in sub-groups (stage3.py: the fp32 gradient of one sub-group
// at a time, released before the next): the step's temporaries are the largest sub-group's, not
// the partition's, while the optimizer state stays the whole partition's. A sub-group is whole
// parameters taken in order (_create_fp16_sub_groups), closed once it holds sub_group_size
// partition elements or more, so it can pass sub_group_size by up to one parameter.
TEST(Schedule, Zero3StepsItsPartitionInSubGroups) {
  // tiny_llama with a 1024-entry vocabulary over 4 ranks; each parameter's partition is a
  // quarter of it: embedding and head 262,144, norms 256, q and o 262,144, k and v 65,536,
  // gate, up and down 1,048,576 elements.
  const auto m = testing::tiny_llama(1024);
  auto j = job_of(job::strategy::zero3, 4);
  // The single-tensor AdamW loop over the flat fp32 sub-group: its denominator, beside the fp32
  // gradient copy, 8 bytes an element of the sub-group.
  j.optimizer.foreach_impl = false;
  j.training.seq_len = 16;  // activations and the loss's temporaries well below the step's
  const auto temporaries = [&](const job::job_spec& job) {
    auto p = build_program(m, job, 0);
    EXPECT_TRUE(p) << (p ? "" : p.error().to_string());
    const auto temporary = static_cast<std::size_t>(category::temporary);
    return exact_replay(*p).training_peak_by_category[temporary];
  };
  const auto optimizer_state = [&](const job::job_spec& job) {
    auto p = build_program(m, job, 0);
    return exact_replay(*p).at(category::optimizer);
  };
  const std::uint64_t partition = (m.parameters() + 3) / 4;
  j.parallel.sub_group_size = 1'000'000'000;  // DeepSpeed's default: one sub-group here
  const bytes whole = temporaries(j);
  const bytes state = optimizer_state(j);
  // At 1,500,000 the first sub-group closes at the first block's gate projection (embedding,
  // norm, q, k, v, o and norm make 918,016; the gate 1,966,592); the next one holds up and down
  // (2,097,152), the largest, 597,152 elements past the limit.
  j.parallel.sub_group_size = 1'500'000;
  EXPECT_EQ(whole - temporaries(j), 8 * (partition - 2'097'152));
  EXPECT_EQ(optimizer_state(j), state);
  // 0 makes every parameter its own sub-group: the largest is one MLP projection's partition.
  j.parallel.sub_group_size = 0;
  EXPECT_EQ(whole - temporaries(j), 8 * (partition - 1'048'576));
  // Stages 1 and 2 have no sub-groups.
  j.parallel.kind = job::strategy::zero2;
  j.parallel.sub_group_size = 1'000'000'000;
  const bytes z2 = temporaries(j);
  j.parallel.sub_group_size = 1'500'000;
  EXPECT_EQ(temporaries(j), z2);
}

TEST(Schedule, DdpWithoutBucketViewHoldsGradientsTwiceDuringBackward) {
  auto j = job_of(job::strategy::ddp, 2);
  j.precision.params = j.precision.master = dtype::f32;
  const bytes p = testing::tiny_llama().parameters();
  j.parallel.gradient_as_bucket_view = false;
  EXPECT_EQ(exact_replay(build(j)).peak_of(category::gradients), 8 * p);
  j.parallel.gradient_as_bucket_view = true;
  EXPECT_EQ(exact_replay(build(j)).peak_of(category::gradients), 4 * p);
}

// DDP's gradient buckets: one buffer for every gradient until the second forward, then buckets
// in gradient-ready order, each closed by the tensor that makes it reach its limit.
struct ddp_buckets {
  bytes first_iteration = 0;
  std::size_t first_iteration_buffers = 0;
  std::vector<bytes> rebuilt;
};

ddp_buckets buckets_of(const program& p) {
  ddp_buckets out;
  std::map<std::uint32_t, bytes> init_gradients;
  bool collecting = false;
  std::uint32_t phase = 0;
  for (const auto& e : p.events) {
    phase = phase_after(e, phase);
    const bool gradient = e.cat == category::gradients;
    if (e.kind == event_kind::alloc && gradient && phase == 0) {
      init_gradients[e.tensor] = e.size;
      out.first_iteration += e.size;
      ++out.first_iteration_buffers;
    } else if (e.kind == event_kind::free && init_gradients.count(e.tensor) != 0 && phase != 0) {
      collecting = true;
    } else if (collecting && e.kind == event_kind::alloc) {
      if (!gradient) break;
      out.rebuilt.push_back(e.size);
    }
  }
  return out;
}

// A model whose head (ready first in backward) is smaller than 1 MiB: 64 x 1024 fp32 weights.
ddp_buckets ddp_buckets_with_small_head(std::optional<double> bucket_cap_mb) {
  auto j = job_of(job::strategy::ddp, 2);
  j.precision.params = j.precision.master = j.precision.reduce = dtype::f32;
  j.training.steps = 2;
  j.parallel.bucket_cap_mb = bucket_cap_mb;
  auto p = build_program(testing::tiny_llama(64), j, 0);
  EXPECT_TRUE(p) << (p ? "" : p.error().to_string());
  return buckets_of(*p);
}

TEST(Schedule, DdpBucketsEveryGradientTogetherUntilTheSecondForward) {
  const bytes grads = 4 * testing::tiny_llama(64).parameters();
  const auto b = ddp_buckets_with_small_head(std::nullopt);
  EXPECT_EQ(b.first_iteration_buffers, 1u);  // no bucket limit in the first iteration
  EXPECT_EQ(b.first_iteration, grads);
  ASSERT_GT(b.rebuilt.size(), 2u);
  bytes sum = 0;
  for (auto s : b.rebuilt) sum += s;
  EXPECT_EQ(sum, grads);
  // No bucket_cap_mb passed: the first bucket closes at 1 MiB, with the first 16 MiB MLP weight
  // after the head and the final norm; the others at 25 MiB, each with the tensor reaching it.
  EXPECT_GE(b.rebuilt.front(), 16_MiB);
  EXPECT_LT(b.rebuilt.front(), 17_MiB);
  for (std::size_t i = 1; i + 1 < b.rebuilt.size(); ++i) {
    EXPECT_GE(b.rebuilt[i], 25_MiB) << i;
    EXPECT_LT(b.rebuilt[i], 25_MiB + 16_MiB) << i;
  }
}

TEST(Schedule, DdpBucketCapPassedLimitsTheFirstBucketToo) {
  const auto b = ddp_buckets_with_small_head(25.0);
  ASSERT_GT(b.rebuilt.size(), 2u);
  // The head, the final norm and two 16 MiB MLP weights: the second reaches 25 MiB.
  EXPECT_GE(b.rebuilt.front(), 32_MiB);
  EXPECT_LT(b.rebuilt.front(), 33_MiB);
  for (std::size_t i = 0; i + 1 < b.rebuilt.size(); ++i) EXPECT_GE(b.rebuilt[i], 25_MiB) << i;
}

// The allocations and frees, in program order, of the tensors of at least `at_least` bytes
// that the loss's forward allocates (what is freed is told by the size it was allocated with);
// what the phase frees of earlier tensors (the root's parameters at its post-forward) is left out.
std::vector<std::pair<event_kind, bytes>> loss_forward_events(const program& p, bytes at_least) {
  std::vector<std::pair<event_kind, bytes>> out;
  std::map<std::uint32_t, bytes> sizes;  // the phase's live allocations
  for (const auto& e : p.events) {
    if (phase_name_of(p, e) != "forward:loss") continue;
    if (e.kind == event_kind::alloc) {
      sizes[e.tensor] = e.size;
      if (e.size >= at_least) out.emplace_back(e.kind, e.size);
    } else if (e.kind == event_kind::free) {
      const auto it = sizes.find(e.tensor);
      if (it == sizes.end()) continue;
      if (it->second >= at_least) out.emplace_back(e.kind, it->second);
      sizes.erase(it);
    }
  }
  return out;
}

// The loss's transients in op order: the bf16 logits and their fp32 upcast come before the
// log-softmax output computed from them and go right after it (allocator histories,
// bench/data/snapshots: +1187 +2374 +2374 -2374 -1187 MiB for Qwen2.5-0.5B).
TEST(Schedule, LossAllocatesTheLogitsAndTheirUpcastBeforeTheLogSoftmax) {
  auto j = job_of(job::strategy::fsdp2, 2);  // bf16 compute
  j.training.steps = 1;
  const auto p = build(j);
  const bytes nv = 2 * 512 * 32000;  // tokens x vocab of tiny_llama, job_of's 512 tokens
  const std::vector<std::pair<event_kind, bytes>> expected = {
      {event_kind::alloc, nv}, {event_kind::alloc, 2 * nv}, {event_kind::alloc, 2 * nv},
      {event_kind::free, 2 * nv}, {event_kind::free, nv}};
  EXPECT_EQ(loss_forward_events(p, nv), expected);
}

// FSDP1's reduce-scatter output is the saved gradient shard itself when the reduce dtype is the
// parameter dtype (_accumulate_sharded_grad): one allocation per unit on the post-backward
// stream kept for the optimizer, beside the unsharded gradient cast to the reduce dtype.
TEST(Schedule, Fsdp1KeepsTheReduceScatterOutputAsTheGradientShard) {
  auto j = job_of(job::strategy::fsdp1, 4);  // bf16 compute, fp32 parameters and reduce
  j.training.steps = 1;
  const auto p = build(j);
  std::size_t kept = 0, unsharded_casts = 0, pre_optimizer_frees = 0;
  std::map<std::uint32_t, bool> shards;
  bool optimizer = false;
  for (const auto& e : p.events) {
    if (e.kind == event_kind::phase && phase_name_of(p, e) == "optimizer") optimizer = true;
    if (e.kind == event_kind::alloc && e.stream == streams::reduce) {
      if (e.cat == category::gradients) {
        ++kept;
        shards[e.tensor] = true;
      } else if (e.cat == category::communication) {
        ++unsharded_casts;
      }
    }
    if (e.kind == event_kind::free && !optimizer && shards.count(e.tensor) != 0) ++pre_optimizer_frees;
  }
  EXPECT_GT(kept, 0u);
  EXPECT_EQ(unsharded_casts, kept);  // no separate output tensor beside the kept shard
  EXPECT_EQ(pre_optimizer_frees, 0u);
}

// A rank that builds on the meta device materialises each module with to_empty(recurse=False)
// (_init_utils._materialize_meta_module), which gives embed_tokens and a tied lm_head a Parameter
// each: that rank's root FlatParameter holds the embedding's matrix twice, rank 0's (loaded on
// the CPU, still tied) once. The H200 allocator history of fsdp1-meta-init-sync shows it.
TEST(Schedule, Fsdp1MetaInitUntiesATiedHeadOnTheRanksThatBuildOnMeta) {
  const auto tied = testing::tiny_llama_tied();
  auto j = job_of(job::strategy::fsdp1, 4);
  j.init.meta_device = true;
  j.init.load = job::weight_load::rank0;
  const auto optimizer_of = [&](const model::model_spec& m, int rank) {
    auto p = build_program(m, j, rank);
    EXPECT_TRUE(p.has_value());
    return exact_replay(*p).at(category::optimizer);
  };
  const bytes embedding_shard = 32000u * 1024 / 4;  // elements of one rank's share of [V, h]
  // AdamW's two fp32 states cover one more embedding shard on rank 1.
  EXPECT_EQ(optimizer_of(tied, 1), optimizer_of(tied, 0) + 2 * 4 * embedding_shard);
  EXPECT_EQ(optimizer_of(testing::tiny_llama(), 1), optimizer_of(testing::tiny_llama(), 0));
}

// FSDP1's original parameters are views made on the unshard stream, so the views' backward
// concatenates their gradients (computed on the compute stream, still live) into the flat
// gradient on the unshard stream, one per FlatParameter; a tied head adds the sum of its two
// gradients there first (H200 histories of fsdp1-full-limit and fsdp1-cpuoffload).
TEST(Schedule, Fsdp1ConcatenatesTheParametersGradientsOnTheUnshardStream) {
  const auto tied = testing::tiny_llama_tied();
  auto j = job_of(job::strategy::fsdp1, 4);
  j.training.steps = 1;
  const auto count = [&](const model::model_spec& m) {
    auto p = build_program(m, j, 0);
    EXPECT_TRUE(p.has_value());
    std::map<std::uint32_t, bytes> compute_grads;
    std::size_t flat = 0;
    for (const auto& e : p->events) {
      if (e.kind == event_kind::alloc && e.cat == category::gradients &&
          e.stream == streams::compute)
        compute_grads[e.tensor] = e.size;
      if (e.kind == event_kind::free) compute_grads.erase(e.tensor);
      if (e.kind == event_kind::alloc && e.cat == category::gradients &&
          e.stream == streams::unshard) {
        ++flat;
        EXPECT_FALSE(compute_grads.empty());  // the parameters' own gradients are still there
      }
    }
    return flat;
  };
  EXPECT_EQ(count(testing::tiny_llama()), 5u);  // four blocks and the root
  EXPECT_EQ(count(tied), 6u);                   // and the tied gradients' sum
}

// FSDP1's root pre-backward hook sits on the root module's outputs: with transformers' loss inside
// the model it runs before the loss's backward and, with BACKWARD_PRE, prefetches the last
// block (the H200 history of fsdp1-llama7b-case3-bf16true); with the loss outside the model it
// runs after it, and with BACKWARD_POST nothing is prefetched there.
TEST(Schedule, Fsdp1RootPrefetchesTheLastBlockBeforeALossInsideTheModel) {
  auto j = job_of(job::strategy::fsdp1, 4);
  j.training.steps = 1;
  // Whether the last block's unsharded parameters (an all-gather on the unshard stream) are
  // allocated in backward before the loss's first gradient.
  const auto gathered_before_loss_gradient = [&]() {
    const auto p = build(j);
    bool gradient_seen = false, gathered = false;
    for (const auto& e : p.events) {
      if (e.kind != event_kind::alloc || phase_name_of(p, e).rfind("backward:", 0) != 0) continue;
      if (phase_name_of(p, e) == "backward:loss" && e.cat == category::temporary) gradient_seen = true;
      if (e.stream == streams::unshard && e.cat == category::parameters && !gradient_seen)
        gathered = true;
    }
    return gathered;
  };
  j.training.loss = job::loss_impl::hf;
  EXPECT_TRUE(gathered_before_loss_gradient());
  j.training.loss = job::loss_impl::torchtitan;
  EXPECT_FALSE(gathered_before_loss_gradient());
  j.training.loss = job::loss_impl::hf;
  j.parallel.backward_prefetch = job::prefetch::post;
  EXPECT_FALSE(gathered_before_loss_gradient());
  // Either way the last block is gathered once in its backward, never twice.
  for (auto loss : {job::loss_impl::hf, job::loss_impl::torchtitan}) {
    j.training.loss = loss;
    j.parallel.backward_prefetch = job::prefetch::pre;
    const auto p = build(j);
    std::size_t gathers = 0;
    for (const auto& e : p.events)
      if (e.kind == event_kind::alloc && e.stream == streams::unshard &&
          e.cat == category::parameters && phase_name_of(p, e).rfind("backward:", 0) == 0)
        ++gathers;
    EXPECT_EQ(gathers, 4u) << static_cast<int>(loss);  // the four blocks; the root stays gathered
  }
}

// Under tensor parallelism torchtitan's loss runs loss_parallel()'s handlers: the shifted
// logits join what the saved output is computed from, and exp(shifted) comes and goes before it.
TEST(Schedule, LossParallelTakesItsExpBeforeItSavesTheLogSoftmax) {
  auto j = job_of(job::strategy::fsdp2, 4);
  j.parallel.tp = 2;
  j.training.loss = job::loss_impl::torchtitan;
  j.training.steps = 1;
  const auto p = build(j);
  const bytes l = 512u * 16000;  // tokens x the rank's half of the tiny Llama's vocabulary
  using k = event_kind;
  EXPECT_EQ(loss_forward_events(p, l), (std::vector<std::pair<k, bytes>>{
                      {k::alloc, 2 * l}, {k::alloc, 4 * l}, {k::alloc, 4 * l},  // logits, upcast, shifted
                      {k::alloc, 4 * l}, {k::free, 4 * l},                      // exp(shifted)
                      {k::alloc, 4 * l},                                        // saved log-softmax
                      {k::free, 4 * l}, {k::free, 4 * l}, {k::free, 2 * l}}));
}

// Without a vocabulary-parallel loss a tensor-parallel head gathers its output: the rank's bf16
// shard, the all-gather's output (the shards stacked) and the assembled whole-vocabulary
// logits, then the loss's fp32 tensors of the whole vocabulary (case 4's allocator history,
// bench/data/snapshots/h200-2026-11-26b.tgz: +501 +2004 +2004 -2004 -501 +4008 +4008 MiB).
TEST(Schedule, TensorParallelHeadGathersWholeLogitsForAPlainLoss) {
  auto j = job_of(job::strategy::fsdp2, 4);
  j.parallel.tp = 2;
  j.training.steps = 1;
  const bytes shard = 512u * 16000;  // tokens x the rank's half of the tiny Llama's vocabulary
  const bytes nv = 2 * shard;
  using k = event_kind;
  EXPECT_EQ(loss_forward_events(build(j), shard),
            (std::vector<std::pair<k, bytes>>{{k::alloc, 2 * shard},
                                              {k::alloc, 2 * nv},  // shard, all-gather output
                                              {k::alloc, 2 * nv},
                                              {k::free, 2 * nv},
                                              {k::free, 2 * shard},  // logits
                                              {k::alloc, 4 * nv},
                                              {k::alloc, 4 * nv},  // upcast, saved log-softmax
                                              {k::free, 4 * nv},
                                              {k::free, 2 * nv}}));
  // A head left whole computes the logits itself: nothing to gather.
  j.parallel.tp_head = false;
  EXPECT_EQ(loss_forward_events(build(j), shard),
            (std::vector<std::pair<k, bytes>>{{k::alloc, 2 * nv},
                                              {k::alloc, 4 * nv},
                                              {k::alloc, 4 * nv},
                                              {k::free, 4 * nv},
                                              {k::free, 2 * nv}}));
}

TEST(Schedule, Fsdp2ShardsDivideStateByTheShardCount) {
  auto one = job_of(job::strategy::fsdp2, 1);
  auto eight = job_of(job::strategy::fsdp2, 8);
  exact_replay a(build(one)), b(build(eight));
  EXPECT_NEAR(static_cast<double>(a.at(category::optimizer)) / static_cast<double>(b.at(category::optimizer)),
              8.0, 0.05);
}

TEST(Schedule, MoreShardsNeverIncreaseShardedState) {
  bytes previous = ~bytes{0};
  for (int gpus : {1, 2, 4, 8}) {
    exact_replay r(build(job_of(job::strategy::fsdp1, gpus)));
    const bytes state = r.at(category::optimizer);
    EXPECT_LE(state, previous) << gpus;
    previous = state;
  }
}

TEST(Schedule, CheckpointingNeverIncreasesActivations) {
  auto j = job_of(job::strategy::fsdp2, 2);
  bytes previous = ~bytes{0};
  for (auto ac : {job::checkpointing::none, job::checkpointing::selective, job::checkpointing::full}) {
    j.training.activation_checkpointing = ac;
    const bytes peak = exact_replay(build(j)).peak_of(category::activations);
    EXPECT_LE(peak, previous);
    previous = peak;
  }
}

TEST(Schedule, ShardGradOpKeepsParametersThroughForward) {
  auto full = job_of(job::strategy::fsdp1, 4);
  auto grad_op = full;
  grad_op.parallel.fsdp_sharding = job::sharding::shard_grad_op;
  // Every unsharded block stays until its backward: at least all blocks' padded parameters.
  const bytes grad_op_peak = exact_replay(build(grad_op)).training_peak_of(category::parameters);
  const bytes full_peak = exact_replay(build(full)).training_peak_of(category::parameters);
  EXPECT_GT(grad_op_peak, full_peak);
  EXPECT_GE(grad_op_peak, bytes_of(dtype::bf16, testing::tiny_llama().parameters()));
}

TEST(Schedule, LigerFusedLossNeverMaterialisesLogits) {
  auto j = job_of(job::strategy::fsdp2, 2);
  j.training.seq_len = 2048;
  const bytes hf = exact_replay(build(j)).peak;
  j.training.loss = job::loss_impl::liger_fused;
  EXPECT_LT(exact_replay(build(j)).peak, hf);
}

TEST(Schedule, RecordStreamDependsOnVersionAndEnvironment) {
  auto j = job_of(job::strategy::fsdp2, 8);
  j.framework.version = "2.6";
  EXPECT_TRUE(collectives_record_stream(j));
  j.env["TORCH_NCCL_AVOID_RECORD_STREAMS"] = "1";
  EXPECT_FALSE(collectives_record_stream(j));
  j.env.clear();
  j.framework.version = "2.8";
  EXPECT_FALSE(collectives_record_stream(j));
}

TEST(Schedule, RankOutsideTheJobIsAnError) {
  auto p = build_program(testing::tiny_llama(), job_of(job::strategy::ddp, 2), 5);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message, "rank 5 is outside the job's 2 ranks");
}

TEST(Schedule, VersionNumbers) {
  EXPECT_LT(version_number("2.6"), version_number("2.8"));
  EXPECT_LT(version_number("2.10"), version_number("3.0"));
  EXPECT_GT(version_number("2.10"), version_number("2.9"));
  EXPECT_LT(version_number("0.4.13"), version_number("0.4.14"));
  EXPECT_EQ(version_number("2.6"), version_number("2.6.0"));
  EXPECT_EQ(version_number("2.6.0+cu124"), version_number("2.6"));
  EXPECT_EQ(version_number(std::string(40, '9')), 999'000'000);
}

}  // namespace
}  // namespace vramscope::schedule

namespace vramscope::schedule {
namespace {

TEST(Schedule, CpuOffloadNeverLeavesMoreOnTheGpu) {
  for (auto s : {job::strategy::fsdp1, job::strategy::fsdp2}) {
    auto j = job_of(s, 4);
    const bytes resident = exact_replay(build(j)).peak;
    j.parallel.cpu_offload = true;
    exact_replay offloaded(build(j));
    EXPECT_TRUE(offloaded.well_formed);
    EXPECT_LT(offloaded.peak, resident) << static_cast<int>(s);
    EXPECT_EQ(offloaded.at(category::optimizer), 0u);
  }
}

}  // namespace
}  // namespace vramscope::schedule

namespace vramscope::schedule {
namespace {

// Index of the first event matching `pred`, or the number of events.
template <typename Pred>
std::size_t first_event(const program& p, Pred pred) {
  for (std::size_t i = 0; i < p.events.size(); ++i)
    if (pred(p.events[i])) return i;
  return p.events.size();
}

bool in_phase(const program& p, const event& e, const char* name) {
  return phase_name_of(p, e) == name;
}

// fully_shard runs block by block, then on the root (bench/groundtruth/torch_wrap.py, torchtitan
// apply_fsdp): every block's full parameters come and go before the embedding's (measured init:
// 8672 MiB reserved for Llama-3.1-8B, the plan's root-first order 4674).
TEST(Schedule, Fsdp2ShardsEveryBlockBeforeTheRoot) {
  auto j = job_of(job::strategy::fsdp2, 2);
  j.training.steps = 1;
  const auto p = build(j);
  const bytes embedding = 32000u * 1024 * 4;  // full fp32 embedding, moved to the GPU
  const bytes q = 1024u * 1024 * 4;           // a block's full q_proj
  const auto root = first_event(
      p, [&](const event& e) { return e.kind == event_kind::alloc && e.size == embedding; });
  std::size_t blocks_before = 0;
  for (std::size_t i = 0; i < root; ++i)
    if (p.events[i].kind == event_kind::alloc && p.events[i].size == q) ++blocks_before;
  ASSERT_LT(root, p.events.size());
  EXPECT_EQ(blocks_before, 2u * 4);  // q_proj and o_proj of the four blocks
}

// From torch 2.8 an explicit reshard_after_forward reshards the root too (pytorch#154704): with
// transformers' loss inside the model, after the loss's forward; the root is gathered again at
// the start of backward, before the loss's gradients. Before 2.8 the root stays gathered.
TEST(Schedule, Fsdp2ReshardsTheRootAfterTheLossFromTorch28) {
  auto j = job_of(job::strategy::fsdp2, 2);
  j.training.steps = 1;
  const bytes head = 32000u * 1024 * 2;  // the unsharded bf16 head (and embedding)
  const bytes nv = 4u * 512 * 32000;     // an fp32 logits-sized loss gradient
  for (const char* version : {"2.6", "2.11"}) {
    j.framework.version = version;
    const auto p = build(j);
    std::map<std::uint32_t, bool> unsharded;  // allocated as a head-sized parameter
    std::size_t freed_in_loss = 0, gathered_in_backward = 0;
    bool loss_gradient_seen = false;
    for (const auto& e : p.events) {
      if (e.kind == event_kind::alloc)
        unsharded[e.tensor] = e.size == head && e.cat == category::parameters;
      if (e.kind == event_kind::free && in_phase(p, e, "forward:loss") && unsharded[e.tensor])
        ++freed_in_loss;
      if (e.kind == event_kind::alloc && in_phase(p, e, "backward:loss")) {
        if (e.size == nv && e.cat != category::parameters) loss_gradient_seen = true;
        if (unsharded[e.tensor] && !loss_gradient_seen) ++gathered_in_backward;
      }
    }
    const std::size_t expected = std::string(version) == "2.11" ? 2 : 0;
    EXPECT_EQ(freed_in_loss, expected) << version;
    EXPECT_EQ(gathered_in_backward, expected) << version;
  }
}

// FSDPParamGroup.post_backward reshards, then drops the previous group's reduce-scatter input
// before foreach_reduce allocates the next: never two inputs at once (measured: -832 +832 MiB
// per Llama-3.1-8B block).
TEST(Schedule, Fsdp2DropsThePreviousReduceScatterInputBeforeTheNext) {
  auto j = job_of(job::strategy::fsdp2, 2);
  j.training.steps = 1;
  const auto p = build(j);
  const bytes block_input = 15206400u * 4;  // a tiny Llama block's parameters, fp32
  std::map<std::uint32_t, bool> inputs;
  std::size_t live = 0, most = 0, seen = 0;
  for (const auto& e : p.events) {
    if (e.kind == event_kind::alloc && e.cat == category::communication && e.size == block_input &&
        e.stream == streams::compute) {
      inputs[e.tensor] = true;
      most = std::max(most, ++live);
      ++seen;
    } else if (e.kind == event_kind::free && inputs.count(e.tensor) != 0) {
      --live;
    }
  }
  EXPECT_EQ(seen, 4u);
  EXPECT_EQ(most, 1u);
}

// Autograd creates each of the root's unsharded gradients in the backward of the unit that
// uses it: the head's with the loss's, the embedding's last of all.
TEST(Schedule, Fsdp2RootGradientsComeWithTheirUnitsBackward) {
  auto j = job_of(job::strategy::fsdp2, 2);
  j.training.steps = 1;
  const auto p = build(j);
  const bytes full = 32000u * 1024 * 2;
  std::vector<std::string> phases;
  for (const auto& e : p.events)
    if (e.kind == event_kind::alloc && e.cat == category::gradients && e.size == full)
      phases.push_back(phase_name_of(p, e));
  EXPECT_EQ(phases, (std::vector<std::string>{"backward:lm_head", "backward:embed_tokens"}));
}

// Under full checkpointing each block's output is the next block's checkpoint input: the
// forward ends with one tensor of the residual stream per block kept and nothing else of theirs.
TEST(Schedule, CheckpointedBlocksPassTheirOutputOnAsTheNextInput) {
  auto j = job_of(job::strategy::fsdp2, 2);
  j.training.steps = 1;
  j.training.activation_checkpointing = job::checkpointing::full;
  auto model = testing::tiny_llama();
  model.text.gated_mlp = true;  // a Llama block: SwiGLU, no shared expert
  model.text.shared_expert_intermediate = 0;
  auto built = build_program(model, j, 0);
  ASSERT_TRUE(built);
  const program& p = *built;
  exact_replay r(p);
  EXPECT_TRUE(r.well_formed);
  // Live activations when the loss starts: the four block inputs (bf16, 512 x 1024) and, of
  // that size, the final norm's normalised value and its output, the head's input.
  std::map<std::uint32_t, bytes> live;
  bytes now = 0, peak = 0;
  for (const auto& e : p.events) {
    if (in_phase(p, e, "forward:loss")) break;
    if (e.kind == event_kind::alloc && e.cat == category::activations) {
      live[e.tensor] = e.size;
      peak = std::max(peak, now += e.size);
    }
    if (e.kind == event_kind::free && live.count(e.tensor) != 0) {
      now -= live[e.tensor];
      live.erase(e.tensor);
    }
  }
  // The most at once, in the last block's MLP: the token ids the embedding keeps, the four
  // inputs, the attention's residual sum, the second norm's output, SiLU(gate), up and their
  // product (4096 wide).
  const bytes x = 2u * 512 * 1024, inner = 2u * 512 * 4096;
  EXPECT_EQ(peak, 8u * 512 + 4 * x + 2 * x + 3 * inner);
  std::size_t stream_tensors = 0;
  for (const auto& [id, size] : live)
    if (size == 2u * 512 * 1024) ++stream_tensors;
  EXPECT_EQ(stream_tensors, 4u + 2);
}

}  // namespace
}  // namespace vramscope::schedule

namespace vramscope::schedule {
namespace {

// The allocations of `cat` in phase `name` (the first one of that name), in order.
std::vector<bytes> allocations_in(const program& p, const char* name, category cat) {
  std::vector<bytes> out;
  std::uint32_t phase = ~0u;
  std::uint32_t current = 0;
  for (const auto& e : p.events) {
    current = phase_after(e, current);
    if (phase == ~0u && p.phase_names[current] == name) phase = current;
    if (current == phase && e.kind == event_kind::alloc && e.cat == cat) out.push_back(e.size);
  }
  return out;
}

// DDP's constructor broadcasts the module states from rank 0 (broadcast_coalesced,
// c10d/comm.cpp): 250 MiB buckets, each closed by the tensor that makes it reach the limit, a
// bucket of one tensor broadcast in place, at most two buckets in flight (measured for
// Qwen2.5-0.5B: the embedding alone, then +251 +261 -251 +251 -261 ... MiB).
TEST(Schedule, DdpBroadcastsModuleStatesInBucketsTwoInFlight) {
  auto j = job_of(job::strategy::ddp, 2);
  j.precision.params = j.precision.master = dtype::f32;
  const auto model = testing::tiny_llama(100000, 1024, 4096, 24);  // a 390 MiB embedding
  auto built = build_program(model, j, 0);
  ASSERT_TRUE(built) << built.error().to_string();
  std::map<std::uint32_t, bytes> alive;
  std::vector<bytes> buckets;
  std::size_t most = 0;
  for (const auto& e : built->events) {
    if (phase_after(e, 0) != 0) break;
    if (e.kind == event_kind::alloc && e.cat == category::communication) {
      alive[e.tensor] = e.size;
      buckets.push_back(e.size);
      most = std::max(most, alive.size());
    } else if (e.kind == event_kind::free) {
      alive.erase(e.tensor);
    }
  }
  EXPECT_TRUE(alive.empty());
  EXPECT_EQ(most, 2u);
  ASSERT_GT(buckets.size(), 2u);
  const bytes largest_layer_tensor = 4 * 4096 * 1024;     // an MLP matrix
  for (std::size_t i = 0; i + 1 < buckets.size(); ++i) {  // the embedding is in none of them
    EXPECT_GE(buckets[i], 250_MiB) << i;
    EXPECT_LT(buckets[i], 250_MiB + largest_layer_tensor) << i;
  }
}

// Under autocast the embedding lookup reads the fp32 weight (no cast), and a tied head's
// linear casts it at the loss and keeps the cast until its backward, where the weight's
// first gradient, its `.grad`, is made; the embedding's own gradient is added into it at the
// end of backward (allocator history of ddp-bf16mixed-sgd: +260 MiB at the head, freed in its
// backward, +519 MiB `.grad` there, the embedding's 519 MiB made and freed at the end).
TEST(Schedule, DdpAutocastCastsATiedHeadAtTheLossAndGivesItTheFirstGradient) {
  auto j = job_of(job::strategy::ddp, 2);
  j.precision.autocast = true;  // bf16 compute over fp32 weights
  j.training.steps = 1;
  const auto model = testing::tiny_llama_tied();
  auto built = build_program(model, j, 0);
  ASSERT_TRUE(built) << built.error().to_string();
  const auto& p = *built;
  const bytes vh = 32000 * 1024;
  EXPECT_TRUE(allocations_in(p, "forward:embed_tokens", category::parameters).empty());
  EXPECT_EQ(allocations_in(p, "forward:loss", category::parameters), (std::vector<bytes>{2 * vh}));
  EXPECT_EQ(allocations_in(p, "backward:loss", category::gradients), (std::vector<bytes>{4 * vh}));
  EXPECT_TRUE(allocations_in(p, "backward:embed_tokens", category::gradients).empty());
  EXPECT_EQ(allocations_in(p, "backward:embed_tokens", category::temporary),
            (std::vector<bytes>{4 * vh}));
  // The first iteration's one bucket beside the `.grad` tensors: the tied gradient once.
  EXPECT_EQ(exact_replay(p).peak_of(category::gradients), 2 * 4 * model.parameters());
}

// Under autocast a Llama block runs op by op and casts each weight just before its matmul:
// the block's first allocation is its fp32 input, not a weight's cast.
TEST(Schedule, DdpAutocastCastsEachWeightBeforeItsMatmul) {
  auto j = job_of(job::strategy::ddp, 2);
  j.precision.autocast = true;
  j.training.steps = 1;
  auto model = testing::tiny_llama();
  // A gated MLP without a shared expert, as Llama has (tiny_llama's positional stack_shape
  // leaves gated_mlp false and shared_expert_intermediate 1).
  model.text.gated_mlp = true;
  model.text.shared_expert_intermediate = 0;
  auto built = build_program(model, j, 0);
  ASSERT_TRUE(built) << built.error().to_string();
  const auto& p = *built;
  std::vector<category> order;
  std::uint32_t layer = ~0u;
  std::uint32_t current = 0;
  for (const auto& e : p.events) {
    current = phase_after(e, current);
    if (layer == ~0u && p.phase_names[current] == "forward:layers.0") layer = current;
    if (current == layer && e.kind == event_kind::alloc) order.push_back(e.cat);
  }
  ASSERT_GT(order.size(), 4u);
  EXPECT_EQ(order.front(), category::activations);
  EXPECT_EQ(std::count(order.begin(), order.end(), category::parameters),
            7);  // q k v o gate up down
}

}  // namespace
}  // namespace vramscope::schedule

namespace vramscope::schedule {
namespace {

// The autograd engine runs backward on its own thread, whose cuBLAS handle makes a workspace of
// its own at the first matmul of the first backward, kept for the process: every allocator
// history of bench/data/snapshots ends with two 32 MiB blocks, the second made in the head's
// backward just after its weight's gradient (ddp-bf16mixed-sgd: +260 +32 +7 MiB).
TEST(Schedule, TheAutogradThreadMakesASecondCublasWorkspaceInTheFirstBackward) {
  auto j = job_of(job::strategy::ddp, 2);
  j.precision.autocast = true;
  j.training.steps = 2;
  auto model = testing::tiny_llama_tied();
  model.text.gated_mlp = true;  // as Llama (see DdpAutocastCastsEachWeightBeforeItsMatmul)
  model.text.shared_expert_intermediate = 0;
  auto built = build_program(model, j, 0);
  ASSERT_TRUE(built) << built.error().to_string();
  const auto& p = *built;
  std::map<std::uint32_t, std::pair<bytes, std::string>> alive;
  for (const auto& e : p.events) {
    if (e.kind == event_kind::alloc && e.cat == category::temporary)
      alive[e.tensor] = {e.size, phase_name_of(p, e)};
    if (e.kind == event_kind::free) alive.erase(e.tensor);
  }
  std::vector<std::string> workspaces;  // the phases that made a 32 MiB block kept to the end
  for (const auto& [id, what] : alive)
    if (what.first == 32_MiB) workspaces.push_back(what.second);
  EXPECT_EQ(workspaces, (std::vector<std::string>{"forward:layers.0", "backward:loss"}));
  // Right after the head's weight gradient (the cast's, vocabulary x hidden in bf16).
  const bytes weight_gradient = 2 * 32000 * 1024;
  for (std::size_t i = 1; i < p.events.size(); ++i)
    if (p.events[i].kind == event_kind::alloc && p.events[i].size == 32_MiB &&
        phase_name_of(p, p.events[i]) == "backward:loss") {
      EXPECT_EQ(p.events[i - 1].size, weight_gradient);
      break;
    }
}

}  // namespace
}  // namespace vramscope::schedule
