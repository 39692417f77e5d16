#!/usr/bin/env bash
# Long fuzzing: every libFuzzer target under fuzz/ runs until it has executed FUZZ_RUNS inputs
# (default 10,000,000) or FUZZ_SECONDS_EACH seconds have passed (default 6 hours), whichever
# comes first, on a corpus kept between runs, so each run starts where the last one stopped.
# CI keeps to scripts/fuzz-smoke.sh (20 s a target); this is for a machine left alone.
#   FUZZ_RUNS          executions per target (default 10000000)
#   FUZZ_SECONDS_EACH  time cap per target in seconds (default 21600)
#   FUZZ_CORPUS        where the kept corpora live (default fuzz-corpus/, one folder a target;
#                      outside build-fuzz/ so that a clean build keeps them)
#   FUZZ_TARGETS       space-separated target names (default: every fuzz_* executable)
#   FUZZ_JOBS          build parallelism (default 2)
# The first run of a target starts from its seeds (fuzz/<target>.seeds, as fuzz-smoke.sh);
# later runs add them again (new seeds are picked up) and merge what they find into the kept
# corpus. Crash, leak and timeout inputs land in build-fuzz/artifacts/. The last line for each
# target in $FUZZ_CORPUS/summary.tsv gives: date, target, executions, seconds, corpus size,
# new units, result (ok, or the failure), for bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

runs="${FUZZ_RUNS:-10000000}"
seconds="${FUZZ_SECONDS_EACH:-21600}"
corpora="${FUZZ_CORPUS:-fuzz-corpus}"
jobs="${FUZZ_JOBS:-2}"
build=build-fuzz

if ! command -v clang++ >/dev/null; then
  echo "fuzz-long: clang++ not found (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DVRAMSCOPE_BUILD_TESTS=OFF -DVRAMSCOPE_BUILD_FUZZERS=ON \
  -DVRAMSCOPE_SANITIZE=address,undefined \
  "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link -fno-sanitize-recover=all" >/dev/null
if [ -n "${FUZZ_TARGETS:-}" ]; then
  read -r -a names <<< "$FUZZ_TARGETS"
  cmake --build "$build" --target "${names[@]}" -j "$jobs"
else
  cmake --build "$build" --target fuzzers -j "$jobs"
  mapfile -t names < <(find "$build/fuzz" -maxdepth 1 -type f -perm -u+x -name 'fuzz_*' \
                         -printf '%f\n' | sort)
fi
mkdir -p "$build/artifacts" "$corpora"
summary="$corpora/summary.tsv"
[ -f "$summary" ] || printf 'date\ttarget\texecutions\tseconds\tcorpus\tnew_units\tresult\n' > "$summary"
failed=()
for name in "${names[@]}"; do
  exe="$build/fuzz/$name"
  [ -x "$exe" ] || { echo "fuzz-long: no target $name" >&2; failed+=("$name"); continue; }
  kept="$corpora/$name"
  seeds="$build/seeds/$name"
  mkdir -p "$kept"
  rm -rf "$seeds" && mkdir -p "$seeds"
  seed_dirs=(tests/data)
  if [ -f "fuzz/$name.seeds" ]; then mapfile -t seed_dirs < <(grep -v '^\s*$' "fuzz/$name.seeds"); fi
  for dir in "${seed_dirs[@]}"; do
    [ -d "$dir" ] || continue
    find "$dir" -type f -size -1024k -print0 | while IFS= read -r -d '' f; do
      cp "$f" "$seeds/$(echo "$f" | tr '/' '_')"
    done
  done
  log="$build/$name.long.log"
  echo "fuzz-long: $name: up to $runs runs or ${seconds}s; corpus $kept ($(ls "$kept" | wc -l) kept)"
  start=$(date +%s)
  result=ok
  # New inputs go to the first folder given, the kept corpus; the seeds are read only.
  if ! "$exe" -runs="$runs" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/$name-" "$kept" "$seeds" \
      > "$log" 2>&1; then
    result="FAILED: $(grep -m1 -E '^==[0-9]+==ERROR|^SUMMARY|deadly signal|timeout' "$log" || echo 'see log')"
    failed+=("$name")
  fi
  elapsed=$(( $(date +%s) - start ))
  executed=$(grep -m1 '^stat::number_of_executed_units' "$log" | awk '{print $2}')
  added=$(grep -m1 '^stat::new_units_added' "$log" | awk '{print $2}')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$name" "${executed:-?}" "$elapsed" \
    "$(ls "$kept" | wc -l)" "${added:-?}" "$result" >> "$summary"
  tail -n 1 "$summary"
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz-long: ${#failed[@]} target(s) failed: ${failed[*]} (inputs in $build/artifacts/)" >&2
  exit 1
fi
echo "fuzz-long: ${#names[@]} target(s) ran clean; summary in $summary"
