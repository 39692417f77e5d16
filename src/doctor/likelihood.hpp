#pragma once
// Every threshold the rules weigh facts with, and the likelihood levels they give a cause, in one
// place with the source of each number. A rule never compares with a literal of its own: it
// names one of these, so a reader can check the diagnosis against its sources here.

#include <cstdint>

#include <vramscope/core/units.hpp>

namespace vramscope::doctor::likelihood {

// ---- Levels. A finding's likelihood is one of these, raised or lowered by one step where a fact
// for or against it weighs; diagnose() ranks by it. The steps only order causes: they are not
// probabilities measured on anything.
inline constexpr double decisive = 0.95;  // the input says so outright (a traceback frame of the phase)
inline constexpr double strong = 0.85;    // the mechanism's figures are all there and agree
inline constexpr double likely = 0.7;     // most figures agree; one is missing or estimated
inline constexpr double possible = 0.5;   // consistent with the facts, not shown by them
inline constexpr double weak = 0.3;       // the facts argue against it, but do not rule it out
inline constexpr double step = 0.1;       // one fact for or against

// ---- Memory outside PyTorch's cache.
// One CUDA context: 274 MiB with lazy module loading (the default since PyTorch 1.13 and CUDA
// 11.7) and 636 MiB loaded eagerly (pytorch PR #86509's measurement); "more than 1000 MB" before
// CUDA 11.7 (maintainer, pytorch #107667). A process holding no more than this on a GPU holds
// a context (and a few tensors), not a workload.
inline constexpr bytes context_min = 256_MiB;
inline constexpr bytes context_max = 1_GiB;
// What else a process may hold outside PyTorch's cache: NCCL's communicator buffers, "hundreds
// of MB to ~1.6 GB" (reference/overheads.md 2). Where a message does not say what the process
// holds (torch < 2.1), memory outside it is only counted beyond its cache, a context and these.
inline constexpr bytes nccl_buffers_max = 1638_MiB;
// Data-parallel ranks hold the same model, gradients and optimizer state; what differs between
// them is their batches' activations and the allocator's cache. Processes on one GPU within 5 %
// of each other's size are read as such ranks (GPU001); test workers or other users' jobs that
// share a GPU differ far more (tests/data/threads 611 and 731: 0.3 to 9.2 GiB).
inline constexpr double equal_ranks_spread = 1.05;
// Two readings of one figure that a paste prints for two variants of a run (a benchmark table)
// are the same figure when within 1 % of each other: the tables print three to six digits, so
// rounding alone moves them well under that, and a change in the live tensors moves them more.
inline constexpr double same_reading_spread = 1.01;

// ---- Fragmentation. At an out-of-memory error the caching allocator has already released every
// cached segment it could and retried (CUDACachingAllocator's release_cached_blocks before the
// error), so what the message calls "reserved but unallocated" sits in split segments that could
// not serve the request. It explains the error when defragmenting would leave room for the next
// request of the same size (free + cached >= 2 x requested) and it is a sizeable share of what
// the process reserved: PyTorch's own advice is worded "reserved >> allocated" (torch < 2.1) and
// "reserved but unallocated memory is large" (2.1+); a tenth is the share taken as large in
// memory_stats (twice that for a peak-to-peak gap, weigh_stats).
inline constexpr double cached_share_large = 0.10;
// In an out-of-memory message, PyTorch's own test for fragmentation: "If reserved memory is >>
// allocated memory try setting max_split_size_mb to avoid fragmentation" (CUDACachingAllocator.cpp,
// torch 1.10 to 2.0), ">>" read as at least twice: the pieces the request missed are at least as
// much as the live tensors, so defragmented the process could hold its tensors twice over. Below
// that the tensors are most of what the process holds, and a cache that covers one request
// moves the failure a few allocations on: the job's size comes first, fragmentation second.
inline constexpr double reserved_over_allocated_fragmented = 2.0;
// A cache worth weighing in itself: memory statistics whose reserved - allocated gap is below it
// are not read as fragmentation (FRAG001's weigh_stats), and an out-of-memory message whose cache
// is below it and a small share of the reserve ranks fragmentation below the readings the message
// is silent on. A gigabyte is the order of the headroom kept for fragmentation in practice
// (tests/data/threads 755: a flat 1 GB reserve that 1.83 GiB of fragments outgrew).
inline constexpr bytes cache_sizeable_min = 1_GiB;

// A request split between the device and the cache: the device's free memory is short of the
// request, and the shortfall is small beside a sizeable cache (cache_sizeable_min). With
// expandable segments a free block followed by unmapped address space counts, for best fit, as
// its own size plus that range (reference/allocator-torch.md 3.1), so a cached piece at a
// segment's end joins the free memory; without them neither alone serves the request. Read as
// such when the device had at least this share of the request free: it supplies the greater
// part, and the cache only the rest. A GPU the process has filled (a few per cent free) leaves
// the whole request to the cache's pieces: the job is at the wall, defragmented or not.
inline constexpr double free_share_of_split_request = 0.5;

// What live blocks can pin (reference/allocator-torch.md 3, 5): at an out-of-memory error the
// allocator has freed every whole cached segment, so what stays cached sits in segments that hold
// a live block (or in blocks still waiting on another stream's events). Requests of at most
// small_request_max go to the small pool, whose segments are small_segment bytes; every block is a
// multiple of min_block. Live tensors of less than small_request_max in all are all small blocks,
// so they pin at most (allocated / min_block) small segments: cache beyond that was held by
// something else than fragmentation.
inline constexpr bytes min_block = 512;                    // kMinBlockSize
inline constexpr bytes small_request_max = 1_MiB;          // kSmallSize
inline constexpr bytes small_segment = 2_MiB;              // kSmallBuffer

// ---- Which ranks touch GPU 0. Ranks > 0 that create a context on GPU 0 each hold about one
// context there (context_max), so processes of at most that size on GPU 0 beside a large one are
// other ranks' contexts (GPU001), not another workload (PROC001).

// ---- JAX's pool. XLA's BFC pool is fraction x the memory the client sees (total since
// xla#58638; free at start before), allocated at the first operation beside a context
// (reference/jax.md 2.1). A GPU shows context + fraction x (total - driver reserve) with the
// context between context_min and context_max, and the driver reserve at most
// driver_reserve_max (480 MiB on an H100: nvidia-smi -q "Reserved").
inline constexpr bytes driver_reserve_max = 512_MiB;
inline constexpr double jax_default_fractions[] = {0.75, 0.9};  // since jaxlib 0.4.14; before

// ---- Other runtimes' up-front pools (JAX001 names them too). PaddlePaddle's naive_best_fit
// strategy, the default before Paddle 2.0 (auto_growth since), takes
// FLAGS_fraction_of_gpu_memory_to_use of the free memory as its first chunk (0.92 on Linux, 0.5
// on Windows: paddle/fluid/platform/gpu_info.cc), and Paddle Inference's
// enable_use_gpu(memory_pool_init_size_mb) sets that fraction from the size it is given; a
// request above the buddy allocator's largest chunk goes to cudaMalloc directly
// (buddy_allocator.cc, "more than max chunk size": the system allocator), so it has only what the
// pool left. Its error message then lacked the "X memory has been allocated" figure the auto_growth
// era added.
inline constexpr double paddle_default_fractions[] = {0.92, 0.5};

// ---- record_stream: active 30 % and 1 GiB above allocated is more than the few in-flight
// buffers of a step (NCCL001).
inline constexpr double active_over_allocated = 1.3;
inline constexpr bytes active_gap_min = 1_GiB;

// ---- Evaluation told from a step by the failed tensor's batch. A tensor of rank 3 or more (an
// image batch [N, H, W, C], a sequence batch [N, T, D]) whose leading dimension is at least the
// smallest standard evaluation split holds a whole split in one batch: MNIST's, Fashion-MNIST's
// and CIFAR-10/100's test sets have 10,000 images (SVHN's 26,032, ImageNet's validation set
// 50,000), while a training step's batch on one GPU is two orders below that (Goyal et al. 2017,
// "Accurate, Large Minibatch SGD": 8,192 images over 256 GPUs, 32 each; Keras's default batch is
// 32). Feeding the whole test array at once (TensorFlow 1's `accuracy.eval(feed_dict={x:
// mnist.test.images})`, a Keras model called on the whole array) is the usual way to build one.
inline constexpr std::int64_t whole_split_min = 10'000;

// ---- A load's copy in memory statistics. A training step frees and allocates its activations
// every iteration, so the allocator's total allocated (memory_summary's "Tot Alloc") grows far
// beyond its peak within a few steps; a program that only built a model and loaded its weights
// allocated little beyond its peak (load_total_over_peak_max). When it also freed, after that
// peak, at least half of what it still holds (load_copy_min), a copy of the tensors it kept
// existed once and was dropped: the state dict torch.load restored onto the GPU beside the
// model's own parameters (tests/data/threads 984: 7762 MB peak and total, 3881 MB kept and freed).
inline constexpr double load_total_over_peak_max = 1.05;
inline constexpr double load_copy_min = 0.5;

// ---- Small tensors piling up (LEAK001, a memory summary's counts). A training job's live
// tensors are its parameters, their gradients and optimizer state and one step's saved
// activations: Llama-3.1-405B has 1,137 parameter tensors (126 blocks of 9, the embedding, the
// final norm and the head), four live copies of each under AdamW and some 30 saved tensors per
// block, under 10^4 in all. A hundred thousand live allocations (kept_allocations_min) is an order
// above any model's own. Allocations of 1 MiB or less come from the small pool (kSmallSize,
// c10/cuda/CUDACachingAllocator.cpp), where no weight matrix of such a model goes; when it holds
// most of the allocated bytes (small_pool_share_min), the pile is small tensors made one per
// iteration and kept: losses and metrics stored with their graphs, per-step results appended to a
// list (tests/data/threads 946: 156,071 live allocations, 820 of 822 MB in the small pool).
inline constexpr std::uint64_t kept_allocations_min = 100'000;
inline constexpr double small_pool_share_min = 0.9;

// ---- A BFC pool's limit set by hand. TensorFlow's pool takes by default the memory free when
// the device was created less a reserve for the system (225 MiB to 1.5 GiB by compute
// capability; gpu_device.cc, MinSystemMemory), or per_process_gpu_memory_fraction x the total;
// JAX's takes XLA_PYTHON_CLIENT_MEM_FRACTION x the total. The driver's free and total figures are
// not round, so neither are those limits. A logical device's memory_limit is given in MiB
// (tf.config.LogicalDeviceConfiguration), and people write round sizes (512, 1024, 4096): a limit
// that is a whole multiple of set_pool_limit_unit is one somebody set.
inline constexpr bytes set_pool_limit_unit = 256_MiB;
inline constexpr bool pool_limit_set(bytes limit) {
  return limit > 0 && limit % set_pool_limit_unit == 0;
}
// A pool whose in-use bytes are within this share of its limit is full (InUse of Limit).
inline constexpr double pool_full_share = 0.99;

// ---- Plans and observations: beyond this relative gap the plan is not trusted for the job
// (PRED001), and a plan this far under capacity argues against "the job does not fit".
inline constexpr double plan_tolerance = 0.10;

}  // namespace vramscope::doctor::likelihood
