#!/usr/bin/env bash
# Takes the picture of `vramscope watch`'s full screen that README.md and docs/watch.md show:
# watch plays back a generated log (eight H100s of a training job, one rank creeping towards the
# limit, a second process on GPU 0) under tmux at 80 x 24, tmux captures the screen with its
# colours, and headless Chromium draws that as a PNG.
# Usage: scripts/watch-screenshot.sh [OUT.png]   (default docs/images/watch-8-gpus.png; BUILD=dir)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
out=${1:-docs/images/watch-8-gpus.png}
[ -x "$build/tools/vramscope" ] || { echo "watch-screenshot: $build/tools/vramscope is missing: build first" >&2; exit 2; }
command -v tmux > /dev/null || { echo "watch-screenshot: tmux is not installed" >&2; exit 2; }
command -v chromium > /dev/null || { echo "watch-screenshot: chromium is not installed" >&2; exit 2; }

tmp=$(mktemp -d)
socket="vramscope-shot-$$"
trap 'tmux -L "$socket" kill-server 2> /dev/null || true; rm -rf "$tmp"' EXIT

# A recorded log of 80 refreshes: eight ranks whose memory rises and falls with each step of six
# refreshes, rank 7 creeping towards the limit, and a stray process of rank 7 on GPU 0.
python3 - "$tmp/replay.jsonl" <<'PY'
import json, math, sys
GiB = 1024 ** 3
with open(sys.argv[1], "w") as f:
    for t in range(80):
        gpus, procs = [], []
        for i in range(8):
            phase = (t + i) % 6 / 5
            base = 52 + (0.2 * t if i == 7 else 0)
            used = (base + 10 * math.sin(math.pi * phase)) * GiB
            gpus.append({"index": i, "name": "NVIDIA H100 80GB HBM3",
                         "uuid": f"GPU-{i:08d}-0000-0000-0000-000000000000", "total": 80 * GiB,
                         "used": int(used), "peak_used": int(used + GiB // 2),
                         "utilization_gpu": 90 + (t * 7 + i) % 10})
            procs.append({"gpu_index": i, "pid": 4000 + i, "name": "/usr/bin/python3", "type": "C",
                          "used": int(used - GiB), "peak_used": int(used - GiB // 2), "rank": i,
                          "local_rank": i, "world_size": 8, "framework": "torch"})
        procs.insert(1, {"gpu_index": 0, "pid": 4007, "name": "/usr/bin/python3", "type": "C",
                         "used": 600 * 1024 ** 2, "rank": 7, "local_rank": 7, "world_size": 8,
                         "framework": "torch"})
        f.write(json.dumps({"time_ms": 1764108000000 + 500 * t, "source": "nvml", "gpus": gpus,
                            "processes": procs}) + "\n")
PY

tmux -L "$socket" -f /dev/null new-session -d -x 80 -y 24 \
  "env LANG=C.UTF-8 LC_ALL=C.UTF-8 TERM=screen TZ=UTC $build/tools/vramscope watch --replay $tmp/replay.jsonl --interval 100ms; sleep 60"
sleep 6  # about 55 of the 80 refreshes played: history across the whole column
tmux -L "$socket" capture-pane -p -e > "$tmp/screen.ansi"

# The captured screen (SGR codes: colours, bold, reverse) as an HTML page in a fixed-width font.
python3 - "$tmp/screen.ansi" "$tmp/screen.html" <<'PY'
import html, re, sys
colours = {30: "#1e1e1e", 31: "#e05252", 32: "#5fb85f", 33: "#d7b84a", 34: "#6c8fd8",
           35: "#c678dd", 36: "#56b6c2", 37: "#d0d0d0"}
body = []
for line in open(sys.argv[1], encoding="utf-8").read().split("\n")[:24]:
    fg, bold, reverse, out = None, False, False, []
    for part in re.split(r"(\x1b\[[0-9;]*m)", line):
        m = re.fullmatch(r"\x1b\[([0-9;]*)m", part)
        if m:
            for code in [int(c) for c in (m.group(1) or "0").split(";") if c] or [0]:
                if code == 0: fg, bold, reverse = None, False, False
                elif code == 1: bold = True
                elif code == 22: bold = False
                elif code == 7: reverse = True
                elif code == 27: reverse = False
                elif code == 39: fg = None
                elif code in colours: fg = colours[code]
            continue
        if not part:
            continue
        colour = fg or "#d0d0d0"
        style = f"color:#1e1e1e;background:{colour}" if reverse else f"color:{colour}"
        if bold:
            style += ";font-weight:bold"
        out.append(f'<span style="{style}">{html.escape(part)}</span>')
    body.append("".join(out))
page = ("<!DOCTYPE html><html><head><meta charset='utf-8'><style>"
        "body{margin:0;background:#1e1e1e}"
        "pre{margin:0;padding:12px;font:15px/1.25 'DejaVu Sans Mono',monospace;color:#d0d0d0}"
        "</style></head><body><pre>" + "\n".join(body) + "</pre></body></html>")
open(sys.argv[2], "w", encoding="utf-8").write(page)
PY

mkdir -p "$(dirname "$out")"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=760,520 \
  --screenshot="$tmp/shot.png" "file://$tmp/screen.html" 2> /dev/null
mv "$tmp/shot.png" "$out"
echo "watch-screenshot: wrote $out"
