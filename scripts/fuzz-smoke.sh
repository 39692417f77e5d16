#!/usr/bin/env bash
# CI's fuzzing: every libFuzzer target for a bounded time on its seeds (scripts/fuzz-lib.sh
# says how targets are built and seeded). Exits non-zero when a target fails to build or a run
# finds a crash, a leak, a timeout or undefined behaviour.
#   FUZZ_SECONDS   seconds per target (default 20)
#   FUZZ_JOBS      build parallelism (default 2)
# Seeds are copied to build-fuzz/corpus/<target>, so the repository is never written to.
# scripts/fuzz-long.sh runs the same targets for long on a corpus kept between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/fuzz-lib.sh

seconds="${FUZZ_SECONDS:-20}"
fuzz_build_targets "${FUZZ_JOBS:-2}"

failed=()
for name in "${fuzz_names[@]}"; do
  corpus="$fuzz_build/corpus/$name"
  fuzz_seed "$name" "$corpus"
  log="$fuzz_build/$name.log"
  echo "fuzz-smoke: $name for ${seconds}s on $(ls "$corpus" | wc -l) seeds"
  if ! fuzz_run "$name" "$log" "$corpus" -- -max_total_time="$seconds"; then
    echo "fuzz-smoke: $name FAILED; last lines of $log:" >&2
    tail -n 30 "$log" >&2
    failed+=("$name")
  else
    echo "  $name executions $(fuzz_stat "$log" number_of_executed_units)," \
         "new units $(fuzz_stat "$log" new_units_added)"
  fi
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz-smoke: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz-smoke: ${#fuzz_names[@]} target(s) ran clean"
