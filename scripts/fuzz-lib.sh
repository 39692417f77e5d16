# Shared by scripts/fuzz-smoke.sh (CI: a few seconds a target) and scripts/fuzz-long.sh (a
# machine left alone: up to 10^7 executions a target on a kept corpus). Sourced, not run.
# Both build every libFuzzer target under fuzz/ (executables named fuzz_*) with clang,
# AddressSanitizer and UndefinedBehaviorSanitizer in build-fuzz/, and give each target its seeds:
# fuzz/<target>.seeds lists seed folders (one per line, relative to the repository); without it
# the target gets tests/data. Crash, leak and timeout inputs land in build-fuzz/artifacts/.

fuzz_build=build-fuzz

# fuzz_build_targets JOBS [NAME...]: configures build-fuzz/ and builds the named targets (all
# of them when none is named); fills the array fuzz_names with the targets to run.
fuzz_build_targets() {
  local jobs="$1"
  shift
  if ! command -v clang++ >/dev/null; then
    echo "fuzz: clang++ not found (scripts/install-deps.sh installs it)" >&2
    return 1
  fi
  CC=clang CXX=clang++ cmake -S . -B "$fuzz_build" -G Ninja \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DVRAMSCOPE_BUILD_TESTS=OFF -DVRAMSCOPE_BUILD_FUZZERS=ON \
    -DVRAMSCOPE_SANITIZE=address,undefined \
    "-DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link -fno-sanitize-recover=all" >/dev/null
  if [ $# -gt 0 ]; then
    fuzz_names=("$@")
    cmake --build "$fuzz_build" --target "${fuzz_names[@]}" -j "$jobs"
  else
    cmake --build "$fuzz_build" --target fuzzers -j "$jobs"
    mapfile -t fuzz_names < <(find "$fuzz_build/fuzz" -maxdepth 1 -type f -perm -u+x \
                                -name 'fuzz_*' -printf '%f\n' | sort)
  fi
  if [ ${#fuzz_names[@]} -eq 0 ]; then
    echo "fuzz: no fuzz_* executables in $fuzz_build/fuzz" >&2
    return 1
  fi
  mkdir -p "$fuzz_build/artifacts"
}

# fuzz_seed NAME DEST: copies NAME's seed files (under 1 MiB each) into the fresh folder DEST.
fuzz_seed() {
  local name="$1" dest="$2" dir
  rm -rf "$dest" && mkdir -p "$dest"
  local seed_dirs=(tests/data)
  if [ -f "fuzz/$name.seeds" ]; then mapfile -t seed_dirs < <(grep -v '^\s*$' "fuzz/$name.seeds"); fi
  for dir in "${seed_dirs[@]}"; do
    [ -d "$dir" ] || continue
    find "$dir" -type f -size -1024k -print0 | while IFS= read -r -d '' f; do
      cp "$f" "$dest/$(echo "$f" | tr '/' '_')"
    done
  done
}

# fuzz_run NAME LOG CORPUS... -- FLAG...: runs target NAME on the corpus folders (new inputs go
# to the first) with the given libFuzzer flags, its output in LOG. Returns libFuzzer's status.
# An input that runs past FUZZ_TIMEOUT seconds (default 10) fails the run; libFuzzer counts wall
# time, so a run niced on a busy machine needs more (a 99,000-row CSV takes 6.5 s under the
# sanitizers and 0.26 s in a release build).
fuzz_run() {
  local name="$1" log="$2"
  shift 2
  local corpora=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do corpora+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  "$fuzz_build/fuzz/$name" "$@" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$fuzz_build/artifacts/$name-" "${corpora[@]}" > "$log" 2>&1
}

# fuzz_stat LOG KEY: a final statistic of a run (number_of_executed_units, new_units_added, ...).
fuzz_stat() {
  grep -m1 "^stat::$2" "$1" | awk '{print $2}'
}

# fuzz_failure LOG: the first line that says why a run failed.
fuzz_failure() {
  grep -m1 -E '^==[0-9]+==ERROR|^SUMMARY|deadly signal|timeout' "$1" || echo 'see log'
}
