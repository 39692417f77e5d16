#!/usr/bin/env bash
# Long fuzzing: every libFuzzer target runs until it has executed FUZZ_RUNS inputs (default
# 10,000,000) or FUZZ_SECONDS_EACH seconds have passed (default 6 hours), whichever comes first,
# on a corpus kept between runs, so each run starts where the last one stopped. Built and seeded
# as scripts/fuzz-smoke.sh (CI's 20 s a target) does, through scripts/fuzz-lib.sh.
#   FUZZ_RUNS          executions per target (default 10000000)
#   FUZZ_SECONDS_EACH  time cap per target in seconds (default 21600)
#   FUZZ_CORPUS        where the kept corpora live (default fuzz-corpus/, one folder a target;
#                      outside build-fuzz/ so that a clean build keeps them)
#   FUZZ_TARGETS       space-separated target names (default: every fuzz_* executable)
#   FUZZ_JOBS          build parallelism (default 2)
#   FUZZ_NICE          run the targets under `nice -n FUZZ_NICE` (default: not niced)
#   FUZZ_TIMEOUT       seconds an input may take before it counts as a hang (default 10; wall
#                      time, so raise it for a niced run on a busy machine)
# Each run adds the seeds again (new seeds are picked up) and merges what it finds into the kept
# corpus. The line for each target in $FUZZ_CORPUS/summary.tsv gives: date, target, executions,
# seconds, executions a second, corpus size, new units, result (ok, or the failure), for
# bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/fuzz-lib.sh

runs="${FUZZ_RUNS:-10000000}"
seconds="${FUZZ_SECONDS_EACH:-21600}"
corpora="${FUZZ_CORPUS:-fuzz-corpus}"
targets=()
if [ -n "${FUZZ_TARGETS:-}" ]; then read -r -a targets <<< "$FUZZ_TARGETS"; fi
fuzz_build_targets "${FUZZ_JOBS:-2}" "${targets[@]}"
niced=()
if [ -n "${FUZZ_NICE:-}" ]; then niced=(nice -n "$FUZZ_NICE"); fi

mkdir -p "$corpora"
summary="$corpora/summary.tsv"
[ -f "$summary" ] ||
  printf 'date\ttarget\texecutions\tseconds\texec_per_s\tcorpus\tnew_units\tresult\n' > "$summary"
failed=()
for name in "${fuzz_names[@]}"; do
  [ -x "$fuzz_build/fuzz/$name" ] || { echo "fuzz-long: no target $name" >&2; failed+=("$name"); continue; }
  kept="$corpora/$name"
  seeds="$fuzz_build/seeds/$name"
  mkdir -p "$kept"
  fuzz_seed "$name" "$seeds"
  log="$fuzz_build/$name.long.log"
  echo "fuzz-long: $name: up to $runs runs or ${seconds}s; corpus $kept ($(ls "$kept" | wc -l) kept)"
  start=$(date +%s)
  result=ok
  # New inputs go to the first folder given, the kept corpus; the seeds are read only.
  if ! "${niced[@]}" bash -c 'source scripts/fuzz-lib.sh; fuzz_run "$@"' fuzz_run \
      "$name" "$log" "$kept" "$seeds" -- -runs="$runs" -max_total_time="$seconds"; then
    result="FAILED: $(fuzz_failure "$log")"
    failed+=("$name")
  fi
  elapsed=$(( $(date +%s) - start ))
  executed=$(fuzz_stat "$log" number_of_executed_units)
  rate=$(( ${executed:-0} / (elapsed > 0 ? elapsed : 1) ))
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$name" "${executed:-?}" \
    "$elapsed" "$rate" "$(ls "$kept" | wc -l)" "$(fuzz_stat "$log" new_units_added)" "$result" \
    >> "$summary"
  tail -n 1 "$summary"
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz-long: ${#failed[@]} target(s) failed: ${failed[*]} (inputs in $fuzz_build/artifacts/)" >&2
  exit 1
fi
echo "fuzz-long: ${#fuzz_names[@]} target(s) ran clean; summary in $summary"
