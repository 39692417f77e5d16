#include <vramscope/import/importers.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "import/import_common.hpp"
#include "import/import_test_support.hpp"

namespace vramscope::job {
namespace {

// The importers' one line walk: numbered from 1, blank lines kept, a final '\n' starting no
// further line, and stopped when the visitor says so.
TEST(Importers, ForEachLineNumbersLinesAndStopsWhenAsked) {
  std::vector<std::pair<int, std::string>> seen;
  detail::for_each_line("a\n\nc\n", [&](std::string_view line, int number) {
    seen.emplace_back(number, std::string(line));
    return true;
  });
  const std::vector<std::pair<int, std::string>> all{{1, "a"}, {2, ""}, {3, "c"}};
  EXPECT_EQ(seen, all);
  seen.clear();
  detail::for_each_line("a\nstop\nc", [&](std::string_view line, int number) {
    seen.emplace_back(number, std::string(line));
    return line != "stop";
  });
  const std::vector<std::pair<int, std::string>> stopped{{1, "a"}, {2, "stop"}};
  EXPECT_EQ(seen, stopped);
  int calls = 0;
  detail::for_each_line("", [&](std::string_view, int) { return ++calls > 0; });
  EXPECT_EQ(calls, 0);
}

TEST(Importers, DetectFormatFromContent) {
  EXPECT_EQ(detect_format("  {\"zero_optimization\": {}}"), config_format::deepspeed);
  EXPECT_EQ(detect_format("# comment\n[model]\nname = \"llama3\"\n"), config_format::torchtitan);
  EXPECT_EQ(detect_format("compute_environment: LOCAL_MACHINE\n"), config_format::accelerate);
  EXPECT_EQ(detect_format("debug: false\ndistributed_type: FSDP\n"), config_format::accelerate);
  EXPECT_EQ(detect_format("model: llama-3.1-8b\n"), config_format::unknown);
  EXPECT_EQ(detect_format(""), config_format::unknown);
  EXPECT_EQ(detect_format("model:\n  _component_: torchtune.models.llama3_1.lora_llama3_1_8b\n"),
            config_format::torchtune);
  EXPECT_EQ(detect_format("model:\n  _component_: mylib.build\n"), config_format::unknown);
}

// git's conflict markers: the file holds both sides of a merge and loads in no framework; refused
// at the first marker, whatever the format.
TEST(Importers, AnUnresolvedMergeConflictIsRefusedAtItsMarker) {
  const std::string conflicted =
      "model:\n  _component_: torchtune.models.llama3_2.llama3_2_1b\n<<<<<<< HEAD\ndevice: cuda\n"
      "=======\ndevice: cpu\n>>>>>>> main\n";
  auto imported = import_config_text(conflicted, "c.yaml");
  ASSERT_FALSE(imported);
  EXPECT_EQ(imported.error().line, 3);
  EXPECT_NE(imported.error().message.find("an unresolved merge conflict"), std::string::npos);
  EXPECT_NE(imported.error().message.find("resolve the conflict to plan it"), std::string::npos);
  // Seven '<' that start a longer word are no marker.
  auto heredoc = import_config_text("<<<<<<<<EOF\n", "h.sh");
  ASSERT_FALSE(heredoc);
  EXPECT_EQ(heredoc.error().message.find("merge conflict"), std::string::npos);
}

// A YAML config that is a template (nearai's torchtune configs: `path: {TOKENIZER}`, filled by
// Python's str.format; Jinja's `{{ model_dir }}`) is refused at its first placeholder, which YAML
// reads as a mapping of one key with no value; a real flow mapping is no placeholder.
TEST(Importers, ATemplatesPlaceholderIsRefusedWhereItIsWritten) {
  auto tune = import_config_text(
      "model:\n  _component_: torchtune.models.llama3_2.lora_llama3_2_1b\n"
      "tokenizer:\n  _component_: torchtune.models.llama3.llama3_tokenizer\n"
      "  path: {TOKENIZER}\ncheckpointer:\n  checkpoint_dir: {{ model_dir }}\n",
      "t.yaml");
  ASSERT_FALSE(tune);
  EXPECT_EQ(tune.error().line, 5);
  EXPECT_NE(tune.error().message.find("tokenizer.path: {TOKENIZER} is a template's placeholder"),
            std::string::npos)
      << tune.error().message;
  EXPECT_NE(tune.error().message.find("which torchtune cannot use there"), std::string::npos);
  auto jinja = import_config_text(
      "distributed_type: MULTI_GPU\nnum_processes: {{ gpus }}\nmixed_precision: bf16\n", "a.yaml");
  ASSERT_FALSE(jinja);
  EXPECT_EQ(jinja.error().line, 2);
  EXPECT_NE(jinja.error().message.find("num_processes: {{gpus}} is a template's placeholder"),
            std::string::npos)
      << jinja.error().message;
  auto flow = import_config_text(
      "distributed_type: MULTI_GPU\nnum_processes: 2\nmixed_precision: bf16\n"
      "dynamo_config: {dynamo_backend: 'NO'}\nfsdp_config: {}\n",
      "a.yaml");
  ASSERT_TRUE(flow) << flow.error().to_string();
}

// A file with nothing but blanks and comments is refused at its first line as one that holds no
// settings, whatever its name says it is.
TEST(Importers, AFileWithNoSettingsIsRefusedAtItsFirstLine) {
  for (const char* name : {"ds_stage1.json", "accelerate.yaml", "run.sh"})
    for (const std::string& text :
         {std::string(), std::string("\n  \n"), std::string("# stage 1, to be filled in\n\n")}) {
      auto imported = import_config_text(text, name);
      ASSERT_FALSE(imported) << name;
      EXPECT_EQ(imported.error().line, 1) << name;
      EXPECT_NE(imported.error().message.find("the file holds no settings"), std::string::npos)
          << imported.error().message;
    }
  // One setting is enough not to be called empty.
  auto one = import_config_text("# ZeRO\n{\"zero_optimization\": {\"stage\": 1}}\n", "z.json");
  if (!one) {
    EXPECT_EQ(one.error().message.find("holds no settings"), std::string::npos);
  }
}

// A Kubernetes resource holds the container's command, not the framework's config: refused at
// the command that runs a launcher, else at its kind.
TEST(Importers, AKubernetesResourceIsRefusedAtItsCommand) {
  const std::string runtime =
      "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nspec:\n"
      "  template:\n    spec:\n      containers:\n        - name: node\n          command:\n"
      "            - tune\n            - run\n            - full_finetune_distributed\n";
  auto tune = import_config_text(runtime, "rt.yaml");
  ASSERT_FALSE(tune);
  EXPECT_EQ(tune.error().line, 8);
  EXPECT_NE(tune.error().message.find("a Kubernetes ClusterTrainingRuntime"), std::string::npos);
  auto bare = import_config_text("apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: x\n",
                                 "pod.yaml");
  ASSERT_FALSE(bare);
  EXPECT_EQ(bare.error().line, 2);
}

// A Kubernetes manifest whose container runs a Megatron-LM launch is read as that launch: its
// command's items then its args', each one word, located on the manifest's lines.
TEST(Importers, AKubernetesContainerRunningMegatronIsItsLaunch) {
  const std::string head =
      "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nspec:\n  pytorchReplicaSpecs:\n"
      "    Worker:\n      replicas: 2\n      template:\n        spec:\n          containers:\n"
      "            - name: pytorch\n";
  const std::string args =
      "                - --num-layers=2\n                - --hidden-size=64\n"
      "                - --num-attention-heads=4\n                - --seq-length=128\n"
      "                - --max-position-embeddings=128\n                - --micro-batch-size=3\n"
      "                - --tokenizer-type=GPT2BPETokenizer\n                - --bf16\n";
  auto planned = import_config_text(
      head +
          "              command: [\"torchrun\", \"--nproc_per_node=4\", \"--nnodes=1\"]\n"
          "              args:\n                - /workspace/Megatron-LM/pretrain_gpt.py\n" +
          args,
      "job.yaml");
  ASSERT_TRUE(planned) << planned.error().to_string();
  EXPECT_EQ(planned->job.hardware.gpus_per_node, 4);
  EXPECT_EQ(planned->job.training.micro_batch, 3u);
  // Placeholders an envsubst fills are refused at the item that holds one, with the manifest's
  // line shown.
  auto placeholder =
      import_config_text(head +
                             "              command: [\"torchrun\", \"--nproc_per_node=${GPUS}\"]\n"
                             "              args:\n                - pretrain_gpt.py\n" +
                             args,
                         "job.yaml");
  ASSERT_FALSE(placeholder);
  EXPECT_EQ(placeholder.error().line, 11);
  EXPECT_NE(placeholder.error().context.find("command: [\"torchrun\""), std::string::npos)
      << placeholder.error().to_string();
  // `bash -c` with the launch in a block scalar: the script, on its own lines.
  std::string script =
      "              command: [\"bash\", \"-c\"]\n              args:\n"
      "                - |\n                  cd /workspace\n"
      "                  torchrun --nproc_per_node=2 pretrain_gpt.py \\\n";
  for (std::string_view rest = args; !rest.empty();) {
    const auto end = rest.find('\n');
    std::string line(rest.substr(0, end));
    line.replace(line.find("- "), 2, "  ");
    script += line + (end + 1 < rest.size() ? " \\\n" : "\n");
    rest.remove_prefix(end + 1);
  }
  auto scripted = import_config_text(head + script, "job.yaml");
  ASSERT_TRUE(scripted) << scripted.error().to_string();
  EXPECT_EQ(scripted->job.hardware.gpus_per_node, 2);
}

TEST(Importers, UnknownFormatIsAnError) {
  auto imported = import_config_text("model: llama\n", "x.yaml");
  ASSERT_FALSE(imported);
  EXPECT_EQ(imported.error().to_string(),
            "x.yaml:1:1: not an accelerate YAML, DeepSpeed JSON, torchtitan TOML, torchtune YAML "
            "config or Megatron-LM arguments; give the framework's own config file, or the script "
            "that launches the training, to plan it");
  // Pointed at the file's first line that is not a comment.
  auto commented = import_config_text("# a Lightning strategy's arguments\n\nstage: 2\n", "s.yaml");
  ASSERT_FALSE(commented);
  EXPECT_EQ(commented.error().line, 3);
  auto missing = import_config(testing::sample("nope.yaml"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("no such file"), std::string::npos);
}

// A driver that runs another script through a variable the file sets (`bash $ds_script`), once
// per layout it compares: refused at the first run, naming the script and how many runs the
// file makes, each a job of its own.
TEST(Importers, ADriverRunningAScriptHeldInAVariableIsAWrapper) {
  const char* driver =
      "DIR=/data/examples\n"
      "ds_script=$DIR/ds_pretrain_gpt.sh\n"
      "MP=4\n"
      "sp_size=1 zero_stage=0 bash $ds_script |& tee a.log\n"
      "tp_size=$MP zero_stage=0 bash ${ds_script} |& tee b.log\n"
      "pp_size=$MP zero_stage=0 bash \"$ds_script\" |& tee c.log\n";
  auto refused = import_config_text(driver, "d.sh");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().line, 4) << refused.error().to_string();
  EXPECT_NE(refused.error().message.find("$DIR/ds_pretrain_gpt.sh"), std::string::npos)
      << refused.error().to_string();
  EXPECT_NE(refused.error().message.find("3 runs of other scripts, lines 4 to 6"),
            std::string::npos)
      << refused.error().to_string();

  // Calls in the branches of an `if` are alternatives, not runs one after the other.
  auto branches = import_config_text(
      "if [ -n \"$FAST\" ]; then\n  bash fast.sh\nelse\n  bash slow.sh\nfi\n", "b.sh");
  ASSERT_FALSE(branches);
  EXPECT_EQ(branches.error().message.find("runs of other scripts"), std::string::npos)
      << branches.error().to_string();

  // A variable the file never sets names no script: not a wrapper.
  auto unknown = import_config_text("bash $SOMETHING\n", "u.sh");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message.find("a wrapper"), std::string::npos)
      << unknown.error().to_string();
}

// A variable set on the plain path keeps its value through a branch that may not run: the
// wrapper's script is the one the plain run calls, not a smoke test's copy set in an `if`.
TEST(Importers, AWrappersScriptVariableIsThePlainPathsValue) {
  auto refused = import_config_text(
      "TRAIN_SCRIPT=\"$DIR/scripts/train_8p.sh\"\n"
      "if [ \"$MODE\" = smoke ]; then\n  TRAIN_SCRIPT=\"$SMOKE\"\nfi\n"
      "bash \"$TRAIN_SCRIPT\" \"$IPS\"\n",
      "w.sh");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().line, 5) << refused.error().to_string();
  EXPECT_NE(refused.error().message.find("a wrapper: the training is launched by "
                                         "$DIR/scripts/train_8p.sh"),
            std::string::npos)
      << refused.error().to_string();
}

// A launch whose command line is built in a variable and run through `bash -c`: the program is
// named from the command the shell runs, located there.
TEST(Importers, AProgramLaunchedThroughABuiltCommandLineIsNamed) {
  auto refused = import_config_text(
      "SCRIPT=run_recipe.py\nCMD=\"torchrun\"\nCMD=\"$CMD --nproc_per_node=8\"\n"
      "CMD=\"$CMD $SCRIPT --recipe llama\"\nsrun bash -c \"$CMD\"\n",
      "r.sh");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().line, 5) << refused.error().to_string();
  EXPECT_NE(refused.error().message.find("torchrun starts run_recipe.py"), std::string::npos)
      << refused.error().to_string();
}

// A wrapper whose call is prefixed by lines of environment assignments (some commented out,
// whose backslashes continue nothing) is refused where the script is named; one started by
// srun with its options too.
TEST(Importers, AWrapperAfterEnvironmentLinesIsRefusedWhereTheScriptIsNamed) {
  auto env = import_config_text(
      "# config\n#HL_FP8=1 \\\nHL_TP=4 \\\nHL_PP=1 \\\n/opt/x/examples/sft_llama.sh\n", "e.sh");
  ASSERT_FALSE(env);
  EXPECT_EQ(env.error().line, 5) << env.error().to_string();
  EXPECT_NE(env.error().message.find("/opt/x/examples/sft_llama.sh"), std::string::npos);
  auto srun = import_config_text(
      "#SBATCH --nodes=2\nexport NCCL_DEBUG=INFO\n"
      "/opt/slurm/bin/srun --mpi=pmix --container-image=/c.sqsh python /w/train.py\n",
      "s.sh");
  ASSERT_FALSE(srun);
  EXPECT_EQ(srun.error().line, 3) << srun.error().to_string();
  EXPECT_NE(srun.error().message.find("/w/train.py"), std::string::npos)
      << srun.error().to_string();
}

// A script that only hands its arguments to another script is refused at the call a plain run
// takes (outside the branches an argument chooses), naming the script that holds the launch.
TEST(Importers, AWrapperScriptIsRefusedAtItsCall) {
  const char* wrapper =
      "#!/bin/bash\n"
      "set -e\n"
      "for a in \"$@\"; do\n"
      "  case \"$a\" in\n"
      "    --custom) exec \"${ROOT}/scripts/custom.sh\" \"$@\" ;;\n"
      "  esac\n"
      "done\n"
      "exec \"${ROOT}/scripts/train.sh\" \\\n"
      "    --model big \"$@\"\n";
  auto refused = import_config_text(wrapper, "w.sh");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().line, 8) << refused.error().to_string();
  EXPECT_NE(refused.error().message.find("${ROOT}/scripts/train.sh"), std::string::npos)
      << refused.error().to_string();
  EXPECT_NE(refused.error().message.find("to plan it"), std::string::npos);

  // A Python launcher of the project's own builds the arguments itself.
  auto python = import_config_text(
      "#!/usr/bin/env bash\nsource .venv/bin/activate\n\npython3 -u examples/x/speedrun.py \\\n"
      "  --tp-size 2 \\\n  --nproc-per-node 8\n",
      "py.sh");
  ASSERT_FALSE(python);
  EXPECT_EQ(python.error().line, 4) << python.error().to_string();
  EXPECT_NE(python.error().message.find("examples/x/speedrun.py"), std::string::npos);

  auto positional =
      import_config_text("cd examples/x\nsh run_pretrain.sh dsw 7B 1 8 \\\n  bf16\n", "p.sh");
  // A command continued over lines is refused where it starts, not where its script's name falls.
  auto continued =
      import_config_text("deepspeed --num_gpus 2 \\\n   main.py \\\n   --zero_stage 3\n", "c.sh");
  ASSERT_FALSE(continued);
  EXPECT_EQ(continued.error().line, 1) << continued.error().to_string();
  ASSERT_FALSE(positional);
  EXPECT_EQ(positional.error().line, 2) << positional.error().to_string();
  EXPECT_NE(positional.error().message.find("run_pretrain.sh"), std::string::npos);

  EXPECT_NE(continued.error().message.find("deepspeed starts main.py"), std::string::npos)
      << continued.error().to_string();

  // A training program run as a module (verl's PPO trainer); a module that trains nothing (pip)
  // is no launch.
  auto module = import_config_text(
      "set -x\npython3 -m pip install -r requirements.txt\npython3 -m verl.trainer.main_ppo \\\n"
      "    --config-name=ppo_megatron_trainer.yaml \\\n    actor.megatron.tp=2\n",
      "m.sh");
  ASSERT_FALSE(module);
  EXPECT_EQ(module.error().line, 3) << module.error().to_string();
  EXPECT_NE(module.error().message.find("python3 starts the module verl.trainer.main_ppo, a "
                                        "training program that is not Megatron-LM's"),
            std::string::npos)
      << module.error().to_string();

  // A launch of a program of the project's own, also inside ssh's quoted command; a launcher's
  // name inside a path is no launch.
  auto remote = import_config_text(
      "scp hostfile w1:/home/u/distributed-training-and-deepspeed/hostfile\n"
      "ssh w1 'cd x && deepspeed --hostfile=./hostfile zero_dp_training.py --stage=2'\n",
      "r.sh");
  ASSERT_FALSE(remote);
  EXPECT_EQ(remote.error().line, 2) << remote.error().to_string();
  EXPECT_NE(remote.error().message.find("zero_dp_training.py, a training program that is not "
                                        "Megatron-LM's"),
            std::string::npos)
      << remote.error().to_string();
  // Cut short before its config: the backslash escapes a blank, the next line runs alone.
  auto cut = import_config_text(
      "deepspeed --num_gpus 2 train.py \\\n  --seed 1 \\   # --report_to wandb \\\n"
      "  --deepspeed ds.json\n",
      "c.sh");
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().line, 2) << cut.error().to_string();
  EXPECT_NE(cut.error().message.find("bash runs line 3 (--deepspeed ...) as a command of its own"),
            std::string::npos)
      << cut.error().to_string();
  auto accelerate =
      import_config_text("accelerate launch --num_processes 8 sft.py --lr 1e-5\n", "a.sh");
  ASSERT_FALSE(accelerate);
  EXPECT_NE(accelerate.error().message.find("accelerate launch starts sft.py"), std::string::npos)
      << accelerate.error().to_string();

  // A template's placeholder stops bash before the launch: refused where it is.
  auto placeholder = import_config_text(
      "MODEL_PATH=<your_model_path>\nZERO=<zero_stage>\ndeepspeed main.py --model $MODEL_PATH\n",
      "t.sh");
  ASSERT_FALSE(placeholder);
  EXPECT_EQ(placeholder.error().line, 1) << placeholder.error().to_string();
  EXPECT_EQ(placeholder.error().column, 12) << placeholder.error().to_string();
  EXPECT_NE(placeholder.error().message.find("an unfilled template placeholder"),
            std::string::npos);

  // A script word that only mentions a .sh file (an echo, an argument) is no call.
  auto mention = import_config_text("echo see run.sh\ncp a.sh b.sh\n", "m.sh");
  ASSERT_FALSE(mention);
  EXPECT_EQ(mention.error().message.find("a wrapper"), std::string::npos)
      << mention.error().to_string();
  EXPECT_NE(mention.error().message.find("not an accelerate YAML"), std::string::npos);
}

TEST(Importers, EveryOptionOfTheSamplesIsAccountedFor) {
  // Every line holding an option is mapped, noted or listed as having no effect.
  for (const char* name : {"accelerate_fsdp.yaml", "torchtitan_llama3_8b.toml"}) {
    const imported_job imported = testing::import_ok(name);
    std::set<int> lines;
    for (const auto& m : imported.mapped) lines.insert(m.where.line);
    for (const auto& n : imported.notes)
      if (n.source == testing::sample(name)) lines.insert(n.line);
    for (const auto& n : imported.no_effect) lines.insert(n.line);
    std::ifstream in(testing::sample(name));
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      const bool option = !line.empty() && line[0] != '#' && line[0] != '[' &&
                          line.find_first_not_of(' ') != std::string::npos &&
                          (line.find(':') != std::string::npos || line.find('=') != std::string::npos) &&
                          line.find("fsdp_config:") == std::string::npos;
      if (option) {
        EXPECT_TRUE(lines.count(number)) << name << ":" << number << ": " << line;
      }
    }
  }
}

TEST(Importers, MappedListsOptionAndField) {
  const imported_job imported = testing::import_ok("torchtitan_llama3_8b.toml");
  ASSERT_FALSE(imported.mapped.empty());
  EXPECT_EQ(imported.mapped[0].option, "model.name");
  EXPECT_EQ(imported.mapped[0].field, "model");
  EXPECT_EQ(imported.mapped[0].where.line, 18);
  const auto tp = std::find_if(imported.mapped.begin(), imported.mapped.end(),
                               [](const import_mapping& m) { return m.field == "parallel.tp"; });
  ASSERT_NE(tp, imported.mapped.end());
  EXPECT_EQ(tp->option, "parallelism.tensor_parallel_degree");
  for (std::size_t i = 1; i < imported.mapped.size(); ++i)
    EXPECT_LE(imported.mapped[i - 1].where.line, imported.mapped[i].where.line);
}

}  // namespace
}  // namespace vramscope::job
