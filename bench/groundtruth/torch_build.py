"""Building the model of a job and wrapping it the way the job says, for measure_torch.py.

Every function takes the resolved settings `s` (jobspec.resolve) and a `notes` object whose
`not_applied` list receives the fields the harness could not reproduce, so a measurement never
claims more than it ran. Each step follows the public recipe of its library:

  model      transformers AutoModelForCausalLM.from_config (random weights, no download) from
             data/models/<preset>.json, built on the CPU, the GPU or the meta device
  LoRA       peft get_peft_model(LoraConfig(r, lora_alpha, target_modules))
  TP         DTensor parallelize_module: colwise q/k/v/gate/up, rowwise o/down (+ sequence
             parallel norms) on every decoder layer; the embedding rowwise and the head
             colwise with its output gathered (parallel.tp_embedding, parallel.tp_head), or
             left sharded on the vocabulary for a loss in loss_parallel()
  float8     torchao convert_to_float8_training of the blocks' linears (not the head) before
             TP, with Float8ColwiseParallel / Float8RowwiseParallel / PrepareFloat8ModuleInput
             for tensorwise scaling under TP, as torchtitan does
  loss       transformers' loss inside the model, or torchtitan's train step (training.loss
             torchtitan): cross_entropy(pred.flatten(0, 1).float(), labels.flatten(0, 1)) on
             the model's logits, `del pred` before backward, in loss_parallel() under TP
  AC         checkpoint_wrapper (non-reentrant) on every block (full) or every Nth (selective)
  compile    torch.compile (inductor) of every block after checkpointing and before FSDP2, in
             place (Module.compile), as torchtitan's apply_compile does
  optimizer  in backward: one optimizer per parameter stepped from its post-accumulate-grad
             hook, as torchtune's optimizer_in_bwd does (single GPU only here)
  DDP        DistributedDataParallel(device_ids, bucket_cap_mb, gradient_as_bucket_view,
             static_graph); lower-precision compute through torch.autocast
  FSDP1      FullyShardedDataParallel(ModuleWrapPolicy({decoder layer}), sharding strategy,
             prefetch, limit_all_gathers, MixedPrecision, CPUOffload, use_orig_params,
             sync_module_states, device_id, param_init_fn = to_empty for meta init)
  FSDP2      fully_shard on every block then the root (reshard_after_forward,
             MixedPrecisionPolicy, CPUOffloadPolicy); meta init: to_empty after sharding
"""

import json
import os

import jobspec

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DTYPE_NAMES = {"fp32": "float32", "bf16": "bfloat16", "fp16": "float16"}


class Skip(Exception):
    """The job needs something this harness does not do; no measurement is written."""


def torch_dtype(name):
    import torch
    return getattr(torch, DTYPE_NAMES[name])


def model_config(s):
    """The transformers config of the job's model (preset name or path to a config.json)."""
    from transformers import AutoConfig
    name = s["model"]
    path = name if os.path.exists(name) else os.path.join(REPO, "data", "models", f"{name}.json")
    if os.path.isdir(path):
        path = os.path.join(path, "config.json")
    if not os.path.exists(path):
        raise Skip(f"no config for model {name!r} (looked for {path})")
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    model_type = raw.pop("model_type", None)
    if model_type is None:
        raise Skip(f"{path}: no model_type")
    for key in [k for k in raw if k.startswith("_")] + ["architectures", "transformers_version"]:
        raw.pop(key, None)
    try:
        return AutoConfig.for_model(model_type, **raw)
    except ValueError as error:
        raise Skip(f"transformers cannot build model_type {model_type!r}: {error}") from error


def attn_implementation(s):
    return "eager" if s["training.attention"] == "eager" else "sdpa"


def refuse_torchtune_features(s):
    """torchtune's memory features, which the harness's Hugging Face training step lacks."""
    if s["training.loss"] == "chunked":
        raise Skip("torchtune's chunked cross-entropy (training.loss chunked) is not implemented by the harness")
    if s["optimizer.in_backward"] and s["parallel.strategy"] != "single":
        raise Skip("optimizer.in_backward is measured on a single GPU only")
    if s["training.activation_offloading"]:
        raise Skip("training.activation_offloading is not implemented by the harness")


def run_without_liger(s, notes, why):
    """The model runs with transformers' own kernels and loss: the recorded job says so."""
    notes.remarks.append(f"training.liger_kernels/loss: {why}; ran without Liger")
    notes.ran_instead["training.liger_kernels"] = False
    if s["training.loss"] == "liger_fused":
        notes.ran_instead["training.loss"] = "hf"


def apply_liger(s, config, notes):
    if s["training.loss"] == "torchtitan" and s["training.liger_kernels"]:
        raise Skip("Liger's kernels under torchtitan's loss are not implemented by the harness")
    wanted = s["training.liger_kernels"] or s["training.loss"] == "liger_fused"
    if not wanted:
        return
    try:
        from liger_kernel.transformers import monkey_patch
    except ImportError as error:
        return run_without_liger(s, notes, f"liger_kernel unavailable ({error})")
    if config.model_type not in getattr(monkey_patch, "MODEL_TYPE_TO_APPLY_LIGER_FN", {}):
        return run_without_liger(s, notes, f"liger_kernel does not patch {config.model_type}")
    # Patches the transformers classes, so it runs before the model is built.
    monkey_patch._apply_liger_kernel(
        config.model_type, rope=s["training.liger_kernels"], rms_norm=s["training.liger_kernels"],
        swiglu=s["training.liger_kernels"], cross_entropy=False,
        fused_linear_cross_entropy=s["training.loss"] == "liger_fused")


def build_model(s, device, notes):
    """The model on `device` ("cpu", "cuda" or "meta") in the master dtype."""
    import torch
    from transformers import AutoModelForCausalLM
    config = model_config(s)
    config.use_cache = False
    refuse_torchtune_features(s)
    apply_liger(s, config, notes)
    try:
        with torch.device(device):
            model = AutoModelForCausalLM.from_config(
                config, torch_dtype=torch_dtype(s["precision.master"]),
                attn_implementation=attn_implementation(s))
    except ValueError as error:  # not a causal LM (vision towers, multimodal presets)
        raise Skip(f"AutoModelForCausalLM cannot build {config.model_type!r}: {error}") from error
    if s["lora.enabled"]:
        model = apply_lora(s, model)
    return model


def apply_lora(s, model):
    try:
        from peft import LoraConfig, get_peft_model
    except ImportError as error:
        raise Skip("lora.enabled needs peft, which is not installed") from error
    config = LoraConfig(r=s["lora.rank"], lora_alpha=s["lora.alpha"],
                        target_modules=list(s["lora.targets"]), lora_dropout=0.0, bias="none",
                        task_type="CAUSAL_LM")
    return get_peft_model(model, config)


def decoder_layer_classes(model):
    """The classes transformers marks as not-to-split: one FSDP unit / AC region each."""
    names = set()
    for module in model.modules():
        names.update(getattr(module, "_no_split_modules", None) or [])
    classes = {type(m) for m in model.modules() if type(m).__name__ in names}
    if not classes:
        raise Skip("cannot find the decoder layer class (_no_split_modules is empty)")
    return classes


def decoder_layers(model):
    classes = tuple(decoder_layer_classes(model))
    return [m for m in model.modules() if isinstance(m, classes)]


def checkpoint_selector(s, model):
    """check_fn for apply_activation_checkpointing, or None when the job has no AC."""
    mode = s["training.activation_checkpointing"]
    if mode == "none":
        return None
    if mode == "op":
        raise Skip("per-operator selective checkpointing is not implemented by the harness")
    if mode == "core_attention":
        raise Skip("Megatron-LM's core attention recompute is not implemented by the harness")
    layers = decoder_layers(model)
    every = 1 if mode == "full" else s["training.checkpoint_every"]
    chosen = {id(m) for i, m in enumerate(layers) if i % every == 0}
    return lambda module: id(module) in chosen


def apply_checkpointing(s, model, check_fn=None):
    from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (
        CheckpointImpl, apply_activation_checkpointing, checkpoint_wrapper)
    check_fn = check_fn or checkpoint_selector(s, model)
    if check_fn is None:
        return
    import functools
    wrapper = functools.partial(checkpoint_wrapper, checkpoint_impl=CheckpointImpl.NO_REENTRANT)
    apply_activation_checkpointing(model, checkpoint_wrapper_fn=wrapper, check_fn=check_fn)


def apply_compile(s, model, outermost):
    """torch.compile of every decoder block, in place, so FSDP2 can still shard the module."""
    if s["training.compile_loss"]:
        raise Skip("training.compile_loss: the harness computes the Hugging Face loss inside "
                   "the model's forward")
    if not s["training.compile"]:
        return
    for block in decoder_layers(model):
        outermost(model, block).compile()


def make_mesh(s):
    """The device mesh (dp_replicate, dp_shard, tp) with size-1 dimensions left out."""
    from torch.distributed.device_mesh import init_device_mesh
    dims = [(n, s[f"parallel.{n}"]) for n in ("dp_replicate", "dp_shard", "tp")
            if s[f"parallel.{n}"] > 1]
    if not dims:
        dims = [("dp_shard", 1)]
    return init_device_mesh("cuda", tuple(d for _, d in dims),
                            mesh_dim_names=tuple(n for n, _ in dims))


def dp_mesh(mesh):
    names = [n for n in mesh.mesh_dim_names if n in ("dp_replicate", "dp_shard")]
    if not names:
        return None
    return mesh[tuple(names)] if len(names) > 1 else mesh[names[0]]


def apply_float8(s, model, notes):
    """torchao's float8 training (precision.float8) as torchtitan's Float8Converter applies it,
    before tensor parallelism, checkpointing and compile: every nn.Linear whose in and out
    features are multiples of 16 becomes a Float8Linear, the head (lm_head) excepted; tensorwise
    scaling with FSDP2's float8 all-gather of the weights when parallel.float8_all_gather."""
    recipe = s["precision.float8"]
    if recipe == "none":
        return
    if recipe in ("blockwise", "mxfp8"):
        raise Skip(f"precision.float8 {recipe} is Transformer Engine's (strategy megatron), "
                   "which measure_torch.py does not run")
    try:
        from torchao.float8 import Float8LinearConfig, convert_to_float8_training
    except ImportError as error:
        raise Skip(f"precision.float8 needs torchao, which is not installed ({error})") from error
    if recipe == "tensorwise":
        config = Float8LinearConfig(enable_fsdp_float8_all_gather=s["parallel.float8_all_gather"])
    else:
        config = Float8LinearConfig.from_recipe_name(recipe)

    def convertible(module, fqn):
        return (fqn.split(".")[-1] != "lm_head" and module.in_features % 16 == 0
                and module.out_features % 16 == 0)

    convert_to_float8_training(model, config=config, module_filter_fn=convertible)


def _tp_styles(s):
    """(colwise, rowwise, prepare-input) styles: torchao's float8 ones for tensorwise float8
    (which cast to float8 before the all-gather), torch's own otherwise."""
    if s["precision.float8"] == "tensorwise":
        from torchao.float8.float8_tensor_parallel import (Float8ColwiseParallel,
                                                           Float8RowwiseParallel,
                                                           PrepareFloat8ModuleInput)
        return Float8ColwiseParallel, Float8RowwiseParallel, PrepareFloat8ModuleInput
    from torch.distributed.tensor.parallel import (ColwiseParallel, PrepareModuleInput,
                                                   RowwiseParallel)
    return ColwiseParallel, RowwiseParallel, PrepareModuleInput


def apply_tensor_parallel(s, model, mesh, notes):
    """Megatron-style TP of every decoder layer of a llama-like model (q/k/v/o, gate/up/down)."""
    from torch.distributed.tensor.parallel import parallelize_module
    ColwiseParallel, RowwiseParallel, PrepareInput = _tp_styles(s)
    sp = s["parallel.sequence_parallel"]
    tp_mesh = mesh["tp"]
    tp = s["parallel.tp"]
    vocab_parallel = jobspec.vocab_parallel_loss(s)
    if vocab_parallel and s["training.loss"] != "torchtitan":
        raise Skip("parallel.loss_parallel: the harness runs loss_parallel() with torchtitan's "
                   "loss only (training.loss torchtitan)")
    tied = getattr(getattr(model, "config", None), "tie_word_embeddings", False)
    if tied and (s["parallel.tp_embedding"] or s["parallel.tp_head"]):
        raise Skip("tensor parallel: a tied embedding and head cannot be sharded two ways; "
                   "set parallel.tp_embedding=false and parallel.tp_head=false")
    if sp and not (s["parallel.tp_embedding"] and s["parallel.tp_head"]):
        raise Skip("sequence parallel: the harness shards the embedding and the head with it")
    for layer in decoder_layers(model):
        if not hasattr(layer, "self_attn") or not hasattr(layer, "mlp"):
            raise Skip("tensor parallel: the harness knows llama-like layers (self_attn, mlp) only")
        plan = {"self_attn.q_proj": ColwiseParallel(), "self_attn.k_proj": ColwiseParallel(),
                "self_attn.v_proj": ColwiseParallel(),
                "self_attn.o_proj": RowwiseParallel(**_sp_output(sp)),
                "mlp.gate_proj": ColwiseParallel(), "mlp.up_proj": ColwiseParallel(),
                "mlp.down_proj": RowwiseParallel(**_sp_output(sp))}
        if sp:
            plan.update(_sp_layer_plan(PrepareInput))
        parallelize_module(layer, tp_mesh, plan)
        # Older transformers reshape with the global head counts: give them the local ones.
        for attr in ("num_heads", "num_key_value_heads", "hidden_size"):
            if isinstance(getattr(layer.self_attn, attr, None), int):
                setattr(layer.self_attn, attr, getattr(layer.self_attn, attr) // tp)
    if not sp:
        _parallelize_ends(model, tp_mesh, s["parallel.tp_embedding"], s["parallel.tp_head"],
                          vocab_parallel)
    else:
        _parallelize_sp_ends(model, tp_mesh, vocab_parallel)
        notes.remarks.append("sequence parallel on transformers modules is experimental here: "
                             "position_ids are passed explicitly")


def placements():
    """(Replicate, Shard): public in torch >= 2.5, under _tensor before."""
    try:
        from torch.distributed.tensor import Replicate, Shard
    except ImportError:
        from torch.distributed._tensor import Replicate, Shard
    return Replicate, Shard


def _sp_output(sp):
    _, Shard = placements()
    return {"output_layouts": Shard(1)} if sp else {}


def _sp_layer_plan(PrepareInput):
    Replicate, Shard = placements()
    from torch.distributed.tensor.parallel import SequenceParallel
    return {"input_layernorm": SequenceParallel(), "post_attention_layernorm": SequenceParallel(),
            "self_attn": PrepareInput(input_kwarg_layouts={"hidden_states": Shard(1)},
                                      desired_input_kwarg_layouts={"hidden_states": Replicate()}),
            "mlp": PrepareInput(input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),))}


def _base_and_inner(model):
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    return base, base.model


def _head_output(vocab_parallel):
    """The head's output: gathered into the whole logits, or, for a loss in loss_parallel(),
    left as a DTensor sharded on the vocabulary (torchtitan's parallelize: output_layouts
    Shard(-1), use_local_output=False)."""
    Replicate, Shard = placements()
    if vocab_parallel:
        return {"output_layouts": Shard(-1), "use_local_output": False}
    return {"output_layouts": Replicate()}


def _parallelize_ends(model, tp_mesh, embedding, head, vocab_parallel=False):
    """Without sequence parallel: the embedding sharded on the vocabulary with its output summed
    over the TP ranks, the head sharded on it with its output gathered (the whole logits) or
    left sharded for loss_parallel()."""
    Replicate, _ = placements()
    from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module
    base, inner = _base_and_inner(model)
    if embedding:
        parallelize_module(inner, tp_mesh, {
            "embed_tokens": RowwiseParallel(input_layouts=Replicate(), output_layouts=Replicate())})
    if head:
        parallelize_module(base, tp_mesh, {"lm_head": ColwiseParallel(**_head_output(vocab_parallel))})


def _parallelize_sp_ends(model, tp_mesh, vocab_parallel=False):
    Replicate, Shard = placements()
    from torch.distributed.tensor.parallel import (ColwiseParallel, RowwiseParallel,
                                                   SequenceParallel, parallelize_module)
    base, inner = _base_and_inner(model)
    parallelize_module(inner, tp_mesh, {
        "embed_tokens": RowwiseParallel(input_layouts=Replicate(), output_layouts=Shard(1)),
        "norm": SequenceParallel()})
    parallelize_module(base, tp_mesh, {
        "lm_head": ColwiseParallel(input_layouts=Shard(1), **_head_output(vocab_parallel))})


class InBackward:
    """torchtune's optimizer_in_bwd: each parameter's optimizer steps, and its gradient is
    freed, as soon as the gradient is accumulated; step() and zero_grad() do nothing."""

    def __init__(self, s, params):
        self.optimizers = {p: _one_optimizer(s, [p]) for p in params}
        for p in params:
            p.register_post_accumulate_grad_hook(self._step)

    def _step(self, param):
        self.optimizers[param].step()
        self.optimizers[param].zero_grad(set_to_none=True)

    def step(self):
        pass

    def zero_grad(self, set_to_none=True):
        pass


def optimizer_for(s, model):
    params = [p for p in model.parameters() if p.requires_grad]
    if s["optimizer.in_backward"]:
        return InBackward(s, params)
    return _one_optimizer(s, params)


def _one_optimizer(s, params):
    import torch
    name = s["optimizer.name"]
    fused = s["optimizer.fused"] or None
    foreach = None if fused else s["optimizer.foreach"]
    if name in ("adamw", "adam"):
        cls = torch.optim.AdamW if name == "adamw" else torch.optim.Adam
        return cls(params, lr=1e-5, fused=fused, foreach=foreach)
    if name in ("sgd", "sgd_momentum"):
        momentum = 0.9 if name == "sgd_momentum" else 0.0
        return torch.optim.SGD(params, lr=1e-5, momentum=momentum, foreach=foreach)
    if name == "adafactor":
        from transformers.optimization import Adafactor
        return Adafactor(params, lr=1e-5, scale_parameter=False, relative_step=False,
                         warmup_init=False)
    if name == "adamw_8bit":
        try:
            import bitsandbytes
        except ImportError as error:
            raise Skip("optimizer adamw_8bit needs bitsandbytes, which is not installed") from error
        return bitsandbytes.optim.AdamW8bit(params, lr=1e-5)
    raise Skip(f"optimizer {name!r} is not implemented by the harness")


def check_supported(s, notes):
    """Raises Skip for jobs the harness cannot run; lists fields it runs only in part."""
    strategy = s["parallel.strategy"]
    if strategy not in ("ddp", "fsdp1", "fsdp2", "single"):
        raise Skip(f"strategy {strategy} is not measured by measure_torch.py")
    if s["parallel.tp"] > 1 and strategy != "fsdp2":
        raise Skip("tensor parallel is measured with fsdp2 only")
    if s["lora.base_quantization"] != "none":
        raise Skip("quantized LoRA bases (QLoRA) are not implemented by the harness")
    if s.get("parallel.async_tp"):
        raise Skip("parallel.async_tp (symmetric-memory fused TP) is not implemented by the harness")
    if s["training.compile"] and strategy == "fsdp1":
        raise Skip("training.compile is measured with single, ddp and fsdp2 only")
    if s["optimizer.state"] != s["precision.master"] and s["optimizer.name"] != "adamw_8bit":
        notes.not_applied.append("optimizer.state: torch optimizers keep state in the "
                                 "parameter dtype")
    if s["checkpoint.save"] == "sharded" and strategy in ("fsdp1", "fsdp2"):
        notes.remarks.append("checkpoint.save=sharded: the sharded state dict is taken, not "
                             "written (torch.distributed.checkpoint adds no GPU memory)")
    elif s["checkpoint.save"] != "none" and strategy in ("ddp", "single"):
        notes.remarks.append("checkpoint.save: the state dict is taken, not written")
    if s["checkpoint.resume"]:
        if strategy not in ("ddp", "single"):
            raise Skip("checkpoint.resume is measured with ddp and single only (a whole-model "
                       "checkpoint)")
        if s["checkpoint.resume_map_location"] == "none":
            raise Skip("checkpoint.resume_map_location=none needs a file saved on another GPU")
        if s["optimizer.name"] not in ("adamw", "adam", "sgd", "sgd_momentum") or \
                s["optimizer.in_backward"]:
            raise Skip("checkpoint.resume is measured with torch's Adam, AdamW and SGD only")
    if s["eval.enabled"] and s["eval.accumulate_logits"] and s["training.loss"] == "torchtitan":
        raise Skip("eval.accumulate_logits is measured with the transformers loss only")
    if not s["init.set_device_first"]:
        notes.not_applied.append("init.set_device_first: one GPU cannot show a context on "
                                 "another GPU")
    if strategy == "fsdp2" and s["precision.buffers"] != s["precision.master"]:
        notes.not_applied.append("precision.buffers: FSDP2 MixedPrecisionPolicy has no buffer dtype")
