// torchtune recipe configs: two shipped files (pytorch/torchtune recipes/configs/) and small
// ones for the options the shipped files leave at their defaults.
#include <vramscope/import/importers.hpp>
#include <vramscope/job/job_loading.hpp>
#include <vramscope/model/catalog.hpp>
#include <vramscope/model/model_spec.hpp>
#include <vramscope/model/modules.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "import/import_test_support.hpp"

namespace vramscope::job {
namespace {

using testing::find_note;
using testing::import_ok;
using testing::sample;

TEST(ImportTorchtune, MapsTheShippedQloraSingleDeviceConfig) {
  const imported_job imported = import_ok("torchtune_llama3_2_3b_qlora_single_device.yaml");
  const job_spec& job = imported.job;
  EXPECT_EQ(imported.format, "torchtune");
  EXPECT_EQ(job.model, "llama-3.2-3b");
  EXPECT_EQ(job.parallel.kind, strategy::single);
  EXPECT_EQ(job.world_size(), 1);
  EXPECT_TRUE(job.lora.enabled);
  EXPECT_EQ(job.lora.base_quantization, dtype::nf4);
  EXPECT_EQ(job.lora.quantizer, "torchao");
  EXPECT_EQ(job.lora.rank, 64);
  EXPECT_DOUBLE_EQ(job.lora.alpha, 128);
  // torchtune's own module names, as the file writes them (docs/job-spec.md#lora-targets).
  EXPECT_EQ(job.lora.targets,
            (std::vector<std::string>{"q_proj", "v_proj", "output_proj", "w1", "w2", "w3"}));
  EXPECT_EQ(job.training.micro_batch, 4u);
  EXPECT_EQ(job.training.gradient_accumulation, 4u);
  EXPECT_EQ(job.training.loss, loss_impl::chunked);
  EXPECT_EQ(job.training.activation_checkpointing, checkpointing::full);
  EXPECT_FALSE(job.training.activation_offloading);
  EXPECT_EQ(job.precision.params, dtype::bf16);
  EXPECT_EQ(job.precision.master, dtype::bf16);
  EXPECT_EQ(job.optimizer.kind, optimizer_kind::adamw);
  EXPECT_TRUE(job.optimizer.fused);
  EXPECT_NE(find_note(imported.notes, "tokenizer.max_seq_len is null"), "");
  EXPECT_EQ(find_note(imported.notes, "compile"), "");  // compile: False changes nothing
  EXPECT_EQ(find_note(imported.notes, "unknown option"), "");
}

TEST(ImportTorchtune, TheTuneRunLineMakesADistributedConfigFsdp2OnItsGpus) {
  const imported_job imported = import_ok("torchtune_llama3_1_70b_lora.yaml");
  const job_spec& job = imported.job;
  EXPECT_EQ(job.model, "llama-3.1-70b");
  EXPECT_EQ(job.parallel.kind, strategy::fsdp2);
  EXPECT_EQ(job.world_size(), 8);
  EXPECT_FALSE(job.lora.base_quantization.has_value());
  EXPECT_EQ(job.lora.rank, 16);
  EXPECT_EQ(find_note(imported.notes, "distributed recipe")
                .rfind(sample("torchtune_llama3_1_70b_lora.yaml") +
                           ":9:1: a distributed recipe's config: planned as FSDP2",
                       0),
            0u);
  EXPECT_EQ(find_note(imported.notes, "unknown option"), "");
}

TEST(ImportTorchtune, MemoryFeaturesOfAFullFinetune) {
  auto imported = import_config_text(
      "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n"
      "tokenizer:\n  max_seq_len: 2048\n"
      "dataset:\n  packed: True\n"
      "batch_size: 2\n"
      "optimizer:\n  _component_: bitsandbytes.optim.PagedAdamW8bit\n  lr: 2e-5\n"
      "optimizer_in_bwd: True\n"
      "loss:\n  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss\n"
      "  num_output_chunks: 16\n"
      "enable_activation_checkpointing: True\n"
      "enable_activation_offloading: True\n"
      "fsdp_cpu_offload: False\n"
      "compile: True\n"
      "dtype: bf16\n",
      "t.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  const job_spec& job = imported->job;
  EXPECT_TRUE(job.training.compile);
  EXPECT_TRUE(job.training.compile_loss);
  EXPECT_EQ(find_note(imported->notes, "compile"), "");
  EXPECT_EQ(job.model, "llama-3.1-8b");
  EXPECT_FALSE(job.lora.enabled);
  EXPECT_EQ(job.parallel.kind, strategy::fsdp2);  // fsdp_* keys: a distributed config
  EXPECT_EQ(job.training.seq_len, 2048u);
  EXPECT_EQ(job.optimizer.kind, optimizer_kind::paged_adamw_8bit);
  EXPECT_TRUE(job.optimizer.in_backward);
  EXPECT_EQ(job.training.loss_chunks, 16);
  EXPECT_TRUE(job.training.activation_offloading);
  EXPECT_NE(find_note(imported->notes, "packed to tokenizer.max_seq_len"), "");
}

// custom_sharded_layers names modules the FSDP2 recipes fully_shard on their own
// (training.get_shard_conditions): tok_embeddings and output are the embedding and the head.
TEST(ImportTorchtune, CustomShardedLayersAreUnitsOfTheirOwnUnderFsdp2Only) {
  const std::string body =
      "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n"
      "custom_sharded_layers: ['tok_embeddings', 'output', 'norm']\n";
  auto distributed = import_config_text("# tune run --nproc_per_node 8 full_finetune_distributed "
                                        "--config c.yaml\n" + body, "d.yaml");
  ASSERT_TRUE(distributed) << distributed.error().to_string();
  EXPECT_EQ(distributed->job.parallel.kind, strategy::fsdp2);
  EXPECT_EQ(distributed->job.parallel.shard_separately,
            (std::vector<std::string>{"embedding", "head"}));
  EXPECT_NE(find_note(distributed->notes, "norm sharded as units of their own is not modelled"),
            "");

  auto single = import_config_text(body, "s.yaml");
  ASSERT_TRUE(single) << single.error().to_string();
  EXPECT_EQ(single->job.parallel.kind, strategy::single);
  EXPECT_TRUE(single->job.parallel.shard_separately.empty());
  EXPECT_NE(find_note(single->notes, "read only by the FSDP2 recipes"), "");
}

// The recipes save the model as training ends: a FullModel*Checkpointer gathers the whole state
// dict on rank 0, a DistributedCheckpointer writes each rank's shards.
TEST(ImportTorchtune, TheRecipesSaveWhenTrainingEnds) {
  const std::string launch =
      "# tune run --nproc_per_node 8 full_finetune_distributed --config c.yaml\n"
      "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n";
  auto full = import_config_text(
      launch + "checkpointer:\n  _component_: torchtune.training.FullModelHFCheckpointer\n",
      "f.yaml");
  ASSERT_TRUE(full) << full.error().to_string();
  EXPECT_EQ(full->job.checkpoint.save, state_dict_kind::full);
  EXPECT_TRUE(full->job.checkpoint.offload_to_cpu);
  EXPECT_NE(find_note(full->notes, "save the whole model when training ends"), "");
  auto single = import_config_text("model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n",
                                   "one.yaml");
  ASSERT_TRUE(single) << single.error().to_string();
  EXPECT_EQ(single->job.checkpoint.save, state_dict_kind::full);
  EXPECT_EQ(find_note(single->notes, "save the whole model"), "");  // nothing more on the GPU
  auto sharded = import_config_text(
      launch + "checkpointer:\n  _component_: torchtune.training.DistributedCheckpointer\n",
      "s.yaml");
  ASSERT_TRUE(sharded) << sharded.error().to_string();
  EXPECT_EQ(sharded->job.checkpoint.save, state_dict_kind::sharded);
  auto unnamed = import_config_text(launch, "u.yaml");
  ASSERT_TRUE(unnamed) << unnamed.error().to_string();
  EXPECT_EQ(unnamed->job.checkpoint.save, state_dict_kind::full);
}

// torchao's AdamW8bit under its old home (torchao.prototype.low_bit_optim, before torchao 0.11)
// is the same optimizer as torchao.optim's; an optimizer vramscope does not model is refused
// saying what to give instead.
TEST(ImportTorchtune, TorchaosLowBitOptimizerUnderItsOldModule) {
  const std::string model = "model:\n  _component_: torchtune.models.llama2.llama2_7b\n";
  auto old = import_config_text(
      model + "optimizer:\n  _component_: torchao.prototype.low_bit_optim.AdamW8bit\n", "o.yaml");
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_EQ(old->job.optimizer.kind, optimizer_kind::adamw_8bit);
  auto other = import_config_text(model + "optimizer:\n  _component_: my.optim.Lion\n", "o.yaml");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message.find("to plan it"), std::string::npos)
      << other.error().to_string();
}

// OmegaConf refuses a key written twice in one mapping, so torchtune never starts: refused at
// the second, naming both lines; the same key in two sections is no duplicate.
TEST(ImportTorchtune, AKeyWrittenTwiceIsRefusedAsOmegaConfRefusesIt) {
  const std::string model = "model:\n  _component_: torchtune.models.llama2.llama2_7b\n";
  auto twice =
      import_config_text("output_dir: /tmp/a\n" + model + "output_dir: /tmp/b\n", "d.yaml");
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().line, 4);
  EXPECT_NE(twice.error().message.find("output_dir is written twice (lines 1 and 4)"),
            std::string::npos)
      << twice.error().to_string();
  auto section = import_config_text(model + "model:\n  _component_: x\n", "s.yaml");
  ASSERT_FALSE(section);
  EXPECT_NE(section.error().message.find("written twice"), std::string::npos);
  auto apart =
      import_config_text(model +
                             "optimizer:\n  _component_: torch.optim.AdamW\n  lr: 1e-5\n"
                             "lr_scheduler:\n  _component_: "
                             "torchtune.training.lr_schedulers.get_cosine_schedule_with_warmup\n",
                         "a.yaml");
  ASSERT_TRUE(apart) << apart.error().to_string();
}

// The configs of torchtune's generation, evaluation and quantization recipes load a model but
// train nothing: refused where their header names the recipe, by command or by file; a training
// config whose later comments mention generation is planned.
TEST(ImportTorchtune, ConfigsOfRecipesThatDoNotTrainAreRefusedAtTheirHeader) {
  const std::string model = "model:\n  _component_: torchtune.models.llama2.llama2_7b\n";
  auto generate = import_config_text(
      "# Config for running the InferenceRecipe in generate.py\n#\n"
      "#    tune run generate --config generation\n\n" +
          model,
      "g.yaml");
  ASSERT_FALSE(generate);
  EXPECT_EQ(generate.error().line, 1);
  EXPECT_NE(generate.error().message.find("generate recipe"), std::string::npos)
      << generate.error().to_string();
  EXPECT_NE(generate.error().to_string().find("to plan it"), std::string::npos);
  auto eval = import_config_text(
      "# tune run --nproc_per_node 1 eleuther_eval --config c.yaml\n" + model, "e.yaml");
  ASSERT_FALSE(eval);
  EXPECT_EQ(eval.error().line, 1);
  EXPECT_NE(eval.error().message.find("eleuther_eval"), std::string::npos);
  auto train = import_config_text("# tune run lora_finetune_single_device --config c.yaml\n" +
                                      model + "# afterwards: tune run generate --config g.yaml\n",
                                  "t.yaml");
  ASSERT_TRUE(train) << train.error().to_string();
  auto regenerate = import_config_text(
      "# tune run full_finetune_single_device\n# uses "
      "my_generate.py for samples\n" +
          model,
      "r.yaml");
  ASSERT_TRUE(regenerate) << regenerate.error().to_string();
}

// Full DPO and GRPO load a frozen reference copy of the model from ref_checkpointer: two models,
// refused at the section that
// names it, as the other several-model recipes are; the LoRA DPO recipe disables its
// adapters for the reference instead, one model, and its loss's hyper-parameters change nothing.
TEST(ImportTorchtune, AReferenceModelIsASecondModel) {
  const std::string model = "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n";
  auto full_dpo = import_config_text(model +
                                         "ref_checkpointer:\n"
                                         "  _component_: torchtune.training.FullModelHFCheckpointer\n",
                                     "dpo.yaml");
  ASSERT_FALSE(full_dpo);
  EXPECT_NE(full_dpo.error().to_string().find("dpo.yaml:3:1: ref_checkpointer: this recipe "
                                              "holds several models"),
            std::string::npos)
      << full_dpo.error().to_string();

  auto lora_dpo = import_config_text(
      "model:\n  _component_: torchtune.models.llama2.lora_llama2_7b\n"
      "  lora_attn_modules: [q_proj, v_proj]\n  lora_rank: 8\n  lora_alpha: 16\n"
      "loss:\n  _component_: torchtune.rlhf.loss.DPOLoss\n  beta: 0.1\n  label_smoothing: 0\n",
      "lora_dpo.yaml");
  ASSERT_TRUE(lora_dpo) << lora_dpo.error().to_string();
  EXPECT_EQ(find_note(lora_dpo->notes, "unknown option"), "");

  // A reference checkpointer left in a config whose loss is a fine-tuning one: the SFT recipe
  // that runs it never reads the reference.
  auto sft = import_config_text(
      model +
          "ref_checkpointer:\n"
          "  _component_: torchtune.training.FullModelHFCheckpointer\n"
          "loss:\n  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss\n",
      "sft.yaml");
  ASSERT_TRUE(sft) << sft.error().to_string();
  EXPECT_NE(find_note(sft->notes, "never reads a reference model"), "");
}

TEST(ImportTorchtune, BadValuesAreErrorsAtTheirLine) {
  auto module = import_config_text(
      "model:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_8b\n"
      "  lora_attn_modules: [q_proj, w1]\n",
      "t.yaml");
  // torchtune's LoRA self-attention builders test each projection's name for membership and
  // read no other: w1 there puts no adapter anywhere (noted), it is no error.
  ASSERT_TRUE(module) << module.error().to_string();
  EXPECT_EQ(module->job.lora.targets, (std::vector<std::string>{"q_proj"}));
  EXPECT_EQ(
      find_note(module->notes, "model.lora_attn_modules: w1 not among").rfind("t.yaml:3:3:", 0),
      0u);
  auto dtype = import_config_text(
      "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\ndtype: fp16\n", "t.yaml");
  ASSERT_FALSE(dtype);
  EXPECT_EQ(dtype.error().line, 3);
  auto optimizer = import_config_text(
      "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n"
      "optimizer:\n  _component_: torch.optim.Adagrad\n",
      "t.yaml");
  ASSERT_FALSE(optimizer);
  EXPECT_NE(optimizer.error().message.find("torch.optim.Adagrad is not an optimizer"),
            std::string::npos);
}

// Builders resolve through the catalogue's names and aliases; one with no preset keeps its name,
// which plan refuses at the model's line (the real-world corpus checks plan's message).
TEST(ImportTorchtune, BuildersResolveToPresetsAndUnknownOptionsAreNoted) {
  auto scout = import_config_text(
      "model:\n  _component_: torchtune.models.llama4.llama4_scout_17b_16e\n", "t.yaml");
  ASSERT_TRUE(scout) << scout.error().to_string();
  EXPECT_EQ(scout->job.model, "llama-4-scout");
  auto gemma = import_config_text(
      "model:\n  _component_: torchtune.models.gemma2.lora_gemma2_2b\n", "t.yaml");
  ASSERT_TRUE(gemma) << gemma.error().to_string();
  EXPECT_EQ(gemma->job.model, "gemma-2-2b");  // not gemma-2b, another model
  auto imported = import_config_text(
      "model:\n  _component_: torchtune.models.llama3_2_vision.llama3_2_vision_11b\n"
      "batch_sise: 2\n",
      "t.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.model, "llama3_2_vision_11b");  // no preset: kept as written
  auto qwen32 = import_config_text(
      "model:\n  _component_: torchtune.models.qwen2_5.qwen2_5_32b_instruct\n", "t.yaml");
  ASSERT_TRUE(qwen32) << qwen32.error().to_string();
  EXPECT_EQ(qwen32->job.model, "qwen2.5-32b");
  auto llama2_reward = import_config_text(
      "model:\n  _component_: torchtune.models.llama2.llama2_reward_7b\n", "t.yaml");
  ASSERT_TRUE(llama2_reward) << llama2_reward.error().to_string();
  EXPECT_EQ(llama2_reward->job.model, "llama2_reward_7b");  // no preset: kept as written
  auto three = import_config_text(
      "model:\n  _component_: torchtune.models.qwen2_5.lora_qwen2_5_3b\n", "t.yaml");
  ASSERT_TRUE(three) << three.error().to_string();
  EXPECT_EQ(three->job.model, "qwen2.5-3b");
  EXPECT_NE(find_note(imported->notes, "unknown option \"batch_sise\" (did you mean \"batch_size\"?)"),
            "");
}

// Every shipped recipe config since 0.6 names LinearCrossEntropyLoss (the head inside the loss,
// chunk by chunk): the chunked loss, never the Hugging Face loss over whole logits. The
// distributed recipes' mesh sets tensor parallelism.
TEST(ImportTorchtune, LinearCrossEntropyLossIsChunkedAndTheMeshIsRead) {
  auto imported = import_config_text(
      "model:\n  _component_: torchtune.models.llama3_3.llama3_3_70b\n"
      "loss:\n  _component_: torchtune.modules.loss.LinearCrossEntropyLoss\n"
      "tensor_parallel_dim: 8\ndata_parallel_shard_dim: -1\ndata_parallel_replicate_dim: 1\n"
      "fsdp_cpu_offload: False\nquantizer:\n  _component_: torchtune.training.quantization."
      "Int8DynActInt4WeightQATQuantizer\n  groupsize: 256\n",
      "t.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.model, "llama-3.1-70b");
  EXPECT_EQ(imported->job.training.loss, loss_impl::chunked);
  EXPECT_EQ(imported->job.parallel.tp, 8);
  // -1: the ranks tp leaves, resolved over the GPUs assumed
  EXPECT_EQ(imported->job.parallel.dp_shard * imported->job.parallel.tp,
            imported->job.hardware.gpus_per_node * imported->job.hardware.nodes);
  EXPECT_EQ(find_note(imported->notes, "unknown option"), "");
  EXPECT_NE(find_note(imported->notes, "quantization-aware training"), "");
}

TEST(ImportTorchtune, RefusesRecipesThatHoldSeveralModelsAtTheirLine) {
  auto kd = import_torchtune("model:\n  _component_: torchtune.models.llama3_2.lora_llama3_2_1b\n"
                             "teacher_model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n",
                             "kd.yaml");
  ASSERT_FALSE(kd);
  EXPECT_NE(kd.error().to_string().find("kd.yaml:3:1: teacher_model: this recipe holds "
                                        "several models"),
            std::string::npos) << kd.error().to_string();
  auto ppo = import_torchtune("policy_model:\n  _component_: torchtune.models.mistral.mistral_7b\n",
                              "ppo.yaml");
  ASSERT_FALSE(ppo);
  EXPECT_NE(ppo.error().to_string().find("ppo.yaml:1:1: policy_model: this recipe"),
            std::string::npos)
      << ppo.error().to_string();
  // The asynchronous GRPO recipe's reference model sits inside its postprocessing section.
  auto grpo = import_torchtune(
      "model:\n  _component_: torchtune.models.qwen2_5.qwen2_5_3b\npostprocessing:\n"
      "  ref_checkpointer:\n    _component_: torchtune.training.FullModelHFCheckpointer\n",
      "grpo.yaml");
  ASSERT_FALSE(grpo);
  EXPECT_NE(grpo.error().to_string().find("grpo.yaml:4:3: postprocessing.ref_checkpointer: this "
                                          "recipe holds several models"),
            std::string::npos)
      << grpo.error().to_string();
}

// torchtune 0.2 and older capped the length in the dataset builder: alpaca's default 512 (and
// slimorca's 1024) holds where the file gives no max_seq_len; 0.3's builders take none.
TEST(ImportTorchtune, ReleasesOfTorchtuneUtilsTakeTheDatasetBuildersLength) {
  const std::string head =
      "model:\n  _component_: torchtune.models.llama2.lora_llama2_7b\n"
      "checkpointer:\n  _component_: torchtune.utils.FullModelHFCheckpointer\n";
  auto alpaca = import_torchtune(
      head + "dataset:\n  _component_: torchtune.datasets.alpaca_cleaned_dataset\n", "a.yaml");
  ASSERT_TRUE(alpaca) << alpaca.error().to_string();
  EXPECT_EQ(alpaca->job.training.seq_len, 512);
  EXPECT_EQ(alpaca->job.provenance.set_at.at("training.seq_len").line, 6);
  auto slimorca = import_torchtune(
      head + "dataset:\n  _component_: torchtune.datasets.slimorca_dataset\n", "s.yaml");
  ASSERT_TRUE(slimorca) << slimorca.error().to_string();
  EXPECT_EQ(slimorca->job.training.seq_len, 1024);
  // The file's own cap wins; and 0.3's component names leave the length to the tokenizer.
  auto capped = import_torchtune(head +
                                     "dataset:\n  _component_: "
                                     "torchtune.datasets.alpaca_dataset\n  max_seq_len: 256\n",
                                 "c.yaml");
  ASSERT_TRUE(capped) << capped.error().to_string();
  EXPECT_EQ(capped->job.training.seq_len, 256);
  std::string renamed = head;
  renamed.replace(renamed.find("torchtune.utils."), 16, "torchtune.training.");
  auto now = import_torchtune(
      renamed + "dataset:\n  _component_: torchtune.datasets.alpaca_cleaned_dataset\n", "n.yaml");
  ASSERT_TRUE(now) << now.error().to_string();
  EXPECT_EQ(now->job.provenance.set_at.count("training.seq_len"), 0U);
}

// torchtune 0.2 and older: components under torchtune.utils (0.3 moved them to
// torchtune.training) and distributed recipes wrapping in FSDP1; recipes/dev/lora_finetune_fsdp2
// of 0.2 is FSDP2 and reads fsdp.cpu_offload, which no other recipe reads.
TEST(ImportTorchtune, ReleasesOfTorchtuneUtilsShardWithFsdp1) {
  const std::string head = "model:\n  _component_: torchtune.models.llama2.lora_llama2_7b\n"
                           "checkpointer:\n  _component_: torchtune.utils.FullModelHFCheckpointer\n";
  auto old = import_torchtune(
      "#   tune run --nnodes 1 --nproc_per_node 2 lora_finetune_distributed --config x\n" + head,
      "old.yaml");
  ASSERT_TRUE(old) << old.error().to_string();
  EXPECT_EQ(old->job.parallel.kind, strategy::fsdp1);
  EXPECT_EQ(old->job.parallel.fsdp_sharding, sharding::full_shard);
  EXPECT_TRUE(old->job.parallel.sync_module_states);
  EXPECT_EQ(old->job.hardware.gpus_per_node, 2);
  EXPECT_NE(find_note(old->notes, "planned as FSDP1"), "");
  // The same recipe with 0.3's component names is FSDP2.
  std::string renamed = head;
  renamed.replace(renamed.find("torchtune.utils."), 16, "torchtune.training.");
  auto now = import_torchtune(
      "#   tune run --nproc_per_node 2 lora_finetune_distributed --config x\n" + renamed, "now.yaml");
  ASSERT_TRUE(now) << now.error().to_string();
  EXPECT_EQ(now->job.parallel.kind, strategy::fsdp2);
  // Single-device recipes of 0.2 stay on one GPU.
  auto single = import_torchtune("#   tune run lora_finetune_single_device --config x\n" + head,
                                 "single.yaml");
  ASSERT_TRUE(single) << single.error().to_string();
  EXPECT_EQ(single->job.parallel.kind, strategy::single);
  // The dev FSDP2 recipe: FSDP2 on its processes, fsdp.cpu_offload read.
  auto dev = import_torchtune("#   # tune run --nproc_per_node 8 lora_finetune_fsdp2 --config x\n" +
                                  head + "fsdp:\n  cpu_offload: True\n",
                              "dev.yaml");
  ASSERT_TRUE(dev) << dev.error().to_string();
  EXPECT_EQ(dev->job.parallel.kind, strategy::fsdp2);
  EXPECT_EQ(dev->job.hardware.gpus_per_node, 8);
  EXPECT_TRUE(dev->job.parallel.cpu_offload);
  EXPECT_EQ(find_note(dev->notes, "unknown option"), "");
  // Under lora_finetune_distributed fsdp.cpu_offload is read by nothing.
  auto unread = import_torchtune(
      "#   tune run --nproc_per_node 8 lora_finetune_distributed --config x\n" + renamed +
          "fsdp:\n  cpu_offload: True\n",
      "unread.yaml");
  ASSERT_TRUE(unread) << unread.error().to_string();
  EXPECT_FALSE(unread->job.parallel.cpu_offload);
  // torchtune's own qlora configs keep the section (llama2/70B_qlora.yaml at bd2a0fc7c): a name
  // torchtune has, read by no recipe since 0.3, never an unknown option.
  EXPECT_EQ(find_note(unread->notes, "unknown option"), "");
  EXPECT_NE(find_note(unread->no_effect, "\"fsdp.cpu_offload\" does not affect GPU memory"), "");
}

// dataset.max_seq_len (torchtune 0.2's datasets) is the sequence length without
// tokenizer.max_seq_len; model.quantize_base on a LoRA builder quantizes the base (QDoRA with
// use_dora).
TEST(ImportTorchtune, DatasetSequenceCapAndQuantizedBase) {
  auto seq = import_torchtune("model:\n  _component_: torchtune.models.phi3.phi3_mini\n"
                              "dataset:\n  _component_: torchtune.datasets.alpaca_dataset\n"
                              "  max_seq_len: 4096\n",
                              "seq.yaml");
  ASSERT_TRUE(seq) << seq.error().to_string();
  EXPECT_EQ(seq->job.training.seq_len, 4096);
  auto both = import_torchtune("tokenizer:\n  max_seq_len: 1024\ndataset:\n  max_seq_len: 4096\n",
                               "both.yaml");
  ASSERT_TRUE(both) << both.error().to_string();
  EXPECT_EQ(both->job.training.seq_len, 1024);
  auto qdora = import_torchtune("model:\n  _component_: torchtune.models.llama3.lora_llama3_8b\n"
                                "  use_dora: True\n  quantize_base: True\n",
                                "qdora.yaml");
  ASSERT_TRUE(qdora) << qdora.error().to_string();
  EXPECT_EQ(qdora->job.lora.method, "dora");
  EXPECT_EQ(qdora->job.lora.base_quantization, dtype::nf4);
  EXPECT_EQ(qdora->job.lora.quantizer, "torchao");
  // An AWQ / GPTQ export as the HF checkpoint: torchtune cannot load its packed tensors.
  const std::string model =
      "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n"
      "checkpointer:\n  _component_: torchtune.training.FullModelHFCheckpointer\n"
      "  checkpoint_dir: ";
  auto awq = import_torchtune(model + "/m/Llama-3.1-8b-AWQ-4bit-g128-gemm\n", "awq.yaml");
  ASSERT_FALSE(awq);
  EXPECT_EQ(awq.error().line, 5) << awq.error().to_string();
  EXPECT_NE(awq.error().message.find("to plan it"), std::string::npos);
  auto plain_dir = import_torchtune(model + "/m/Llama-3.1-8B-Instruct\n", "hf.yaml");
  ASSERT_TRUE(plain_dir) << plain_dir.error().to_string();
  auto awkward = import_torchtune(model + "/m/awkward-llama\n", "hf.yaml");
  ASSERT_TRUE(awkward) << awkward.error().to_string();
  // lora_rank as a map per module: a fork's per-layer LoRA.
  auto per_layer = import_torchtune(
      "model:\n  _component_: torchtune.models.llama3.lora_llama3_8b\n  lora_rank:\n"
      "    layers.0.attn.q_proj: 16\n    layers.1.attn.q_proj: 8\n",
      "map.yaml");
  ASSERT_FALSE(per_layer);
  EXPECT_EQ(per_layer.error().line, 3) << per_layer.error().to_string();
  EXPECT_NE(per_layer.error().message.find("to plan it"), std::string::npos);
  // A fork's dora_ builder is the LoRA builder with use_dora.
  auto dora = import_torchtune("model:\n  _component_: torchtune.models.llama3.dora_llama3_8b\n",
                               "dora.yaml");
  ASSERT_TRUE(dora) << dora.error().to_string();
  EXPECT_EQ(dora->job.model, "llama-3-8b");
  EXPECT_TRUE(dora->job.lora.enabled);
  EXPECT_EQ(dora->job.lora.method, "dora");
  auto plain = import_torchtune("model:\n  _component_: torchtune.models.llama3.lora_llama3_8b\n"
                                "  quantize_base: False\n",
                                "plain.yaml");
  ASSERT_TRUE(plain) << plain.error().to_string();
  EXPECT_FALSE(plain->job.lora.base_quantization.has_value());
}

// ac_mode / ac_option: full_finetune_distributed (and qat_distributed, early_exit) apply them
// when enable_activation_checkpointing is false; with it true neither checkpointing runs; other
// recipes never read them.
TEST(ImportTorchtune, AcModeIsAppliedByTheRecipesThatReadIt) {
  const std::string body = "model:\n  _component_: torchtune.models.llama3.llama3_8b\n"
                           "ac_mode: 'selective'\nac_option: 3\n";
  const std::string full = "#   tune run --nproc_per_node 4 full_finetune_distributed --config x\n";
  auto off = import_torchtune(full + "enable_activation_checkpointing: False\n" + body, "off.yaml");
  ASSERT_TRUE(off) << off.error().to_string();
  EXPECT_EQ(off->job.training.activation_checkpointing, checkpointing::selective);
  EXPECT_EQ(off->job.training.checkpoint_every, 3);
  auto on = import_torchtune(full + "enable_activation_checkpointing: True\n" + body, "on.yaml");
  ASSERT_TRUE(on) << on.error().to_string();
  EXPECT_EQ(on->job.training.activation_checkpointing, checkpointing::none);
  EXPECT_NE(find_note(on->notes, "so no block is checkpointed"), "");
  auto lora = import_torchtune(
      "#   tune run --nproc_per_node 4 lora_finetune_distributed --config x\n"
      "enable_activation_checkpointing: False\n" + body, "lora.yaml");
  ASSERT_TRUE(lora) << lora.error().to_string();
  EXPECT_EQ(lora->job.training.activation_checkpointing, checkpointing::none);
  EXPECT_NE(find_note(lora->notes, "ac_mode is applied only by full_finetune_distributed"), "");
  std::string op = body;
  op.replace(op.find("ac_option: 3"), 12, "ac_option: op");
  auto bad = import_torchtune(full + op, "bad.yaml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().to_string().find("bad.yaml:5:1: ac_option: expected a whole number"), std::string::npos)
      << bad.error().to_string();
}

// A top-level key the file interpolates (OmegaConf's ${name}) is the file's variable: no effect,
// not unknown; a key nothing interpolates is still unknown.
TEST(ImportTorchtune, AKeyTheFileInterpolatesIsItsVariable) {
  auto imported = import_torchtune(
      "name: llama3B_gsm8k_sft\noutput_dir: /tmp/${name}\nnmae: typo\n"
      "model:\n  _component_: torchtune.models.llama3_2.llama3_2_3b\n", "v.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(find_note(imported->notes, "unknown option \"name\""), "");
  EXPECT_NE(find_note(imported->no_effect, "\"name\" does not affect GPU memory"), "");
  EXPECT_NE(find_note(imported->notes, "unknown option \"nmae\" (did you mean \"name\"?)"), "");
}

// The early-exit recipe's sections (dev/early_exit_finetune_distributed) are options of
// torchtune; a fork's own keys (dangbert's val_split) are not called unknown, only noted.
TEST(ImportTorchtune, EarlyExitSectionsAndForkKeys) {
  auto imported = import_torchtune(
      "#   tune run --nproc_per_node 4 dev/early_exit_finetune_distributed --config x\n"
      "model:\n  _component_: torchtune.models.llama2.llama2_7b\nbatch_size: 8\n"
      "val_split: 0.1\nearly_exit_loss:\n  layers: \"0::4\"\n  scale: 1.0\n"
      "layer_dropout:\n  prob: 0.2\n",
      "ee.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(find_note(imported->notes, "unknown option"), "");
  EXPECT_NE(find_note(imported->notes, "\"early_exit_loss.layers\" changes memory"), "");
  EXPECT_NE(find_note(imported->notes, "\"layer_dropout.prob\" changes memory"), "");
  EXPECT_NE(find_note(imported->notes, "\"val_split\" is not among the options of the torchtune "
                                       "releases vramscope knows")
                .find("ee.yaml:5:1: "),
            std::string::npos);
}

// A component builder called with a model's shape (torchtune's llama2 with TinyLlama's
// numbers) is that model inline; the MLP is scale_hidden_dim_for_mlp(2048) = 5632 when
// intermediate_dim is absent.
TEST(ImportTorchtune, AComponentBuilderWithAShapeIsThatModel) {
  auto imported = import_config_text(
      "model:\n  _component_: torchtune.models.llama2.llama2\n  vocab_size: 32000\n"
      "  num_layers: 22\n  num_heads: 32\n  num_kv_heads: 4\n  embed_dim: 2048\n"
      "  max_seq_len: 2048\n  attn_dropout: 0.0\n  norm_eps: 1e-5\n"
      "tokenizer:\n  max_seq_len: 2048\nbatch_size: 1\n",
      "tiny.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  std::string mlp, kv;
  for (const auto& k : imported->job.model_config) {
    if (k.key == "intermediate_size") mlp = k.json;
    if (k.key == "num_key_value_heads") kv = k.json;
  }
  EXPECT_EQ(mlp, "5632");
  EXPECT_EQ(kv, "4");
  EXPECT_EQ(find_note(imported->notes, "unknown option"), "");
  auto model = load_model_of(imported->job, "");
  ASSERT_TRUE(model) << model.error().to_string();
  EXPECT_EQ(model->parameters(), 1'100'048'384u);  // TinyLlama-1.1B
  const auto bad = import_config_text(
      "model:\n  _component_: torchtune.models.llama3.llama3\n  vocab_size: 32000\n"
      "  num_layers: 2\n  num_heads: 4\n  embed_dim: 64\n  norm_eps: small\n",
      "bad.yaml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().to_string().rfind("bad.yaml:7:3: model.norm_eps: expected a positive "
                                          "number, got \"small\"",
                                          0),
            0u)
      << bad.error().to_string();
  const auto other = import_config_text(
      "model:\n  _component_: torchtune.models.phi3.phi3\n  num_layers: 2\n", "phi.yaml");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().to_string().find("phi.yaml:3:3: model._component_ "
                                           "torchtune.models.phi3.phi3 is called with a model's "
                                           "shape"),
            std::string::npos)
      << other.error().to_string();
}

// Before torchtune 0.1 (80a2114b1, 2024-03) the CLI was `tune [torchrun options] RECIPE`,
// without `run`; that era's full_finetune_distributed wraps in FSDP1.
TEST(ImportTorchtune, ThePreReleaseLaunchLineNamesTheRecipe) {
  const std::string body =
      "# Config for FullFinetuneRecipe in full_finetune_distributed.py\n"
      "#   tune --nnodes 1 --nproc_per_node 2 full_finetune_distributed \\\n"
      "#   --config full_finetune_distributed\n"
      "model:\n  _component_: torchtune.models.llama2.llama2_7b\n"
      "checkpointer:\n  _component_: torchtune.utils.FullModelMetaCheckpointer\n"
      "batch_size: 2\n";
  auto imported = import_config_text(body, "old.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.kind, strategy::fsdp1);
  EXPECT_EQ(imported->job.hardware.gpus_per_node, 2);
  // `tune download` and `tune cp` name no recipe to run.
  auto other = import_config_text(
      "#   tune download meta-llama/Llama-2-7b --output-dir /tmp\n"
      "model:\n  _component_: torchtune.models.llama2.llama2_7b\n",
      "dl.yaml");
  ASSERT_TRUE(other) << other.error().to_string();
  EXPECT_EQ(other->job.parallel.kind, strategy::single);
}

// torchtune splits the Phi-3 layout's fused projections when it loads the checkpoint, so its
// lora_attn_modules name q_proj and v_proj; the job keeps torchtune's names, and on the phi-4
// preset (qkv_proj, gate_up_proj) the plan puts the adapters on the fused linears, said in a note.
TEST(ImportTorchtune, LoraTargetsOfSplitProjectionsGoOnThePresetsFusedLinears) {
  auto phi = import_config_text(
      "model:\n  _component_: torchtune.models.phi4.lora_phi4_14b\n"
      "  lora_attn_modules: ['q_proj', 'v_proj', 'output_proj']\n"
      "  apply_lora_to_mlp: True\n",
      "t.yaml");
  ASSERT_TRUE(phi) << phi.error().to_string();
  EXPECT_EQ(phi->job.model, "phi-4");
  // A torchtune builder makes torchtune's own model code (its attention's repeated keys/values).
  EXPECT_EQ(phi->job.training.model_code, model_impl::torchtune);
  EXPECT_EQ(phi->job.lora.targets,
            (std::vector<std::string>{"q_proj", "v_proj", "output_proj", "w1", "w2", "w3"}));
  EXPECT_NE(find_note(phi->notes, "q_proj, v_proj, w1, w3: phi-4 model holds them fused"), "");
  // The plan finds the same modules as the Hugging Face names of the fused layout.
  const auto spec = model::load_preset("phi-4");
  ASSERT_TRUE(spec) << spec.error().to_string();
  const auto kept = model::lora_targets(*spec, phi->job.lora.targets);
  const auto hf = model::lora_targets(*spec, {"qkv_proj", "o_proj", "gate_up_proj", "down_proj"});
  ASSERT_TRUE(kept) << kept.error().to_string();
  ASSERT_TRUE(hf) << hf.error().to_string();
  EXPECT_EQ(kept->modules, hf->modules);
  EXPECT_EQ(kept->adapters, hf->adapters);
  // A model that keeps them apart keeps the names.
  auto llama = import_config_text(
      "model:\n  _component_: torchtune.models.llama3_2.lora_llama3_2_1b\n"
      "  lora_attn_modules: ['q_proj', 'v_proj']\n",
      "t.yaml");
  ASSERT_TRUE(llama) << llama.error().to_string();
  EXPECT_EQ(llama->job.lora.targets, (std::vector<std::string>{"q_proj", "v_proj"}));
}

// OmegaConf resolves a value that is one ${key} reference before a recipe reads it.
TEST(ImportTorchtune, AReferenceToATopLevelKeyTakesItsValue) {
  auto imported = import_config_text(
      "max_tokens: 850\nlength: ${max_tokens}\n"
      "model:\n  _component_: torchtune.models.llama2.lora_llama2_7b\n"
      "dataset:\n  max_seq_len: ${length}\n",
      "t.yaml");
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.training.seq_len, 850u);
  auto dangling = import_config_text(
      "model:\n  _component_: torchtune.models.llama2.lora_llama2_7b\n"
      "dataset:\n  max_seq_len: ${nowhere}\n",
      "t.yaml");
  EXPECT_FALSE(dangling);  // a reference to no key is still an error at its line
}

// A builder that writes a size times an expert count in its own way resolves like the Hub's
// spelling (pull/2583's lora_llama4_17bx16 is Llama 4 Scout 17B-16E).
TEST(ImportTorchtune, ExpertCountBuilderNamesResolveToTheirPreset) {
  for (const char* builder : {"torchtune.models.llama4.lora_llama4_17bx16",
                              "torchtune.models.llama4.llama4_scout_17b_16e",
                              "torchtune.models.llama4.lora_llama4_17Bx16E"}) {
    auto imported = import_config_text(
        std::string("model:\n  _component_: ") + builder + "\n  lora_attn_modules: ['q_proj']\n",
        "t.yaml");
    ASSERT_TRUE(imported) << imported.error().to_string();
    EXPECT_EQ(imported->job.model, "llama-4-scout") << builder;
  }
}

// A loss class torchtune never had fails when the recipe builds it: refused at the loss. Packing
// without a length stops torchtune's dataset builders: refused at dataset.packed.
TEST(ImportTorchtune, ALossTorchtuneLacksAndPackingWithoutALengthAreRefused) {
  const std::string model = "model:\n  _component_: torchtune.models.llama2.lora_llama2_7b\n";
  auto orpo = import_config_text(model + "loss:\n  _component_: torchtune.modules.loss.ORPOLoss\n",
                                 "orpo.yaml");
  ASSERT_FALSE(orpo);
  EXPECT_EQ(orpo.error().to_string().rfind(
                "orpo.yaml:4:3: loss torchtune.modules.loss.ORPOLoss: torchtune has "
                "no loss class ORPOLoss",
                0),
            0u)
      << orpo.error().to_string();
  EXPECT_NE(orpo.error().message.find("to plan it"), std::string::npos);
  auto dpo =
      import_config_text(model + "loss:\n  _component_: torchtune.rlhf.loss.DPOLoss\n", "dpo.yaml");
  EXPECT_TRUE(dpo) << dpo.error().to_string();

  auto packed =
      import_config_text(model +
                             "tokenizer:\n  _component_: torchtune.models.llama2.llama2_tokenizer\n"
                             "  max_seq_len: null\ndataset:\n  packed: True\n",
                         "packed.yaml");
  ASSERT_FALSE(packed);
  EXPECT_EQ(packed.error().to_string().rfind(
                "packed.yaml:7:3: dataset.packed: true with tokenizer.max_seq_len "
                "null (line 5)",
                0),
            0u)
      << packed.error().to_string();
  auto sized =
      import_config_text(model +
                             "tokenizer:\n  _component_: torchtune.models.llama2.llama2_tokenizer\n"
                             "  max_seq_len: 2048\ndataset:\n  packed: True\n",
                         "sized.yaml");
  ASSERT_TRUE(sized) << sized.error().to_string();
  EXPECT_EQ(sized->job.training.seq_len, 2048);
}

}  // namespace
}  // namespace vramscope::job

namespace vramscope::job {
namespace {

// A fork's builder named by its family alone (torchtune.models.llama2.tinyllama, TinyLlama's one
// size) resolves to that preset; memory_efficient_fsdp_wrap, which only full_finetune_distributed
// reads, makes the config distributed, and a torchtune 0.2 checkpointer makes that FSDP1.
TEST(ImportTorchtune, AForkBuilderAndTheFsdpWrapKeyOfTheDistributedRecipe) {
  const std::string body =
      "model:\n  _component_: torchtune.models.llama2.tinyllama\n"
      "checkpointer:\n  _component_: torchtune.utils.FullModelHFCheckpointer\n"
      "batch_size: 2\n";
  auto distributed = import_config_text(body + "memory_efficient_fsdp_wrap: False\n", "t.yaml");
  ASSERT_TRUE(distributed) << distributed.error().to_string();
  EXPECT_EQ(distributed->job.model, "tinyllama-1.1b");
  EXPECT_EQ(distributed->job.parallel.kind, strategy::fsdp1);
  auto single = import_config_text(body, "t.yaml");
  ASSERT_TRUE(single) << single.error().to_string();
  EXPECT_EQ(single->job.parallel.kind, strategy::single);
}

// What torchtune's recipes read that earlier readings missed: a component builder with LoRA
// called with a model's shape, the compile map, a name of a section's option written at the top
// level, a second model in another section, a builder of another family than the checkpoint,
// and a distributed config known only by its commented-out distributed options.
TEST(ImportTorchtune, RecipeFormsOfLaterAndOlderReleases) {
  auto shapes = import_config_text(
      "model:\n  _component_: torchtune.models.llama2.lora_llama2\n  vocab_size: 102400\n"
      "  num_layers: 30\n  num_heads: 32\n  num_kv_heads: 32\n  embed_dim: 4096\n"
      "  lora_attn_modules: ['q_proj', 'v_proj']\n  lora_rank: 8\n  lora_alpha: 16\n",
      "shapes.yaml");
  ASSERT_TRUE(shapes) << shapes.error().to_string();
  EXPECT_TRUE(shapes->job.lora.enabled);
  EXPECT_FALSE(shapes->job.model_config.empty());

  auto compile = import_config_text(
      "model:\n  _component_: torchtune.models.qwen2.qwen2_0_5b\n"
      "compile:\n  model: False\n  scale_grads: True\n",
      "compile.yaml");
  ASSERT_TRUE(compile) << compile.error().to_string();
  EXPECT_FALSE(compile->job.training.compile);
  EXPECT_TRUE(compile->job.training.compile_loss);  // the recipe's default for a missing part

  auto top = import_config_text(
      "model:\n  _component_: torchtune.models.qwen2.qwen2_0_5b\npacked: False\n"
      "max_seq_len: 2048\n",
      "top.yaml");
  ASSERT_TRUE(top) << top.error().to_string();
  EXPECT_EQ(find_note(top->notes, "unknown option"), "");
  EXPECT_EQ(find_note(top->notes,
                      "packed at the top level: torchtune's recipes read it as "
                      "dataset.packed")
                .rfind("top.yaml:3:1:", 0),
            0u);

  auto ppo = import_config_text(
      "policy:\n  _component_: torchtune.models.llama2.testing.llama2\n"
      "value_model:\n  _component_: torchtune.models.llama2.testing.llama2_classifier\n"
      "tokenizer:\n  _component_: torchtune.models.llama2.llama2_tokenizer\n",
      "ppo.yaml");
  ASSERT_FALSE(ppo);
  EXPECT_EQ(ppo.error().to_string().rfind("ppo.yaml:1:1: policy: ", 0), 0u)
      << ppo.error().to_string();

  auto mixed = import_config_text(
      "model:\n  _component_: torchtune.models.gemma.qlora_gemma_7b\n"
      "checkpointer:\n  model_type: GEMMA2\n",
      "mixed.yaml");
  ASSERT_FALSE(mixed);
  EXPECT_EQ(mixed.error().to_string().rfind("mixed.yaml:2:3: model._component_ ", 0), 0u)
      << mixed.error().to_string();
  auto same = import_config_text(
      "model:\n  _component_: torchtune.models.qwen3.qwen3_4b_instruct\n"
      "checkpointer:\n  model_type: QWEN2\n",
      "same.yaml");
  EXPECT_TRUE(same) << same.error().to_string();

  auto copied = import_config_text(
      "model:\n  _component_: torchtune.models.qwen2_5.qwen2_5_7b_instruct\n"
      "# custom_sharded_layers: ['tok_embeddings']\n",
      "copied.yaml");
  ASSERT_TRUE(copied) << copied.error().to_string();
  EXPECT_EQ(copied->job.parallel.kind, strategy::fsdp2);
  auto single = import_config_text(
      "# Config for single device full finetuning in full_finetune_single_device.py\n"
      "model:\n  _component_: torchtune.models.qwen2_5.qwen2_5_7b_instruct\n",
      "single.yaml");
  ASSERT_TRUE(single) << single.error().to_string();
  EXPECT_EQ(single->job.parallel.kind, strategy::single);
}

// torchtune's llama3 builders are Llama 3 (8192 positions), its llama3_1 builders Llama 3.1.
TEST(ImportTorchtune, Llama3BuildersAreLlama3) {
  for (const auto& [builder, preset] : {std::pair{"llama3.llama3_8b", "llama-3-8b"},
                                        std::pair{"llama3.lora_llama3_70b", "llama-3-70b"},
                                        std::pair{"llama3_1.llama3_1_8b", "llama-3.1-8b"}}) {
    auto got = import_config_text(std::string("model:\n  _component_: torchtune.models.") +
                                      builder + "\n  lora_attn_modules: [q_proj]\n",
                                  "b.yaml");
    ASSERT_TRUE(got) << got.error().to_string();
    EXPECT_EQ(got->job.model, preset) << builder;
  }
}

// lora_dpo_distributed never reads compile: a LoRA model with a preference loss on several GPUs
// is planned uncompiled, whatever recipe the copied header names; the single-device DPO recipe
// and the fine-tuning recipes read it.
TEST(ImportTorchtune, CompileIsNotReadByTheDistributedLoraDpoRecipe) {
  const std::string header = "# tune run --nproc_per_node 8 lora_finetune_distributed --config x\n";
  const std::string body =
      "model:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_8b\n"
      "  lora_attn_modules: ['q_proj', 'v_proj']\n  lora_rank: 8\n  lora_alpha: 16\n"
      "batch_size: 2\ncompile: True\n";
  auto dpo = import_config_text(
      header + body + "loss:\n  _component_: torchtune.rlhf.loss.DPOLoss\n", "t.yaml");
  ASSERT_TRUE(dpo) << dpo.error().to_string();
  EXPECT_EQ(dpo->job.parallel.kind, strategy::fsdp2);
  EXPECT_FALSE(dpo->job.training.compile);
  EXPECT_NE(find_note(dpo->notes, "runs lora_dpo_distributed, which never reads compile"), "");
  auto sft = import_config_text(
      header + body + "loss:\n  _component_: torchtune.modules.loss.CEWithChunkedOutputLoss\n",
      "t.yaml");
  ASSERT_TRUE(sft) << sft.error().to_string();
  EXPECT_TRUE(sft->job.training.compile);
  auto single = import_config_text("# tune run lora_dpo_single_device --config x\n" + body +
                                       "loss:\n  _component_: torchtune.rlhf.loss.DPOLoss\n",
                                   "t.yaml");
  ASSERT_TRUE(single) << single.error().to_string();
  EXPECT_TRUE(single->job.training.compile);
}

}  // namespace
}  // namespace vramscope::job
