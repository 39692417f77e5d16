#include <vramscope/import/importers.hpp>
#include <vramscope/job/job_loading.hpp>
#include <vramscope/job/resolve.hpp>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "import/import_test_support.hpp"

namespace vramscope::job {
namespace {

using testing::find_note;
using testing::import_ok;
using testing::sample;

TEST(ImportDeepSpeed, MapsAZero3Config) {
  const imported_job imported = import_ok("deepspeed_zero3.json");
  const job_spec& job = imported.job;
  EXPECT_EQ(imported.format, "deepspeed");
  EXPECT_EQ(job.parallel.kind, strategy::zero3);
  EXPECT_TRUE(job.parallel.offload_optimizer);
  EXPECT_FALSE(job.parallel.offload_param);
  EXPECT_EQ(job.parallel.prefetch_bucket_size, 50'000'000u);
  EXPECT_EQ(job.parallel.max_live_parameters, 1'000'000'000u);
  EXPECT_EQ(job.parallel.reduce_bucket_size, job_spec{}.parallel.reduce_bucket_size);  // "auto"
  EXPECT_TRUE(job.parallel.contiguous_gradients);
  EXPECT_EQ(job.checkpoint.save, state_dict_kind::full);
  EXPECT_EQ(job.training.micro_batch, 2u);
  EXPECT_EQ(job.training.gradient_accumulation, 4);
  EXPECT_EQ(job.world_size(), 8);  // 64 = 2 x 4 x 8
  EXPECT_EQ(job.optimizer.kind, optimizer_kind::adamw);
  // bf16.enabled "auto": the Trainer's --bf16, off by default, so DeepSpeed trains in fp32.
  EXPECT_EQ(job.precision.params, dtype::f32);
  EXPECT_EQ(job.precision.master, dtype::f32);
}

// tensor_parallel.autotp_size: DeepSpeed's AutoTP training, the tensor-parallel degree, with ZeRO
// over the remaining data-parallel ranks; the batch sizes count those ranks.
// An Adam param no constructor DeepSpeed builds takes, and max_grad_norm, stop DeepSpeed only
// when it builds the optimizer from the section (not when the program passes its own): noted
// at their lines, the file planned.
// A batch size written as 0 (or any number below 1) stops DeepSpeed's batch assertion: refused at
// its line, never read as "not given" (ericzhang1412's "train_batch_size": 0 beside accumulation
// 4).
TEST(ImportDeepSpeed, ABatchSizeBelowOneIsRefusedAtItsLine) {
  const auto zero = import_config_text(
      "{\n  \"train_batch_size\": 0,\n  \"gradient_accumulation_steps\": 4,\n"
      "  \"zero_optimization\": {\"stage\": 2}\n}\n",
      "ds.json");
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().line, 2) << zero.error().to_string();
  EXPECT_NE(zero.error().message.find("train_batch_size 0: DeepSpeed's batch assertion stops"),
            std::string::npos)
      << zero.error().to_string();
  const auto one = import_config_text(
      "{\"train_batch_size\": 8, \"train_micro_batch_size_per_gpu\": 1, "
      "\"gradient_accumulation_steps\": 1, \"zero_optimization\": {\"stage\": 2}}\n",
      "ds.json");
  ASSERT_TRUE(one) << one.error().to_string();
}

// A batch size written as null is DeepSpeed's "not given" (get_scalar_param's None): derived
// from the other two (PKU-Alignment's align-anything configs: "gradient_accumulation_steps":
// null beside train_batch_size 128 and train_micro_batch_size_per_gpu 16).
TEST(ImportDeepSpeed, ANullBatchSizeIsOneNotGiven) {
  const auto imported = import_config_text(
      "{\n  \"train_batch_size\": 128,\n  \"train_micro_batch_size_per_gpu\": 16,\n"
      "  \"gradient_accumulation_steps\": null,\n  \"zero_optimization\": {\"stage\": 2}\n}\n",
      "ds.json");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.training.micro_batch, 16u);
  EXPECT_NE(find_note(imported->notes, "gradient_accumulation_steps: null is DeepSpeed's"), "");
  // A null micro batch is derived from the total and the accumulation on the assumed 8 GPUs.
  const auto derived = import_config_text(
      "{\"train_batch_size\": 64, \"train_micro_batch_size_per_gpu\": null,\n"
      " \"gradient_accumulation_steps\": 2, \"zero_optimization\": {\"stage\": 1}}\n",
      "ds.json");
  ASSERT_TRUE(derived) << derived.error().to_string();
  EXPECT_EQ(derived->job.training.micro_batch, 4u);
}

TEST(ImportDeepSpeed, OptimizerParamsTheConstructorsDoNotTakeAreNoted) {
  auto imported = import_config_text(
      "{\"zero_optimization\": {\"stage\": 2},\n \"optimizer\": {\"type\": \"AdamW\",\n"
      "  \"params\": {\"lr\": 1e-4, \"weight-decay\": 0.01,\n   \"max_grad_norm\": 1.0}},\n"
      " \"train_micro_batch_size_per_gpu\": 2}\n",
      "ds.json");
  ASSERT_TRUE(imported) << imported.error().to_string();
  const auto typo = find_note(imported->notes, "optimizer.params.weight-decay: none of");
  EXPECT_NE(typo, "");
  EXPECT_NE(typo.find("ds.json:3:"), std::string::npos) << typo;
  EXPECT_NE(find_note(imported->notes, "optimizer.params.max_grad_norm: DeepSpeed stops"), "");
  EXPECT_EQ(find_note(imported->notes, "optimizer.params.lr"), "");
}

// "bfloat16" is the bf16 section's older name (constants.py BFLOAT16_OLD), which DeepSpeed
// still reads where there is no "bf16"; beside one it is never looked at.
TEST(ImportDeepSpeed, TheOlderBfloat16SectionIsBf16) {
  auto old = import_config_text(
      "{\"zero_optimization\": {\"stage\": 2},\n \"bfloat16\": {\"enabled\": true},\n"
      " \"train_micro_batch_size_per_gpu\": 1}\n",
      "ds.json");
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_EQ(old->job.precision.params, dtype::bf16);
  EXPECT_EQ(old->job.precision.master, dtype::f32);
  EXPECT_NE(find_note(old->notes, "bfloat16.enabled is DeepSpeed's older name of bf16.enabled"),
            "");
  auto both = import_config_text(
      "{\"zero_optimization\": {\"stage\": 2},\n \"bf16\": {\"enabled\": false},\n"
      " \"bfloat16\": {\"enabled\": true}}\n",
      "ds.json");
  ASSERT_TRUE(both) << both.error().to_string();
  EXPECT_EQ(both->job.precision.params, dtype::f32);
  EXPECT_NE(find_note(both->notes, "does not read beside bf16"), "");
}

// ZeRO-3 joins nvme_path into its swap folder: NVMe offload without one stops DeepSpeed (a
// TypeError on None); below stage 3 nothing builds that folder.
TEST(ImportDeepSpeed, NvmeOffloadWithoutAPathIsRefusedAtZero3) {
  const std::string message =
      import_config_text(
          "{\"zero_optimization\": {\"stage\": 3,\n \"offload_optimizer\": {\"device\": \"cpu\"},\n"
          " \"offload_param\": {\"device\": \"nvme\", \"pin_memory\": true}}}\n",
          "ds.json")
          .error()
          .to_string();
  EXPECT_NE(message.find("ds.json:3:"), std::string::npos) << message;
  EXPECT_NE(message.find("offload_param.device nvme without"), std::string::npos) << message;
  auto with_path = import_config_text(
      "{\"zero_optimization\": {\"stage\": 3,\n \"offload_param\": {\"device\": \"nvme\",\n"
      "  \"nvme_path\": \"/local_nvme\"}}}\n",
      "ds.json");
  ASSERT_TRUE(with_path) << with_path.error().to_string();
  EXPECT_TRUE(with_path->job.parallel.offload_param);
}

// offload_optimizer / offload_param written as null or {} are DeepSpeed's Optional default and an
// offload config with device "none": no offload (fresh101's nirmal-adhikari-hub file); another
// scalar fails DeepSpeed's validation and is refused at its line.
TEST(ImportDeepSpeed, NullOrEmptyOffloadSectionIsNoOffload) {
  for (const char* value : {"null", "{}"}) {
    auto imported = import_config_text(
        fmt::format("{{\"train_micro_batch_size_per_gpu\": 1,\n \"zero_optimization\": "
                    "{{\"stage\": 3,\n \"offload_param\": {},\n \"offload_optimizer\": {}}}}}\n",
                    value, value),
        "ds.json");
    ASSERT_TRUE(imported) << value << ": " << imported.error().to_string();
    EXPECT_FALSE(imported->job.parallel.offload_param) << value;
    EXPECT_FALSE(imported->job.parallel.offload_optimizer) << value;
    EXPECT_EQ(find_note(imported->notes, "not a field"), "") << value;
  }
  auto bad = import_config_text(
      "{\"zero_optimization\": {\"stage\": 2,\n \"offload_optimizer\": \"cpu\"}}", "ds.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().to_string().find("ds.json:2:"), std::string::npos)
      << bad.error().to_string();
  EXPECT_NE(bad.error().to_string().find("write null for no offload"), std::string::npos)
      << bad.error().to_string();
}

// Stage 0 builds no ZeRO optimizer (engine.py, _do_optimizer_sanity_check: zero_enabled is false),
// so the options only the ZeRO optimizers read (offload_optimizer, contiguous_gradients) are
// accepted and unused: noted, planned as ddp (fresh101's nirmal-adhikari-hub file).
TEST(ImportDeepSpeed, ZeroOptimizerOptionsAtStageZeroAreUnused) {
  auto imported = import_config_text(
      "{\"train_micro_batch_size_per_gpu\": 1,\n \"zero_optimization\": {\"stage\": 0,\n"
      " \"contiguous_gradients\": false,\n \"offload_optimizer\": {\"device\": \"cpu\"},\n"
      " \"cpu_offload\": true}}\n",
      "ds.json");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.kind, strategy::ddp);
  EXPECT_FALSE(imported->job.parallel.offload_optimizer);
  EXPECT_NE(find_note(imported->notes, "contiguous_gradients: read by the ZeRO optimizers only"),
            "");
  EXPECT_NE(
      find_note(imported->notes, "offload_optimizer.device: read by the ZeRO optimizers only"), "");
}

// A JSON boolean in a number field of the ZeRO config is read as pydantic reads it, 1 or 0, noted
// (fresh105's mrflogs file: "reduce_bucket_size": true).
TEST(ImportDeepSpeed, BooleanInAZeroNumberFieldIsOneOrZero) {
  auto imported = import_config_text(
      "{\"train_micro_batch_size_per_gpu\": 1,\n \"zero_optimization\": {\"stage\": 2,\n"
      " \"reduce_bucket_size\": true}}\n",
      "ds.json");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.reduce_bucket_size, 1);
  EXPECT_NE(find_note(imported->notes, "pydantic takes a boolean as an integer"), "");
  // A boolean where DeepSpeed wants a word is not a number: refused as before.
  auto word = import_config_text(
      "{\"zero_optimization\": {\"stage\": 2,\n \"offload_optimizer\": {\"device\": true}}}",
      "ds.json");
  EXPECT_FALSE(word);
}

TEST(ImportDeepSpeed, AutoTpSizeIsTensorParallelism) {
  auto imported = import_config_text(
      "{\"zero_optimization\": {\"stage\": 2},\n \"tensor_parallel\": {\"autotp_size\": 4,\n"
      "  \"partition_config\": {\"use_default_specs\": true}, \"preset_model\": \"llama\"},\n"
      " \"train_batch_size\": 32, \"train_micro_batch_size_per_gpu\": 2,\n"
      " \"gradient_accumulation_steps\": 4}\n",
      "ds.json");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.kind, strategy::zero2);
  EXPECT_EQ(imported->job.parallel.tp, 4);
  // 32 = micro 2 x accumulation 4 x 4 data-parallel ranks, each of 4 tensor-parallel GPUs.
  EXPECT_EQ(imported->job.world_size(), 16);
  EXPECT_EQ(find_note(imported->notes, "not among the options"), "");
  auto off = import_config_text(
      "{\"zero_optimization\": {\"stage\": 3}, \"tensor_parallel\": {\"autotp_size\": 0}}",
      "ds.json");
  ASSERT_TRUE(off) << off.error().to_string();
  EXPECT_EQ(off->job.parallel.tp, 1);
  // DeepSpeed's engine asserts ZeRO stage <= 2 under AutoTP (fresh98's xiyang-aads-lilly file).
  auto stage3 = import_config_text(
      "{\"zero_optimization\": {\"stage\": 3},\n \"tensor_parallel\": {\"autotp_size\": 4}}",
      "ds.json");
  ASSERT_FALSE(stage3);
  EXPECT_NE(stage3.error().to_string().find("ds.json:2:"), std::string::npos)
      << stage3.error().to_string();
  EXPECT_NE(stage3.error().to_string().find("stages 0 to 2 only"), std::string::npos)
      << stage3.error().to_string();
  EXPECT_NE(stage3.error().to_string().find("(line 1)"), std::string::npos)
      << stage3.error().to_string();
  auto bad = import_config_text(
      "{\"zero_optimization\": {\"stage\": 1},\n \"tensor_parallel\": {\"autotp_size\": -2}}",
      "ds.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().to_string().find("ds.json:2:"), std::string::npos)
      << bad.error().to_string();
}

// A train_batch_size below the accumulation derives a micro batch of 0 on any GPU count, which
// DeepSpeed's batch assertion stops; the reduction bucket is the ZeRO optimizers' and is unused
// (noted, not refused) without ZeRO.
TEST(ImportDeepSpeed, BatchesThatDeriveNoMicroBatchAndStageZeroBuckets) {
  auto zero_micro = import_config_text(
      "{\"train_batch_size\": 4,\n \"gradient_accumulation_steps\": 8,\n"
      " \"zero_optimization\": {\"stage\": 1}}\n",
      "ds.json");
  ASSERT_FALSE(zero_micro);
  EXPECT_EQ(zero_micro.error().line, 1);
  EXPECT_NE(zero_micro.error().message.find("smaller than gradient_accumulation_steps 8"),
            std::string::npos)
      << zero_micro.error().to_string();
  EXPECT_NE(zero_micro.error().message.find("to plan it"), std::string::npos);
  auto stage0 = import_config_text(
      "{\"train_micro_batch_size_per_gpu\": 2,\n \"bf16\": {\"enabled\": true},\n"
      " \"zero_optimization\": {\"stage\": 0, \"reduce_bucket_size\": 5e8}}\n",
      "ds.json");
  ASSERT_TRUE(stage0) << stage0.error().to_string();
  EXPECT_EQ(stage0->job.parallel.kind, strategy::ddp);
  EXPECT_NE(
      find_note(stage0->notes, "read by the ZeRO optimizers only; DeepSpeed ignores it at stage 0"),
      "");
}

TEST(ImportDeepSpeed, AutoPrecisionFollowsTheTrainerArguments) {
  trainer_args bf16;
  bf16.bf16 = true;
  auto on = import_config(sample("deepspeed_zero3.json"), bf16);
  ASSERT_TRUE(on) << on.error().to_string();
  EXPECT_EQ(on->job.precision.params, dtype::bf16);
  EXPECT_EQ(on->job.precision.master, dtype::f32);
  EXPECT_EQ(on->job.precision.reduce, dtype::bf16);
  EXPECT_NE(find_note(on->notes, "\"bf16.enabled\" is \"auto\": the HF Trainer fills it from "
                                 "--bf16 (assumed on; --set trainer.bf16=false says otherwise)"),
            "");
}

// The Hugging Face Trainer / LLaMA-Factory pattern: both precisions and the batch "auto".
TEST(ImportDeepSpeed, BothPrecisionsAutoAreNotBothOn) {
  const std::string text = R"({
  "fp16": {"enabled": "auto", "loss_scale": 0},
  "bf16": {"enabled": "auto"},
  "train_batch_size": "auto",
  "train_micro_batch_size_per_gpu": "auto",
  "gradient_accumulation_steps": "auto",
  "zero_optimization": {"stage": 3, "reduce_bucket_size": "auto",
    "stage3_prefetch_bucket_size": "auto", "stage3_param_persistence_threshold": "auto"}
})";
  auto none = import_config_text(text, "ds.json");
  ASSERT_TRUE(none) << none.error().to_string();
  EXPECT_EQ(none->job.precision.params, dtype::f32);
  EXPECT_EQ(none->job.training.micro_batch, 8u);  // per_device_train_batch_size's default
  EXPECT_EQ(none->job.training.gradient_accumulation, 1);
  ASSERT_EQ(none->hidden_size_autos.size(), 2u);
  EXPECT_EQ(none->hidden_size_autos[0].field, "parallel.reduce_bucket_size");
  EXPECT_EQ(none->hidden_size_autos[1].field, "parallel.prefetch_bucket_size");
  EXPECT_EQ(find_note(none->notes, "\"train_micro_batch_size_per_gpu\" is \"auto\""),
            "ds.json:5:3: \"train_micro_batch_size_per_gpu\" is \"auto\": the HF Trainer fills "
            "it from per_device_train_batch_size (assumed 8, TrainingArguments' default unless "
            "--set trainer.per_device_train_batch_size gives it); set training.micro_batch to "
            "plan another\n"
            "  \"train_micro_batch_size_per_gpu\": \"auto\",\n"
            "  ^ near here");
  trainer_args args;
  args.fp16 = true;
  args.per_device_train_batch_size = 4;
  args.gradient_accumulation_steps = 2;
  auto fp16 = import_config_text(text, "ds.json", "", args);
  ASSERT_TRUE(fp16) << fp16.error().to_string();
  EXPECT_EQ(fp16->job.precision.params, dtype::f16);
  EXPECT_EQ(fp16->job.training.micro_batch, 4u);
  EXPECT_EQ(fp16->job.training.gradient_accumulation, 2);
  // An explicit value still wins over the arguments, and two explicit "on" are still refused.
  auto both = import_config_text("{\"bf16\": {\"enabled\": true},\n \"fp16\": {\"enabled\": "
                                 "true}}", "ds.json");
  ASSERT_FALSE(both);
  EXPECT_NE(both.error().to_string().find("both on"), std::string::npos);
}

// A fixed train_batch_size beside an "auto" micro batch: the Trainer's arguments must make
// that total (it stops otherwise), so TrainingArguments' defaults (8 x 1) are not assumed
// against it; given with --set trainer.*, they are used and checked.
TEST(ImportDeepSpeed, AFixedTotalIsNotContradictedByAssumedTrainerArguments) {
  const std::string text = R"({
  "train_batch_size": 4,
  "train_micro_batch_size_per_gpu": "auto",
  "gradient_accumulation_steps": "auto",
  "zero_optimization": {"stage": 2}
})";
  auto assumed = import_config_text(text, "ds.json");
  ASSERT_TRUE(assumed) << assumed.error().to_string();
  EXPECT_NE(find_note(assumed->notes, "is \"auto\" beside train_batch_size 4"), "");
  EXPECT_LE(assumed->job.training.micro_batch, 4u);
  trainer_args args;
  args.per_device_train_batch_size = 8;
  args.batch_given = true;
  auto given = import_config_text(text, "ds.json", "", args);
  ASSERT_FALSE(given);
  EXPECT_NE(given.error().to_string().find("train_batch_size 4 is not a multiple of "
                                           "train_micro_batch_size_per_gpu 8"),
            std::string::npos)
      << given.error().to_string();
}

TEST(ImportDeepSpeed, HiddenSizeAutosAreFilledFromTheModel) {
  auto imported = import_config_text(
      "{\"zero_optimization\": {\"stage\": 3, \"reduce_bucket_size\": \"auto\", "
      "\"stage3_prefetch_bucket_size\": \"auto\"}}", "ds.json");
  ASSERT_TRUE(imported) << imported.error().to_string();
  job_spec job = imported->job;
  warnings notes;
  fill_hidden_size_autos(job, imported->hidden_size_autos, 4096, {}, &notes);
  EXPECT_EQ(job.parallel.reduce_bucket_size, 4096u * 4096u);
  EXPECT_EQ(job.parallel.prefetch_bucket_size, 15'099'494u);  // int(0.9 * 4096^2)
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0].message, "\"zero_optimization.reduce_bucket_size\" is \"auto\": filled as "
                              "the HF Trainer does from the model's hidden size 4096: "
                              "parallel.reduce_bucket_size = 16777216");
  // --set wins; a model without a hidden size keeps the default.
  job_spec overridden = imported->job;
  fill_hidden_size_autos(overridden, imported->hidden_size_autos, 4096,
                         {"parallel.reduce_bucket_size=1000"}, nullptr);
  EXPECT_EQ(overridden.parallel.reduce_bucket_size, imported->job.parallel.reduce_bucket_size);
  job_spec no_hidden = imported->job;
  fill_hidden_size_autos(no_hidden, imported->hidden_size_autos, 0, {}, nullptr);
  EXPECT_EQ(no_hidden.parallel.prefetch_bucket_size, job_spec{}.parallel.prefetch_bucket_size);
}

TEST(ImportDeepSpeed, TrainerArgumentsFromSet) {
  trainer_args args;
  std::vector<std::string> rest;
  ASSERT_TRUE(take_trainer_args({"trainer.bf16=true", "model=llama-2-7b",
                                 "trainer.per_device_train_batch_size=2"}, args, rest));
  EXPECT_TRUE(args.bf16);
  EXPECT_EQ(args.per_device_train_batch_size, 2u);
  EXPECT_EQ(rest, std::vector<std::string>{"model=llama-2-7b"});
  trainer_args bad;
  const auto unknown = take_trainer_args({"trainer.bf17=true"}, bad, rest);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().to_string(),
            "--set trainer.bf17=true: unknown trainer argument (known: bf16, fp16, "
            "per_device_train_batch_size, gradient_accumulation_steps)");
  EXPECT_FALSE(take_trainer_args({"trainer.bf16=true", "trainer.fp16=true"}, bad, rest));
  EXPECT_FALSE(take_trainer_args({"trainer.per_device_train_batch_size=0"}, bad, rest));
}

// zero_optimization is a pydantic model that forbids fields it does not have (DeepSpeed 0.7 on):
// a key it lacks is refused with the field it is near; a file of the releases before, which
// ignored such keys, has it noted.
TEST(ImportDeepSpeed, AZeroFieldDeepSpeedDoesNotHaveIsRefused) {
  auto typo = import_config_text(
      "{\"train_batch_size\": 8,\n \"zero_optimization\": {\"stage\": 2,\n"
      "  \"allgather_bucket_sizes\": 2e8}}\n",
      "ds.json");
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().line, 3);
  EXPECT_NE(typo.error().message.find("deepspeed.initialize stops here; write "
                                      "\"allgather_bucket_size\" (the field it is near)"),
            std::string::npos)
      << typo.error().to_string();
  auto misplaced = import_config_text(
      "{\"train_batch_size\": 8,\n \"zero_optimization\": {\"stage\": 3,\n  \"device\": "
      "\"cpu\"}}\n",
      "ds.json");
  ASSERT_FALSE(misplaced);
  EXPECT_NE(misplaced.error().message.find("move it into zero_optimization.offload_optimizer or"),
            std::string::npos)
      << misplaced.error().to_string();
  auto old = import_config_text(
      "{\"train_batch_size\": 8,\n \"zero_optimization\": {\"stage\": 3,\n"
      "  \"cpu_offload_params\": true,\n  \"stage3_param_persitance_threshold\": 1e5}}\n",
      "ds.json");
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_NE(find_note(old->notes, "stage3_param_persitance_threshold"), "");
}

// No DeepSpeed release reads adapters from its config: a "lora" section belongs to the program
// around DeepSpeed, which decides which weights train, so the file is refused at the section's
// first field instead of planned as a full fine-tune.
TEST(ImportDeepSpeed, AnAdapterSectionDeepSpeedDoesNotHaveIsRefused) {
  auto lora = import_config_text(
      "{\"train_micro_batch_size_per_gpu\": 8,\n \"bf16\": {\"enabled\": true},\n"
      " \"lora\": {\n  \"r\": 8,\n  \"lora_alpha\": 1}}\n",
      "ds.json");
  ASSERT_FALSE(lora);
  EXPECT_EQ(lora.error().line, 4);
  EXPECT_NE(lora.error().message.find("\"lora\" is not a DeepSpeed section"), std::string::npos)
      << lora.error().to_string();
  EXPECT_NE(lora.error().message.find("lora.enabled, lora.rank and lora.targets"),
            std::string::npos);
  auto plain = import_config_text(
      "{\"train_micro_batch_size_per_gpu\": 8,\n \"bf16\": {\"enabled\": true}}\n", "ds.json");
  EXPECT_TRUE(plain) << plain.error().to_string();
}

// A DeepSpeed config written as a YAML mapping (a Hydra or Lightning config group the script
// hands to deepspeed.initialize as a dict) is read as that dict: plain scalars as YAML resolves
// them (2.0e+8 a number, true a boolean), quoted ones as strings ('auto'), each key located.
TEST(ImportDeepSpeed, AConfigWrittenAsYamlIsReadAsItsDict) {
  auto yaml = import_config_text(
      "# deepspeed group\ntrain_micro_batch_size_per_gpu: 'auto'\nzero_optimization:\n  stage: 2\n"
      "  reduce_bucket_size: 2.0e+8\n  contiguous_gradients: true\n  offload_optimizer:\n"
      "    device: cpu\nbf16:\n  enabled: true\n",
      "stage2.yaml");
  ASSERT_TRUE(yaml) << yaml.error().to_string();
  EXPECT_EQ(yaml->job.parallel.kind, strategy::zero2);
  EXPECT_EQ(yaml->job.parallel.reduce_bucket_size, 200000000u);
  EXPECT_TRUE(yaml->job.parallel.offload_optimizer);
  EXPECT_EQ(yaml->job.precision.params, dtype::bf16);
  EXPECT_EQ(find_note(yaml->notes, "\"train_micro_batch_size_per_gpu\" is \"auto\"")
                .rfind("stage2.yaml:2:1:", 0),
            0u);
  // A key DeepSpeed's ZeRO model does not have is refused at its line, as in JSON.
  auto typo = import_config_text(
      "train_batch_size: 8\nzero_optimization:\n  stage: 1\n  reduce_bucket: 5\n", "z.yaml");
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().line, 4);
  // A YAML mapping without a ZeRO section is not read as DeepSpeed's.
  EXPECT_FALSE(import_config_text("train_batch_size: 8\nfp16:\n  enabled: true\n", "x.yaml"));
}

// A script launching DeepSpeed-Chat's trainer is read from the trainer's arguments: the model,
// the ZeRO stage and dtype of the config it builds, the batch, LoRA only with the base frozen.
TEST(ImportDeepSpeed, ADeepSpeedChatLaunchIsReadFromItsTrainersArguments) {
  const std::string run =
      "deepspeed --include localhost:0,1 training/step1_supervised_finetuning/main.py \\\n"
      "  --model_name_or_path meta-llama/Llama-2-7b-hf --per_device_train_batch_size 4 \\\n"
      "  --max_seq_len 1024 --gradient_accumulation_steps 2 --zero_stage 3 --offload \\\n"
      "  --dtype bf16 --gradient_checkpointing --deepspeed";
  auto full = import_config_text(run + "\n", "sft.sh");
  ASSERT_TRUE(full) << full.error().to_string();
  EXPECT_EQ(full->job.model, "llama-2-7b");
  EXPECT_EQ(full->job.parallel.kind, strategy::zero3);
  EXPECT_TRUE(full->job.parallel.offload_optimizer);
  EXPECT_TRUE(full->job.parallel.offload_param);
  EXPECT_EQ(full->job.training.micro_batch, 4u);
  EXPECT_EQ(full->job.training.seq_len, 1024u);
  EXPECT_EQ(full->job.precision.params, dtype::bf16);
  EXPECT_EQ(full->job.hardware.gpus_per_node, 2);
  EXPECT_FALSE(full->job.lora.enabled);
  auto lora = import_config_text(
      run + " --lora_dim 64 --lora_module_name layers. --only_optimize_lora\n", "sft.sh");
  ASSERT_TRUE(lora) << lora.error().to_string();
  EXPECT_TRUE(lora->job.lora.enabled);
  EXPECT_EQ(lora->job.lora.rank, 64);
  auto trainable = import_config_text(run + " --lora_dim 64\n", "sft.sh");
  ASSERT_TRUE(trainable) << trainable.error().to_string();
  EXPECT_FALSE(trainable->job.lora.enabled);
  EXPECT_NE(find_note(trainable->notes, "without --only_optimize_lora"), "");
  // A stage chosen by the script's argument is refused where the script chooses it.
  auto chosen = import_config_text(
      "STAGE=$1\n" +
          std::string(run).replace(run.find("--zero_stage 3"), 14, "--zero_stage $STAGE") + "\n",
      "sft.sh");
  ASSERT_FALSE(chosen);
  EXPECT_NE(chosen.error().message.find("--zero_stage"), std::string::npos);
  // A model folder that is not here (a template's placeholder) is refused, when the model is
  // loaded, at the line that names it.
  auto placeholder = import_config_text(
      std::string(run).replace(run.find("meta-llama/Llama-2-7b-hf"), 24, "/MODEL_PATH/") + "\n",
      "sft.sh");
  ASSERT_TRUE(placeholder) << placeholder.error().to_string();
  const auto model = load_model_of(placeholder->job, "sft.sh");
  ASSERT_FALSE(model);
  EXPECT_EQ(model.error().line, 2) << model.error().to_string();
  EXPECT_EQ(model.error().message.rfind("model \"/MODEL_PATH/\": no such file or folder", 0), 0u)
      << model.error().to_string();
}

TEST(ImportDeepSpeed, ReportsUnknownUnmodelledAndAutoOptions) {
  const imported_job imported = import_ok("deepspeed_zero3.json");
  const std::string file = sample("deepspeed_zero3.json");
  // A misspelt top-level key: DeepSpeedConfig reads the keys it knows and ignores the rest.
  auto typo =
      import_config_text("{\"train_batch_size\": 8,\n \"gradient_clippng\": 1.0}\n", "ds.json");
  ASSERT_TRUE(typo) << typo.error().to_string();
  EXPECT_EQ(find_note(typo->notes, "gradient_clippng"),
            "ds.json:2:2: unknown option \"gradient_clippng\" (did you mean "
            "\"gradient_clipping\"?); ignored\n"
            " \"gradient_clippng\": 1.0}\n"
            " ^ near here");
  EXPECT_EQ(find_note(imported.notes, "overlap_comm"),
            file + ":33:5: \"zero_optimization.overlap_comm\" changes memory but vramscope does "
                   "not model it (overlapped reduction keeps extra gradient buckets); ignored\n"
                   "    \"overlap_comm\": true,\n"
                   "    ^ near here");
  EXPECT_NE(find_note(imported.notes, "\"zero_optimization.reduce_bucket_size\" is \"auto\""), "");
  EXPECT_NE(find_note(imported.notes, "\"bf16.enabled\" is \"auto\""), "");
  EXPECT_NE(find_note(imported.no_effect, "\"optimizer.params.lr\" does not affect"), "");
  EXPECT_NE(find_note(imported.no_effect, "\"steps_per_print\" does not affect"), "");
  // Notes come in the file's order.
  for (std::size_t i = 1; i < imported.notes.size(); ++i) {
    const auto& a = imported.notes[i - 1];
    const auto& b = imported.notes[i];
    if (a.line > 0 && b.line > 0) {
      EXPECT_LE(a.line, b.line) << b.message;
    }
  }
}

TEST(ImportDeepSpeed, StagesAndPrecision) {
  auto stage0 = import_config_text("{\"fp16\": {\"enabled\": true}, \"zero_optimization\": "
                                   "{\"stage\": 0}}", "ds.json");
  ASSERT_TRUE(stage0) << stage0.error().to_string();
  EXPECT_EQ(stage0->job.parallel.kind, strategy::ddp);
  EXPECT_EQ(stage0->job.precision.params, dtype::f16);
  auto fp32 = import_config_text("{\"zero_optimization\": {\"stage\": 2, \"overlap_comm\": false}}",
                                 "ds.json");
  ASSERT_TRUE(fp32);
  EXPECT_EQ(fp32->job.parallel.kind, strategy::zero2);
  EXPECT_EQ(fp32->job.precision.params, dtype::f32);
  EXPECT_NE(find_note(fp32->no_effect, "\"zero_optimization.overlap_comm\" does not affect"), "");
  auto bad = import_config_text("{\n  \"zero_optimization\": {\n    \"stage\": 4\n  }\n}\n", "ds.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().to_string(),
            "ds.json:3:5: zero_optimization.stage: invalid value \"4\" (expected one of: 0, 1, 2, "
            "3)\n"
            "    \"stage\": 4\n"
            "    ^ near here");
}

TEST(ImportDeepSpeed, SyntaxErrorsAreLocated) {
  auto bad = import_config_text("{\n  \"train_batch_size\": 8,\n  \"fp16\": {\"enabled\": tru}\n}\n",
                                "ds.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().line, 3);
  EXPECT_EQ(bad.error().message.rfind("json syntax error: ", 0), 0u) << bad.error().message;
}

TEST(ImportDeepSpeed, RegressionNumberOverflowIsADiagnostic) {
  // nlohmann throws out_of_range, not parse_error, here (found by fuzz_job_yaml).
  auto bad = import_config_text("{\"train_batch_size\": 2e7777777777777777777}", "ds.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().to_string(),
            "ds.json: json error: number overflow parsing '2e7777777777777777777'");
}

TEST(ImportDeepSpeed, InconsistentBatchSizesAreAnError) {
  auto bad = import_config_text("{\"train_batch_size\": 10, \"train_micro_batch_size_per_gpu\": 4}",
                                "ds.json");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message,
            "train_batch_size 10 is not a multiple of train_micro_batch_size_per_gpu 4 x "
            "gradient_accumulation_steps 1, which DeepSpeed refuses too; make it micro batch x "
            "accumulation x data-parallel size to plan it");
}

TEST(ImportDeepSpeed, DerivesTheMicroBatchFromTrainBatchSizeAsDeepSpeedDoes) {
  auto imported = import_deepspeed("{\"train_batch_size\": 256, \"gradient_accumulation_steps\": 2}", "ds.json");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.training.micro_batch, 16u);  // 256 / (2 x 8 GPUs assumed)
  EXPECT_NE(testing::find_note(imported->notes, "as DeepSpeed derives it"), "");
  auto odd = import_deepspeed("{\"train_batch_size\": 12}", "ds.json");
  ASSERT_TRUE(odd) << odd.error().to_string();
  EXPECT_EQ(odd->job.training.micro_batch, job_spec{}.training.micro_batch);
  EXPECT_EQ(testing::find_note(odd->notes, "not a multiple"),
            "ds.json:1:2: train_batch_size 12 is not a multiple of gradient_accumulation_steps 1 x the assumed 8 "
            "GPUs: micro batch left at its default\n{\"train_batch_size\": 12}\n ^ near here");
}

// DeepSpeedZeroConfig takes each ZeRO-3 option under its own name and its stage3_ alias.
TEST(ImportDeepSpeed, UnprefixedZero3NamesAreTheSameOptions) {
  auto imported = import_config_text(
      "{\"train_micro_batch_size_per_gpu\": 1, \"zero_optimization\": {\"stage\": 3, "
      "\"max_live_parameters\": 2e8, \"max_reuse_distance\": 0, "
      "\"gather_16bit_weights_on_model_save\": true}, \"eigenvalue\": {\"enabled\": false}, "
      "\"comet\": {\"enabled\": false}}",
      "ds.json");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.max_live_parameters, 200000000u);
  EXPECT_EQ(find_note(imported->notes, "unknown option"), "");
}

// ZeRO-3's counts written 0 (the zero-valued templates): no gathered parameter kept, nothing
// prefetched, a sub-group per parameter; each held as written, with a note saying what it means.
TEST(ImportDeepSpeed, ZeroThreeCountsWrittenZeroAreHeldAsWritten) {
  auto imported = import_config_text(
      "{\"train_micro_batch_size_per_gpu\": 1, \"zero_optimization\": {\"stage\": 3, "
      "\"sub_group_size\": 0, \"stage3_prefetch_bucket_size\": 0, "
      "\"stage3_max_live_parameters\": 0}}",
      "ds.json");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.sub_group_size, 0u);
  EXPECT_EQ(imported->job.parallel.prefetch_bucket_size, 0u);
  EXPECT_EQ(imported->job.parallel.max_live_parameters, 0u);
  EXPECT_NE(find_note(imported->notes, "prefetch_bucket_size 0: nothing is prefetched"), "");
}

// train_batch_size with the micro batch and no accumulation: DeepSpeed infers the accumulation
// from the launcher's world size, so the file gives no GPU count.
TEST(ImportDeepSpeed, TrainBatchSizeWithoutAccumulationFixesNoGpuCount) {
  auto imported = import_config_text(
      "{\"train_batch_size\": 24, \"train_micro_batch_size_per_gpu\": 3}", "ds.json");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.training.gradient_accumulation, 1);
  EXPECT_NE(find_note(imported->notes, "without gradient_accumulation_steps"), "");
}

// DeepSpeed derives a missing micro batch or accumulation as train_batch_size // world // the
// other factor, and its batch assertion wants it above 0: a total equal to the factor given (or
// 1 alone) runs on one data-parallel rank only.
TEST(ImportDeepSpeed, ATotalEqualToTheGivenFactorRunsOnOneGpu) {
  auto alone = import_config_text(
      "{\"train_batch_size\": 1, \"zero_optimization\": {\"stage\": 2}}", "ds.json");
  ASSERT_TRUE(alone) << alone.error().to_string();
  EXPECT_EQ(alone->job.hardware.gpus_per_node, 1);
  EXPECT_EQ(alone->job.training.micro_batch, 1);
  EXPECT_EQ(alone->job.training.gradient_accumulation, 1);
  auto with_accumulation = import_config_text(
      "{\"train_batch_size\": 4, \"gradient_accumulation_steps\": 4}", "ds.json");
  ASSERT_TRUE(with_accumulation) << with_accumulation.error().to_string();
  EXPECT_EQ(with_accumulation->job.hardware.gpus_per_node, 1);
  EXPECT_EQ(with_accumulation->job.training.micro_batch, 1);
  EXPECT_EQ(with_accumulation->job.training.gradient_accumulation, 4);
  // 24 = 3 x accumulation x world leaves the world open: the old note stays.
  auto open = import_config_text(
      "{\"train_batch_size\": 24, \"train_micro_batch_size_per_gpu\": 3}", "ds.json");
  ASSERT_TRUE(open) << open.error().to_string();
  EXPECT_EQ(find_note(open->notes, "runs on one"), "");
}

// torch_autocast with neither bf16 nor fp16 on: fp32 weights and optimizer, the forward under
// torch.autocast(dtype), which is the spec's fp16-mixed / bf16-mixed.
TEST(ImportDeepSpeed, TorchAutocastWithoutAHalfSectionIsMixedPrecision) {
  auto fp16 = import_config_text(
      R"({"zero_optimization": {"stage": 2}, "bf16": {"enabled": false},
          "torch_autocast": {"enabled": true, "dtype": "float16"}})",
      "ds.json");
  ASSERT_TRUE(fp16) << fp16.error().to_string();
  EXPECT_EQ(fp16->job.precision.params, dtype::f16);
  EXPECT_EQ(fp16->job.precision.master, dtype::f32);
  EXPECT_TRUE(fp16->job.precision.autocast);
  auto off = import_config_text(R"({"torch_autocast": {"enabled": false, "dtype": "bfloat16"}})",
                                "ds.json");
  ASSERT_TRUE(off) << off.error().to_string();
  EXPECT_EQ(off->job.precision.params, dtype::f32);
  auto bad =
      import_config_text(R"({"torch_autocast": {"enabled": true, "dtype": "int8"}})", "ds.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().to_string().find("torch_autocast.dtype"), std::string::npos);
}

// optimizer.type: DeepSpeed's own names in any case, torch.optim classes as spelled; the plan keeps
// the number of parameter-sized states. Type Adam is AdamW unless adam_w_mode is false.
TEST(ImportDeepSpeed, OptimizerTypesPlanTheStatesDeepSpeedBuilds) {
  const auto kind_of = [](const std::string& optimizer, const std::string& stage = "2") {
    auto imported = import_deepspeed(
        "{\"zero_optimization\": {\"stage\": " + stage + "}, \"optimizer\": " + optimizer + "}",
        "o.json");
    EXPECT_TRUE(imported) << optimizer << ": " << imported.error().to_string();
    return imported ? imported->job.optimizer.kind : optimizer_kind::sgd;
  };
  EXPECT_EQ(kind_of(R"({"type": "Adam"})"), optimizer_kind::adamw);
  EXPECT_EQ(kind_of(R"({"type": "ADAMW"})"), optimizer_kind::adamw);
  EXPECT_EQ(kind_of(R"({"type": "Adam", "params": {"adam_w_mode": false}})"),
            optimizer_kind::adam);
  EXPECT_EQ(kind_of(R"({"type": "AdamW", "params": {"adam_w_mode": false}})"),
            optimizer_kind::adamw);
  EXPECT_EQ(kind_of(R"({"type": "Lamb"})"), optimizer_kind::adamw);
  EXPECT_EQ(kind_of(R"({"type": "Lion"})"), optimizer_kind::sgd_momentum);
  EXPECT_EQ(kind_of(R"({"type": "Adagrad"})"), optimizer_kind::sgd_momentum);
  EXPECT_EQ(kind_of(R"({"type": "Muon"})"), optimizer_kind::adamw);
  EXPECT_EQ(kind_of(R"({"type": "MuAdam"})"), optimizer_kind::adam);
  EXPECT_EQ(kind_of(R"({"type": "SGD"})"), optimizer_kind::sgd);
  EXPECT_EQ(kind_of(R"({"type": "SGD", "params": {"momentum": 0.9}})"),
            optimizer_kind::sgd_momentum);
  EXPECT_EQ(kind_of(R"({"type": "RMSprop"})"), optimizer_kind::sgd_momentum);
  EXPECT_EQ(kind_of(R"({"type": "Adafactor"})"), optimizer_kind::adafactor);
  EXPECT_EQ(kind_of(R"({"type": "OneBitAdam"})", "0"), optimizer_kind::adamw);
  // 1-bit Adam, 0/1 Adam and 1-bit Lamb: DeepSpeed asserts they are not used with ZeRO.
  auto onebit = import_deepspeed(
      R"({"zero_optimization": {"stage": 2}, "optimizer": {"type": "OneBitAdam"}})", "b.json");
  ASSERT_FALSE(onebit);
  EXPECT_NE(onebit.error().message.find("not compatible with ZeRO"), std::string::npos);
  EXPECT_EQ(onebit.error().line, 1);
  // "sgd" is neither DeepSpeed's (it has no SGD) nor torch.optim's spelling: noted.
  auto lower = import_deepspeed(R"({"optimizer": {"type": "sgd"}})", "l.json");
  ASSERT_TRUE(lower) << lower.error().to_string();
  EXPECT_NE(find_note(lower->notes, "nor a torch.optim class"), "");
}

// A Hugging Face TrainingArguments JSON (its "deepspeed" key names the DeepSpeed file) is refused at
// its first key, saying which file to give and the trainer arguments that fill its "auto" values.
TEST(ImportDeepSpeed, ATrainingArgumentsJsonIsNotADeepSpeedConfig) {
  const std::string args = "{\n  \"output_dir\": \"out\",\n  \"per_device_train_batch_size\": 16,\n"
                           "  \"gradient_accumulation_steps\": 2,\n  \"fp16\": true,\n"
                           "  \"deepspeed\": \"ds_zero2.json\"\n}\n";
  auto refused = import_deepspeed(args, "args.json");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().line, 2);
  const std::string& message = refused.error().message;
  EXPECT_NE(message.find("TrainingArguments JSON (output_dir, per_device_train_batch_size"),
            std::string::npos) << message;
  EXPECT_NE(message.find("ds_zero2.json (line 6): give that file to plan it"), std::string::npos)
      << message;
  EXPECT_NE(message.find("--set trainer.per_device_train_batch_size=16 "
                         "--set trainer.gradient_accumulation_steps=2 --set trainer.fp16=true"),
            std::string::npos) << message;
  // Keys of no program at all: refused without the TrainingArguments reading.
  auto other = import_deepspeed("{\"a\": 1, \"gradient_accumulation_steps\": 2}", "x.json");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("none of its keys is a DeepSpeed option"),
            std::string::npos);
  // Sections of another program's settings: pointed at the section's own key.
  auto sections =
      import_deepspeed("{\n  \"gpt_125M\": {\n    \"dump_iter_interval\": 5}}\n", "d.json");
  ASSERT_FALSE(sections);
  EXPECT_EQ(sections.error().line, 2) << sections.error().to_string();
  // One DeepSpeed key among unknown ones is a DeepSpeed config with unknown options.
  auto mixed = import_deepspeed("{\"a\": 1, \"train_micro_batch_size_per_gpu\": 2}", "m.json");
  ASSERT_TRUE(mixed) << mixed.error().to_string();
  EXPECT_TRUE(import_deepspeed("{}", "e.json"));
}

// A script's own config with the DeepSpeed settings nested under "deepspeed" beside its own
// options: DeepSpeed reading the file sees none of them, so it is refused at the block, which is
// the file to give. A DeepSpeed config of its own (its zero_optimization at the top) is not.
TEST(ImportDeepSpeed, DeepSpeedSettingsNestedInAScriptsConfigAreRefusedAtTheirBlock) {
  const std::string wrapped =
      "{\n  \"model_name_or_path\": \"org/m\",\n  \"train_batch_size\": 1,\n"
      "  \"deepspeed\": {\n    \"train_batch_size\": 2,\n"
      "    \"zero_optimization\": {\"stage\": 3}\n  }\n}\n";
  auto refused = import_deepspeed(wrapped, "run.json");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().line, 4) << refused.error().to_string();
  const std::string& m = refused.error().message;
  EXPECT_NE(m.find("under \"deepspeed\" (line 4) in another program's config "
                   "(model_name_or_path, train_batch_size)"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("give the \"deepspeed\" block as a file of its own"), std::string::npos) << m;
  // The same block as YAML (a Hydra group) is pointed at its key too.
  auto yaml =
      import_deepspeed("lr: 1.0e-5\ndeepspeed:\n  zero_optimization:\n    stage: 2\n", "run.yaml");
  ASSERT_FALSE(yaml);
  EXPECT_EQ(yaml.error().line, 2) << yaml.error().to_string();
  // The nested block alone plans.
  auto block =
      import_deepspeed(R"({"train_batch_size": 2, "zero_optimization": {"stage": 3}})", "ds.json");
  ASSERT_TRUE(block) << block.error().to_string();
  EXPECT_EQ(block->job.parallel.kind, strategy::zero3);
  auto own = import_deepspeed(
      R"({"zero_optimization": {"stage": 2}, "deepspeed": {"train_batch_size": 2}})", "own.json");
  EXPECT_TRUE(own) << own.error().to_string();
}

// Without the gathered 16-bit weights a ZeRO save is DeepSpeed's own checkpoint, each rank its
// partition (save_checkpoint): sharded; with them, rank 0 holds the whole 16-bit model: full.
TEST(ImportDeepSpeed, AZeroSaveWithoutTheGathered16BitWeightsIsSharded) {
  for (const char* name :
       {"gather_16bit_weights_on_model_save", "stage3_gather_16bit_weights_on_model_save"}) {
    auto off = import_deepspeed(
        fmt::format(R"({{"zero_optimization": {{"stage": 3, "{}": false}}}})", name), "z3.json");
    ASSERT_TRUE(off) << off.error().to_string();
    EXPECT_EQ(off->job.checkpoint.save, state_dict_kind::sharded) << name;
    auto on = import_deepspeed(
        fmt::format(R"({{"zero_optimization": {{"stage": 3, "{}": true}}}})", name), "z3.json");
    ASSERT_TRUE(on) << on.error().to_string();
    EXPECT_EQ(on->job.checkpoint.save, state_dict_kind::full) << name;
  }
}

// fp16 and bf16 are sections: DeepSpeed calls .get on the value, so a bare one stops the launch,
// and is refused at its line with the section to write; an empty section is DeepSpeed's default.
TEST(ImportDeepSpeed, APrecisionSwitchWrittenAsABareValueIsRefused) {
  auto bare =
      import_deepspeed("{\"zero_optimization\": {\"stage\": 2},\n\"bf16\": true}", "b.json");
  ASSERT_FALSE(bare);
  EXPECT_EQ(bare.error().line, 2);
  EXPECT_NE(bare.error().message.find("write \"bf16\": {\"enabled\": true} to plan it"),
            std::string::npos)
      << bare.error().to_string();
  auto automatic =
      import_deepspeed(R"({"zero_optimization": {"stage": 2}, "fp16": "auto"})", "f.json");
  ASSERT_FALSE(automatic);
  EXPECT_NE(automatic.error().message.find("\"fp16\": \"auto\""), std::string::npos)
      << automatic.error().to_string();
  auto empty = import_deepspeed(R"({"zero_optimization": {"stage": 2}, "bf16": {}})", "e.json");
  EXPECT_TRUE(empty) << empty.error().to_string();
}

TEST(ImportDeepSpeed, ParameterOffloadBelowStage3IsIgnoredAsDeepSpeedDoes) {
  const std::string config = R"({"zero_optimization": {"stage": 2,
    "offload_optimizer": {"device": "cpu"}, "offload_param": {"device": "cpu"}}})";
  auto imported = import_deepspeed(config, "z2.json");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.kind, strategy::zero2);
  EXPECT_TRUE(imported->job.parallel.offload_optimizer);
  EXPECT_FALSE(imported->job.parallel.offload_param);
  EXPECT_NE(testing::find_note(imported->notes, "ignores it at stage 2"), "");
  auto zero3 = import_deepspeed(R"({"zero_optimization": {"stage": 3,
    "offload_param": {"device": "cpu"}}})", "z3.json");
  ASSERT_TRUE(zero3) << zero3.error().to_string();
  EXPECT_TRUE(zero3->job.parallel.offload_param);
}

// Each ZeRO engine reads its own options out of one config: a ZeRO-2 file that carries the
// ZeRO-3 buckets, or a ZeRO-3 file with the stage 1 and 2 all-gather bucket, runs, and plans, with
// the option ignored and noted; at the stage that reads it the option is planned.
TEST(ImportDeepSpeed, AnotherStagesOptionsAreIgnoredAsDeepSpeedDoes) {
  auto zero2 = import_deepspeed(R"({"zero_optimization": {"stage": 2,
    "stage3_prefetch_bucket_size": 1e8, "max_live_parameters": 3e9}})", "z2.json");
  ASSERT_TRUE(zero2) << zero2.error().to_string();
  const parallel_spec defaults{};
  EXPECT_EQ(zero2->job.parallel.prefetch_bucket_size, defaults.prefetch_bucket_size);
  EXPECT_EQ(zero2->job.parallel.max_live_parameters, defaults.max_live_parameters);
  EXPECT_NE(find_note(zero2->notes, "stage3_prefetch_bucket_size: read by the ZeRO-3 engine only; "
                                    "DeepSpeed ignores it at stage 2"),
            "");
  job_spec job = zero2->job;
  job.model = "llama-3.1-8b";
  const status resolved = resolve_job(job);
  EXPECT_TRUE(resolved) << resolved.error().to_string();

  auto zero3 = import_deepspeed(R"({"zero_optimization": {"stage": 3,
    "allgather_bucket_size": 5e7, "stage3_prefetch_bucket_size": 1e8}})", "z3.json");
  ASSERT_TRUE(zero3) << zero3.error().to_string();
  EXPECT_EQ(zero3->job.parallel.allgather_bucket_size, defaults.allgather_bucket_size);
  EXPECT_EQ(zero3->job.parallel.prefetch_bucket_size, 100'000'000u);
  EXPECT_NE(find_note(zero3->notes, "allgather_bucket_size: read by the stage 1 and 2 optimizer "
                                    "only; DeepSpeed ignores it at stage 3"),
            "");
}

// bf16_master_weights_and_grads keeps no fp32 master copy; bf16_optimizer_states keeps the
// moments in bf16 too (runtime/precision_config.py). False, or absent, leaves fp32.
TEST(ImportDeepSpeed, Bf16MasterWeightsAndOptimizerStatesAreBf16) {
  auto both = import_config_text(
      "{\"train_micro_batch_size_per_gpu\": 1, \"bf16\": {\"enabled\": true, "
      "\"bf16_master_weights_and_grads\": true, \"bf16_optimizer_states\": true},\n"
      " \"zero_optimization\": {\"stage\": 3}}",
      "ds.json");
  ASSERT_TRUE(both) << both.error().to_string();
  EXPECT_EQ(both->job.precision.master, dtype::bf16);
  EXPECT_EQ(both->job.optimizer.state, dtype::bf16);
  auto off = import_config_text(
      "{\"train_micro_batch_size_per_gpu\": 1, \"bf16\": {\"enabled\": true, "
      "\"bf16_master_weights_and_grads\": false},\n \"zero_optimization\": {\"stage\": 3}}",
      "ds.json");
  ASSERT_TRUE(off) << off.error().to_string();
  EXPECT_EQ(off->job.precision.master, dtype::f32);
  EXPECT_EQ(off->job.optimizer.state, dtype::f32);
}

}  // namespace
}  // namespace vramscope::job

namespace vramscope::job {
namespace {

// A program's own run file that names its DeepSpeed config in a key, beside a teacher model and
// an inference engine: refused at that key, naming the file to give and the other models.
TEST(ImportDeepSpeed, ARunFileOfSeveralModelsIsRefusedWhereItNamesTheConfig) {
  auto run = import_config_text(
      "{\n  \"student\": {\"model_name_or_path\": \"org/small\"},\n"
      "  \"teacher\": {\n    \"model_name_or_path\": \"org/large\"\n  },\n"
      "  \"rollout\": {\"engine\": \"vllm\"},\n"
      "  \"deepspeed_config\": \"configs/zero3.json\"\n}\n",
      "run.json");
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().line, 7);
  const std::string& m = run.error().message;
  EXPECT_NE(m.find("names the DeepSpeed config, configs/zero3.json"), std::string::npos) << m;
  EXPECT_NE(m.find("teacher.model_name_or_path org/large (line 4)"), std::string::npos) << m;
  EXPECT_NE(m.find("rollout.engine vllm (line 6)"), std::string::npos) << m;
}

// DeepSpeed's first releases wrote ZeRO as a boolean, which it still reads: true is stage 1.
TEST(ImportDeepSpeed, TheOldBooleanZeroOptimizationIsStageOne) {
  auto on = import_deepspeed("{\"train_micro_batch_size_per_gpu\": 1, \"zero_optimization\": true}",
                             "ds.json");
  ASSERT_TRUE(on) << on.error().to_string();
  EXPECT_EQ(on->job.parallel.kind, strategy::zero1);
  EXPECT_NE(find_note(on->notes, "deprecated boolean form, read as stage 1"), "");
  EXPECT_EQ(find_note(on->notes, "is not among the options"), "");
  auto off = import_deepspeed(
      "{\"train_micro_batch_size_per_gpu\": 1, \"zero_optimization\": false}", "ds.json");
  ASSERT_TRUE(off) << off.error().to_string();
  EXPECT_EQ(off->job.parallel.kind, strategy::ddp);
  auto odd = import_deepspeed("{\"zero_optimization\": 2}", "ds.json");
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message.find("expected a section, or true / false"), std::string::npos);
}

// ZeRO-3's first releases named the parameters' CPU offload cpu_offload_params (2021).
TEST(ImportDeepSpeed, TheFirstZeroThreeReleasesOffloadSwitch) {
  auto imported = import_deepspeed(
      "{\"train_micro_batch_size_per_gpu\": 1, \"zero_optimization\": {\"stage\": 3, "
      "\"cpu_offload\": true, \"cpu_offload_params\": true}}",
      "ds.json");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_TRUE(imported->job.parallel.offload_param);
  EXPECT_TRUE(imported->job.parallel.offload_optimizer);
  EXPECT_EQ(find_note(imported->notes, "unknown option"), "");
}

// A ZeRO option written at the top level is DeepSpeed's own option in the wrong place: said so,
// with where DeepSpeed reads it, not called unknown.
// A scheduler type DeepSpeed cannot build stops deepspeed.initialize unless the script passes its
// own; it holds no memory, so the plan goes on with a note naming the nearest real schedule.
TEST(ImportDeepSpeed, AnUnknownSchedulerIsNotedWithTheNearest) {
  auto swapped = import_config_text(
      R"({"train_micro_batch_size_per_gpu": 1, "scheduler": {"type": "CosineWarmup"}})", "ds.json");
  ASSERT_TRUE(swapped) << swapped.error().to_string();
  const std::string note = find_note(swapped->notes, "scheduler type \"CosineWarmup\"");
  EXPECT_NE(note.find("did you mean \"WarmupCosineLR\"?"), std::string::npos) << note;
  auto torch = import_config_text(
      R"({"train_micro_batch_size_per_gpu": 1, "scheduler": {"type": "StepLR"}})", "ds.json");
  ASSERT_TRUE(torch) << torch.error().to_string();
  EXPECT_EQ(find_note(torch->notes, "scheduler type"), "");
}

TEST(ImportDeepSpeed, AnOptionInTheWrongSectionIsSaidToBeMisplaced) {
  auto imported = import_deepspeed(
      "{\"zero_optimization\": {\"stage\": 2}, \"memory_efficient_linear\": false}", "ds.json");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_NE(find_note(imported->notes,
                      "\"memory_efficient_linear\" is a DeepSpeed option in the "
                      "wrong place: DeepSpeed reads it as "
                      "\"zero_optimization.memory_efficient_linear\""),
            "");
  EXPECT_EQ(find_note(imported->notes, "unknown option"), "");
}

}  // namespace
}  // namespace vramscope::job
