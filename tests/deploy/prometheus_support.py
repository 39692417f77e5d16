"""What the tests that run a real Prometheus share: starting and stopping processes, waiting
with a deadline, fake GPU nodes for `vramscope watch` (a fake NVML library and its JSON
configuration), HTTP GETs with a timeout."""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request

GiB = 1024 ** 3
SKIP = 77


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def get(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.headers.get("Content-Type", ""), r.read().decode()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, check, seconds):
    deadline = time.monotonic() + seconds
    last = None
    while time.monotonic() < deadline:
        try:
            got = check()
            if got:
                return got
        except (OSError, ValueError, KeyError) as e:
            last = e
        time.sleep(0.25)
    fail(f"timed out after {seconds} s waiting for {what}" + (f" (last error: {last})" if last else ""))


class Processes:
    """Everything started here, stopped on exit whatever happens."""

    def __init__(self):
        self.started = []

    def start(self, args, **kw):
        p = subprocess.Popen(args, **kw)
        self.started.append(p)
        return p

    def stop(self):
        for p in self.started:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in self.started:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def fake_node(tmp, name, gpus):
    """A fake NVML config: gpus is a list of [(pid, bytes)] per GPU."""
    devices = []
    for i, procs in enumerate(gpus):
        used = sum(b for _, b in procs) + GiB // 2
        devices.append({"name": "NVIDIA H100 80GB HBM3", "uuid": f"GPU-{name}-{i:04d}",
                        "bus_id": f"00000000:{0x18 + i:02X}:00.0", "total": 80 * GiB, "used": used,
                        "free": 80 * GiB - used, "util_gpu": 90, "util_memory": 40,
                        "compute": [{"pid": pid, "used": b} for pid, b in procs]})
    path = os.path.join(tmp, f"{name}-nvml.json")
    with open(path, "w") as f:
        json.dump({"driver": "550.54.15", "devices": devices}, f)
    return path


def start_watch(procs, args, nvml_lib, config, host, stats=None, extra=(), scheme="http"):
    """Starts `vramscope watch` on a fake NVML serving 127.0.0.1:0; returns the port bound."""
    env = dict(os.environ, VRAMSCOPE_NVML_LIBRARY=nvml_lib, VRAMSCOPE_FAKE_NVML_CONFIG=config)
    cmd = [args.vramscope, "watch", "--source", "nvml", "--interval", "250ms",
           "--prometheus", "127.0.0.1:0", "--hostname", host, *extra]
    if stats:
        cmd += ["--stats", stats]
    p = procs.start(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    m = re.search(scheme + r"://127\.0\.0\.1:(\d+)/metrics", line)
    if not m:
        fail(f"watch for {host} did not start: {line!r} {p.stderr.read() if p.poll() is not None else ''}")
    return int(m.group(1))


