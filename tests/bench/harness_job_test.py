#!/usr/bin/env python3
"""The ground-truth harness resolves jobs in Python (bench/groundtruth/jobspec.py) without the
C++ build, which a GPU machine may not have. Its tables must say what the C++ job module says,
or a measurement would be filed under a job the planner never saw. This test reads the program's
own description of every field (`vramscope keys --json`) and fails, naming the field, when a
default or an enum of the harness differs from it.

Usage: harness_job_test.py --vramscope BINARY --jobspec bench/groundtruth/jobspec.py
"""
import argparse
import importlib.util
import json
import subprocess
import sys


def typed(text, like):
    """The C++ default text as the Python value the harness keeps."""
    if isinstance(like, bool):
        return {"true": True, "false": False}.get(text, text)
    if isinstance(like, int):
        try:
            return int(float(text))
        except ValueError:
            return text
    if isinstance(like, float):
        return float(text)
    if isinstance(like, list):
        return [t for t in text.split(",") if t]
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vramscope", required=True)
    ap.add_argument("--jobspec", required=True)
    args = ap.parse_args()
    spec = importlib.util.spec_from_file_location("jobspec", args.jobspec)
    jobspec = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(jobspec)
    keys = {k["key"]: k for k in json.loads(subprocess.run(
        [args.vramscope, "keys", "--json"], check=True, capture_output=True, text=True).stdout)}

    problems = []
    for path, value in jobspec.DEFAULTS.items():
        field = keys.get(path)
        if field is None:
            problems.append(f"{path}: in the harness's DEFAULTS but not a job field")
            continue
        default = field["default"]
        if default.startswith("from "):  # derived on the C++ side (gpu_memory from the gpu)
            if value not in (0, "", None):
                problems.append(f"{path}: the job module derives it ({default}); the harness "
                                f"defaults it to {value!r}")
            continue
        if typed(default, value) != value:
            problems.append(f"{path}: default {default!r} in the job module, {value!r} in the harness")
    for path, names in jobspec._ENUMS.items():
        values = keys.get(path, {}).get("values", [])
        if names != values:
            problems.append(f"{path}: enum {values} in the job module, {names} in the harness")
    for problem in problems:
        print(f"FAIL: {problem}", file=sys.stderr)
    if problems:
        print(f"{len(problems)} difference(s) between bench/groundtruth/jobspec.py and the job module",
              file=sys.stderr)
        return 1
    print(f"ok: {len(jobspec.DEFAULTS)} defaults and {len(jobspec._ENUMS)} enums agree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
