#!/usr/bin/env python3
"""Measures the GPU memory of a JAX job spec on this machine's GPUs and appends one JSON line.

    python3 bench/groundtruth/measure_jax.py JOB.yaml [--set key=value ...] [--out FILE.jsonl]

The job's env (XLA_PYTHON_CLIENT_PREALLOCATE, XLA_PYTHON_CLIENT_MEM_FRACTION /
XLA_CLIENT_MEM_FRACTION, XLA_PYTHON_CLIENT_ALLOCATOR) is applied before jax loads. When the
job's GPU is smaller than this one, the memory fraction is scaled so the pool has the size it
would have on the job's GPU (the fraction the job means, times its capacity, over this GPU's
total). A plain-JAX decoder of the preset's shape (jax_model.py) is trained for
training.steps steps; parameters and batch are sharded over a mesh of
parallel.fsdp_devices devices ("fsdp" axis). training.micro_batch is per device.

Levels: allocated = active = `peak_bytes_in_use` of device 0's memory_stats() (XLA keeps no
separate active figure and its peak cannot be reset, so phase peaks are cumulative); reserved =
the BFC pool (`peak_pool_bytes`, `pool_bytes` or, when preallocating, `bytes_limit`); device =
NVML (or nvidia-smi) bytes of this process on GPU 0. Exit codes as measure_torch.py.
"""

import argparse
import functools
import os
import sys
import time
import traceback

import jobspec
import recording

EXIT_ERROR, EXIT_SKIP = 3, 4


class Skip(Exception):
    pass


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("job", help="vramscope job spec (YAML) with parallel.strategy: jax")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--out", default="-", help="JSONL file to append to (default stdout)")
    p.add_argument("--case", default=None)
    p.add_argument("--rank", type=int, default=0, help="accepted for run_matrix.py; must be 0")
    p.add_argument("--dump-hlo", default=None, metavar="FILE",
                   help="also write the compiled step's optimised HLO (its buffer assignment "
                        "decides the temporary buffer) to FILE")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        job = jobspec.load(args.job, args.overrides)
        s = jobspec.resolve(job)
    except (OSError, ValueError) as error:
        print(f"measure_jax: {error}", file=sys.stderr)
        return 2
    try:
        if s["parallel.strategy"] != "jax" or args.rank != 0:
            raise Skip("measure_jax.py measures parallel.strategy: jax jobs, device 0")
        return measure(args, job, s)
    except Skip as error:
        print(f"measure_jax: skipped: {error}", file=sys.stderr)
        return EXIT_SKIP
    except Exception:  # noqa: BLE001 - reported per case by run_matrix.py
        traceback.print_exc()
        return EXIT_ERROR


def default_fraction(version):
    # XLA's default pool fraction went from 0.9 to 0.75 with jax/jaxlib 0.4.14 (XLA's
    # xla/pjrt/gpu/gpu_helpers.h; jax PR #16724 updated the docs; docs/allocators.md).
    parts = [int(p) if p.isdigit() else 0 for p in (version.split(".") + ["0", "0"])[:3]]
    return 0.9 if parts < [0, 4, 14] else 0.75


def prepare_env(s, notes):
    """The job's env with the pool fraction scaled to this GPU; returns the pool size meant."""
    env = dict(s["env"])
    if env.pop("CUDA_VISIBLE_DEVICES", None) is not None:
        notes.append("env.CUDA_VISIBLE_DEVICES: not applied; the measured process sees this "
                     "machine's GPUs")
    key = "XLA_CLIENT_MEM_FRACTION" if "XLA_CLIENT_MEM_FRACTION" in env else \
        "XLA_PYTHON_CLIENT_MEM_FRACTION"
    # The recorded job names the installed jax (build_record), so its default fraction counts.
    fraction = float(env.get(key) or default_fraction(installed_jax_version()))
    capacity = s["hardware.gpu_memory"]
    total = gpu_total_bytes()
    if total and capacity > total:
        raise Skip(f"the job's GPU has {capacity} B, this one {total} B")
    if total and capacity < total:
        env[key] = f"{fraction * capacity / total:.6f}"
    os.environ.update(env)
    return int(fraction * capacity), total


def installed_jax_version():
    from importlib import metadata
    try:
        return metadata.version("jaxlib")
    except metadata.PackageNotFoundError:
        return "0.5.0"


def gpu_total_bytes():
    try:
        import pynvml
        pynvml.nvmlInit()
        index = int(os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0] or 0)
        return pynvml.nvmlDeviceGetMemoryInfo(pynvml.nvmlDeviceGetHandleByIndex(index)).total
    except Exception:  # no pynvml: ask nvidia-smi
        import subprocess
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.total", "--format=csv,noheader,nounits",
                              "--id=0"], capture_output=True, text=True, check=False)
        return int(out.stdout.split()[0]) * 1024 * 1024 if out.returncode == 0 else None


class JaxRecorder:
    def __init__(self, probe, dump_hlo=None):
        self.probe, self.phases, self.oom_phase, self.oom_message = probe, {}, None, None
        self.compiled, self.dump_hlo = None, dump_hlo

    def run(self, name, fn):
        self.probe.take_peak()
        started = time.monotonic()
        try:
            result = fn()
            if result is not None and not isinstance(result, list):  # arrays, not devices
                import jax
                jax.block_until_ready(result)
        except Exception as error:
            if "RESOURCE_EXHAUSTED" not in str(error) and "out of memory" not in str(error).lower():
                raise
            self.oom_phase, self.oom_message = name, str(error).splitlines()[0][:500]
            self._record(name, started)
            raise
        self._record(name, started)
        return result

    def _record(self, name, started):
        import jax
        stats = jax.devices()[0].memory_stats() or {}
        device, total = self.probe.take_peak()
        reserved_key = next((k for k in ("peak_pool_bytes", "pool_bytes") if k in stats), None)
        reserved = stats.get(reserved_key) if reserved_key else None
        if reserved is None and os.environ.get("XLA_PYTHON_CLIENT_PREALLOCATE", "") not in (
                "false", "False", "0") and os.environ.get("XLA_PYTHON_CLIENT_ALLOCATOR") != "platform":
            reserved, reserved_key = stats.get("bytes_limit"), "bytes_limit"
        peak = stats.get("peak_bytes_in_use")
        self.phases[name] = {"allocated": peak, "active": peak, "reserved": reserved,
                             "device": device, "device_used_total": total,
                             "reserved_source": reserved_key, "memory_stats": stats,
                             "seconds": round(time.monotonic() - started, 3)}

    def peak(self):
        def top(level):
            values = [p[level] for p in self.phases.values() if p[level] is not None]
            return max(values) if values else None
        return {level: top(level) for level in recording.LEVELS}


def measure(args, job, s):
    import jax_model
    notes = []
    if s["lora.base_quantization"] != "none" or s["optimizer.name"] == "adamw_8bit":
        raise Skip("quantized bases and 8-bit optimizers are not implemented for JAX")
    try:
        shape = jax_model.shape_of(s["model"])
    except jax_model.Unsupported as error:
        raise Skip(str(error)) from error
    pool, total = prepare_env(s, notes)
    probe = recording.DeviceProbe(fallback="smi")
    probe.start()
    started = time.monotonic()
    rec = JaxRecorder(probe, args.dump_hlo)
    try:
        run_phases(s, shape, rec)
    except Exception:
        if rec.oom_phase is None:
            raise
    probe.stop()
    record = build_record(args, job, s, rec, probe, notes)
    record["harness"].update({"pool_bytes_meant": pool, "gpu_total_bytes": total,
                              "wall_s": round(time.monotonic() - started, 1)})
    if rec.compiled is not None:
        record["harness"]["compiled_step"] = rec.compiled
    if total and total > s["hardware.gpu_memory"]:
        # The pool is scaled to the job's capacity, the compiled program is not: XLA fuses and
        # autotunes for the device it sees (the same jax 0.11.2 step kept a 15.05 GiB temporary
        # buffer on an H100 and 17.68 GiB on an H200, bench/README.md).
        record["harness"]["remarks"].append(
            f"XLA compiled the step for this GPU ({total} B), not for the job's "
            f"({s['hardware.gpu_memory']} B); only the pool was scaled to the job's capacity")
    recording.append_line(args.out, record)
    return 0


def run_phases(s, shape, rec):
    import jax
    import jax.numpy as jnp
    import jax_model
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec
    devices = rec.run("init.backend", jax.devices)
    need = s["parallel.fsdp_devices"]
    if len(devices) < need:
        raise Skip(f"parallel.fsdp_devices {need} needs {need} GPUs, {len(devices)} visible")
    mesh = Mesh(np.array(devices[:need]), ("fsdp",))
    master = getattr(jnp, {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}[
        s["precision.master"]])
    lora = (s["lora.rank"], tuple(s["lora.targets"])) if s["lora.enabled"] else None
    init = functools.partial(jax_model.init_params, shape=shape, dtype=master, lora=lora)
    abstract = jax.eval_shape(init, jax.random.PRNGKey(0))
    shardings = jax.tree_util.tree_map(lambda a: NamedSharding(mesh, fsdp_spec(a.shape, need)),
                                       abstract)
    params = rec.run("init.params", lambda: jax.jit(init, out_shardings=shardings)(
        jax.random.PRNGKey(0)))
    opt_state = rec.run("init.optimizer", lambda: optimizer_init(s, params["train"]))
    step = make_step(s, shape)
    batch = NamedSharding(mesh, PartitionSpec("fsdp", None))
    train, frozen = params["train"], params["frozen"]
    for i in range(1, s["training.steps"] + 1):
        tokens = jax.device_put(np.random.randint(0, shape["vocab"], (
            s["training.micro_batch"] * need, s["training.seq_len"]), dtype=np.int32), batch)
        train, opt_state, _ = rec.run(f"step{i}", lambda: step(train, frozen, opt_state, tokens))
    # After the measured steps, so that nothing here changes them: XLA's own account of the
    # step it compiled (the persistent compilation cache, when set, makes this a lookup).
    try:
        compiled = step.lower(train, frozen, opt_state, tokens).compile()
        rec.compiled = memory_analysis_record(compiled.memory_analysis())
        if rec.dump_hlo:
            with open(rec.dump_hlo, "w", encoding="utf-8") as f:
                f.write(compiled.as_text())
    except Exception as error:  # noqa: BLE001 - older jax: no memory_analysis; the line stands
        rec.compiled = {"error": f"{type(error).__name__}: {error}"[:300]}


MEMORY_ANALYSIS_FIELDS = ("temp_size_in_bytes", "argument_size_in_bytes", "output_size_in_bytes",
                          "alias_size_in_bytes", "generated_code_size_in_bytes",
                          "host_temp_size_in_bytes")


def memory_analysis_record(analysis):
    """The byte counts of a compiled executable's memory_analysis() that it has."""
    if analysis is None:
        return {"error": "memory_analysis() returned nothing"}
    return {k: int(getattr(analysis, k)) for k in MEMORY_ANALYSIS_FIELDS
            if isinstance(getattr(analysis, k, None), int)}


def fsdp_spec(dims, n):
    """OpenPI-style FSDP: shard the largest axis that the mesh size divides; else replicate."""
    from jax.sharding import PartitionSpec
    if n == 1 or not dims:
        return PartitionSpec()
    axis = max((i for i, d in enumerate(dims) if d % n == 0), key=lambda i: dims[i], default=None)
    if axis is None:
        return PartitionSpec()
    return PartitionSpec(*[("fsdp" if i == axis else None) for i in range(len(dims))])


def optimizer_init(s, train):
    import jax
    import jax.numpy as jnp
    state = getattr(jnp, {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}[
        s["optimizer.state"]])
    zeros = lambda: jax.tree_util.tree_map(lambda p: jnp.zeros(p.shape, state), train)  # noqa: E731
    name = s["optimizer.name"]
    if name in ("adamw", "adam"):
        return {"m": zeros(), "v": zeros(), "t": jnp.zeros((), jnp.int32)}
    if name == "sgd_momentum":
        return {"m": zeros()}
    if name == "sgd":
        return {}
    raise Skip(f"optimizer {name} is not implemented for JAX")


def make_step(s, shape):
    import jax
    import jax.numpy as jnp
    import jax_model
    compute = getattr(jnp, {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}[
        s["precision.params"]])
    mode = s["training.activation_checkpointing"]
    remat_every = {"none": 0, "full": 1}.get(mode, s["training.checkpoint_every"])
    lora_scale = s["lora.alpha"] / s["lora.rank"]
    loss = functools.partial(jax_model.loss_fn, shape=shape, compute_dtype=compute,
                             remat_every=remat_every, lora_scale=lora_scale)
    name, lr = s["optimizer.name"], 1e-5

    def update(train, grads, state):
        if name == "sgd":
            return jax.tree_util.tree_map(lambda p, g: p - lr * g.astype(p.dtype), train, grads), state
        if name == "sgd_momentum":
            m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + g.astype(m.dtype), state["m"], grads)
            return jax.tree_util.tree_map(lambda p, m: p - lr * m.astype(p.dtype), train, m), {"m": m}
        t = state["t"] + 1
        m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g.astype(m.dtype), state["m"], grads)
        v = jax.tree_util.tree_map(lambda v, g: 0.999 * v + 0.001 * jnp.square(g.astype(v.dtype)),
                                   state["v"], grads)
        decay = 0.01 if name == "adamw" else 0.0

        def apply(p, m, v):
            step = (m / (1 - 0.9 ** t)) / (jnp.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
            return (p - lr * (step + decay * p)).astype(p.dtype)
        return jax.tree_util.tree_map(apply, train, m, v), {"m": m, "v": v, "t": t}

    def step(train, frozen, state, tokens):
        value, grads = jax.value_and_grad(loss)(train, frozen, tokens)
        train, state = update(train, grads, state)
        return train, state, value

    return jax.jit(step, donate_argnums=(0, 2))


def build_record(args, job, s, rec, probe, notes):
    import jax
    env = {"python": sys.version.split()[0], "jax": jax.__version__,
           "jaxlib": recording.module_version("jaxlib"), "driver": recording.nvml_driver(),
           "gpu": getattr(jax.devices()[0], "device_kind", None)}
    rewritten = []
    framework = job.setdefault("framework", {})
    for key, value in (("version", jax.__version__), ("jaxlib", env["jaxlib"])):
        if value and s.get(f"framework.{key}") != value:
            framework[key] = value
            rewritten.append(f"framework.{key}={value}")
    s["framework.version"] = jax.__version__
    return {
        "schema": recording.SCHEMA, "measured": True,
        "case": args.case or os.path.splitext(os.path.basename(args.job))[0],
        "job_file": jobspec.relative_to_repo(args.job), "overrides": list(args.overrides),
        "job": job, "rank": 0, "process_group": "none", "env": env,
        "harness": {"script": "measure_jax.py", "applied": jobspec.applied(s),
                    "rewritten": rewritten, "not_applied": notes, "remarks": [],
                    "device_source": probe.source},
        "phases": rec.phases, "peak": rec.peak(),
        "oom": rec.oom_phase is not None, "oom_phase": rec.oom_phase,
        "oom_message": rec.oom_message,
    }


if __name__ == "__main__":
    sys.exit(main())
