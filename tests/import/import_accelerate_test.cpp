#include <vramscope/import/importers.hpp>
#include <vramscope/import/loading.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "import/import_test_support.hpp"

namespace vramscope::job {
namespace {

using testing::find_note;
using testing::import_ok;
using testing::sample;

TEST(ImportAccelerate, MapsAnFsdp1Config) {
  const imported_job imported = import_ok("accelerate_fsdp.yaml");
  const job_spec& job = imported.job;
  EXPECT_EQ(imported.format, "accelerate");
  EXPECT_EQ(job.parallel.kind, strategy::fsdp1);
  EXPECT_EQ(job.hardware.nodes, 2);
  EXPECT_EQ(job.hardware.gpus_per_node, 8);
  EXPECT_EQ(job.parallel.dp_shard, 16);
  EXPECT_EQ(job.parallel.fsdp_sharding, sharding::full_shard);
  EXPECT_EQ(job.parallel.backward_prefetch, prefetch::pre);
  EXPECT_TRUE(job.parallel.sync_module_states);
  EXPECT_TRUE(job.parallel.use_orig_params);
  EXPECT_FALSE(job.parallel.cpu_offload);
  EXPECT_EQ(job.training.activation_checkpointing, checkpointing::full);
  EXPECT_EQ(job.checkpoint.save, state_dict_kind::sharded);
  EXPECT_TRUE(job.init.meta_device);  // fsdp_cpu_ram_efficient_loading
  EXPECT_EQ(job.init.load, weight_load::rank0);
  // mixed_precision: bf16 under FSDP = MixedPrecision(bf16 params, reduce and buffers).
  EXPECT_EQ(job.precision.params, dtype::bf16);
  EXPECT_EQ(job.precision.reduce, dtype::bf16);
  EXPECT_EQ(job.precision.master, dtype::f32);
  EXPECT_FALSE(job.precision.autocast);
}

// The size policy wraps each block of at least fsdp_min_num_params parameters; with a minimum of
// 0 accelerate sets no policy at all, and the model is one FSDP unit.
TEST(ImportAccelerate, SizeBasedWrapWithMinimumZeroWrapsNothing) {
  const std::string head =
      "distributed_type: FSDP\nnum_processes: 8\nmixed_precision: bf16\nfsdp_config:\n"
      "  fsdp_auto_wrap_policy: SIZE_BASED_WRAP\n  fsdp_sharding_strategy: FULL_SHARD\n";
  auto zero = import_config_text(head + "  fsdp_min_num_params: 0\n", "fsdp.yaml");
  ASSERT_TRUE(zero) << zero.error().to_string();
  EXPECT_EQ(zero->job.parallel.wrap, "none");
  EXPECT_NE(find_note(zero->notes, "wraps nothing"), "");
  auto sized = import_config_text(head + "  fsdp_min_num_params: 100000000\n", "fsdp.yaml");
  ASSERT_TRUE(sized) << sized.error().to_string();
  EXPECT_EQ(sized->job.parallel.wrap, "block");
  auto absent = import_config_text(head, "fsdp.yaml");  // launch's default, 1e8
  ASSERT_TRUE(absent) << absent.error().to_string();
  EXPECT_EQ(absent->job.parallel.wrap, "block");
}

// `fp16: true`, accelerate's first name of mixed_precision: fp16, is read so where the file has
// no mixed_precision (process_config converts it), and is no unknown option.
TEST(ImportAccelerate, TheOlderFp16KeyIsMixedPrecisionFp16) {
  auto legacy = import_config_text(
      "compute_environment: LOCAL_MACHINE\ndistributed_type: NO\nfp16: true\nnum_processes: 1\n",
      "old.yaml");
  ASSERT_TRUE(legacy) << legacy.error().to_string();
  EXPECT_EQ(legacy->job.precision.params, dtype::f16);
  EXPECT_EQ(find_note(legacy->notes, "not among the options"), "");
  EXPECT_NE(find_note(legacy->notes, "older name of mixed_precision"), "");
  auto both = import_config_text(
      "distributed_type: NO\nfp16: true\nmixed_precision: bf16\nnum_processes: 1\n", "both.yaml");
  ASSERT_TRUE(both) << both.error().to_string();
  EXPECT_EQ(both->job.precision.params, dtype::bf16);
  auto off =
      import_config_text("distributed_type: NO\nfp16: false\nnum_processes: 1\n", "off.yaml");
  ASSERT_TRUE(off) << off.error().to_string();
  EXPECT_EQ(off->job.precision.params, dtype::f32);
}

TEST(ImportAccelerate, ReportsUnknownOptionsAndLocatesThem) {
  const imported_job imported = import_ok("accelerate_fsdp.yaml");
  EXPECT_EQ(find_note(imported.notes, "fsdp_limit_all_gather"),
            sample("accelerate_fsdp.yaml") +
                ":20:3: \"fsdp_config.fsdp_limit_all_gather\" is not among the options of the "
                "accelerate releases vramscope knows, nor near one (a fork's, a branch's or a "
                "newer release's option, or a typo); ignored, so what it does to memory is not "
                "planned\n"
                "  fsdp_limit_all_gather: true  # not an accelerate option: the importer must "
                "report it\n"
                "  ^ near here");
  EXPECT_NE(find_note(imported.notes, "does not name the model"), "");
  EXPECT_NE(find_note(imported.notes, "does not name the GPU"), "");
  EXPECT_NE(find_note(imported.notes, "does not give the sequence length"), "");
  EXPECT_EQ(find_note(imported.notes, "number of GPUs"), "");  // num_processes gives it
}

TEST(ImportAccelerate, DynamoInductorIsTorchCompile) {
  auto inductor = import_config_text(
      "distributed_type: FSDP\nnum_processes: 8\ndynamo_config:\n  dynamo_backend: INDUCTOR\n"
      "  dynamo_use_fullgraph: false\n",
      "cfg.yaml");
  ASSERT_TRUE(inductor) << inductor.error().to_string();
  EXPECT_TRUE(inductor->job.training.compile);
  EXPECT_TRUE(inductor->job.training.compile_loss) << "the whole model, its loss included";
  EXPECT_EQ(find_note(inductor->notes, "dynamo"), "");
  auto graphs = import_config_text(
      "distributed_type: FSDP\nnum_processes: 8\ndynamo_config:\n  dynamo_backend: INDUCTOR\n"
      "  dynamo_mode: max-autotune\n",
      "cfg.yaml");
  ASSERT_TRUE(graphs) << graphs.error().to_string();
  EXPECT_NE(find_note(graphs->notes, "captures CUDA graphs"), "");
  auto off = import_config_text(
      "distributed_type: FSDP\nnum_processes: 8\ndynamo_config:\n  dynamo_backend: NO\n", "cfg.yaml");
  ASSERT_TRUE(off) << off.error().to_string();
  EXPECT_FALSE(off->job.training.compile);
  // A DeepSpeed launch is not given the dynamo options (prepare_deepspeed_cmd_env).
  auto deepspeed = import_config_text(
      "distributed_type: DEEPSPEED\nnum_processes: 2\ndeepspeed_config:\n  zero_stage: 2\n"
      "dynamo_config:\n  dynamo_backend: INDUCTOR\n  dynamo_mode: max-autotune\n",
      "cfg.yaml");
  ASSERT_TRUE(deepspeed) << deepspeed.error().to_string();
  EXPECT_FALSE(deepspeed->job.training.compile);
  EXPECT_NE(find_note(deepspeed->notes, "does not pass the dynamo options on to a DeepSpeed"), "");
  EXPECT_EQ(find_note(deepspeed->notes, "captures CUDA graphs"), "");
}

// distributed_type MEGATRON_LM: accelerate's MegatronLMPlugin trains through Megatron-LM, planned
// as strategy megatron from its launch arguments (accelerate config writes them sorted, so
// sequence parallelism comes before the tensor-parallel degree it needs).
TEST(ImportAccelerate, MegatronLmIsPlannedAsMegatron) {
  auto imported = import_config_text(
      "distributed_type: MEGATRON_LM\nnum_processes: 8\nmixed_precision: bf16\n"
      "megatron_lm_config:\n  megatron_lm_gradient_clipping: 1.0\n"
      "  megatron_lm_num_micro_batches: 4\n  megatron_lm_pp_degree: 2\n"
      "  megatron_lm_recompute_activations: true\n  megatron_lm_sequence_parallelism: true\n"
      "  megatron_lm_tp_degree: 2\n  megatron_lm_use_distributed_optimizer: true\n",
      "cfg.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  const job_spec& job = imported->job;
  EXPECT_EQ(job.parallel.kind, strategy::megatron);
  EXPECT_EQ(job.parallel.tp, 2);
  EXPECT_EQ(job.parallel.pp, 2);
  EXPECT_TRUE(job.parallel.sequence_parallel);
  EXPECT_TRUE(job.parallel.distributed_optimizer);
  EXPECT_EQ(job.training.gradient_accumulation, 4);
  EXPECT_EQ(job.hardware.gpus_per_node, 8);
  // Megatron's --bf16: bf16 weights, fp32 main parameters and gradient reduction.
  EXPECT_EQ(job.precision.params, dtype::bf16);
  EXPECT_EQ(job.precision.master, dtype::f32);
  EXPECT_EQ(job.precision.reduce, dtype::f32);
  // recompute_activations (accelerate up to 1.12): Megatron's selective recompute, of core
  // attention only; the attention kernel stays what it was.
  EXPECT_EQ(job.training.activation_checkpointing, checkpointing::core_attention);
  EXPECT_EQ(job.training.attention, attention_impl::flash);
  EXPECT_NE(find_note(imported->notes, "accelerate 1.13 and later"), "");
  EXPECT_EQ(find_note(imported->notes, "not among the options"), "");
}

TEST(ImportAccelerate, MegatronLmDefaultsAreThePlugins) {
  // No megatron_lm_config: degrees 1, no recompute, no mixed precision (fp32).
  auto plain = import_config_text("distributed_type: MEGATRON_LM\nnum_processes: 1\n", "cfg.yaml");
  ASSERT_TRUE(plain) << plain.error().to_string();
  EXPECT_EQ(plain->job.parallel.kind, strategy::megatron);
  EXPECT_EQ(plain->job.parallel.tp, 1);
  EXPECT_EQ(plain->job.parallel.pp, 1);
  EXPECT_EQ(plain->job.training.activation_checkpointing, checkpointing::none);
  EXPECT_EQ(plain->job.precision.params, dtype::f32);
  // Without tensor parallelism Megatron turns sequence parallelism off.
  auto sp = import_config_text(
      "distributed_type: MEGATRON_LM\nnum_processes: 2\nmegatron_lm_config:\n"
      "  megatron_lm_sequence_parallelism: true\n",
      "cfg.yaml");
  ASSERT_TRUE(sp) << sp.error().to_string();
  EXPECT_FALSE(sp->job.parallel.sequence_parallel);
  // A key of accelerate 1.13: its plugin's defaults, context parallel size 2 and full
  // recompute; recompute_activations no longer read.
  auto newer = import_config_text(
      "distributed_type: MEGATRON_LM\nnum_processes: 4\nmegatron_lm_config:\n"
      "  megatron_lm_recompute_activations: true\n  megatron_lm_expert_model_parallel_size: 1\n",
      "cfg.yaml");
  ASSERT_TRUE(newer) << newer.error().to_string();
  EXPECT_EQ(newer->job.parallel.cp, 2);
  EXPECT_EQ(newer->job.training.activation_checkpointing, checkpointing::full);
  EXPECT_NE(find_note(newer->notes, "no longer reads megatron_lm_recompute_activations"), "");
  auto granular = import_config_text(
      "distributed_type: MEGATRON_LM\nnum_processes: 4\nmegatron_lm_config:\n"
      "  megatron_lm_context_parallel_size: 1\n  megatron_lm_recompute_granularity: selective\n",
      "cfg.yaml");
  ASSERT_TRUE(granular) << granular.error().to_string();
  EXPECT_EQ(granular->job.parallel.cp, 1);
  EXPECT_EQ(granular->job.training.activation_checkpointing, checkpointing::core_attention);
  // Another type's section has no effect.
  auto ddp = import_config_text(
      "distributed_type: MULTI_GPU\nnum_processes: 2\nmegatron_lm_config:\n"
      "  megatron_lm_tp_degree: 2\n",
      "cfg.yaml");
  ASSERT_TRUE(ddp) << ddp.error().to_string();
  EXPECT_EQ(ddp->job.parallel.tp, 1);
  EXPECT_NE(find_note(ddp->notes, "reads megatron_lm_config only under"), "");
}

// accelerate launch loads the file with ClusterConfig.from_yaml_file: process_config raises
// without distributed_type, and a top-level key that is no dataclass field is "unknown keys".
// accelerate's keys nested under a key of the project's own are not a file accelerate launches:
// refused at the enclosing key, saying to move them up.
TEST(ImportAccelerate, KeysNestedUnderAProjectKeyAreRefusedThere) {
  auto nested = import_config_text(
      "# tiers\n\naccelerate_config:\n  distributed_type: FSDP\n  num_processes: 2\n"
      "hardware_tiers:\n  edge:\n    quant: 4bit\n",
      "c.yaml");
  ASSERT_FALSE(nested);
  EXPECT_EQ(nested.error().line, 3);
  EXPECT_NE(nested.error().message.find("nested under accelerate_config:"), std::string::npos)
      << nested.error().to_string();
  EXPECT_NE(nested.error().message.find("to plan it"), std::string::npos);
  auto other = import_config_text("settings:\n  lr: 0.1\n", "c.yaml");
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().message.find("nested under"), std::string::npos);
}

TEST(ImportAccelerate, RefusesWhatClusterConfigCannotLoad) {
  auto commented = import_config_text(
      "compute_environment: LOCAL_MACHINE\n# distributed_type: FSDP\nnum_processes: 2\n",
      "cfg.yaml");
  ASSERT_FALSE(commented);
  EXPECT_NE(commented.error().to_string().find("cfg.yaml:2:1: distributed_type is commented out"),
            std::string::npos)
      << commented.error().to_string();
  auto absent =
      import_config_text("compute_environment: LOCAL_MACHINE\nnum_processes: 2\n", "cfg.yaml");
  ASSERT_FALSE(absent);
  EXPECT_NE(absent.error().to_string().find("cfg.yaml:1:1: the file has no distributed_type"),
            std::string::npos)
      << absent.error().to_string();
  auto top_level = import_config_text(
      "compute_environment: LOCAL_MACHINE\ndeepspeed_config_file: ds.json\n"
      "distributed_type: DEEPSPEED\nnum_processes: 8\n",
      "cfg.yaml");
  ASSERT_FALSE(top_level);
  const std::string message = top_level.error().to_string();
  EXPECT_NE(message.find("cfg.yaml:2:1: deepspeed_config_file:"), std::string::npos) << message;
  EXPECT_NE(message.find("under deepspeed_config:"), std::string::npos) << message;
  // Every field of ClusterConfig loads, the sections' own keys are not top-level keys.
  auto fields = import_config_text(
      "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\nnum_processes: 2\n"
      "machine_rank: 0\nmain_training_function: main\ndowncast_bf16: 'no'\n"
      "rdzv_backend: static\nsame_network: true\ntpu_env: []\nenable_cpu_affinity: false\n"
      "deepspeed_config: {}\nfsdp_config: {}\nmegatron_lm_config: {}\n",
      "cfg.yaml");
  EXPECT_TRUE(fields) << fields.error().to_string();
}

// A compute_environment accelerate does not have sends launch to SageMaker's config, which
// fails; fewer gpu_ids than processes on one machine leaves a process without a GPU. Both are
// refused at their line; as many IDs as processes (or more, or "all") plan.
TEST(ImportAccelerate, RefusesWhatLaunchCannotStart) {
  auto slurm = import_config_text(
      "compute_environment: SLURM\ndistributed_type: MULTI_GPU\nmixed_precision: bf16\n"
      "num_processes: 4\n",
      "cfg.yaml");
  ASSERT_FALSE(slurm);
  EXPECT_EQ(slurm.error().to_string().rfind("cfg.yaml:1:22: compute_environment: SLURM is none of "
                                            "accelerate's (LOCAL_MACHINE, AMAZON_SAGEMAKER",
                                            0),
            0u)
      << slurm.error().to_string();
  EXPECT_NE(slurm.error().to_string().find("write LOCAL_MACHINE"), std::string::npos);
  const std::string six =
      "compute_environment: LOCAL_MACHINE\ndistributed_type: MULTI_GPU\n"
      "gpu_ids: 0,1,2,4,5\nnum_machines: 1\nnum_processes: 6\n";
  auto short_list = import_config_text(six, "cfg.yaml");
  ASSERT_FALSE(short_list);
  EXPECT_EQ(short_list.error().to_string().rfind("cfg.yaml:3:10: gpu_ids 0,1,2,4,5 lists 5 GPU(s) "
                                                 "for num_processes 6 (line 5)",
                                                 0),
            0u)
      << short_list.error().to_string();
  for (const std::string ids : {"0,1,2,3,4,5", "0,1,2,3,4,5,6,7", "all"}) {
    std::string text = six;
    text.replace(text.find("0,1,2,4,5"), 9, ids);
    auto fine = import_config_text(text, "cfg.yaml");
    EXPECT_TRUE(fine) << ids << ": " << fine.error().to_string();
  }
  // On several machines gpu_ids is each machine's, num_processes the total: not compared.
  std::string machines = six;
  machines.replace(machines.find("num_machines: 1"), 15, "num_machines: 2");
  EXPECT_TRUE(import_config_text(machines, "cfg.yaml"));
}

TEST(ImportAccelerate, OtherDevicesAreRefusedNamingThem) {
  for (const auto& [type, device] :
       {std::pair{"XLA", "TPUs"}, std::pair{"TPU", "TPUs"}, std::pair{"MULTI_CPU", "CPUs"},
        std::pair{"MULTI_NPU", "Ascend NPUs"}, std::pair{"MULTI_XPU", "Intel XPUs"},
        std::pair{"MULTI_HPU", "Gaudi"}, std::pair{"MULTI_MLU", "MLUs"},
        std::pair{"MULTI_MUSA", "MUSA"}, std::pair{"MULTI_SDAA", "SDAA"},
        std::pair{"MULTI_NEURON", "Neuron"}}) {
    auto refused = import_config_text(
        fmt::format("compute_environment: LOCAL_MACHINE\ndistributed_type: {}\n", type),
        "cfg.yaml");
    ASSERT_FALSE(refused) << type;
    const std::string message = refused.error().to_string();
    EXPECT_NE(message.find("cfg.yaml:2:1:"), std::string::npos) << message;
    EXPECT_NE(message.find(device), std::string::npos) << message;
    EXPECT_NE(message.find("set distributed_type: MULTI_GPU"), std::string::npos) << message;
  }
  auto unknown = import_config_text("distributed_type: GPU_CLUSTER\n", "cfg.yaml");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().to_string().find("MEGATRON_LM)"), std::string::npos);
}

TEST(ImportAccelerate, ASectionThatIsNotAMapIsAnError) {
  // Written as a value, or an alias to one: a broken config, not unknown options to skip.
  for (const char* text : {"distributed_type: FSDP\nfsdp_config: true\n",
                           "base: &b 3\ndistributed_type: FSDP\nfsdp_config: *b\n",
                           "distributed_type: DEEPSPEED\ndeepspeed_config: [1, 2]\n"}) {
    auto imported = import_config_text(text, "cfg.yaml");
    ASSERT_FALSE(imported) << text;
    const auto message = imported.error().to_string();
    EXPECT_NE(message.find("_config: expected a map of options"), std::string::npos) << message;
    EXPECT_EQ(message.rfind("cfg.yaml:", 0), 0u) << message;
  }
  // An empty section is no section.
  EXPECT_TRUE(import_config_text("distributed_type: FSDP\nfsdp_config:\n", "cfg.yaml"));
}

TEST(ImportAccelerate, ListsOptionsWithoutMemoryEffect) {
  const imported_job imported = import_ok("accelerate_fsdp.yaml");
  for (const char* key : {"compute_environment", "main_process_port", "rdzv_backend", "tpu_env"})
    EXPECT_NE(find_note(imported.no_effect, std::string("\"") + key + "\" does not affect"), "")
        << key;
  EXPECT_EQ(imported.no_effect.size(), 14u);  // the 13 keys of the file plus use_cpu: false
}

TEST(ImportAccelerate, MapsAnFsdp2Config) {
  const imported_job imported = import_ok("accelerate_fsdp2.yaml");
  const job_spec& job = imported.job;
  EXPECT_EQ(job.parallel.kind, strategy::fsdp2);
  EXPECT_EQ(job.world_size(), 4);
  EXPECT_EQ(job.parallel.reshard_after_forward, 0);
  EXPECT_TRUE(job.parallel.cpu_offload);
  EXPECT_EQ(job.checkpoint.save, state_dict_kind::full);
  EXPECT_EQ(job.precision.params, dtype::f32);  // mixed_precision: 'no'
  // FSDP1-only options are noted, not applied (FSDP2 has no use_orig_params).
  EXPECT_TRUE(job.parallel.use_orig_params);
  EXPECT_NE(find_note(imported.notes, "\"fsdp_config.fsdp_use_orig_params\" is an FSDP1 option"),
            "");
}

// An offload device written as YAML's null is accelerate's default, none. use_cpu: true reaches
// the training only through the single-process launcher (distributed_type NO), where it is
// refused with what would make the file plannable; DeepSpeed's launcher does not pass it on.
TEST(ImportAccelerate, ANullOffloadDeviceIsNone) {
  const std::string head =
      "compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\ndeepspeed_config:\n"
      "  zero_stage: 3\n  offload_optimizer_device: null\n  offload_param_device: null\n"
      "num_processes: 8\nnum_machines: 1\nmixed_precision: fp16\n";
  auto imported = import_config_text(head, "sft.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_FALSE(imported->job.parallel.offload_optimizer);
  EXPECT_FALSE(imported->job.parallel.offload_param);
  auto deepspeed = import_config_text(head + "use_cpu: true\n", "sft.yaml");
  ASSERT_TRUE(deepspeed) << deepspeed.error().to_string();
  EXPECT_EQ(deepspeed->job.parallel.kind, strategy::zero3);
  EXPECT_NE(find_note(deepspeed->notes,
                      "use_cpu: true is read only by accelerate's "
                      "single-process launcher; distributed_type DEEPSPEED"),
            "");
  auto cpu = import_config_text(
      "compute_environment: LOCAL_MACHINE\ndistributed_type: 'NO'\nnum_processes: 1\n"
      "use_cpu: true\n",
      "cpu.yaml");
  ASSERT_FALSE(cpu);
  EXPECT_NE(cpu.error().message.find("set use_cpu: false to plan"), std::string::npos);
  // A value that is no switch is an error only where the single-process launcher exports it
  // (str_to_bool raises on it); another launcher never reads it.
  auto typo = import_config_text(head + "use_cpu: falsed\n", "sft.yaml");
  ASSERT_TRUE(typo) << typo.error().to_string();
  EXPECT_NE(find_note(typo->notes, "use_cpu: \"falsed\" is no switch"), "");
  auto simple_typo = import_config_text(
      "compute_environment: LOCAL_MACHINE\ndistributed_type: 'NO'\nnum_processes: 1\n"
      "use_cpu: falsed\n",
      "cpu.yaml");
  ASSERT_FALSE(simple_typo);
  EXPECT_NE(simple_typo.error().message.find("use_cpu: invalid value \"falsed\""),
            std::string::npos);
}

TEST(ImportAccelerate, ReadsTheDeepSpeedConfigFileItNames) {
  const imported_job imported = import_ok("accelerate_deepspeed.yaml");
  const job_spec& job = imported.job;
  EXPECT_EQ(job.parallel.kind, strategy::zero3);
  EXPECT_TRUE(job.parallel.offload_optimizer);
  EXPECT_TRUE(job.init.meta_device);  // zero3_init_flag
  EXPECT_EQ(job.training.micro_batch, 2u);
  // The JSON's bf16 "auto" takes accelerate's mixed precision, "no" when the YAML gives none (it
  // may not beside a deepspeed_config_file): fp32.
  EXPECT_EQ(job.precision.params, dtype::f32);
  EXPECT_NE(find_note(imported.notes, "zero_optimization.overlap_comm"), "");
  EXPECT_EQ(job.provenance.set_at.at("parallel.strategy").source,
            sample("deepspeed_zero3.json"));
}

// accelerate stops when the YAML sets beside its deepspeed_config_file what the file holds
// (mixed_precision, zero_stage, offload devices, ...): refused at the first such key.
TEST(ImportAccelerate, AcceleratesDeepSpeedKeysBesideAConfigFileAreRefused) {
  const std::string dir = std::filesystem::path(sample("deepspeed_zero3.json")).parent_path();
  auto mixed = import_config_text(
      "distributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: "
      "deepspeed_zero3.json\nmixed_precision: bf16\nnum_processes: 8\n",
      "acc.yaml", dir);
  ASSERT_FALSE(mixed);
  EXPECT_EQ(mixed.error().line, 4);
  EXPECT_NE(mixed.error().message.find("mixed_precision beside deepspeed_config_file (line 3)"),
            std::string::npos)
      << mixed.error().to_string();
  auto stage = import_config_text(
      "distributed_type: DEEPSPEED\ndeepspeed_config:\n  zero_stage: 2\n  deepspeed_config_file: "
      "deepspeed_zero3.json\nnum_processes: 8\n",
      "acc.yaml", dir);
  ASSERT_FALSE(stage);
  EXPECT_EQ(stage.error().line, 3) << stage.error().to_string();
  // The plugin's failure comes before a process count the file leaves to the launch
  // (num_processes: auto): the launch fails whatever the count.
  auto counted_later = import_config_text(
      "distributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: "
      "deepspeed_zero3.json\nmixed_precision: fp16\nnum_processes: auto\n",
      "acc.yaml", dir);
  ASSERT_FALSE(counted_later);
  EXPECT_EQ(counted_later.error().line, 4) << counted_later.error().to_string();
  auto missing_first = import_config_text(
      "distributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: /nowhere/ds.json\n"
      "num_processes: auto\n",
      "acc.yaml");
  ASSERT_FALSE(missing_first);
  EXPECT_EQ(missing_first.error().line, 3) << missing_first.error().to_string();
}

TEST(ImportAccelerate, MissingDeepSpeedFileIsAnError) {
  auto imported = import_config_text(
      "distributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: /nowhere/ds.json\n",
      "acc.yaml");
  ASSERT_FALSE(imported);
  EXPECT_EQ(imported.error().to_string(),
            "acc.yaml:3:3: deepspeed_config_file: /nowhere/ds.json: no such file; put the "
            "DeepSpeed JSON there (a relative path is read from the config's folder, then the "
            "working directory) to plan it\n"
            "  deepspeed_config_file: /nowhere/ds.json\n"
            "  ^ near here");
}

// "none" is accelerate's own word for no DeepSpeed file (DeepSpeedPlugin's default): the YAML's
// deepspeed_config keys are read, and without a zero_stage the plugin's stage 2 is planned.
TEST(ImportAccelerate, ADeepSpeedFileOfNoneIsNoFile) {
  auto none = import_config_text(
      "distributed_type: DEEPSPEED\ndeepspeed_config:\n  deepspeed_config_file: none\n"
      "  offload_optimizer_device: cpu\nmixed_precision: bf16\nnum_processes: 2\n",
      "acc.yaml");
  ASSERT_TRUE(none) << none.error().to_string();
  EXPECT_EQ(none->job.parallel.kind, strategy::zero2);
  EXPECT_TRUE(none->job.parallel.offload_optimizer);
  EXPECT_NE(find_note(none->notes, "none is accelerate's word for no file"), "");
}

TEST(ImportAccelerate, RejectsValuesItCannotMap) {
  auto tpu = import_config_text("distributed_type: TPU\n", "acc.yaml");
  ASSERT_FALSE(tpu);
  EXPECT_EQ(tpu.error().message, "distributed_type: TPU trains on TPUs through torch_xla, whose "
                                 "memory vramscope does not plan (it plans CUDA GPUs); set "
                                 "distributed_type: MULTI_GPU (or FSDP, DEEPSPEED, MEGATRON_LM) "
                                 "to plan the same training on GPUs");
  auto sharding = import_config_text(
      "distributed_type: FSDP\nfsdp_config:\n  fsdp_sharding_strategy: HALF_SHARD\n", "acc.yaml");
  ASSERT_FALSE(sharding);
  EXPECT_EQ(sharding.error().to_string(),
            "acc.yaml:3:3: fsdp_config.fsdp_sharding_strategy: invalid value \"HALF_SHARD\" "
            "(expected one of: FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD, "
            "HYBRID_SHARD_ZERO2)\n"
            "  fsdp_sharding_strategy: HALF_SHARD\n"
            "  ^ near here");
  auto procs = import_config_text(
      "distributed_type: MULTI_GPU\nnum_processes: 6\nnum_machines: 4\n", "acc.yaml");
  ASSERT_FALSE(procs);
  // distributed_type NO is one process, whatever num_processes says.
  auto single =
      import_config_text("distributed_type: 'NO'\nnum_processes: 4\nnum_machines: 1\n", "no.yaml");
  ASSERT_FALSE(single);
  EXPECT_EQ(single.error().line, 1) << single.error().to_string();
  EXPECT_NE(single.error().message.find("starts one process (accelerate's single-process "
                                        "launcher), but num_processes is 4 (line 2)"),
            std::string::npos)
      << single.error().to_string();
  EXPECT_TRUE(import_config_text("distributed_type: 'NO'\nnum_processes: 1\n", "one.yaml"));
  EXPECT_EQ(procs.error().message,
            "num_processes 6 is not a multiple of num_machines 4: num_processes counts the "
            "processes of all machines, and each machine starts an equal share of them; write the "
            "total over all machines (a multiple of 4) to plan it");
}

// HYBRID_SHARD_ZERO2 shards as SHARD_GRAD_OP inside FSDP's default shard group, the node: on one
// machine that is every rank.
TEST(ImportAccelerate, HybridShardZero2OnOneMachineIsShardGradOp) {
  const auto sharding_of = [](const std::string& machines) {
    auto imported =
        import_config_text("distributed_type: FSDP\nnum_processes: 8\nnum_machines: " + machines +
                               "\nfsdp_config:\n  fsdp_sharding_strategy: HYBRID_SHARD_ZERO2\n",
                           "acc.yaml");
    EXPECT_TRUE(imported) << imported.error().to_string();
    return imported ? imported->job.parallel.fsdp_sharding : sharding::no_shard;
  };
  EXPECT_EQ(sharding_of("1"), sharding::shard_grad_op);
  EXPECT_EQ(sharding_of("2"), sharding::hybrid_shard);
}

TEST(ImportAccelerate, MultiGpuMixedPrecisionIsAutocast) {
  auto imported = import_config_text(
      "distributed_type: MULTI_GPU\nmixed_precision: fp16\nnum_processes: 2\n"
      "fsdp_config:\n  fsdp_sharding_stratgy: FULL_SHARD\n",
      "acc.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.kind, strategy::ddp);
  EXPECT_EQ(imported->job.precision.params, dtype::f16);
  EXPECT_TRUE(imported->job.precision.autocast);
  EXPECT_EQ(find_note(imported->notes, "fsdp_sharding_stratgy"),
            "acc.yaml:5:3: unknown option \"fsdp_config.fsdp_sharding_stratgy\" (did you mean "
            "\"fsdp_config.fsdp_sharding_strategy\"?); ignored\n"
            "  fsdp_sharding_stratgy: FULL_SHARD\n"
            "  ^ near here");
}

TEST(ImportAccelerate, AliasesCannotMultiplyOptionsWithoutBound) {
  // Each level doubles the options seen through aliases: 2^12 leaves.
  std::string yaml = "distributed_type: FSDP\na0: &a0 {x: 1, y: 2}\n";
  for (int i = 1; i <= 12; ++i)
    yaml += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " {p: *a" +
            std::to_string(i - 1) + ", q: *a" + std::to_string(i - 1) + "}\n";
  auto imported = import_config_text(yaml, "acc.yaml");
  ASSERT_FALSE(imported);
  EXPECT_EQ(imported.error().to_string(),
            "acc.yaml: more than 2000 options or 16 levels of nesting: not an accelerate config");
}

TEST(ImportAccelerate, ReadsTheNDParallelismConfig) {
  auto imported = import_accelerate("distributed_type: FSDP\nnum_processes: 8\nfsdp_config:\n  fsdp_version: 2\n"
                                     "parallelism_config:\n  parallelism_config_cp_size: 1\n"
                                     "  parallelism_config_dp_replicate_size: 2\n  parallelism_config_dp_shard_size: 2\n"
                                     "  parallelism_config_tp_size: 2\n",
                                     "tp_hsdp.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.kind, strategy::fsdp2);
  EXPECT_EQ(imported->job.parallel.tp, 2);
  EXPECT_EQ(imported->job.parallel.dp_replicate, 2);
  EXPECT_EQ(imported->job.parallel.dp_shard, 2);
  EXPECT_EQ(testing::find_note(imported->notes, "unknown option"), "");
}

// accelerate's own default is mixed_precision "no": fp32, not vramscope's bf16.
TEST(ImportAccelerate, MissingMixedPrecisionIsFp32) {
  auto imported = import_config_text("distributed_type: MULTI_GPU\nnum_processes: 2\n", "a.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.precision.params, dtype::f32);
  EXPECT_NE(find_note(imported->notes, "no mixed_precision"), "");
}

// parallelism_config's context- and sequence-parallel sizes count in the world size:
// dp_replicate x dp_shard x tp x cp x sp processes.
TEST(ImportAccelerate, ContextAndSequenceParallelSizesCountInTheWorld) {
  auto cp = import_config_text(
      "distributed_type: FSDP\nnum_processes: 2\nmixed_precision: bf16\nfsdp_config:\n"
      "  fsdp_version: 2\nparallelism_config:\n  parallelism_config_dp_shard_size: 1\n"
      "  parallelism_config_cp_size: 2\n",
      "a.yaml");
  ASSERT_TRUE(cp) << cp.error().to_string();
  EXPECT_EQ(cp->job.parallel.cp, 2);
  auto sp = import_config_text(
      "distributed_type: DEEPSPEED\nnum_processes: 4\nmixed_precision: bf16\n"
      "deepspeed_config:\n  zero_stage: 3\n  seq_parallel_communication_data_type: bf16\n"
      "parallelism_config:\n  parallelism_config_dp_shard_size: 2\n"
      "  parallelism_config_sp_size: 2\n  parallelism_config_sp_backend: deepspeed\n",
      "a.yaml");
  ASSERT_TRUE(sp) << sp.error().to_string();
  EXPECT_EQ(sp->job.hardware.gpus_per_node, 4);
  // Under ZeRO, Ulysses is planned as context parallelism: ZeRO shards over dp x sp.
  EXPECT_EQ(sp->job.parallel.cp, 2);
  EXPECT_EQ(sp->job.parallel.dp_shard, 2);
  EXPECT_NE(find_note(sp->notes, "sequence parallelism of 2 (Ulysses) is planned as context"), "");
  EXPECT_EQ(find_note(sp->notes, "unknown option"), "");
}

// distributed_type written empty (YAML null, LUN000's 2022 file): accelerate launch matches no
// type and runs one process, as for NO; more processes than one are refused as for NO.
TEST(ImportAccelerate, AnEmptyDistributedTypeIsOneProcess) {
  auto one = import_accelerate(
      "compute_environment: LOCAL_MACHINE\ndistributed_type: \n"
      "fp16: false\nnum_machines: 1\nnum_processes: 1\n",
      "one.yaml");
  ASSERT_TRUE(one) << one.error().to_string();
  EXPECT_EQ(one->job.parallel.kind, strategy::single);
  EXPECT_NE(testing::find_note(one->notes, "distributed_type is empty (null)"), "");
  auto four = import_accelerate("distributed_type:\nnum_processes: 4\n", "four.yaml");
  ASSERT_FALSE(four);
  EXPECT_EQ(four.error().line, 1) << four.error().to_string();
  EXPECT_NE(four.error().message.find("num_processes is 4"), std::string::npos);
  // A filled strategy section beside it says the author meant that strategy: refused.
  auto meant = import_accelerate(
      "deepspeed_config:\n  zero_stage: 2\ndistributed_type: null\n"
      "num_processes: 1\n",
      "meant.yaml");
  ASSERT_FALSE(meant);
  EXPECT_EQ(meant.error().line, 3) << meant.error().to_string();
  EXPECT_NE(meant.error().message.find("fills deepspeed_config (line 2)"), std::string::npos)
      << meant.error().to_string();
}

// zero3_save_16bit_model is compared, as text, with "true" by DeepSpeedPlugin: "auto" (paritea's
// 2025 file) is false, noted, never refused.
TEST(ImportAccelerate, ZeroSave16BitModelIsTrueOnlyWhenItSaysTrue) {
  const std::string head =
      "distributed_type: DEEPSPEED\nnum_processes: 2\nmixed_precision: bf16\n"
      "deepspeed_config:\n  zero_stage: 3\n  zero3_save_16bit_model: ";
  auto autoed = import_accelerate(head + "auto\n", "auto.yaml");
  ASSERT_TRUE(autoed) << autoed.error().to_string();
  EXPECT_EQ(autoed->job.checkpoint.save, state_dict_kind::sharded);
  EXPECT_NE(testing::find_note(autoed->notes, "\"auto\" is not true"), "");
  auto yes = import_accelerate(head + "true\n", "yes.yaml");
  ASSERT_TRUE(yes) << yes.error().to_string();
  EXPECT_EQ(yes->job.checkpoint.save, state_dict_kind::full);
}

// MULTI_GPU of one process runs through torchrun; accelerate before 1.10 (pull/3682) wrapped it
// in DDP, later releases do not: planned as DDP, the note giving the later releases' reading.
TEST(ImportAccelerate, MultiGpuWithOneProcessIsDdpUntilAccelerate110) {
  auto one = import_accelerate("distributed_type: MULTI_GPU\nnum_processes: 1\nmixed_precision: bf16\n",
                               "one.yaml");
  ASSERT_TRUE(one) << one.error().to_string();
  EXPECT_EQ(one->job.parallel.kind, strategy::ddp);
  EXPECT_EQ(one->job.hardware.gpus_per_node, 1);
  EXPECT_NE(testing::find_note(one->notes, "--set parallel.strategy=single"), "");
  auto two = import_accelerate("distributed_type: MULTI_GPU\nnum_processes: 2\n", "two.yaml");
  ASSERT_TRUE(two) << two.error().to_string();
  EXPECT_EQ(two->job.parallel.kind, strategy::ddp);
}

// No fsdp_auto_wrap_policy (here no fsdp_config at all): accelerate's plugin takes NO_WRAP, the
// whole model one FSDP unit, in FSDP1 and FSDP2; a policy written is read as before.
TEST(ImportAccelerate, FsdpWithoutAnAutoWrapPolicyWrapsTheWholeModel) {
  auto bare = import_config_text("distributed_type: FSDP\nnum_processes: 4\n", "a.yaml");
  ASSERT_TRUE(bare) << bare.error().to_string();
  EXPECT_EQ(bare->job.parallel.kind, strategy::fsdp1);
  EXPECT_EQ(bare->job.parallel.wrap, "none");
  EXPECT_NE(find_note(bare->notes, "takes NO_WRAP"), "");
  auto fsdp2 = import_config_text(
      "distributed_type: FSDP\nnum_processes: 4\nfsdp_config:\n  fsdp_version: 2\n"
      "  fsdp_transformer_layer_cls_to_wrap: LlamaDecoderLayer\n",
      "b.yaml");
  ASSERT_TRUE(fsdp2) << fsdp2.error().to_string();
  EXPECT_EQ(fsdp2->job.parallel.wrap, "none");
  auto wrapped = import_config_text(
      "distributed_type: FSDP\nnum_processes: 4\nfsdp_config:\n  fsdp_version: 2\n"
      "  fsdp_auto_wrap_policy: TRANSFORMER_BASED_WRAP\n",
      "c.yaml");
  ASSERT_TRUE(wrapped) << wrapped.error().to_string();
  EXPECT_EQ(wrapped->job.parallel.wrap, "block");
  EXPECT_EQ(find_note(wrapped->notes, "takes NO_WRAP"), "");
}

// No fsdp_state_dict_type: accelerate's plugin saves FULL_STATE_DICT under FSDP1 and
// SHARDED_STATE_DICT under FSDP2 (fresh95's danhtran2mind file); a type written is read as it is.
TEST(ImportAccelerate, FsdpWithoutAStateDictTypeSavesAsThePluginDoes) {
  auto v1 = import_config_text("distributed_type: FSDP\nnum_processes: 4\n", "a.yaml");
  ASSERT_TRUE(v1) << v1.error().to_string();
  EXPECT_EQ(v1->job.checkpoint.save, job::state_dict_kind::full);
  EXPECT_NE(find_note(v1->notes, "saves FULL_STATE_DICT under FSDP1"), "");
  auto v2 = import_config_text(
      "distributed_type: FSDP\nnum_processes: 4\nfsdp_config:\n  fsdp_version: 2\n", "b.yaml");
  ASSERT_TRUE(v2) << v2.error().to_string();
  EXPECT_EQ(v2->job.checkpoint.save, job::state_dict_kind::sharded);
  auto written = import_config_text(
      "distributed_type: FSDP\nnum_processes: 4\nfsdp_config:\n"
      "  fsdp_state_dict_type: SHARDED_STATE_DICT\n",
      "c.yaml");
  ASSERT_TRUE(written) << written.error().to_string();
  EXPECT_EQ(written->job.checkpoint.save, job::state_dict_kind::sharded);
  EXPECT_EQ(find_note(written->notes, "no fsdp_config.fsdp_state_dict_type"), "");
  auto ddp = import_config_text("distributed_type: MULTI_GPU\nnum_processes: 4\n", "d.yaml");
  ASSERT_TRUE(ddp) << ddp.error().to_string();
  EXPECT_EQ(ddp->job.checkpoint.save, job::state_dict_kind::none);
}

// use_orig_params and sync_module_states left out take the defaults of the release the file's
// keys imply: none before 0.21 (FSDP's False), launch's "true" since 0.22 / 0.25.
// fsdp_backward_prefetch_policy: read by accelerate up to 0.34, dropped in 1.0 (79a84264). As
// the 0.12 to 0.25 writer wrote it (a numbered sharding strategy) it is that release's prefetch;
// beside a spelling of 0.26 or later (a named strategy, which the older plugin's int() could
// not parse) the file is planned at the current release, which ignores it.
TEST(ImportAccelerate, TheOldBackwardPrefetchNameIsReadOnlyInAFileOfItsRelease) {
  const std::string head =
      "distributed_type: FSDP\nnum_processes: 4\nfsdp_config:\n"
      "  fsdp_backward_prefetch_policy: BACKWARD_PRE\n";
  auto old = import_accelerate(head + "  fsdp_sharding_strategy: 1\n", "old.yaml");
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_EQ(old->job.parallel.backward_prefetch, prefetch::pre);
  auto named = import_accelerate(head + "  fsdp_sharding_strategy: FULL_SHARD\n", "named.yaml");
  ASSERT_TRUE(named) << named.error().to_string();
  EXPECT_EQ(named->job.parallel.backward_prefetch, prefetch::none);
  const std::string said = find_note(named->notes, "accelerate read only before 1.0");
  EXPECT_NE(said.find("named.yaml:4:"), std::string::npos) << said;
  EXPECT_NE(said.find("fsdp_sharding_strategy FULL_SHARD (line 5)"), std::string::npos) << said;
  // Both names: the new one is what the current release reads.
  auto both = import_accelerate(head + "  fsdp_backward_prefetch: BACKWARD_POST\n", "both.yaml");
  ASSERT_TRUE(both) << both.error().to_string();
  EXPECT_EQ(both->job.parallel.backward_prefetch, prefetch::post);
}

TEST(ImportAccelerate, FsdpSwitchesLeftOutTakeTheDefaultsOfTheFilesRelease) {
  const std::string old_keys =
      "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n"
      "  fsdp_auto_wrap_policy: NO_WRAP\n  fsdp_backward_prefetch_policy: BACKWARD_PRE\n"
      "  sharding_strategy: 1\n";
  auto old = import_accelerate(old_keys, "old.yaml");
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_FALSE(old->job.parallel.use_orig_params);
  EXPECT_FALSE(old->job.parallel.sync_module_states);
  const std::string said = find_note(old->notes, "is how accelerate before 0.21 wrote");
  EXPECT_NE(said.find("old.yaml:6:"), std::string::npos) << said;
  EXPECT_NE(said.find("fsdp_config.sharding_strategy"), std::string::npos) << said;
  // The 0.12 to 0.25 spelling alone, without an unprefixed key, is evidence too.
  auto policy = import_accelerate(
      "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n"
      "  fsdp_backward_prefetch_policy: BACKWARD_PRE\n  fsdp_sharding_strategy: 1\n",
      "policy.yaml");
  ASSERT_TRUE(policy) << policy.error().to_string();
  EXPECT_FALSE(policy->job.parallel.use_orig_params);
  EXPECT_FALSE(policy->job.parallel.sync_module_states);
  // A key of 0.21 or later makes it a later release: what is left out takes launch's default.
  auto mixed = import_accelerate(old_keys + "  fsdp_use_orig_params: false\n", "mixed.yaml");
  ASSERT_TRUE(mixed) << mixed.error().to_string();
  EXPECT_FALSE(mixed->job.parallel.use_orig_params);
  EXPECT_TRUE(mixed->job.parallel.sync_module_states);
  auto modern = import_accelerate(
      "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n"
      "  fsdp_backward_prefetch: BACKWARD_PRE\n  fsdp_sharding_strategy: FULL_SHARD\n",
      "modern.yaml");
  ASSERT_TRUE(modern) << modern.error().to_string();
  EXPECT_TRUE(modern->job.parallel.use_orig_params);
  EXPECT_TRUE(modern->job.parallel.sync_module_states);
  EXPECT_NE(find_note(modern->notes, "fsdp_config has no use_orig_params and sync_module_states: "
                                     "planned true"),
            "");
  EXPECT_EQ(modern->job.parallel.backward_prefetch, prefetch::pre);  // as the file says
  // No prefetch key at all: accelerate hands FSDP backward_prefetch=None.
  auto bare = import_accelerate(
      "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n  fsdp_use_orig_params: true\n",
      "bare.yaml");
  ASSERT_TRUE(bare) << bare.error().to_string();
  EXPECT_EQ(bare->job.parallel.backward_prefetch, prefetch::none);
  // FSDP2 has neither switch: nothing is set or said.
  auto two = import_accelerate(
      "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n  fsdp_version: 2\n", "two.yaml");
  ASSERT_TRUE(two) << two.error().to_string();
  EXPECT_EQ(find_note(two->notes, "sync_module_states"), "");
}

// accelerate launch prefixes an fsdp_config key lacking "fsdp" (launch.py,
// _validate_launch_command), so the unprefixed spelling means the same option; a key that is
// no option with the prefix either is still unknown, under its own spelling.
TEST(ImportAccelerate, FsdpConfigKeysWithoutThePrefixAreTheOptions) {
  auto imported = import_accelerate(
      "distributed_type: FSDP\nnum_processes: 2\nmixed_precision: bf16\nfsdp_config:\n"
      "  sync_module_states: true\n  use_orig_params: false\n  sharding_strategy: SHARD_GRAD_OP\n"
      "  offload_params: true\n  limit_all_gathers: true\n",
      "a.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.kind, strategy::fsdp1);
  EXPECT_TRUE(imported->job.parallel.sync_module_states);
  EXPECT_FALSE(imported->job.parallel.use_orig_params);
  EXPECT_EQ(imported->job.parallel.fsdp_sharding, sharding::shard_grad_op);
  EXPECT_TRUE(imported->job.parallel.cpu_offload);
  EXPECT_EQ(find_note(imported->notes, "unknown option \"fsdp_config.sync_module_states"), "");
  EXPECT_NE(find_note(imported->notes, "\"fsdp_config.limit_all_gathers\" is not among the "
                                       "options of the accelerate releases"),
            "");
  auto two = import_accelerate(
      "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n  version: 2\n", "b.yaml");
  ASSERT_TRUE(two) << two.error().to_string();
  EXPECT_EQ(two->job.parallel.kind, strategy::fsdp2);
}

// accelerate hands offload_param_device to DeepSpeed, whose stage 1 and 2 optimizer never reads
// offload_param: below ZeRO-3 it is noted and ignored, as the DeepSpeed JSON importer does.
TEST(ImportAccelerate, ParameterOffloadBelowZero3IsIgnoredAsDeepSpeedDoes) {
  const std::string head = "distributed_type: DEEPSPEED\nnum_processes: 2\nmixed_precision: bf16\n"
                           "deepspeed_config:\n  offload_optimizer_device: cpu\n"
                           "  offload_param_device: cpu\n  zero_stage: ";
  auto two = import_accelerate(head + "2\n", "z2.yaml");
  ASSERT_TRUE(two) << two.error().to_string();
  EXPECT_EQ(two->job.parallel.kind, strategy::zero2);
  EXPECT_TRUE(two->job.parallel.offload_optimizer);
  EXPECT_FALSE(two->job.parallel.offload_param);
  EXPECT_NE(find_note(two->notes, "deepspeed_config.offload_param_device: parameter offload is a "
                                  "ZeRO-3 feature; DeepSpeed ignores it at stage 2"),
            "");
  auto three = import_accelerate(head + "3\n", "z3.yaml");
  ASSERT_TRUE(three) << three.error().to_string();
  EXPECT_TRUE(three->job.parallel.offload_param);
  EXPECT_EQ(find_note(three->notes, "ZeRO-3 feature"), "");
}

// DeepSpeedPlugin (accelerate utils/dataclasses.py): without zero_stage (and without a DeepSpeed
// JSON) the stage is 2, and zero3_init_flag is switched off below stage 3; a DeepSpeed-JSON map
// nested in deepspeed_config is no launch argument.
TEST(ImportAccelerate, DeepSpeedPluginDefaults) {
  auto imported = import_config_text(
      "distributed_type: DEEPSPEED\nnum_processes: 8\n"
      "deepspeed_config:\n  zero3_init_flag: true\n"
      "  zero_optimization:\n    stage: 1\n",
      "ds.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.kind, strategy::zero2);
  EXPECT_FALSE(imported->job.init.meta_device);
  EXPECT_NE(find_note(imported->notes, "ZeRO stage 2"), "");
  EXPECT_NE(find_note(imported->notes, "zero3_init_flag applies at ZeRO stage 3 only"), "");
  auto three = import_config_text(
      "distributed_type: DEEPSPEED\nnum_processes: 8\n"
      "deepspeed_config:\n  zero_stage: 3\n  zero3_init_flag: true\n",
      "ds.yaml");
  ASSERT_TRUE(three) << three.error().to_string();
  EXPECT_TRUE(three->job.init.meta_device);
  // Left out at stage 3: DeepSpeedPlugin takes hf_ds_config.is_zero3(), on; written false: off.
  auto left_out = import_config_text(
      "distributed_type: DEEPSPEED\nnum_processes: 8\ndeepspeed_config:\n  zero_stage: 3\n",
      "ds.yaml");
  ASSERT_TRUE(left_out) << left_out.error().to_string();
  EXPECT_TRUE(left_out->job.init.meta_device);
  EXPECT_NE(find_note(left_out->notes, "deepspeed_config has no zero3_init_flag"), "");
  auto off = import_config_text(
      "distributed_type: DEEPSPEED\nnum_processes: 8\n"
      "deepspeed_config:\n  zero_stage: 3\n  zero3_init_flag: false\n",
      "ds.yaml");
  ASSERT_TRUE(off) << off.error().to_string();
  EXPECT_FALSE(off->job.init.meta_device);
}

// No fsdp_cpu_ram_efficient_loading: launch's default "true" (0.24 on) loads on rank 0 and builds
// the other ranks on the meta device; beside a boolean fsdp_sync_module_states false launch
// stops, and a file an accelerate before 0.21 wrote has neither.
TEST(ImportAccelerate, RamEfficientLoadingLeftOutIsLaunchsDefault) {
  auto left_out = import_config_text(
      "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n"
      "  fsdp_sharding_strategy: FULL_SHARD\n  fsdp_sync_module_states: true\n",
      "cfg.yaml");
  ASSERT_TRUE(left_out) << left_out.error().to_string();
  EXPECT_TRUE(left_out->job.init.meta_device);
  EXPECT_EQ(left_out->job.init.load, weight_load::rank0);
  EXPECT_NE(find_note(left_out->notes, "no fsdp_cpu_ram_efficient_loading"), "");
  auto off = import_config_text(
      "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n"
      "  fsdp_cpu_ram_efficient_loading: false\n  fsdp_sync_module_states: false\n",
      "cfg.yaml");
  ASSERT_TRUE(off) << off.error().to_string();
  EXPECT_FALSE(off->job.init.meta_device);
  EXPECT_EQ(off->job.init.load, weight_load::all_ranks);
  auto stops = import_config_text(
      "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n"
      "  fsdp_sharding_strategy: FULL_SHARD\n  fsdp_sync_module_states: false\n",
      "cfg.yaml");
  ASSERT_FALSE(stops);
  EXPECT_EQ(stops.error().line, 5);
  EXPECT_NE(stops.error().message.find("set `--fsdp_sync_module_states` to `True`"),
            std::string::npos)
      << stops.error().message;
  // A quoted 'false' is a non-empty string, true to launch's check: no stop.
  EXPECT_TRUE(
      import_config_text("distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n"
                         "  fsdp_sync_module_states: 'false'\n",
                         "cfg.yaml"));
  auto old = import_config_text(
      "distributed_type: FSDP\nnum_processes: 2\nfsdp_config:\n"
      "  fsdp_sharding_strategy: 1\n  fsdp_backward_prefetch_policy: BACKWARD_PRE\n",
      "cfg.yaml");
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_FALSE(old->job.init.meta_device);
}

// PyYAML keeps the last of a key written twice; unquoted NO is accelerate's NO.
TEST(ImportAccelerate, AKeyWrittenTwiceKeepsTheLast) {
  auto imported = import_config_text(
      "distributed_type: FSDP\ndistributed_type: NO\nnum_processes: 1\n"
      "fsdp_config:\n  fsdp_sharding_strategy: FULL_SHARD\n",
      "twice.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.kind, strategy::single);
  EXPECT_EQ(find_note(imported->notes, "written twice"),
            "twice.yaml:2:1: distributed_type is written twice (lines 1 and 2): accelerate reads "
            "the file with PyYAML, which keeps the last\n"
            "distributed_type: NO\n"
            "^ near here");
}

// Two configs pasted into one file: PyYAML replaces the earlier fsdp_config mapping whole, so a
// key only the earlier one writes is not read (and is said to be dropped).
TEST(ImportAccelerate, ASectionWrittenTwiceIsTheLaterMappingWhole) {
  auto imported = import_config_text(
      "distributed_type: FSDP\nnum_processes: 4\nfsdp_config:\n  fsdp_offload_params: true\n"
      "  fsdp_sharding_strategy: FULL_SHARD\n"
      "distributed_type: FSDP\nfsdp_config:\n  fsdp_sharding_strategy: SHARD_GRAD_OP\n",
      "pasted.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_FALSE(imported->job.parallel.cpu_offload);
  EXPECT_EQ(imported->job.parallel.fsdp_sharding, sharding::shard_grad_op);
  EXPECT_NE(find_note(imported->notes, "mapping whole")
                .find("fsdp_config is written twice (lines 3 and 7): PyYAML keeps the later "
                      "mapping whole, so fsdp_offload_params of the earlier one is not read"),
            std::string::npos)
      << find_note(imported->notes, "mapping whole");
}

TEST(ImportAccelerate, AConfigWrittenInJsonIsReadByItsKeys) {
  // JSON is YAML: accelerate reads a .yaml written in JSON syntax with yaml.safe_load. Its keys,
  // not its braces, make it accelerate's rather than DeepSpeed's.
  const std::string text =
      "{\n  \"compute_environment\": \"LOCAL_MACHINE\",\n  \"distributed_type\": "
      "\"MULTI_GPU\",\n  \"mixed_precision\": \"bf16\",\n  \"num_processes\": 8\n}\n";
  EXPECT_EQ(detect_format(text), config_format::accelerate);
  EXPECT_EQ(detect_format("{\"train_batch_size\": 32, \"zero_optimization\": {\"stage\": 2}}"),
            config_format::deepspeed);
  auto imported = import_config_text(text, "cfg.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->format, "accelerate");
  EXPECT_EQ(imported->job.parallel.kind, strategy::ddp);
  EXPECT_EQ(imported->job.hardware.gpus_per_node, 8);
  EXPECT_EQ(find_note(imported->notes, "unknown option"), "");
}

TEST(ImportAccelerate, AnotherDistributedTypesSectionHasNoEffect) {
  // accelerate reads fsdp_config only under FSDP and deepspeed_config only under DEEPSPEED.
  auto imported = import_config_text(
      "distributed_type: MULTI_GPU\nnum_processes: 4\nmixed_precision: bf16\nfsdp_config:\n"
      "  fsdp_sharding_strategy: HYBRID_SHARD\n  fsdp_use_orig_params: true\n"
      "deepspeed_config:\n  zero_stage: 3\n",
      "cfg.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.kind, strategy::ddp);
  EXPECT_NE(find_note(imported->notes, "reads fsdp_config only under distributed_type FSDP, so "
                                       "its 2 option(s) have no effect"),
            "");
  EXPECT_NE(find_note(imported->notes, "reads deepspeed_config only under"), "");
  EXPECT_NE(find_note(imported->no_effect, "fsdp_config.fsdp_sharding_strategy"), "");
  auto fsdp = import_config_text(
      "distributed_type: FSDP\nnum_processes: 4\nfsdp_config:\n"
      "  fsdp_sharding_strategy: SHARD_GRAD_OP\n",
      "cfg.yaml");
  ASSERT_TRUE(fsdp) << fsdp.error().to_string();
  EXPECT_EQ(fsdp->job.parallel.fsdp_sharding, sharding::shard_grad_op);
}

// deepspeed_config_file: "" is a value accelerate passes on, which DeepSpeed's plugin cannot
// read; left empty (YAML's null) it is no value, and the config's own keys are read.
TEST(ImportAccelerate, AnEmptyDeepSpeedConfigFileIsRefusedANullOneIsAbsent) {
  const std::string rest = "  zero_stage: 2\ndistributed_type: DEEPSPEED\nnum_processes: 2\n";
  auto empty =
      import_config_text("deepspeed_config:\n  deepspeed_config_file: \"\"\n" + rest, "a.yaml");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().line, 2);
  EXPECT_NE(empty.error().message.find("deepspeed_config_file is the empty string"),
            std::string::npos)
      << empty.error().to_string();
  auto null = import_config_text("deepspeed_config:\n  deepspeed_config_file:\n" + rest, "a.yaml");
  ASSERT_TRUE(null) << null.error().to_string();
  EXPECT_EQ(null->job.parallel.kind, strategy::zero2);
}

TEST(ImportAccelerate, DeepSpeedConfigWrittenAsAPathIsNotRead) {
  // accelerate launch copies only a map-valued deepspeed_config onto its arguments; under
  // DEEPSPEED it then calls .keys() on the string and fails.
  auto ddp = import_config_text("distributed_type: MULTI_GPU\nnum_processes: 8\n"
                                "deepspeed_config: ./deepspeed_stage2.json\n",
                                "cfg.yaml");
  ASSERT_TRUE(ddp) << ddp.error().to_string();
  EXPECT_EQ(ddp->job.parallel.kind, strategy::ddp);
  EXPECT_NE(find_note(ddp->notes, "\"./deepspeed_stage2.json\" is a path"), "");
  auto ds = import_config_text("distributed_type: DEEPSPEED\nnum_processes: 8\n"
                               "deepspeed_config: ./deepspeed_stage2.json\n",
                               "cfg.yaml");
  ASSERT_FALSE(ds);
  EXPECT_NE(ds.error().to_string().find(
                "cfg.yaml:3:1: deepspeed_config: \"./deepspeed_stage2.json\" is a path"),
            std::string::npos)
      << ds.error().to_string();
  EXPECT_NE(ds.error().to_string().find("{deepspeed_config_file: ./deepspeed_stage2.json}"),
            std::string::npos);
}

// accelerate's num_processes is DeepSpeed's world size: what the JSON leaves out of
// train_batch_size = micro x accumulation x world is derived from it, not from an assumption.
TEST(ImportAccelerate, TheProcessCountFillsTheDeepSpeedBatchArithmetic) {
  const auto dir = std::filesystem::temp_directory_path() / "vramscope_accelerate_world_test";
  std::filesystem::create_directories(dir);
  const auto write = [&](const char* name, const std::string& text) {
    std::ofstream(dir / name) << text;
  };
  write("no_micro.json", "{\"train_batch_size\": 64, \"gradient_accumulation_steps\": 2}\n");
  write("no_accumulation.json",
        "{\"train_batch_size\": 64, \"train_micro_batch_size_per_gpu\": 4}\n");
  write("disagree.json", "{\"train_batch_size\": 64, \"train_micro_batch_size_per_gpu\": 4, "
                        "\"gradient_accumulation_steps\": 1}\n");
  const auto with = [&](const char* json) {
    return import_config_text(
        fmt::format("distributed_type: DEEPSPEED\nnum_processes: 4\ndeepspeed_config:\n"
                    "  deepspeed_config_file: {}\n", json),
        "acc.yaml", dir.string());
  };
  auto micro = with("no_micro.json");
  ASSERT_TRUE(micro) << micro.error().to_string();
  EXPECT_EQ(micro->job.hardware.gpus_per_node, 4);
  EXPECT_EQ(micro->job.training.micro_batch, 8u);  // 64 / (2 x 4)
  EXPECT_NE(find_note(micro->notes, "GPUs of the launch"), "");
  auto accumulation = with("no_accumulation.json");
  ASSERT_TRUE(accumulation) << accumulation.error().to_string();
  EXPECT_EQ(accumulation->job.training.gradient_accumulation, 4);  // 64 / (4 x 4)
  auto disagree = with("disagree.json");
  ASSERT_FALSE(disagree);
  EXPECT_NE(disagree.error().message.find("DeepSpeed's batch assertion fails"), std::string::npos)
      << disagree.error().to_string();
  std::filesystem::remove_all(dir);
}

// deepspeed_config.gradient_accumulation_steps auto: the Accelerator's own accumulation is used
// (DeepSpeedPlugin.__post_init__), which the file does not give: noted, not refused.
TEST(ImportAccelerate, DeepSpeedAccumulationAutoIsTheScriptsAndNoted) {
  auto imported = import_config_text(
      "distributed_type: DEEPSPEED\nnum_processes: 8\ndeepspeed_config:\n"
      "  gradient_accumulation_steps: auto\n  zero_stage: 3\n",
      "a.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.training.gradient_accumulation, 1);
  EXPECT_NE(find_note(imported->notes, "gradient_accumulation_steps auto"), "");
  auto four = import_config_text(
      "distributed_type: DEEPSPEED\nnum_processes: 8\ndeepspeed_config:\n"
      "  gradient_accumulation_steps: 4\n  zero_stage: 3\n",
      "a.yaml");
  ASSERT_TRUE(four) << four.error().to_string();
  EXPECT_EQ(four->job.training.gradient_accumulation, 4);
}

// A config without num_processes is made for `accelerate launch --num_processes N`, and
// accelerate stops on it without one: the import keeps the file's facts, the plan refuses at
// distributed_type, and --set hardware.gpus_per_node plans it.
TEST(ImportAccelerate, NoNumProcessesIsLeftToTheLaunchAndSetByTheUser) {
  const auto dir = std::filesystem::temp_directory_path() / "vramscope_accelerate_nproc_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "fsdp.yaml").string();
  std::ofstream(path) << "compute_environment: LOCAL_MACHINE\ndistributed_type: FSDP\n"
                         "fsdp_config:\n  fsdp_sharding_strategy: FULL_SHARD\nmachine_rank: 0\n";
  auto imported = import_config(path);
  ASSERT_TRUE(imported) << imported.error().message;
  EXPECT_EQ(imported->job.parallel.kind, strategy::fsdp1);
  ASSERT_EQ(imported->unsettled.size(), 1U);
  // The count is asked for, not assumed.
  for (const auto& n : imported->notes)
    EXPECT_EQ(n.message.find("does not give the number of GPUs"), std::string::npos) << n.message;
  auto refused = load_job_and_model("", {}, path);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().line, 2);
  EXPECT_NE(refused.error().message.find("--set hardware.gpus_per_node=N"), std::string::npos)
      << refused.error().message;
  auto planned = load_job_and_model("", {"hardware.gpus_per_node=4"}, path);
  ASSERT_TRUE(planned) << planned.error().message;
  EXPECT_EQ(planned->job.hardware.gpus_per_node, 4);
  // Another field set does not settle it.
  EXPECT_FALSE(load_job_and_model("", {"hardware.nodes=2"}, path));
  // distributed_type NO is one process without num_processes (load_config_from_file).
  std::ofstream(path) << "distributed_type: 'NO'\n";
  auto single = import_config(path);
  ASSERT_TRUE(single) << single.error().message;
  EXPECT_TRUE(single->unsettled.empty());
  std::filesystem::remove_all(dir);
}

// num_processes: auto is torchrun's one process per visible GPU on one machine, a count the file
// does not fix: left to the plan's --set, like a missing one; on several machines accelerate
// divides it by num_machines, which stops.
TEST(ImportAccelerate, NumProcessesAutoIsLeftToTheUserOnOneMachine) {
  auto one = import_config_text("distributed_type: FSDP\nnum_processes: auto\n", "cfg.yaml");
  ASSERT_TRUE(one) << one.error().message;
  ASSERT_EQ(one->unsettled.size(), 1U);
  EXPECT_EQ(one->unsettled[0].refusal.line, 2);
  EXPECT_EQ(one->unsettled[0].settled_by, "hardware.gpus_per_node");
  auto several = import_config_text(
      "distributed_type: FSDP\nnum_machines: 2\nnum_processes: auto\n", "cfg.yaml");
  ASSERT_FALSE(several);
  EXPECT_EQ(several.error().line, 3);
  EXPECT_NE(several.error().message.find("on 2 machines"), std::string::npos);
}

}  // namespace
}  // namespace vramscope::job
