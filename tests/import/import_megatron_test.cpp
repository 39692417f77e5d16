#include <vramscope/import/importers.hpp>

#include <vramscope/job/job_loading.hpp>
#include <vramscope/model/model_spec.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "import/import_test_support.hpp"
#include "import/megatron/megatron_args.hpp"

namespace vramscope::job {
namespace {

using testing::find_note;

std::string example(const std::string& name) {
  return std::string(VRAMSCOPE_SOURCE_DIR) + "/examples/recipes/" + name;
}

// A model Megatron needs: 2 layers of 64, 4 heads, GPT-2's tokenizer.
const std::string small_model =
    "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128\n"
    "--seq-length 128 --tokenizer-type GPT2BPETokenizer\n";

// `args` as the arguments of a torchrun launch on `gpus` GPUs, lines continued with backslashes.
std::string launch(const std::string& args, int gpus = 8) {
  std::string out = "torchrun --nproc_per_node " + std::to_string(gpus) + " pretrain_gpt.py \\\n";
  for (char c : args.substr(0, args.size() - 1))
    out += c == '\n' ? std::string(" \\\n") : std::string(1, c);
  return out + "\n";
}

imported_job import_ok(const std::string& text) {
  auto imported = import_config_text(text, "args.txt");
  if (!imported) ADD_FAILURE() << imported.error().to_string();
  return imported ? *imported : imported_job{};
}

std::string import_error(const std::string& text) {
  auto imported = import_config_text(text, "args.txt");
  return imported ? std::string("(imported)") : imported.error().to_string();
}

// What keeps `text` from a plan: the import's refusal, else the model's when the plan loads it
// (a vocabulary only in the tokenizer's files: job::model_key::unknown), else "(planned)".
std::string refusal(const std::string& text) {
  auto imported = import_config_text(text, "args.txt");
  if (!imported) return imported.error().to_string();
  auto model = load_model_of(imported->job, "args.txt");
  return model ? std::string("(planned)") : model.error().to_string();
}

std::string key_of(const job_spec& job, const std::string& key) {
  for (const auto& k : job.model_config)
    if (k.key == key) return k.json;
  return "";
}

std::uint64_t parameters_of(const job_spec& job) {
  auto model = load_model_of(job, "");
  if (!model) ADD_FAILURE() << model.error().to_string();
  return model ? model->parameters() : 0;
}

// Training counted in iterations and in samples at once: validate_args asserts before any step
// (Megatron-LM's own 2024 GPT-3 175B example passes --rampup-batch-size with --train-iters).
TEST(ImportMegatron, IterationAndSampleCountsTogetherAreRefusedAsValidateArgsDoes) {
  const std::string base = small_model + "--micro-batch-size 1\n--global-batch-size 8\n";
  const std::string ramp =
      import_error(launch(base + "--rampup-batch-size 2 2 1000\n--train-iters 10\n"));
  EXPECT_NE(ramp.find("--rampup-batch-size 2 2 1000 counts training in samples, and --train-iters"),
            std::string::npos)
      << ramp;
  EXPECT_NE(ramp.find("to plan it"), std::string::npos) << ramp;
  const std::string decay =
      import_error(launch(base + "--train-samples 1000\n--lr-decay-iters 5\n"));
  EXPECT_NE(decay.find("--lr-decay-iters 5 counts training in iterations"), std::string::npos)
      << decay;
  // Warm-ups are compared with their default 0; --skip-train skips the checks (newer releases).
  import_ok(launch(base + "--train-iters 10\n--lr-warmup-samples 0\n"));
  import_ok(launch(base + "--train-samples 1000\n--lr-warmup-iters 0\n"));
  import_ok(launch(base + "--train-iters 10\n--train-samples 1000\n--skip-train\n"));
}

// A program named through a directory the script finds when it runs
// (`MAIN_DIR=$(dirname "$SCRIPT_DIR")`, then `$MAIN_DIR/tools/pretrain_x.py`) is still the launch:
// the blanks of the command substitution left as written do not split its name.
TEST(ImportMegatron, AProgramUnderADirectoryFoundAtRunTimeIsTheLaunch) {
  std::string text = launch(small_model + "--micro-batch-size 1\n");
  text.replace(text.find("pretrain_gpt.py"), 15, "$MAIN_DIR/pretrain_gpt.py");
  text =
      "SCRIPT_DIR=$(dirname \"$(realpath \"$0\")\")\nMAIN_DIR=$(dirname \"$SCRIPT_DIR\")\n" + text;
  const auto imported = import_ok(text);
  EXPECT_EQ(imported.job.hardware.gpus_per_node, 8);
}

// A launch whose model arguments come from a file it sources is refused at that `source` line
// (a virtualenv's activate is passed over), not for a missing --num-layers at the command.
TEST(ImportMegatron, ModelFromASourcedFileIsRefusedWhereItIsSourced) {
  const std::string message = import_error(
      "source venv/bin/activate\nsource configs/model.sh\n. ./configs/train.sh\n"
      "torchrun --nproc_per_node 8 pretrain_gpt.py ${MODEL_ARGS[@]} ${TRAIN_ARGS[@]} "
      "--seq-length 2048\n");
  // Pointed at the file whose name says it holds the model's arguments; the others are named.
  EXPECT_EQ(message.rfind("args.txt:2:1: source configs/model.sh:", 0), 0u) << message;
  EXPECT_NE(message.find("./configs/train.sh (line 3)"), std::string::npos) << message;
  EXPECT_EQ(message.find("venv/bin/activate"), std::string::npos) << message;
  // No name says so: the first not named for the data, else the first.
  const std::string data_first = import_error(
      "source ./data_blend.sh\nsource ./setup.sh\n"
      "torchrun --nproc_per_node 8 pretrain_gpt.py ${ARGS[@]} --seq-length 2048\n");
  EXPECT_EQ(data_first.rfind("args.txt:2:1: source ./setup.sh:", 0), 0u) << data_first;
  const std::string plain = import_error(
      "source ./a.sh\nsource ./b.sh\n"
      "torchrun --nproc_per_node 8 pretrain_gpt.py ${ARGS[@]} --seq-length 2048\n");
  EXPECT_EQ(plain.rfind("args.txt:1:1: source ./a.sh:", 0), 0u) << plain;
  // A name for the model or its arguments before one for settings in general (config, cfg).
  const std::string settings = import_error(
      "source ./config_local_path.sh\nsource ./config_model.sh\n"
      "torchrun --nproc_per_node 8 pretrain_gpt.py ${ARGS[@]} --seq-length 2048\n");
  EXPECT_EQ(settings.rfind("args.txt:2:1: source ./config_model.sh:", 0), 0u) << settings;
  // A launch whose Megatron arguments all come from a sourced file is still read as Megatron's
  // (its --tensor-model-parallel-size says so) and refused at that file.
  const std::string sourced_only = import_error(
      "source scripts/models/qwen3-4B.sh\n"
      "python3 train.py ${MODEL_ARGS[@]} --tensor-model-parallel-size 1 --seq-length 2048\n");
  EXPECT_EQ(sourced_only.rfind("args.txt:1:1: source scripts/models/qwen3-4B.sh:", 0), 0u)
      << sourced_only;
  // With the model's arguments in the script, a sourced file is no reason to refuse.
  import_ok("source configs/env.sh\n" + launch(small_model));
}

// A script on disk that sources a file beside it runs that file's statements where `source`
// stands, as bash does: the model's arguments it sets are the launch's, located in that file.
// Its own-folder idioms (`$(cd "$(dirname "$0")" && pwd)`) name the script's folder.
class SourcedFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("vramscope-sourced-" + std::to_string(reinterpret_cast<std::uintptr_t>(this)));
    std::filesystem::create_directories(dir_ / "recipes");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::filesystem::path dir_;
};

// A Megatron-DeepSpeed script whose --deepspeed_config names a JSON beside it (OLCF's Frontier
// launch: ds_config_4N_22B.json): DeepSpeed runs that file's ZeRO stage, located in the JSON; its
// precision must be the model's.
TEST_F(SourcedFiles, TheDeepSpeedConfigBesideTheScriptIsRead) {
  write("ds.json",
        "{\n  \"train_micro_batch_size_per_gpu\": 2,\n"
        "  \"zero_optimization\": {\n    \"stage\": 1\n  },\n"
        "  \"fp16\": {\"enabled\": true}\n}\n");
  std::string model = small_model.substr(0, small_model.size() - 1);
  std::replace(model.begin(), model.end(), '\n', ' ');
  const std::string script =
      write("run.sh", "deepspeed --num_gpus 2 pretrain_gpt.py " + model +
                          " --micro-batch-size 2 --deepspeed --deepspeed_config ds.json --fp16\n");
  auto imported = import_config(script);
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_TRUE(imported->job.parallel.distributed_optimizer);  // stage 1 shards the optimizer
  const std::string staged = testing::find_note(imported->notes, "beside the script (ds.json)");
  EXPECT_NE(staged.find("ds.json:4:5"), std::string::npos) << staged;
  EXPECT_NE(staged.find("says ZeRO stage 1"), std::string::npos) << staged;
  // Its precision against the launch's: refused at the JSON's switch.
  const std::string bf16 =
      write("run_bf16.sh", "deepspeed --num_gpus 2 pretrain_gpt.py " + model +
                               " --deepspeed --deepspeed_config ds.json --bf16\n");
  auto mixed = import_config(bf16);
  ASSERT_FALSE(mixed);
  EXPECT_NE(mixed.error().message.find("--bf16"), std::string::npos) << mixed.error().to_string();
  // Not found beside the script: planned as before, the stage not read.
  const std::string missing =
      write("run_missing.sh", "deepspeed --num_gpus 2 pretrain_gpt.py " + model +
                                  " --deepspeed --deepspeed_config nowhere.json --fp16\n");
  auto unread = import_config(missing);
  ASSERT_TRUE(unread) << unread.error().to_string();
  EXPECT_NE(testing::find_note(unread->notes, "which is not read"), "");
}

TEST_F(SourcedFiles, AFileBesideTheScriptIsReadAsBashRunsIt) {
  write("recipes/small.sh",
        "TP_SIZE=${TP_SIZE:-2}\nMODEL_ARGS=\"\n    --num-layers 2\n    --hidden-size 64\n"
        "    --num-attention-heads 4 --max-position-embeddings 128\n    --seq-length 128\n"
        "    --tokenizer-type GPT2BPETokenizer\n    --bogus-flag\n\"\n");
  const std::string script =
      write("train.sh",
            "SCRIPT_DIR=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\nRECIPE=${RECIPE:-small}\n"
            "source \"${SCRIPT_DIR}/recipes/${RECIPE}.sh\"\n"
            "torchrun --nproc_per_node 8 pretrain_gpt.py --tensor-model-parallel-size ${TP_SIZE} "
            "${MODEL_ARGS}\n");
  auto imported = import_config(script);
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.parallel.tp, 2);
  EXPECT_EQ(imported->job.hardware.gpus_per_node, 8);
  EXPECT_EQ(key_of(imported->job, "n_layer"), "2");
  // The recipe's own flag is located in the recipe, at its line; the script says it read it.
  const std::string unknown = testing::find_note(imported->notes, "--bogus-flag");
  EXPECT_NE(unknown.find("recipes/small.sh:8:5"), std::string::npos) << unknown;
  const std::string read = testing::find_note(imported->notes, "is read as bash runs it");
  EXPECT_NE(read.find("train.sh:3:1"), std::string::npos) << read;
  // A relative path is looked for from the script's folder (`. ./recipes/small.sh`).
  auto relative =
      import_config(write("relative.sh",
                          ". ./recipes/small.sh\ntorchrun --nproc_per_node 4 pretrain_gpt.py "
                          "--tensor-model-parallel-size $TP_SIZE $MODEL_ARGS\n"));
  ASSERT_TRUE(relative) << relative.error().to_string();
  EXPECT_EQ(relative->job.hardware.gpus_per_node, 4);
}

// A wrapper that sets the job's variables and runs the script holding the launch (`TP=2 bash
// inner.sh 8`): the child shell is read with the variables the command gives it and its
// arguments as $1, $2, ...; what it writes is located in it. Without the script beside it, the
// wrapper is refused as before.
TEST_F(SourcedFiles, AScriptAWrapperRunsIsReadWithItsVariablesAndArguments) {
  write("inner.sh",
        "torchrun --nproc_per_node $1 pretrain_gpt.py --tensor-model-parallel-size $TP_SIZE \\\n"
        "  --num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128 "
        "\\\n  --seq-length 128 --tokenizer-type GPT2BPETokenizer --bogus-flag\n");
  auto imported = import_config(
      write("wrapper.sh", "cd \"$(dirname \"$0\")\"\nTP_SIZE=2 \\\nbash inner.sh 4\n"));
  ASSERT_TRUE(imported) << imported.error().to_string();
  EXPECT_EQ(imported->job.hardware.gpus_per_node, 4);
  EXPECT_EQ(imported->job.parallel.tp, 2);
  const std::string unknown = testing::find_note(imported->notes, "--bogus-flag");
  EXPECT_NE(unknown.find("inner.sh:3:"), std::string::npos) << unknown;
  EXPECT_NE(testing::find_note(imported->notes, "with the variables this file gives it"), "");
  // What the child sets stays in it: a data-preparation script run before the launch.
  write("prep.sh", "TP_SIZE=4\necho preparing\n");
  auto after =
      import_config(write("after.sh",
                          "TP_SIZE=2\nbash prep.sh\ntorchrun --nproc_per_node 4 pretrain_gpt.py "
                          "--tensor-model-parallel-size $TP_SIZE --num-layers 2 --hidden-size 64 "
                          "--num-attention-heads 4 --max-position-embeddings 128 --seq-length 128 "
                          "--tokenizer-type GPT2BPETokenizer\n"));
  ASSERT_TRUE(after) << after.error().to_string();
  EXPECT_EQ(after->job.parallel.tp, 2);
  auto absent = import_config(write("other.sh", "TP_SIZE=2 bash missing_inner.sh 4\n"));
  ASSERT_FALSE(absent);
  EXPECT_NE(absent.error().to_string().find("a wrapper: the training is launched by "
                                            "missing_inner.sh"),
            std::string::npos)
      << absent.error().to_string();
}

// A script in the project's scripts/train/ that names the project's root as `$(cd "$(dirname
// "${BASH_SOURCE[0]}")/../.." && pwd)`, sources its model there, and starts the program (its
// name chosen in that file) through `srun bash -c '... torchrun ... "$@"' _ PROGRAM ARGS`: the
// launch is Megatron's, with the arguments the -c string is handed. A copy of the script moved
// beside a copy of the project's folders finds the file by the end of its path.
TEST_F(SourcedFiles, AProjectRootAboveTheScriptAndArgumentsHandedToBashCAreRead) {
  std::filesystem::create_directories(dir_ / "scripts/train");
  std::filesystem::create_directories(dir_ / "configs");
  write("configs/model.sh",
        "ENTRY=\"pretrain_gpt.py\"\nMODEL_ARGS=\"--num-layers 2 --hidden-size 64 "
        "--num-attention-heads 4 --max-position-embeddings 128 --seq-length 128 "
        "--tokenizer-type GPT2BPETokenizer\"\n");
  const std::string text =
      "ROOT=\"$(cd \"$(dirname \"${BASH_SOURCE[0]}\")/../..\" && pwd)\"\n"
      "source \"${ROOT}/configs/model.sh\"\nGPUS=4\n"
      "srun --ntasks-per-node=1 bash -c '\n  torchrun --nproc_per_node='\"${GPUS}\"' \"$@\"\n' _ "
      "\\\n"
      "  \"${ROOT}/Megatron-LM/${ENTRY:-pretrain_mamba.py}\" ${MODEL_ARGS} "
      "--tensor-model-parallel-size 2\n";
  std::filesystem::create_directories(dir_ / "copy/configs");
  std::filesystem::copy_file(dir_ / "configs/model.sh", dir_ / "copy/configs/model.sh");
  for (const std::string name : {"scripts/train/run.sh", "copy/moved.sh"}) {
    auto imported = import_config(write(name, text));
    ASSERT_TRUE(imported) << name << ": " << imported.error().to_string();
    EXPECT_EQ(imported->job.parallel.tp, 2) << name;
    EXPECT_EQ(imported->job.hardware.gpus_per_node, 4) << name;
    EXPECT_EQ(key_of(imported->job, "n_layer"), "2") << name;
    const std::string read = testing::find_note(imported->notes, "is read as bash runs it");
    EXPECT_NE(read.find("configs/model.sh"), std::string::npos) << read;
  }
}

TEST_F(SourcedFiles, WhatIsNotReadIsRefusedSayingWhere) {
  // Not beside the script: the refusal says where it was looked for.
  auto missing =
      import_config(write("missing.sh",
                          "source ./recipes/absent.sh\ntorchrun --nproc_per_node 8 "
                          "pretrain_gpt.py $MODEL_ARGS --tensor-model-parallel-size 1\n"));
  ASSERT_FALSE(missing);
  const std::string message = missing.error().to_string();
  EXPECT_NE(message.find("missing.sh:1:1: source ./recipes/absent.sh:"), std::string::npos)
      << message;
  EXPECT_NE(message.find("not found at " + (dir_ / "recipes/absent.sh").string()),
            std::string::npos)
      << message;
  // A relative name is not looked for by its file name alone: `recipes/small.sh` is not
  // `small.sh` beside the script.
  write("small.sh", "MODEL_ARGS=\"--num-layers 2\"\n");
  auto by_name =
      import_config(write("by_name.sh",
                          "source ./recipes/small.sh\ntorchrun --nproc_per_node 8 "
                          "pretrain_gpt.py $MODEL_ARGS --tensor-model-parallel-size 1\n"));
  ASSERT_FALSE(by_name);
  EXPECT_NE(
      by_name.error().to_string().find("not found at " + (dir_ / "recipes/small.sh").string()),
      std::string::npos)
      << by_name.error().to_string();
  // An absolute path outside the script's folder is the cluster's file, not this machine's.
  auto outside = import_config(write("outside.sh",
                                     "source /etc/profile\nsource /opt/site/model.sh\ntorchrun "
                                     "--nproc_per_node 8 pretrain_gpt.py $MODEL_ARGS "
                                     "--tensor-model-parallel-size 1\n"));
  ASSERT_FALSE(outside);
  EXPECT_NE(outside.error().to_string().find("source /opt/site/model.sh"), std::string::npos)
      << outside.error().to_string();
  // A file that sources itself is read once; one bash cannot parse is not read, and noted.
  write("recipes/loop.sh", "source ./recipes/loop.sh\nMODEL_ARGS=\"--num-layers 2\"\n");
  write("recipes/broken.sh", "MODEL_ARGS=\"--num-layers 2\n");
  auto loop =
      import_config(write("loop.sh",
                          "source ./recipes/broken.sh\nsource ./recipes/loop.sh\ntorchrun "
                          "--nproc_per_node 8 pretrain_gpt.py $MODEL_ARGS --hidden-size 64 "
                          "--num-attention-heads 4 --max-position-embeddings 128 --seq-length 128 "
                          "--tokenizer-type GPT2BPETokenizer\n"));
  ASSERT_TRUE(loop) << loop.error().to_string();
  EXPECT_EQ(key_of(loop->job, "n_layer"), "2");
  EXPECT_NE(testing::find_note(loop->notes, "not read again"), "");
  EXPECT_NE(testing::find_note(loop->notes, "source ./recipes/broken.sh: not read"), "");
  // Read from text (no file on disk), nothing is looked for: refused as before.
  EXPECT_NE(import_error("source ./recipes/small.sh\ntorchrun --nproc_per_node 8 pretrain_gpt.py "
                         "$MODEL_ARGS --tensor-model-parallel-size 1\n")
                .find("its path is known only when the script runs"),
            std::string::npos);
}

// A launch cut short where a line ends the command: a backslash that escapes the blank after it,
// a commented-out line inside the command (the backslash in the comment continues nothing). bash
// runs the next line, an option, as a command of its own, which fails; a command that simply ends
// is no cut.
TEST(ImportMegatron, ALaunchCutShortBeforeAnOptionLineIsRefusedAtTheCut) {
  const std::string escaped = import_error(
      "torchrun --nproc_per_node 8 pretrain_gpt.py \\\n  --num-layers 2 \\ \n"
      "  --hidden-size 64\n");
  EXPECT_EQ(escaped.rfind("args.txt:2:1: the command ends on this line: its last backslash "
                          "escapes the blank after it",
                          0),
            0u)
      << escaped;
  EXPECT_NE(escaped.find("bash runs line 3 (--hidden-size ...)"), std::string::npos) << escaped;
  const std::string commented = import_error(
      "torchrun --nproc_per_node 8 pretrain_gpt.py \\\n  --num-layers 2 \\\n"
      "  # --fp16 \\\n  --hidden-size 64\n");
  EXPECT_EQ(commented.rfind("args.txt:3:1: the command ends on this line: a comment runs to the "
                            "end of the line",
                            0),
            0u)
      << commented;
  // `elif [ ... ] then` without its ";": bash stops with a syntax error before anything runs.
  const std::string then = import_error(
      "if [ $SIZE -eq 1 ]; then\n  L=2\nelif [ $SIZE -eq 2 ] then\n"
      "  L=4\nfi\n" +
      launch(small_model));
  EXPECT_EQ(then.rfind("args.txt:3:1: elif ... then without a \";\" before then", 0), 0u) << then;
  // A launch that ends before a command that is not an option is no cut.
  import_ok(launch(small_model) + "echo done  # --fp16 \\\n--fp16\n");
}

// An argument string built before the variables it uses are set: bash expands them to nothing
// there, the flag is left without its value and Megatron's parser stops. Refused where the
// variable is written in the string; `X=$X` (the environment's value) and a function's body
// (run when called) are no such use.
TEST(ImportMegatron, AVariableExpandedBeforeTheScriptSetsItIsRefusedWhereItIsExpanded) {
  const std::string early = import_error(
      "ARGS=\"--num-layers 2 \\\n --hidden-size ${HIDDEN} --num-attention-heads 4\"\n"
      "HIDDEN=64\n"
      "torchrun --nproc_per_node 8 pretrain_gpt.py $ARGS --max-position-embeddings 128 "
      "--seq-length 128 --tokenizer-type GPT2BPETokenizer\n");
  EXPECT_EQ(early.rfind("args.txt:2:16: --hidden-size (line 2) takes $HIDDEN: HIDDEN is expanded "
                        "here, before the script sets it (line 3)",
                        0),
            0u)
      << early;
  const std::string environment =
      import_error("HIDDEN=$HIDDEN\n" + launch("--num-layers 2 --hidden-size $HIDDEN\n"));
  EXPECT_EQ(environment.find("before the script sets it"), std::string::npos) << environment;
  const std::string function = import_error(
      "run() {\n  torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 2 --hidden-size $H\n}\n"
      "H=64\nrun\n");
  EXPECT_EQ(function.find("before the script sets it"), std::string::npos) << function;
}

// --spec of a module other than Megatron-LM's GPT layer specs builds other layers.
TEST(ImportMegatron, ALayerSpecOutsideTheGptSpecsIsRefusedThere) {
  const std::string message =
      import_error(launch(small_model + "--spec megatron.core.models.samba.specs samba_spec\n"));
  EXPECT_NE(message.find("args.txt:4:1: --spec megatron.core.models.samba.specs samba_spec:"),
            std::string::npos)
      << message;
  import_ok(launch(small_model + "--spec megatron.core.models.gpt.gpt_layer_specs "
                                 "get_gpt_layer_local_spec\n"));
  // A function of that module named for a layer of a fork's own.
  const std::string fork = import_error(
      launch(small_model +
             "--spec megatron.core.models.gpt.gpt_layer_specs get_gpt_layer_semigroup_spec\n"));
  EXPECT_NE(fork.find("args.txt:4:1: --spec megatron.core.models.gpt.gpt_layer_specs "
                      "get_gpt_layer_semigroup_spec:"),
            std::string::npos)
      << fork;
}

// MindSpeed-LLM's qwen3_spec builds Megatron-LM's own TransformerLayer (SelfAttention, q/k norms
// from --qk-layernorm, the MLP of _get_mlp_module_spec): the GPT layer of the arguments. Its
// deepseek_spec builds multi-latent attention, another layer.
TEST(ImportMegatron, AForkSpecOfMegatronsOwnGptLayerIsPlanned) {
  const auto job = import_ok(
      launch(small_model + "--spec mindspeed_llm.tasks.models.spec.qwen3_spec layer_spec\n"));
  EXPECT_EQ(key_of(job.job, "n_layer"), "2");
  const std::string mla = import_error(
      launch(small_model + "--spec mindspeed_llm.tasks.models.spec.deepseek_spec layer_spec\n"));
  EXPECT_NE(mla.find("args.txt:4:1: --spec mindspeed_llm.tasks.models.spec.deepseek_spec"),
            std::string::npos)
      << mla;
}

// A comment inside a double-quoted argument string is text: its words reach pretrain_gpt.py,
// whose parser stops at them. Located where the comment is written, inside the string.
TEST(ImportMegatron, ACommentInsideAQuotedArgumentStringIsAnArgument) {
  const std::string message = import_error(
      "ARGS=\"--num-layers 2 --hidden-size 64 \\\n\n    # the heads\n    --num-attention-heads "
      "4\"\n"
      "torchrun pretrain_gpt.py $ARGS --max-position-embeddings 128 --seq-length 128 "
      "--tokenizer-type GPT2BPETokenizer\n");
  EXPECT_NE(message.find("args.txt:3:5: \"#\" reaches pretrain_gpt.py as an argument"),
            std::string::npos)
      << message;
  // Outside the string it is a comment.
  import_ok(
      "ARGS=\"--num-layers 2 --hidden-size 64 --num-attention-heads 4\"\n# the heads\n"
      "torchrun pretrain_gpt.py $ARGS --max-position-embeddings 128 --seq-length 128 "
      "--tokenizer-type GPT2BPETokenizer\n");
}

// An underscore flag among dashed ones is not Megatron-LLM's spelling: argparse matches option
// strings as written, so --checkpoint_activations is no --checkpoint-activations.
TEST(ImportMegatron, AnUnderscoreFlagInADashedLaunchIsUnknown) {
  const auto job =
      import_ok(launch(small_model + "--micro-batch-size 1 --checkpoint_activations\n"));
  EXPECT_EQ(job.job.training.activation_checkpointing, checkpointing::none);
  EXPECT_NE(find_note(job.notes, "unknown option \"--checkpoint_activations\""), "");
  const auto dashed =
      import_ok(launch(small_model + "--micro-batch-size 1 --checkpoint-activations\n"));
  EXPECT_EQ(dashed.job.training.activation_checkpointing, checkpointing::full);
}

// A variable the script never sets, taken by several arguments, is refused where it is first
// used: --seq-length $SEQ on the line before --max-position-embeddings $SEQ.
TEST(ImportMegatron, AnUnsetVariableIsRefusedWhereItIsFirstUsed) {
  const std::string message = import_error(
      launch("--num-layers 2 --hidden-size 64 --num-attention-heads 4\n--seq-length $SEQ\n"
             "--max-position-embeddings $SEQ --tokenizer-type GPT2BPETokenizer\n"));
  EXPECT_EQ(message.rfind("args.txt:3:1: --seq-length: \"$SEQ\" uses a variable", 0), 0u)
      << message;
  EXPECT_NE(message.find("--max-position-embeddings (line 4) takes it too"), std::string::npos)
      << message;
}

TEST(ImportMegatron, DetectsArgumentListsAndLaunchScripts) {
  EXPECT_EQ(detect_format("--num-layers 2 --hidden-size 8\n"), config_format::megatron);
  EXPECT_EQ(detect_format("torchrun pretrain_gpt.py ${ARGS[@]}\n"), config_format::megatron);
  EXPECT_EQ(detect_format("# --num-layers 2\n"), config_format::unknown);
  EXPECT_EQ(detect_format("[model]\n# --num-layers 2\n"), config_format::torchtitan);
  EXPECT_EQ(detect_format("distributed_type: FSDP\n"), config_format::accelerate);
}

// NullTokenizer --vocab-size N: N ids from Megatron-LM core_v0.18 (c9dfe347), the release the
// importer reads flags at, noted with the N + 1 (the end-of-document token after them) of
// releases up to core_v0.17; then padded to 128 x TP.
TEST(ImportMegatron, NullTokenizerCountsItsEndOfDocumentTokenByRelease) {
  const std::string model =
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128\n"
      "--seq-length 128 --tokenizer-type NullTokenizer --tensor-model-parallel-size 2\n";
  const auto plain = import_ok(launch(model + "--vocab-size 32000\n"));
  EXPECT_EQ(key_of(plain.job, "vocab_size"), "32000");
  EXPECT_NE(find_note(plain.notes, "up to core_v0.17 it added one after them, 32001 ids"), "");
  const auto newer = import_ok(launch(model + "--vocab-size 32000 --null-tokenizer-pad-id 0\n"));
  EXPECT_EQ(key_of(newer.job, "vocab_size"), "32000");
  const auto padded = import_ok(launch(model + "--vocab-size 128300\n"));
  EXPECT_EQ(key_of(padded.job, "vocab_size"), "128512");  // padded to a multiple of 256
}

// A tokenizer whose path names its family: LLaMA 1 / Llama 2's SentencePiece model (32,000 pieces)
// for the types that count pieces or Hugging Face entries, Llama 3's 128,256 for Megatron's
// Llama3Tokenizer and the types that count len(tokenizer), BLOOM's 250,680 for
// the Hugging Face types; a path that names no family, or a type that adds tokens of its own, is
// still refused. A BPE file named for its size gives that size.
TEST(ImportMegatron, ATokenizerNamedForItsFamilyHasThatFamilysVocabulary) {
  const std::string model =
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128\n"
      "--seq-length 128 --tensor-model-parallel-size 2\n";
  const auto llama2 = import_ok(launch(
      model +
      "--tokenizer-type Llama2Tokenizer --tokenizer-model /ckpt/Llama-2-13b-hf/tokenizer.model\n"));
  EXPECT_EQ(key_of(llama2.job, "vocab_size"), "32000");
  EXPECT_NE(find_note(llama2.notes, "that family's tokenizer, 32000 entries"), "");
  const auto llama1 =
      import_ok(launch(model + "--tokenizer-type GPTSentencePieceTokenizer --tokenizer-model "
                               "dataset/llama-7b/tokenizer.model\n"));
  EXPECT_EQ(key_of(llama1.job, "vocab_size"), "32000");
  const auto llama3 = import_ok(launch(model + "--tokenizer-type Llama3Tokenizer --tokenizer-model "
                                               "/m/Meta-Llama-3-8B/original/tokenizer.model\n"));
  EXPECT_EQ(key_of(llama3.job, "vocab_size"), "128256");
  // A word the script leaves unset after the path does not hide it.
  const auto trailing =
      import_ok(launch(model + "--tokenizer-type Llama3Tokenizer --tokenizer-model "
                               "/w/llama3-8b/original/tokenizer.model $MOE_ARGS\n"));
  EXPECT_EQ(key_of(trailing.job, "vocab_size"), "128256");
  const auto bloom = import_ok(launch(
      model + "--tokenizer-type PretrainedFromHF --tokenizer-name-or-path bigscience/bloomz\n"));
  EXPECT_EQ(key_of(bloom.job, "vocab_size"), "250880");  // 250,680 padded to 128 x 2
  // The BigCode fork's TokenizerFromFile with the StarCoder tokenizer: 49,152.
  const auto starcoder =
      import_ok(launch(model + "--tokenizer-type TokenizerFromFile --tokenizer-file "
                               "/fsx/starcoder-tokenizer/15b/tokenizer.json\n"));
  EXPECT_EQ(key_of(starcoder.job, "vocab_size"), "49152");
  // Mistral 7B's first releases and Mixtral 8x7B: 32,000 pieces; v0.3's larger one is not guessed.
  const auto mistral = import_ok(
      launch(model + "--tokenizer-type HuggingFaceTokenizer --tokenizer-model /tok/mistral-7b\n"));
  EXPECT_EQ(key_of(mistral.job, "vocab_size"), "32000");
  import_error(launch(model + "--tokenizer-type HuggingFaceTokenizer --tokenizer-model "
                              "/tok/Mistral-7B-v0.3\n"));
  // BigScience's PretrainedFromHF counts len(tokenizer): Llama 3's special tokens included; a
  // folder named for GPT-2 (any of its sizes) holds GPT-2's 50,257 entries.
  const auto auto_llama3 =
      import_ok(launch(model + "--tokenizer-type PretrainedFromHF --tokenizer-name-or-path "
                               "/data/models/Meta-Llama-3.1-8B\n"));
  EXPECT_EQ(key_of(auto_llama3.job, "vocab_size"), "128256");
  const auto gpt2_folder = import_ok(launch(
      model + "--tokenizer-type PretrainedFromHF --tokenizer-name-or-path /data/models/GPT2\n"));
  EXPECT_EQ(key_of(gpt2_folder.job, "vocab_size"), "50432");  // 50,257 padded to 128 x 2
  import_error(launch(model + "--tokenizer-type PretrainedFromHF --tokenizer-name-or-path "
                              "/data/gpt2-runs/my-tokenizer\n"));
  // Megatron-LM's HuggingFaceTokenizer counts len(tokenizer), Megatron-DeepSpeed's HFTokenizer
  // the Hugging Face vocab_size (Llama 3: 128,000 without its 256 special tokens).
  const auto hf = import_ok(launch(
      model +
      "--tokenizer-type HuggingFaceTokenizer --tokenizer-model meta-llama/Meta-Llama-3-8B\n"));
  EXPECT_EQ(key_of(hf.job, "vocab_size"), "128256");
  const auto mds =
      import_ok(launch(model + "--tokenizer-type HFTokenizer --tokenizer-model /m/llama31-8b\n"));
  EXPECT_EQ(key_of(mds.job, "vocab_size"), "128000");
  EXPECT_NE(
      refusal(
          launch(
              model +
              "--tokenizer-type Llama2Tokenizer --tokenizer-model llm-jp-tokenizer-100k.model\n"))
          .find("its vocabulary size is in the tokenizer's files"),
      std::string::npos);
  EXPECT_NE(
      refusal(
          launch(
              model +
              "--tokenizer-type SentencePieceTokenizer --tokenizer-model llama2/tokenizer.model\n"))
          .find("its vocabulary size is in the tokenizer's files"),
      std::string::npos);
  const auto sized = import_ok(
      launch(model + "--vocab-file /t/nordic_tokenizer_131072/vocab.json --merge-file /t/m.txt\n"));
  EXPECT_EQ(key_of(sized.job, "vocab_size"), "131072");
  const auto gpt2 = import_ok(
      launch(model + "--vocab-file /t/gpt2-vocab.json --merge-file /t/gpt2-merges.txt\n"));
  EXPECT_EQ(key_of(gpt2.job, "vocab_size"), "50432");
}

// Grid Engine's `#$ -l rt_AF=N` (ABCI's full-node resource) is the job's NHOSTS and
// SGE_RESOURCE_TYPE; Open MPI's `mpirun -x NAME=VALUE` is the processes' environment.
TEST(ImportMegatron, GridEngineNodesAndMpirunsEnvironment) {
  const auto job = import_ok(
      "#!/bin/bash\n#$ -l rt_AF=4\n#$ -l h_rt=1:00:00\n"
      "if [[ \"$SGE_RESOURCE_TYPE\" == \"rt_AF\" ]]; then\n  GPUS_A_NODE=8\nelse\n  "
      "GPUS_A_NODE=4\nfi\n"
      "NUM_GPUS=$((NHOSTS * GPUS_A_NODE))\n"
      "mpirun -np $NUM_GPUS -npernode $GPUS_A_NODE -x CUDA_DEVICE_MAX_CONNECTIONS=1 -x PATH "
      "python pretrain_gpt.py " +
      small_model.substr(0, small_model.size() - 1) + "\n");
  EXPECT_EQ(job.job.hardware.gpus_per_node, 8);
  EXPECT_EQ(job.job.hardware.nodes, 4);
  EXPECT_EQ(job.job.env.at("CUDA_DEVICE_MAX_CONNECTIONS"), "1");
  EXPECT_EQ(job.job.env.count("PATH"), 0u);
}

// Megatron-DeepSpeed with the DeepSpeed JSON chosen by the caller (`--deepspeed_config $1`) and no
// --zero-stage: the ZeRO stage and offload are that file's, refused where the path is set.
TEST(ImportMegatron, ADeepSpeedConfigChosenWhenTheScriptRunsIsRefused) {
  const std::string error =
      import_error("cfg_path=\"$1\"\nds_args=\"--deepspeed --deepspeed_config ${cfg_path}\"\n" +
                   launch(small_model + "${ds_args}\n"));
  EXPECT_NE(error.find("--deepspeed_config \"$1\" is chosen when the script runs"),
            std::string::npos)
      << error;
  // With --zero-stage the stage is the launch's.
  import_ok(launch(small_model + "--deepspeed --deepspeed_config $1 --zero-stage 1\n"));
}

// Megatron-DeepSpeed's DeepSpeed-MoE: experts in every --expert-interval-th layer (default 2),
// its gate's --topk (default 1), GeLU experts planned as SwiGLU ones of two thirds the width (the
// same weights); PR-MoE's residual MLP is refused at --mlp-type.
TEST(ImportMegatron, DeepSpeedMoeLayersGateAndResidualMlp) {
  const std::string model =
      "--num-layers 4 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128\n"
      "--seq-length 128 --tokenizer-type GPT2BPETokenizer --num-experts 4 "
      "--moe-expert-parallel-size 2\n";
  const auto moe = import_ok(launch(model + "--deepspeed --zero-stage 1\n"));
  EXPECT_EQ(key_of(moe.job, "mlp_only_layers"), "[0,2]");
  EXPECT_EQ(key_of(moe.job, "num_experts_per_tok"), "1");
  EXPECT_EQ(key_of(moe.job, "moe_intermediate_size"), "171");  // 4 x 64 x 2/3
  EXPECT_NE(find_note(moe.notes, "every second layer (2 of 4"), "");
  const auto every = import_ok(launch(model + "--deepspeed --expert-interval 1 --topk 2\n"));
  EXPECT_EQ(key_of(every.job, "mlp_only_layers"), "");
  EXPECT_EQ(key_of(every.job, "num_experts_per_tok"), "2");
  const std::string residual = import_error(launch(model + "--deepspeed --mlp-type residual\n"));
  EXPECT_NE(residual.find("--mlp-type residual: PR-MoE's residual MLP"), std::string::npos)
      << residual;
}

// DeepSpeedExamples' 3D example (2021): --pipe-parallel-size (0 without pipelining) and --gas,
// the micro-batches a pipelined step runs.
TEST(ImportMegatron, DeepSpeedExamplesPipeParallelSizeAndGas) {
  const std::string model =
      "--num-layers 4 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128\n"
      "--seq-length 128 --model-parallel-size 2 --batch-size 2 --gas 8\n";
  const auto piped = import_ok(launch(model + "--pipe-parallel-size 2\n"));
  EXPECT_EQ(piped.job.parallel.pp, 2);
  EXPECT_EQ(piped.job.training.gradient_accumulation, 8);
  const auto flat = import_ok(launch(model + "--pipe-parallel-size 0\n"));
  EXPECT_EQ(flat.job.parallel.pp, 1);
  EXPECT_EQ(flat.job.training.gradient_accumulation, 1);  // --gas is read by the pipeline only
}

// srun starting a wrapper (a container's launch script) once per task, each task a GPU of the
// allocation: the GPUs are #SBATCH's tasks a node x nodes (one task of the node's one GPU
// included). Without a task a GPU it is not read.
TEST(ImportMegatron, SrunTasksThatEachHoldAGpuThroughAWrapper) {
  const std::string body = "CMD=\"pretrain_gpt.py " +
                           small_model.substr(0, small_model.size() - 1) +
                           "\"\nsrun --label singularity exec -B /w image.sif ./launch.sh $CMD\n";
  const auto job = import_ok(
      "#!/bin/bash\n#SBATCH --nodes=16\n#SBATCH --ntasks-per-node=8\n"
      "#SBATCH --gpus-per-node=mi250:8\n" +
      body);
  EXPECT_EQ(job.job.hardware.gpus_per_node, 8);
  EXPECT_EQ(job.job.hardware.nodes, 16);
  const auto one_task = import_ok(
      "#!/bin/bash\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n"
      "#SBATCH --gpus-per-node=8\n" +
      body);
  EXPECT_NE(find_note(one_task.notes, "srun is not torchrun"), "");
  // One task holding the node's one GPU: one GPU a node.
  const auto one_gpu = import_ok(
      "#!/bin/bash\n#SBATCH --nodes=1\n#SBATCH --ntasks-per-node=1   #4\n"
      "#SBATCH --gpus-per-node=1\n" +
      body);
  EXPECT_EQ(one_gpu.job.hardware.gpus_per_node, 1);
  EXPECT_EQ(one_gpu.job.hardware.nodes, 1);
}

// GPT2BPETokenizer (named or pretrain_gpt.py's default) is as long as its vocabulary file:
// another family's files are refused where they are given, GPT-2's are 50,257 tokens.
TEST(ImportMegatron, AnotherFamilysBpeFilesAreRefusedAtTheirLine) {
  const std::string model =
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128\n"
      "--seq-length 128\n";
  const std::string error =
      import_error(launch(model + "--vocab-file /data/gpt-neox-20b/vocab.json\n"
                                  "--merge-file /data/gpt-neox-20b/merges.txt\n"));
  EXPECT_NE(error.find("args.txt:4:"), std::string::npos) << error;
  EXPECT_NE(error.find("neox's tokenizer"), std::string::npos) << error;
  EXPECT_NE(error.find("add --padded-vocab-size N"), std::string::npos) << error;
  const auto gpt2 = import_ok(launch(model + "--vocab-file /data/gpt2-vocab.json\n"
                                             "--merge-file /data/gpt2-merges.txt\n"));
  EXPECT_EQ(key_of(gpt2.job, "vocab_size"), "50304");
  const auto padded =
      import_ok(launch(model + "--vocab-file /data/llama/vocab.json --merge-file "
                               "/data/llama/merges.txt --padded-vocab-size 32000\n"));
  EXPECT_EQ(key_of(padded.job, "vocab_size"), "32000");
}

// A value the script computes when it runs is refused where it is set (and what derives from it
// there), not where the launch uses it; so is an argument the script is given (`TP=$2`), where
// the script takes it.
TEST(ImportMegatron, RunTimeValuesAreRefusedWhereTheyAreSet) {
  const std::string script =
      "GPUS=$(nvidia-smi --list-gpus | wc -l)\n"
      "PP=$(( $GPUS * 1 ))\n"
      "LAYERS=$(( $PP * 4 ))\n"
      "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers $LAYERS --hidden-size 64 \\\n"
      "  --num-attention-heads 4 --max-position-embeddings 128 --seq-length 128\n";
  const std::string error = import_error(script);
  EXPECT_EQ(error.rfind("args.txt:3:1: --num-layers (line 4):", 0), 0u) << error;
  EXPECT_NE(error.find("LAYERS is set here to"), std::string::npos) << error;
  EXPECT_NE(error.find("write the number into the script"), std::string::npos) << error;
  // A GPU count the script probes is assumed instead (AGpuCountProbedAtRunTimeIsAssumed).
  const std::string gpus = import_error(
      "GPUS=$(( $(nvidia-smi --list-gpus | wc -l) / 2 ))\n"
      "torchrun --nproc_per_node $GPUS pretrain_gpt.py --num-layers 2 --hidden-size 64 \\\n"
      "  --num-attention-heads 4 --max-position-embeddings 128 --seq-length 128\n");
  EXPECT_EQ(gpus.rfind("args.txt:1:1: torchrun --nproc_per_node (line 2):", 0), 0u) << gpus;
  const std::string argument = import_error(
      "TP=$2\n"
      "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 2 --hidden-size 64 \\\n"
      "  --num-attention-heads 4 --max-position-embeddings 128 --seq-length 128 \\\n"
      "  --tensor-model-parallel-size $TP\n");
  EXPECT_EQ(argument.rfind("args.txt:1:1: --tensor-model-parallel-size (line 4):", 0), 0u)
      << argument;
  EXPECT_NE(argument.find("an argument the script is given when it runs"), std::string::npos)
      << argument;
  // The older form of a command's output, `command`, with blanks and quotes inside it, is one
  // run-time value as well, set where it is assigned (whether or not the assignment is quoted).
  for (const std::string assignment : {"GPUS=`python3 -c \"import torch; print(1)\"`\n",
                                       "GPUS=\"`nproc`\"\n"}) {
    const std::string backquoted = import_error(
        assignment +
        "torchrun --nproc_per_node $GPUS pretrain_gpt.py --num-layers 2 --hidden-size 64 \\\n"
        "  --num-attention-heads 4 --max-position-embeddings 128 --seq-length 128\n");
    EXPECT_EQ(backquoted.rfind("args.txt:1:1: torchrun --nproc_per_node (line 2):", 0), 0u) << backquoted;
    EXPECT_NE(backquoted.find("known only when the script runs"), std::string::npos) << backquoted;
  }
  const std::string open = import_error("X=`nproc\ntorchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 2\n");
  EXPECT_NE(open.find("args.txt:1:3: backquote (`) opened here is never closed"), std::string::npos) << open;
}

TEST(ImportMegatron, MapsTheGpt3Example) {
  auto imported = import_config(example("megatron-gpt3-175b.sh"));
  ASSERT_TRUE(imported) << imported.error().to_string();
  const job_spec& job = imported->job;
  EXPECT_EQ(imported->format, "megatron");
  EXPECT_EQ(job.parallel.kind, strategy::megatron);
  EXPECT_EQ(job.parallel.tp, 8);
  EXPECT_EQ(job.parallel.pp, 16);
  EXPECT_EQ(job.parallel.pp_sched, pp_schedule::one_f_one_b);
  EXPECT_EQ(job.parallel.dp_shard, 8);
  EXPECT_TRUE(job.parallel.sequence_parallel);
  EXPECT_TRUE(job.parallel.distributed_optimizer);
  EXPECT_EQ(job.hardware.nodes, 128);
  EXPECT_EQ(job.hardware.gpus_per_node, 8);
  EXPECT_EQ(job.training.micro_batch, 1u);
  EXPECT_EQ(job.training.gradient_accumulation, 192);  // 1536 / (1 x 8)
  EXPECT_EQ(job.training.seq_len, 2048u);
  EXPECT_EQ(job.training.activation_checkpointing, checkpointing::full);
  EXPECT_EQ(job.precision.params, dtype::bf16);
  EXPECT_EQ(job.precision.reduce, dtype::f32);
  EXPECT_EQ(job.precision.master, dtype::f32);
  EXPECT_EQ(job.optimizer.kind, optimizer_kind::adamw);  // Megatron's adam is AdamW (FusedAdam)
  EXPECT_EQ(job.env_value("TORCH_NCCL_AVOID_RECORD_STREAMS"), "1");
  EXPECT_EQ(key_of(job, "model_type"), "\"gpt2\"");
  EXPECT_EQ(key_of(job, "vocab_size"), "51200");           // 50257 padded to a multiple of 128 x 8
  EXPECT_EQ(key_of(job, "tie_word_embeddings"), "false");  // the last stage's own copy
  // Nothing that matters is left unmodelled or unknown.
  EXPECT_EQ(find_note(imported->notes, "does not model"), "");
  EXPECT_EQ(find_note(imported->notes, "unknown option"), "");
  EXPECT_NE(find_note(imported->no_effect, "\"--overlap-grad-reduce\""), "");
}

TEST(ImportMegatron, MapsTheLlamaExample) {
  auto imported = import_config(example("megatron-llama2-7b.sh"));
  ASSERT_TRUE(imported) << imported.error().to_string();
  const job_spec& job = imported->job;
  EXPECT_EQ(job.parallel.tp, 2);
  EXPECT_EQ(job.parallel.pp, 1);
  EXPECT_EQ(job.parallel.dp_shard, 4);
  EXPECT_EQ(job.training.gradient_accumulation, 32);  // 128 / (1 x 4)
  EXPECT_EQ(job.training.attention, attention_impl::flash);
  EXPECT_EQ(key_of(job, "model_type"), "\"llama\"");
  EXPECT_EQ(parameters_of(job), 6'738'415'616u);  // Llama-2-7B's published count
  EXPECT_EQ(find_note(imported->notes, "does not model"), "");
  EXPECT_EQ(find_note(imported->notes, "unknown option"), "");
}

// Mixtral 8x7B with its experts over 8 expert-parallel ranks and a capacity of 1.25: the
// published parameter count, and nothing noted as unmodelled or unknown.
TEST(ImportMegatron, MapsTheMixtralExample) {
  auto imported = import_config(example("megatron-mixtral-8x7b-ep.sh"));
  ASSERT_TRUE(imported) << imported.error().to_string();
  const job_spec& job = imported->job;
  EXPECT_EQ(job.world_size(), 32);
  EXPECT_EQ(job.parallel.pp, 4);
  EXPECT_EQ(job.parallel.ep, 8);
  EXPECT_EQ(job.parallel.dp_shard, 8);
  EXPECT_EQ(job.training.gradient_accumulation, 32);  // 256 / (1 x 8)
  ASSERT_TRUE(job.training.moe_capacity_factor.has_value());
  EXPECT_DOUBLE_EQ(*job.training.moe_capacity_factor, 1.25);
  EXPECT_EQ(key_of(job, "model_type"), "\"mixtral\"");
  EXPECT_EQ(parameters_of(job), 46'702'792'704u);  // Mixtral-8x7B's published count
  EXPECT_EQ(find_note(imported->notes, "does not model"), "");
  EXPECT_EQ(find_note(imported->notes, "not modelled"), "");
  EXPECT_EQ(find_note(imported->notes, "unknown option"), "");
}

TEST(ImportMegatron, Gpt3ShapesGiveAbout175BParameters) {
  // Tied embeddings without a pipeline: 96 x (12 h^2 + 13 h) + (51200 + 2048 + 2) h.
  const auto imported = import_ok(
      "--num-layers 96 --hidden-size 12288 --num-attention-heads 96 --seq-length 2048\n"
      "--max-position-embeddings 2048 --tokenizer-type GPT2BPETokenizer\n"
      "--tensor-model-parallel-size 8\n");
  EXPECT_EQ(parameters_of(imported.job), 174'615'846'912u);
}

// A launch that names its entry script only by a variable gives no default tokenizer, but a
// --merge-file beside --vocab-file is GPT-2's BPE, the one tokenizer that reads merges.
TEST(ImportMegatron, MergesFileOfAnUnnamedScriptIsGpt2Bpe) {
  const std::string model =
      "S=$2\nARGS=(\n  --num-layers 2 --hidden-size 64 --num-attention-heads 4\n"
      "  --max-position-embeddings 128 --seq-length 128 --vocab-file v.json";
  const std::string run = "\n)\ntorchrun --nproc_per_node 8 ${S} ${ARGS[@]}\n";
  const imported_job merged = import_ok(model + " --merge-file m.txt" + run);
  EXPECT_NE(find_note(merged.notes, "GPT-2's BPE files, read only by GPT2BPETokenizer"), "");
  const std::string without = refusal(model + run);
  EXPECT_NE(without.find("neither --tokenizer-type nor --vocab-size"), std::string::npos)
      << without;
}

TEST(ImportMegatron, ErrorsNameTheLineAndFlag) {
  EXPECT_EQ(import_error(small_model + "--micro-batch-size two\n"),
            "args.txt:3:1: --micro-batch-size: expected a whole number of at least 1, got \"two\"; "
            "write the number there to plan it\n"
            "--micro-batch-size two\n"
            "^ near here");
  EXPECT_EQ(
      import_error("N=\ntorchrun --nproc_per_node 8 pretrain_gpt.py \\\n  --num-layers $LAYERS\n"),
      "args.txt:3:3: --num-layers: \"$LAYERS\" uses a variable or command the script does "
      "not set; write the number\n"
      "  --num-layers $LAYERS\n"
      "  ^ near here");
  // A value written over several lines (a command substitution in a -c string) is quoted on one
  // line, and a long one shortened.
  const std::string spread = import_error(
      "bash -c 'torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers \"2 $(echo \\\n"
      "    --one \\\n    --two)\" --hidden-size 64'\n");
  EXPECT_NE(spread.find("--num-layers: \"2 $(echo --one --two)\" uses a variable"),
            std::string::npos)
      << spread;
  const std::string long_value =
      import_error("torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers \"$(" +
                   std::string(100, 'x') + ")\"\n");
  EXPECT_NE(long_value.find("--num-layers: \"$(" + std::string(75, 'x') + "...\" uses"),
            std::string::npos)
      << long_value;
  EXPECT_EQ(import_error("torchrun --nnodes x pretrain_gpt.py --num-layers 1\n"),
            "args.txt:1:10: torchrun --nnodes: expected a whole number of at least 1, got \"x\"; "
            "write the number there to plan it\n"
            "torchrun --nnodes x pretrain_gpt.py --num-layers 1\n"
            "         ^ near here");
}

TEST(ImportMegatron, GlobalBatchMustDivide) {
  EXPECT_EQ(import_error(launch(
                small_model +
                "--tensor-model-parallel-size 2 --micro-batch-size 2 --global-batch-size 20\n")),
            "args.txt:4:53: --global-batch-size 20 is not divisible by --micro-batch-size 2 x "
            "data-parallel size 4 (the world / (tp 2 x pp 1 x cp 1)), which Megatron refuses; "
            "give a global batch that is a multiple of 8 to plan it\n"
            "--tensor-model-parallel-size 2 --micro-batch-size 2 --global-batch-size 20\n"
            "                                                    ^ near here");
}

// Megatron-LM of 2020 (arguments.py before 52a5f2f and 9019bbf): --model-parallel-size is the
// tensor-parallel degree, --batch-size the micro batch and --num-microbatches-in-minibatch the
// micro-batches of a step.
TEST(ImportMegatron, ReadsTheFlagNamesOf2020) {
  const imported_job april = import_ok(launch(small_model + "--model-parallel-size 2 --batch-size 8\n"));
  EXPECT_EQ(april.job.parallel.tp, 2);
  EXPECT_EQ(april.job.training.micro_batch, 8);
  EXPECT_EQ(april.job.training.gradient_accumulation, 1);
  const imported_job november = import_ok(launch(
      small_model + "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 "
                    "--batch-size 4 --num-microbatches-in-minibatch 3\n"));
  EXPECT_EQ(november.job.parallel.tp, 2);
  EXPECT_EQ(november.job.training.micro_batch, 4);
  EXPECT_EQ(november.job.training.gradient_accumulation, 3);
  EXPECT_EQ(find_note(november.notes, "unknown option"), "");
  // Today's names win where both are written.
  const imported_job both =
      import_ok(launch(small_model + "--micro-batch-size 2 --batch-size 8 --global-batch-size 32\n"));
  EXPECT_EQ(both.job.training.micro_batch, 2);
  EXPECT_EQ(both.job.training.gradient_accumulation, 2);
  EXPECT_NE(find_note(both.notes, "--batch-size is Megatron-LM's name"), "");
  const std::string zero = import_error(launch(small_model + "--batch-size 0\n"));
  EXPECT_EQ(zero.substr(0, zero.find('\n')),
            "args.txt:4:1: --batch-size: expected a whole number of at least 1, got \"0\"; write "
            "the number there to plan it");
}

// Megatron-LM 2.6 (2021-08) named --recompute-method and --recompute-num-layers
// --activations-checkpoint-method and --activations-checkpoint-num-layers, under
// --checkpoint-activations: block recompute of 1 of a stage's 2 layers is the first of each.
TEST(ImportMegatron, ReadsTheRecomputeNamesOf2021) {
  const imported_job imported = import_ok(launch(
      small_model + "--checkpoint-activations --activations-checkpoint-method block "
                    "--activations-checkpoint-num-layers 1 --fp32-allreduce\n"));
  EXPECT_EQ(imported.job.training.activation_checkpointing, checkpointing::full);
  EXPECT_EQ(imported.job.training.checkpoint_blocks, 1);
  EXPECT_NE(find_note(imported.notes, "Megatron-LM 2.6's name of --recompute-method"), "");
  EXPECT_NE(find_note(imported.notes, "\"--fp32-allreduce\" changes memory"), "");
  EXPECT_EQ(find_note(imported.notes, "unknown option"), "");
  // Without --checkpoint-activations a method alone recomputes too (those releases checkpoint
  // whenever activations_checkpoint_method is set): uniform is full recompute.
  const imported_job uniform =
      import_ok(launch(small_model + "--activations-checkpoint-method uniform\n"));
  EXPECT_EQ(uniform.job.training.activation_checkpointing, checkpointing::full);
}

// The commit that renamed the 2.6 flags added --sequence-parallel: no release takes both.
TEST(ImportMegatron, TheRecomputeNamesOf2021BesideSequenceParallelAreNoRelease) {
  const std::string message =
      import_error(launch(small_model + "--tensor-model-parallel-size 2 --sequence-parallel\n"
                                        "--activations-checkpoint-method uniform\n"));
  EXPECT_NE(message.find("args.txt:5:1: --activations-checkpoint-method is Megatron-LM 2.6's, "
                         "renamed --recompute-method when --sequence-parallel (line 4) came"),
            std::string::npos)
      << message;
}

// GPT2BPETokenizer, named or pretrain_gpt.py's default, stops without a merges file.
TEST(ImportMegatron, AVocabularyWithoutMergesStopsGpt2sTokenizer) {
  const std::string model =
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128\n"
      "--seq-length 128\n";
  const std::string fallback = import_error(launch(model + "--vocab-file /data/ja_bpe.txt\n"));
  EXPECT_NE(fallback.find("args.txt:4:1: --vocab-file without --merge-file: pretrain_gpt.py's "
                          "default tokenizer is GPT2BPETokenizer"),
            std::string::npos)
      << fallback;
  const std::string named = import_error(
      launch(model + "--tokenizer-type GPT2BPETokenizer\n--vocab-file /data/gpt2-vocab.json\n"));
  EXPECT_NE(named.find("args.txt:5:1: --vocab-file without --merge-file: the tokenizer is"),
            std::string::npos)
      << named;
}

// torchrun's flags that reach the command through a string run by `bash -c` are located where
// the script writes them (swiss-ai's submit-llama3-8b.sh: TORCHRUN_ARGS=( --nproc-per-node
// $SLURM_GPUS_PER_NODE ... ), CMD="torchrun ${TORCHRUN_ARGS[@]} ...", srun bash -c "$CMD").
TEST(ImportMegatron, LauncherFlagsInAStringAreLocatedWhereWritten) {
  const std::string e = import_error(
      "RUN=(\n  --nproc-per-node $GPUS_FROM_SLURM\n  --nnodes 1\n)\n"
      "CMD=\"torchrun ${RUN[@]} pretrain_gpt.py --num-layers 2 --hidden-size 64\"\n"
      "srun bash -c \"$CMD\"\n");
  EXPECT_EQ(e.substr(0, e.find('\n')),
            "args.txt:2:3: torchrun --nproc-per-node: \"$GPUS_FROM_SLURM\" uses a variable or "
            "command the script does not set; write the number");
}

// A GPU count in a variable the script never sets, where the script sources a file vramscope
// could not read (howardchenrv's Megatron-LM scripts source a config_common.sh that sets
// GPUS_PER_NODE): the refusal names that file and how to give it.
TEST(ImportMegatron, AnUnsetCountNamesTheUnreadFileTheScriptSources) {
  const auto first_line = [](const std::string& s) { return s.substr(0, s.find('\n')); };
  const std::string e = first_line(import_error(
      "source ./cluster_env_not_here.sh\n"
      "torchrun --nproc_per_node $GPUS_PER_NODE pretrain_gpt.py \\\n"
      "  --num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128 \\\n"
      "  --seq-length 128 --tokenizer-type GPT2BPETokenizer\n"));
  EXPECT_TRUE(e.starts_with("args.txt:2:")) << e;
  EXPECT_NE(e.find("the script sources ./cluster_env_not_here.sh (line 1), which vramscope could "
                   "not read and which may set it: put that file where the script names it"),
            std::string::npos)
      << e;
  // Without a sourced file, the plain message.
  const std::string plain = first_line(import_error(
      "torchrun --nproc_per_node $GPUS_PER_NODE pretrain_gpt.py \\\n"
      "  --num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128 \\\n"
      "  --seq-length 128 --tokenizer-type GPT2BPETokenizer\n"));
  EXPECT_NE(plain.find("does not set; write the number"), std::string::npos) << plain;
}

TEST(ImportMegatron, WorldMustHoldTheModelParallelism) {
  const std::string e = import_error(launch(small_model + "--tensor-model-parallel-size 4\n", 6));
  EXPECT_EQ(e.substr(0, e.find('\n')),
            "args.txt:4:1: the world of 6 GPUs (torchrun --nproc_per_node x --nnodes) is not "
            "divisible by tensor x pipeline x context parallel sizes 4 x 1 x 1, which Megatron "
            "refuses; launch a multiple of 4 GPUs (or give smaller sizes) to plan it");
}

// srun running a per-node wrapper that is handed the training command: each task starts a
// process for each of its #SBATCH --gpus-per-task GPUs.
TEST(ImportMegatron, ASrunTaskWithItsOwnGpusStartsAProcessForEach) {
  const std::string script =
      "#SBATCH --nodes=16\n#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-task=8\n"
      "CMD=\"x/pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 4 "
      "--max-position-embeddings 128 --seq-length 128 --micro-batch-size 2 "
      "--global-batch-size $((SLURM_JOB_NUM_NODES * SLURM_GPUS_PER_TASK * 2))\"\n"
      "srun \"$(realpath run_pt_on_node.sh)\" \"$CMD\" \"$PYTHON_PATH\"\n";
  const auto j = import_ok(script);
  EXPECT_EQ(j.job.hardware.gpus_per_node, 8);
  EXPECT_EQ(j.job.hardware.nodes, 16);
  EXPECT_EQ(j.job.training.gradient_accumulation, 1);
  EXPECT_NE(find_note(j.notes,
                      "1 task(s) a node x 16 node(s), each a launcher of a process for "
                      "each of its 8 GPUs"),
            "");
  // Without --gpus-per-task the wrapper's process count is not in the file: not a GPU a node.
  std::string untold = script;
  untold.erase(untold.find("#SBATCH --gpus-per-task=8\n"), 26);
  const auto u = import_config_text(untold, "args.txt");
  if (u) {
    EXPECT_NE(u->job.hardware.nodes * u->job.hardware.gpus_per_node, 16);
  }
}

TEST(ImportMegatron, UnknownVocabularyAsksForVocabSize) {
  const std::string base =
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128\n";
  EXPECT_EQ(refusal(base + "--tokenizer-type HuggingFaceTokenizer --tokenizer-model x\n"),
            "args.txt:2:1: --tokenizer-type HuggingFaceTokenizer: its vocabulary size is in the "
            "tokenizer's files, which vramscope does not read; add --vocab-size N (the vocabulary "
            "before Megatron pads it)\n"
            "--tokenizer-type HuggingFaceTokenizer --tokenizer-model x\n"
            "^ near here");
  // The import keeps what the file fixes; only loading the model for a plan stops, at the
  // tokenizer, and a preset given instead plans the file's layout.
  imported_job kept = import_ok(base +
                                "--tokenizer-type HuggingFaceTokenizer --tokenizer-model x\n"
                                "--tensor-model-parallel-size 2\n");
  EXPECT_EQ(kept.job.parallel.tp, 2);
  EXPECT_EQ(key_of(kept.job, "vocab_size"), "null");
  EXPECT_EQ(key_of(kept.job, "num_hidden_layers").empty() && key_of(kept.job, "n_layer").empty(),
            false);
  kept.job.model_config.clear();
  kept.job.model = "llama-3.2-1b";
  EXPECT_TRUE(load_model_of(kept.job, "args.txt").has_value());
  // Beside another fact that blocks, the tokenizer is named in the import's refusal, by rank.
  const std::string two = import_error(launch(base + "--tokenizer-type HuggingFaceTokenizer\n"
                                                     "--tensor-model-parallel-size 3\n"));
  EXPECT_NE(two.find("--tokenizer-type HuggingFaceTokenizer: its vocabulary"), std::string::npos)
      << two;
  EXPECT_EQ(refusal(base).substr(0, refusal(base).find('\n')),
            "args.txt:1:1: the arguments give neither --tokenizer-type nor --vocab-size: add "
            "--vocab-size N (the tokenizer's vocabulary before Megatron pads it)");
  const auto padded = import_ok(base +
                                "--tokenizer-type NullTokenizer --vocab-size 1000\n"
                                "--tensor-model-parallel-size 2\n");
  EXPECT_EQ(key_of(padded.job, "vocab_size"), "1024");  // a multiple of 128 x 2
}

// A flag Megatron requires, missing, is named at the launch's first argument when nothing else
// keeps the launch from a plan (in a file of arguments, where the variable holding them is set).
TEST(ImportMegatron, MissingRequiredArgument) {
  const std::string e = import_error("--num-layers 2 --hidden-size 64 --num-attention-heads 4\n");
  EXPECT_EQ(e.substr(0, e.find('\n')),
            "args.txt:1:1: --max-position-embeddings is missing: Megatron requires --num-layers, "
            "--hidden-size, --num-attention-heads and --max-position-embeddings (a fork that reads "
            "them from elsewhere gives them there); add --max-position-embeddings N to the "
            "training command to plan it");
  const std::string sourced = import_error(
      "LAYERS=2\n\nMODEL_ARGS=(\n   --num-layers ${LAYERS}\n   --hidden-size 64\n"
      "   --num-attention-heads 4\n)\n");
  EXPECT_NE(sourced.find("args.txt:3:1: --max-position-embeddings is missing"), std::string::npos)
      << sourced;
}

TEST(ImportMegatron, PrecisionAndGradientBuffer) {
  const auto bf16 = import_ok(small_model + "--bf16\n").job;
  EXPECT_EQ(bf16.precision.params, dtype::bf16);
  EXPECT_EQ(bf16.precision.reduce, dtype::f32);
  const auto bf16_grads = import_ok(small_model + "--bf16 --grad-reduce-in-bf16\n").job;
  EXPECT_EQ(bf16_grads.precision.reduce, dtype::bf16);
  const auto fp16 = import_ok(small_model + "--fp16\n").job;
  EXPECT_EQ(fp16.precision.params, dtype::f16);
  EXPECT_EQ(fp16.precision.reduce, dtype::f16);
  EXPECT_EQ(fp16.precision.master, dtype::f32);
  const auto fp16_fp32 =
      import_ok(small_model + "--fp16 --accumulate-allreduce-grads-in-fp32\n").job;
  EXPECT_EQ(fp16_fp32.precision.reduce, dtype::f32);
  const auto fp32 = import_ok(small_model).job;
  EXPECT_EQ(fp32.precision.params, dtype::f32);
  EXPECT_EQ(fp32.precision.reduce, dtype::f32);
  const std::string both = import_error(small_model + "--bf16 --fp16\n");
  EXPECT_EQ(both.substr(0, both.find('\n')),
            "args.txt:3:8: --fp16 and --bf16 are both given (Megatron refuses that); keep one of "
            "them to plan it");
}

TEST(ImportMegatron, InterleavedPipeline) {
  const std::string args = small_model + "--pipeline-model-parallel-size 2 --global-batch-size 8\n";
  // 2 layers over 2 stages leave one virtual stage of one layer: plain 1F1B.
  const auto per_stage =
      import_ok(launch(args + "--num-layers-per-virtual-pipeline-stage 1\n")).job;
  EXPECT_EQ(per_stage.parallel.pp_sched, pp_schedule::one_f_one_b);
  const auto counted = import_ok(launch(args + "--virtual-pipeline-model-parallel-size 2\n"
                                               "--num-layers 4\n"))
                           .job;
  EXPECT_EQ(counted.parallel.pp_sched, pp_schedule::interleaved_1f1b);
  EXPECT_EQ(counted.parallel.pp_stages_per_rank, 2);
  EXPECT_EQ(counted.training.gradient_accumulation, 2);  // 8 / (1 x 4)
}

TEST(ImportMegatron, RecomputeGranularities) {
  const auto full = import_ok(small_model +
                              "--recompute-granularity full "
                              "--recompute-method uniform --recompute-num-layers 2\n");
  EXPECT_EQ(full.job.training.activation_checkpointing, checkpointing::full);
  EXPECT_NE(find_note(full.notes, "uniform recompute of 2-layer groups"), "");
  const auto block = import_ok(
      "--num-layers 8 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128\n"
      "--tokenizer-type GPT2BPETokenizer --recompute-granularity full --recompute-method block "
      "--recompute-num-layers 2\n");
  // Block recompute: full recompute of the first N layers of each stage, the rest kept.
  EXPECT_EQ(block.job.training.activation_checkpointing, checkpointing::full);
  EXPECT_EQ(block.job.training.checkpoint_blocks, 2);
  // Block recompute without a layer count: Megatron's default of one layer a stage.
  const auto block_one = import_ok(
      "--num-layers 8 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128\n"
      "--tokenizer-type GPT2BPETokenizer --recompute-granularity full --recompute-method block\n");
  EXPECT_EQ(block_one.job.training.checkpoint_blocks, 1);
  // As many as a stage holds, or more: every layer.
  const auto block_all = import_ok(
      "--num-layers 8 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128\n"
      "--tokenizer-type GPT2BPETokenizer --recompute-granularity full --recompute-method block "
      "--recompute-num-layers 8\n");
  EXPECT_EQ(block_all.job.training.activation_checkpointing, checkpointing::full);
  EXPECT_EQ(block_all.job.training.checkpoint_blocks, 0);
  const auto selective =
      import_ok(small_model + "--recompute-activations --attention-backend unfused\n");
  // Selective recompute is of core attention, over the kernel the script chose.
  EXPECT_EQ(selective.job.training.activation_checkpointing, checkpointing::core_attention);
  EXPECT_EQ(selective.job.training.attention, attention_impl::math);
  const auto granular = import_ok(small_model + "--recompute-granularity selective\n");
  EXPECT_EQ(granular.job.training.activation_checkpointing, checkpointing::core_attention);
  EXPECT_EQ(granular.job.training.attention, attention_impl::flash);
  // --recompute-modules without core_attn leaves the attention whole.
  const auto modules =
      import_ok(small_model + "--recompute-granularity selective --recompute-modules mlp\n");
  EXPECT_EQ(modules.job.training.activation_checkpointing, checkpointing::none);
  EXPECT_NE(find_note(modules.notes, "recomputing mlp is not modelled"), "");
  const auto with_core = import_ok(
      small_model + "--recompute-granularity selective --recompute-modules core_attn moe_act\n");
  EXPECT_EQ(with_core.job.training.activation_checkpointing, checkpointing::core_attention);
  const auto unfused = import_ok(small_model + "--attention-backend unfused\n");
  EXPECT_EQ(unfused.job.training.attention, attention_impl::math);
  const std::string bad = import_error(small_model + "--recompute-granularity some\n");
  EXPECT_EQ(bad.substr(0, bad.find('\n')),
            "args.txt:3:1: --recompute-granularity: invalid value \"some\" (expected full or "
            "selective)");
}

TEST(ImportMegatron, OptimizerChoices) {
  EXPECT_EQ(import_ok(small_model).job.optimizer.kind, optimizer_kind::adamw);
  EXPECT_EQ(import_ok(small_model + "--optimizer adam\n").job.optimizer.kind,
            optimizer_kind::adamw);
  EXPECT_EQ(import_ok(small_model + "--optimizer sgd\n").job.optimizer.kind,
            optimizer_kind::sgd_momentum);
  EXPECT_EQ(import_ok(small_model + "--optimizer sgd --sgd-momentum 0\n").job.optimizer.kind,
            optimizer_kind::sgd);
}

// With --save every rank writes what it holds (its model shard, or its share of a torch_dist
// checkpoint): sharded; without it, nothing is saved.
TEST(ImportMegatron, SaveWritesEachRanksShard) {
  EXPECT_EQ(import_ok(small_model).job.checkpoint.save, state_dict_kind::none);
  EXPECT_EQ(import_ok(small_model + "--save /ckpt --ckpt-format torch_dist\n").job.checkpoint.save,
            state_dict_kind::sharded);
  EXPECT_EQ(import_ok(small_model + "--save /ckpt\n").job.checkpoint.save,
            state_dict_kind::sharded);
}

// --fp8-format turns Transformer Engine's float8 on, --fp8-recipe picks its scaling (delayed by
// default, one scale per tensor), --fp8-param-gather keeps float8 parameters.
TEST(ImportMegatron, Float8FormatAndRecipeAreTransformerEnginesFloat8) {
  const std::string base = small_model + "--bf16\n";
  using job::float8_recipe;
  EXPECT_EQ(import_ok(launch(base)).job.precision.float8, float8_recipe::none);
  const auto hybrid = import_ok(launch(base + "--fp8-format hybrid --fp8-amax-history-len 1024\n"));
  EXPECT_EQ(hybrid.job.precision.float8, float8_recipe::tensorwise);
  EXPECT_FALSE(hybrid.job.parallel.float8_all_gather);
  EXPECT_EQ(testing::find_note(hybrid.notes, "not modelled"), "");
  for (const auto& [recipe, planned] :
       {std::pair{"delayed", float8_recipe::tensorwise},
        std::pair{"tensorwise", float8_recipe::tensorwise},
        std::pair{"blockwise", float8_recipe::blockwise}, std::pair{"mxfp8", float8_recipe::mxfp8}})
    EXPECT_EQ(import_ok(launch(base + "--fp8-format e4m3 --fp8-recipe " + recipe + "\n"))
                  .job.precision.float8,
              planned)
        << recipe;
  const auto params = import_ok(launch(base + "--use-distributed-optimizer --fp8-format hybrid "
                                              "--fp8-recipe mxfp8 --fp8-param-gather\n"));
  EXPECT_TRUE(params.job.parallel.float8_all_gather);
  // 2023's switches, before --fp8-format.
  EXPECT_EQ(import_ok(launch(base + "--fp8-hybrid\n")).job.precision.float8,
            float8_recipe::tensorwise);
  // A recipe without a format is read by nothing.
  const auto alone = import_ok(launch(base + "--fp8-recipe mxfp8\n"));
  EXPECT_EQ(alone.job.precision.float8, float8_recipe::none);
  EXPECT_NE(testing::find_note(alone.notes, "takes effect only with --fp8-format"), "");
  EXPECT_NE(import_error(launch(base + "--fp8-format e5m2\n"))
                .find("--fp8-format: expected e4m3 or hybrid, got \"e5m2\""),
            std::string::npos);
  EXPECT_NE(import_error(launch(base + "--fp8-format hybrid --fp8-recipe fp4\n"))
                .find("--fp8-recipe: expected delayed, tensorwise, mxfp8, blockwise or custom"),
            std::string::npos);
}

// `--nproc_per_node $(nvidia-smi -L | wc -l)`: the node's GPUs, counted when the script runs.
TEST(ImportMegatron, AGpuCountProbedAtRunTimeIsAssumed) {
  for (const char* probe : {"$(nvidia-smi -L | wc -l)",
                            "$(python -c 'import torch; print(torch.cuda.device_count())')"}) {
    const std::string text =
        std::string("GPUS=") + probe + "\n" +
        "torchrun --nproc_per_node ${GPUS} --nnodes 1 pretrain_gpt.py \\\n" +
        "--num-layers 2 --hidden-size 64 --num-attention-heads 4 \\\n"
        "--max-position-embeddings 128 --seq-length 128 --micro-batch-size 1 \\\n"
        "--global-batch-size 16 --tokenizer-type GPT2BPETokenizer\n";
    const auto imported = import_ok(text);
    EXPECT_EQ(imported.job.hardware.gpus_per_node, 8) << probe;
    EXPECT_EQ(imported.job.training.gradient_accumulation, 2) << probe;
    EXPECT_NE(testing::find_note(imported.notes,
                                 "counts the node's GPUs when the script runs: assumed 8"),
              "")
        << probe;
  }
}

TEST(ImportMegatron, ModelFamilies) {
  const std::string base =
      "--num-layers 2 --hidden-size 256 --num-attention-heads 4 --max-position-embeddings 128 "
      "--vocab-size 1000 --tokenizer-type NullTokenizer\n";
  const auto llama = import_ok(base +
                               "--swiglu --normalization RMSNorm --position-embedding-type "
                               "rope --group-query-attention --num-query-groups 2\n")
                         .job;
  EXPECT_EQ(key_of(llama, "model_type"), "\"llama\"");
  EXPECT_EQ(key_of(llama, "intermediate_size"), "640");  // int(4 x 256 x 2/3 / 64) x 64
  EXPECT_EQ(key_of(llama, "num_key_value_heads"), "2");
  EXPECT_EQ(key_of(llama, "attention_bias"), "true");
  const auto neox =
      import_ok(base + "--position-embedding-type rope --untie-embeddings-and-output-weights\n")
          .job;
  EXPECT_EQ(key_of(neox, "model_type"), "\"gpt_neox\"");
  EXPECT_EQ(key_of(neox, "use_parallel_residual"), "false");
  const auto moe = import_ok(base +
                             "--swiglu --normalization RMSNorm --position-embedding-type rope "
                             "--disable-bias-linear --num-experts 8 --moe-router-topk 2 "
                             "--moe-ffn-hidden-size 128\n");
  EXPECT_EQ(key_of(moe.job, "model_type"), "\"mixtral\"");
  EXPECT_EQ(key_of(moe.job, "num_local_experts"), "8");
  EXPECT_EQ(key_of(moe.job, "intermediate_size"), "128");
  EXPECT_GT(parameters_of(moe.job), 0u);
  const auto gpt = import_ok(base + "--swiglu --hidden-dropout 0.1\n");
  EXPECT_NE(find_note(gpt.notes, "LayerNorm norms are planned as llama's RMSNorm"), "");
  EXPECT_NE(find_note(gpt.notes, "hidden dropout (0.1"), "");
  // --attention-dropout (Megatron's default 0.1) reaches the model: the unfused attention keeps
  // the dropped probabilities and the mask (a fused kernel keeps neither).
  EXPECT_EQ(key_of(gpt.job, "attention_dropout"), "0.1");
  EXPECT_EQ(key_of(import_ok(base + "--swiglu --attention-dropout 0\n").job, "attention_dropout"),
            "0.0");
  EXPECT_EQ(key_of(import_ok(base).job, "attn_pdrop"), "0.1");
  EXPECT_NE(import_error(base + "--attention-dropout 1.5\n")
                .find("--attention-dropout: expected a probability from 0 to 1, got \"1.5\""),
            std::string::npos);
}

// Shared experts and dense layers among the expert ones (--moe-shared-expert-intermediate-size,
// --moe-layer-freq as an integer or as Megatron's list pattern) are planned as Qwen's MoE
// layouts, which hold the same tensors.
TEST(ImportMegatron, SharedExpertsAndDenseLayersAreQwensMoeLayouts) {
  const std::string base =
      "--num-layers 6 --hidden-size 256 --num-attention-heads 4 --max-position-embeddings 128 "
      "--vocab-size 1000 --tokenizer-type NullTokenizer --swiglu --normalization RMSNorm "
      "--position-embedding-type rope --disable-bias-linear --num-experts 8 --moe-router-topk 2 "
      "--moe-ffn-hidden-size 64 --ffn-hidden-size 512\n";
  const auto shared = import_ok(base + "--moe-shared-expert-intermediate-size 128 "
                                       "--moe-layer-freq ([0]*2+[1]*2)+[0,1]\n");
  EXPECT_EQ(key_of(shared.job, "model_type"), "\"qwen2_moe\"");
  EXPECT_EQ(key_of(shared.job, "mlp_only_layers"), "[0,1,4]");
  EXPECT_EQ(key_of(shared.job, "shared_expert_intermediate_size"), "128");
  EXPECT_EQ(key_of(shared.job, "intermediate_size"), "512");  // the dense layers'
  EXPECT_EQ(key_of(shared.job, "moe_intermediate_size"), "64");
  EXPECT_NE(find_note(shared.notes, "shared expert has a gate"), "");
  // Three dense layers of 3 x 256 x 512 and three expert layers: 8 experts of 3 x 256 x 64, the
  // router, the shared expert of 3 x 256 x 128 and its gate; attention with q/k/v biases and
  // two norms in every layer; the tied embedding and the final norm.
  const std::uint64_t attention = 4 * 256 * 256 + 3 * 256 + 2 * 256;
  const std::uint64_t expert_layer = 8 * 3 * 256 * 64 + 8 * 256 + 3 * 256 * 128 + 256;
  const std::uint64_t vocab = 1024;  // 1000 padded to a multiple of 128
  EXPECT_EQ(parameters_of(shared.job),
            6 * attention + 3 * (3 * 256 * 512) + 3 * expert_layer + vocab * 256 + 256);
  const auto every_other = import_ok(base + "--moe-layer-freq 2\n");
  EXPECT_EQ(key_of(every_other.job, "model_type"), "\"qwen3_moe\"");
  EXPECT_EQ(key_of(every_other.job, "mlp_only_layers"), "[1,3,5]");  // i % 2 == 0 has experts
  EXPECT_EQ(key_of(import_ok(base + "--moe-layer-freq 1\n").job, "model_type"), "\"mixtral\"");
  // argparse takes any int and Python's i % N == 0 holds where N divides i: -1 is every layer
  // (noted), -2 every other one; 0 divides by zero.
  const auto minus_one = import_ok(base + "--moe-layer-freq -1\n");
  EXPECT_EQ(key_of(minus_one.job, "model_type"), "\"mixtral\"");
  EXPECT_NE(find_note(minus_one.notes, "as for 1"), "");
  EXPECT_EQ(key_of(import_ok(base + "--moe-layer-freq -2\n").job, "mlp_only_layers"), "[1,3,5]");
  for (const char* bad : {"0", "x", "-9223372036854775808", "99999999999999999999"})
    EXPECT_NE(import_error(base + "--moe-layer-freq " + bad + "\n")
                  .find("(expected a whole number other than 0"),
              std::string::npos)
        << bad;
  // A whole launch (also a fuzzing seed): the gate is Megatron's too, so it is not noted.
  auto seed = import_config(std::string(VRAMSCOPE_SOURCE_DIR) +
                            "/tests/data/job/megatron_moe_layouts.sh");
  ASSERT_TRUE(seed) << seed.error().to_string();
  EXPECT_EQ(key_of(seed->job, "mlp_only_layers"), "[0]");
  EXPECT_EQ(seed->job.parallel.ep, 4);
  EXPECT_EQ(find_note(seed->notes, "shared expert has a gate"), "");
  EXPECT_EQ(find_note(seed->notes, "unknown option"), "");
  EXPECT_EQ(import_error(base + "--moe-layer-freq ([1]*5)\n"),
            "args.txt:2:1: --moe-layer-freq \"([1]*5)\": 5 entries for 6 layers (one a layer, as "
            "Megatron requires)\n"
            "--moe-layer-freq ([1]*5)\n"
            "^ near here");
  EXPECT_EQ(import_error(base + "--moe-layer-freq ([1]*6\n"),
            "args.txt:2:1: --moe-layer-freq \"([1]*6\": a ( without its )\n"
            "--moe-layer-freq ([1]*6\n"
            "^ near here");
  // Nesting that could exhaust the stack is refused, and a long value is quoted cut short.
  const std::string deep = "--moe-layer-freq " + std::string(100, '(') + "[1]\n";
  EXPECT_EQ(import_error(base + deep).rfind("args.txt:2:1: --moe-layer-freq \"" +
                                                std::string(40, '(') +
                                                "...\": nested more than 64 deep\n",
                                            0),
            0u);
  // Numbers and lengths that would overflow are refused before they are computed.
  EXPECT_NE(import_error(base + "--moe-layer-freq 999999999*999999999*999999999*[1]\n")
                .find("a number too large"),
            std::string::npos);
  EXPECT_NE(import_error(base + "--moe-layer-freq [1]*999999999*999999999\n")
                .find("the pattern is longer than any model"),
            std::string::npos);
  EXPECT_EQ(import_error(base + "--moe-layer-freq [2,1,1,1,1,1]\n"),
            "args.txt:2:1: --moe-layer-freq \"[2,1,1,1,1,1]\": layer 0 is 2, expected 1 (experts) "
            "or 0 (dense)\n"
            "--moe-layer-freq [2,1,1,1,1,1]\n"
            "^ near here");
}

// Multi-latent attention (--multi-latent-attention and its ranks and head widths) is planned as
// DeepSeek's layout; with DeepSeek-V3's shapes, 256 routed experts, the shared one and the
// first 3 layers dense, the model is DeepSeek-V3's published count (its 129,280 embedding rows
// given by --padded-vocab-size: the NullTokenizer of releases up to core_v0.17 would add one).
TEST(ImportMegatron, LatentAttentionIsDeepSeeksLayout) {
  const std::string v3 =
      "--num-layers 61 --hidden-size 7168 --ffn-hidden-size 18432 --num-attention-heads 128 "
      "--max-position-embeddings 4096 --swiglu --normalization RMSNorm "
      "--position-embedding-type rope --disable-bias-linear --untie-embeddings-and-output-weights "
      "--vocab-size 129280 --padded-vocab-size 129280 --tokenizer-type NullTokenizer "
      "--hidden-dropout 0 --multi-latent-attention --q-lora-rank 1536 --kv-lora-rank 512 --qk-head-dim 128 "
      "--qk-pos-emb-head-dim 64 --v-head-dim 128\n";
  const auto moe = import_ok(v3 + "--num-experts 256 --moe-router-topk 8 --moe-ffn-hidden-size "
                                  "2048 --moe-shared-expert-intermediate-size 2048 "
                                  "--moe-layer-freq ([0]*3+[1]*58)\n");
  EXPECT_EQ(key_of(moe.job, "model_type"), "\"deepseek_v3\"");
  EXPECT_EQ(key_of(moe.job, "first_k_dense_replace"), "3");
  EXPECT_EQ(parameters_of(moe.job), 671'026'404'352u);  // DeepSeek-V3's published count
  EXPECT_EQ(find_note(moe.notes, "not model"), "");
  EXPECT_EQ(find_note(moe.notes, "unknown option"), "");
  // Dense latent attention, without experts: q_lora_rank absent is a query without bottleneck.
  const auto dense = import_ok(
      "--num-layers 2 --hidden-size 256 --num-attention-heads 4 --max-position-embeddings 128 "
      "--vocab-size 1000 --tokenizer-type NullTokenizer --swiglu --normalization RMSNorm "
      "--position-embedding-type rope --disable-bias-linear --multi-latent-attention\n");
  EXPECT_EQ(key_of(dense.job, "model_type"), "\"deepseek_v3\"");
  EXPECT_EQ(key_of(dense.job, "q_lora_rank"), "null");
  EXPECT_EQ(key_of(dense.job, "kv_lora_rank"), "32");  // Megatron's default
  // Experts without a shared one: DeepSeek's layout keeps one, said with its size.
  const auto unshared = import_ok(v3 + "--num-experts 8 --moe-ffn-hidden-size 256\n");
  EXPECT_NE(find_note(unshared.notes, "always has a shared expert"), "");
  // A dense layer after expert layers has no place in DeepSeek's layout.
  EXPECT_EQ(import_error(v3 + "--num-experts 8 --moe-shared-expert-intermediate-size 256 "
                              "--moe-ffn-hidden-size 256 --moe-layer-freq ([1]*60+[0])\n"),
            "args.txt:2:85: --moe-layer-freq: layer 60 is dense after expert layers; with "
            "--multi-latent-attention the dense layers are planned as DeepSeek's, the first "
            "ones\n"
            "--num-experts 8 --moe-shared-expert-intermediate-size 256 --moe-ffn-hidden-size 256 "
            "--moe-layer-freq ([1]*60+[0])\n"
            "                                                                                    ^ "
            "near here");
}

TEST(ImportMegatron, NotesUnknownAndUnmodelledFlags) {
  const auto imported = import_ok(small_model +
                                  "--num-layer 3\n--first-last-layers-bf16\n--lr 1e-4\n"
                                  "--tp-comm-overlap\n");
  EXPECT_EQ(
      find_note(imported.notes, "--num-layer\""),
      "args.txt:3:1: unknown option \"--num-layer\" (did you mean \"--num-layers\"?); ignored\n"
      "--num-layer 3\n"
      "^ near here");
  EXPECT_NE(find_note(imported.notes, "\"--first-last-layers-bf16\" changes memory"), "");
  EXPECT_NE(find_note(imported.notes, "\"--tp-comm-overlap\" changes memory"), "");
  EXPECT_NE(find_note(imported.no_effect, "\"--lr\""), "");
  EXPECT_NE(find_note(imported.notes, "do not give the number of GPUs"), "");
}

TEST(ImportMegatron, ContextAndExpertParallelismArePlanned) {
  const auto imported =
      import_ok(launch(small_model + "--context-parallel-size 2 --expert-model-parallel-size 2 "
                                     "--tensor-model-parallel-size 2 --global-batch-size 4\n"));
  EXPECT_EQ(imported.job.training.gradient_accumulation, 2);  // dp = 8 / (2 x 2) = 2
  EXPECT_EQ(imported.job.parallel.cp, 2);
  EXPECT_EQ(imported.job.parallel.dp_shard, 2);  // the optimizer shards over dp x cp = 4
  EXPECT_EQ(imported.job.parallel.ep, 2);        // the experts over 2 of those 4
  EXPECT_EQ(find_note(imported.notes, "context parallel"), "");
  EXPECT_EQ(find_note(imported.notes, "expert parallel"), "");
  EXPECT_EQ(import_error(launch(small_model + "--expert-model-parallel-size 3 "
                                              "--global-batch-size 8\n")),
            "args.txt:4:1: parallel.ep: 3 must divide dp_shard 8 x cp 1 = 8: expert-parallel "
            "ranks are taken from those; change the option there (or override it with --set) "
            "to plan it\n"
            "--expert-model-parallel-size 3 --global-batch-size 8\n"
            "^ near here");
  // --expert-tensor-parallel-size (parallel folding): ep x etp over tp x dp x cp, here ep 4 x
  // etp 1 over tp 2 x dp 2 x cp 2 = 8 ranks, which ep alone over dp x cp = 4 would not allow.
  const auto folded = import_ok(
      launch(small_model + "--context-parallel-size 2 --expert-model-parallel-size 4 "
                           "--expert-tensor-parallel-size 1 --tensor-model-parallel-size 2 "
                           "--global-batch-size 4\n"));
  EXPECT_EQ(folded.job.parallel.ep, 4);
  EXPECT_EQ(folded.job.parallel.etp, 1);
  EXPECT_EQ(find_note(folded.notes, "--expert-tensor-parallel-size"), "");
  EXPECT_NE(import_error(launch(small_model + "--expert-model-parallel-size 4 "
                                              "--expert-tensor-parallel-size 4 "
                                              "--tensor-model-parallel-size 2 "
                                              "--global-batch-size 8\n"))
                .find("parallel.ep: 4 x etp 4 = 16 must divide dp_shard 4 x cp 1 x tp 2 = 8"),
            std::string::npos);
  // Megatron's other key/value exchanges are planned as its default ring, and said so.
  const auto a2a = import_ok(
      launch(small_model + "--context-parallel-size 2 --cp-comm-type a2a --global-batch-size 4\n"));
  EXPECT_EQ(a2a.job.parallel.cp, 2);
  EXPECT_NE(find_note(a2a.notes, "--cp-comm-type a2a is planned as p2p"), "");
  const auto ring = import_ok(
      launch(small_model + "--context-parallel-size 2 --cp-comm-type p2p --global-batch-size 4\n"));
  EXPECT_EQ(find_note(ring.notes, "cp-comm-type"), "");
  EXPECT_EQ(import_error(launch(small_model + "--context-parallel-size 3 --global-batch-size 6\n",
                                6)),
            "args.txt:3:1: training.seq_len: 128 tokens do not split into 2 x parallel.cp = 6 "
            "equal chunks (context parallelism's load-balanced causal sharding); change the "
            "option there (or override it with --set) to plan it\n"
            "--seq-length 128 --tokenizer-type GPT2BPETokenizer \\\n"
            "^ near here");
}

// --moe-expert-capacity-factor and --moe-pad-expert-input-to-capacity reach the plan for a
// model with experts; without --num-experts Megatron never reads them.
TEST(ImportMegatron, ExpertCapacityIsReadForExpertsOnly) {
  const std::string moe =
      "--num-layers 2 --hidden-size 256 --num-attention-heads 4 --max-position-embeddings 128 "
      "--vocab-size 1000 --tokenizer-type NullTokenizer --swiglu --normalization RMSNorm "
      "--position-embedding-type rope --disable-bias-linear --num-experts 8 "
      "--moe-router-topk 2\n";
  const auto padded = import_ok(moe + "--moe-expert-capacity-factor 1.25\n"
                                      "--moe-pad-expert-input-to-capacity\n"
                                      "--moe-token-drop-policy position\n");
  ASSERT_TRUE(padded.job.training.moe_capacity_factor.has_value());
  EXPECT_DOUBLE_EQ(*padded.job.training.moe_capacity_factor, 1.25);
  EXPECT_TRUE(padded.job.training.moe_pad_to_capacity);
  EXPECT_EQ(find_note(padded.notes, "capacity"), "");
  EXPECT_EQ(find_note(padded.notes, "drop-policy"), "");
  const auto dense = import_ok(small_model + "--moe-expert-capacity-factor 1.25\n");
  EXPECT_FALSE(dense.job.training.moe_capacity_factor.has_value());
  EXPECT_NE(find_note(dense.no_effect, "\"--moe-expert-capacity-factor\""), "");
  EXPECT_EQ(import_error(moe + "--moe-pad-expert-input-to-capacity\n"),
            "args.txt:2:1: training.moe_pad_to_capacity: pads each expert's input to its "
            "capacity: it needs training.moe_capacity_factor; change the option there (or "
            "override it with --set) to plan it\n"
            "--moe-pad-expert-input-to-capacity\n"
            "^ near here");
  EXPECT_EQ(import_error(moe + "--moe-expert-capacity-factor none\n"),
            "args.txt:2:1: --moe-expert-capacity-factor: expected a number or dropless, got "
            "\"none\" (it sets training.moe_capacity_factor)\n"
            "--moe-expert-capacity-factor none\n"
            "^ near here");
}

TEST(ImportMegatron, RepeatedFlagKeepsTheLast) {
  const auto imported = import_ok(small_model + "--micro-batch-size 2\n--micro-batch-size 4\n");
  EXPECT_EQ(imported.job.training.micro_batch, 4u);
  EXPECT_NE(find_note(imported.notes, "first on line 3"), "");
}

// pretrain_gpt.py names GPT-2's BPE tokenizer when the arguments name none (args_defaults), and
// 2021's --checkpoint-activations is full recompute; `python script.py` runs one process.
TEST(ImportMegatron, LegacyGptScriptGetsGpt2VocabularyAndFullRecompute) {
  const auto imported = import_ok(
      "python pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 4 \\\n"
      "  --max-position-embeddings 128 --seq-length 128 --micro-batch-size 2 \\\n"
      "  --global-batch-size 4 --checkpoint-activations --fp16\n");
  EXPECT_EQ(key_of(imported.job, "vocab_size"), "50304");  // 50257 padded to a multiple of 128
  EXPECT_EQ(imported.job.training.activation_checkpointing, checkpointing::full);
  EXPECT_EQ(imported.job.hardware.gpus_per_node, 1);
  EXPECT_EQ(imported.job.training.gradient_accumulation, 2);
  EXPECT_NE(find_note(imported.notes, "GPT2BPETokenizer"), "");
  EXPECT_EQ(find_note(imported.notes, "unknown option"), "");
}

TEST(ImportMegatron, BertAndT5ScriptsAreRefusedWithWhatTheyBuild) {
  const std::string args = " --num-layers 2 --hidden-size 64 --num-attention-heads 4\n";
  const std::string bert = import_error("torchrun --nproc_per_node 8 pretrain_bert.py" + args);
  EXPECT_EQ(bert.rfind("args.txt:1:29: pretrain_bert.py builds BERT", 0), 0u) << bert;
  const std::string t5 = import_error("python pretrain_t5.py" + args);
  EXPECT_NE(t5.find("pretrain_t5.py builds T5 (an encoder-decoder)"), std::string::npos) << t5;
  // The script name Megatron-LM's 2023 vision example runs, before its --vocab-size 0.
  const std::string vit = import_error("torchrun pretrain_vision_classification.py --vocab-size 0"
                                       + args);
  EXPECT_EQ(vit.rfind("args.txt:1:10: pretrain_vision_classification.py builds a vision "
                      "transformer", 0), 0u) << vit;
  // pretrain_mamba.py's 2026 name builds the same hybrid, whose layers come from the pattern.
  const std::string hybrid =
      import_error("torchrun pretrain_hybrid.py --hybrid-layer-pattern 'MMM*' --hidden-size 64\n");
  EXPECT_NE(hybrid.find("pretrain_hybrid.py builds a hybrid Mamba model"), std::string::npos)
      << hybrid;
}

// A SLURM script that prepares data with Python first, then runs the training under
// `srun bash -c "..."`: the pretraining command is the launch, located at its string.
TEST(ImportMegatron, FindsTheTrainingCommandInsideBashDashC) {
  const auto imported = import_ok(
      "#!/bin/bash\n#SBATCH --nodes=1\n"
      "python tools/preprocess_data.py --input data.json --output-prefix data\n"
      "srun --ntasks=1 bash -c \"torchrun --nproc_per_node 4 pretrain_gpt.py --num-layers 2 "
      "--hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128 "
      "--seq-length 128 --micro-batch-size 1 --global-batch-size 4 --vocab-size 1000 --bf16\"\n");
  EXPECT_EQ(imported.job.hardware.gpus_per_node, 4);
  EXPECT_EQ(imported.job.training.micro_batch, 1);
  EXPECT_EQ(imported.job.provenance.set_at.at("training.micro_batch").line, 4);
  const auto unset = import_error("srun -l sh -c \"python -u pretrain_gpt.py ${PARAMS}\"\n");
  // At the script's name inside the string, written once.
  EXPECT_NE(unset.find("args.txt:1:26: no --num-layers"), std::string::npos) << unset;
  EXPECT_NE(unset.find("$PARAMS, which the script does not set"), std::string::npos) << unset;
  // A quote the string never closes stops the inner shell before it runs anything.
  const auto open_quote = import_error(
      "srun bash -c \"torchrun --nproc_per_node 2 pretrain_gpt.py --num-layers \\\"2\"\n");
  EXPECT_EQ(open_quote.rfind("args.txt:1:14: the bash -c string stops that shell with a syntax "
                             "error before it runs anything in it: a quote (\") it opens is never "
                             "closed",
                             0),
            0u)
      << open_quote;
  // A whole script in a single-quoted string: its assignments are read in order, and its words
  // are located on their own lines; `pretrain_gpt.py --help` before the launch is no launch.
  const auto inner = import_ok(
      "srun shifter bash -c '\n  set -e\n  LAYERS=2\n  MBS=3\n"
      "  python pretrain_gpt.py --help | grep window || true\n"
      "  torchrun --nproc_per_node 4 pretrain_gpt.py --num-layers \"$LAYERS\" \\\n"
      "    --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128 \\\n"
      "    --seq-length 128 --micro-batch-size \"${MBS}\" --vocab-size 1000\n'\n");
  EXPECT_EQ(inner.job.hardware.gpus_per_node, 4);
  EXPECT_EQ(inner.job.training.micro_batch, 3);
  EXPECT_EQ(inner.job.provenance.set_at.at("training.micro_batch").line, 8);
  EXPECT_NE(find_note(inner.notes, "pretrain_gpt.py --help prints its usage and exits"), "");
}

TEST(ImportMegatron, SrunRunsAPythonCommandOncePerTask) {
  const std::string options = "options=\" \\\n" + small_model + "  --micro-batch-size 1\"\n";
  const auto imported = import_ok("#SBATCH --nodes=2 --ntasks-per-node=4\n" + options +
                                  "srun -l sh -c \"python -u pretrain_gpt.py ${options}\"\n");
  EXPECT_EQ(imported.job.hardware.gpus_per_node, 4);
  EXPECT_EQ(imported.job.hardware.nodes, 2);
  EXPECT_NE(find_note(imported.notes, "srun starts python once per task"), "");
  // srun's own flags win over the allocation's.
  const auto own = import_ok("#SBATCH --nodes=2 --ntasks-per-node=4\n" + options +
                             "srun --ntasks-per-node=2 sh -c \"python pretrain_gpt.py ${options}\"\n");
  EXPECT_EQ(own.job.hardware.gpus_per_node, 2);
  // Written directly, `srun [flags] python ...`: srun's words are those before the interpreter.
  const auto direct = import_ok("#SBATCH --nodes=4 --ntasks-per-node=8\n" + options +
                                "srun -l python -u pretrain_gpt.py ${options}\n");
  EXPECT_EQ(direct.job.hardware.gpus_per_node, 8);
  EXPECT_EQ(direct.job.hardware.nodes, 4);
  const auto flags = import_ok("#SBATCH --nodes=4 --ntasks-per-node=8\n" + options +
                               "srun -N 2 --ntasks-per-node 4 numactl -l python pretrain_gpt.py "
                               "${options}\n");
  EXPECT_EQ(flags.job.hardware.gpus_per_node, 4);
  EXPECT_EQ(flags.job.hardware.nodes, 2);
}

// A binding wrapper before the interpreter (`numactl ... python`, a site's bind.sh) execs the
// rest: still one Python process a task. An MPI launcher there is not one process.
TEST(ImportMegatron, SrunThroughABindingWrapperIsStillOneProcessATask) {
  const std::string options = "options=\" \\\n" + small_model + "  --micro-batch-size 1\"\n";
  const auto wrapped = import_ok(
      "#SBATCH -p part -t 00:05:00 --nodes=32 --exclusive --ntasks-per-node=8\n" + options +
      "run_cmd=\"/opt/bind.sh --cpu=map.sh python -u pretrain_gpt.py ${options}\"\n"
      "srun -l sh -c \"${run_cmd}\"\n");
  EXPECT_EQ(wrapped.job.hardware.gpus_per_node, 8);
  EXPECT_EQ(wrapped.job.hardware.nodes, 32);
  EXPECT_NE(find_note(wrapped.notes, "srun starts python (through /opt/bind.sh) once per task"),
            "");
  const auto mpi = import_ok("#SBATCH --nodes=2 --ntasks-per-node=4\n" + options +
                             "srun sh -c \"mpirun -np 8 python pretrain_gpt.py ${options}\"\n");
  EXPECT_EQ(find_note(mpi.notes, "srun starts"), "");
}

// --use-mpi: the ranks come from an MPI launcher the file does not hold, so a plain `python`
// launch is not one GPU; the count is assumed, noted, and no world-size contradiction is made.
// --use-precision-aware-optimizer keeps the main parameters and moments in the dtypes its flags
// give; two different moments are planned at the wider; without it the flags are not read.
TEST(ImportMegatron, ThePrecisionAwareOptimizersDtypesAreTheMastersAndTheStates) {
  const auto aware =
      import_ok(launch(small_model +
                       "--bf16 --use-distributed-optimizer --use-precision-aware-optimizer\n"
                       "--main-params-dtype fp16 --exp-avg-dtype bf16 --exp-avg-sq-dtype fp32\n"));
  EXPECT_EQ(aware.job.precision.master, dtype::f16);
  EXPECT_EQ(aware.job.optimizer.state, dtype::f32);
  EXPECT_NE(find_note(aware.notes, "both moments planned as fp32, the wider"), "");
  const auto plain =
      import_ok(launch(small_model + "--bf16 --main-params-dtype fp16 --exp-avg-dtype fp16\n"));
  EXPECT_EQ(plain.job.precision.master, dtype::f32);
  EXPECT_NE(find_note(plain.notes,
                      "--main-params-dtype is read only with "
                      "--use-precision-aware-optimizer"),
            "");
  const std::string bad = import_error(
      launch(small_model + "--bf16 --use-precision-aware-optimizer --main-params-dtype bf16\n"));
  EXPECT_NE(bad.find("--main-params-dtype: expected one of fp32, fp16, got \"bf16\""),
            std::string::npos)
      << bad;
}

TEST(ImportMegatron, UseMpiLeavesThePythonLaunchsGpuCountOpen) {
  const auto imported = import_ok(
      "python pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 4 "
      "--max-position-embeddings 128 --seq-length 128 --tokenizer-type GPT2BPETokenizer "
      "--tensor-model-parallel-size 2 --micro-batch-size 1 --use-mpi\n");
  EXPECT_NE(find_note(imported.notes, "--use-mpi: python takes its rank and world size"), "");
  EXPECT_EQ(imported.job.parallel.tp, 2);
}

// A contradiction Megatron itself refuses at start (the world not divisible by tp x pp x cp)
// comes before what vramscope cannot read (a tokenizer's vocabulary): the launch fails as
// written whatever vramscope reads. The other is listed after it.
TEST(ImportMegatron, AContradictionMegatronRefusesComesBeforeWhatVramscopeCannotRead) {
  const std::string e = import_error(
      "python pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 4 \\\n"
      "  --max-position-embeddings 128 --seq-length 128 \\\n"
      "  --tokenizer-type Llama2Tokenizer \\\n"
      "  --tensor-model-parallel-size 2 --micro-batch-size 1\n");
  EXPECT_EQ(e.rfind("args.txt:4:3: the world of 1 GPUs", 0), 0u) << e;
  EXPECT_NE(e.find("line 3: --tokenizer-type Llama2Tokenizer"), std::string::npos) << e;
  // --fp16 beside --bf16, which Megatron refuses whatever the world, comes first too.
  const std::string both = import_error(launch(
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128\n"
      "--seq-length 128 --tokenizer-type Llama2Tokenizer\n--micro-batch-size 1 --bf16 --fp16\n"));
  EXPECT_EQ(both.rfind("args.txt:4:29: --fp16 and --bf16 are both given", 0), 0u) << both;
  EXPECT_NE(both.find("line 3: --tokenizer-type Llama2Tokenizer"), std::string::npos) << both;
}

// Megatron-DeepSpeed, and Megatron-LM before 8af3dae72a (2024-08-05), clamp the degrees to the
// world (tp = min(tp, world), pp = min(pp, world // tp)) where later Megatron-LM refuses: a flag
// only those releases have marks such a launch, which then runs with the clamped degrees.
TEST(ImportMegatron, ReleasesThatClampTheDegreesToTheWorldRunWithThem) {
  const std::string body =
      "torchrun --nproc_per_node 2 pretrain_gpt.py --num-layers 4 --hidden-size 64 \\\n"
      "  --num-attention-heads 4 --max-position-embeddings 128 --seq-length 128 \\\n"
      "  --tokenizer-type GPT2BPETokenizer --micro-batch-size 1 \\\n"
      "  --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2";
  const auto old = import_ok(body + " \\\n  --DDP-impl local\n");
  EXPECT_EQ(old.job.parallel.tp, 2);
  EXPECT_EQ(old.job.parallel.pp, 1);
  EXPECT_NE(find_note(old.notes,
                      "clamps the parallel degrees to the world of 2 GPUs: tensor "
                      "parallel 2 -> 2, pipeline parallel 2 -> 1"),
            "");
  const auto fork = import_ok(body + " --deepspeed\n");
  EXPECT_EQ(fork.job.parallel.pp, 1);
  // Without such a flag the launch is read as today's Megatron-LM, which refuses it.
  const std::string e = import_error(body + "\n");
  EXPECT_NE(e.find("the world of 2 GPUs"), std::string::npos) << e;
}

// The Holmes fork's heterogeneous training: each GPU type its own micro-batch (dp) or stages
// (pp), one job over several GPU kinds; refused at --hetero-mode.
TEST(ImportMegatron, HolmesHeterogeneousTrainingIsRefusedAtItsMode) {
  const std::string e = import_error(
      launch(small_model + "--hetero-mode dp --hetero-current-device-type t4\n"
                           "--hetero-device-types t4 a100 --hetero-micro-batch-sizes 8 1 2 2\n"
                           "--global-batch-size 12\n",
             8));
  EXPECT_EQ(e.rfind("args.txt:4:1: --hetero-mode dp: the Holmes fork's heterogeneous", 0), 0u) << e;
  // Without the mode the group is read by nothing and said of nothing.
  const auto plain = import_ok(launch(small_model + "--micro-batch-size 1 --use-hetnet\n"));
  EXPECT_EQ(find_note(plain.notes, "--use-hetnet"), "");
}

// MegatronApp's forward-backward disaggregation: forward-only and backward-only ranks; refused
// at the flag, before the world it reshapes is checked.
TEST(ImportMegatron, ForwardBackwardDisaggregationIsRefusedAtItsFlag) {
  const std::string e = import_error(
      launch(small_model + "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 2\n"
                           "--forward-backward-disaggregating --ignore-forward-tensor-parallel\n",
             6));
  EXPECT_EQ(e.rfind("args.txt:5:1: --forward-backward-disaggregating: MegatronApp's MegaFBD", 0),
            0u)
      << e;
}

// A fork's xformers attention (ZhangDY-6483/Megatron-LM's --use-memory-attn) keeps no score
// matrix: memory-efficient attention, not an unknown option.
TEST(ImportMegatron, AForksMemoryEfficientAttentionFlagIsRead) {
  const auto imported = import_ok(launch(small_model + "--micro-batch-size 1 --use-memory-attn\n"));
  EXPECT_EQ(imported.job.training.attention, attention_impl::efficient);
  EXPECT_EQ(find_note(imported.notes, "--use-memory-attn"), "");
}

// A command that counts the job's nodes from SLURM's variables is SLURM's node count: the
// #SBATCH --nodes of the script when it has one, else open (planned on the fewest nodes, noted).
TEST(ImportMegatron, ANodeCountFromSlurmsNodeListIsTheAllocations) {
  const std::string count =
      "NUM_NODES=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | wc -l)\n";
  const std::string run = "torchrun --nproc_per_node 4 --nnodes $NUM_NODES pretrain_gpt.py \\\n";
  const std::string args =
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128 \\\n"
      "--seq-length 128 --tokenizer-type GPT2BPETokenizer --micro-batch-size 1\n";
  const auto sbatch = import_ok("#SBATCH --nodes=3\n" + count + run + args);
  EXPECT_EQ(sbatch.job.hardware.nodes, 3);
  EXPECT_EQ(sbatch.job.hardware.gpus_per_node, 4);
  const auto open = import_ok(count + run + args);
  EXPECT_EQ(open.job.hardware.nodes, 1);
  EXPECT_NE(find_note(open.notes, "is set when the job runs"), "");
  // Any other command's count stays a value known only when the script runs.
  const std::string other = import_error("NUM_NODES=$(wc -l < hosts.txt)\n" + run + args);
  EXPECT_NE(other.find("known only when the script runs"), std::string::npos) << other;
}

TEST(ImportMegatron, AnOptionFromAStringVariableIsLocatedWhereItIsWritten) {
  const std::string text =
      "OPTS=\" \\\n  --num-layers 2 --hidden-size 64 --num-attention-heads 4\n"
      "  --max-position-embeddings 128 --seq-length 128\n"
      "  --tokenizer-type HuggingFaceTokenizer\"\n"
      "torchrun --nproc_per_node 1 pretrain_gpt.py ${OPTS}\n";
  const std::string error = refusal(text);
  EXPECT_EQ(error.rfind("args.txt:4:3: --tokenizer-type HuggingFaceTokenizer: its vocabulary", 0), 0u)
      << error;
}

// Arguments classified one by one (megatron_argument_rows.cpp): a memory option of a group that
// also holds harmless ones is noted, a harmless one of a group that also holds memory options
// is quiet, and neither is called unknown.
TEST(ImportMegatron, ArgumentsAreClassifiedOneByOne) {
  const auto imported =
      import_ok(small_model +
                "--freeze-all-layers\n--inference-max-requests 4\n--enable-cuda-graph\n"
                "--use-checkpoint-args\n--muon-momentum 0.9\n--fp32-residual-connection\n"
                "--log-throughput\n--num-classes 10\n");
  EXPECT_NE(find_note(imported.notes, "\"--freeze-all-layers\" changes memory"), "");
  EXPECT_NE(find_note(imported.notes, "\"--enable-cuda-graph\" changes memory"), "");
  EXPECT_NE(find_note(imported.notes, "\"--use-checkpoint-args\" changes memory"), "");
  EXPECT_NE(find_note(imported.notes, "\"--fp32-residual-connection\" changes memory"), "");
  for (const char* quiet :
       {"--inference-max-requests", "--muon-momentum", "--log-throughput", "--num-classes"}) {
    EXPECT_NE(find_note(imported.no_effect, std::string("\"") + quiet + "\""), "") << quiet;
    EXPECT_EQ(find_note(imported.notes, quiet), "") << quiet;
  }
  EXPECT_EQ(find_note(imported.notes, "unknown option"), "");
  EXPECT_TRUE(detail::megatron_quiet_group("_add_logging_args"));
  EXPECT_FALSE(detail::megatron_quiet_group("_add_training_args"));
  EXPECT_FALSE(detail::megatron_quiet_group("_add_inference_args"));  // CUDA graphs train too
}

// validate_args reads --encoder-num-layers and --encoder-seq-length as --num-layers and
// --seq-length when those are absent, and --use-rotary-position-embeddings as rope.
TEST(ImportMegatron, OtherNamesOfLayersLengthAndRope) {
  const auto imported = import_ok(launch(
      "--encoder-num-layers 3 --hidden-size 64 --num-attention-heads 4\n"
      "--max-position-embeddings 256 --encoder-seq-length 256 --tokenizer-type GPT2BPETokenizer\n"
      "--use-rotary-position-embeddings\n"));
  EXPECT_EQ(key_of(imported.job, "num_hidden_layers"), "3");
  EXPECT_EQ(imported.job.training.seq_len, 256u);
  EXPECT_EQ(key_of(imported.job, "model_type"), "\"gpt_neox\"");  // rotary: GPT-NeoX's layout
  EXPECT_NE(find_note(imported.notes, "--encoder-num-layers is read as --num-layers"), "");
  const std::string both = import_error(small_model + "--encoder-seq-length 64\n");
  EXPECT_EQ(both.rfind("args.txt:3:1: --encoder-seq-length and --seq-length are both given", 0), 0u)
      << both;
}

// An uneven pipeline split is refused at its flag with the --num-layers that bounds the busiest
// stage; one that turns out even is read.
TEST(ImportMegatron, UnevenPipelineSplitsAreRefusedAtTheirFlag) {
  const std::string model =
      "--num-layers 70 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128\n"
      "--seq-length 128 --tokenizer-type GPT2BPETokenizer --pipeline-model-parallel-size 12\n";
  const std::string bloom =
      import_error(launch(model + "--pp-partition-method 'type:transformer|embedding'\n", 12));
  EXPECT_EQ(bloom.rfind("args.txt:4:1: --pp-partition-method type:transformer|embedding: 70 "
                        "layers and the 2 embeddings split into 12 stages of 6, so the stages "
                        "hold 5 transformer layers on the first, 5 on the last and 6 on the "
                        "others",
                        0),
            0u)
      << bloom;
  EXPECT_NE(bloom.find("plan --num-layers 72"), std::string::npos) << bloom;
  const std::string shape =
      "--hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128\n"
      "--seq-length 128 --tokenizer-type GPT2BPETokenizer\n";
  // Two stages: the embedding and the head each take one layer's place; 12 + 12.
  const auto even = import_ok(launch("--num-layers 24 --pipeline-model-parallel-size 2\n" + shape +
                                         "--pp-partition-method 'type:transformer|embedding'\n",
                                     2));
  EXPECT_EQ(even.job.parallel.pp, 2);
  EXPECT_NE(find_note(even.notes, "every stage holds 12 transformer layers"), "");
  const std::string first =
      import_error(launch("--num-layers 30 --pipeline-model-parallel-size 4\n" + shape +
                              "--decoder-first-pipeline-num-layers 6\n",
                          4));
  EXPECT_NE(first.find("args.txt:5:1: --decoder-first-pipeline-num-layers 6: 6 on the first "
                       "stage, 8 on the last, 8 on each other"),
            std::string::npos)
      << first;
  EXPECT_NE(first.find("plan --num-layers 32"), std::string::npos) << first;
  const auto same = import_ok(launch("--num-layers 32 --pipeline-model-parallel-size 4\n" + shape +
                                         "--decoder-last-pipeline-num-layers 8\n",
                                     4));
  EXPECT_EQ(same.job.parallel.pp, 4);
  const std::string loss =
      import_error(launch("--num-layers 31 --pipeline-model-parallel-size 4\n" + shape +
                              "--account-for-loss-in-pipeline-split\n",
                          4));
  EXPECT_NE(loss.find("8 transformer layers on the first, 7 on the last and 8 on the others"),
            std::string::npos)
      << loss;
  const std::string params = import_error(launch(model + "--pp-partition-method parameters\n", 12));
  EXPECT_NE(params.find("use type:transformer"), std::string::npos) << params;
}

// Megatron-LLM's finetune.py spells its flags with underscores: read as Megatron-LM's, and a
// model chosen by the script's own first argument is refused where it takes it, naming the branch.
TEST(ImportMegatron, MegatronLlmUnderscoreFlags) {
  const auto imported = import_ok(
      "torchrun --nproc_per_node 2 finetune.py --num_layers 2 --hidden_size 64 \\\n"
      "  --num_attention_heads 4 --max_position_embeddings 128 --seq_length 128 \\\n"
      "  --tokenizer_type GPT2BPETokenizer --tensor_model_parallel_size 2 --micro_batch_size 2\n");
  EXPECT_EQ(imported.job.parallel.tp, 2);
  EXPECT_EQ(imported.job.training.micro_batch, 2u);
  EXPECT_EQ(key_of(imported.job, "n_layer"), "2");
  EXPECT_NE(find_note(imported.notes, "spelled with underscores"), "");
  EXPECT_EQ(find_note(imported.notes, "unknown option"), "");
  const std::string chosen = import_error(
      "MODEL=$1\n"
      "if [[ $MODEL = gpt ]]; then\n"
      "  EXTRA=\"--num_layers 4 --hidden_size 512 --num_attention_heads 8\"\n"
      "fi\n"
      "torchrun --nproc_per_node 8 finetune.py --model_name $MODEL $EXTRA --seq_length 2048\n");
  // Refused where the argument that chooses the model is taken, naming the launch and branch.
  EXPECT_EQ(chosen.rfind("args.txt:1:1: MODEL is set here to $1, an argument the script is given "
                         "when it runs, and it chooses the model: no --num-layers among the "
                         "Megatron-LM arguments of finetune.py (line 5)",
                         0),
            0u)
      << chosen;
  EXPECT_NE(chosen.find("which include $EXTRA: EXTRA is set only in branches of \"if [[ "
                        "$MODEL = gpt ]]\""),
            std::string::npos)
      << chosen;
}

// A GPU count set only in a branch the script's first argument chooses is refused where the
// script takes that argument (as a shape chosen so is), naming the branch; one chosen by a
// conditional on no argument of the script is refused at the branch; a positional parameter is
// named as one.
TEST(ImportMegatron, ValuesChosenByTheScriptsArgumentsAreRefusedWhereTheArgumentIsTaken) {
  const std::string gpus = import_error(
      "ENV=$1\nif [ $ENV = dsw ]; then\nGPUS=8\nelif [ $ENV = dlc ]; then\nGPUS=$K8S_GPUS\nfi\n"
      "torchrun --nproc_per_node $GPUS pretrain_gpt.py " +
      small_model.substr(0, small_model.size() - 1) + "\n");
  EXPECT_EQ(gpus.rfind("args.txt:1:1: ENV is set here to $1, an argument the script is given when "
                       "it runs, and it chooses torchrun --nproc_per_node (line 7): \"$GPUS\": "
                       "GPUS is set only in branches of \"if [ $ENV = dsw ]\", which the "
                       "script's arguments choose",
                       0),
            0u)
      << gpus;
  EXPECT_NE(gpus.find("(line 2); write the number into the script"), std::string::npos) << gpus;
  const std::string by_case = import_error(
      "X=1\ncase $1 in\n  dsw) GPUS=8 ;;\n  dlc) GPUS=4 ;;\nesac\n"
      "torchrun --nproc_per_node $GPUS pretrain_gpt.py " +
      small_model.substr(0, small_model.size() - 1) + "\n");
  EXPECT_EQ(by_case.rfind("args.txt:2:1: torchrun --nproc_per_node: \"$GPUS\": GPUS is set only "
                          "in branches of \"case $1 in\"",
                          0),
            0u)
      << by_case;
  const std::string positional = import_error(launch(small_model + "--micro-batch-size $3\n"));
  EXPECT_NE(positional.find("\"$3\" is an argument given to the script when it is run"),
            std::string::npos)
      << positional;
  // Through a variable (`MBS=$3`), the argument is refused where the script takes it, as a value
  // computed when it runs is, naming the flag's own line.
  const std::string through =
      import_error("MBS=$3\n" + launch(small_model + "--micro-batch-size $MBS\n"));
  EXPECT_EQ(through.rfind("args.txt:1:1: --micro-batch-size (line 5): \"$3\": MBS is set here to "
                          "$3, an argument the script is given when it runs; write the number "
                          "into the script",
                          0),
            0u)
      << through;
}

// A launch inside `for NAME in ...` that takes $NAME is one job per value (a sweep): refused at
// the loop, with its values, not as a variable the script does not set.
TEST(ImportMegatron, ALaunchInsideAForLoopIsOneJobPerValue) {
  std::string text = launch(small_model + "--micro-batch-size $mbs\n");
  text = "for mbs in 1 2 4; do\n" + text + "done\n";
  const std::string error = import_error(text);
  EXPECT_EQ(error.rfind("args.txt:1:1: --micro-batch-size (line ", 0), 0u) << error;
  EXPECT_NE(error.find("mbs takes each value of this for loop (1 2 4)"), std::string::npos)
      << error;
  EXPECT_EQ(error.find("does not set"), std::string::npos) << error;
}

// The argument that chooses the model is the one the branch tests by its whole name: $MODE is not
// $MODEL_SIZE.
TEST(ImportMegatron, TheArgumentThatChoosesTheModelIsMatchedByItsWholeName) {
  const std::string text =
      "MODE=$1\nMODEL_SIZE=$3\nif [ $MODEL_SIZE = 1B ]; then\nNUM_LAYERS=24\nfi\n"
      "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers $NUM_LAYERS --hidden-size 64 \\\n"
      "  --num-attention-heads 4 --max-position-embeddings 128 --seq-length 128\n";
  const std::string error = import_error(text);
  EXPECT_EQ(error.rfind("args.txt:2:1: MODEL_SIZE is set here to $3", 0), 0u) << error;
}

// microsoft/Megatron-DeepSpeed: DeepSpeed-Ulysses takes its ranks from the data-parallel size
// (arguments.py: data_parallel_size = world // (pp x tp x ds_sequence_parallel_size)); its MoE
// and GQA flags are Megatron-LM's under other names; the deepspeed launcher's counts are read.
TEST(ImportMegatron, MicrosoftMegatronDeepSpeedNamesAndLauncher) {
  const std::string model =
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 256 "
      "--seq-length 256 --tokenizer-type GPT2BPETokenizer --micro-batch-size 1";
  const auto ulysses = import_ok(
      "deepspeed --num_gpus 8 pretrain_gpt.py --global-batch-size 2 --ds-sequence-parallel-size 4 "
      "--use-flash-attn-triton --no-pipeline-parallel " +
      model + "\n");
  EXPECT_EQ(ulysses.job.training.seq_len, 256u);
  EXPECT_EQ(ulysses.job.parallel.cp, 4);
  EXPECT_EQ(ulysses.job.parallel.dp_shard, 2);
  EXPECT_EQ(ulysses.job.training.gradient_accumulation, 1);
  EXPECT_EQ(ulysses.job.training.attention, attention_impl::flash);
  EXPECT_EQ(ulysses.job.hardware.gpus_per_node, 8);
  EXPECT_NE(find_note(ulysses.notes, "DeepSpeed-Ulysses"), "");
  EXPECT_EQ(find_note(ulysses.notes, "unknown option"), "");
  const auto nodes = import_ok("deepspeed --num_nodes=2 --hostfile h pretrain_gpt.py " + model +
                               " --num-key-value-heads 2 --swiglu\n");
  EXPECT_EQ(nodes.job.hardware.nodes, 2);
  EXPECT_EQ(nodes.job.hardware.gpus_per_node, 8);  // assumed, noted
  EXPECT_NE(find_note(nodes.notes, "deepspeed without --num_gpus"), "");
  EXPECT_EQ(key_of(nodes.job, "num_key_value_heads"), "2");
  // --include host:slots@host:slots: the hosts and the GPUs listed on each.
  const auto include =
      import_ok("deepspeed --hostfile h --include \"a:0,1@b:6,7\" pretrain_gpt.py " + model + "\n");
  EXPECT_EQ(include.job.hardware.nodes, 2);
  EXPECT_EQ(include.job.hardware.gpus_per_node, 2);
  EXPECT_EQ(find_note(include.notes, "deepspeed without --num_gpus"), "");
  // The runner's short option -i is --include.
  const auto short_include = import_ok("deepspeed -i worker-0:0,1 pretrain_gpt.py " + model + "\n");
  EXPECT_EQ(short_include.job.hardware.gpus_per_node, 2);
  EXPECT_EQ(short_include.job.hardware.nodes, 1);
  // A host without slots runs on all of its GPUs: not read from the file.
  const auto all = import_ok("deepspeed --include a pretrain_gpt.py " + model + "\n");
  EXPECT_NE(find_note(all.notes, "deepspeed without --num_gpus"), "");
}

// A program of the repository's own takes the arguments it defines: a Megatron flag it is not
// given is located at the program, not at its first argument.
TEST(ImportMegatron, AFlagAProgramOfItsOwnIsNotGivenIsLocatedAtIt) {
  const std::string message = import_error(
      "torchrun --nproc_per_node=4 \\\n    train.py \\\n    --num_layers 2 \\\n"
      "    --hidden_size 64 --vocab_size 100 --seq_length 128 --max_position_embeddings 128\n");
  EXPECT_NE(message.find("args.txt:2:5: --num-attention-heads is missing"), std::string::npos)
      << message;
}

// Megatron-LLaMA's overlapped distributed optimizer shards the optimizer states as the
// distributed optimizer does.
TEST(ImportMegatron, MegatronLlamasOverlappedOptimizerIsTheDistributedOne) {
  const auto job = import_ok(launch(small_model + "--overlapped-distributed-optimizer\n"));
  EXPECT_TRUE(job.job.parallel.distributed_optimizer);
  EXPECT_NE(find_note(job.notes, "overlapped distributed optimizer"), "");
  EXPECT_EQ(find_note(job.notes, "not among the options"), "");
}

// A global batch that the assumed GPU count does not divide: what is missing is the count, at the
// line where the script counts its GPUs when it runs, else at the global batch.
TEST(ImportMegatron, ABatchAnAssumedGpuCountDoesNotDivideAsksForTheCount) {
  const std::string model =
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 256 "
      "--seq-length 256 --tokenizer-type GPT2BPETokenizer --micro-batch-size 1";
  const std::string counted = import_error(
      "num_gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)\n"
      "deepspeed pretrain_gpt.py --global-batch-size 2 " +
      model + "\n");
  EXPECT_NE(counted.find("args.txt:1:1: --global-batch-size 2 is not divisible by "
                         "--micro-batch-size 1 x data-parallel size 8 on the 8 GPUs assumed"),
            std::string::npos)
      << counted;
  const std::string plain =
      import_error("deepspeed pretrain_gpt.py --global-batch-size 2 " + model + "\n");
  EXPECT_NE(plain.find("args.txt:1:27: --global-batch-size 2 is not divisible"), std::string::npos)
      << plain;
  EXPECT_NE(plain.find("the file does not give the number of GPUs"), std::string::npos) << plain;
  // A count the launch gives is the file's contradiction, as before.
  const std::string given =
      import_error("deepspeed --num_gpus 8 pretrain_gpt.py --global-batch-size 2 " + model + "\n");
  EXPECT_EQ(given.find("assumed"), std::string::npos) << given;
}

TEST(ImportMegatron, MegatronDeepSpeedsZeroStageAndPaddedVocabulary) {
  const std::string model =
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128\n"
      "--seq-length 128 --tokenizer-type PretrainedFromHF --tokenizer-name-or-path x/y\n"
      "--pad-vocab-size-to 1000 --micro-batch-size 1\n";
  const auto zero1 = import_ok(launch(model + "--fp16 --deepspeed --deepspeed_config ds.json\n"
                                      "--zero-stage 1 --deepspeed-activation-checkpointing\n"));
  EXPECT_TRUE(zero1.job.parallel.distributed_optimizer);
  EXPECT_EQ(key_of(zero1.job, "vocab_size"), "1000");  // exactly N rows, no further padding
  EXPECT_EQ(find_note(zero1.notes, "unknown option"), "");
  // bf16 at stage 0: DeepSpeed's BF16_Optimizer shards the fp32 state as stage 1 does.
  const auto bf16 = import_ok(launch(model + "--bf16 --deepspeed --zero-stage 0\n"));
  EXPECT_TRUE(bf16.job.parallel.distributed_optimizer);
  EXPECT_NE(find_note(bf16.notes, "BF16_Optimizer"), "");
  const auto fp16 = import_ok(launch(model + "--fp16 --deepspeed --zero-stage 0\n"));
  EXPECT_FALSE(fp16.job.parallel.distributed_optimizer);
  // Without --deepspeed, --zero-stage does nothing; without --zero-stage, the JSON's stage is
  // not read and the plan says so.
  const auto plain = import_ok(launch(model + "--fp16 --zero-stage 1\n"));
  EXPECT_FALSE(plain.job.parallel.distributed_optimizer);
  const auto json_only = import_ok(launch(model + "--fp16 --deepspeed\n"));
  EXPECT_NE(find_note(json_only.notes, "the ZeRO stage is the DeepSpeed JSON's"), "");
  // Megatron-DeepSpeed's examples fill the JSON's "stage": ZERO_STAGE placeholder with sed: that
  // is the stage, read where sed writes it; a stage sed takes from a value set when the job runs
  // is not.
  const std::string filled =
      "STAGE=2\nsed \"s/CONFIG_MBSIZE/1/\" t.json | sed \"s/ZERO_STAGE/${STAGE}/\" > ds.json\n" +
      launch(model + "--fp16 --deepspeed --deepspeed_config ds.json\n");
  const auto sed = import_ok(filled);
  EXPECT_TRUE(sed.job.parallel.distributed_optimizer);
  EXPECT_EQ(find_note(sed.notes,
                      "the DeepSpeed JSON is written from a template whose ZeRO stage "
                      "sed fills with 2")
                .rfind("args.txt:2:", 0),
            0u)
      << find_note(sed.notes, "template");
  const auto unknown = import_ok("STAGE=$1\nsed -e \"s/ZERO_STAGE/${STAGE}/\" t.json > ds.json\n" +
                                 launch(model + "--fp16 --deepspeed --deepspeed_config ds.json\n"));
  EXPECT_FALSE(unknown.job.parallel.distributed_optimizer);
  EXPECT_NE(find_note(unknown.notes, "the ZeRO stage is the DeepSpeed JSON's"), "");
}

// Assignments written before the launcher are its environment; `eval` runs its words as the
// command.
TEST(ImportMegatron, AssignmentsBeforeTheLaunchAreItsEnvironment) {
  const auto prefixed =
      import_ok("CUDA_DEVICE_MAX_CONNECTIONS=1 NCCL_DEBUG=WARN " + launch(small_model));
  EXPECT_EQ(prefixed.job.env.at("CUDA_DEVICE_MAX_CONNECTIONS"), "1");
  EXPECT_EQ(prefixed.job.env.at("NCCL_DEBUG"), "WARN");
  const auto evaluated =
      import_ok("GPUS=\"--num_nodes 1 --num_gpus 2\"\nrun_cmd=\"deepspeed $GPUS pretrain_gpt.py " +
                small_model.substr(0, small_model.size() - 1) + "\"\neval ${run_cmd}\n");
  EXPECT_EQ(evaluated.job.hardware.gpus_per_node, 2);
}

// The DeepSpeed config a Megatron-DeepSpeed script writes from a here-document gives the ZeRO
// stage DeepSpeed runs, and its precision must be the model's; a template filled by sed too.
TEST(ImportMegatron, TheDeepSpeedConfigTheScriptWritesIsRead) {
  const std::string head =
      "DS=ds.json\nZ=2\ncat <<EOT > $DS\n{\n  \"zero_optimization\": {\"stage\": $Z},\n";
  std::string model = small_model.substr(0, small_model.size() - 1);
  std::replace(model.begin(), model.end(), '\n', ' ');
  const std::string run = "EOT\ndeepspeed --num_gpus 2 pretrain_gpt.py " + model +
                          " --deepspeed --deepspeed_config $DS ";
  const auto staged =
      import_ok(head + "  \"bf16\": {\"enabled\": true}\n}\n" + run + "--bf16 --zero-stage 1\n");
  EXPECT_EQ(staged.job.parallel.kind, strategy::megatron);
  EXPECT_NE(find_note(staged.notes, "says ZeRO stage 2, which DeepSpeed runs; --zero-stage 1"), "");
  const std::string off =
      import_error(head + "  \"bf16\": {\"enabled\": false}\n}\n" + run + "--bf16\n");
  EXPECT_NE(off.find("args.txt:6:"), std::string::npos) << off;
  EXPECT_NE(off.find("turns bf16 off here while --bf16"), std::string::npos) << off;
  const std::string mixed =
      import_error(head + "  \"bf16\": {\"enabled\": true}\n}\n" + run + "--fp16\n");
  EXPECT_NE(mixed.find("turns bf16 on here while --fp16"), std::string::npos) << mixed;
  const std::string templated = import_error(
      "sed \"s/CONFIG_FP16_ENABLED/false/\" t.json | sed \"s/CONFIG_BF16_ENABLED/true/\" > "
      "ds.json\ndeepspeed --num_gpus 2 pretrain_gpt.py " +
      model + " --deepspeed --deepspeed_config ds.json --fp16\n");
  EXPECT_NE(templated.find("args.txt:1:"), std::string::npos) << templated;
  EXPECT_NE(templated.find("turns bf16 on here while --fp16"), std::string::npos) << templated;
}

// The interpreter running a launcher's own script (`python /opt/ds/bin/deepspeed`, `python -m
// deepspeed.launcher.runner`, `python $(which torchrun)`) launches as the launcher does.
TEST(ImportMegatron, ALauncherRunByPythonIsTheLauncher) {
  for (const std::string launcher : {"python /opt/ds/bin/deepspeed --num_gpus 2",
                                     "python3 -u -m deepspeed.launcher.runner "
                                     "--num_gpus 2",
                                     "python $(which torchrun) --nproc_per_node 2"}) {
    const auto imported = import_ok(launcher + " pretrain_gpt.py " + small_model);
    EXPECT_EQ(imported.job.hardware.gpus_per_node, 2) << launcher;
  }
  // A number of GPUs computed when the script runs and copied on is refused where it is computed.
  const std::string message = import_error(
      "N=$(nvidia-smi -L | wc -l)\nGPUS=$N\npython /opt/ds/bin/deepspeed --num_gpus=$GPUS "
      "pretrain_gpt.py " +
      small_model);
  EXPECT_NE(message.find("args.txt:1:"), std::string::npos) << message;
  EXPECT_NE(message.find("known only when the script runs"), std::string::npos) << message;
}

// DLRover's elastic launcher takes torchrun's arguments and starts as many processes a node.
TEST(ImportMegatron, DlroverRunIsTorchrun) {
  const auto one = import_ok(
      "GPUS_PER_NODE=1\ndlrover-run --nproc_per_node $GPUS_PER_NODE "
      "--nnodes 1 pretrain_gpt.py " +
      small_model);
  EXPECT_EQ(one.job.hardware.gpus_per_node, 1);
  const auto two =
      import_ok("dlrover-run --nnodes=2 --nproc_per_node=4 pretrain_gpt.py " + small_model);
  EXPECT_EQ(two.job.hardware.gpus_per_node, 4);
  EXPECT_EQ(two.job.hardware.nodes, 2);
}

// A fork's own pretraining script named for no model family a Megatron GPT covers builds the
// fork's model: refused at the script; one named for a GPT-style family is planned.
TEST(ImportMegatron, AForksPretrainingScriptNamedForNoKnownFamilyIsRefused) {
  std::string model = small_model;
  std::replace(model.begin(), model.end() - 1, '\n', ' ');
  for (const std::string script : {"pretrain_witch_real.py", "pretrain_glm.py"}) {
    const std::string message = import_error("torchrun --nproc_per_node 8 " + script + " " + model);
    EXPECT_NE(message.find(script + " builds the fork's own model"), std::string::npos) << message;
  }
  for (const std::string script : {"pretrain_llama.py", "pretrain_gpt_owt.py", "pretrain_qwen2.py"})
    EXPECT_EQ(import_error("torchrun --nproc_per_node 8 " + script + " " + model), "(imported)")
        << script;
}

// An entry script named for a training with a second model (DPO, PPO, a reward model, a
// distillation) is refused at the script: the plan holds one model.
TEST(ImportMegatron, AnEntryScriptOfPreferenceOrDistillationTrainingIsRefused) {
  for (const std::string script :
       {"dpo_training.py", "train_ppo.py", "pretrain_reward_model.py", "distill-gpt.py"}) {
    const std::string message =
        import_error("torchrun --nproc_per_node 8 " + script + " " + small_model);
    EXPECT_NE(message.find(script + " builds a"), std::string::npos) << message;
    EXPECT_NE(message.find("beside a reference, reward, value or teacher model"), std::string::npos)
        << message;
  }
  // MS-AMP's --msamp (FP8 weights, LBAdamW's 8-bit moments) is refused at the flag.
  const std::string msamp = import_error(launch(small_model + "--msamp\n"));
  EXPECT_NE(msamp.find("--msamp: MS-AMP's FP8 training"), std::string::npos) << msamp;
  // A fork's CPU training is refused at its flag.
  EXPECT_NE(import_error(launch(small_model + "--no-cuda\n"))
                .find("--no-cuda: a fork's flag that trains on the CPU"),
            std::string::npos);
  // pull/3689's Engram n-gram memory is refused at its flag.
  const std::string engram =
      import_error(launch(small_model + "--use-engram --engram-layer-ids 1\n"));
  EXPECT_NE(engram.find("--use-engram: Engram (pull/3689) adds hashed n-gram embedding tables"),
            std::string::npos)
      << engram;
  EXPECT_NE(msamp.find("remove --msamp to plan"), std::string::npos) << msamp;
  // A word that only contains one of those names is no such script.
  import_ok("torchrun --nproc_per_node 8 pretrain_gpt_kdd.py " + small_model);
  // A script that runs a trained model trains nothing; named through a string variable, it is
  // refused where its name is written.
  const std::string generation = import_error("PROGRAM=\"tools/generate_samples_gpt.py " +
                                              small_model.substr(0, small_model.size() - 1) +
                                              "\"\ndeepspeed --num_gpus 2 $PROGRAM\n");
  EXPECT_EQ(generation.rfind("args.txt:1:10: generate_samples_gpt.py runs a trained model", 0), 0u)
      << generation;
  // A checkpoint converter (or a data preparation tool) trains nothing either.
  const std::string converter = import_error(
      "torchrun --nproc_per_node 1 tools/hf2megads_weight_converter.py " + small_model);
  EXPECT_NE(converter.find("hf2megads_weight_converter.py converts a checkpoint or prepares data"),
            std::string::npos)
      << converter;
}

// HPC sites' launchers: IBM LSF's jsrun (resource sets, --nrs / -n, of --tasks_per_rs processes,
// --rs_per_host a node), Cray's aprun, Flux's run, Cray PALS's mpiexec --ppn; bash's `time` and
// other command prefixes before the launcher do not hide it.
TEST(ImportMegatron, SiteLaunchersGiveTheGpusAndTheNodes) {
  const std::string args = " python pretrain_gpt.py --tensor-model-parallel-size 6 " +
                           small_model.substr(0, small_model.size() - 1) + "\n";
  const auto summit =
      import_ok("time jsrun --nrs 48 --tasks_per_rs 1 --gpu_per_rs 1 --rs_per_host 6" + args);
  EXPECT_EQ(summit.job.hardware.gpus_per_node, 6);
  EXPECT_EQ(summit.job.hardware.nodes, 8);
  EXPECT_NE(find_note(summit.notes, "jsrun starts 48 process(es), one a GPU: 6 a node x 8 node(s)"),
            "");
  const auto attached = import_ok("nohup jsrun -n12 -a6 -g6 -r1" + args);
  EXPECT_EQ(attached.job.hardware.gpus_per_node, 6);
  EXPECT_EQ(attached.job.hardware.nodes, 12);
  const auto no_host = import_ok("jsrun -n 12 -a 1 -g 1" + args);
  EXPECT_NE(find_note(no_host.notes, "jsrun without --rs_per_host"), "");
  EXPECT_NE(
      import_error("jsrun --nrs 15 --rs_per_host 6 -g 1" + args).find("does not fill whole nodes"),
      std::string::npos);
  EXPECT_NE(import_error("jsrun --nrs x --rs_per_host 6" + args).find("jsrun --nrs"),
            std::string::npos);
  const auto aprun = import_ok("aprun -n 24 -N 6 -d 8" + args);
  EXPECT_EQ(aprun.job.hardware.gpus_per_node, 6);
  EXPECT_EQ(aprun.job.hardware.nodes, 4);
  const auto flux = import_ok("flux run -N 2 -n 12 -g 1" + args);
  EXPECT_EQ(flux.job.hardware.gpus_per_node, 6);
  EXPECT_EQ(flux.job.hardware.nodes, 2);
  const auto mini = import_ok("flux mini run --ntasks=12 --tasks-per-node=6" + args);
  EXPECT_EQ(mini.job.hardware.nodes, 2);
  EXPECT_NE(import_error("flux run -N 5 -n 12" + args).find("do not split evenly over 5 nodes"),
            std::string::npos);
  const auto pals = import_ok("mpiexec -n 12 --ppn 6 --depth 8" + args);
  EXPECT_EQ(pals.job.hardware.gpus_per_node, 6);
  EXPECT_EQ(pals.job.hardware.nodes, 2);
}

// bash takes NAME=value as an assignment only where it is written before the command: one that
// an expansion produces names the command, and the launch fails.
TEST(ImportMegatron, AnAssignmentFromAnExpansionIsTheCommandsNameAndFails) {
  const std::string model =
      "--num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128 "
      "--seq-length 128 --micro-batch-size 1";
  const std::string error = import_error("ENV_ARGS=\"WANDB_DISABLED=true NCCL_DEBUG=INFO\"\n"
                                         "$ENV_ARGS torchrun --nproc_per_node 2 pretrain_gpt.py " +
                                         model + "\n");
  EXPECT_NE(error.find("args.txt:2:1: the launch of pretrain_gpt.py starts with "
                       "WANDB_DISABLED=true, which an expansion produces"),
            std::string::npos)
      << error;
  // Written literally, the same assignments are the command's environment.
  const auto literal = import_ok("WANDB_DISABLED=true NCCL_DEBUG=INFO torchrun --nproc_per_node 2 "
                                 "pretrain_gpt.py " + model + "\n");
  EXPECT_EQ(literal.job.hardware.gpus_per_node, 2);
}

// A file of argument variables that runs nothing (NVIDIA's model-argument files that launch
// scripts source) is read as the arguments they hold.
TEST(ImportMegatron, AFileOfArgumentVariablesIsItsArguments) {
  const auto imported = import_ok(
      "#!/bin/bash\nTOKENIZER=gpt2\nMODEL_ARGS=\" \\\n    --num-layers 2 \\\n"
      "    --hidden-size 64 \\\n"
      "    --num-attention-heads 4 --max-position-embeddings 128 \\\n"
      "    --seq-length 128 --micro-batch-size 1 --vocab-size 1000\n\"\n");
  EXPECT_EQ(imported.job.training.seq_len, 128);
  EXPECT_EQ(key_of(imported.job, "n_layer"), "2");
  EXPECT_NE(find_note(imported.notes, "read as the arguments its variables hold (MODEL_ARGS)"), "");
}

// An entry script other than pretrain_gpt.py sets its own tokenizer default, which the launch
// does not show: refused at the script's word when neither --tokenizer-type nor --vocab-size is
// given.
TEST(ImportMegatron, AnotherEntryScriptsTokenizerIsRefusedAtTheScript) {
  const std::string model =
      " --num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128"
      " --seq-length 128 --micro-batch-size 1\n";
  const std::string error =
      import_error("torchrun --nproc_per_node 1 experiments/gpt2.py" + model);
  EXPECT_NE(error.find("args.txt:1:29: the arguments give neither --tokenizer-type nor "
                       "--vocab-size, and gpt2.py is not Megatron-LM's pretrain_gpt.py"),
            std::string::npos)
      << error;
  const auto gpt = import_ok("torchrun --nproc_per_node 1 pretrain_gpt.py" + model);
  EXPECT_NE(find_note(gpt.notes, "GPT2BPETokenizer"), "");
}

// pretrain_gpt.py without --tokenizer-type runs GPT-2's BPE, which ignores --vocab-size (read
// only by the NullTokenizer and TikTokenizer): 50,257 tokens padded to 128 x tp.
TEST(ImportMegatron, VocabSizeBesideTheDefaultTokenizerChangesNothing) {
  const std::string model =
      " --num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128"
      " --seq-length 128 --micro-batch-size 1 --tensor-model-parallel-size 2 --vocab-size 51200\n";
  const auto gpt = import_ok("torchrun --nproc_per_node 2 pretrain_gpt.py" + model);
  EXPECT_EQ(key_of(gpt.job, "vocab_size"), "50432");
  EXPECT_NE(find_note(gpt.notes, "--vocab-size 51200 is read only by the NullTokenizer"), "");
  const auto null = import_ok("torchrun --nproc_per_node 2 pretrain_gpt.py" +
                              model.substr(0, model.size() - 1) +
                              " --tokenizer-type NullTokenizer\n");
  EXPECT_EQ(key_of(null.job, "vocab_size"), "51200");  // the NullTokenizer's own --vocab-size
}

// --padded-vocab-size N (Megatron-LM's TokenizerConfig) is the embedding's row count whatever the
// tokenizer: beside the NullTokenizer's --vocab-size, and for a tokenizer whose vocabulary is in
// files the import does not read.
TEST(ImportMegatron, PaddedVocabSizeIsTheEmbeddingsRows) {
  const std::string model =
      " --num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128"
      " --seq-length 128 --micro-batch-size 1 --tensor-model-parallel-size 2";
  const auto null = import_ok("torchrun --nproc_per_node 2 pretrain_gpt.py" + model +
                              " --tokenizer-type NullTokenizer --vocab-size 32000"
                              " --padded-vocab-size 151936\n");
  EXPECT_EQ(key_of(null.job, "vocab_size"), "151936");
  EXPECT_EQ(find_note(null.notes, "unknown option"), "");
  const auto hf = import_ok("torchrun --nproc_per_node 2 pretrain_gpt.py" + model +
                            " --tokenizer-type HuggingFaceTokenizer --tokenizer-model org/name"
                            " --padded-vocab-size 128256\n");
  EXPECT_EQ(key_of(hf.job, "vocab_size"), "128256");
  EXPECT_NE(refusal("torchrun --nproc_per_node 2 pretrain_gpt.py" + model +
                    " --tokenizer-type HuggingFaceTokenizer --tokenizer-model org/name\n")
                .find("add --vocab-size N"),
            std::string::npos);
}

// --yaml-cfg replaces every argument with the YAML's; --kd and --mos build a teacher model
// beside the student: both are refused at their line, saying what would make them plannable.
TEST(ImportMegatron, YamlConfigsAndTeachersAreRefusedAtTheirLine) {
  const std::string yaml =
      import_error("CFG=(\n  --yaml-cfg gpt.yaml\n)\n"
                   "torchrun --nproc_per_node 4 pretrain_gpt.py ${CFG[@]} --log-interval 1\n");
  EXPECT_NE(yaml.find("args.txt:2:3: --yaml-cfg gpt.yaml: Megatron-LM takes every argument from "
                      "that YAML file"),
            std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("write them as Megatron-LM arguments in place of --yaml-cfg"),
            std::string::npos);
  const std::string kd =
      import_error(launch(small_model + "--kd\n--num-layers-teacher 2\n--load-teacher t\n", 8));
  EXPECT_NE(kd.find("args.txt:4:1: --kd: Megatron-DeepSpeed builds a teacher model"),
            std::string::npos)
      << kd;
  EXPECT_NE(kd.find("plan the student without --kd"), std::string::npos);
}

// --ckpt-convert-format makes the launch save its checkpoint in another format and exit before
// the first step (training.py, setup_model_and_optimizer): refused at the flag, even where an
// if branch the script takes adds it.
TEST(ImportMegatron, ACheckpointConversionIsRefusedAtItsFlag) {
  std::string model = small_model;
  std::replace(model.begin(), model.end(), '\n', ' ');
  const std::string text =
      "MODE=convert\nEXTRA=\"\"\nif [ $MODE = convert ]; then\n"
      "  EXTRA=\"--ckpt-convert-format torch --ckpt-convert-save out\"\nfi\n"
      "torchrun --nproc_per_node 8 pretrain_gpt.py " +
      model + "$EXTRA\n";
  const std::string convert = import_error(text);
  EXPECT_NE(convert.find(":4:10: --ckpt-convert-format torch: Megatron-LM loads the checkpoint, "
                         "saves it in that format and exits before the first training step"),
            std::string::npos)
      << convert;
  EXPECT_NE(convert.find("remove --ckpt-convert-format and --ckpt-convert-save"),
            std::string::npos);
  // The same launch training (the branch not taken) plans.
  auto trains = text;
  trains.replace(0, 12, "MODE=train\n");
  import_ok(trains);
}

// A launch the file only writes out starts no training: printed by echo word by word, or held
// in a variable nothing expands, each refused where it is written. A command shown by `echo
// $CMD` and run by another line, and a variable another expands (a branch's `task=$cmd`, then
// `eval "$task $args"`), are no such thing.
TEST(ImportMegatron, ALaunchOnlyPrintedOrHeldInAVariableIsRefusedWhereItIsWritten) {
  std::string model = small_model;
  std::replace(model.begin(), model.end(), '\n', ' ');
  const std::string printed = import_error(
      "GPUS=4\necho torchrun --nproc_per_node $GPUS \\\n  pretrain_gpt.py " + model + "\n");
  EXPECT_EQ(printed.rfind("args.txt:2:1: the launch of pretrain_gpt.py is only printed (echo "
                          "torchrun ...), not run",
                          0),
            0u)
      << printed;
  EXPECT_NE(printed.find("remove the echo to plan it"), std::string::npos);
  const std::string held = import_error(
      "ARGS=\"" + model + "\"\nrun_cmd=\"deepspeed --num_gpus 4 pretrain_gpt.py $ARGS\"\n");
  EXPECT_EQ(held.rfind("args.txt:2:1: run_cmd is set to a launch of pretrain_gpt.py (deepspeed "
                       "...) that the file never runs",
                       0),
            0u)
      << held;
  EXPECT_NE(held.find("run it (eval \"$run_cmd\") to plan it"), std::string::npos);
  // Shown, then run: the run is the launch.
  const auto shown = import_ok("CMD=\"torchrun --nproc_per_node 4 pretrain_gpt.py " + model +
                               "\"\necho $CMD\neval $CMD\n");
  EXPECT_EQ(shown.job.hardware.gpus_per_node, 4);
  // Expanded by another variable that a later line runs: not refused as never run.
  const std::string indirect = import_error(
      "train=\"deepspeed --num_gpus 4 pretrain_gpt.py\"\nif [ \"$1\" = x ]; then\n  "
      "task=\"$other\"\n"
      "else\n  task=\"$train\"\nfi\nargs=\"" +
      model + "\"\neval \"$task $args\"\n");
  EXPECT_EQ(indirect.find("never runs"), std::string::npos) << indirect;
}

// A script named through a string variable, its path expanded from another
// (`${DIR}/pretrain_t5.py`), is located where its file name is written, at the path's start.
TEST(ImportMegatron, AScriptNamedInAStringIsLocatedWhereItsNameIsWritten) {
  const std::string e = import_error(
      "DIR=~/Megatron-LM\nrun_cmd=\"python -m torch.distributed.launch ${DIR}/pretrain_t5.py "
      "--num-layers 2\"\n\neval $run_cmd\n");
  EXPECT_EQ(e.rfind("args.txt:2:45: pretrain_t5.py builds T5", 0), 0u) << e;
}

// A flag written in two variables (two branches' options) is located in the one the launch
// expands, the last assignment of that name above it.
TEST(ImportMegatron, AFlagWrittenTwiceIsLocatedInTheVariableTheLaunchExpands) {
  std::string model = small_model;
  std::replace(model.begin(), model.end(), '\n', ' ');
  model.erase(model.find("--tokenizer-type"));
  const std::string e = refusal(
      "other_options=\" \\\n    --tokenizer-type SentencePieceTokenizer \\\n    --seq-length 64\"\n"
      "data_options=\" \\\n    --tokenizer-type SentencePieceTokenizer \\\n"
      "    --tokenizer-model ${TOK}\"\n"
      "torchrun --nproc_per_node 2 pretrain_gpt.py " +
      model + "\\\n    ${data_options}\n");
  EXPECT_EQ(e.rfind("args.txt:5:5: --tokenizer-type SentencePieceTokenizer", 0), 0u) << e;
}

// A fork's --config naming a file of arguments holds the model: refused at it when the launch
// gives no --num-layers.
TEST(ImportMegatron, AForksConfigFileOfArgumentsIsRefusedAtIt) {
  const std::string e = import_error(
      "python -m torch.distributed.launch --nproc_per_node 2 pretrain_gpt2.py \\\n"
      "    --config configs/pretrain_gpt2.yaml\n");
  EXPECT_EQ(e.rfind("args.txt:2:5: --config configs/pretrain_gpt2.yaml: no --num-layers among the "
                    "Megatron-LM arguments of pretrain_gpt2.py (line 1)",
                    0),
            0u)
      << e;
}

// --use-checkpoint-args takes the model's arguments from the checkpoint --load names, which the
// launch may then leave out: refused at that flag, saying where the model is.
TEST(ImportMegatron, AModelTakenFromTheCheckpointIsRefusedAtUseCheckpointArgs) {
  const std::string e = import_error(
      "torchrun --nproc_per_node 8 pretrain_gpt.py --micro-batch-size 1 \\\n"
      "    --use-checkpoint-args --load ckpt/llama --bf16\n");
  EXPECT_EQ(e.rfind("args.txt:2:5: --use-checkpoint-args: no --num-layers among the Megatron-LM "
                    "arguments of pretrain_gpt.py (line 1)",
                    0),
            0u)
      << e;
}

// A world the model-parallel sizes do not divide is refused at the size the world does not
// hold, as written (not at a tensor-parallel flag the launch does not give).
TEST(ImportMegatron, AWorldNotDivisibleIsRefusedAtTheSizeItDoesNotHold) {
  std::string model = small_model;
  std::replace(model.begin(), model.end(), '\n', ' ');
  const std::string pp = import_error("torchrun --nproc_per_node 1 pretrain_gpt.py " + model +
                                      "\\\n  --pipeline-model-parallel-size 4\n");
  EXPECT_EQ(pp.rfind("args.txt:2:3: the world of 1 GPUs", 0), 0u) << pp;
  const std::string tp = import_error("torchrun --nproc_per_node 8 pretrain_gpt.py " + model +
                                      "\\\n  --tensor-model-parallel-size 2 \\\n"
                                      "  --pipeline-model-parallel-size 16\n");
  EXPECT_EQ(tp.rfind("args.txt:3:3: the world of 8 GPUs", 0), 0u) << tp;
}

// A launch whose model comes only from a variable the script sets from its own argument
// (`CONF=$1`, then `--config "$CONF"`, also inside a string srun's shell runs) is refused where
// the argument is taken, as other values known only when the script runs are.
TEST(ImportMegatron, AModelGivenOnlyByTheScriptsArgumentIsRefusedWhereItIsTaken) {
  const std::string plain = import_error(
      "#!/bin/bash\nexport CONF=$1\ntorchrun --nproc_per_node 4 pretrain_gpt.py "
      "--config \"${CONF}\"\n");
  EXPECT_NE(plain.find("args.txt:2:8: no --num-layers among the Megatron-LM arguments of "
                       "pretrain_gpt.py (line 3)"),
            std::string::npos)
      << plain;
  EXPECT_NE(plain.find("CONF is set here to $1, an argument the script is given when it runs"),
            std::string::npos);
  const std::string quoted = import_error(
      "#!/bin/bash\nexport CONF=$1\nsrun bash -c \"\n  python -m torch.distributed.run "
      "--nnodes=2 --nproc-per-node=4 pretrain_gpt.py \\\n    --config \\\"${CONF}\\\"\n\"\n");
  EXPECT_NE(quoted.find("args.txt:2:8: no --num-layers"), std::string::npos) << quoted;
  // A variable the script never sets is still said to be one.
  const std::string unset =
      import_error("torchrun --nproc_per_node 4 pretrain_gpt.py --config \"${CONF}\"\n");
  EXPECT_NE(unset.find("which the script does not set"), std::string::npos) << unset;
}

// The GPUs a node from mpirun's -npernode (or -ppn, --map-by ppr:N:node) and the nodes from -np;
// a node count set when the job runs (-np $WORLD_SIZE of the scheduler's hosts, torchrun --nnodes
// $SLURM_NNODES) plans the fewest nodes that hold the model parallelism, noted.
TEST(ImportMegatron, LauncherCountsSetWhenTheJobRunsPlanTheFewestNodes) {
  const std::string args = " pretrain_gpt.py --tensor-model-parallel-size 4 "
                           "--pipeline-model-parallel-size 2 " +
                           small_model.substr(0, small_model.size() - 1) + "\n";
  const auto fixed = import_ok("mpirun -np 16 -npernode 4 python" + args);
  EXPECT_EQ(fixed.job.hardware.gpus_per_node, 4);
  EXPECT_EQ(fixed.job.hardware.nodes, 4);
  const auto open = import_ok("mpirun -np $WORLD_SIZE -npernode 4 --hostfile h python" + args);
  EXPECT_EQ(open.job.hardware.gpus_per_node, 4);
  EXPECT_EQ(open.job.hardware.nodes, 2);  // 8 GPUs hold tensor 4 x pipeline 2
  EXPECT_NE(find_note(open.notes, "planned on 2 node(s) of 4 GPUs"), "");
  const auto ppn = import_ok("mpiexec -n 8 -ppn 8 python" + args);
  EXPECT_EQ(ppn.job.hardware.gpus_per_node, 8);
  EXPECT_EQ(ppn.job.hardware.nodes, 1);
  const auto slurm =
      import_ok("torchrun --nproc_per_node 4 --nnodes \"$SLURM_NNODES\"" + args);
  EXPECT_EQ(slurm.job.hardware.gpus_per_node, 4);
  EXPECT_EQ(slurm.job.hardware.nodes, 2);
  EXPECT_NE(find_note(slurm.notes, "is set when the job runs"), "");
  EXPECT_NE(import_error("mpirun -np 10 -npernode 4 python" + args).find("not a multiple of 4"),
            std::string::npos);
  // An option and its value in one word; mpirun starting a `bash -c` string that runs Python
  // (the ranks taken from Open MPI's environment) as it starts Python itself.
  const auto joined = import_ok("mpirun --np=16 -npernode=4 python" + args);
  EXPECT_EQ(joined.job.hardware.gpus_per_node, 4);
  EXPECT_EQ(joined.job.hardware.nodes, 4);
  const auto string = import_ok(
      "mpirun -np 16 -npernode 4 -x MASTER_ADDR bash -c 'export RANK=$OMPI_COMM_WORLD_RANK; exec "
      "python" +
      args.substr(0, args.size() - 1) + "'\n");
  EXPECT_EQ(string.job.hardware.gpus_per_node, 4);
  EXPECT_EQ(string.job.hardware.nodes, 4);
}

// A dropout the script leaves to a variable it never sets is refused as any such number is,
// saying to write it; one out of range says what it takes.
TEST(ImportMegatron, ADropoutFromAnUnsetVariableSaysToWriteIt) {
  const std::string unset = refusal(launch(small_model + "--hidden-dropout $HID_DROPOUT\n"));
  EXPECT_NE(unset.find("--hidden-dropout: \"$HID_DROPOUT\" uses a variable or command the script "
                       "does not set; write the number"),
            std::string::npos)
      << unset;
  const std::string range = refusal(launch(small_model + "--attention-dropout 1.5\n"));
  EXPECT_NE(range.find("expected a probability from 0 to 1, got \"1.5\"; write one to plan it"),
            std::string::npos)
      << range;
}

// A variable the script never sets standing alone after a flag's value is no second value: bash
// expands it, unset or empty, to no word.
TEST(ImportMegatron, AnUnsetVariableAfterAValueIsNoValue) {
  const auto imported =
      import_ok("ARGS=(\n  --pipeline-model-parallel-size 2\n  $MAYBE_VIRTUAL\n)\n"
                "torchrun --nproc_per_node 8 pretrain_gpt.py ${ARGS[@]} " +
                small_model.substr(0, small_model.size() - 1) + "\n");
  EXPECT_EQ(imported.job.parallel.pp, 2);
  EXPECT_NE(find_note(imported.notes, "\"$MAYBE_VIRTUAL\" is a variable the script does not set"),
            "");
}

}  // namespace
}  // namespace vramscope::job

namespace vramscope::job {
namespace {

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// A launch that several facts keep from a plan is refused at the most fundamental (which model,
// then its shape and vocabulary, then the GPU count and launch details), with the others listed
// after it by line, whatever their order in the file.
TEST(ImportMegatronRefusals, TheMostFundamentalFactFirstAndTheOthersListed) {
  // The GPU count known only at run time (line 1), the vocabulary in a tokenizer's files
  // (line 4): the vocabulary first. (A bare probe of the GPUs would be assumed, not refused.)
  const std::string e = first_line(import_error(
      "GPUS=$(( $(nvidia-smi -L | wc -l) / 2 ))\n"
      "torchrun --nproc_per_node $GPUS pretrain_gpt.py \\\n"
      "  --num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128 \\\n"
      "  --seq-length 128 --tokenizer-type HuggingFaceTokenizer --tokenizer-model org/name\n"));
  EXPECT_TRUE(e.starts_with("args.txt:4:")) << e;
  EXPECT_NE(e.find("--tokenizer-type HuggingFaceTokenizer"), std::string::npos) << e;
  EXPECT_NE(e.find("1 more keeps it from a plan after that: line 1: "), std::string::npos) << e;
  EXPECT_NE(e.find("GPUS is set here to"), std::string::npos) << e;
}

// Megatron-LM's vision-language training scripts are refused at the option that chooses the
// model, before the tokenizer beside it; without the option, at the script.
TEST(ImportMegatronRefusals, VisionLanguageScriptsAtTheOptionThatChoosesTheModel) {
  const std::string shape =
      "  --num-layers 2 --hidden-size 64 --num-attention-heads 4 --max-position-embeddings 128 \\\n"
      "  --seq-length 128 --tokenizer-type MultimodalTokenizer --tokenizer-model org/name \\\n";
  const std::string llava =
      first_line(import_error("torchrun --nproc_per_node 8 examples/multimodal/train.py \\\n" +
                              shape + "  --language-model-type=mistral_7b\n"));
  EXPECT_TRUE(llava.starts_with("args.txt:4:")) << llava;
  EXPECT_NE(llava.find("--language-model-type mistral_7b: the launch trains "
                       "examples/multimodal/train.py's vision-language model"),
            std::string::npos)
      << llava;
  EXPECT_NE(llava.find("line 3: --tokenizer-type MultimodalTokenizer"), std::string::npos) << llava;
  const std::string mimo = first_line(import_error(
      "torchrun --nproc_per_node 2 examples/mimo/train.py \\\n  --model-provider mock \\\n" +
      shape + "  --micro-batch-size 1\n"));
  EXPECT_TRUE(mimo.starts_with("args.txt:2:")) << mimo;
  EXPECT_NE(mimo.find("examples/mimo/train.py's multimodal model"), std::string::npos) << mimo;
  const std::string bare = first_line(import_error(
      "torchrun --nproc_per_node 2 examples/mimo/train.py \\\n" + shape + "  --bf16\n"));
  EXPECT_TRUE(bare.starts_with("args.txt:1:")) << bare;
  EXPECT_NE(bare.find("examples/mimo/train.py: the launch trains"), std::string::npos) << bare;
}

// The shape chosen among a conditional's branches by a variable the script's arguments set is
// which model the launch trains: refused where that variable is set, before the GPU count.
TEST(ImportMegatronRefusals, ShapeChosenByTheScriptsArgumentsAtTheAssignment) {
  const std::string e = first_line(import_error(
      "ENV=$1\n"
      "if [ $ENV = local ]; then\n  GPUS=8\nfi\n"
      "SIZE=$2\n"
      "if [ $SIZE = small ]; then\n  LAYERS=2\nelif [ $SIZE = large ]; then\n  LAYERS=48\nfi\n"
      "torchrun --nproc_per_node $GPUS pretrain_gpt.py \\\n"
      "  --num-layers $LAYERS --hidden-size 64 --num-attention-heads 4 \\\n"
      "  --max-position-embeddings 128 --seq-length 128 --tokenizer-type GPT2BPETokenizer\n"));
  EXPECT_TRUE(e.starts_with("args.txt:5:1: SIZE is set here to $2")) << e;
  EXPECT_NE(e.find("it chooses the model: --num-layers \"$LAYERS\""), std::string::npos) << e;
  // The GPU count its first argument chooses comes after, where that argument is taken.
  EXPECT_NE(e.find("line 1: ENV is set here to $1, an argument the script is given when it runs, "
                   "and it chooses torchrun --nproc_per_node (line 11)"),
            std::string::npos)
      << e;
}

}  // namespace
}  // namespace vramscope::job
