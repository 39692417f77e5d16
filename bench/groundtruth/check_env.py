#!/usr/bin/env python3
"""Prints what the ground-truth harness can use on this machine, one line per package.

    python3 bench/groundtruth/check_env.py [--json] [--skip-jax-devices]

Lists torch (with CUDA, the GPUs and whether the fake process group loads), transformers,
peft, bitsandbytes, liger_kernel, torchao, pynvml, PyYAML, jax (with its devices) and optax, and what
each enables. Exit status 0 when torch with a GPU and transformers are present (the PyTorch
harness can run), 1 otherwise.
"""

import importlib
import json
import sys

# package -> what the harness does with it
USES = {
    "torch": "measure_torch.py (required)",
    "transformers": "models from config.json (required for torch)",
    "peft": "lora.enabled jobs",
    "bitsandbytes": "optimizer adamw_8bit",
    "liger_kernel": "training.liger_kernels / training.loss: liger_fused",
    "torchao": "precision.float8 (float8 training, its TP styles)",
    "pynvml": "device level from NVML (else torch.cuda.mem_get_info / nvidia-smi)",
    "yaml": "PyYAML job reading (else the built-in subset reader)",
    "jax": "measure_jax.py (required for JAX)",
    "optax": "not needed (the JAX harness has its own optimizers)",
}


def probe(name):
    try:
        module = importlib.import_module(name)
    except Exception as error:  # absent or broken: shown as such
        return {"installed": False, "error": f"{type(error).__name__}: {error}"[:200]}
    return {"installed": True, "version": getattr(module, "__version__", "unknown")}


def torch_details(info):
    import torch
    info["cuda"] = torch.version.cuda
    info["gpus"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    try:
        from torch.testing._internal.distributed.fake_pg import FakeStore  # noqa: F401
        info["fake_process_group"] = True
    except Exception as error:  # the harness cannot run multi-rank jobs without it
        info["fake_process_group"] = f"unavailable: {error}"[:200]
    for name, path in (("fsdp2", "torch.distributed.fsdp"), ("fsdp2_composable",
                                                            "torch.distributed._composable.fsdp")):
        try:
            info[name] = hasattr(importlib.import_module(path), "fully_shard")
        except Exception:  # older torch: reported as absent
            info[name] = False


def jax_details(info):
    import jax
    try:
        info["devices"] = [str(d) for d in jax.devices()]
    except Exception as error:  # no GPU backend
        info["devices"] = f"unavailable: {error}"[:200]


def main(argv):
    if "-h" in argv or "--help" in argv:
        print(__doc__.strip())
        return 0
    report = {}
    for name in USES:
        report[name] = probe(name)
    if report["torch"]["installed"]:
        torch_details(report["torch"])
    if report["jax"]["installed"] and "--skip-jax-devices" not in argv:
        jax_details(report["jax"])
    if "--json" in argv:
        print(json.dumps(report, indent=2))
    else:
        print(f"python {sys.version.split()[0]}")
        for name, info in report.items():
            state = info.get("version") if info["installed"] else "not installed"
            extra = {k: v for k, v in info.items() if k not in ("installed", "version", "error")}
            print(f"{name:<14} {state:<16} {USES[name]}" + (f"  {extra}" if extra else ""))
    torch_ok = report["torch"]["installed"] and report["torch"].get("gpus")
    return 0 if torch_ok and report["transformers"]["installed"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
