"""Measuring memory phase by phase and writing the measurement line.

The four levels are those of docs/design.md: `allocated`, `active` and `reserved` are the peaks of
PyTorch's caching allocator (`torch.cuda.memory_stats()`: allocated_bytes / active_bytes /
reserved_bytes, "all" pools), reset with `torch.cuda.reset_peak_memory_stats()` at the start of
every phase; `device` is what the driver reports for this process, sampled every few
milliseconds by a background thread (NVML through pynvml when installed, else
`torch.cuda.mem_get_info`). Every import of torch happens inside functions.
"""

import contextlib
import datetime
import json
import os
import platform
import sys
import threading
import time

SCHEMA = "vramscope-groundtruth/1"
LEVELS = ("allocated", "active", "reserved", "device")


class DeviceProbe:
    """Bytes on the GPU for this process, with a peak kept by a sampling thread.

    Sources, best first: "nvml-process" (NVML's per-process figure for our pid), "nvml-delta"
    (device used minus what was used before this process touched CUDA), "mem_get_info"
    (device used, everything on the GPU included: other processes, driver reservations).
    `start()` must run before the first CUDA call so the baseline excludes this process.
    """

    def __init__(self, interval_s=0.005, fallback="torch"):
        self.interval_s = interval_s
        self.fallback = fallback  # "torch" (mem_get_info) or "smi" (nvidia-smi, for JAX)
        self.source = None
        self.baseline = 0
        self._nvml = None
        self._handle = None
        self._peak = 0
        self._total_peak = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None

    def start(self):
        try:
            import pynvml
            pynvml.nvmlInit()
            self._nvml = pynvml
            self._handle = pynvml.nvmlDeviceGetHandleByIndex(_nvml_index())
            self.baseline = pynvml.nvmlDeviceGetMemoryInfo(self._handle).used
            self.source = "nvml-delta"
        except Exception:  # pynvml missing or no NVML: fall back to the CUDA runtime
            self._nvml = None
            self.source = "mem_get_info" if self.fallback == "torch" else "nvidia-smi"
            if self.fallback == "smi":
                self.interval_s = max(self.interval_s, 0.2)
                try:
                    self.baseline = _smi_used()
                except Exception:  # no nvidia-smi either: device figures stay 0
                    self.source = None
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def read(self):
        """(this process's bytes, device used bytes) now; 0 before CUDA is initialised."""
        if self._nvml is not None:
            used = self._nvml.nvmlDeviceGetMemoryInfo(self._handle).used
            own = self._own_bytes()
            if own is not None:
                self.source = "nvml-process"
                return own, used
            return max(0, used - self.baseline), used
        if self.fallback == "smi":
            used = _smi_used()
            return max(0, used - self.baseline), used
        import torch
        if not torch.cuda.is_initialized():
            return 0, 0
        free, total = torch.cuda.mem_get_info()
        return total - free, total - free

    def _own_bytes(self):
        try:
            for p in self._nvml.nvmlDeviceGetComputeRunningProcesses(self._handle):
                if p.pid == os.getpid() and p.usedGpuMemory is not None:
                    return int(p.usedGpuMemory)
        except Exception:  # not supported in this container / driver: use the delta
            return None
        return None

    def _run(self):
        while not self._stop.is_set():
            self.sample()
            time.sleep(self.interval_s)

    def sample(self):
        try:
            own, used = self.read()
        except Exception:  # a failed sample is skipped, the next one counts
            return
        with self._lock:
            self._peak = max(self._peak, own)
            self._total_peak = max(self._total_peak, used)

    def take_peak(self):
        """Peak since the last call, then restart the peak from the current value."""
        self.sample()
        with self._lock:
            peak, total = self._peak, self._total_peak
            self._peak, self._total_peak = 0, 0
        self.sample()
        return peak, total

    def stop(self):
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=1)


def _smi_used():
    import subprocess
    out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits",
                          f"--id={_nvml_index()}"], capture_output=True, text=True, check=True)
    return int(out.stdout.strip().splitlines()[0]) * 1024 * 1024


def _nvml_index():
    visible = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return int(visible) if visible.isdigit() else 0


def is_oom(error):
    import torch
    oom_type = getattr(torch.cuda, "OutOfMemoryError", None)
    if oom_type is not None and isinstance(error, oom_type):
        return True
    return isinstance(error, RuntimeError) and "out of memory" in str(error).lower()


class PhaseRecorder:
    """Records the peaks of every phase; the overall peak is the maximum over phases."""

    def __init__(self, probe):
        self.probe = probe
        self.phases = {}
        self.oom_phase = None
        self.oom_message = None

    @contextlib.contextmanager
    def phase(self, name):
        import torch
        if torch.cuda.is_initialized():
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        self.probe.take_peak()
        started = time.monotonic()
        try:
            yield
        except Exception as error:
            if not is_oom(error):
                raise
            self.oom_phase, self.oom_message = name, str(error).splitlines()[0][:500]
            self._record(name, started, oom=True)
            raise
        self._record(name, started)

    def _record(self, name, started, oom=False):
        import torch
        stats = {}
        if torch.cuda.is_initialized():
            if not oom:
                torch.cuda.synchronize()
            stats = torch.cuda.memory_stats()
        device, device_total = self.probe.take_peak()
        self.phases[name] = {
            "allocated": stats.get("allocated_bytes.all.peak", 0),
            "active": stats.get("active_bytes.all.peak", 0),
            "reserved": stats.get("reserved_bytes.all.peak", 0),
            "device": device,
            "device_used_total": device_total,
            "end_allocated": stats.get("allocated_bytes.all.current", 0),
            "end_reserved": stats.get("reserved_bytes.all.current", 0),
            "num_alloc_retries": stats.get("num_alloc_retries", 0),
            "seconds": round(time.monotonic() - started, 3),
        }

    def peak(self):
        return {level: max((p[level] for p in self.phases.values()), default=0)
                for level in LEVELS}

    def steps(self):
        """Peaks per training step ("step1.forward", ... grouped by their "stepN" prefix)."""
        grouped = {}
        for name, p in self.phases.items():
            if name.startswith("step"):
                step = grouped.setdefault(name.split(".")[0], {level: 0 for level in LEVELS})
                for level in LEVELS:
                    step[level] = max(step[level], p[level])
        return [{"step": int(k[4:]), **v} for k, v in grouped.items()]


def torch_env():
    import torch
    env = {"python": platform.python_version(), "torch": torch.__version__,
           "cuda": torch.version.cuda, "host_platform": platform.platform()}
    for name in ("transformers", "peft", "bitsandbytes", "liger_kernel"):
        env[name] = module_version(name)
    if torch.cuda.is_available():
        props = torch.cuda.get_device_properties(0)
        env["gpu"] = props.name
        env["gpu_total_bytes"] = props.total_memory
        env["compute_capability"] = f"{props.major}.{props.minor}"
    env["driver"] = nvml_driver()
    return env


def module_version(name):
    try:
        module = __import__(name)
    except Exception:  # absent or broken: reported as not installed
        return None
    return getattr(module, "__version__", "unknown")


def nvml_driver():
    try:
        import pynvml
        pynvml.nvmlInit()
        version = pynvml.nvmlSystemGetDriverVersion()
        return version.decode() if isinstance(version, bytes) else version
    except Exception:  # no pynvml or no driver: the field stays empty
        return None


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def append_line(path, record):
    """Appends one JSON line (stdout when path is None or "-")."""
    text = json.dumps(record, sort_keys=False, separators=(",", ":")) + "\n"
    if not path or path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)
