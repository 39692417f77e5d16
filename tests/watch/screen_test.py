#!/usr/bin/env python3
"""`vramscope watch` on a real terminal: tmux runs it at 80 x 24 against a fake NVML with eight
GPUs (two processes each), and the test reads the screen back with capture-pane as a person
would look at it. Checks:

  - the page fills the terminal exactly: title on the first row, eight GPU rows, the key line
    on the last row; no line wraps (capture-pane -J joins nothing) and nothing scrolled into
    tmux's history;
  - colour: the GPU at 96 % has a red bar, the one at 25 % a green one;
  - the history column grows with each refresh;
  - keys: s sorts by memory (the fullest GPU first), p hides the processes, q quits with exit
    status 0 and gives the terminal back (alternate screen);
  - a resize to 100 x 30 redraws to the new size;
  - alerts: the most urgent (GPU 7 near its limit) comes first at 80 x 24; at 200 x 50 every
    alert is shown whole, wrapped at spaces;
  - in the "C" locale the page is plain ASCII;
  - with its output piped, watch prints plain text blocks instead.

Exits 77 (skipped) when tmux is not installed, unless VRAMSCOPE_REQUIRE_TMUX=1 (set by
scripts/test.sh, which installs it). Every wait has a deadline; the tmux server runs on a private
socket and is killed at the end.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

GiB = 1024 ** 3
SKIP = 77
FULLEST = 7  # GPU 7 is the fullest; GPU 0 the emptiest


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def nvml_config(path):
    devices, names = [], {}
    for i in range(8):
        used = [20, 24, 28, 32, 36, 44, 56, 77][i] * GiB  # 25 % .. 96 % of 80 GiB
        devices.append({
            "name": "NVIDIA H100 80GB HBM3", "uuid": f"GPU-{i:08d}-0000-0000-0000-000000000000",
            "bus_id": f"00000000:{i + 1:02X}:00.0", "total": 80 * GiB, "used": used,
            "free": 80 * GiB - used, "util_gpu": 40 + 7 * i, "util_memory": 20,
            "compute": [{"pid": 4000 + i, "used": used - GiB}, {"pid": 5000 + i, "used": GiB // 2}],
        })
        names[str(4000 + i)] = "/usr/bin/python3"
        names[str(5000 + i)] = "nvtop"
    with open(path, "w") as f:
        json.dump({"driver": "550.54.15", "process_names": names, "devices": devices}, f)


class Tmux:
    def __init__(self, socket):
        self.socket = socket

    def run(self, *args, check=True):
        r = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True,
                           timeout=20)
        if check and r.returncode != 0:
            fail(f"tmux {' '.join(args)}: {r.stderr.strip()}")
        return r.stdout

    def lines(self, *flags):
        text = self.run("capture-pane", "-p", *flags)
        return text.split("\n")[:-1] if text.endswith("\n") else text.split("\n")

    def show(self, fmt):
        return self.run("display-message", "-p", fmt).strip()

    def wait_for(self, what, check, seconds=10):
        deadline = time.monotonic() + seconds
        lines = []
        while time.monotonic() < deadline:
            lines = self.lines()
            if check(lines):
                return lines
            time.sleep(0.1)
        fail(f"{what}: not seen within {seconds} s; the screen was:\n" + "\n".join(lines))


def check_page(tmux, width, height, what):
    lines = tmux.lines()
    joined = tmux.lines("-J")
    if len(lines) != height:
        fail(f"{what}: {len(lines)} rows captured, expected {height}")
    for i, line in enumerate(lines):
        if len(line) > width:
            fail(f"{what}: row {i + 1} is {len(line)} columns wide: {line!r}")
    # -J joins a wrapped row with the next one: a wrap shows as fewer rows. (The rows' text is not
    # compared: the screen may redraw between the two captures.)
    if len(joined) != height:
        fail(f"{what}: a line wrapped (capture-pane -J gave {len(joined)} rows for {height})")
    if tmux.show("#{history_size}") != "0":
        fail(f"{what}: the screen scrolled ({tmux.show('#{history_size}')} lines of history)")
    if not lines[0].startswith(" vramscope watch  "):
        fail(f"{what}: the title is not on the first row: {lines[0]!r}")
    if not lines[-1].startswith(" q quit  s sort: "):
        fail(f"{what}: the key line is not on the last row: {lines[-1]!r}")
    return lines


def strip_sgr(line):
    return re.sub(r"\x1b\[[0-9;]*m", "", line)


def gpu_rows(lines):
    return [l for l in lines if re.match(r"^\d   H100 80GB HBM3 ", l)]


def alert_lines(lines):
    """The alert rows: "! [kind] ..." and their indented continuations."""
    out = []
    for line in lines:
        if line.startswith("! [") or (out and line.startswith("    ")):
            out.append(line.rstrip())
        elif out:
            break
    return out


def history_of(row):
    return row.split()[-1]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--vramscope", required=True)
    parser.add_argument("--fake-nvml", required=True)
    args = parser.parse_args()
    if shutil.which("tmux") is None:
        if os.environ.get("VRAMSCOPE_REQUIRE_TMUX") == "1":
            fail("tmux is not installed (scripts/install-deps.sh installs it)")
        print("skipped: tmux is not installed")
        return SKIP

    work = tempfile.mkdtemp(prefix="vramscope-screen-")
    servers = []
    try:
        config = os.path.join(work, "nvml.json")
        nvml_config(config)
        env = (f"env VRAMSCOPE_NVML_LIBRARY={args.fake_nvml} VRAMSCOPE_FAKE_NVML_CONFIG={config} "
               f"TERM=screen")

        def start(locale, width=80, height=24):
            status = os.path.join(work, f"status-{locale}")
            command = (f"{env} LANG={locale} LC_ALL={locale} {args.vramscope} watch "
                       f"--interval 200ms; echo $? > {status}; echo EXIT; sleep 60")
            # A server of its own for each run, on a private socket.
            servers.append(Tmux(f"vramscope-test-{os.getpid()}-{len(servers)}"))
            servers[-1].run("-f", "/dev/null", "new-session", "-d", "-x", str(width), "-y",
                            str(height), command)
            return servers[-1], status

        # --- UTF-8: bars in block characters, colours, keys, resize, quit.
        tmux, status = start("C.UTF-8")
        tmux.wait_for("eight GPU rows", lambda l: len(gpu_rows(l)) == 8)
        lines = check_page(tmux, 80, 24, "80 x 24")
        rows = gpu_rows(lines)
        if [r[0] for r in rows] != [str(i) for i in range(8)]:
            fail(f"GPUs not in index order: {[r[0] for r in rows]}")
        if "█" not in rows[FULLEST] or "·" not in rows[0]:
            fail(f"no block-character bars: {rows[0]!r} / {rows[FULLEST]!r}")
        if not any(l.startswith("GPU PID      RANK   NAME") for l in lines):
            fail("no process rows at 80 x 24")
        coloured = {strip_sgr(l)[:1]: l for l in tmux.lines("-e") if re.match(r"^\d   H100", strip_sgr(l))}
        if not re.search(r"\x1b\[31m█", coloured[str(FULLEST)]):
            fail(f"the GPU at 96 % has no red bar: {coloured[str(FULLEST)]!r}")
        if not re.search(r"\x1b\[32m█", coloured["0"]):
            fail(f"the GPU at 25 % has no green bar: {coloured['0']!r}")

        # The most urgent alert first: GPU 7 at 96 % of its memory, before the GPUs that hold
        # another rank's context (those come first by GPU index).
        alerts = alert_lines(lines)
        if not alerts or not alerts[0].startswith(f"! [near_limit] GPU {FULLEST} "):
            fail(f"the near-limit alert of GPU {FULLEST} is not the first at 80 x 24: {alerts}")

        first = len(history_of(rows[0]))
        tmux.wait_for("a longer history", lambda l: len(gpu_rows(l)) == 8
                      and len(history_of(gpu_rows(l)[0])) >= first + 3)

        tmux.run("send-keys", "s")
        lines = tmux.wait_for("sort by memory", lambda l: "sort: memory" in l[-1])
        if gpu_rows(lines)[0][0] != str(FULLEST):
            fail(f"sorted by memory, the first GPU is {gpu_rows(lines)[0][0]}")
        check_page(tmux, 80, 24, "after s")

        tmux.run("send-keys", "p")
        lines = tmux.wait_for("processes hidden", lambda l: "processes (off)" in l[-1])
        if any(l.startswith("GPU PID") for l in lines):
            fail("p did not hide the process rows")

        tmux.run("resize-window", "-x", "100", "-y", "30")
        tmux.wait_for("a redraw at 100 x 30", lambda l: len(l) == 30 and l[-1].startswith(" q quit"))
        check_page(tmux, 100, 30, "100 x 30")

        tmux.run("send-keys", "q")
        lines = tmux.wait_for("watch to quit", lambda l: any(x.strip() == "EXIT" for x in l))
        with open(status) as f:
            if f.read().strip() != "0":
                fail("watch did not exit with status 0 after q")
        if any("vramscope watch" in l for l in lines):
            fail("the terminal was not given back: the page is still on the screen")

        # --- 200 x 50: every alert whole, wrapped at spaces, most urgent first.
        tmux, _ = start("C.UTF-8", 200, 50)
        tmux.wait_for("eight GPU rows at 200 x 50", lambda l: len(gpu_rows(l)) == 8)
        lines = check_page(tmux, 200, 50, "200 x 50")
        alerts = alert_lines(lines)
        if not alerts or not alerts[0].startswith(f"! [near_limit] GPU {FULLEST} "):
            fail(f"the near-limit alert is not the first at 200 x 50: {alerts}")
        if "alert" in lines[-1]:
            fail(f"alerts left out at 200 x 50 with rows to spare: {lines[-1]!r}")
        # Each alert's message, as `watch --once --json` gives it, is on the screen whole once
        # the wrapped rows are joined at their indent.
        once = subprocess.run(
            [args.vramscope, "watch", "--once", "--json"],
            env=dict(os.environ, VRAMSCOPE_NVML_LIBRARY=args.fake_nvml,
                     VRAMSCOPE_FAKE_NVML_CONFIG=config),
            capture_output=True, text=True, timeout=30)
        expected = [a["message"] for a in json.loads(once.stdout)["alerts"]]
        joined = " ".join(l[4:] if l.startswith("    ") else "\n" + l for l in alerts)
        if len(expected) < 2 or any(m not in joined for m in expected):
            fail(f"alerts cut or missing at 200 x 50: expected {expected}, the screen had {alerts}")
        tmux.run("send-keys", "q")
        tmux.wait_for("watch to quit", lambda l: any(x.strip() == "EXIT" for x in l))

        # --- The "C" locale: ASCII only.
        tmux, _ = start("C")
        lines = tmux.wait_for("eight GPU rows in ASCII", lambda l: len(gpu_rows(l)) == 8)
        lines = check_page(tmux, 80, 24, "80 x 24, C locale")
        bad = [l for l in lines if any(ord(c) > 126 for c in l)]
        if bad:
            fail(f"non-ASCII characters in the C locale: {bad[0]!r}")
        if "#" not in gpu_rows(lines)[FULLEST]:
            fail(f"no ASCII bar: {gpu_rows(lines)[FULLEST]!r}")
        tmux.run("send-keys", "q")
        tmux.wait_for("watch to quit", lambda l: any(x.strip() == "EXIT" for x in l))

        # --- Not a terminal: plain text blocks.
        piped = subprocess.run(
            [args.vramscope, "watch", "--interval", "100ms", "--count", "2"],
            env=dict(os.environ, VRAMSCOPE_NVML_LIBRARY=args.fake_nvml,
                     VRAMSCOPE_FAKE_NVML_CONFIG=config, TERM="screen"),
            capture_output=True, text=True, timeout=30)
        if piped.returncode != 0:
            fail(f"piped watch exited {piped.returncode}: {piped.stderr}")
        if piped.stdout.count("GPU  NAME") != 2 or "\x1b" in piped.stdout:
            fail(f"piped watch did not print two plain blocks:\n{piped.stdout}")
        print("screen: 80 x 24 with 8 GPUs, keys s/p/q, resize to 100 x 30, ASCII and piped: ok")
        return 0
    finally:
        for server in servers:
            server.run("kill-server", check=False)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
