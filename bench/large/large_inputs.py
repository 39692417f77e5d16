#!/usr/bin/env python3
"""Generated large inputs, one or more per reader, each run through the command that reads it
under /usr/bin/time -v: wall time, peak resident memory and the ratio of that to the input's
size. Time growth shows as the same reader at two sizes (10x apart): linear readers take about
10x as long. bench/README.md ("Large inputs") has the numbers of a run.

Usage: bench/large/large_inputs.py BUILD/tools/vramscope [--scale S] [--only NAME ...]
  --scale 0.1 makes every input a tenth as large (a quick check); the default 1 writes about
  2.3 GB into a temporary folder (removed at the end).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


def write(path, chunks):
    with open(path, "w", encoding="utf-8") as f:
        for c in chunks:
            f.write(c)
    return os.path.getsize(path)


def megatron_doubled(d, scale):
    # The shell-launch reader: a variable doubled 40 times (a terabyte if expanded).
    p = os.path.join(d, "doubled.sh")
    lines = ['DATA="/data/my-gpt2_text_document"\n'] + ['DATA="$DATA$DATA"\n'] * 40
    lines.append('torchrun pretrain_gpt.py --num-layers 2 --hidden-size 64 '
                 '--num-attention-heads 4 --seq-length 128 --max-position-embeddings 128 '
                 '--micro-batch-size 1 --data-path "$DATA"\n')
    return p, write(p, lines), ["plan", "--from", p]


def job_keys(n):
    def make(d, scale):
        count = max(10, int(n * scale))
        p = os.path.join(d, f"job-{count}-keys.yaml")
        size = write(p, ["model: llama-3.1-8b\nenv:\n"] +
                     [f"  VRAMSCOPE_BENCH_{i}: \"v{i}\"\n" for i in range(count)])
        return p, size, ["plan", p, "--json"]
    return make


def trace_long_line(gib):
    def make(d, scale):
        folder = os.path.join(d, "trace-long")
        os.makedirs(folder, exist_ok=True)
        p = os.path.join(folder, "trace-1.jsonl")
        total = int(gib * scale * (1 << 30))
        block = "9" * (1 << 20)
        with open(p, "w") as f:
            f.write('{"type":"header","pid":1,"rank":0,"status":"ok"}\n')
            f.write('{"type":"event","kind":"alloc","device":0,"timestamp":1,"bytes":')
            for _ in range(total >> 20):
                f.write(block)
            f.write('}\n{"type":"event","kind":"alloc","device":0,"timestamp":2,"bytes":512}\n')
        return folder, os.path.getsize(p), ["explain", "--trace", folder, "--json"]
    return make


def trace_events(n):
    def make(d, scale):
        count = int(n * scale)
        folder = os.path.join(d, f"trace-{count}")
        os.makedirs(folder, exist_ok=True)
        p = os.path.join(folder, "trace-1.jsonl")
        def lines():
            yield '{"type":"header","pid":1,"rank":0,"status":"ok"}\n'
            for i in range(count):
                kind = "alloc" if i % 2 == 0 else "free"
                yield ('{"type":"event","timestamp":%d,"device":0,"pid":1,"rank":0,"kind":"%s",'
                       '"address":"0x7f%010x","bytes":%d,"stream":7}\n'
                       % (i, kind, i // 2, 1048576 * (1 + (i // 2) % 64)))
        size = write(p, lines())
        return folder, size, ["explain", "--trace", folder, "--json"]
    return make


def smi_csv(mb, short_rows):
    def make(d, scale):
        target = int(mb * scale * 1e6)
        p = os.path.join(d, f"smi-{'short' if short_rows else 'rows'}-{target}.csv")
        if short_rows:  # 4-byte rows: each one an observation far larger than itself
            rows = target // 4
            size = write(p, ["index, memory.used [MiB]\n"] + ["0,1\n"] * rows)
        else:  # --query-gpu rows as nvidia-smi -l prints them, 8 GPUs a poll
            head = "index, name, memory.total [MiB], memory.used [MiB]\n"
            row = "{}, NVIDIA H100 80GB HBM3, 81559 MiB, {} MiB\n"
            rows = target // len(row.format(0, 12345))
            size = write(p, [head] + [row.format(i % 8, 10000 + i % 5000) for i in range(rows)])
        return p, size, ["explain", "--smi", p, "--json"]
    return make


def oom_log(mb, line):
    def make(d, scale):
        target = int(mb * scale * 1e6)
        p = os.path.join(d, f"train-{len(line)}-{target}.log")
        head = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 "
                "has a total capacity of 79.15 GiB of which 1.06 GiB is free.\n")
        size = write(p, [head] + [line] * (target // len(line)))
        return p, size, ["explain", "--oom", p, "--json"]
    return make


def replay_gpus(gpus, per_gpu):
    def make(d, scale):
        n = max(2, int(gpus * scale))
        p = os.path.join(d, f"replay-{n}-gpus.jsonl")
        line = {"time_ms": 1732183200000, "source": "nvml", "gpus": [], "processes": []}
        for i in range(n):
            line["gpus"].append({"index": i, "name": "NVIDIA H100 80GB HBM3",
                                 "uuid": f"GPU-{i:08d}", "total": 85899345920,
                                 "used": 21474836480 + i * 1048576})
            for k in range(per_gpu):
                line["processes"].append({"gpu": i, "gpu_uuid": f"GPU-{i:08d}",
                                          "pid": 100000 + i * per_gpu + k, "name": "python3",
                                          "type": "C", "used": 2147483648})
        size = write(p, [json.dumps(line) + "\n"])
        return p, size, ["watch", "--replay", p, "--json", "--count", "1"]
    return make


CASES = [
    ("shell-doubled-variable", megatron_doubled),
    ("job-yaml-2.5k-keys", job_keys(2_500)),
    ("job-yaml-25k-keys", job_keys(25_000)),
    ("job-yaml-100k-keys", job_keys(100_000)),  # 3.4 MB: over the 1 MiB a job file may be
    ("trace-1M-events", trace_events(1_000_000)),
    ("trace-10M-events", trace_events(10_000_000)),
    ("trace-1GiB-line", trace_long_line(1.0)),
    ("smi-csv-4.5MB", smi_csv(4.5, False)),
    ("smi-csv-45MB", smi_csv(45, False)),
    ("smi-csv-45MB-4-byte-rows", smi_csv(45, True)),
    ("oom-log-4.5MB", oom_log(4.5, "[rank0]: step 1200 loss 2.3147 lr 3.0e-4 grad_norm 0.81 "
                                   "tokens/s 48213 mem 61.2 GiB\n")),
    ("oom-log-45MB", oom_log(45, "[rank0]: step 1200 loss 2.3147 lr 3.0e-4 grad_norm 0.81 "
                                 "tokens/s 48213 mem 61.2 GiB\n")),
    ("oom-log-45MB-2-byte-lines", oom_log(45, "x\n")),
    ("replay-400-gpus", replay_gpus(400, 4)),
    ("replay-4000-gpus", replay_gpus(4000, 4)),
]


def measure(binary, args):
    start = time.monotonic()
    r = subprocess.run(["/usr/bin/time", "-v", binary, *args], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, errors="replace")
    wall = time.monotonic() - start
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", r.stderr)
    status = re.search(r"Exit status: (\d+)", r.stderr)
    first = next((l for l in r.stderr.splitlines() if l.strip() and "Command being" not in l), "")
    return wall, int(rss.group(1)) * 1024 if rss else 0, int(status.group(1)) if status else -1, first


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--only", nargs="*")
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="vramscope-large-")
    try:
        print(f"{'input':<26} {'size':>10} {'exit':>4} {'wall s':>7} {'peak RSS':>10} {'RSS/size':>8}")
        for name, make in CASES:
            if a.only and name not in a.only:
                continue
            path, size, args = make(d, a.scale)
            wall, rss, code, first = measure(a.binary, args)
            ratio = rss / size if size else 0
            print(f"{name:<26} {size / 1e6:>8.1f}MB {code:>4} {wall:>7.2f} {rss / 2**20:>7.0f}MiB "
                  f"{ratio:>8.2f}", flush=True)
            if code not in (0, 1, 2):
                print(f"  {first[:160]}")
            if os.path.isdir(path):
                shutil.rmtree(path)
            else:
                os.remove(path)
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
