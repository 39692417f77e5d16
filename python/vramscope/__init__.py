"""vramscope from Python: predict, measure and explain the GPU memory of training jobs.

Every function calls the C++ library in process (the extension module ``_vramscope``) and
returns what the matching command prints with ``--json``, parsed::

    import vramscope
    p = vramscope.plan({"model": "llama-3.1-8b", "parallel": {"strategy": "fsdp2"}})
    p["fits"], p["ranks"][0]["peak"]["reserved"]

A job is a dict (the YAML job spec as Python data), a path to a job YAML, or nothing (the
defaults); keyword arguments override single keys as ``--set`` does: nested dicts
(``training={"seq_len": 4096}``) or ``__`` for the dot (``training__seq_len=4096``).
``vramscope keys`` (or :func:`keys`) lists every key.

Bad input raises :class:`VramscopeError` with the message the command line would print;
warnings (importer notes, validation notes) become Python warnings.
"""

from __future__ import annotations

import json
import os
import tempfile
import warnings
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

from . import _vramscope

__version__ = _vramscope.__version__
__all__ = ["plan", "rank_of", "gpu_of", "compare", "fit", "explain", "inspect", "models", "keys", "run",
           "VramscopeError"]

Job = Union[None, str, os.PathLike, Mapping[str, Any]]


class VramscopeError(RuntimeError):
    """A command failed: bad input (exit code 2) or an environment problem (3)."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


def _expect(name: str, value: Any, kinds: tuple, what: str) -> None:
    """A value of the wrong Python type is bad input like any other (exit code 2)."""
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        raise VramscopeError(
            f"{name}: expected {what}, got {type(value).__name__} {value!r:.60}", 2)


def _paths(name: str, value: Any) -> list:
    """One path or a list of them."""
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    _expect(name, value, (list, tuple), "a path or a list of paths")
    for v in value:
        _expect(name, v, (str, os.PathLike), "a path or a list of paths")
    return [os.fspath(v) for v in value]


def run(*args: str) -> tuple[int, str, str]:
    """Runs ``vramscope ARGS...`` in process: (exit code, stdout, stderr)."""
    code, out, err = _vramscope.run([str(a) for a in args])
    return code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return ",".join(_scalar(v) for v in value)
    return str(value)


def _flatten(data: Mapping[str, Any], prefix: str = "") -> list[str]:
    """{"parallel": {"tp": 2}} -> ["parallel.tp=2"]; keys may use "__" for the dot."""
    items = []
    for key, value in data.items():
        path = prefix + str(key).replace("__", ".")
        if isinstance(value, Mapping):
            items += _flatten(value, path + ".")
        else:
            items.append(f"{path}={_scalar(value)}")
    return items


def _set_args(overrides: Mapping[str, Any]) -> list[str]:
    args = []
    for item in _flatten(overrides):
        args += ["--set", item]
    return args


class _JobFile:
    """The job as a path for the command line. A dict is written as JSON (which YAML reads)
    to a private temporary file for the duration of the call; a model path in it that exists
    relative to the current directory is made absolute first, since the command line reads
    model paths relative to the job file."""

    def __init__(self, job: Job):
        self.job, self.path, self._dir = job, None, None

    def __enter__(self) -> "_JobFile":
        if self.job is None:
            self.job = {}
        _expect("job", self.job, (str, os.PathLike, Mapping), "a path, a dict or None")
        if isinstance(self.job, (str, os.PathLike)):
            self.path = os.fspath(self.job)
            return self
        data = dict(self.job)
        model = data.get("model")
        if isinstance(model, str) and os.path.exists(model):
            data["model"] = os.path.abspath(model)
        self._dir = tempfile.TemporaryDirectory(prefix="vramscope-")
        self.path = os.path.join(self._dir.name, "job.yaml")
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump(data, f)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._dir is not None:
            self._dir.cleanup()

    def clean(self, text: str) -> str:
        """Messages name the job the way the caller gave it."""
        if self._dir is not None and self.path:
            return text.replace(self.path, "<job dict>")
        return text


def _call(args: Sequence[str], ok_codes: Iterable[int] = (0, 1, 4), job: Optional[_JobFile] = None) -> Any:
    code, out, err = run(*args)
    if job is not None:
        err = job.clean(err)
    for line in err.splitlines():
        if line.startswith("warning: "):
            warnings.warn(line[len("warning: "):], stacklevel=3)
    if code not in ok_codes:
        message = "\n".join(l for l in err.splitlines() if not l.startswith("warning: "))
        raise VramscopeError(message or f"vramscope {args[0]} exited with {code}", code)
    return json.loads(out)


def _with_job(command: str, job: Job, extra: Sequence[str], overrides: Mapping[str, Any]) -> Any:
    with _JobFile(job) as holder:
        args = [command, holder.path, "--json", *extra, *_set_args(overrides)]
        return _call(args, job=holder)


def plan(job: Job = None, *, rank: Optional[int] = None, **overrides: Any) -> dict:
    """The prediction of ``vramscope plan --json``: {"job", "fits", "state", "ranks", "gpus",
    "classes", "ranges"}; a job of more than 4,096 ranks has no "ranks" and "gpus", and
    :func:`rank_of` and :func:`gpu_of` read any rank or GPU from its ranges.
    A job that does not fit is an answer, not an error: look at ``["state"]`` ("fits",
    "tight": fits inside the safety margin, or "does_not_fit"); a job that does not fit also
    has ``["whole_step_need"]`` and ``["shortfall"]`` in bytes when they are known."""
    if rank is not None:
        _expect("rank", rank, (int,), "a whole number")
    extra = ["--rank", str(rank)] if rank is not None else []
    return _with_job("plan", job, extra, overrides)


def _range_of(p: Mapping[str, Any], k: int) -> Optional[dict]:
    """The class of rank k from a plan's "ranges", or None. A range holds ranks
    first + j * period + i for j below "times" and i below "count"; one without "period" is
    ranks first to first + count - 1 (docs/formats/plan-json.md)."""
    ranges = p.get("ranges") or []
    lo, hi = 0, len(ranges)
    while lo < hi:  # the ranges that begin at or before k: ranges[:lo]
        mid = (lo + hi) // 2
        if ranges[mid]["first"] <= k:
            lo = mid + 1
        else:
            hi = mid
    # Plain ranges are disjoint and in order: only the last one at or before k may hold it. A
    # folded range interleaves with the others of its node's block: look at every candidate.
    folded = any("period" in r for r in ranges)
    for r in reversed(ranges[:lo] if folded else ranges[max(0, lo - 1):lo]):
        offset = k - r["first"]
        period = r.get("period")
        if period:
            if offset // period < r["times"] and offset % period < r["count"]:
                return p["classes"][r["class"]]
        elif offset < r["count"]:
            return p["classes"][r["class"]]
    return None


def rank_of(p: Mapping[str, Any], k: int) -> Optional[dict]:
    """Rank k of a plan (:func:`plan`'s answer) with its own numbers, from "ranks" or, for a
    job too large to list them, from "classes" and "ranges" (docs/formats/plan-json.md); None
    when the plan has no such rank."""
    _expect("k", k, (int,), "a whole number")
    for r in p.get("ranks", []):
        if r["rank"] == k:
            return r
    c = _range_of(p, k)
    if c is None:
        return None
    r = json.loads(json.dumps(c["rank"]))
    r["gpu"] += k - r["rank"]
    r["rank"] = k
    return r


def gpu_of(p: Mapping[str, Any], k: int) -> Optional[dict]:
    """GPU k of a plan, as :func:`rank_of` finds rank k: from "gpus", or its class's GPU with
    its index, its processes' ranks and the "rank N" of their descriptions moved; None when
    the plan has no such GPU."""
    _expect("k", k, (int,), "a whole number")
    for g in p.get("gpus", []):
        if g["index"] == k:
            return g
    c = _range_of(p, k)
    if c is None:
        return None
    g = json.loads(json.dumps(c["gpu"]))
    shift = k - g["index"]
    g["index"] = k
    for proc in g["processes"]:
        if proc["rank"] < 0:
            continue
        old = f"rank {proc['rank']}"
        what = proc["what"]
        if what.startswith(old) and (len(what) == len(old) or what[len(old)] == ":"):
            proc["what"] = f"rank {proc['rank'] + shift}" + what[len(old):]
        proc["rank"] += shift
    return g


def compare(job: Job = None, *, vary: Union[Mapping[str, Iterable[Any]], Sequence[str]],
            **overrides: Any) -> Any:
    """``vramscope compare --json``: one row per combination of the varied keys.
    ``vary`` maps keys to values ({"parallel.tp": [1, 2, 4]}) or lists "key=v1,v2" items."""
    _expect("vary", vary, (Mapping, list, tuple),
            "a dict of key: values or a list of \"key=v1,v2\"")
    if isinstance(vary, Mapping):
        for k, v in vary.items():
            _expect(f"vary[{k!r}]", v, (list, tuple, range), "a list of values")
    else:
        for item in vary:
            _expect("vary", item, (str,), "a list of \"key=v1,v2\" strings")
    items = vary if not isinstance(vary, Mapping) else [
        f"{k.replace('__', '.')}={_scalar(list(v))}" for k, v in vary.items()]
    extra = []
    for item in items:
        extra += ["--vary", item]
    return _with_job("compare", job, extra, overrides)


def fit(job: Job = None, *args: str, **overrides: Any) -> Any:
    """``vramscope fit JOB --json ARGS...``: the largest setting or the configurations that fit.
    Raises VramscopeError when this build has no ``fit`` command."""
    for a in args:
        _expect("fit argument", a, (str,), "a string")
    return _with_job("fit", job, list(args), overrides)


def explain(job: Job = None, *, recorded: Optional[str] = None, smi: Union[None, str, Sequence[str]] = None,
            stats: Union[None, str, Sequence[str]] = None, oom: Union[None, str, Sequence[str]] = None,
            snapshot: Optional[str] = None, trace: Optional[str] = None, **overrides: Any) -> Any:
    """``vramscope explain --json``: findings with evidence, cause and fix. ``recorded`` is a
    folder written by :mod:`vramscope.torch`; the job (optional) prices the fixes."""
    extra: list[str] = []
    for flag, value in (("--smi", smi), ("--stats", stats), ("--oom", oom)):
        for v in _paths(flag[2:], value):
            extra += [flag, v]
    for flag, value in (("--snapshot", snapshot), ("--trace", trace), ("--recorded", recorded)):
        if value is not None:
            _expect(flag[2:], value, (str, os.PathLike), "a path")
            extra += [flag, os.fspath(value)]
    if job is None:
        return _call(["explain", "--json", *extra, *_set_args(overrides)])
    return _with_job("explain", job, extra, overrides)


def inspect(model: str, *, tensors: bool = False) -> dict:
    """``vramscope inspect MODEL --json``: units, tensors and parameter totals of a preset
    name or a config.json path."""
    _expect("model", model, (str, os.PathLike), "a preset name or a path")
    return _call(["inspect", os.fspath(model), "--json", *(["--tensors"] if tensors else [])])


def models() -> list:
    """The preset catalog (``vramscope models --json``), one dict per preset."""
    return _call(["models", "--json"])["presets"]


def keys() -> list:
    """Every job key with its default and allowed values (``vramscope keys --json``)."""
    return _call(["keys", "--json"])
