#!/usr/bin/env bash
# Generates a snapshot of about SIZE_MB (default 300) with CPython's pickler, then times
# vramscope's analysis and Python's pickle.load of the same file under /usr/bin/time -v.
#   bench/snapshot/run.sh BENCH_BINARY [SIZE_MB] [FILE]
# BENCH_BINARY is the built snapshot_bench (e.g. build/bench/vramscope_snapshot_bench).
set -euo pipefail
bench="${1:?usage: run.sh BENCH_BINARY [SIZE_MB] [FILE]}"
size="${2:-300}"
file="${3:-/tmp/vramscope_snapshot_${size}mb.pickle}"
here="$(cd "$(dirname "$0")" && pwd)"
[ -f "$file" ] || python3 "$here/make_snapshot.py" --out "$file" --target-mb "$size"
report() { grep -E "Elapsed|User time|System time|Maximum resident" | sed 's/^\s*/  /'; }
echo "vramscope (one analysis, figures checked against $file.expected.json):"
/usr/bin/time -v "$bench" "$file" --no-python --repeat 1 2> >(report) | sed 's/^/  /'
sleep 1
echo "python3 pickle.load:"
/usr/bin/time -v python3 -c "import pickle,sys; pickle.load(open(sys.argv[1],'rb'))" "$file" 2>&1 | report
echo "both in one process, best of 2:"
"$bench" "$file" --repeat 2 | sed 's/^/  /'
