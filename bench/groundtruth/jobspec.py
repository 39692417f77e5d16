"""Reading a vramscope job spec in Python, for the ground-truth harness.

The harness needs the same job the C++ planner sees: `load()` reads the YAML, applies `--set`
style overrides ("parallel.tp=4") to the raw mapping, and `resolve()` fills the defaults and the
derived values the way include/vramscope/job/job_spec.hpp and src/job/resolve.cpp do. The
resolved values are written into every measurement line as `harness.applied` (dotted paths,
canonical names), and bench/accuracy checks them against the C++ resolution of the same job: a
default that drifts between the two sides is reported instead of silently measuring another job.

Only the fields the harness acts on are resolved; ZeRO bucket sizes and other fields the
harness never applies are left to the C++ side. No torch or jax import here.
"""

import copy
import os

# Defaults of job_spec.hpp, by dotted path (the fields the harness applies). These tables and
# _ENUMS below are checked against `vramscope keys --json` by tests/bench/harness_job_test.py.
DEFAULTS = {
    "model": "llama-3.1-8b",
    "hardware.gpu": "H100-80GB",
    "hardware.gpu_memory": 0,
    "hardware.driver_reserved": 0,
    "hardware.gpus_per_node": 8,
    "hardware.nodes": 1,
    "parallel.strategy": "fsdp2",
    "parallel.dp_replicate": 1,
    "parallel.dp_shard": 0,
    "parallel.tp": 1,
    "parallel.sequence_parallel": False,
    "parallel.tp_embedding": True,
    "parallel.tp_head": True,
    "parallel.loss_parallel": "default",  # job_spec::vocab_parallel_loss
    "parallel.fsdp_sharding": "full_shard",
    "parallel.backward_prefetch": "pre",
    "parallel.forward_prefetch": False,
    "parallel.limit_all_gathers": True,
    "parallel.use_orig_params": True,
    "parallel.sync_module_states": False,
    "parallel.device_id": True,
    "parallel.wrap": "block",
    "parallel.reshard_after_forward": True,
    "parallel.no_sync": False,
    "parallel.cpu_offload": False,
    "parallel.bucket_cap_mb": "default",  # not passed: torch's 25 MiB, first bucket 1 MiB
    "parallel.gradient_as_bucket_view": False,
    "parallel.static_graph": False,
    "parallel.fsdp_devices": 1,
    "parallel.float8_all_gather": False,
    "precision.params": "bf16",
    "precision.master": "fp32",
    "precision.reduce": "fp32",
    "precision.buffers": "fp32",
    "precision.autocast": False,
    "precision.float8": "none",
    "optimizer.name": "adamw",
    "optimizer.state": "fp32",
    "optimizer.fused": False,
    "optimizer.foreach": True,
    "optimizer.in_backward": False,
    "training.micro_batch": 1,
    "training.seq_len": 2048,
    "training.gradient_accumulation": 1,
    "training.activation_checkpointing": "none",
    "training.checkpoint_every": 2,
    "training.attention": "flash",
    "training.loss": "hf",
    "training.model_code": "hf",
    "training.loss_chunks": 8,
    "training.liger_kernels": False,
    "training.padding_mask": False,
    "training.activation_offloading": False,
    "training.compile": False,
    "training.compile_loss": False,
    "training.moe_capacity_factor": "dropless",  # Megatron-LM's; the harness runs no Megatron
    "training.moe_pad_to_capacity": False,
    "training.steps": 2,
    "lora.enabled": False,
    "lora.method": "lora",
    "lora.virtual_tokens": 20,
    "lora.rank": 16,
    "lora.alpha": 32,
    "lora.dropout": 0.0,
    "lora.targets": ["q_proj", "v_proj"],
    "lora.base_quantization": "none",
    "lora.quantizer": "bitsandbytes",
    "lora.double_quant": False,
    "lora.quantize_skip": ["lm_head"],
    "lora.quant_storage": "uint8",
    "init.meta_device": False,
    "init.load": "all_ranks",
    "init.map_location": "cpu",
    "init.set_device_first": True,
    "checkpoint.save": "none",
    "checkpoint.offload_to_cpu": True,
    "checkpoint.rank0_only": True,
    "checkpoint.resume": False,
    "checkpoint.resume_map_location": "cpu",
    "checkpoint.resume_kept": True,
    "eval.enabled": False,
    "eval.micro_batch": 0,
    "eval.steps": 1,
    "eval.no_grad": True,
    "eval.accumulate_logits": False,
    "eval.accumulation_steps": 0,
    "framework.name": "torch",
    "framework.version": "2.6",
    "framework.cuda": "12.4",
    "framework.transformers": "4.46",
}

# Aliases accepted by src/job/job_names.cpp, by normalized spelling (see normalize()).
_ALIASES = {
    "parallel.strategy": {"fullyshard": "fsdp2", "distributeddataparallel": "ddp", "none": "single",
                          "megatronlm": "megatron"},
    "parallel.backward_prefetch": {"backwardpre": "pre", "backwardpost": "post",
                                   "noprefetch": "none"},
    "optimizer.name": {"adamwtorch": "adamw", "adamwtorchfused": "adamw",
                       "adamwbnb8bit": "adamw_8bit"},
    "training.activation_checkpointing": {"false": "none", "true": "full"},
    "training.attention": {"flashattention2": "flash", "sdpa": "flash", "memefficient": "efficient"},
    "training.loss": {"liger": "liger_fused", "fusedlinearcrossentropy": "liger_fused",
                      "cewithchunkedoutputloss": "chunked"},
    "training.model_code": {"transformers": "hf"},
    "precision.float8": {"true": "tensorwise", "false": "none"},
}
# Canonical enum names of src/job/job_names.cpp (the first spelling of each value).
_ENUMS = {
    "parallel.strategy": ["ddp", "fsdp1", "fsdp2", "zero1", "zero2", "zero3", "jax", "single",
                          "megatron"],
    "parallel.fsdp_sharding": ["full_shard", "shard_grad_op", "no_shard", "hybrid_shard"],
    "parallel.backward_prefetch": ["pre", "post", "none"],
    "parallel.wrap": ["block", "none"],
    "optimizer.name": ["adamw", "adam", "sgd", "sgd_momentum", "adafactor", "adamw_8bit",
                       "paged_adamw", "paged_adamw_8bit"],
    "training.activation_checkpointing": ["none", "full", "selective", "op", "core_attention"],
    "training.attention": ["flash", "efficient", "math", "eager"],
    "training.loss": ["hf", "liger_fused", "torchtitan", "litgpt", "chunked"],
    "training.model_code": ["hf", "litgpt", "torchtune"],
    "precision.float8": ["none", "tensorwise", "rowwise", "rowwise_with_gw_hp", "blockwise",
                         "mxfp8"],
    "init.load": ["all_ranks", "rank0", "random", "none"],
    "init.map_location": ["cpu", "cuda", "none"],
    "checkpoint.save": ["none", "full", "sharded"],
    "checkpoint.resume_map_location": ["cpu", "cuda", "none"],
    "framework.name": ["torch", "jax"],
}
_DTYPES = {"fp32": "fp32", "f32": "fp32", "float32": "fp32", "float": "fp32", "torchfloat32": "fp32",
           "bf16": "bf16", "bfloat16": "bf16", "torchbfloat16": "bf16",
           "fp16": "fp16", "f16": "fp16", "float16": "fp16", "half": "fp16", "torchfloat16": "fp16"}
# precision shorthands (src/job/field_table.cpp): params, master, reduce, buffers, autocast.
PRECISION_PRESETS = {
    "fp32": ("fp32", "fp32", "fp32", "fp32", False),
    "32true": ("fp32", "fp32", "fp32", "fp32", False),
    "fp32true": ("fp32", "fp32", "fp32", "fp32", False),
    "bf16true": ("bf16", "bf16", "bf16", "bf16", False),
    "fp16true": ("fp16", "fp16", "fp16", "fp16", False),
    "16true": ("fp16", "fp16", "fp16", "fp16", False),
    "bf16mixed": ("bf16", "fp32", "fp32", "fp32", True),
    "fp16mixed": ("fp16", "fp32", "fp32", "fp32", True),
    "16mixed": ("fp16", "fp32", "fp32", "fp32", True),
    "bf16param": ("bf16", "fp32", "fp32", "fp32", False),
}
# NVML memory totals in MiB of src/job/gpu_catalog.cpp, for the GPUs a matrix names.
GPU_MEMORY_MIB = {"h10080gb": 81559, "h100": 81559, "h100pcie": 81559, "h100nvl": 95830,
                  "h200": 143771, "a10080gb": 81920, "a10040gb": 40960, "l40s": 46068,
                  "a10g": 23028, "l4": 23034, "rtx4090": 24564, "b200": 183359}
# The driver's reservation of the GPUs above where the catalog (src/job/gpu_catalog.cpp) has one.
GPU_RESERVED_MIB = {"h10080gb": 480, "h100": 480, "h100pcie": 480, "h100nvl": 594, "h200": 615,
                    "a10080gb": 869, "a10040gb": 512, "l40s": 609, "a10g": 435, "l4": 556,
                    "rtx4090": 357, "b200": 729}


class JobError(ValueError):
    """A job spec or override the harness cannot read."""


def normalize(text):
    return "".join(c for c in str(text).lower() if c not in "-_. ")


def read_yaml(text, source):
    try:
        import yaml  # PyYAML, present on the GPU machines
        return yaml.safe_load(text)
    except ImportError:
        import mini_yaml
        return mini_yaml.load(text, source)


def load(path, overrides=()):
    """The job mapping of `path` with `overrides` applied, as it will be recorded."""
    with open(path, encoding="utf-8") as f:
        job = read_yaml(f.read(), path) or {}
    if not isinstance(job, dict):
        raise JobError(f"{path}: expected a mapping of sections")
    return apply_overrides(job, overrides)


def apply_overrides(job, overrides):
    job = copy.deepcopy(job)
    for item in overrides:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise JobError(f"override {item!r}: expected key=value")
        _set(job, key.strip(), _override_value(key.strip(), value.strip()))
    return job


def _override_value(key, text):
    from mini_yaml import scalar
    if key in ("lora.targets", "lora.quantize_skip"):
        return [t.strip() for t in text.strip("[]").split(",") if t.strip()]
    if key.startswith("env."):
        return text
    return scalar(text)


def _set(job, key, value):
    section, _, field = key.partition(".")
    if not field:
        job[section] = value
        return
    current = job.get(section)
    if isinstance(current, str) and section == "precision":
        current = _precision_map(current)
    elif isinstance(current, str) and section == "optimizer":
        current = {"name": current}
    elif not isinstance(current, dict):
        current = {}
    current[field] = value
    job[section] = current
    if section == "lora" and field != "enabled" and "enabled" not in current:
        current["enabled"] = True


def _precision_map(name):
    preset = PRECISION_PRESETS.get(normalize(name))
    if preset is None:
        raise JobError(f"precision: unknown shorthand {name!r}")
    return dict(zip(("params", "master", "reduce", "buffers", "autocast"), preset))


def _flatten(job):
    flat, explicit = {}, set()
    for section, value in job.items():
        if section == "env":
            continue
        if section == "precision" and isinstance(value, str):
            value = _precision_map(value)
            explicit.add("precision")
        if section == "optimizer" and isinstance(value, str):
            value = {"name": value}
        if section == "lora" and (value is None or isinstance(value, dict)):
            value = dict(value or {})
            value.setdefault("enabled", True)
        if isinstance(value, dict):
            for key, v in value.items():
                flat[f"{section}.{key}"] = v
        else:
            flat[section] = value
    explicit.update(flat)
    return flat, explicit


def _canonical(path, value):
    dtype_field = path.startswith("precision.") and path not in ("precision.autocast",
                                                                  "precision.float8")
    if dtype_field or path == "optimizer.state":
        name = _DTYPES.get(normalize(value))
        if name is None:
            raise JobError(f"{path}: unknown dtype {value!r}")
        return name
    if path in _ENUMS:
        if isinstance(value, bool):
            value = "true" if value else "false"
        key = normalize(value)
        for name in _ENUMS[path]:
            if normalize(name) == key:
                return name
        if key in _ALIASES.get(path, {}):
            return _ALIASES[path][key]
        raise JobError(f"{path}: invalid value {value!r} (expected one of: {', '.join(_ENUMS[path])})")
    if path == "parallel.reshard_after_forward" and not isinstance(value, bool):
        return {1: True, 0: False}.get(int(value), int(value))
    if path in ("lora.targets", "lora.quantize_skip") and isinstance(value, str):
        return [t.strip() for t in value.split(",") if t.strip()]
    return value


def resolve(job):
    """Defaults and derived values, as a flat {dotted path: value} with canonical names."""
    flat, explicit = _flatten(job)
    s = dict(DEFAULTS)
    for path, value in flat.items():
        s[path] = _canonical(path, value)
    s["env"] = {str(k): str(v) for k, v in (job.get("env") or {}).items()}
    if s["parallel.strategy"] == "jax" and "framework.name" not in explicit:
        s["framework.name"] = "jax"
        if "framework.version" not in explicit:
            s["framework.version"] = "0.5.0"
    gpu = normalize(s["hardware.gpu"]).removeprefix("nvidia")
    if not s["hardware.gpu_memory"]:
        mib = GPU_MEMORY_MIB.get(gpu)
        if mib is None:
            raise JobError(f"hardware.gpu {s['hardware.gpu']!r} is not in the harness's table: "
                           "set hardware.gpu_memory")
        s["hardware.gpu_memory"] = mib * 1024 * 1024
    if "hardware.driver_reserved" not in explicit:
        # resolve.cpp: the catalog's reservation, for the catalog GPU's whole memory only.
        whole = GPU_MEMORY_MIB.get(gpu, 0) * 1024 * 1024 == s["hardware.gpu_memory"]
        s["hardware.driver_reserved"] = GPU_RESERVED_MIB.get(gpu, 0) * 1024 * 1024 if whole else 0
    _derive_precision(s, explicit)
    _derive_layout(s, explicit)
    return s


def _derive_precision(s, explicit):
    # resolve.cpp derive_precision: DDP / single compute in low precision through autocast.
    if (s["parallel.strategy"] in ("ddp", "single") and s["precision.params"] != s["precision.master"]
            and "precision.autocast" not in explicit and "precision" not in explicit):
        s["precision.autocast"] = True


def _derive_layout(s, explicit):
    if s["parallel.strategy"] == "single" and world_size(s) != 1:
        if "hardware.gpus_per_node" in explicit or "hardware.nodes" in explicit:
            raise JobError("strategy single runs on one GPU")
        s["hardware.gpus_per_node"] = 1
    world = world_size(s)
    if (s["parallel.strategy"] == "fsdp1" and s["parallel.fsdp_sharding"] == "hybrid_shard"
            and s["parallel.dp_replicate"] == 1 and "parallel.dp_replicate" not in explicit):
        if s["parallel.dp_shard"] == 0 and s["hardware.gpus_per_node"] % s["parallel.tp"] == 0:
            s["parallel.dp_shard"] = s["hardware.gpus_per_node"] // s["parallel.tp"]
        if s["parallel.dp_shard"] and world % (s["parallel.tp"] * s["parallel.dp_shard"]) == 0:
            s["parallel.dp_replicate"] = world // (s["parallel.tp"] * s["parallel.dp_shard"])
    tp_rep = s["parallel.tp"] * s["parallel.dp_replicate"]
    if world % tp_rep:
        raise JobError(f"tp x dp_replicate = {tp_rep} does not divide {world} ranks")
    if s["parallel.dp_shard"] == 0:
        s["parallel.dp_shard"] = world // tp_rep
    elif tp_rep * s["parallel.dp_shard"] != world:
        raise JobError(f"tp x dp_replicate x dp_shard != {world} ranks")


def world_size(s):
    return s["hardware.nodes"] * s["hardware.gpus_per_node"]


def vocab_parallel_loss(s):
    """job_spec::vocab_parallel_loss: whether the loss runs on the head's vocabulary shards
    (torch's loss_parallel()): an explicit parallel.loss_parallel, else torchtitan's loss (its
    default under tp > 1) and Megatron; never without a sharded head."""
    if s["parallel.tp"] <= 1 or not s["parallel.tp_head"]:
        return False
    if isinstance(s["parallel.loss_parallel"], bool):
        return s["parallel.loss_parallel"]
    return s["training.loss"] == "torchtitan" or s["parallel.strategy"] == "megatron"


# The paths written to `harness.applied` and checked by bench/accuracy.
APPLIED_PATHS = [p for p in DEFAULTS if p not in ("hardware.gpu", "lora.base_quantization",
                                                  "lora.quantizer", "lora.double_quant", "lora.quantize_skip",
                                                  "lora.quant_storage")]


def applied(s):
    """The resolved values the harness ran with, for `harness.applied`."""
    return {p: s[p] for p in APPLIED_PATHS}


def relative_to_repo(path):
    """`path` relative to the repository root when it lies inside it, else as given."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    full = os.path.abspath(path)
    return os.path.relpath(full, root) if full.startswith(root + os.sep) else path
