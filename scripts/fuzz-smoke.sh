#!/usr/bin/env bash
# Builds every libFuzzer target under fuzz/ (executables named fuzz_*) with clang, AddressSanitizer
# and UndefinedBehaviorSanitizer in build-fuzz/, and runs each for a bounded time on a seed
# corpus. Exits non-zero when a target fails to build or a run finds a crash, a leak, a timeout
# or undefined behaviour.
#   FUZZ_SECONDS   seconds per target (default 20)
#   FUZZ_JOBS      build parallelism (default 2)
# Seeds: fuzz/<target>.seeds lists seed folders (one per line, relative to the repository);
# without it the target gets tests/data. Seeds are copied to build-fuzz/corpus/<target>, so the
# repository is never written to; crash inputs land in build-fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${FUZZ_SECONDS:-20}"
jobs="${FUZZ_JOBS:-2}"
build=build-fuzz

if ! command -v clang++ >/dev/null; then
  echo "fuzz-smoke: clang++ not found (scripts/install-deps.sh installs it)" >&2
  exit 1
fi

CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DVRAMSCOPE_BUILD_TESTS=OFF -DVRAMSCOPE_BUILD_FUZZERS=ON \
  -DVRAMSCOPE_SANITIZE=address,undefined \
  "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link -fno-sanitize-recover=all" >/dev/null
cmake --build "$build" --target fuzzers -j "$jobs"

mapfile -t targets < <(find "$build/fuzz" -maxdepth 1 -type f -perm -u+x -name 'fuzz_*' | sort)
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz-smoke: no fuzz_* executables in $build/fuzz" >&2
  exit 1
fi

mkdir -p "$build/artifacts"
failed=()
for exe in "${targets[@]}"; do
  name="$(basename "$exe")"
  corpus="$build/corpus/$name"
  rm -rf "$corpus" && mkdir -p "$corpus"
  seeds=(tests/data)
  if [ -f "fuzz/$name.seeds" ]; then mapfile -t seeds < <(grep -v '^\s*$' "fuzz/$name.seeds"); fi
  for dir in "${seeds[@]}"; do
    [ -d "$dir" ] || continue
    find "$dir" -type f -size -1024k -print0 | while IFS= read -r -d '' f; do
      cp "$f" "$corpus/$(echo "$f" | tr '/' '_')"
    done
  done
  echo "fuzz-smoke: $name for ${seconds}s on $(ls "$corpus" | wc -l) seeds"
  if ! "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$name-" "$corpus" >"$build/$name.log" 2>&1; then
    echo "fuzz-smoke: $name FAILED; last lines of $build/$name.log:" >&2
    tail -n 30 "$build/$name.log" >&2
    failed+=("$name")
  else
    grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$build/$name.log" | \
      sed "s/^/  $name /"
  fi
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz-smoke: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
  exit 1
fi
echo "fuzz-smoke: ${#targets[@]} target(s) ran clean"
