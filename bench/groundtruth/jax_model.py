"""A plain-JAX decoder of a preset's shape, for measure_jax.py.

Shape numbers come from the preset's config.json (data/models/<name>.json): hidden size, MLP
width, layers, heads, KV heads, head dim, vocabulary, tied embeddings. The block is the
llama/gemma one: RMSNorm, grouped-query attention with a causal mask, a gated MLP. Weights are
kept in the master dtype and cast to the compute dtype in the forward pass, as mixed-precision
JAX trainers do. Multi-stack presets (pi0, paligemma, vision towers) are not built here.

LoRA adds A (in x r) and B (r x out) beside each targeted projection; only those are trained.
Activation checkpointing wraps the chosen blocks in jax.checkpoint.
"""

import functools
import json
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROJECTIONS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


class Unsupported(Exception):
    """The preset is not a single decoder stack."""


def shape_of(model):
    path = model if os.path.exists(model) else os.path.join(REPO, "data", "models", f"{model}.json")
    with open(path, encoding="utf-8") as f:
        c = json.load(f)
    if "text_config" in c or "vision_config" in c or "num_hidden_layers" not in c:
        raise Unsupported(f"{model}: multi-stack or non-decoder presets are not built by measure_jax.py")
    if c.get("num_local_experts") or c.get("num_experts"):
        raise Unsupported(f"{model}: mixture-of-experts presets are not built by measure_jax.py")
    heads = c["num_attention_heads"]
    # transformers' config classes default to tied embeddings for gemma only (as the model
    # module's family table, src/model/family_decoder.cpp).
    tied_default = c.get("model_type", "") in ("gemma", "gemma2", "gemma3_text")
    return {"hidden": c["hidden_size"], "inter": c["intermediate_size"],
            "layers": c["num_hidden_layers"], "heads": heads,
            "kv_heads": c.get("num_key_value_heads", heads),
            "head_dim": c.get("head_dim") or c["hidden_size"] // heads,
            "vocab": c["vocab_size"], "tied": bool(c.get("tie_word_embeddings", tied_default))}


def projection_shapes(shape):
    h, hd = shape["hidden"], shape["head_dim"]
    return {"q_proj": (h, shape["heads"] * hd), "k_proj": (h, shape["kv_heads"] * hd),
            "v_proj": (h, shape["kv_heads"] * hd), "o_proj": (shape["heads"] * hd, h),
            "gate_proj": (h, shape["inter"]), "up_proj": (h, shape["inter"]),
            "down_proj": (shape["inter"], h)}


def init_params(key, shape, dtype, lora=None):
    """{"frozen" or "train": {...}} of arrays in `dtype`; lora = (rank, targets) or None."""
    import jax
    import jax.numpy as jnp
    keys = iter(jax.random.split(key, 4 + shape["layers"] * 16))

    def normal(*dims):
        return (jax.random.normal(next(keys), dims, jnp.float32) * 0.02).astype(dtype)

    h = shape["hidden"]
    base = {"embed": normal(shape["vocab"], h), "norm": jnp.ones((h,), dtype), "layers": []}
    if not shape["tied"]:
        base["head"] = normal(h, shape["vocab"])
    adapters = []
    for _ in range(shape["layers"]):
        layer = {"attn_norm": jnp.ones((h,), dtype), "mlp_norm": jnp.ones((h,), dtype)}
        adapter = {}
        for name, (n_in, n_out) in projection_shapes(shape).items():
            layer[name] = normal(n_in, n_out)
            if lora and name in lora[1]:
                adapter[name] = {"a": normal(n_in, lora[0]), "b": jnp.zeros((lora[0], n_out), dtype)}
        base["layers"].append(layer)
        adapters.append(adapter)
    if lora:
        return {"frozen": base, "train": adapters}
    return {"frozen": {}, "train": base}


def _rms_norm(x, weight):
    import jax.numpy as jnp
    variance = jnp.mean(jnp.square(x.astype(jnp.float32)), axis=-1, keepdims=True)
    return (x * (1.0 / jnp.sqrt(variance + 1e-6)).astype(x.dtype)) * weight


def _project(x, layer, adapter, name, alpha_over_r):
    y = x @ layer[name]
    if name in adapter:
        y = y + (x @ adapter[name]["a"]) @ adapter[name]["b"] * alpha_over_r
    return y


def _block(x, layer, adapter, shape, alpha_over_r):
    import jax
    import jax.numpy as jnp
    b, s, _ = x.shape
    hd, heads, kv = shape["head_dim"], shape["heads"], shape["kv_heads"]
    y = _rms_norm(x, layer["attn_norm"])
    q = _project(y, layer, adapter, "q_proj", alpha_over_r).reshape(b, s, heads, hd)
    k = _project(y, layer, adapter, "k_proj", alpha_over_r).reshape(b, s, kv, hd)
    v = _project(y, layer, adapter, "v_proj", alpha_over_r).reshape(b, s, kv, hd)
    k = jnp.repeat(k, heads // kv, axis=2)
    v = jnp.repeat(v, heads // kv, axis=2)
    scores = jnp.einsum("bqhd,bkhd->bhqk", q, k) / jnp.sqrt(hd).astype(q.dtype)
    causal = jnp.tril(jnp.ones((s, s), bool))
    probs = jax.nn.softmax(jnp.where(causal, scores, -1e9).astype(jnp.float32), -1).astype(q.dtype)
    attn = jnp.einsum("bhqk,bkhd->bqhd", probs, v).reshape(b, s, heads * hd)
    x = x + _project(attn, layer, adapter, "o_proj", alpha_over_r)
    y = _rms_norm(x, layer["mlp_norm"])
    gate = jax.nn.silu(_project(y, layer, adapter, "gate_proj", alpha_over_r))
    up = _project(y, layer, adapter, "up_proj", alpha_over_r)
    return x + _project(gate * up, layer, adapter, "down_proj", alpha_over_r)


def loss_fn(train, frozen, tokens, shape, compute_dtype, remat_every, lora_scale):
    """Mean next-token cross-entropy. remat_every: 0 = no checkpointing, N = every Nth block."""
    import jax
    import jax.numpy as jnp
    params = train if not frozen else frozen
    adapters = train if frozen else [{}] * shape["layers"]
    cast = lambda tree: jax.tree_util.tree_map(lambda a: a.astype(compute_dtype), tree)  # noqa: E731
    x = cast(params["embed"])[tokens]
    plain = functools.partial(_block, shape=shape, alpha_over_r=lora_scale)
    remat = jax.checkpoint(plain)
    for i, layer in enumerate(params["layers"]):
        block = remat if remat_every and i % remat_every == 0 else plain
        x = block(x, cast(layer), cast(adapters[i]))
    x = _rms_norm(x, cast(params["norm"]))
    head = cast(params["head"]) if "head" in params else cast(params["embed"]).T
    logits = (x[:, :-1] @ head).astype(jnp.float32)
    labels = tokens[:, 1:]
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.mean(jnp.take_along_axis(logp, labels[..., None], axis=-1))
