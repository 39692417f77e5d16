#include <vramscope/job/resolve.hpp>

#include <vramscope/job/job_reader.hpp>
#include <vramscope/job/overrides.hpp>

#include <gtest/gtest.h>

#include <algorithm>

namespace vramscope::job {
namespace {

std::string first_error(const std::string& yaml) {
  auto job = parse_job_yaml(yaml, "job.yaml");
  return job ? "(valid)" : job.error().to_string();
}

// Messages of the warnings, without locations.
std::vector<std::string> warning_messages(const std::string& yaml) {
  warnings notes;
  auto job = parse_job_yaml(yaml, "job.yaml", &notes);
  EXPECT_TRUE(job) << job.error().to_string();
  std::vector<std::string> out;
  for (const auto& n : notes) out.push_back(n.message);
  return out;
}

// ---- derived values ---------------------------------------------------------------------------

TEST(Resolve, DerivesShardDegreeFromWorldSize) {
  auto job = parse_job_yaml("hardware: { nodes: 4 }\nparallel: { tp: 4, dp_replicate: 2 }\n", "j");
  ASSERT_TRUE(job) << job.error().to_string();
  EXPECT_EQ(job->parallel.dp_shard, 4);  // 32 / (4 x 2)
}

TEST(Resolve, UnknownGpuNeedsGpuMemory) {
  EXPECT_EQ(first_error("hardware:\n  gpu: H100-90GB\n"),
            "job.yaml:2:8: hardware.gpu: unknown GPU \"H100-90GB\" (did you mean \"H100-80GB\"?); "
            "known GPUs: V100-16GB, V100-32GB, T4, A10, A10G, RTX-3090, RTX-A6000, A40, A100-40GB, "
            "A100-80GB, L4, RTX-4090, L40, L40S, RTX-6000-Ada, H100-PCIe, H100-80GB, H100-NVL, "
            "H200, B200; for another GPU set hardware.gpu_memory\n"
            "  gpu: H100-90GB\n"
            "       ^ near here");
  const auto notes = warning_messages("hardware: { gpu: MI300X, gpu_memory: 192GiB }\n");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0], "hardware.compute_capability: GPU \"MI300X\" is not in the catalog: "
                      "assuming 8.0; set hardware.compute_capability");
}

TEST(Resolve, DriverReservationComesFromTheCatalogForTheWholeGpu) {
  auto h100 = parse_job_yaml("hardware: { gpu: H100-80GB }\n", "j");
  ASSERT_TRUE(h100) << h100.error().to_string();
  EXPECT_EQ(h100->hardware.driver_reserved, 480 * MiB);
  EXPECT_EQ(usable_capacity(h100->hardware), (81559 - 480) * MiB);
  // The catalog's memory given explicitly is still the whole GPU.
  auto whole = parse_job_yaml("hardware: { gpu: H100-80GB, gpu_memory: 81559MiB }\n", "j");
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->hardware.driver_reserved, 480 * MiB);
  // Part of a GPU (a MIG slice): nothing is assumed.
  auto slice = parse_job_yaml("hardware: { gpu: H100-80GB, gpu_memory: 40GiB }\n", "j");
  ASSERT_TRUE(slice);
  EXPECT_EQ(slice->hardware.driver_reserved, 0u);
  // Every catalog GPU has its figure (the H200's from our own records).
  auto h200 = parse_job_yaml("hardware: { gpu: H200 }\n", "j");
  ASSERT_TRUE(h200);
  EXPECT_EQ(h200->hardware.driver_reserved, 615 * MiB);
  // Set by hand, it follows the user; --set of another GPU re-derives it.
  auto set = parse_job_yaml("hardware: { gpu: H100-80GB, driver_reserved: 600MiB }\n", "j");
  ASSERT_TRUE(set);
  EXPECT_EQ(set->hardware.driver_reserved, 600 * MiB);
  auto moved = *h100;
  ASSERT_TRUE(apply_override(moved, "hardware.gpu=A100-40GB"));
  ASSERT_TRUE(resolve_job(moved));
  EXPECT_EQ(moved.hardware.driver_reserved, 512 * MiB);
}

TEST(Resolve, DriverReservationMustLeaveSomeMemory) {
  EXPECT_EQ(first_error("hardware: { gpu: T4, driver_reserved: 16GiB }\n").rfind(
                "job.yaml:1:39: hardware.driver_reserved: 16.00 GiB is not less than the GPU's "
                "memory (15.00 GiB)", 0),
            0u)
      << first_error("hardware: { gpu: T4, driver_reserved: 16GiB }\n");
}

TEST(Resolve, OptimizerStateFollowsTheWeightsTheOptimizerSteps) {
  auto state_of = [](const std::string& yaml) {
    auto job = parse_job_yaml(yaml, "j");
    EXPECT_TRUE(job) << job.error().to_string();
    return job ? job->optimizer.state : dtype::f64;
  };
  EXPECT_EQ(state_of("optimizer: adamw\n"), dtype::f32);
  EXPECT_EQ(state_of("precision: bf16-true\n"), dtype::bf16);
  EXPECT_EQ(state_of("precision: bf16-param\n"), dtype::f32);
  EXPECT_EQ(state_of("precision: bf16-true\nparallel: { strategy: ddp }\n"), dtype::bf16);
  // DeepSpeed steps an fp32 master partition whatever precision.master says.
  EXPECT_EQ(state_of("precision: bf16-true\nparallel: { strategy: zero2 }\n"), dtype::f32);
  // Given, it wins; a later override of the precision re-derives only an unset state.
  EXPECT_EQ(state_of("precision: bf16-true\noptimizer: { state: fp32 }\n"), dtype::f32);
  auto job = parse_job_yaml("precision: bf16-true\n", "j");
  ASSERT_TRUE(job);
  ASSERT_TRUE(apply_overrides(*job, {"precision=bf16-mixed"}));
  ASSERT_TRUE(resolve_job(*job));
  EXPECT_EQ(job->optimizer.state, dtype::f32);
}

TEST(Resolve, JaxStrategySetsFrameworkAndJaxlib) {
  auto job = parse_job_yaml("parallel: { strategy: jax, fsdp_devices: 2 }\n", "j");
  ASSERT_TRUE(job) << job.error().to_string();
  EXPECT_EQ(job->framework.name, "jax");
  EXPECT_EQ(job->framework.version, "0.5.0");
  EXPECT_EQ(job->framework.jaxlib, "0.5.0");
  auto pinned = parse_job_yaml(
      "parallel: { strategy: jax }\nframework: { name: jax, version: \"0.4.13\" }\n", "j");
  ASSERT_TRUE(pinned);
  EXPECT_EQ(pinned->framework.jaxlib, "0.4.13");
}

TEST(Resolve, DdpWithMixedDtypesUsesAutocast) {
  auto job = parse_job_yaml("parallel: { strategy: ddp }\n", "j");
  ASSERT_TRUE(job);
  EXPECT_TRUE(job->precision.autocast);
  auto explicit_off = parse_job_yaml("parallel: { strategy: ddp }\nprecision: bf16-param\n", "j");
  ASSERT_TRUE(explicit_off);
  EXPECT_FALSE(explicit_off->precision.autocast);
}

TEST(Resolve, SingleStrategyUsesOneGpu) {
  auto job = parse_job_yaml("parallel: { strategy: single }\n", "j");
  ASSERT_TRUE(job) << job.error().to_string();
  EXPECT_EQ(job->world_size(), 1);
  EXPECT_EQ(first_error("hardware: { gpus_per_node: 2 }\nparallel: { strategy: single }\n"),
            "job.yaml:1:28: hardware.gpus_per_node: strategy single runs on one GPU, but the job "
            "has 2 GPUs (hardware.nodes 1 x hardware.gpus_per_node 2)\n"
            "hardware: { gpus_per_node: 2 }\n"
            "                           ^ near here");
}

TEST(Resolve, ResolvingTwiceGivesTheSameJob) {
  auto job = parse_job_yaml("parallel: { strategy: jax }\n", "j");
  ASSERT_TRUE(job);
  job_spec again = *job;
  ASSERT_TRUE(resolve_job(again));
  EXPECT_EQ(again.framework.version, job->framework.version);
  EXPECT_EQ(again.parallel.dp_shard, job->parallel.dp_shard);
  EXPECT_EQ(again.provenance.derived, job->provenance.derived);
}

// ---- errors -----------------------------------------------------------------------------------

TEST(ResolveErrors, WorldSizeMustBeDivisible) {
  EXPECT_EQ(first_error("parallel:\n  tp: 3\n"),
            "job.yaml:2:7: parallel.tp: tp 3 x dp_replicate 1 = 3 does not divide the job's 8 GPUs "
            "(hardware.nodes 1 x hardware.gpus_per_node 8)\n"
            "  tp: 3\n"
            "      ^ near here");
  EXPECT_EQ(first_error("parallel: { strategy: fsdp2, tp: 2, dp_shard: 2 }\n"),
            "job.yaml:1:47: parallel.dp_shard: tp 2 x dp_replicate 1 x dp_shard 2 = 4 ranks, but "
            "the job has 8 GPUs (hardware.nodes 1 x hardware.gpus_per_node 8)\n"
            "parallel: { strategy: fsdp2, tp: 2, dp_shard: 2 }\n"
            "                                              ^ near here");
}

TEST(ResolveErrors, OptionsBelongToTheirStrategy) {
  EXPECT_EQ(first_error("parallel:\n  strategy: zero2\n  offload_param: true\n"),
            "job.yaml:3:18: parallel.offload_param: applies to zero3 only (parallel.strategy is "
            "zero2); for fsdp1/fsdp2 use parallel.cpu_offload\n"
            "  offload_param: true\n"
            "                 ^ near here");
  EXPECT_EQ(first_error("parallel: { strategy: fsdp1, reshard_after_forward: false }\n"),
            "job.yaml:1:53: parallel.reshard_after_forward: applies to fsdp2 only "
            "(parallel.strategy is fsdp1); for fsdp1 use parallel.fsdp_sharding\n"
            "parallel: { strategy: fsdp1, reshard_after_forward: false }\n"
            "                                                    ^ near here");
  EXPECT_EQ(first_error("parallel: { strategy: fsdp2, fsdp_sharding: shard_grad_op }\n"),
            "job.yaml:1:45: parallel.fsdp_sharding: applies to fsdp1 only (parallel.strategy is "
            "fsdp2); for fsdp2 use parallel.reshard_after_forward and parallel.dp_replicate\n"
            "parallel: { strategy: fsdp2, fsdp_sharding: shard_grad_op }\n"
            "                                            ^ near here");
  EXPECT_EQ(first_error("parallel: { strategy: ddp, cpu_offload: true }\n"),
            "job.yaml:1:41: parallel.cpu_offload: applies to fsdp1, fsdp2 only (parallel.strategy "
            "is ddp); for ZeRO use parallel.offload_optimizer and parallel.offload_param\n"
            "parallel: { strategy: ddp, cpu_offload: true }\n"
            "                                        ^ near here");
  EXPECT_EQ(first_error("parallel: { strategy: fsdp2, fsdp_devices: 2 }\n"),
            "job.yaml:1:44: parallel.fsdp_devices: applies to jax only (parallel.strategy is "
            "fsdp2)\n"
            "parallel: { strategy: fsdp2, fsdp_devices: 2 }\n"
            "                                           ^ near here");
}

TEST(ResolveErrors, ZeroBubbleSchedulesNeedTheirStagesAndMicroBatches) {
  // ScheduleZBVZeroBubble and ScheduleDualPipeV: exactly 2 stages per rank, in a V.
  EXPECT_EQ(first_error("parallel: { pp: 4, pp_schedule: ZBVZeroBubble, pp_stages_per_rank: 3 }\n"),
            "job.yaml:1:68: parallel.pp_stages_per_rank: zbv_zero_bubble places exactly 2 stages "
            "per rank in a V, got 3\n"
            "parallel: { pp: 4, pp_schedule: ZBVZeroBubble, pp_stages_per_rank: 3 }\n"
            "                                                                   ^ near here");
  // ScheduleDualPipeV: at least as many micro-batches as stages.
  EXPECT_EQ(first_error("parallel: { pp: 4, pp_schedule: DualPipeV }\n"
                        "training: { gradient_accumulation: 6 }\n"),
            "job.yaml:2:36: training.gradient_accumulation: dualpipev needs at least as many "
            "micro-batches as stages (2 x parallel.pp = 8), got 6\n"
            "training: { gradient_accumulation: 6 }\n"
            "                                   ^ near here");
  // ScheduleInterleavedZeroBubble: max(1, m / pp) rounds of equal size.
  EXPECT_EQ(first_error("parallel: { pp: 4, pp_schedule: interleaved_zero_bubble }\n"
                        "training: { gradient_accumulation: 9 }\n"),
            "job.yaml:2:36: training.gradient_accumulation: interleaved_zero_bubble runs the "
            "micro-batches in 2 equal rounds (micro-batches / parallel.pp 4); 9 is not a multiple "
            "of 2\n"
            "training: { gradient_accumulation: 9 }\n"
            "                                   ^ near here");
  EXPECT_EQ(first_error("parallel: { pp: 4, pp_schedule: interleaved_zero_bubble }\n"
                        "training: { gradient_accumulation: 10 }\n"),
            "(valid)");  // 2 rounds of 5, as upstream allows
  EXPECT_EQ(first_error("parallel: { pp: 4, pp_schedule: zbv_zero_bubble }\n"
                        "training: { gradient_accumulation: 3 }\n"),
            "(valid)");  // ZBV drops the passes of micro-batches it does not have
}

TEST(ResolveErrors, DefaultValuesOfOtherStrategiesAreHarmless) {
  EXPECT_EQ(first_error("parallel: { strategy: ddp, limit_all_gathers: true, "
                        "reshard_after_forward: true }\n"),
            "(valid)");
}

// A switched strategy drops the old one's own options to their defaults, and only those.
TEST(ResolveErrors, ASwitchedStrategyDropsTheOldOnesOptions) {
  auto job = parse_job_yaml(
      "parallel: { strategy: zero2, allgather_bucket_size: 2e8, reduce_bucket_size: 1e8, "
      "offload_optimizer: true }\n",
      "job.yaml");
  ASSERT_TRUE(job) << job.error().to_string();
  ASSERT_TRUE(set_field(*job, "parallel.strategy=zero3"));
  EXPECT_FALSE(resolve_job(*job));  // kept, the ZeRO-2 bucket is refused under zero3
  EXPECT_EQ(drop_options_of_other_strategies(*job),
            std::vector<std::string>{"parallel.allgather_bucket_size"});
  ASSERT_TRUE(resolve_job(*job));
  EXPECT_EQ(job->parallel.allgather_bucket_size, job_spec{}.parallel.allgather_bucket_size);
  EXPECT_TRUE(job->parallel.offload_optimizer);  // every ZeRO stage has it
  EXPECT_NE(job->parallel.reduce_bucket_size, job_spec{}.parallel.reduce_bucket_size);
}

TEST(ResolveErrors, ReplicasNeedHsdp) {
  EXPECT_EQ(first_error("parallel: { strategy: fsdp1, dp_replicate: 2 }\n"),
            "job.yaml:1:44: parallel.dp_replicate: replica groups (HSDP) need strategy fsdp2, or "
            "fsdp1 with fsdp_sharding: hybrid_shard (parallel.strategy is fsdp1)\n"
            "parallel: { strategy: fsdp1, dp_replicate: 2 }\n"
            "                                           ^ near here");
  EXPECT_EQ(first_error("parallel: { strategy: fsdp2, dp_replicate: 2 }\n"), "(valid)");
}

TEST(ResolveErrors, ReshardGroupMustDivideShardGroup) {
  EXPECT_EQ(first_error("parallel: { reshard_after_forward: 3 }\n"),
            "job.yaml:1:36: parallel.reshard_after_forward: a reshard group of 3 must divide the "
            "shard group (parallel.dp_shard 8) and be smaller than it\n"
            "parallel: { reshard_after_forward: 3 }\n"
            "                                   ^ near here");
  EXPECT_EQ(first_error("parallel: { reshard_after_forward: 4 }\n"), "(valid)");
}

TEST(ResolveErrors, JaxAndFrameworkMustAgree) {
  EXPECT_EQ(first_error("parallel: { strategy: jax }\nframework: { name: torch }\n"),
            "job.yaml:1:23: parallel.strategy: jax needs framework.name: jax (framework.name is "
            "torch)\n"
            "parallel: { strategy: jax }\n"
            "                      ^ near here");
  EXPECT_EQ(first_error("framework: { name: jax }\n"),
            "job.yaml:1:20: framework.name: jax needs parallel.strategy: jax (parallel.strategy "
            "is fsdp2)\n"
            "framework: { name: jax }\n"
            "                   ^ near here");
  EXPECT_EQ(first_error("parallel: { strategy: jax, tp: 2 }\n"),
            "job.yaml:1:32: parallel.tp: tensor parallelism is not modelled for jax jobs; the mesh "
            "is set by parallel.fsdp_devices\n"
            "parallel: { strategy: jax, tp: 2 }\n"
            "                               ^ near here");
  EXPECT_EQ(first_error("parallel: { strategy: jax, fsdp_devices: 3 }\n"),
            "job.yaml:1:42: parallel.fsdp_devices: 3 does not divide the job's 8 GPUs\n"
            "parallel: { strategy: jax, fsdp_devices: 3 }\n"
            "                                         ^ near here");
}

TEST(ResolveErrors, LoraAndInitRules) {
  EXPECT_EQ(first_error("lora: { targets: [] }\n"),
            "job.yaml:1:18: lora.targets: expected at least one module name\n"
            "lora: { targets: [] }\n"
            "                 ^ near here");
  EXPECT_EQ(first_error("lora: { enabled: false, base_quantization: nf4 }\n"),
            "job.yaml:1:44: lora.base_quantization: quantized base weights need LoRA "
            "(lora.enabled is false)\n"
            "lora: { enabled: false, base_quantization: nf4 }\n"
            "                                           ^ near here");
  EXPECT_EQ(first_error("init: { early_tensors: 1GiB }\n"),
            "job.yaml:1:24: init.early_tensors: tensors made before set_device need "
            "init.set_device_first: false\n"
            "init: { early_tensors: 1GiB }\n"
            "                       ^ near here");
}

TEST(ResolveErrors, EnvironmentValues) {
  EXPECT_EQ(first_error("env: { TORCH_NCCL_AVOID_RECORD_STREAMS: sometimes }\n"),
            "job.yaml:1:41: env.TORCH_NCCL_AVOID_RECORD_STREAMS: expected 0 or 1, got "
            "\"sometimes\"\n"
            "env: { TORCH_NCCL_AVOID_RECORD_STREAMS: sometimes }\n"
            "                                        ^ near here");
  EXPECT_EQ(first_error("parallel: { strategy: jax }\nenv: { XLA_PYTHON_CLIENT_MEM_FRACTION: high }\n"),
            "job.yaml:2:40: env.XLA_PYTHON_CLIENT_MEM_FRACTION: expected a fraction such as 0.75, "
            "got \"high\"\n"
            "env: { XLA_PYTHON_CLIENT_MEM_FRACTION: high }\n"
            "                                       ^ near here");
  EXPECT_EQ(first_error("parallel: { strategy: jax }\nenv: { XLA_PYTHON_CLIENT_ALLOCATOR: cuda }\n"),
            "job.yaml:2:37: env.XLA_PYTHON_CLIENT_ALLOCATOR: invalid value \"cuda\" (expected one "
            "of: default, platform, bfc, cuda_async, vmm)\n"
            "env: { XLA_PYTHON_CLIENT_ALLOCATOR: cuda }\n"
            "                                    ^ near here");
  EXPECT_NE(first_error("parallel: { strategy: jax }\nenv: { XLA_PYTHON_CLIENT_MEM_FRACTION: .9, "
                        "XLA_CLIENT_MEM_FRACTION: .9 }\n")
                .find("jax refuses it together with XLA_PYTHON_CLIENT_MEM_FRACTION"),
            std::string::npos);
  EXPECT_EQ(first_error("parallel: { strategy: jax }\nenv: { XLA_PYTHON_CLIENT_MEM_FRACTION: .9 }\n"),
            "(valid)");
}

// ---- warnings ---------------------------------------------------------------------------------

TEST(ResolveWarnings, TensorParallelAcrossNodes) {
  EXPECT_EQ(warning_messages("hardware: { nodes: 4 }\nparallel: { tp: 16 }\n"),
            std::vector<std::string>{"parallel.tp: 16 is more than hardware.gpus_per_node 8: "
                                     "tensor-parallel collectives cross nodes"});
}

TEST(ResolveWarnings, OptionsWithoutEffect) {
  EXPECT_EQ(warning_messages("parallel: { sequence_parallel: true, etp: 2 }\n"
                             "training: { checkpoint_every: 4, checkpoint_blocks: 2 }\n"
                             "optimizer: { name: adamw_8bit, state: bf16 }\n"),
            (std::vector<std::string>{
                "parallel.etp: has no effect without ep > 1",
                "parallel.sequence_parallel: has no effect without tp > 1",
                "training.checkpoint_every: has no effect unless activation_checkpointing is "
                "selective (it is none)",
                "training.checkpoint_blocks: has no effect unless activation_checkpointing is "
                "full (it is none)",
                "optimizer.state: ignored: adamw_8bit keeps 8-bit state"}));
}

TEST(ResolveWarnings, CompiledBlocksUnderASplitBackwardArePlannedEager) {
  EXPECT_EQ(warning_messages("parallel: { pp: 4, pp_schedule: zbv_zero_bubble }\n"
                             "training: { gradient_accumulation: 8, compile: true }\n"),
            (std::vector<std::string>{
                "training.compile: zbv_zero_bubble splits backward around eager autograd nodes; "
                "compiled blocks are planned as if eager"}));
}

TEST(Resolve, BitsandbytesOptimizersKeepFp32StateAndNeedTorch) {
  auto job = parse_job_yaml("precision: bf16-true\noptimizer: paged_adamw_32bit\n", "j");
  ASSERT_TRUE(job) << job.error().to_string();
  EXPECT_EQ(job->optimizer.kind, optimizer_kind::paged_adamw);
  EXPECT_EQ(job->optimizer.state, dtype::f32);
  warnings notes;
  auto given = parse_job_yaml("optimizer: { name: paged_adamw, state: bf16 }\n", "j", &notes);
  ASSERT_TRUE(given);
  EXPECT_EQ(given->optimizer.state, dtype::f32);  // what is planned, with a warning
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0].message, "optimizer.state: ignored: paged_adamw keeps fp32 state (bitsandbytes)");
  EXPECT_NE(first_error("parallel: { strategy: jax }\noptimizer: paged_adamw_8bit\n")
                .find("optimizer.name: paged_adamw_8bit is a bitsandbytes optimizer: it needs "
                      "framework.name: torch (framework.name is jax)"),
            std::string::npos);
}

TEST(ResolveWarnings, EnvironmentNearMissesAndVersions) {
  EXPECT_EQ(warning_messages("env: { PYTORCH_CUDA_ALOC_CONF: \"expandable_segments:True\" }\n"),
            std::vector<std::string>{"env.PYTORCH_CUDA_ALOC_CONF: not a variable vramscope reads "
                                     "(did you mean \"PYTORCH_CUDA_ALLOC_CONF\"?)"});
  EXPECT_EQ(warning_messages("env: { PYTORCH_CUDA_ALLOC_CONF: \"expandable_segment:True,"
                             "roundup_power2_divisions:[256:1,512:2]\" }\n"),
            std::vector<std::string>{"env.PYTORCH_CUDA_ALLOC_CONF: unknown option "
                                     "\"expandable_segment\" (did you mean "
                                     "\"expandable_segments\"?)"});
  EXPECT_EQ(warning_messages("framework: { version: \"2.8\" }\n"
                             "env: { TORCH_NCCL_AVOID_RECORD_STREAMS: 1 }\n"),
            std::vector<std::string>{"env.TORCH_NCCL_AVOID_RECORD_STREAMS: ignored by torch 2.8 "
                                     "(from 2.8 collectives never record streams)"});
  EXPECT_EQ(warning_messages("env: { XLA_PYTHON_CLIENT_PREALLOCATE: \"false\" }\n"),
            std::vector<std::string>{"env.XLA_PYTHON_CLIENT_PREALLOCATE: has no effect on a torch "
                                     "job"});
  EXPECT_TRUE(warning_messages("env: { MY_OWN_SETTING: 1 }\n").empty());
}

TEST(ResolveWarnings, GpuMemoryAboveTheCatalog) {
  EXPECT_EQ(warning_messages("hardware: { gpu: L4, gpu_memory: 48GiB }\n"),
            std::vector<std::string>{"hardware.gpu_memory: 48.00 GiB is more than the L4 reports "
                                     "(22.49 GiB)"});
}

TEST(Resolve, TorchtuneFeaturesParse) {
  auto job = parse_job_yaml("parallel: { strategy: single }\n"
                            "optimizer: { in_backward: true }\n"
                            "training: { loss: CEWithChunkedOutputLoss, loss_chunks: 16, "
                            "activation_offloading: true, activation_checkpointing: full }\n",
                            "j");
  ASSERT_TRUE(job) << job.error().to_string();
  EXPECT_TRUE(job->optimizer.in_backward);
  EXPECT_EQ(job->training.loss, loss_impl::chunked);
  EXPECT_EQ(job->training.loss_chunks, 16);
  EXPECT_TRUE(job->training.activation_offloading);
  const job_spec defaults;
  EXPECT_FALSE(defaults.optimizer.in_backward);
  EXPECT_EQ(defaults.training.loss_chunks, 8);  // CEWithChunkedOutputLoss(num_output_chunks=8)
  EXPECT_FALSE(defaults.training.activation_offloading);
}

TEST(ResolveErrors, TorchtuneFeatureCombinations) {
  EXPECT_EQ(first_error("optimizer: { in_backward: true }\n"
                        "training: { gradient_accumulation: 4 }\n"),
            "job.yaml:1:27: optimizer.in_backward: steps the optimizer in every backward, so it "
            "cannot accumulate gradients (training.gradient_accumulation is 4)\n"
            "optimizer: { in_backward: true }\n"
            "                          ^ near here");
  EXPECT_EQ(first_error("parallel: { strategy: ddp }\noptimizer: { in_backward: true }\n"),
            "job.yaml:2:27: optimizer.in_backward: torchtune runs it on a single device or under "
            "fsdp2 only (parallel.strategy is ddp)\n"
            "optimizer: { in_backward: true }\n"
            "                          ^ near here");
  EXPECT_EQ(first_error("parallel: { strategy: jax }\ntraining: { activation_offloading: true }\n"),
            "job.yaml:2:36: training.activation_offloading: is a PyTorch hook: it needs "
            "framework.name: torch (framework.name is jax)\n"
            "training: { activation_offloading: true }\n"
            "                                   ^ near here");
  EXPECT_EQ(first_error("training: { moe_capacity_factor: 1.25 }\n"),
            "job.yaml:1:34: training.moe_capacity_factor: is Megatron-LM's "
            "--moe-expert-capacity-factor: transformers' and torchtitan's MoE layers drop no "
            "tokens (parallel.strategy is fsdp2)\n"
            "training: { moe_capacity_factor: 1.25 }\n"
            "                                 ^ near here");
  EXPECT_EQ(first_error("parallel: { strategy: megatron }\n"
                        "training: { moe_pad_to_capacity: true }\n"),
            "job.yaml:2:34: training.moe_pad_to_capacity: pads each expert's input to its "
            "capacity: it needs training.moe_capacity_factor\n"
            "training: { moe_pad_to_capacity: true }\n"
            "                                 ^ near here");
  EXPECT_EQ(first_error("training: { moe_capacity_factor: 0 }\n"),
            "job.yaml:1:34: training.moe_capacity_factor: 0 is out of range (expected more than "
            "0 and at most 1000000, or dropless)\n"
            "training: { moe_capacity_factor: 0 }\n"
            "                                 ^ near here");
  EXPECT_EQ(first_error("training: { loss_chunks: 0 }\n"),
            "job.yaml:1:26: training.loss_chunks: 0 is out of range (expected 1 to 1024)\n"
            "training: { loss_chunks: 0 }\n"
            "                         ^ near here");
  EXPECT_EQ(first_error("optimizer: { in_backward: sometimes }\n"),
            "job.yaml:1:27: optimizer.in_backward: expected true or false, got \"sometimes\"\n"
            "optimizer: { in_backward: sometimes }\n"
            "                          ^ near here");
  EXPECT_EQ(first_error("optimizer: { in_backward: true }\n"), "(valid)");  // fsdp2
}

TEST(ResolveWarnings, TorchtuneFeaturesOutsideTorchtunesRecipes) {
  EXPECT_EQ(warning_messages("training: { loss_chunks: 4, activation_offloading: true }\n"),
            (std::vector<std::string>{
                "training.loss_chunks: has no effect unless training.loss is chunked (it is hf)",
                "training.activation_offloading: torchtune's recipes refuse it without activation "
                "checkpointing; planned as OffloadActivations runs, every saved tensor offloaded"}));
  EXPECT_TRUE(warning_messages("training: { activation_offloading: true, "
                               "activation_checkpointing: full }\n")
                  .empty());
}

}  // namespace
}  // namespace vramscope::job

namespace vramscope::job {
namespace {

TEST(Resolve, Float8FieldsParse) {
  auto job = parse_job_yaml("precision: { float8: tensorwise }\n"
                            "parallel: { strategy: fsdp2, float8_all_gather: true }\n",
                            "j");
  ASSERT_TRUE(job) << job.error().to_string();
  EXPECT_EQ(job->precision.float8, float8_recipe::tensorwise);
  EXPECT_TRUE(job->parallel.float8_all_gather);
  auto rowwise = parse_job_yaml("precision: { float8: Rowwise-With-GW-HP }\n", "j");
  ASSERT_TRUE(rowwise) << rowwise.error().to_string();
  EXPECT_EQ(rowwise->precision.float8, float8_recipe::rowwise_with_gw_hp);
  const job_spec defaults;
  EXPECT_EQ(defaults.precision.float8, float8_recipe::none);
  EXPECT_FALSE(defaults.parallel.float8_all_gather);
}

std::string float8_error(const std::string& yaml) {
  auto job = parse_job_yaml(yaml, "job.yaml");
  return job ? "" : job.error().to_string();
}

TEST(ResolveErrors, Float8Combinations) {
  EXPECT_EQ(float8_error("precision: { float8: rowwise }\n"
                         "parallel: { float8_all_gather: true }\n"),
            "job.yaml:2:32: parallel.float8_all_gather: needs precision.float8: tensorwise "
            "(torchao all-gathers float8 weights for tensorwise scaling only; it is rowwise)\n"
            "parallel: { float8_all_gather: true }\n"
            "                               ^ near here");
  EXPECT_NE(float8_error("precision: { float8: tensorwise }\n"
                         "parallel: { strategy: ddp, float8_all_gather: true }\n")
                .find("parallel.float8_all_gather: applies to fsdp2, megatron only"),
            std::string::npos);
  EXPECT_NE(float8_error("parallel: { strategy: jax }\nframework: { name: jax }\n"
                         "precision: { float8: tensorwise }\n")
                .find("precision.float8: is torchao's Float8Linear: it needs framework.name: torch"),
            std::string::npos);
  EXPECT_NE(float8_error("precision: { float8: tensorwise }\nlora: { rank: 16, targets: [q_proj] }\n")
                .find("precision.float8: float8 training of adapter (LoRA / PEFT) jobs is not "
                      "modelled"),
            std::string::npos);
  EXPECT_NE(float8_error("precision: { float8: fp4 }\n").find("one of: none, tensorwise, rowwise, "
                                                              "rowwise_with_gw_hp"),
            std::string::npos);
}

TEST(ResolveErrors, LossParallelNeedsAShardedHeadAndAPlainLoss) {
  EXPECT_EQ(
      float8_error("hardware: { gpus_per_node: 8 }\nparallel: { tp: 4, tp_head: false, "
                   "loss_parallel: true }\n"),
      "job.yaml:2:51: parallel.loss_parallel: works on the head's vocabulary shards: it needs "
      "parallel.tp_head true\n"
      "parallel: { tp: 4, tp_head: false, loss_parallel: true }\n"
      "                                                  ^ near here");
  EXPECT_NE(
      float8_error("hardware: { gpus_per_node: 8 }\nparallel: { tp: 4, loss_parallel: true }\n"
                   "training: { loss: chunked }\n")
          .find("parallel.loss_parallel: is planned for the hf and torchtitan losses "
                "(training.loss is chunked)"),
      std::string::npos);
  EXPECT_NE(float8_error("hardware: { gpus_per_node: 8 }\nparallel: { strategy: megatron, tp: 4, "
                         "loss_parallel: false }\n")
                .find("Megatron's cross-entropy is always vocabulary-parallel"),
            std::string::npos);
  EXPECT_NE(float8_error("parallel: { loss_parallel: maybe }\n")
                .find("expected true, false or default, got \"maybe\""),
            std::string::npos);
  EXPECT_EQ(
      float8_error("hardware: { gpus_per_node: 8 }\nparallel: { tp: 4, loss_parallel: default }\n"),
      "");
  EXPECT_EQ(warning_messages("parallel: { tp_head: false, loss_parallel: false }\n"),
            (std::vector<std::string>{"parallel.tp_head: has no effect without tp > 1",
                                      "parallel.loss_parallel: has no effect without tp > 1"}));
}

TEST(ResolveErrors, AsyncTensorParallelNeedsTpCompileAndTorchtitansStrategies) {
  EXPECT_EQ(float8_error("parallel: { async_tp: true }\ntraining: { compile: true }\n"),
            "job.yaml:1:23: parallel.async_tp: needs tensor parallelism (parallel.tp > 1)\n"
            "parallel: { async_tp: true }\n"
            "                      ^ near here");
  EXPECT_NE(float8_error("hardware: { gpus_per_node: 8 }\nparallel: { tp: 4, async_tp: true }\n")
                .find("parallel.async_tp: rewrites compiled graphs only: it needs training.compile"),
            std::string::npos);
  EXPECT_NE(float8_error("hardware: { gpus_per_node: 8 }\n"
                         "parallel: { strategy: zero3, tp: 4, async_tp: true }\n"
                         "training: { compile: true }\n")
                .find("parallel.async_tp: is torchtitan's: planned with fsdp2, ddp or single "
                      "(parallel.strategy is zero3)"),
            std::string::npos);
  EXPECT_EQ(float8_error("hardware: { gpus_per_node: 8 }\nparallel: { tp: 4, async_tp: true }\n"
                         "training: { compile: true }\n"),
            "");
}

TEST(ResolveErrors, MegatronOptionsAndCombinations) {
  EXPECT_EQ(float8_error("parallel: { strategy: fsdp2, distributed_optimizer: true }\n"),
            "job.yaml:1:53: parallel.distributed_optimizer: applies to megatron only "
            "(parallel.strategy is fsdp2); for DeepSpeed's equivalent use parallel.strategy zero1\n"
            "parallel: { strategy: fsdp2, distributed_optimizer: true }\n"
            "                                                    ^ near here");
  EXPECT_NE(float8_error("parallel: { strategy: megatron }\nlora: { rank: 16, targets: [q_proj] }\n")
                .find("parallel.strategy: megatron plans full training; LoRA and other PEFT "
                      "methods are not planned with it"),
            std::string::npos);
  EXPECT_NE(float8_error("parallel: { strategy: megatron }\nframework: { name: jax }\n")
                .find("framework.name: jax needs parallel.strategy: jax (parallel.strategy is megatron)"),
            std::string::npos);
  EXPECT_EQ(float8_error("parallel: { strategy: megatron_lm, distributed_optimizer: true }\n"), "");
  auto job = parse_job_yaml("parallel: { strategy: megatron }\n", "job.yaml");
  ASSERT_TRUE(job) << job.error().to_string();
  EXPECT_EQ(job->optimizer.state, dtype::f32);  // Megatron's optimizer steps fp32 main params
}

// Under strategy megatron float8 is Transformer Engine's: its recipes there, torchao's elsewhere.
TEST(ResolveErrors, Float8RecipesBelongToTheirLibrary) {
  EXPECT_EQ(float8_error("parallel: { strategy: megatron }\nprecision: { float8: mxfp8 }\n"), "");
  EXPECT_EQ(float8_error("parallel: { strategy: megatron, distributed_optimizer: true, "
                         "float8_all_gather: true }\nprecision: { float8: blockwise }\n"),
            "");
  EXPECT_NE(float8_error("parallel: { strategy: megatron }\nprecision: { float8: rowwise }\n")
                .find("rowwise is a torchao recipe; under strategy megatron float8 is Transformer "
                      "Engine's: tensorwise, blockwise or mxfp8"),
            std::string::npos);
  EXPECT_NE(float8_error("parallel: { strategy: fsdp2 }\nprecision: { float8: mxfp8 }\n")
                .find("mxfp8 is a Transformer Engine recipe, planned under strategy megatron"),
            std::string::npos);
  EXPECT_NE(float8_error("parallel: { strategy: megatron, float8_all_gather: true }\n")
                .find("parallel.float8_all_gather: needs precision.float8 (it is none)"),
            std::string::npos);
  warnings notes;
  auto job = parse_job_yaml(
      "hardware: { gpu: H100-80GB }\nparallel: { strategy: megatron }\n"
      "precision: { float8: mxfp8 }\n",
      "job.yaml", &notes);
  ASSERT_TRUE(job) << job.error().to_string();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].message.find("need compute capability 10.0 or later (B200, GB200); "
                                  "H100-80GB is 9.0"),
            std::string::npos)
      << notes[0].message;
}

TEST(ResolveWarnings, Float8BeforeHopperIsPlannedWithAWarning) {
  std::vector<std::string> found;
  warnings notes;
  auto job = parse_job_yaml("hardware: { gpu: A100-80GB }\nprecision: { float8: tensorwise }\n",
                            "job.yaml", &notes);
  ASSERT_TRUE(job) << job.error().to_string();
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].message.find("need compute capability 8.9 or later (H100, L4, RTX 4090); "
                                  "A100-80GB is 8.0"),
            std::string::npos)
      << notes[0].message;
}

}  // namespace
TEST(Resolve, ShardSeparatelyIsFsdp2sAndNamesEmbeddingOrHead) {
  const auto fsdp1 = parse_job_yaml("parallel: { strategy: fsdp1, shard_separately: [embedding] }\n", "j");
  ASSERT_FALSE(fsdp1);
  EXPECT_NE(fsdp1.error().message.find("parallel.shard_separately"), std::string::npos)
      << fsdp1.error().message;
  const auto name = parse_job_yaml("parallel: { strategy: fsdp2, shard_separately: [tok_embeddings] }\n", "j");
  ASSERT_FALSE(name);
  EXPECT_EQ(name.error().message,
            "parallel.shard_separately: \"tok_embeddings\" is not a module it shards: expected "
            "embedding or head (torchtune's tok_embeddings and output)");
  EXPECT_TRUE(parse_job_yaml("parallel: { strategy: fsdp2, shard_separately: [embedding, head] }\n", "j"));
}

TEST(Resolve, VariableLengthsAreRefusedWherePlanningTakesOneLength) {
  const auto pp = parse_job_yaml(
      "parallel: { strategy: fsdp2, pp: 2 }\nhardware: { gpus_per_node: 2 }\n"
      "training: { lengths: buckets, length_buckets: [512:1] }\n", "j");
  ASSERT_FALSE(pp);
  EXPECT_NE(pp.error().message.find("training.lengths: variable lengths are not planned under "
                                    "pipeline parallelism"),
            std::string::npos)
      << pp.error().message;
  const auto bad = parse_job_yaml("training: { lengths: buckets, length_buckets: [512] }\n", "j");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("training.length_buckets: item 1"), std::string::npos)
      << bad.error().message;
}

}  // namespace vramscope::job
