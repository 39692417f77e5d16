#!/usr/bin/env bash
# Draws docs/images/prometheus-two-nodes.png: a fake two-node job (two `vramscope watch
# --replay` processes, one per node, playing generated logs at one line per second) scraped by
# Debian's Prometheus on 127.0.0.1, and Prometheus' own graph of it shot by headless Chromium.
# Needs: build/tools/vramscope, prometheus, chromium (apt-get install prometheus chromium).
# Takes about two minutes. Usage: scripts/prometheus-demo.sh [OUT.png]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-docs/images/prometheus-two-nodes.png}
vramscope=build/tools/vramscope
for tool in "$vramscope" prometheus chromium; do
  command -v "$tool" >/dev/null || [ -x "$tool" ] || { echo "prometheus-demo: $tool not found" >&2; exit 3; }
done
tmp=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT

# Two nodes of four 80 GB GPUs, one rank each: weights and optimizer state arrive in the first
# seconds, then every step rises through forward and falls in backward; rank 6 on node-b also
# gathers a full state dict every 40 s (the imbalance the rank alert is for).
python3 - "$tmp" <<'PY'
import json, math, sys
GiB = 1 << 30
for node, base_rank in (("node-a", 0), ("node-b", 4)):
    with open(f"{sys.argv[1]}/{node}.jsonl", "w") as f:
        for t in range(240):
            gpus, procs = [], []
            for g in range(4):
                rank = base_rank + g
                ramp = min(1.0, t / 8)
                step = 0.5 + 0.5 * math.sin(2 * math.pi * (t + 2 * g) / 6)
                used = ramp * (22 + 14 * step) * GiB + 0.5 * GiB
                if rank == 6 and t % 40 >= 30:
                    used += 24 * GiB
                used = int(used)
                uuid = f"GPU-{node}-{g}"
                gpus.append({"index": g, "name": "NVIDIA H100 80GB HBM3", "uuid": uuid,
                             "bus_id": f"00000000:{0x18 + g:02X}:00.0", "total": 80 * GiB,
                             "used": used, "free": 80 * GiB - used, "util_gpu": 95, "util_memory": 40})
                procs.append({"gpu": g, "gpu_uuid": uuid, "pid": 4000 + rank, "name": "python3",
                              "type": "C", "used": used - GiB // 2, "rank": rank, "local_rank": g,
                              "world_size": 8, "framework": "torch"})
            f.write(json.dumps({"time_ms": 1732183200000 + 1000 * t, "source": "nvml",
                                "gpus": gpus, "processes": procs}) + "\n")
PY

ports=()
for node in node-a node-b; do
  "$vramscope" watch --replay "$tmp/$node.jsonl" --interval 1s --hostname "$node" \
      --prometheus 127.0.0.1:0 >/dev/null 2>"$tmp/$node.err" &
  pids+=($!)
  for _ in $(seq 50); do grep -q "serving metrics" "$tmp/$node.err" && break; sleep 0.1; done
  ports+=("$(sed -n 's|.*http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$tmp/$node.err")")
done
prom_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cp deploy/prometheus/vramscope-rules.yml "$tmp/"
cat > "$tmp/prometheus.yml" <<YML
global: { scrape_interval: 1s, evaluation_interval: 1s }
rule_files: [vramscope-rules.yml]
scrape_configs:
  - job_name: vramscope
    static_configs: [{ targets: ["127.0.0.1:${ports[0]}", "127.0.0.1:${ports[1]}"] }]
YML
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/data" \
    --web.listen-address="127.0.0.1:$prom_port" >"$tmp/prometheus.log" 2>&1 &
pids+=($!)
echo "prometheus-demo: scraping two fake nodes for 100 s ..." >&2
sleep 100
expr='max by (Hostname, rank) (vramscope_process_memory_used_bytes) / 2^30'
url="http://127.0.0.1:$prom_port/graph?g0.expr=$(python3 -c 'import sys,urllib.parse;print(urllib.parse.quote(sys.argv[1]))' "$expr")&g0.tab=0&g0.range_input=2m"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,900 \
    --virtual-time-budget=5000 --screenshot="$tmp/shot.png" "$url" >/dev/null 2>&1
mv "$tmp/shot.png" "$out"
echo "prometheus-demo: wrote $out" >&2
