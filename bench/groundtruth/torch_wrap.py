"""Where the model is built, and the data-parallel wrapper the job names (measure_torch.py)."""

import contextlib

import jobspec
import torch_build
from torch_build import Skip, torch_dtype


def initial_device(s, rank):
    """Where this rank builds the model: "meta", "cpu" or "cuda"."""
    loads_here = s["init.load"] != "rank0" or rank == 0
    if s["parallel.strategy"] in ("fsdp1", "fsdp2") and s["init.meta_device"] and not (
            s["init.load"] == "rank0" and rank == 0):
        return "meta"
    if s["init.map_location"] == "cuda" and loads_here and s["init.load"] != "random":
        return "cpu+load-to-cuda"
    return "cpu"


def build(s, rank, notes):
    """The model on its initial device. "cpu+load-to-cuda" reproduces torch.load(map_location=
    cuda) of a full state dict followed by load_state_dict: the GPU copy lives until loaded."""
    import torch
    where = initial_device(s, rank)
    model = torch_build.build_model(s, "meta" if where == "meta" else "cpu", notes)
    if where == "cpu+load-to-cuda":
        copies, state = {}, {}  # tied weights share one storage in a saved checkpoint too
        for key, tensor in model.state_dict().items():
            if tensor.data_ptr() not in copies:
                copies[tensor.data_ptr()] = tensor.to("cuda")
            state[key] = copies[tensor.data_ptr()]
        model.load_state_dict(state)
        del state, copies
    if where != "meta":
        torch.cuda.synchronize()
    return model, where


def wrap(s, model, where, notes):
    strategy = s["parallel.strategy"]
    torch_build.apply_float8(s, model, notes)
    if strategy in ("ddp", "single"):
        return _wrap_ddp(s, model) if strategy == "ddp" else _to_gpu_with_ac(s, model)
    if strategy == "fsdp1":
        return _wrap_fsdp1(s, model, where)
    return _wrap_fsdp2(s, model, where, notes)


def _to_gpu_with_ac(s, model):
    model = model.to("cuda")
    torch_build.apply_checkpointing(s, model)
    torch_build.apply_compile(s, model, _outermost)
    return model


def _wrap_ddp(s, model):
    import torch
    from torch.nn.parallel import DistributedDataParallel
    model = _to_gpu_with_ac(s, model)
    cap = s["parallel.bucket_cap_mb"]  # "default": not passed, as the job spec means it
    ddp = DistributedDataParallel(model, device_ids=[torch.cuda.current_device()],
                                  bucket_cap_mb=None if cap == "default" else cap,
                                  gradient_as_bucket_view=s["parallel.gradient_as_bucket_view"],
                                  static_graph=s["parallel.static_graph"])
    # The fake process group's all-reduce future completes with None, which DDP's reducer
    # rejects (torch 2.11: "expected the hook result is either a Tensor or a TensorList").
    # An all-reduce works in place on the bucket, so completing with the bucket itself, as
    # torch's own noop_hook does, keeps the memory of a real one.
    from torch.distributed.algorithms.ddp_comm_hooks.debugging_hooks import noop_hook
    ddp.register_comm_hook(None, noop_hook)
    return ddp


def _fsdp1_mixed_precision(s):
    from torch.distributed.fsdp import MixedPrecision
    master = s["precision.master"]
    if all(s[f"precision.{k}"] == master for k in ("params", "reduce", "buffers")):
        return None
    return MixedPrecision(param_dtype=torch_dtype(s["precision.params"]),
                          reduce_dtype=torch_dtype(s["precision.reduce"]),
                          buffer_dtype=torch_dtype(s["precision.buffers"]))


def _wrap_fsdp1(s, model, where):
    import torch
    from torch.distributed.fsdp import (BackwardPrefetch, CPUOffload, ShardingStrategy,
                                        FullyShardedDataParallel)
    from torch.distributed.fsdp.wrap import ModuleWrapPolicy
    check_fn = torch_build.checkpoint_selector(s, model)
    policy = (ModuleWrapPolicy(torch_build.decoder_layer_classes(model))
              if s["parallel.wrap"] == "block" else None)
    prefetch = {"pre": BackwardPrefetch.BACKWARD_PRE, "post": BackwardPrefetch.BACKWARD_POST,
                "none": None}[s["parallel.backward_prefetch"]]
    kwargs = {}
    if s["parallel.fsdp_sharding"] == "hybrid_shard":  # FSDP1 wants a 2-D (replicate, shard) mesh
        from torch.distributed.device_mesh import init_device_mesh
        kwargs["device_mesh"] = init_device_mesh(
            "cuda", (s["parallel.dp_replicate"], s["parallel.dp_shard"]),
            mesh_dim_names=("dp_replicate", "dp_shard"))
    if where == "meta":
        cuda = torch.device("cuda", torch.cuda.current_device())
        kwargs["param_init_fn"] = lambda m: m.to_empty(device=cuda, recurse=False)
    model = FullyShardedDataParallel(
        model, auto_wrap_policy=policy,
        sharding_strategy=ShardingStrategy[s["parallel.fsdp_sharding"].upper()],
        backward_prefetch=prefetch, forward_prefetch=s["parallel.forward_prefetch"],
        limit_all_gathers=s["parallel.limit_all_gathers"],
        use_orig_params=s["parallel.use_orig_params"],
        sync_module_states=s["parallel.sync_module_states"],
        device_id=torch.cuda.current_device() if s["parallel.device_id"] else None,
        mixed_precision=_fsdp1_mixed_precision(s),
        cpu_offload=CPUOffload(offload_params=True) if s["parallel.cpu_offload"] else None,
        **kwargs)
    torch_build.apply_checkpointing(s, model, check_fn)
    torch_build.apply_compile(s, model, _outermost)  # refuses FSDP1
    return model


def fsdp2_api():
    """fully_shard and its policies: public in torch >= 2.6, under _composable before."""
    try:
        from torch.distributed.fsdp import (CPUOffloadPolicy, MixedPrecisionPolicy,
                                            OffloadPolicy, fully_shard)
    except ImportError:
        from torch.distributed._composable.fsdp import (CPUOffloadPolicy, MixedPrecisionPolicy,
                                                        OffloadPolicy, fully_shard)
    return fully_shard, MixedPrecisionPolicy, CPUOffloadPolicy, OffloadPolicy


def _wrap_fsdp2(s, model, where, notes):
    fully_shard, MixedPrecisionPolicy, CPUOffloadPolicy, OffloadPolicy = fsdp2_api()
    mesh = torch_build.make_mesh(s)
    if s["parallel.tp"] > 1:
        torch_build.apply_tensor_parallel(s, model, mesh, notes)
    torch_build.apply_checkpointing(s, model)
    torch_build.apply_compile(s, model, _outermost)
    master = s["precision.master"]
    mp = MixedPrecisionPolicy()
    if s["precision.params"] != master or s["precision.reduce"] != master:
        mp = MixedPrecisionPolicy(param_dtype=torch_dtype(s["precision.params"]),
                                  reduce_dtype=torch_dtype(s["precision.reduce"]))
    kwargs = {"mesh": torch_build.dp_mesh(mesh), "mp_policy": mp,
              "offload_policy": CPUOffloadPolicy() if s["parallel.cpu_offload"] else OffloadPolicy(),
              "reshard_after_forward": s["parallel.reshard_after_forward"]}
    if kwargs["mesh"] is None:
        raise Skip("fsdp2 without a data-parallel dimension (tp only) is not measured")
    if s["parallel.wrap"] == "block":
        for block in torch_build.decoder_layers(model):
            fully_shard(_outermost(model, block), **kwargs)
    fully_shard(model, **kwargs)
    if where == "meta":
        _materialize(model, "cpu" if s["parallel.cpu_offload"] else "cuda")
    return model


def _outermost(model, block):
    """The checkpoint wrapper around `block` when there is one (what FSDP2 should shard)."""
    for module in model.modules():
        if getattr(module, "_checkpoint_wrapped_module", None) is block:
            return module
    return block


def _materialize(model, device):
    import torch
    model.to_empty(device=device)
    with torch.no_grad():
        for p in model.parameters():
            local = getattr(p, "_local_tensor", p)
            if local.is_floating_point():
                local.normal_(0.0, 0.02)


def grad_sync(s, model, sync):
    """No gradient reduction on the micro-steps before the last one of an accumulation."""
    strategy = s["parallel.strategy"]
    if sync or strategy == "single":
        if strategy == "fsdp2":
            model.set_requires_gradient_sync(True)
        return contextlib.nullcontext()
    if strategy == "fsdp2":
        model.set_requires_gradient_sync(False)
        return contextlib.nullcontext()
    return model.no_sync()


def compute_dtype(s):
    if s["precision.autocast"] or s["parallel.strategy"] in ("fsdp1", "fsdp2"):
        return s["precision.params"]
    return s["precision.master"]


def attention_context(s, notes):
    """Restricts SDPA to the job's kernel where the kernel can run."""
    impl = s["training.attention"]
    if impl == "eager":
        return contextlib.nullcontext()
    if impl == "flash" and (compute_dtype(s) == "fp32" or s["training.padding_mask"]):
        notes.not_applied.append("training.attention=flash: flash SDPA takes neither fp32 nor "
                                 "a mask; SDPA chose its kernel")
        return contextlib.nullcontext()
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        backend = {"flash": SDPBackend.FLASH_ATTENTION,
                   "efficient": SDPBackend.EFFICIENT_ATTENTION, "math": SDPBackend.MATH}[impl]
        return sdpa_kernel([backend])
    except ImportError:
        import torch
        return torch.backends.cuda.sdp_kernel(enable_flash=impl == "flash",
                                              enable_mem_efficient=impl == "efficient",
                                              enable_math=impl == "math")


def loss_context(s):
    """torch's loss_parallel() around forward and backward when the loss runs on the head's
    vocabulary shards (jobspec.vocab_parallel_loss): its handlers must see the backward too."""
    if not jobspec.vocab_parallel_loss(s):
        return contextlib.nullcontext()
    from torch.distributed.tensor.parallel import loss_parallel
    return loss_parallel()


def forward_loss(s, model, batch):
    """The step's loss. transformers computes it inside the model's forward (given labels);
    torchtitan's train step takes the model's logits and computes
    `cross_entropy(pred.flatten(0, 1).float(), labels.flatten(0, 1))` itself, then drops the
    logits before backward (train.py at 9dec370, `del pred`; torchtitan/train.py today)."""
    if s["training.loss"] != "torchtitan":
        return model(**batch).loss
    import torch
    inputs = {k: v for k, v in batch.items() if k != "labels"}
    pred = model(**inputs).logits
    loss = torch.nn.functional.cross_entropy(pred.flatten(0, 1).float(),
                                             batch["labels"].flatten(0, 1))
    del pred
    return loss


def autocast_context(s):
    import torch
    if not s["precision.autocast"]:
        return contextlib.nullcontext()
    return torch.autocast("cuda", dtype=torch_dtype(s["precision.params"]))
