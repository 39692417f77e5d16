#!/usr/bin/env python3
"""Collects the files vramscope reads, as the real tools write them on this GPU machine.

    python3 bench/groundtruth/collect_files.py OUT_DIR [STEP,STEP,...]

Writes into OUT_DIR (each step on its own, all of them unless some are named; a step that fails writes `<name>.error.txt`):

- `smi_table.txt`, `smi_q.txt`, `smi_q.xml`, `smi_query_gpu.csv` (every field nvidia-smi
  --help-query-gpu lists that this driver answers), `smi_query_apps.csv`: nvidia-smi while a
  torch process and a JAX process hold memory on the GPU;
- `torch_memory_stats.json` (`torch.cuda.memory_stats()` after a small training-like
  workload), `torch_memory_summary.txt` (`torch.cuda.memory_summary()`),
  `torch_snapshot.pickle` (`torch.cuda.memory._dump_snapshot` of the same workload);
- `torch_oom_huge.txt` (one allocation larger than the GPU), `torch_oom_filled.txt` (the GPU
  filled in 1 GiB blocks until one fails), `torch_oom_expandable.txt` (the same with
  `expandable_segments:True`): the text of the OutOfMemoryError as torch prints it;
- `jax_oom.txt`: the text of the error JAX raises for an allocation larger than the GPU;
- `versions.json`: torch, CUDA, driver and JAX versions.

Everything is written by the tools themselves; nothing here edits their output.
"""

import json
import os
import subprocess
import sys
import textwrap
import time
import traceback

GIB = 1 << 30


def write(out, name, text):
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        f.write(text)


def run_step(out, name, fn):
    try:
        fn()
        print(f"collect: {name}: ok", flush=True)
    except Exception:  # noqa: BLE001 - every step reports on its own
        write(out, f"{name}.error.txt", traceback.format_exc())
        print(f"collect: {name}: failed", flush=True)


def run(cmd, env=None, timeout=300):
    merged = dict(os.environ, **(env or {}))
    return subprocess.run(cmd, capture_output=True, text=True, env=merged, timeout=timeout)


def query_gpu_fields():
    """The field names nvidia-smi --help-query-gpu documents, in its order."""
    text = run(["nvidia-smi", "--help-query-gpu"]).stdout
    fields = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith('"') and line.endswith('"'):
            for name in line.replace('"', "").split(" or "):
                fields.append(name.strip())
                break
    return fields


def answered_fields(fields):
    ok = []
    for name in fields:
        r = run(["nvidia-smi", f"--query-gpu={name}", "--format=csv"])
        if r.returncode == 0:
            ok.append(name)
    return ok


HOLDER = textwrap.dedent("""
    import sys, time, torch
    x = torch.empty(int(sys.argv[1]) << 20, dtype=torch.uint8, device="cuda")
    print("ready", flush=True)
    time.sleep(float(sys.argv[2]))
""")

JAX_HOLDER = textwrap.dedent("""
    import sys, time, jax.numpy as jnp
    x = jnp.zeros((int(sys.argv[1]) << 20,), dtype=jnp.uint8).block_until_ready()
    print("ready", flush=True)
    time.sleep(float(sys.argv[2]))
""")


def smi_files(out):
    holders = [
        subprocess.Popen([sys.executable, "-c", HOLDER, "3000", "400"], stdout=subprocess.PIPE,
                         text=True),
        subprocess.Popen([sys.executable, "-c", JAX_HOLDER, "1500", "400"],
                         stdout=subprocess.PIPE, text=True,
                         env=dict(os.environ, XLA_PYTHON_CLIENT_PREALLOCATE="false")),
    ]
    try:
        for h in holders:
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline:
                line = h.stdout.readline()
                if line.startswith("ready") or not line:
                    break
        write(out, "smi_table.txt", run(["nvidia-smi"]).stdout)
        write(out, "smi_q.txt", run(["nvidia-smi", "-q"]).stdout)
        write(out, "smi_q.xml", run(["nvidia-smi", "-q", "-x"]).stdout)
        fields = answered_fields(query_gpu_fields())
        write(out, "smi_query_gpu.csv",
              run(["nvidia-smi", f"--query-gpu={','.join(fields)}", "--format=csv"]).stdout)
        write(out, "smi_query_apps.csv",
              run(["nvidia-smi", "--query-compute-apps=pid,process_name,gpu_uuid,used_memory",
                   "--format=csv"]).stdout)
    finally:
        for h in holders:
            h.kill()
            h.wait()


WORKLOAD = textwrap.dedent("""
    import json, sys, torch
    out = sys.argv[1]
    torch.cuda.memory._record_memory_history(max_entries=100000)
    model = torch.nn.Sequential(*[torch.nn.Linear(4096, 4096) for _ in range(8)]).cuda()
    opt = torch.optim.AdamW(model.parameters())
    for _ in range(3):
        x = torch.randn(64, 512, 4096, device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        del x, loss
    torch.cuda.memory._dump_snapshot(out + "/torch_snapshot.pickle")
    with open(out + "/torch_memory_stats.json", "w") as f:
        json.dump(torch.cuda.memory_stats(), f, indent=1)
    with open(out + "/torch_memory_summary.txt", "w") as f:
        f.write(torch.cuda.memory_summary())
""")

OOM_HUGE = textwrap.dedent("""
    import torch
    torch.zeros(1, device="cuda")
    try:
        torch.empty(1 << 40, dtype=torch.uint8, device="cuda")
    except torch.OutOfMemoryError as e:
        print(str(e))
""")

OOM_FILLED = textwrap.dedent("""
    import torch
    keep, n = [], 0
    try:
        while True:
            keep.append(torch.empty(1 << 30, dtype=torch.uint8, device="cuda"))
            n += 1
            if n % 7 == 3:
                del keep[-2]  # leave holes, as a real job does
    except torch.OutOfMemoryError as e:
        print(str(e))
""")

JAX_OOM = textwrap.dedent("""
    import jax.numpy as jnp
    try:
        jnp.zeros((1 << 40,), dtype=jnp.uint8).block_until_ready()
    except Exception as e:
        print(type(e).__name__ + ": " + str(e))
""")


def py(code, *args, env=None):
    r = run([sys.executable, "-c", code, *args], env=env)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-4000:])
    return r.stdout


def versions(out):
    import torch
    info = {"torch": torch.__version__, "cuda": torch.version.cuda,
            "gpu": torch.cuda.get_device_name(0),
            "total_memory": torch.cuda.get_device_properties(0).total_memory,
            "mem_get_info": list(torch.cuda.mem_get_info())}
    info["driver"] = run(["nvidia-smi", "--query-gpu=driver_version",
                          "--format=csv,noheader"]).stdout.strip()
    try:
        import jax
        info["jax"] = jax.__version__
    except ImportError:
        info["jax"] = None
    write(out, "versions.json", json.dumps(info, indent=1) + "\n")


def main(argv):
    if len(argv) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[0]
    only = set(argv[1].split(",")) if len(argv) == 2 else None
    os.makedirs(out, exist_ok=True)

    def step(name, fn):
        if only is None or name in only:
            run_step(out, name, fn)

    step("smi", lambda: smi_files(out))
    step("torch_workload", lambda: py(WORKLOAD, out))
    step("torch_oom_huge", lambda: write(out, "torch_oom_huge.txt", py(OOM_HUGE)))
    step("torch_oom_filled", lambda: write(out, "torch_oom_filled.txt", py(OOM_FILLED)))
    step("torch_oom_expandable", lambda: write(
        out, "torch_oom_expandable.txt",
        py(OOM_FILLED, env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"})))
    step("jax_oom", lambda: write(out, "jax_oom.txt", py(JAX_OOM)))
    step("versions", lambda: versions(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
