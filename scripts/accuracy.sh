#!/usr/bin/env bash
# Scores vramscope against the ground truth in bench/data/*.jsonl and fails when a measured
# figure got worse than bench/data/baseline.json (bench/README.md, "Scoring"); then scores the
# published yardstick (bench/published/README.md) and fails when its figures got worse than
# bench/data/published/baseline.json. Also checks the
# harness, which cannot run here (no GPU): every Python file compiles, the scripts answer
# --help without torch or jax, and every case of bench/matrices plans and is resolved by
# bench/groundtruth/jobspec.py exactly as the job module resolves it; and no file of the
# first-sight batches that bench/data/first_sight_baseline.json lists as read right is read wrong.
# Usage: scripts/accuracy.sh            (BUILD=build-dir to use another build folder)
set -euo pipefail
export PYTHONDONTWRITEBYTECODE=1  # leave no __pycache__ in the source tree
cd "$(dirname "$0")/.."
build=${BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

PYTHONPYCACHEPREFIX="$tmp/pycache" python3 -m py_compile bench/groundtruth/*.py
for script in measure_torch measure_jax run_matrix check_env; do
  python3 "bench/groundtruth/$script.py" --help > /dev/null
done

if [ ! -f "$build/build.ninja" ]; then
  cmake -S . -B "$build" -G Ninja -DVRAMSCOPE_WERROR=ON -DVRAMSCOPE_BUILD_BENCHMARKS=ON
fi
cmake --build "$build" --target vramscope_accuracy
scorer="$build/bench/vramscope_accuracy"

for matrix in bench/matrices/*.yaml; do
  python3 bench/groundtruth/run_matrix.py "$matrix" \
    --describe-out "$tmp/$(basename "$matrix" .yaml).jsonl" > /dev/null
done
if ! "$scorer" "$tmp"/*.jsonl > "$tmp/settings.txt" 2>&1; then
  cat "$tmp/settings.txt"
  echo "accuracy.sh: a matrix case does not plan, or the harness resolves it differently" >&2
  exit 1
fi
echo "accuracy.sh: every matrix case plans and resolves as the harness resolves it"

"$scorer" bench/data/*.jsonl --baseline bench/data/baseline.json

"$scorer" --published bench/data/published --unexpressed bench/published/UNEXPRESSED.md \
  --baseline bench/data/published/baseline.json

# The first-sight batches of real framework files (tests/data/realworld/fresh*-expected.json): no
# file read right in bench/data/first_sight_baseline.json may be read wrong now.
cmake --build "$build" --target vramscope_realworld_tests
VRAMSCOPE_FIRST_SIGHT_OUT="$tmp/first_sight.json" "$build/tests/realworld/vramscope_realworld_tests" \
  --gtest_filter='RealworldFirstSight.*' > /dev/null
python3 bench/first_sight.py --baseline bench/data/first_sight_baseline.json "$tmp/first_sight.json"
