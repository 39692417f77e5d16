#!/usr/bin/env python3
"""Scores a first-sight batch of real framework files (tests/data/realworld/fresh<N>-expected.json).

The expected facts of every file were written from the file and its framework's source before the
readers were run on it. This script compares them with what the readers made of the files, as
written by the real-world corpus test:

    VRAMSCOPE_FIRST_SIGHT_OUT=/tmp/got.json build/tests/realworld/vramscope_realworld_tests \\
        --gtest_filter='RealworldFirstSight.*'
    python3 bench/first_sight.py tests/data/realworld/fresh1-expected.json /tmp/got.json

A file is read right when every expected fact matches, it is refused exactly when a refusal is
expected (at one of the lines listed: by the importer, or by `plan --from` when the model is
loaded, without guessing another model), and no note calls an option "unknown" unless the entry
allows that name (a name the framework does not have). Prints the rate per kind and every miss.

With --baseline FILE in place of the batch, every batch of tests/data/realworld is scored and the
run fails when a file that FILE lists as read right is not any more ("nothing got worse"), or
when FILE lists a batch that no longer exists; --write-baseline FILE writes the files read right
now (after a change that reads more of them right):

    python3 bench/first_sight.py --baseline bench/data/first_sight_baseline.json /tmp/got.json
"""
import json
import os
import re
import sys
from collections import defaultdict


def fact_matches(want, got):
    if isinstance(want, dict) and "not" in want:
        return got is not None and got != want["not"]
    return got == want


# The model's config keys of one quantity under the names of two Hugging Face config families
# (GPT-2's config.json: n_embd, n_layer, n_head, n_positions, n_inner; Llama's and most others':
# hidden_size, ...): the importers write the family's own names, a batch may be written with the
# other's.
SYNONYMS = {
    "model.n_embd": "model.hidden_size",
    "model.n_layer": "model.num_hidden_layers",
    "model.n_head": "model.num_attention_heads",
    "model.n_positions": "model.max_position_embeddings",
    "model.n_inner": "model.intermediate_size",
}
SYNONYMS.update({v: k for k, v in list(SYNONYMS.items())})


def fact_of(facts, key):
    if key in facts or key not in SYNONYMS:
        return facts.get(key)
    return facts.get(SYNONYMS[key])


# LoRA targets: two lists name the same adapters when they agree after the one mapping of
# docs/job-spec.md#lora-targets (model::hf_module_name: torchtune's and torchtitan's module names
# -> the Hugging Face names; on a model that fuses them, q/k/v_proj are slices of qkv_proj and
# gate/up_proj of gate_up_proj). A job imported from a file keeps the file's names while batches
# were written in either naming (fresh7 in the fused Hugging Face names, fresh9 in torchtune's),
# so both sides are mapped the same way: names first, then slices collapsed into a fused linear
# that the other list names (which only a model with that fused linear has).
HF_MODULE = {
    "output_proj": "o_proj", "w1": "gate_proj", "w3": "up_proj", "w2": "down_proj",
    "output": "lm_head", "tok_embeddings": "embed_tokens",
    "wq": "q_proj", "wk": "k_proj", "wv": "v_proj", "wo": "o_proj",
}
FUSED_MODULE = {"q_proj": "qkv_proj", "k_proj": "qkv_proj", "v_proj": "qkv_proj",
                "gate_proj": "gate_up_proj", "up_proj": "gate_up_proj"}


def canonical_targets(names, other):
    other_hf = {HF_MODULE.get(n, n) for n in other}
    out = []
    for n in names:
        hf = HF_MODULE.get(n, n)
        if FUSED_MODULE.get(hf) in other_hf:
            hf = FUSED_MODULE[hf]
        if hf not in out:
            out.append(hf)
    return out


# The collectors' brief (bench/first_sight_collectors.md) names one optimizer class "adamw" for
# Adam, AdamW, FusedAdam and CPUAdam, which keep the same two states a parameter; the readers tell
# torch's Adam (DeepSpeed's adam_w_mode false, mup's MuAdam) apart as "adam". Compared in the
# brief's classes.
BRIEF_CLASS = {"optimizer.name": {"adam": "adamw"}}


def same_fact(key, want, got):
    if key == "lora.targets" and isinstance(want, list) and isinstance(got, list):
        return canonical_targets(want, got) == canonical_targets(got, want)
    if key in BRIEF_CLASS and isinstance(got, str):
        got = BRIEF_CLASS[key].get(got, got)
    return fact_matches(want, got)


def unknown_names(facts):
    names = []
    for text in facts.get("note_texts", []):
        m = re.search(r'unknown option "([^"]+)"', text)
        if m:
            names.append(m.group(1))
    return names


def names_unknown_part(path, allowed):
    """Whether the dotted option `path` a note calls unknown contains the unknown name `allowed`
    (itself dotted) as a run of its parts: a label may write the unknown name as the file nests it
    (`offload_optimizer` under accelerate's `deepspeed_config`) or in full, and a key under an
    unknown map is unknown with it."""
    n = len(allowed)
    return any(path[i:i + n] == allowed for i in range(len(path) - n + 1))


def check(rel, want, got):
    """The reasons `got` is not what `want` says, empty when the file was read right."""
    if "any_of" in want:
        tries = [check(rel, dict(alt, kind=want["kind"]), got) for alt in want["any_of"]]
        return [] if any(not t for t in tries) else min(tries, key=len)
    if got is None:
        return ["not read"]
    if "refused_at" in want:
        # The importer's refusal, or else plan --from's (exit 2) at the line: a model with no
        # preset is refused when the plan loads it. A refusal that guesses another model by its
        # spelling ("did you mean") is not a right reading.
        refusal = got.get("refused")
        if refusal is None and got.get("plan_exit") == 2:
            refusal = got.get("plan_error", "")
            if "did you mean" in refusal:
                return ["refused with a guess at another model: " + refusal]
        if refusal is None:
            return ["planned, expected a refusal at line " + "/".join(want["refused_at"])]
        m = re.search(r"\b" + re.escape(rel) + r":(\d+)", refusal)
        if not m or m.group(1) not in want["refused_at"]:
            return ["refused at the wrong place: " + refusal]
        return []
    if "refused" in got:
        return ["refused: " + got["refused"]]
    facts = got["facts"]
    misses = []
    for key, value in want["yields"].items():
        got_value = fact_of(facts, key)
        if not same_fact(key, value, got_value):
            misses.append(f"{key}: expected {json.dumps(value)}, got {json.dumps(got_value)}")
    # A command-line flag is the same name with or without its leading dashes (batches write
    # Megatron's flags both ways: "--swi-glu", "checkpoint_activations").
    allowed = [a.lstrip("-").split(".") for a in want.get("unknown_allowed", [])]
    for name in unknown_names(facts):
        if not any(names_unknown_part(name.lstrip("-").split("."), a) for a in allowed):
            misses.append(f'"unknown option" said of {name}, a name the framework has')
    return misses


BATCHES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                       "realworld")


def batches():
    """Every first-sight batch: its file name -> its entries."""
    out = {}
    for name in sorted(os.listdir(BATCHES)):
        if re.fullmatch(r"fresh\d+(-[a-z_]+)?-expected\.json", name):
            with open(os.path.join(BATCHES, name)) as f:
                out[name] = json.load(f)
    return out


def read_right(expected, got):
    return sorted(rel for rel, want in expected.items() if not check(rel, want, got.get(rel)))


def against_baseline(mode, baseline_path, got):
    now = {name: read_right(entries, got) for name, entries in batches().items()}
    if mode == "--write-baseline":
        text = json.dumps(now, indent=1) + "\n"
        tmp = baseline_path + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, baseline_path)  # written whole or not at all
        print(f"first_sight.py: wrote {baseline_path}: "
              f"{sum(len(v) for v in now.values())} files read right in {len(now)} batches")
        return 0
    with open(baseline_path) as f:
        before = json.load(f)
    worse = []
    for name, files in sorted(before.items()):
        if name not in now:
            worse.append(f"{name}: the baseline's batch is gone")
            continue
        worse.extend(f"{name}: {rel} was read right and is not any more"
                     for rel in files if rel not in now[name])
    for name, files in sorted(now.items()):
        print(f"{name}: {len(files)} read right (baseline {len(before.get(name, []))})")
    if worse:
        print("\n".join(worse), file=sys.stderr)
        print("first_sight.py: first-sight readings got worse", file=sys.stderr)
        return 1
    print("first_sight.py: nothing got worse")
    return 0


def main(argv):
    if len(argv) == 4 and argv[1] in ("--baseline", "--write-baseline"):
        with open(argv[3]) as f:
            return against_baseline(argv[1], argv[2], json.load(f))
    if len(argv) != 3:
        print(__doc__)
        return 2
    with open(argv[1]) as f:
        expected = json.load(f)
    with open(argv[2]) as f:
        got = json.load(f)
    per_kind = defaultdict(lambda: [0, 0])
    misses = []
    for rel, want in sorted(expected.items()):
        reasons = check(rel, want, got.get(rel))
        per_kind[want["kind"]][1] += 1
        if reasons:
            misses.append((rel, reasons))
        else:
            per_kind[want["kind"]][0] += 1
    right = sum(v[0] for v in per_kind.values())
    total = sum(v[1] for v in per_kind.values())
    print("| kind | read right | files | rate |")
    print("|---|---|---|---|")
    for kind, (ok, n) in sorted(per_kind.items()):
        print(f"| {kind} | {ok} | {n} | {100.0 * ok / n:.0f} % |")
    print(f"| all | {right} | {total} | {100.0 * right / total:.0f} % |")
    for rel, reasons in misses:
        print(f"\n{rel}")
        for r in reasons:
            print(f"  - {r}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
