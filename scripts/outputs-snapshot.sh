#!/usr/bin/env bash
# Records what vramscope prints for every example, every recipe, every foreign config of the test
# data and the golden tests' commands: one folder per run, three files per command (NAME.out,
# NAME.err, NAME.rc), plus the HTML reports the commands write. Two such folders, made before and
# after a change that must not change behaviour (a move of files, a split), are compared with
#   diff -r BEFORE AFTER
# and an empty diff is the proof.
# Usage: scripts/outputs-snapshot.sh OUTDIR      (BUILD=build-dir to use another build folder)
# Runs from the source folder, as the golden tests do; needs the vramscope binary and, when it is
# built (-DVRAMSCOPE_BUILD_BENCHMARKS=ON), the accuracy scorer.
set -uo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
out=${1:?usage: scripts/outputs-snapshot.sh OUTDIR}
bin="$build/tools/vramscope"
if [ ! -x "$bin" ]; then
  echo "outputs-snapshot.sh: $bin is not built (cmake --build $build --target vramscope)" >&2
  exit 2
fi
mkdir -p "$out/html"
count=0

# record NAME ARGS...: runs vramscope ARGS and keeps its standard output, error and exit status.
record() {
  local name=$1
  shift
  "$bin" "$@" > "$out/$name.out" 2> "$out/$name.err"
  echo $? > "$out/$name.rc"
  count=$((count + 1))
}

# A name for a file: its path with every '/' as '_' and without the extension.
name_of() {
  local path=${1%.*}
  echo "${path//\//_}"
}

# Job specs: the examples and the cases, in every output form.
for job in examples/*.yaml examples/cases/*/job*.yaml tests/data/job/full.yaml; do
  n=$(name_of "$job")
  record "plan-$n" plan "$job"
  record "plan-json-$n" plan "$job" --json
  record "plan-verbose-$n" plan "$job" --verbose
  record "plan-html-$n" plan "$job" --html "$out/html/$n.html"
  record "explain-$n" explain "$job"
done

# The cases with their evidence, as the golden tests run them.
c=examples/cases
record explain-case1-smi explain "$c/1-jax-preallocation/job.yaml" \
  --smi "$c/1-jax-preallocation/nvidia-smi.txt"
record explain-case2-stats explain "$c/2-fsdp1-meta-init/job.yaml" --stats \
  "$c"/2-fsdp1-meta-init/memory_stats_rank*.json
record explain-case4-stats explain "$c/4-fsdp2-tp-record-stream/job.yaml" --stats \
  "$c/4-fsdp2-tp-record-stream/memory_stats_rank0.json"
record explain-case5-smi explain "$c/5-ddp-gpu0/job.yaml" --smi "$c/5-ddp-gpu0/nvidia-smi.txt"
record explain-rules explain --rules
record compare-micro-batch compare examples/llama-3.1-8b-fsdp2.yaml \
  --vary training.micro_batch=1,2,4,8
record fit-try fit examples/llama-3.1-8b-fsdp2.yaml --try parallel.strategy=fsdp2,zero3 \
  --try training.micro_batch=1,2,4
record fit-largest fit examples/llama-3.1-8b-fsdp2.yaml
record inspect-llama-3.1-8b inspect llama-3.1-8b
record models models
record keys keys
record snapshot-h100-torch211 snapshot tests/data/observe/h100_torch211/snapshot.pickle

# Every command's help, the man page and the completion scripts.
record help help
for command in plan compare fit explain snapshot watch trace inspect models keys; do
  record "help-$command" "$command" --help
done
record man --man
record completion-bash --completion bash
record completion-zsh --completion zsh

# Foreign configs: the recipes, the importers' test data and the real-world corpus, each planned
# through --from (text and JSON), so that every importer and model code is exercised.
for config in examples/recipes/* tests/data/job/accelerate_* tests/data/job/deepspeed_* \
  tests/data/job/megatron_* tests/data/job/torchtitan_* tests/data/job/torchtune_* \
  tests/data/realworld/{accelerate,deepspeed,megatron,torchtitan,torchtune}/*; do
  [ -f "$config" ] || continue
  n=$(name_of "$config")
  record "from-$n" plan --from "$config"
  record "from-json-$n" plan --from "$config" --json
done
for recipe in examples/recipes/*; do
  n=$(name_of "$recipe")
  record "from-html-$n" plan --from "$recipe" --html "$out/html/$n.html"
  record "compare-$n" compare --from "$recipe" --vary training.micro_batch=1,2
done

# The accuracy scorer plans every measured and published case.
scorer="$build/bench/vramscope_accuracy"
if [ -x "$scorer" ]; then
  "$scorer" bench/data/*.jsonl > "$out/accuracy-measured.out" 2> "$out/accuracy-measured.err"
  echo $? > "$out/accuracy-measured.rc"
  "$scorer" --published bench/data/published --unexpressed bench/published/UNEXPRESSED.md \
    > "$out/accuracy-published.out" 2> "$out/accuracy-published.err"
  echo $? > "$out/accuracy-published.rc"
  count=$((count + 2))
fi
# The HTML reports' paths are named in the messages: write them as OUT, so that two folders compare.
for f in "$out"/*.out "$out"/*.err; do
  sed -i "s|$out|OUT|g" "$f"
done
echo "outputs-snapshot.sh: $count commands recorded in $out"
