"""Helpers for training scripts: record what PyTorch's caching allocator saw on each rank, in
a folder that ``vramscope explain --recorded DIR`` (or ``vramscope.explain(recorded=DIR)``)
reads, and callbacks for the Hugging Face ``Trainer`` and Lightning that check the plan at the
start and log every rank's peak at the end.

torch, transformers and lightning are imported only when a recorder or callback is used, so
``import vramscope.torch`` works without them.

The folder holds, per rank R (docs/python.md):

    memory_stats_rankR.json   {"rank": R, "device": D, "stats": torch.cuda.memory_stats(D)},
                              rewritten at every step(), so it holds the run's peaks
    snapshot_rankR.pickle     torch.cuda.memory._dump_snapshot() when the allocated peak grew,
                              and at an out-of-memory error
    oom_rankR.log             the out-of-memory message, each line prefixed "[rankR]: "
"""

from __future__ import annotations

import json
import logging
import os
import time
import warnings
from typing import Any, Optional

log = logging.getLogger("vramscope")


def _import_torch() -> Any:
    import torch  # noqa: PLC0415 (lazy on purpose)

    return torch


def _env_rank() -> Optional[int]:
    for name in ("RANK", "SLURM_PROCID", "LOCAL_RANK"):
        if os.environ.get(name, "").isdigit():
            return int(os.environ[name])
    return None


_warned_no_cuda = False


def _has_cuda(torch: Any) -> bool:
    """Whether torch can reach a CUDA GPU: False for a CPU-only build or a machine without one
    (``torch.cuda.is_available()``), where every ``torch.cuda`` call would raise."""
    cuda = getattr(torch, "cuda", None)
    available = getattr(cuda, "is_available", None)
    return cuda is not None and (available is None or bool(available()))


def _warn_no_cuda() -> None:
    """One warning per process, however many recorders and callbacks find no GPU."""
    global _warned_no_cuda
    if not _warned_no_cuda:
        _warned_no_cuda = True
        warnings.warn("vramscope: torch has no CUDA device here (a CPU-only build or no GPU); "
                      "the memory recorder records nothing", RuntimeWarning, stacklevel=3)


def _is_oom(torch: Any, exc: BaseException) -> bool:
    oom_type = getattr(getattr(torch, "cuda", None), "OutOfMemoryError", None)
    return (oom_type is not None and isinstance(exc, oom_type)) or "out of memory" in str(exc)


class MemoryRecorder:
    """Records this rank's allocator statistics into ``folder``.

    ``snapshot`` is "peak" (dump a snapshot whenever the allocated peak grew since the last
    dump, at most once per ``min_snapshot_interval_s``, and at an OOM), "oom" (only at an OOM)
    or None (never; no allocation history is recorded). Snapshots need
    ``torch.cuda.memory._record_memory_history``, which start() turns on with ``max_entries``.

    Use as a context manager around the training loop and call step() after each step::

        with MemoryRecorder("vram") as rec:
            for batch in loader:
                train_step(batch)
                rec.step()

    An out-of-memory error leaving the block is recorded and raised again. ``torch_module``
    replaces ``import torch`` (tests pass a stand-in).

    Where torch has no CUDA device (a CPU-only build, a CPU smoke run of the training script),
    the recorder warns once and does nothing: step() returns {} and no file is written.
    """

    def __init__(self, folder: str | os.PathLike, *, rank: Optional[int] = None,
                 device: Optional[int] = None, snapshot: Optional[str] = "peak",
                 max_entries: int = 100_000, min_snapshot_interval_s: float = 30.0,
                 torch_module: Any = None):
        if snapshot not in ("peak", "oom", None):
            raise ValueError(f'snapshot must be "peak", "oom" or None, not {snapshot!r}')
        self.folder = os.fspath(folder)
        self._torch = torch_module
        self.rank = rank
        self.device = device
        self.snapshot = snapshot
        self.max_entries = max_entries
        self.min_snapshot_interval_s = min_snapshot_interval_s
        self.peak_allocated = 0
        self.peak_reserved = 0
        self._snapshot_peak = 0
        self._last_snapshot = float("-inf")
        self._started = False
        self.disabled = False  # set by start() where torch has no CUDA device

    # -- where -----------------------------------------------------------------------------

    @property
    def torch(self) -> Any:
        if self._torch is None:
            self._torch = _import_torch()
        return self._torch

    def _resolve(self) -> None:
        torch = self.torch
        if self.rank is None:
            dist = getattr(torch, "distributed", None)
            if dist is not None and dist.is_available() and dist.is_initialized():
                self.rank = dist.get_rank()
            else:
                self.rank = _env_rank() or 0
        if self.device is None and not self.disabled:
            self.device = torch.cuda.current_device()

    def path(self, kind: str) -> str:
        suffix = {"memory_stats": "json", "snapshot": "pickle", "oom": "log"}[kind]
        return os.path.join(self.folder, f"{kind}_rank{self.rank}.{suffix}")

    # -- recording -------------------------------------------------------------------------

    def start(self) -> "MemoryRecorder":
        if not _has_cuda(self.torch):
            self.disabled = True
            _warn_no_cuda()
        self._resolve()
        self._started = True
        if self.disabled:
            return self
        os.makedirs(self.folder, exist_ok=True)
        if self.snapshot is not None:
            self.torch.cuda.memory._record_memory_history(max_entries=self.max_entries)
        self._started = True
        return self

    def step(self) -> dict:
        """Writes the current memory_stats() and, in "peak" mode, a snapshot when the
        allocated peak grew. Returns the statistics."""
        if not self._started:
            self.start()
        if self.disabled:
            return {}
        stats = dict(self.torch.cuda.memory_stats(self.device))
        self.peak_allocated = max(self.peak_allocated, int(stats.get("allocated_bytes.all.peak", 0)))
        self.peak_reserved = max(self.peak_reserved, int(stats.get("reserved_bytes.all.peak", 0)))
        self._write_json(self.path("memory_stats"),
                         {"rank": self.rank, "device": self.device, "stats": stats})
        now = time.monotonic()
        if (self.snapshot == "peak" and self.peak_allocated > self._snapshot_peak
                and now - self._last_snapshot >= self.min_snapshot_interval_s):
            self._dump_snapshot()
            self._snapshot_peak, self._last_snapshot = self.peak_allocated, now
        return stats

    def record_oom(self, exc: BaseException) -> None:
        """Writes the OOM message, the statistics and (unless snapshot is None) a snapshot."""
        if not self._started:
            self.start()
        if self.disabled:
            return
        lines = str(exc).splitlines() or [repr(exc)]
        name = type(exc).__module__ + "." + type(exc).__name__ if type(exc).__module__ != "builtins" else type(exc).__name__
        lines[0] = f"{name}: {lines[0]}"
        with open(self.path("oom"), "a", encoding="utf-8") as f:
            f.writelines(f"[rank{self.rank}]: {line}\n" for line in lines)
        self.step()
        if self.snapshot is not None:
            self._dump_snapshot()

    def close(self) -> None:
        if self._started and self.snapshot is not None and not self.disabled:
            self.torch.cuda.memory._record_memory_history(enabled=None)
        self._started = False

    def __enter__(self) -> "MemoryRecorder":
        return self.start()

    def __exit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> bool:
        try:
            if exc is not None and _is_oom(self.torch, exc):
                self.record_oom(exc)
            elif self._started:
                self.step()
        finally:
            self.close()
        return False

    def _dump_snapshot(self) -> None:
        # Written beside and renamed, so a reader never sees half a pickle.
        final = self.path("snapshot")
        self.torch.cuda.memory._dump_snapshot(final + ".tmp")
        os.replace(final + ".tmp", final)

    @staticmethod
    def _write_json(path: str, data: dict) -> None:
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
        os.replace(path + ".tmp", path)


class _Tracker:
    """What both callbacks do: plan check at the start, a recorder step after each training
    step, the OOM on an exception, and the per-rank peaks at the end."""

    def __init__(self, folder: str, job: Any, overrides: dict, fail_if_not_fits: bool,
                 recorder_options: dict):
        self.recorder = MemoryRecorder(folder, **recorder_options)
        self.job, self.overrides, self.fail_if_not_fits = job, overrides, fail_if_not_fits
        self.predicted: Optional[dict] = None

    def begin(self) -> None:
        if self.job is not None or self.overrides:
            from . import plan  # noqa: PLC0415

            self.predicted = plan(self.job, **self.overrides)
            ranks = self.predicted.get("ranks")  # absent for a job of more than 4,096 ranks
            if ranks is None:
                ranks = [c["rank"] for c in self.predicted.get("classes", [])]
            peak = max((r["peak"]["device"] for r in ranks), default=0)
            message = f"vramscope: plan predicts {peak / 2**30:.2f} GiB per GPU at the peak"
            tight = self.predicted.get("state") == "tight"
            if not self.predicted["fits"]:
                message += " and does NOT fit"
                if self.fail_if_not_fits:
                    raise RuntimeError(message + "; run `vramscope plan` for the breakdown")
            elif tight:
                message += (" and fits only inside the safety margin (tight): "
                            + self.predicted.get("margin_reason", ""))
            log.warning(message) if not self.predicted["fits"] or tight else log.info(message)
        self.recorder.start()

    def step(self) -> None:
        self.recorder.step()

    def exception(self, exc: BaseException) -> None:
        if _is_oom(self.recorder.torch, exc):
            self.recorder.record_oom(exc)

    def end(self) -> str:
        self.recorder.step()
        self.recorder.close()
        if self.recorder.disabled:
            line = "vramscope: no CUDA device; nothing was recorded"
            log.info(line)
            return line
        line = (f"vramscope: rank {self.recorder.rank} peak allocated "
                f"{self.recorder.peak_allocated / 2**30:.2f} GiB, reserved "
                f"{self.recorder.peak_reserved / 2**30:.2f} GiB")
        if self.predicted is not None:
            from . import rank_of  # noqa: PLC0415

            mine = rank_of(self.predicted, self.recorder.rank)
            if mine is not None:
                line += f" (planned reserved {mine['peak']['reserved'] / 2**30:.2f} GiB)"
        log.info(line)
        return line


def hf_callback(folder: str = "vramscope", job: Any = None, *, fail_if_not_fits: bool = False,
                overrides: Optional[dict] = None, **recorder_options: Any) -> Any:
    """A ``transformers.TrainerCallback``: plans ``job`` (dict, YAML path; None to skip) when
    training begins, records memory after every step into ``folder`` and logs this rank's
    peaks when it ends. ``trainer.add_callback(vramscope.torch.hf_callback("vram", "job.yaml"))``."""
    try:
        from transformers import TrainerCallback as base  # noqa: PLC0415
    except ImportError:  # duck-typed: the Trainer calls the methods by name
        base = object

    class VramscopeTrainerCallback(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            self.tracker = _Tracker(folder, job, overrides or {}, fail_if_not_fits, recorder_options)

        def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            self.tracker.begin()

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            self.tracker.step()

        def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            self.tracker.end()

    return VramscopeTrainerCallback()


def lightning_callback(folder: str = "vramscope", job: Any = None, *,
                       fail_if_not_fits: bool = False, overrides: Optional[dict] = None,
                       **recorder_options: Any) -> Any:
    """A Lightning ``Callback`` doing what hf_callback does, plus recording an OOM raised
    inside ``fit`` (``on_exception``). ``Trainer(callbacks=[vramscope.torch.lightning_callback()])``."""
    base: Any = object
    for module in ("lightning.pytorch", "pytorch_lightning"):
        try:
            base = __import__(module, fromlist=["Callback"]).Callback
            break
        except ImportError:
            continue

    class VramscopeLightningCallback(base):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            self.tracker = _Tracker(folder, job, overrides or {}, fail_if_not_fits, recorder_options)

        def on_fit_start(self, trainer: Any, pl_module: Any) -> None:
            self.tracker.begin()

        def on_train_batch_end(self, trainer: Any, pl_module: Any, *args: Any, **kwargs: Any) -> None:
            self.tracker.step()

        def on_exception(self, trainer: Any, pl_module: Any, exception: BaseException) -> None:
            self.tracker.exception(exception)

        def on_fit_end(self, trainer: Any, pl_module: Any) -> None:
            self.tracker.end()

    return VramscopeLightningCallback()
