#!/usr/bin/env python3
"""Writes a realistic PyTorch memory snapshot for benchmarking `vramscope snapshot`.

The object has the shape torch.cuda.memory._dump_snapshot() writes (docs/formats/snapshot.md):
{"segments": [...], "device_traces": [[...], ...], "allocator_settings": {...},
"external_annotations": []}, pickled with the standard library (protocol 4 with framing by
default). The trace comes from a simulated training loop: per step a forward pass allocates
activations layer by layer, backward frees them in reverse and allocates gradients, the optimizer
allocates temporaries, and collective buffers are freed late (as recordStream delays them).
Frame dicts and frame lists are shared objects, as torch de-duplicates them, so repeated call
stacks cost only memo references in the file.

Next to the pickle it writes <out>.expected.json: the peaks and entry counts computed here by a
plain replay of the full history, for the timing program to check the analysis against.

    python3 make_snapshot.py --out /tmp/snap.pickle --target-mb 300
"""

import argparse
import json
import pickle
import random

KIB, MIB = 1024, 1024 * 1024


def rounded(size):
    return 512 if size < 512 else (size + 511) // 512 * 512


def segment_size(size):
    # PyTorch's c10/cuda/CUDACachingAllocator.cpp (get_allocation_size; docs/allocators.md,
    # "Sizes"): small requests share 2 MiB segments, 1-10 MiB share 20 MiB, larger requests get
    # their size rounded up to 2 MiB.
    r = rounded(size)
    if r <= MIB:
        return 2 * MIB
    if r < 10 * MIB:
        return 20 * MIB
    return (r + 2 * MIB - 1) // (2 * MIB) * (2 * MIB)


class Frames:
    """Shared frame dicts and call stacks, as torch's de-duplicated tracebacks."""

    CPP = [
        ("c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc", "??", 0),
        ("c10::cuda::CUDACachingAllocator::Native::NativeCachingAllocator::malloc", "??", 0),
        ("at::detail::empty_generic", "??", 0),
        ("at::native::empty_cuda", "??", 0),
        ("at::_ops::empty_memory_format::call", "??", 0),
        ("torch::autograd::THPVariable_empty", "??", 0),
        ("_PyEval_EvalFrameDefault", "??", 0),
        ("PyObject_Call", "??", 0),
    ]

    def __init__(self, rng, layers):
        self.rng = rng
        self.frames = {}
        self.stacks = {}
        self.layers = layers

    def frame(self, name, filename, line):
        key = (name, filename, line)
        if key not in self.frames:
            self.frames[key] = {"name": name, "filename": filename, "line": line}
        return self.frames[key]

    def stack(self, kind, layer, variant):
        key = (kind, layer, variant)
        if key in self.stacks:
            return self.stacks[key]
        torch_nn = "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py"
        user = {
            "activation": [("forward", "/workspace/model/attention.py", 120 + variant * 7),
                           ("forward", "/workspace/model/block.py", 64),
                           ("_call_impl", torch_nn, 1527), ("forward", "/workspace/model/llama.py", 210 + layer)],
            "gradient": [("backward", "/opt/conda/lib/python3.11/site-packages/torch/autograd/__init__.py", 266),
                         ("backward", "/opt/conda/lib/python3.11/site-packages/torch/_tensor.py", 522),
                         ("train_step", "/workspace/train.py", 141)],
            "optimizer": [("_multi_tensor_adamw", "/opt/conda/lib/python3.11/site-packages/torch/optim/adamw.py", 600),
                          ("step", "/opt/conda/lib/python3.11/site-packages/torch/optim/optimizer.py", 484),
                          ("train_step", "/workspace/train.py", 150)],
            "communication": [("all_gather_into_tensor",
                               "/opt/conda/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", 3130),
                              ("unshard", "/workspace/parallel/fsdp.py", 77 + variant),
                              ("forward", "/workspace/model/block.py", 60)],
            "parameter": [("reset_parameters", "/workspace/model/block.py", 30 + variant),
                          ("__init__", "/workspace/model/llama.py", 40 + layer)],
        }[kind]
        frames = [self.frame(*f) for f in self.CPP[: 4 + variant % 4]]
        frames += [self.frame(n, f, ln) for n, f, ln in user]
        frames += [self.frame("main", "/workspace/train.py", 300), self.frame("<module>", "/workspace/train.py", 320)]
        self.stacks[key] = frames
        return frames


class Device:
    def __init__(self, index, rng, frames, base):
        self.index = index
        self.rng = rng
        self.frames = frames
        self.trace = []
        self.time_us = 1_717_000_000_000_000 + index
        self.segments = []          # [start, size]
        self.free_runs = {}         # size -> addresses freed and reusable
        self.next_segment = base
        self.live = {}              # addr -> (size, stack, pending)
        self.pending = []           # (addr, due entry) for late free_completed

    def emit(self, action, addr, size, stack):
        self.time_us += self.rng.randint(1, 40)
        self.trace.append({"action": action, "addr": addr, "size": size, "stream": 0,
                           "time_us": self.time_us, "frames": stack})

    def alloc(self, size, stack):
        r = rounded(size)
        reuse = self.free_runs.get(r)
        if reuse:
            addr = reuse.pop()
        else:
            seg = segment_size(size)
            addr = self.next_segment
            self.segments.append([addr, seg])
            self.next_segment += seg + 64 * MIB
            self.emit("segment_alloc", addr, seg, stack)
        self.live[addr] = (size, stack, False)
        self.emit("alloc", addr, size, stack)
        return addr

    def free(self, addr, late=0):
        size, stack, _ = self.live[addr]
        self.emit("free_requested", addr, size, stack)
        if late:
            self.live[addr] = (size, stack, True)
            self.pending.append((addr, len(self.trace) + late))
        else:
            self.complete(addr)

    def complete(self, addr):
        size, stack, _ = self.live.pop(addr)
        self.emit("free_completed", addr, size, stack)
        self.free_runs.setdefault(rounded(size), []).append(addr)

    def poll(self):
        due = [p for p in self.pending if p[1] <= len(self.trace)]
        self.pending = [p for p in self.pending if p[1] > len(self.trace)]
        for addr, _ in due:
            self.complete(addr)


def training_step(dev, layers, params, grads, rng):
    f = dev.frames
    saved = []
    for layer in range(layers):
        buf = dev.alloc(64 * MIB, f.stack("communication", layer % 4, layer % 3))
        for v in range(6):
            saved.append(dev.alloc(rng.choice([2, 4, 8, 16]) * MIB + rng.randint(0, 4096), f.stack("activation", layer, v)))
        tmp = dev.alloc(rng.randint(1, 900) * KIB, f.stack("activation", layer, 6))
        dev.free(tmp)
        dev.free(buf, late=rng.randint(2, 12))
        dev.poll()
    for layer in reversed(range(layers)):
        for _ in range(6):
            dev.free(saved.pop())
        if layer not in grads:
            grads[layer] = dev.alloc(params[layer], f.stack("gradient", layer % 8, 0))
        g = dev.alloc(rng.randint(1, 512) * KIB, f.stack("gradient", layer % 8, 1))
        dev.free(g)
        dev.poll()
    for layer in range(layers):
        t = dev.alloc(params[layer], f.stack("optimizer", layer % 8, 0))
        dev.free(t)
    for addr, _ in list(dev.pending):
        dev.complete(addr)
    dev.pending = []


def final_segments(dev):
    segments = []
    for start, size in dev.segments:
        blocks, at = [], start
        inside = sorted(a for a in dev.live if start <= a < start + size)
        for addr in inside:
            if addr > at:
                blocks.append({"address": at, "size": addr - at, "requested_size": 0, "state": "inactive", "frames": []})
            req, stack, pending = dev.live[addr]
            blocks.append({"address": addr, "size": rounded(req), "requested_size": req,
                           "state": "active_pending_free" if pending else "active_allocated", "frames": stack})
            at = addr + rounded(req)
        if at < start + size:
            blocks.append({"address": at, "size": start + size - at, "requested_size": 0, "state": "inactive",
                           "frames": []})
        allocated = sum(b["size"] for b in blocks if b["state"] != "inactive")
        segments.append({"device": dev.index, "address": start, "total_size": size, "allocated_size": allocated,
                         "active_size": allocated, "requested_size": allocated, "stream": 0,
                         "segment_type": "large", "segment_pool_id": (0, 0), "is_expandable": False,
                         "frames": [], "blocks": blocks})
    return segments


def expected_peaks(trace, drop, segments):
    """Plain replay of the full history; positions are counted in the kept tail."""
    live, levels = {}, {"allocated": 0, "active": 0, "reserved": 0}
    best = {k: (-1, None) for k in levels}
    for i, e in enumerate(trace):
        a, addr, size = e["action"], e["addr"], e["size"]
        if a == "alloc":
            live[addr] = [rounded(size), False]
            levels["allocated"] += rounded(size)
            levels["active"] += rounded(size)
        elif a == "free_requested":
            live[addr][1] = True
            levels["allocated"] -= live[addr][0]
        elif a == "free_completed":
            levels["active"] -= live.pop(addr)[0]
        elif a == "segment_alloc":
            levels["reserved"] += size
        if i + 1 < drop:
            continue
        for k, v in levels.items():
            if v > best[k][0]:
                best[k] = (v, None if i + 1 == drop else i - drop)
    return {k: {"bytes": v, "trace_index": idx} for k, (v, idx) in best.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--target-mb", type=float, default=50.0, help="approximate file size")
    ap.add_argument("--devices", type=int, default=1)
    ap.add_argument("--layers", type=int, default=32)
    ap.add_argument("--drop", type=int, default=0, help="drop the first N entries, as a full ring buffer does")
    ap.add_argument("--protocol", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    rng = random.Random(args.seed)
    frames = Frames(rng, args.layers)
    # About 60 bytes of pickle per trace entry once call stacks are shared.
    entries_per_device = int(args.target_mb * MIB / 60 / args.devices)
    devices, expected = [], []
    for d in range(args.devices):
        dev = Device(d, rng, frames, 0x7F0000000000 + d * (1 << 36))
        params = [rng.choice([16, 32, 48]) * MIB for _ in range(args.layers)]
        for layer in range(args.layers):  # parameters, allocated before the loop
            dev.alloc(params[layer], frames.stack("parameter", layer, layer % 3))
        grads = {}
        while len(dev.trace) < entries_per_device:
            training_step(dev, args.layers, params, grads, rng)
        segments = final_segments(dev)
        exp = expected_peaks(dev.trace, args.drop, segments)
        exp["device"] = d
        exp["trace_entries"] = len(dev.trace) - args.drop
        expected.append(exp)
        dev.trace = dev.trace[args.drop:]
        dev.final = segments
        devices.append(dev)

    snapshot = {
        "segments": [s for dev in devices for s in dev.final],
        "device_traces": [dev.trace for dev in devices],
        "allocator_settings": {"PYTORCH_CUDA_ALLOC_CONF": "", "max_split_size": 2**64 - 1,
                               "garbage_collection_threshold": 0.0, "expandable_segments": False,
                               "roundup_power2_divisions": {str(1 << i): 0 for i in range(16)}},
        "external_annotations": [],
    }
    with open(args.out, "wb") as f:
        pickle.dump(snapshot, f, protocol=args.protocol)
    with open(args.out + ".expected.json", "w") as f:
        json.dump({"devices": expected}, f, indent=1)
    print(f"{args.out}: {sum(e['trace_entries'] for e in expected)} trace entries")


if __name__ == "__main__":
    main()
