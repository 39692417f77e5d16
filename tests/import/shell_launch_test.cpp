#include "import/shell_launch.hpp"

#include <vramscope/import/importers.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace vramscope::job::detail {
namespace {

std::vector<std::string> texts(const std::vector<shell_word>& words) {
  std::vector<std::string> out;
  for (const auto& w : words) out.push_back(w.text);
  return out;
}

shell_launch read_ok(const std::string& text) {
  auto launch = read_shell_launch(text, "run.sh");
  if (!launch) ADD_FAILURE() << launch.error().to_string();
  return launch ? *launch : shell_launch{};
}

using words = std::vector<std::string>;

TEST(ShellLaunch, PlainListOneOrManyFlagsALine) {
  const auto l = read_ok("--num-layers 2 --hidden-size 64\n--bf16\n# a comment --fp16\n");
  EXPECT_EQ(l.script.text, "");
  EXPECT_EQ(texts(l.args), (words{"--num-layers", "2", "--hidden-size", "64", "--bf16"}));
  EXPECT_EQ(l.args[4].line, 2);
  EXPECT_EQ(l.args[2].column, 16);
}

// Words that run the rest of the line as the command (`time`, `nohup`, `exec`, `env A=1`,
// `stdbuf -oL`) are not its launcher.
TEST(ShellLaunch, CommandPrefixesAreNotTheLauncher) {
  const auto timed = read_ok("time torchrun --nproc_per_node 4 pretrain_gpt.py --bf16\n");
  EXPECT_EQ(texts(timed.launcher), (words{"torchrun", "--nproc_per_node", "4"}));
  const auto env = read_ok("nohup env -u X CUDA_VISIBLE_DEVICES=0,1 stdbuf -oL python train.py\n");
  EXPECT_EQ(texts(env.launcher), (words{"python"}));
  EXPECT_EQ(env.script.text, "train.py");
  const auto evaluated =
      read_ok("CMD=\"torchrun --nproc_per_node 2 pretrain_gpt.py\"\neval $CMD\n");
  EXPECT_EQ(texts(evaluated.launcher), (words{"torchrun", "--nproc_per_node", "2"}));
  // Quoted, eval reads its one word again as a command line: the same words.
  const auto quoted = read_ok(
      "A=\"srun python pretrain_gpt.py\"\nB=\"--num-layers 2\"\nC=\"$A $B\"\neval \"$C\"\n");
  EXPECT_EQ(texts(quoted.launcher), (words{"srun", "python"}));
  EXPECT_EQ(quoted.script.text, "pretrain_gpt.py");
  EXPECT_EQ(texts(quoted.args), (words{"--num-layers", "2"}));
  // `time` alone runs nothing.
  EXPECT_EQ(read_ok("time\n--bf16\n").script.text, "");
}

// `eval` of nothing (an empty string, an unset array) runs no command.
TEST(ShellLaunch, EvalOfNothingIsNoCommand) {
  const auto l =
      read_ok("eval \"${RUN[*]}\" |& tee log\neval \"\"\npython pretrain_gpt.py --bf16\n");
  EXPECT_EQ(l.script.text, "pretrain_gpt.py");
}

// Read again by eval, a command line ends at its first control operator, its output redirections
// are not its words, and a command substitution with blanks in it stays one word.
TEST(ShellLaunch, AnEvaluatedCommandEndsAtItsOperators) {
  const auto piped = read_ok(
      "N=$(python3 -c 'import torch; print(1)')\n"
      "CMD=\"torchrun --nproc_per_node $N pretrain_gpt.py --num-layers 2 2>&1 | tee log.txt\"\n"
      "eval $CMD\n");
  EXPECT_EQ(texts(piped.launcher),
            (words{"torchrun", "--nproc_per_node", "$(python3 -c 'import torch; print(1)')"}));
  EXPECT_EQ(texts(piped.args), (words{"--num-layers", "2"}));
  for (const std::string rest : {"; echo done", "&& echo done", "> out.log", ">> out.log 2>&1"}) {
    const auto l = read_ok("CMD=\"python pretrain_gpt.py --bf16 " + rest + "\"\neval \"$CMD\"\n");
    EXPECT_EQ(texts(l.args), (words{"--bf16"})) << rest;
  }
}

// A here-document is the text its command reads, not commands: a file written from one is kept
// with its body expanded (unless the delimiter is quoted), `<<-` strips the body's leading tabs,
// and `read -d '' NAME` holds the body in NAME.
TEST(ShellLaunch, HereDocumentsAreTextNotCommands) {
  const auto written = read_ok(
      "S=2\nOUT=ds.json\ncat <<EOT > $OUT\n{\"zero_optimization\": {\"stage\": $S}}\n"
      "torchrun --nproc_per_node 4 pretrain_bert.py\nEOT\n"
      "cat > raw.txt << 'EOF'\nkeep $S\nEOF\n"
      "cat <<-END >>tabs.txt\n\t\tindented\n\tEND\n"
      "python pretrain_gpt.py --num-layers $S\n");
  EXPECT_EQ(written.script.text, "pretrain_gpt.py");
  ASSERT_EQ(written.written_files.size(), 3u);
  EXPECT_EQ(written.written_files[0].path.text, "ds.json");
  EXPECT_EQ(written.written_files[0].text,
            "{\"zero_optimization\": {\"stage\": 2}}\n"
            "torchrun --nproc_per_node 4 pretrain_bert.py\n");
  EXPECT_EQ(written.written_files[0].line, 4);
  EXPECT_EQ(written.written_files[1].path.text, "raw.txt");
  EXPECT_EQ(written.written_files[1].text, "keep $S\n");
  EXPECT_EQ(written.written_files[2].path.text, "tabs.txt");
  EXPECT_EQ(written.written_files[2].text, "indented\n");
  const auto held = read_ok(
      "N=2\nread -r -d '' CMD <<- SCRIPT\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\n"
      "torchrun --nproc_per_node $N pretrain_gpt.py --bf16\nSCRIPT\n"
      "docker run --gpus all image bash -c \"$CMD\"\n");
  EXPECT_EQ(held.script.text, "pretrain_gpt.py");
  EXPECT_EQ(texts(held.launcher), (words{"torchrun", "--nproc_per_node", "2"}));
  ASSERT_EQ(held.exports.size(), 1u);
  EXPECT_EQ(held.exports[0].first, "CUDA_DEVICE_MAX_CONNECTIONS");
  EXPECT_EQ(held.exports[0].second.text, "1");
}

// `$(expr A \* B)` is arithmetic of the script's own values.
TEST(ShellLaunch, ExprIsArithmetic) {
  const auto l = read_ok(
      "NODES=2\nGPUS=8\nWORLD=$(expr $NODES \\* $GPUS)\nHALF=`expr $WORLD / 2`\n"
      "python pretrain_gpt.py --a $WORLD --b $HALF --c $(expr length abc)\n");
  EXPECT_EQ(texts(l.args), (words{"--a", "16", "--b", "8", "--c", "$(expr length abc)"}));
}

// sed's s/PLACEHOLDER/value/ scripts, expanded, with where each is written.
TEST(ShellLaunch, SedSubstitutionsAreKept) {
  const auto l = read_ok(
      "Z=3\nsed \"s/ZERO_STAGE/${Z}/\" t.json | sed -e 's|A|b c|g' > o.json\n"
      "python train.py\n");
  ASSERT_EQ(l.sed_substitutions.size(), 2u);
  EXPECT_EQ(l.sed_substitutions[0].first, "ZERO_STAGE");
  EXPECT_EQ(l.sed_substitutions[0].second.text, "3");
  EXPECT_EQ(l.sed_substitutions[0].second.line, 2);
  EXPECT_EQ(l.sed_substitutions[1].first, "A");
  EXPECT_EQ(l.sed_substitutions[1].second.text, "b c");
}

TEST(ShellLaunch, ArraysExpandToTheirElementsWithTheirLines) {
  const auto l = read_ok(
      "GPUS=8\n"
      "DIST=(\n  --nproc_per_node $GPUS  # eight\n  --nnodes ${NODES:-2}\n)\n"
      "MODEL=( --num-layers 4 )\n"
      "MODEL+=(\"--swiglu --bf16\")\n"
      "torchrun ${DIST[@]} pretrain_gpt.py \\\n  ${MODEL[@]}\n");
  EXPECT_EQ(texts(l.launcher), (words{"torchrun", "--nproc_per_node", "8", "--nnodes", "2"}));
  EXPECT_EQ(l.script.text, "pretrain_gpt.py");
  EXPECT_EQ(l.script.line, 8);
  // An unquoted expansion splits the quoted element "--swiglu --bf16" into two words.
  EXPECT_EQ(texts(l.args), (words{"--num-layers", "4", "--swiglu", "--bf16"}));
  EXPECT_EQ(l.args[0].line, 6);
  EXPECT_EQ(l.args[2].line, 7);
  EXPECT_EQ(l.launcher[2].line, 3);
}

// `declare -a NAME=( ... )` (and local, typeset, export, readonly with options) is the same array.
TEST(ShellLaunch, DeclaredArraysAreArrays) {
  const auto l = read_ok(
      "declare -a A=(\n  --num-layers 2\n)\nlocal -r B=( --bf16 )\nA+=( --swiglu )\n"
      "python pretrain_gpt.py \"${A[@]}\" \"${B[@]}\"\n");
  EXPECT_EQ(texts(l.args), (words{"--num-layers", "2", "--swiglu", "--bf16"}));
}

TEST(ShellLaunch, QuotedArrayExpansionKeepsElementsWhole) {
  const auto l = read_ok("A=(\"--x 1\" '--y')\npython pretrain_gpt.py \"${A[@]}\" '$HOME'\n");
  EXPECT_EQ(texts(l.launcher), (words{"python"}));
  EXPECT_EQ(texts(l.args), (words{"--x 1", "--y", "$HOME"}));
  EXPECT_FALSE(l.args[2].unresolved);  // single quotes: no expansion
}

TEST(ShellLaunch, UnsetVariablesAndSubstitutionsStayUnresolved) {
  const auto l =
      read_ok("N=$(($1*4))\npython pretrain_gpt.py --a $1 --b $N --c $UNSET --d \"${X}\"\n");
  EXPECT_EQ(texts(l.args), (words{"--a", "$1", "--b", "$(($1*4))", "--c", "$UNSET", "--d", "$X"}));
  EXPECT_TRUE(l.args[1].unresolved);
  EXPECT_TRUE(l.args[3].unresolved);  // arithmetic of a positional argument
  EXPECT_TRUE(l.args[5].unresolved);
  EXPECT_TRUE(l.args[7].unresolved);
  EXPECT_FALSE(l.args[6].unresolved);
}

TEST(ShellLaunch, ExportsAreCollected) {
  const auto l = read_ok("export A=1\nB=two\nexport B\nexport A=3\n--num-layers 1\n");
  ASSERT_EQ(l.exports.size(), 2u);
  EXPECT_EQ(l.exports[0].first, "B");
  EXPECT_EQ(l.exports[0].second.text, "two");
  EXPECT_EQ(l.exports[1].first, "A");
  EXPECT_EQ(l.exports[1].second.text, "3");
  EXPECT_EQ(l.exports[1].second.line, 4);
}

// An `if` whose test is a list of tests (NVIDIA's Llama 3 examples: `[[ "$TOKENIZER_ARG" ==
// "MOCK" ]] || [[ "$DATA_ARG" == "MOCK" ]] || [[ -z "$TOKENIZER_ARG" ]]`) takes the branch bash
// takes, the tests read left to right; a test it cannot read leaves the list unknown unless the
// value so far decides it, and then every branch is read, noted.
TEST(ShellLaunch, AnIfOfATestListTakesTheBranchBashTakes) {
  const std::string tail =
      "; then\n  A=(--tokenizer-type NullTokenizer)\nelse\n"
      "  A=(--tokenizer-type HuggingFaceTokenizer)\nfi\ntorchrun pretrain_gpt.py ${A[@]}\n";
  const std::string mock = "T=${3:-MOCK}\nD=${4:-MOCK}\n";
  EXPECT_EQ(texts(read_ok(mock +
                          "if [[ \"$T\" == \"MOCK\" ]] || [[ \"$D\" == \"MOCK\" ]] || "
                          "[[ -z \"$T\" ]]" +
                          tail)
                      .args),
            (words{"--tokenizer-type", "NullTokenizer"}));
  // false || false && true: the else branch.
  EXPECT_EQ(texts(read_ok("T=hf\nD=real\nif [ \"$T\" = MOCK ] || [ \"$D\" = MOCK ] && "
                          "[ -n \"$T\" ]" +
                          tail)
                      .args),
            (words{"--tokenizer-type", "HuggingFaceTokenizer"}));
  // true && (a command): unknown; true || (a command): decided.
  const auto unknown = read_ok("T=MOCK\nif [[ $T == MOCK ]] && grep -q x /etc/hosts" + tail);
  EXPECT_EQ(texts(unknown.args), (words{"--tokenizer-type", "HuggingFaceTokenizer"}));
  ASSERT_FALSE(unknown.notes.empty());
  EXPECT_NE(unknown.notes[0].message.find("reads every branch"), std::string::npos);
  EXPECT_EQ(unknown.notes[0].line, 2);
  EXPECT_EQ(texts(read_ok("T=MOCK\nif [[ $T == MOCK ]] || grep -q x /etc/hosts" + tail).args),
            (words{"--tokenizer-type", "NullTokenizer"}));
}

TEST(ShellLaunch, BranchesAreReadInOrderAndNoted) {
  const auto l = read_ok(
      "A=(--x 1)\nif [[ \"$D\" == fp8 ]]; then\n  A+=(--fp8-format hybrid)\nfi\n"
      "torchrun pretrain_gpt.py ${A[@]} ${MISSING[@]}\n"
      "python tools/other.py --y\n");
  EXPECT_EQ(texts(l.args), (words{"--x", "1", "--fp8-format", "hybrid"}));
  ASSERT_EQ(l.notes.size(), 3u);
  EXPECT_EQ(l.notes[0].line, 2);
  EXPECT_EQ(l.notes[2].line, 6);  // another launch, not a pretrain_*.py one: ignored
  EXPECT_NE(l.notes[0].message.find("reads every branch"), std::string::npos);
  EXPECT_EQ(l.notes[1].to_string(),
            "run.sh:5:34: ${MISSING[@]}: the script sets no array MISSING; it expands to nothing\n"
            "torchrun pretrain_gpt.py ${A[@]} ${MISSING[@]}\n"
            "                                 ^ near here");
}

TEST(ShellLaunch, CommandsThatOnlyNameAScriptAreNotLaunches) {
  const auto l = read_ok(
      "S=pretrain_gpt.py\nif [ ! -f \"$S\" ]; then\n  echo \"not found: $S\"\n  ls $S\nfi\n"
      "torchrun \"$S\" --num-layers 1\n");
  EXPECT_EQ(l.script.line, 6);
  EXPECT_EQ(texts(l.args), (words{"--num-layers", "1"}));
}

TEST(ShellLaunch, LaterNonPretrainLaunchIsNoted) {
  const auto l = read_ok(
      "python prepare.py --z\ntorchrun pretrain_gpt.py --num-layers 1\n"
      "python pretrain_gpt.py --num-layers 2\n");
  EXPECT_EQ(texts(l.args), (words{"--num-layers", "1"}));
  ASSERT_EQ(l.notes.size(), 1u);
  EXPECT_EQ(l.notes[0].line, 3);
}

TEST(ShellLaunch, PlainListNotesCommandsThatAreNotArguments) {
  const auto l = read_ok("--num-layers 1\nstray --bf16\n");
  EXPECT_EQ(texts(l.args), (words{"--num-layers", "1"}));
  ASSERT_EQ(l.notes.size(), 1u);
  EXPECT_EQ(l.notes[0].to_string(),
            "run.sh:2:1: \"stray\" starts no argument (--flag) and runs no Python script; the "
            "line is ignored\nstray --bf16\n^ near here");
}

TEST(ShellLaunch, RegressionFuzzEmptyWordsAndParentheses) {
  // A '(' after an empty quoted word, and a command that expands to no words at all.
  EXPECT_EQ(read_ok("(x\n\"\"(y\nE=()\n${E[@]}\n--num-layers 1\n").args.size(), 2u);
  // ';', '&' and '|' inside an array.
  EXPECT_EQ(texts(read_ok("A=(--x;1|&)\n${A[@]}\n").args), (words{"--x", "1"}));
}

TEST(ShellLaunch, RejectsAnUnclosedQuote) {
  auto l = read_shell_launch("A=1\nB=\"open\n--x\n", "run.sh");
  ASSERT_FALSE(l);
  EXPECT_EQ(l.error().to_string(),
            "run.sh:2:3: quote (\") opened here is never closed\nB=\"open\n  ^ near here");
}

TEST(ShellLaunch, RejectsAnUnclosedArray) {
  auto l = read_shell_launch("ARGS=(\n --x 1\n", "run.sh");
  ASSERT_FALSE(l);
  EXPECT_EQ(
      l.error().to_string(),
      "run.sh:1:6: array ARGS opened here is never closed with ')'\nARGS=(\n     ^ near here");
}

TEST(ShellLaunch, RejectsAnUnclosedBrace) {
  auto l = read_shell_launch("python pretrain_gpt.py ${A\n", "run.sh");
  ASSERT_FALSE(l);
  EXPECT_EQ(l.error().line, 1);
  EXPECT_NE(l.error().message.find("\"${\" opened here is never closed"), std::string::npos);
}

TEST(ShellLaunch, BoundsExpansionBlowUp) {
  std::string text = "A=(x x x x x x x x x x)\n";
  for (int i = 0; i < 6; ++i) text += "A=(${A[@]} ${A[@]} ${A[@]} ${A[@]} ${A[@]} ${A[@]})\n";
  auto l = read_shell_launch(text, "run.sh");
  ASSERT_FALSE(l);
  EXPECT_NE(l.error().message.find("more than 100000 words"), std::string::npos);
}

// A variable doubled forty times (X="$X$X") would be a terabyte; the reader stops at its budget
// and names the line that crossed it.
TEST(ShellLaunch, BoundsAVariableDoubledIntoItself) {
  std::string text = "X=abcdefghijklmnop\n";
  for (int i = 0; i < 40; ++i) text += "X=\"$X$X\"\n";
  text += "torchrun pretrain_gpt.py --data-path \"$X\"\n";
  auto l = read_shell_launch(text, "run.sh");
  ASSERT_FALSE(l);
  // 16 bytes doubled 16 times is 1 MiB; the 17th doubling (line 18) is past a word's budget.
  EXPECT_EQ(l.error().line, 18);
  EXPECT_NE(l.error().message.find("budget"), std::string::npos) << l.error().message;
}

TEST(ShellLaunch, BoundsTheWholeExpansionNotOnlyAWord) {
  // Each word stays under 1 MiB, but 40 arrays of them add up past the script's budget.
  std::string text = "X=abcdefghijklmnop\n";
  for (int i = 0; i < 15; ++i) text += "X=\"$X$X\"\n";  // 512 KiB
  for (int i = 0; i < 40; ++i) text += "A+=(\"$X\")\n";
  auto l = read_shell_launch(text, "run.sh");
  ASSERT_FALSE(l);
  EXPECT_GT(l.error().line, 17);
  EXPECT_NE(l.error().message.find("budget"), std::string::npos) << l.error().message;
  // Under the budget the same script reads.
  std::string small = "X=abcdefghijklmnop\n";
  for (int i = 0; i < 10; ++i) small += "X=\"$X$X\"\n";
  small += "A+=(\"$X\")\ntorchrun pretrain_gpt.py \"${A[@]}\"\n";
  auto ok = read_shell_launch(small, "run.sh");
  ASSERT_TRUE(ok) << ok.error().to_string();
  ASSERT_EQ(ok->args.size(), 1u);
  EXPECT_EQ(ok->args[0].text.size(), 16u << 10);
}

TEST(ShellLaunch, RecognisesMegatronText) {
  EXPECT_TRUE(looks_like_megatron("--num-layers 2\n"));
  EXPECT_TRUE(looks_like_megatron("torchrun x/pretrain_gpt.py \\\n"));
  EXPECT_TRUE(looks_like_megatron("A=(\"--num-layers=4\")"));
  EXPECT_TRUE(looks_like_megatron("torchrun finetune.py --tensor_model_parallel_size 2\n"));
  EXPECT_FALSE(looks_like_megatron("# --num-layers 2\nfoo: bar\n"));
  EXPECT_FALSE(looks_like_megatron("num_layers: 2\nscript: pretrain.py\n"));
}

TEST(ShellLaunch, SbatchHeadersSetSlurmsNodeAndTaskCounts) {
  const auto l = read_ok(
      "#!/bin/bash\n#SBATCH --job-name=x\n#SBATCH --nodes=24   # nodes\n"
      "#SBATCH <OPTIONS> --ntasks-per-node=8 --exclusive\n"
      "NNODES=$SLURM_NNODES\n"
      "srun --jobid 1 bash -c \"torchrun --nnodes $NNODES --nproc_per_node 8 pretrain_gpt.py --bf16\"\n");
  EXPECT_EQ(texts(l.launcher), (words{"torchrun", "--nnodes", "24", "--nproc_per_node", "8"}));
  EXPECT_FALSE(l.launcher[2].unresolved);
  EXPECT_EQ(l.sbatch_nodes.text, "24");
  EXPECT_EQ(l.sbatch_nodes.line, 3);
  EXPECT_EQ(l.sbatch_tasks_per_node.text, "8");
  EXPECT_EQ(texts(l.outer), (words{"srun", "--jobid", "1"}));
  // A script's own assignment wins over the environment sbatch sets.
  const auto own = read_ok("#SBATCH -N 4\nSLURM_NNODES=2\ntorchrun --nnodes $SLURM_NNODES x/pretrain_gpt.py\n");
  EXPECT_EQ(texts(own.launcher), (words{"torchrun", "--nnodes", "2"}));
  // Not a count (a range of nodes): nothing is set.
  const auto range = read_ok("#SBATCH --nodes=2-4\ntorchrun --nnodes $SLURM_NNODES pretrain_gpt.py\n");
  EXPECT_TRUE(range.launcher[2].unresolved);
}

// --gpus-per-task and --ntasks (-n) set SLURM_GPUS_PER_TASK and SLURM_NTASKS / SLURM_NPROCS;
// a command line srun hands whole to a per-node wrapper is read as a -c string is.
TEST(ShellLaunch, SbatchTaskRequestsAndACommandHandedToASrunWrapper) {
  const auto l = read_ok(
      "#SBATCH --nodes=16\n#SBATCH --ntasks-per-node=1\n#SBATCH --gpus-per-task=a100:8\n"
      "#SBATCH -n16\n"
      "GBS=$((SLURM_JOB_NUM_NODES * SLURM_GPUS_PER_TASK * 2 / SLURM_NTASKS))\n"
      "CMD=\"x/pretrain_gpt.py --global-batch-size $GBS --micro-batch-size 2\"\n"
      "srun \"$(realpath run_on_node.sh)\" \"$CMD\" \"$PYTHON\"\n");
  EXPECT_EQ(l.script.text, "x/pretrain_gpt.py");
  EXPECT_EQ(texts(l.args), (words{"--global-batch-size", "16", "--micro-batch-size", "2"}));
  EXPECT_EQ(l.outer.size(), 2u);
  EXPECT_EQ(l.outer[0].text, "srun");
  EXPECT_EQ(l.sbatch_gpus_per_task.text, "8");
  EXPECT_EQ(l.sbatch_gpus_per_task.line, 3);
  // Only srun's: a string echoed, or handed to another command, is no launch.
  const auto echoed = read_ok("CMD=\"pretrain_gpt.py --bf16\"\necho \"$CMD\"\n");
  EXPECT_TRUE(echoed.script.text.empty());
  const auto logged = read_ok("CMD=\"pretrain_gpt.py --bf16\"\nlogger -t run \"$CMD\"\n");
  EXPECT_TRUE(logged.script.text.empty());
}

TEST(ShellLaunch, SbatchGpuRequestsSetSlurmsGpuCounts) {
  const auto per_node = read_ok(
      "#SBATCH --gpus-per-node=4\n"
      "torchrun --nproc-per-node $SLURM_GPUS_PER_NODE --nnodes 1 pretrain_gpt.py\n");
  EXPECT_EQ(texts(per_node.launcher),
            (words{"torchrun", "--nproc-per-node", "4", "--nnodes", "1"}));
  EXPECT_FALSE(per_node.launcher[2].unresolved);
  const auto typed = read_ok(
      "#SBATCH --gpus-per-node h100:8\n"
      "torchrun --nproc_per_node $SLURM_GPUS_ON_NODE pretrain_gpt.py\n");
  EXPECT_EQ(texts(typed.launcher), (words{"torchrun", "--nproc_per_node", "8"}));
  const auto gres = read_ok(
      "#SBATCH --gres=gpu:a100:2,nvme:1\n"
      "torchrun --nproc_per_node $SLURM_GPUS_ON_NODE pretrain_gpt.py\n");
  EXPECT_EQ(texts(gres.launcher), (words{"torchrun", "--nproc_per_node", "2"}));
  EXPECT_TRUE(gres.sbatch_tasks_per_node.text.empty());
  const auto one =
      read_ok("#SBATCH --gres=gpu\ntorchrun --nproc_per_node $SLURM_GPUS_ON_NODE p.py\n");
  EXPECT_EQ(texts(one.launcher), (words{"torchrun", "--nproc_per_node", "1"}));
  // --gres sets no SLURM_GPUS_PER_NODE (sbatch sets it for --gpus-per-node only).
  const auto not_per_node = read_ok(
      "#SBATCH --gres=gpu:4\ntorchrun --nproc_per_node $SLURM_GPUS_PER_NODE pretrain_gpt.py\n");
  EXPECT_TRUE(not_per_node.launcher[2].unresolved);
}

// A script that parses its own options: `while [[ $# -gt 0 ]]; do case $1 in ...` is chosen by
// the arguments it is run with, which a file does not have: read as run without them.
TEST(ShellLaunch, ACaseOnTheScriptsArgumentsIsReadAsNotTaken) {
  const auto l = read_ok(
      "TP=8\n"                                 // 1
      "while [[ $# -gt 0 ]]; do\n"             // 2
      "  case $1 in\n"                         // 3
      "    --tp) TP=\"$2\"; shift; shift;;\n"  // 4
      "    -z|--zero-stage)\n"                 // 5
      "    ZERO=$2;\n"                         // 6
      "    shift\n"                            // 7
      "    ;;\n"                               // 8
      "    *) echo unknown $1; exit 1;;\n"     // 9
      "  esac\n"                               // 10
      "done\n"                                 // 11
      "torchrun pretrain_gpt.py --tp $TP --zero $ZERO\n");
  EXPECT_EQ(texts(l.args), (words{"--tp", "8", "--zero", "$ZERO"}));
  EXPECT_FALSE(l.args[1].unresolved);
  EXPECT_TRUE(l.args[3].unresolved);
  ASSERT_EQ(l.chosen_by_arguments.size(), 1u);
  EXPECT_EQ(l.chosen_by_arguments[0].first, "ZERO");
  EXPECT_EQ(l.chosen_by_arguments[0].second.line, 2);
  EXPECT_NE(l.chosen_by_arguments[0].second.message.find(
                "ZERO is set only in branches of \"while [[ $# -gt 0 ]]\""),
            std::string::npos);
  // The kept value is noted at the loop; the patterns are no arguments.
  bool noted = false;
  for (const auto& n : l.notes)
    noted = noted || (n.line == 2 && n.message.find("TP = 8") != std::string::npos);
  EXPECT_TRUE(noted);
}

// An append in a branch the arguments choose leaves the variable as it was, also when what it
// holds is known only at run time (an interpreter path from `$(cd ... && pwd)`).
TEST(ShellLaunch, AnAppendInABranchTheArgumentsChooseKeepsTheArray) {
  const auto l = read_ok(
      "ROOT=\"$(cd \"$BASE\" && pwd)\"\n"
      "CMD=(\"$ROOT/bin/python\" pretrain_gpt.py --bf16)\n"
      "MODE=$1\n"
      "if [[ \"$MODE\" == 1 ]]; then\n"
      "  CMD+=(--seed 7)\n"
      "fi\n"
      "nsys profile \"${CMD[@]}\"\n");
  EXPECT_EQ(l.script.text, "pretrain_gpt.py");
  EXPECT_EQ(texts(l.args), (words{"--bf16"}));
}

TEST(ShellLaunch, AnIfOnAVariableSetFromAnArgumentIsChosenByIt) {
  const auto l = read_ok(
      "ENV=$1\n"
      "MODE=${2:-dsw}\n"
      "if [ $ENV = dsw ]; then\n"
      "  GPUS=8\n"
      "elif [ $ENV = dlc ]; then\n"
      "  GPUS=${KUBERNETES_GPUS}\n"
      "fi\n"
      "if [ $MODE = dsw ]; then\n"  // MODE has its default: an ordinary branch
      "  LAYERS=4\n"
      "fi\n"
      "torchrun --nproc_per_node $GPUS pretrain_gpt.py --num-layers $LAYERS\n");
  EXPECT_EQ(texts(l.launcher), (words{"torchrun", "--nproc_per_node", "$GPUS"}));
  EXPECT_TRUE(l.launcher[2].unresolved);
  EXPECT_EQ(texts(l.args), (words{"--num-layers", "4"}));
  ASSERT_EQ(l.chosen_by_arguments.size(), 1u);
  EXPECT_EQ(l.chosen_by_arguments[0].first, "GPUS");
  EXPECT_EQ(l.chosen_by_arguments[0].second.line, 3);
}

// `X=$1; if [ -z "$X" ]; then X=default; fi` is ${1:-default} written out: read as run without
// arguments, the default holds. An -n test, or any other test of the argument, stays chosen.
TEST(ShellLaunch, AnEmptyArgumentsDefaultIsReadAsRunWithoutArguments) {
  const auto l = read_ok(
      "SEQ=\"$1\"\nif [ -z \"$SEQ\"  ]\nthen\n    SEQ=16384\nfi\n"
      "DATA_SEQ=\"$2\"\nif [[ -z $DATA_SEQ ]]; then DATA_SEQ=${SEQ}; fi\n"
      "DEV=$3\nif [ -n \"$DEV\" ]; then\n  GPUS=2\nfi\n"
      "torchrun --nproc_per_node $GPUS pretrain_gpt.py --seq-length $SEQ --data-seq $DATA_SEQ\n");
  EXPECT_EQ(texts(l.args), (words{"--seq-length", "16384", "--data-seq", "16384"}));
  EXPECT_FALSE(l.args[1].unresolved);
  ASSERT_EQ(l.chosen_by_arguments.size(), 1u);
  EXPECT_EQ(l.chosen_by_arguments[0].first, "GPUS");
  // A test of something else than the empty argument stays chosen by it.
  const auto other = read_ok(
      "N=$1\nif [ -z \"$N\" ] && true; then L=2; fi\n"
      "torchrun pretrain_gpt.py --num-layers $L\n");
  EXPECT_TRUE(other.args[1].unresolved);
}

// ${NAME:-fallback} whose fallback names other variables: each expanded as bash does, one the
// script does not set left as written (the word unresolved).
TEST(ShellLaunch, AFallbackThatNamesVariablesIsExpanded) {
  const auto l = read_ok(
      "BASE=${BASE:-\"${ROOT}/data\"}\n"
      "LAYERS=${LAYERS:-\"${DEFAULT_LAYERS:-24}\"}\n"
      "SIZE=1024\n"
      "HIDDEN=${HIDDEN:-$SIZE}\n"
      "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers $LAYERS --hidden-size $HIDDEN "
      "--data-path $BASE/text\n");
  EXPECT_EQ(texts(l.args), (words{"--num-layers", "24", "--hidden-size", "1024", "--data-path",
                                  "${ROOT}/data/text"}));
  EXPECT_FALSE(l.args[1].unresolved);
  EXPECT_FALSE(l.args[3].unresolved);
  EXPECT_TRUE(l.args[5].unresolved);
}

// ${NAME:=fallback} (bash's "assign default") expands as ${NAME:-fallback} does and assigns the
// fallback to an unset or empty NAME, also in the words of the null command `:`; a name already
// set keeps its value, and ${NAME=fallback} assigns only an unset one.
TEST(ShellLaunch, AnAssignDefaultExpandsAndAssigns) {
  const auto l = read_ok(
      "NLS=${NLS:=24}\n: \"${SEQ:=2048}\"\nSET=8\n: \"${SET:=16}\"\nEMPTY=\n: \"${EMPTY=5}\"\n"
      "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers $NLS --hidden-size ${HS:=1024} "
      "--seq-length $HS --max-position-embeddings $SEQ --micro-batch-size $SET --x \"$EMPTY\"\n");
  EXPECT_EQ(texts(l.args),
            (words{"--num-layers", "24", "--hidden-size", "1024", "--seq-length", "1024",
                   "--max-position-embeddings", "2048", "--micro-batch-size", "8", "--x", ""}));
  EXPECT_FALSE(l.args[5].unresolved);
}

// The fallback is lexed as a double-quoted string's content: arithmetic, arrays and nested
// fallbacks in it expand as bash expands them; an escaped dollar is text.
TEST(ShellLaunch, AFallbackIsLexedAsAQuotedString) {
  const auto l = read_ok(
      "GPUS=4\n"
      "SIZES=(2 3)\n"
      "NODES=${NODES:-${N:-$((GPUS / 2))}}\n"
      "NAME=${NAME:-\"run ${SIZES[@]} \\$HOME\"}\n"
      "torchrun --nproc_per_node 8 --nnodes $NODES pretrain_gpt.py --name \"$NAME\"\n");
  EXPECT_EQ(texts(l.launcher), (words{"torchrun", "--nproc_per_node", "8", "--nnodes", "2"}));
  EXPECT_FALSE(l.launcher[4].unresolved);
  EXPECT_EQ(texts(l.args), (words{"--name", "run 2 3 $HOME"}));
  EXPECT_FALSE(l.args[1].unresolved);
}

// A case arm written over several lines, its `;;` on a line of its own (and an arm with no
// commands), ends where that `;;` is, so the next pattern is read as one.
TEST(ShellLaunch, ACaseArmsSemicolonsOnTheirOwnLineEndTheArm) {
  const auto l = read_ok(
      "MODE=${1:-two}\n"
      "case \"${MODE}\" in\n"
      "    one)\n        GBS=${GBS:-32}\n        ;;\n"
      "    empty)\n        ;;\n"
      "    two)\n        GBS=${GBS:-16}\n        ARR=(--bf16)\n        ;;\n"
      "    *)\n        exit 2\n        ;;\n"
      "esac\n"
      "torchrun pretrain_gpt.py --global-batch-size \"${GBS}\" \"${ARR[@]}\"\n");
  EXPECT_EQ(texts(l.args), (words{"--global-batch-size", "16", "--bf16"}));
}

// A test of the script's own values is evaluated: only the branch it takes is read.
TEST(ShellLaunch, TestsOfTheScriptsOwnValuesPickTheirBranch) {
  const auto l = read_ok(
      "AC=\"false\"\nDEBUG=0\nMODE=dense\n"
      "if [ \"${AC}\" = \"true\" ]; then\n  X=\"--checkpoint-activations\"\nfi\n"
      "if [[ $DEBUG -eq 1 ]]; then\n  LAYERS=4\nelif [[ -z \"$MODE\" ]]; then\n  LAYERS=8\n"
      "else\n  LAYERS=24\nfi\n"
      "case $MODE in\n  moe|expert*) E=\"--num-experts 8\";;\n  dense) E=\"\";;\n"
      "  *) E=\"--bad\";;\nesac\n"
      "torchrun pretrain_gpt.py --num-layers $LAYERS $X $E\n");
  EXPECT_EQ(texts(l.args), (words{"--num-layers", "24", "$X"}));
  EXPECT_TRUE(l.args[2].unresolved);  // X is set only in the branch not taken
  for (const auto& n : l.notes)
    EXPECT_EQ(n.message.find("reads every branch"), std::string::npos) << n.to_string();
  // A variable naming the builtin true or false is the condition's command.
  const auto builtin = read_ok(
      "USE_FP16=${7:-false}\nON=true\nA=\"\"\nif $USE_FP16; then\n  A=\"--fp16\"\nfi\n"
      "if ! $ON; then\n  A=\"$A --bf16\"\nfi\ntorchrun pretrain_gpt.py --num-layers 2 $A\n");
  EXPECT_EQ(texts(builtin.args), (words{"--num-layers", "2"}));
  // A test of something the script does not set is read as before: every branch, noted.
  const auto unknown = read_ok(
      "if [ \"$FLAG\" = on ]; then\n  L=2\nelse\n  L=3\nfi\npython pretrain_gpt.py --num-layers "
      "$L\n");
  EXPECT_EQ(texts(unknown.args), (words{"--num-layers", "3"}));
  ASSERT_FALSE(unknown.notes.empty());
  EXPECT_NE(unknown.notes[0].message.find("reads every branch"), std::string::npos);
}

// Redirections are not arguments, and a command substitution kept in a variable stays one word.
TEST(ShellLaunch, RedirectionsAndKeptSubstitutions) {
  const auto l = read_ok(
      "N=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)\n"
      "OUT=\"log_g${N}\"\n"
      "deepspeed pretrain_gpt.py --save $OUT --num-layers 2 2>&1 | tee x.log\n"
      "python pretrain_gpt.py --other 1 &>> run.log\n");
  EXPECT_EQ(texts(l.args),
            (words{"--save", "log_g$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)",
                   "--num-layers", "2"}));
}

// Conditionals of any shape, matched or not, never crash the reader or the importer (a fixed
// pseudo-random mix of the tokens the branch code treats specially).
TEST(ShellLaunch, BranchesOfAnyShapeNeverCrash) {
  const std::vector<std::string> pieces{
      "if", "elif", "else", "fi", "then", "case", "esac", "in", "while", "do", "done", "[", "]",
      "[[", "]]", "test", "-z", "-n", "-eq", "-gt", "=", "==", "!=", "-", "--", "$1", "$#",
      "\"$X\"", "X=1", "X=$1", "Y=", "A=(--a 1)", "a|", "b)", "*)", ")", "(", ";;", ";", "|",
      "&", "2>&1", ">", "&>>", "$(cmd --x)", "--num-layers", "2", "\n", "torchrun",
      "pretrain_gpt.py", "${A[@]}", "$X"};
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  for (int round = 0; round < 3000; ++round) {
    std::string text;
    const int length = 4 + round % 40;
    for (int i = 0; i < length; ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      text += pieces[(state >> 33) % pieces.size()];
      text += (state >> 20) % 3 == 0 ? "\n" : " ";
    }
    (void)read_shell_launch(text, "fuzz.sh");
    (void)import_config_text(text, "fuzz.sh");
  }
  SUCCEED();
}

TEST(ShellLaunch, EvaluatesArithmeticOfTheScriptsOwnNumbers) {
  const auto l = read_ok(
      "GPUS_PER_NODE=8\nNUM_NODES=2\nTP=2\nMBS=4\n"
      "WORLD=$(($GPUS_PER_NODE*$NUM_NODES))\n"
      "GBS=$((($WORLD * $MBS) / (${TP} * 1) * 8))\n"
      "torchrun --nproc_per_node $((GPUS_PER_NODE)) pretrain_gpt.py --a $WORLD --b $GBS "
      "--c $((7 / 2)) --d $((-7 % 3)) --e $((UNSET + 1)) --f $(nproc) --g $((1 / 0)) "
      "--h $((9223372036854775807 * 2)) --i $((2 ** 3))\n");
  EXPECT_EQ(texts(l.launcher), (words{"torchrun", "--nproc_per_node", "8"}));
  EXPECT_EQ(texts(l.args), (words{"--a", "16", "--b", "256", "--c", "3", "--d", "-1", "--e",
                                  "$((UNSET + 1))", "--f", "$(nproc)", "--g", "$((1 / 0))", "--h",
                                  "$((9223372036854775807 * 2))", "--i", "$((2 ** 3))"}));
  EXPECT_FALSE(l.args[1].unresolved);
  EXPECT_TRUE(l.args[9].unresolved);
  EXPECT_TRUE(l.args[11].unresolved);
  EXPECT_TRUE(l.args[13].unresolved);
  EXPECT_TRUE(l.args[15].unresolved);
  EXPECT_TRUE(l.args[17].unresolved);
}

// An array expanded in an assignment makes one word, its elements joined by spaces, as bash does
// where it splits no words; the command run through that string sees them as separate flags.
TEST(ShellLaunch, ArrayInAnAssignmentJoinsItsElementsWithSpaces) {
  const auto l = read_ok(
      "LOG=(\n  --log-throughput\n  --tensorboard-dir /tmp/tb\n)\n"
      "CMD=\"torchrun --nproc_per_node 4 pretrain_gpt.py ${LOG[@]} --bf16\"\n"
      "JOINED=${LOG[@]}\n"
      "srun bash -c \"$CMD --seed $JOINED\"\n");
  EXPECT_EQ(texts(l.launcher), (words{"torchrun", "--nproc_per_node", "4"}));
  EXPECT_EQ(texts(l.args), (words{"--log-throughput", "--tensorboard-dir", "/tmp/tb", "--bf16",
                                  "--seed", "--log-throughput", "--tensorboard-dir", "/tmp/tb"}));
}

// The shell's options before -c (`srun ... bash -x -c "${CMD}"`, Megatron-LM's
// examples/megatron_fsdp/sbatch_mfsdp_deepseek_v3.sh) leave the string a command line.
TEST(ShellLaunch, ShellOptionsBeforeDashCAreSkipped) {
  const auto l = read_ok("CMD=\"cd /m; python /m/pretrain_gpt.py --bf16\"\n"
                         "srun --mpi=pmix -l bash -x -c \"${CMD}\" 2>&1 | tee log\n");
  EXPECT_EQ(l.script.text, "/m/pretrain_gpt.py");
  EXPECT_EQ(texts(l.args), (words{"--bf16"}));
  EXPECT_EQ(texts(l.outer), (words{"srun", "--mpi=pmix", "-l"}));
}

// Launches in the branches of a conditional the script's argument chooses (a number format
// taken as $1, one launch per format) are different jobs when they differ in more than paths:
// which runs is not in the file, so the reader says where the argument is taken. Launches that
// differ only in their checkpoint folders are one job, and one launch in such a branch is read.
TEST(ShellLaunch, LaunchesChosenByAnArgumentAreDifferentJobs) {
  const auto l = read_ok(
      "FP=$1\nARGS=\"--num-layers 2\"\n"
      "if [ \"$FP\" = bf16 ]; then\n  torchrun pretrain_gpt.py $ARGS --save /c/bf16\n"
      "elif [ \"$FP\" = te ]; then\n  torchrun pretrain_gpt.py $ARGS --save /c/te --fp8-hybrid\n"
      "fi\n");
  ASSERT_TRUE(l.launch_chosen.has_value());
  EXPECT_EQ(l.launch_chosen->line, 1);
  EXPECT_NE(l.launch_chosen->message.find("(lines 4 and 6)"), std::string::npos)
      << l.launch_chosen->message;
  EXPECT_NE(l.launch_chosen->message.find("\"--fp8-hybrid\" is in one only"), std::string::npos)
      << l.launch_chosen->message;

  const auto paths = read_ok(
      "case $1 in\n  a) torchrun pretrain_gpt.py --bf16 --save /c/a ;;\n"
      "  b) torchrun pretrain_gpt.py --bf16 --save /c/b ;;\nesac\n");
  EXPECT_FALSE(paths.launch_chosen.has_value()) << paths.launch_chosen->message;

  const auto one = read_ok(
      "if [ \"$1\" = run ]; then\n  torchrun pretrain_gpt.py --bf16\nfi\n"
      "torchrun pretrain_gpt.py --fp16\n");
  EXPECT_FALSE(one.launch_chosen.has_value()) << one.launch_chosen->message;
}

// eval reads its joined words as a command line again, so a `#` starting a word there is a
// comment: with the words split by an unquoted `eval $CMD`, it runs to the end of the command.
TEST(ShellLaunch, ACommentInAnEvaluatedStringIsAComment) {
  const auto l = read_ok(
      "OPTS=\"--bf16 --seed 1\n   # --fp16 --seed 2\"\n"
      "CMD=\"torchrun pretrain_gpt.py ${OPTS}\"\neval $CMD\n");
  EXPECT_EQ(texts(l.args), (words{"--bf16", "--seed", "1"}));
}

// "${ARGS[*]}" is one word, its elements joined with a space; "${ARGS[@]}" a word each: in a
// `bash -c` string, the first runs every argument, the second only the first element (bash gives
// the others to the string as $0, $1, ...).
TEST(ShellLaunch, AQuotedStarArrayIsOneWord) {
  const auto star = read_ok(
      "A=(\n  --num-layers 4\n  --hidden-size 256\n)\n"
      "bash -c \"python pretrain_gpt.py ${A[*]}\"\n");
  EXPECT_EQ(texts(star.args), (words{"--num-layers", "4", "--hidden-size", "256"}));
  const auto at = read_ok(
      "A=(\n  --num-layers 4\n  --hidden-size 256\n)\n"
      "bash -c \"python pretrain_gpt.py ${A[@]}\"\n");
  EXPECT_EQ(texts(at.args), (words{"--num-layers"}));
  // Unquoted, both are split into words.
  const auto bare = read_ok("A=(--bf16 --seed 1)\npython pretrain_gpt.py ${A[*]}\n");
  EXPECT_EQ(texts(bare.args), (words{"--bf16", "--seed", "1"}));
}

// Flags a script chooses with `$( [ TEST ] && echo ... || echo ... )`: the test of its own values
// decides which echo's words join the command; a test of a value the script does not set leaves
// the substitution as written.
TEST(ShellLaunch, FlagsChosenByATestInACommandSubstitutionAreTheChosenEchos) {
  const auto chosen = read_ok(
      "DSA=${2:-0}\n"
      "python pretrain_gpt.py --x 1 $( [ \"$DSA\" = \"1\" ] && echo \"\\\n  --mla --q 4\" \\\n"
      "  || echo \"--gqa --g 8\" ) --y\n");
  EXPECT_EQ(texts(chosen.args), (words{"--x", "1", "--gqa", "--g", "8", "--y"}));
  const auto taken = read_ok(
      "DSA=1\npython pretrain_gpt.py $( [ \"$DSA\" = \"1\" ] && echo \"--mla --q 4\" || echo "
      "--gqa ) --y\n");
  EXPECT_EQ(texts(taken.args), (words{"--mla", "--q", "4", "--y"}));
  const auto one_arm = read_ok(
      "SP=1\npython pretrain_gpt.py --tp 2 $( [ \"$SP\" != \"1\" ] && echo --sequence-parallel "
      ")\n");
  EXPECT_EQ(texts(one_arm.args), (words{"--tp", "2"}));
  const auto unknown = read_ok(
      "python pretrain_gpt.py --tp 2 $( [ \"$SP\" = \"1\" ] && echo --sequence-parallel )\n");
  ASSERT_EQ(unknown.args.size(), 3u);
  EXPECT_TRUE(unknown.args[2].unresolved);
}

// `bash -c 'STRING' NAME ARGS...`: the string's "$@" and $1, $2, ... are ARGS (bash(1), -c), so a
// launch handed its program and arguments that way runs them; NAME is its $0.
TEST(ShellLaunch, ArgumentsHandedToABashCStringAreItsPositionalParameters) {
  const auto all = read_ok(
      "A=\"--bf16 --seed 1\"\n"
      "srun bash -c 'torchrun --nproc_per_node 8 \"$@\"' _ pretrain_gpt.py $A\n");
  EXPECT_EQ(all.script.text, "pretrain_gpt.py");
  EXPECT_EQ(texts(all.args), (words{"--bf16", "--seed", "1"}));
  const auto numbered = read_ok("bash -c 'python $1 --bf16 --seed $2' run pretrain_gpt.py 7\n");
  EXPECT_EQ(numbered.script.text, "pretrain_gpt.py");
  EXPECT_EQ(texts(numbered.args), (words{"--bf16", "--seed", "7"}));
}

// The forms scripts write for their own folder expand to it when the script is on disk, and
// stay run-time values when it is not (read from text); `$(pwd)` is the working directory.
TEST(ShellLaunch, OwnFolderIdiomsNameTheScriptsFolder) {
  const auto dir = std::filesystem::temp_directory_path() / "vramscope-shell-folder-test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "run.sh").string();
  std::ofstream(path) << "";
  const std::string folder = std::filesystem::absolute(dir).lexically_normal().string();
  for (const std::string form :
       {"$(dirname \"$0\")", "$(dirname $0)", "$(cd \"$(dirname \"$0\")\" && pwd)",
        "$(cd -- \"$(dirname -- \"${BASH_SOURCE[0]}\")\" &> /dev/null && pwd)",
        "$(dirname $(realpath $0))", "$(realpath $(dirname $0))",
        "$(dirname \"$(readlink -f \"$0\")\")", "$(cd $(dirname $0); pwd)"}) {
    auto on_disk = read_shell_launch("D=" + form + "\npython $D/pretrain_gpt.py --bf16\n", path);
    ASSERT_TRUE(on_disk) << form;
    EXPECT_EQ(on_disk->script.text, folder + "/pretrain_gpt.py") << form;
    auto from_text = read_shell_launch("D=" + form + "\npython $D/pretrain_gpt.py\n", "run.sh");
    ASSERT_TRUE(from_text) << form;
    EXPECT_TRUE(from_text->script.unresolved) << form;
  }
  // A way from the folder inside the form, and dirname of a form: the folder it names.
  const std::string parent = std::filesystem::path(folder).parent_path().string();
  for (const auto& [form, named] : std::vector<std::pair<std::string, std::string>>{
           {"$(cd \"$(dirname \"$0\")/..\" && pwd)", parent},
           {"$(cd -- \"$(dirname -- \"${BASH_SOURCE[0]}\")/../..\" &> /dev/null && pwd)",
            std::filesystem::path(parent).parent_path().string()},
           {"$(dirname $(dirname $0))", parent},
           {"$(realpath $(dirname $0)/../x)", parent + "/x"}}) {
    auto on_disk = read_shell_launch("D=" + form + "\npython $D/pretrain_gpt.py --bf16\n", path);
    ASSERT_TRUE(on_disk) << form;
    EXPECT_EQ(on_disk->script.text, named + "/pretrain_gpt.py") << form;
  }
  // A way that is no plain path stays a run-time value.
  auto odd = read_shell_launch("D=$(cd \"$(dirname \"$0\")/$X\" && pwd)\npython $D/a.py\n", path);
  ASSERT_TRUE(odd);
  EXPECT_TRUE(odd->script.unresolved);
  auto working = read_shell_launch("D=$(pwd)\npython $D/pretrain_gpt.py\n", path);
  ASSERT_TRUE(working);
  EXPECT_TRUE(working->script.unresolved);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace vramscope::job::detail
