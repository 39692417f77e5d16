#!/usr/bin/env bash
# Output that cannot be written is an error, never a silent success: every command that prints
# into /dev/full (no space left) says so and exits 3; a reader that goes away ends the command
# as a closed pipe conventionally does (status 141), even with SIGPIPE ignored; --html into
# /dev/null leaves /dev/null a device. Usage: write_errors_test.sh VRAMSCOPE_BINARY SOURCE_DIR
set -uo pipefail
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# expect_full NAME ARGS...: the command into /dev/full exits 3 and names the reason.
expect_full() {
  local name=$1
  shift
  "$bin" "$@" > /dev/full 2> "$tmp/err"
  local rc=$?
  [ "$rc" -eq 3 ] || fail "$name into /dev/full exited $rc, expected 3"
  grep -q "cannot write the output: No space left on device" "$tmp/err" ||
    fail "$name into /dev/full: no message ($(cat "$tmp/err"))"
}

job=$src/examples/llama-3.1-8b-fsdp2.yaml
replay=$src/tests/data/monitor/replay-ddp-gpu0.jsonl
expect_full "plan" plan "$job"
expect_full "plan --json" plan "$job" --json
expect_full "models" models
expect_full "snapshot" snapshot "$src/tests/data/observe/snapshot_cpython_p4.pickle"
expect_full "watch --json" watch --json --replay "$replay" --interval 10ms

# A reader that takes one line and leaves, with SIGPIPE ignored by the shell that started us.
# A long recording replays for minutes unless the closed pipe ends the command.
line=$(head -n 1 "$replay")
for _ in $(seq 1 2000); do printf '%s\n' "$line"; done > "$tmp/long.jsonl"
start=$SECONDS
( trap '' PIPE; "$bin" watch --json --replay "$tmp/long.jsonl" --interval 10ms | head -n 1 > /dev/null;
  echo "${PIPESTATUS[0]}" > "$tmp/status" )
[ "$(cat "$tmp/status")" -eq 141 ] ||
  fail "watch --json into a closed pipe (SIGPIPE ignored) exited $(cat "$tmp/status"), expected 141"
[ $((SECONDS - start)) -lt 10 ] || fail "watch ran on for $((SECONDS - start)) s after its reader left"

# --html and --timeline write through a device instead of replacing it.
"$bin" plan "$job" --html /dev/null --timeline /dev/null > /dev/null || fail "plan --html /dev/null"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
"$bin" plan "$job" --html /dev/full > /dev/null 2> "$tmp/err"
rc=$?
[ "$rc" -ne 0 ] || fail "plan --html /dev/full exited 0"
grep -q "/dev/full: cannot write" "$tmp/err" || fail "plan --html /dev/full: $(cat "$tmp/err")"
echo "ok"
