#!/usr/bin/env bash
# The man page and completion scripts the build generates: groff reads the page without a
# warning and man renders it; bash (and zsh, when installed) parse the scripts, and the bash
# completion offers commands, options, job keys, their values and preset names.
# Usage: generated_files_test.sh VRAMSCOPE_BINARY
set -euo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" --man > "$tmp/vramscope.1"
groff -man -Tutf8 -ww -z "$tmp/vramscope.1" 2> "$tmp/groff.err" || fail "groff exited $?"
[ ! -s "$tmp/groff.err" ] || { cat "$tmp/groff.err" >&2; fail "groff warned"; }
if command -v man > /dev/null; then
  MANWIDTH=100 man -l "$tmp/vramscope.1" 2> /dev/null | col -b > "$tmp/man.txt"
  grep -q "^COMMANDS" "$tmp/man.txt" || fail "man -l: no COMMANDS section"
  grep -q "parallel.tp" "$tmp/man.txt" || fail "man -l: no job keys"
  grep -q -- "--timeline" "$tmp/man.txt" || fail "man -l: plan's options missing"
fi

"$bin" --completion bash > "$tmp/vramscope.bash"
bash -n "$tmp/vramscope.bash" || fail "bash -n rejected the completion script"
# complete LINE: the words bash would offer with the cursor at the end of LINE.
complete_line() {
  bash -c '
    source "$1"
    COMP_LINE=$2; COMP_POINT=${#COMP_LINE}
    split=${COMP_LINE//=/ = }  # bash breaks words at "=" (COMP_WORDBREAKS)
    read -r -a COMP_WORDS <<< "$split"
    [[ $split == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    _vramscope
    echo "${COMPREPLY[*]}"' sh "$tmp/vramscope.bash" "$1" 2> /dev/null
}
expect_offer() {  # LINE WORD
  local got; got=$(complete_line "$1")
  [[ " $got " == *" $2 "* ]] || fail "completing '$1' offered '$got', not '$2'"
}
expect_offer "vramscope pl" plan
expect_offer "vramscope k" keys
expect_offer "vramscope plan job.yaml --ti" --timeline
expect_offer "vramscope plan job.yaml --set parallel.str" parallel.strategy=
expect_offer "vramscope compare job.yaml --vary training.seq" training.seq_len=
expect_offer "vramscope inspect llama-3.1-" llama-3.1-8b
# bash splits at '=', so the word being completed is the value alone.
expect_offer "vramscope plan job.yaml --set parallel.strategy=ze" zero3
expect_offer "vramscope plan job.yaml --set hardware.gpu=H1" H100-80GB
expect_offer "vramscope plan job.yaml --set model=llama-3.1-" llama-3.1-8b
expect_offer "vramscope plan job.yaml --set training.attention=" eager

"$bin" --completion zsh > "$tmp/_vramscope"
if command -v zsh > /dev/null; then
  zsh -n "$tmp/_vramscope" || fail "zsh -n rejected the completion script"
fi
echo "ok: man page and completions"
