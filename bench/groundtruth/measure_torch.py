#!/usr/bin/env python3
"""Measures the GPU memory of one rank of a PyTorch job spec and appends one JSON line.

    python3 bench/groundtruth/measure_torch.py JOB.yaml [--set key=value ...] [--rank N]
                                               [--out FILE.jsonl] [--case NAME]

A rank of an N-rank job runs alone on this machine's first GPU, inside PyTorch's fake process
group (backend "fake", FakeStore): every collective returns at once without moving data, so
each rank allocates what it would allocate in the real job, minus NCCL's own buffers (see
bench/README.md, "What the fake process group can and cannot show"). Phases: init.model,
init.wrap, init.optimizer, resume (checkpoint.resume), then per step forward / backward (per
micro-step) and optimizer, then eval1, eval2, ... (eval.enabled) and checkpoint_save
(checkpoint.save).
An out-of-memory error is a measurement (`"oom": true` and the phase); any other failure
writes nothing and exits 3; a job the harness cannot run exits 4 with the reason.

--describe prints the resolved settings the harness would run with and imports no torch.
"""

import argparse
import json
import os
import sys
import time
import traceback

import jobspec
import recording

EXIT_ERROR, EXIT_SKIP = 3, 4


class Notes:
    def __init__(self):
        self.not_applied = []
        self.remarks = []
        # Fields the harness ran differently from the job and can name what ran instead: the
        # recorded job says what ran (build_record), so the scorer plans the job measured.
        self.ran_instead = {}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("job", help="vramscope job spec (YAML)")
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                   help="override one field, as `vramscope plan --set`")
    p.add_argument("--rank", type=int, default=0, help="rank to measure (default 0)")
    p.add_argument("--out", default="-", help="JSONL file to append to (default stdout)")
    p.add_argument("--case", default=None, help="case name written into the line")
    p.add_argument("--snapshot", default=None,
                   help="also write torch.cuda.memory._dump_snapshot to this pickle")
    p.add_argument("--snapshot-stacks", choices=("all", "python", "none"), default="all",
                   help="stack traces kept with each allocator event of --snapshot; 'none' "
                        "keeps only the events (addresses, sizes, streams), a far smaller file")
    p.add_argument("--allow-smaller-gpu", action="store_true",
                   help="measure even when this GPU has less memory than the job's GPU")
    p.add_argument("--keep-versions", action="store_true",
                   help="do not replace framework.* in the recorded job by the installed versions")
    p.add_argument("--describe", action="store_true",
                   help="print the resolved settings as JSON and exit (no torch needed)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        job = jobspec.load(args.job, args.overrides)
        s = jobspec.resolve(job)
    except (OSError, ValueError) as error:
        print(f"measure_torch: {error}", file=sys.stderr)
        return 2
    if args.describe:
        return describe(s)
    if not 0 <= args.rank < jobspec.world_size(s):
        print(f"measure_torch: --rank {args.rank} is outside the job's "
              f"{jobspec.world_size(s)} ranks", file=sys.stderr)
        return 2
    os.environ.update(s["env"])  # allocator settings must be in place before torch loads
    try:
        return measure(args, job, s)
    except Exception as error:  # noqa: BLE001 - reported per case by run_matrix.py
        from torch_build import Skip
        if isinstance(error, Skip):
            print(f"measure_torch: skipped: {error}", file=sys.stderr)
            return EXIT_SKIP
        traceback.print_exc()
        return EXIT_ERROR


def describe(s):
    from torch_build import Skip, check_supported
    notes, skip = Notes(), None
    try:
        check_supported(s, notes)
    except Skip as error:
        skip = str(error)
    print(json.dumps({"applied": jobspec.applied(s), "not_applied": notes.not_applied,
                      "skip": skip}, indent=2))
    return 0


def measure(args, job, s):
    import torch_build
    notes = Notes()
    torch_build.check_supported(s, notes)
    probe = recording.DeviceProbe()
    probe.start()
    import torch
    started, started_at = time.monotonic(), recording.now_utc()
    torch.cuda.set_device(0)
    torch.zeros(1, device="cuda")
    cap = cap_memory(s, probe, args.allow_smaller_gpu)
    pg = init_process_group(s, args.rank)
    if args.snapshot:
        if args.snapshot_stacks == "none":
            torch.cuda.memory._record_memory_history(context=None, max_entries=200_000)
        else:
            torch.cuda.memory._record_memory_history(stacks=args.snapshot_stacks,
                                                     max_entries=200_000)
    rec = recording.PhaseRecorder(probe)
    where = None
    try:
        where = run_phases(s, args.rank, rec, notes)
    except Exception:
        if rec.oom_phase is None:
            raise
    if args.snapshot:
        torch.cuda.memory._dump_snapshot(args.snapshot)
    probe.stop()
    record = build_record(args, job, s, rec, probe, notes)
    record["harness"].update({"init_device": where, "memory_cap_bytes": cap, "process_group": pg,
                              "wall_s": round(time.monotonic() - started, 1),
                              "started_at": started_at})
    recording.append_line(args.out, record)
    return 0


DRIVER_RESERVED_SLACK = 1 << 30


def cap_memory(s, probe, allow_smaller):
    """Limits the allocator so that this GPU behaves like one of the job's capacity."""
    import torch
    total = torch.cuda.get_device_properties(0).total_memory
    want = s["hardware.gpu_memory"]
    # The job's capacity is NVML's total; torch's excludes what the driver reserves (480 MiB
    # on an H100 80GB HBM3 with driver 580: 85520809984 B against 85017493504 B), so the
    # same GPU model reads as smaller by up to this much. (Until 2026-11-26 this test also took
    # every larger GPU for the job's own: the H200 lines ran with all 139.8 GiB, which changes
    # nothing below 80 GB but let the expected out-of-memory cases run on to 139 GiB.)
    if 0 <= want - total <= DRIVER_RESERVED_SLACK:
        return None
    if want > total and not allow_smaller:
        from torch_build import Skip
        raise Skip(f"the job's GPU has {want} B, this one {total} B (--allow-smaller-gpu)")
    if want >= total:
        return None
    own, _ = probe.read()
    limit = max(want - own, 0)
    torch.cuda.set_per_process_memory_fraction(limit / total, 0)
    return limit


def init_process_group(s, rank):
    if s["parallel.strategy"] == "single":
        return "none"
    import torch.distributed as dist
    from torch.testing._internal.distributed.fake_pg import FakeStore  # registers "fake"
    dist.init_process_group(backend="fake", store=FakeStore(), rank=rank,
                            world_size=jobspec.world_size(s))
    return "fake"


def run_phases(s, rank, rec, notes):
    import torch_build
    import torch_wrap
    with rec.phase("init.model"):
        model, where = torch_wrap.build(s, rank, notes)
    with rec.phase("init.wrap"):
        model = torch_wrap.wrap(s, model, where, notes)
    with rec.phase("init.optimizer"):
        optimizer = torch_build.optimizer_for(s, model)
    resumed = resume(s, model, optimizer, rec) if s["checkpoint.resume"] else None
    vocab = torch_build.model_config(s).vocab_size
    for step in range(1, s["training.steps"] + 1):
        train_step(s, step, model, optimizer, vocab, rec, notes)
    if s["eval.enabled"]:
        evaluate(s, model, vocab, rec, notes)
    if s["checkpoint.save"] != "none":
        save_checkpoint(s, model, rec)
    del resumed
    return where


def resume(s, model, optimizer, rec):
    """checkpoint.resume: a training checkpoint of this model (its state dict and an optimizer
    state of the same shapes, as a first step makes it) is serialised to host memory with
    torch.save; phase "resume" is torch.load(map_location=...), model.load_state_dict and
    optimizer.load_state_dict. Returns the loaded dict when the job keeps it referenced
    (checkpoint.resume_kept), else None."""
    import io
    import torch
    inner = getattr(model, "module", model)
    params = [p for group in optimizer.param_groups for p in group["params"]]
    state = {}
    for index, p in enumerate(params):
        if s["optimizer.name"] in ("adamw", "adam"):
            state[index] = {"step": torch.tensor(1.0), "exp_avg": torch.zeros(p.shape, dtype=p.dtype),
                            "exp_avg_sq": torch.zeros(p.shape, dtype=p.dtype)}
        elif s["optimizer.name"] == "sgd_momentum":
            state[index] = {"momentum_buffer": torch.zeros(p.shape, dtype=p.dtype)}
    groups = optimizer.state_dict()["param_groups"]
    # Host copies that keep the state dict's sharing (a head tied to the embedding is one
    # tensor under two names, saved once by torch.save as a GPU state dict would be).
    copies, weights = {}, {}
    for name, value in inner.state_dict().items():
        key = (value.untyped_storage().data_ptr(), value.storage_offset(), tuple(value.shape))
        if key not in copies:
            copies[key] = value.detach().to("cpu", copy=True)
        weights[name] = copies[key]
    del copies
    buffer = io.BytesIO()
    torch.save({"model": weights, "optimizer": {"state": state, "param_groups": groups}}, buffer)
    del weights, state
    buffer.seek(0)
    location = {"cpu": "cpu", "cuda": f"cuda:{torch.cuda.current_device()}"}[
        s["checkpoint.resume_map_location"]]
    with rec.phase("resume"):
        checkpoint = torch.load(buffer, map_location=location, weights_only=True)
        inner.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        if not s["checkpoint.resume_kept"]:
            checkpoint = None
    return checkpoint


def evaluate(s, model, vocab, rec, notes):
    """eval.enabled: eval.steps batches of eval.micro_batch through the model in eval mode, as a
    transformers Trainer's evaluation loop runs them: the forward with labels under
    torch.no_grad (eval.no_grad), the logits kept to the end of the step, and with
    eval.accumulate_logits gathered from every data-parallel rank and concatenated onto what
    the earlier steps kept (torch.cat, as nested_concat does), dropped to the host every
    eval.accumulation_steps steps."""
    import contextlib
    import torch
    import torch_wrap
    model.eval()
    micro_batch = s["eval.micro_batch"] or s["training.micro_batch"]
    dp = jobspec.world_size(s) // s["parallel.tp"]
    held = None
    for step in range(1, s["eval.steps"] + 1):
        batch = make_batch(s, vocab, micro_batch)
        grad = torch.no_grad() if s["eval.no_grad"] else contextlib.nullcontext()
        with rec.phase(f"eval{step}"), grad, torch_wrap.attention_context(s, notes), \
                torch_wrap.loss_context(s):
            with torch_wrap.autocast_context(s):
                outputs = model(**batch)
            logits = outputs.logits
            del outputs
            if s["eval.accumulate_logits"]:
                if dp > 1:
                    import torch.distributed as dist
                    gathered = logits.new_empty((dp * logits.shape[0],) + tuple(logits.shape[1:]))
                    dist.all_gather_into_tensor(gathered, logits.contiguous())
                    logits = gathered
                held = logits if held is None else torch.cat((held, logits), dim=0)
                every = s["eval.accumulation_steps"]
                if every and step % every == 0:
                    held = None  # to host memory (the Trainer's to_cpu_and_numpy)
            del logits
    del held
    model.train()


def save_checkpoint(s, model, rec):
    """checkpoint.save after the steps: the state dict a save takes, dropped when written.
    FSDP1: FULL_STATE_DICT with FullStateDictConfig(offload_to_cpu, rank0_only) or
    SHARDED_STATE_DICT; FSDP2: get_model_state_dict(full_state_dict, cpu_offload) or the
    sharded one; DDP and single: the module's own state dict (references, nothing copied)."""
    strategy = s["parallel.strategy"]
    with rec.phase("checkpoint_save"):
        if strategy == "fsdp1":
            from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
            from torch.distributed.fsdp import FullStateDictConfig, StateDictType
            if s["checkpoint.save"] == "full":
                config = FullStateDictConfig(offload_to_cpu=s["checkpoint.offload_to_cpu"],
                                             rank0_only=s["checkpoint.rank0_only"])
                with FSDP.state_dict_type(model, StateDictType.FULL_STATE_DICT, config):
                    state = model.state_dict()
            else:
                with FSDP.state_dict_type(model, StateDictType.SHARDED_STATE_DICT):
                    state = model.state_dict()
        elif strategy == "fsdp2":
            from torch.distributed.checkpoint.state_dict import (StateDictOptions,
                                                                 get_model_state_dict)
            full = s["checkpoint.save"] == "full"
            options = StateDictOptions(full_state_dict=full,
                                       cpu_offload=full and s["checkpoint.offload_to_cpu"])
            state = get_model_state_dict(model, options=options)
        else:
            state = getattr(model, "module", model).state_dict()
        del state


def train_step(s, step, model, optimizer, vocab, rec, notes):
    import torch_wrap
    accumulation = s["training.gradient_accumulation"]
    for micro in range(1, accumulation + 1):
        suffix = "" if accumulation == 1 else f".micro{micro}"
        batch = make_batch(s, vocab)
        with torch_wrap.grad_sync(s, model, micro == accumulation), \
                torch_wrap.attention_context(s, notes), torch_wrap.loss_context(s):
            with rec.phase(f"step{step}.forward{suffix}"), torch_wrap.autocast_context(s):
                loss = torch_wrap.forward_loss(s, model, batch) / accumulation
            with rec.phase(f"step{step}.backward{suffix}"):
                loss.backward()
                del loss
    with rec.phase(f"step{step}.optimizer"):
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def make_batch(s, vocab, micro_batch=None):
    import torch
    shape = (micro_batch or s["training.micro_batch"], s["training.seq_len"])
    ids = torch.randint(0, vocab, shape, device="cuda")
    batch = {"input_ids": ids, "labels": ids}
    if s["training.padding_mask"]:
        mask = torch.ones(shape, dtype=torch.long, device="cuda")
        mask[:, -max(1, shape[1] // 8):] = 0
        batch["attention_mask"] = mask
    if s["parallel.sequence_parallel"]:
        batch["position_ids"] = torch.arange(shape[1], device="cuda").expand(shape[0], -1)
    return batch


def installed_versions(job, s, keep):
    """The recorded job names the versions that ran; returns the fields it changed."""
    import torch
    import transformers
    found = {"version": _major_minor(torch.__version__), "cuda": torch.version.cuda,
             "transformers": _major_minor(transformers.__version__)}
    if keep:
        return []
    changed = []
    framework = job.setdefault("framework", {})
    for key, value in found.items():
        if value and s[f"framework.{key}"] != value:
            framework[key] = value
            s[f"framework.{key}"] = value
            changed.append(f"framework.{key}={value}")
    return changed


def _major_minor(version):
    return ".".join(version.split("+")[0].split(".")[:2])


def record_what_ran(job, s, ran_instead):
    """Writes each field the harness ran differently into the recorded job; returns them."""
    changed = []
    for path, value in ran_instead.items():
        section, key = path.split(".", 1)
        if not isinstance(job.get(section), dict):
            job[section] = {}
        job[section][key] = value
        s[path] = value
        changed.append(f"{path}={json.dumps(value)}")
    return changed


def build_record(args, job, s, rec, probe, notes):
    rewritten = installed_versions(job, s, args.keep_versions)
    rewritten += record_what_ran(job, s, notes.ran_instead)
    return {
        "schema": recording.SCHEMA,
        "measured": True,
        "case": args.case or os.path.splitext(os.path.basename(args.job))[0],
        "job_file": jobspec.relative_to_repo(args.job),
        "overrides": list(args.overrides),
        "job": job,
        "rank": args.rank,
        "process_group": "none" if s["parallel.strategy"] == "single" else "fake",
        "env": recording.torch_env(),
        "harness": {"script": "measure_torch.py", "applied": jobspec.applied(s),
                    "rewritten": rewritten, "not_applied": list(dict.fromkeys(notes.not_applied)),
                    "remarks": list(dict.fromkeys(notes.remarks)), "device_source": probe.source},
        "phases": rec.phases,
        "steps": rec.steps(),
        "peak": rec.peak(),
        "oom": rec.oom_phase is not None,
        "oom_phase": rec.oom_phase,
        "oom_message": rec.oom_message,
    }


if __name__ == "__main__":
    sys.exit(main())
