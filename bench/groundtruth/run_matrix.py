#!/usr/bin/env python3
"""Runs a matrix of job specs through the measuring scripts, one fresh process per case.

    python3 bench/groundtruth/run_matrix.py bench/matrices/smoke.yaml \\
        --out bench/data/smoke.jsonl --budget-minutes 20

A matrix file (see bench/matrices/smoke.yaml):

    base: bench/matrices/jobs/small.yaml     # job file the cases start from (repo-relative)
    set: [training.steps=2]                  # overrides applied to every case (optional)
    ranks: [0]                               # ranks measured per case (optional, default [0])
    cases:
      - name: qwen-ddp                        # unique; written into the line as "case"
        set: [model=qwen2.5-0.5b, parallel.strategy=ddp]
      - name: case2
        job: examples/cases/5-ddp-gpu0/job.yaml   # another job file for this case
        ranks: [0, 1]
        expect: oom                          # informational: "oom" or "fits"

Each case runs measure_torch.py, or measure_jax.py when its strategy is jax, in a subprocess,
so an out-of-memory error or a crash ends only that case. Cases are skipped once the budget is
spent; a case never runs past the remaining budget. Measurements are appended to --out; a
line per case (status, exit code, seconds, the reason of a skip or the tail of an error) goes
to --log (default: the output path with ".run.log" in place of ".jsonl").
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import jobspec  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("matrix", help="matrix YAML")
    p.add_argument("--out", default="bench/data/matrix.jsonl",
                   help="JSONL file the measurements are appended to")
    p.add_argument("--budget-minutes", type=float, default=60.0)
    p.add_argument("--case-timeout", type=float, default=900.0, help="seconds per case")
    p.add_argument("--filter", default=None, help="regular expression on case names")
    p.add_argument("--log", default=None)
    p.add_argument("--python", default=sys.executable, help="interpreter for the cases")
    p.add_argument("--resume", action="store_true",
                   help="skip (case, rank) pairs already present in --out")
    p.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    p.add_argument("--snapshots", default=None, metavar="DIR",
                   help="also write each case's allocator history to DIR/<case>-rank<N>.pickle "
                        "(torch.cuda.memory._dump_snapshot, without stack traces, so that the "
                        "files stay small); `vramscope snapshot FILE` reads them. For a JAX case, "
                        "the compiled step's optimised HLO to DIR/<case>.hlo.txt instead")
    p.add_argument("--describe-out", default=None, metavar="FILE.jsonl",
                   help="run nothing; write one line per case with the settings the harness "
                        "would apply and no peaks (\"measured\": false), for "
                        "`vramscope_accuracy` to check that every case plans and resolves "
                        "as the harness resolves it")
    return p.parse_args(argv)


def load_matrix(path):
    with open(path, encoding="utf-8") as f:
        matrix = jobspec.read_yaml(f.read(), path) or {}
    cases = matrix.get("cases") or []
    names = [c.get("name") for c in cases]
    if not cases or None in names or len(set(names)) != len(names):
        raise ValueError(f"{path}: expected a non-empty 'cases' list with unique names")
    runs = []
    for case in cases:
        job = case.get("job") or matrix.get("base")
        if not job:
            raise ValueError(f"{path}: case {case['name']} has no job and the matrix no base")
        overrides = [str(o) for o in (matrix.get("set") or []) + (case.get("set") or [])]
        for rank in case.get("ranks") or matrix.get("ranks") or [0]:
            runs.append({"name": case["name"], "job": os.path.join(REPO, job),
                         "set": overrides, "rank": int(rank), "expect": case.get("expect")})
    return runs


def script_for(run):
    strategy = jobspec.resolve(jobspec.load(run["job"], run["set"]))["parallel.strategy"]
    return "measure_jax.py" if strategy == "jax" else "measure_torch.py"


def command(args, run):
    cmd = [args.python, os.path.join(HERE, script_for(run)), run["job"], "--rank", str(run["rank"]),
           "--out", args.out, "--case", run["name"]]
    for item in run["set"]:
        cmd += ["--set", item]
    if args.snapshots:
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", run["name"])
        if script_for(run) == "measure_torch.py":
            cmd += ["--snapshot", os.path.join(args.snapshots, f"{name}-rank{run['rank']}.pickle"),
                    "--snapshot-stacks", "none"]
        else:
            cmd += ["--dump-hlo", os.path.join(args.snapshots, f"{name}.hlo.txt")]
    return cmd


def done_pairs(path):
    pairs = set()
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                try:
                    record = json.loads(line)
                    pairs.add((record.get("case"), record.get("rank")))
                except json.JSONDecodeError:
                    continue
    return pairs


def line_count(path):
    if not os.path.exists(path):
        return 0
    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in f)


def last_line(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    return json.loads(lines[-1]) if lines else {}


def run_one(args, run, timeout):
    before = line_count(args.out)
    started = time.monotonic()
    try:
        proc = subprocess.run(command(args, run), capture_output=True, text=True, timeout=timeout,
                              cwd=REPO)
    except subprocess.TimeoutExpired as stopped:
        # What the case printed before it was stopped says where its time went.
        partial = stopped.stderr or ""
        if isinstance(partial, bytes):
            partial = partial.decode("utf-8", "replace")
        tail = "\n".join(partial.strip().splitlines()[-6:])
        return ("timeout", None, time.monotonic() - started,
                f"killed after {timeout:.0f} s" + (f"\n{tail}" if tail else ""))
    seconds = time.monotonic() - started
    tail = "\n".join(proc.stderr.strip().splitlines()[-6:])
    if proc.returncode == 4:
        return "skipped", 4, seconds, tail
    if proc.returncode != 0 or line_count(args.out) != before + 1:
        return "error", proc.returncode, seconds, tail
    return ("oom" if last_line(args.out).get("oom") else "ok"), 0, seconds, ""


def describe_line(run):
    """A settings-only line: what the harness would run, no measurement."""
    import torch_build
    job = jobspec.load(run["job"], run["set"])
    s = jobspec.resolve(job)
    notes, skip = type("Notes", (), {"not_applied": [], "remarks": []})(), None
    if s["parallel.strategy"] != "jax":
        try:
            torch_build.check_supported(s, notes)
        except torch_build.Skip as error:
            skip = str(error)
    single = s["parallel.strategy"] in ("single", "jax")
    return {"schema": "vramscope-groundtruth/1", "measured": False,
            "note": "settings check only: nothing was run, there are no peaks",
            "case": run["name"], "job_file": jobspec.relative_to_repo(run["job"]),
            "overrides": run["set"], "job": job, "rank": run["rank"],
            "process_group": "none" if single else "fake",
            "harness": {"script": "run_matrix.py --describe-out", "applied": jobspec.applied(s),
                        "not_applied": notes.not_applied, "skip": skip},
            "peak": {level: None for level in ("allocated", "active", "reserved", "device")},
            "oom": None}


def write_descriptions(args, runs):
    with open(args.describe_out, "w", encoding="utf-8") as f:
        for run in runs:
            f.write(json.dumps(describe_line(run), separators=(",", ":")) + "\n")
    print(f"wrote {len(runs)} settings lines to {args.describe_out}")
    return 0


def main(argv=None):
    args = parse_args(argv)
    args.out = os.path.abspath(args.out)
    if args.snapshots:
        args.snapshots = os.path.abspath(args.snapshots)
        os.makedirs(args.snapshots, exist_ok=True)
    log_path = args.log or re.sub(r"\.jsonl$", "", args.out) + ".run.log"
    runs = load_matrix(args.matrix)
    if args.filter:
        runs = [r for r in runs if re.search(args.filter, r["name"])]
    if args.describe_out:
        return write_descriptions(args, runs)
    done = done_pairs(args.out) if args.resume else set()
    deadline = time.monotonic() + args.budget_minutes * 60
    counts = {}
    with open(log_path if not args.dry_run else os.devnull, "a", encoding="utf-8") as log:
        for run in runs:
            label = f"{run['name']} rank {run['rank']}"
            if args.dry_run:
                print(" ".join(command(args, run)))
                continue
            left = deadline - time.monotonic()
            if (run["name"], run["rank"]) in done:
                status, rc, seconds, detail = "done-before", None, 0.0, ""
            elif left < 30:
                status, rc, seconds, detail = "budget", None, 0.0, "budget spent"
            else:
                status, rc, seconds, detail = run_one(args, run, min(args.case_timeout, left))
            counts[status] = counts.get(status, 0) + 1
            expect = f" (expected {run['expect']})" if run["expect"] else ""
            entry = f"{status:<11} {label}{expect} rc={rc} {seconds:.0f}s"
            print(entry + (f"\n    {detail}" if detail else ""), flush=True)
            log.write(json.dumps({"case": run["name"], "rank": run["rank"], "status": status,
                                  "rc": rc, "seconds": round(seconds, 1), "detail": detail}) + "\n")
    if not args.dry_run:
        print("summary: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    return 1 if counts.get("error") or counts.get("timeout") else 0


if __name__ == "__main__":
    sys.exit(main())
