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

# --log on a disk that fills (a file size limit of 8 KiB stands in for it, SIGXFSZ ignored):
# exit 3 naming the log, and the log ends with a whole line.
( ulimit -f 8; trap '' XFSZ
  "$bin" watch --replay "$tmp/long.jsonl" --interval 10ms --count 50 --log "$tmp/full.jsonl" \
    > /dev/null 2> "$tmp/err"; echo $? > "$tmp/status" )
[ "$(cat "$tmp/status")" -eq 3 ] || fail "watch --log on a full disk exited $(cat "$tmp/status")"
grep -q "full.jsonl: cannot write: File too large; the line was not kept" "$tmp/err" ||
  fail "watch --log on a full disk: $(cat "$tmp/err")"
[ -s "$tmp/full.jsonl" ] || fail "watch --log kept no line before the disk filled"
[ "$(tail -c 1 "$tmp/full.jsonl" | od -An -c | tr -d ' ')" = '\n' ] ||
  fail "watch --log left a part line on a full disk"
# The next start finds the log whole; a part line left by a crash is removed, and said so.
printf '{"time_ms": 1, "gpus": [' >> "$tmp/full.jsonl"
"$bin" watch --replay "$replay" --count 1 --log "$tmp/full.jsonl" > /dev/null 2> "$tmp/err" ||
  fail "watch --log after a part line: $(cat "$tmp/err")"
grep -q "removed an unfinished last line (24 bytes" "$tmp/err" || fail "no word of the part line"
[ "$(tail -c 1 "$tmp/full.jsonl" | od -An -c | tr -d ' ')" = '\n' ] || fail "log still torn"

# --html and --timeline write through a device instead of replacing it.
"$bin" plan "$job" --html /dev/null --timeline /dev/null > /dev/null || fail "plan --html /dev/null"
[ -c /dev/null ] || fail "/dev/null is no longer a device"
"$bin" plan "$job" --html /dev/full > /dev/null 2> "$tmp/err"
rc=$?
[ "$rc" -ne 0 ] || fail "plan --html /dev/full exited 0"
grep -q "/dev/full: cannot write" "$tmp/err" || fail "plan --html /dev/full: $(cat "$tmp/err")"
echo "ok"
