#!/usr/bin/env python3
"""The HTML reports as a person sees them: every example job (examples/*.yaml and the five cases)
is planned to an HTML report, and `compare --html` and `fit --html` (both modes) are written for
the 8B example; headless Chromium (Debian's `chromium`) opens each from disk. The test fails when
Chromium reports an error on a page, when the drawn elements are missing from the DOM it
rendered, or when a screenshot comes out blank.

Exits 77 (skipped) without chromium, unless VRAMSCOPE_REQUIRE_CHROMIUM=1 (set by
scripts/test.sh, which installs it). --screenshots DIR keeps the PNGs.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def chromium(binary, *args, timeout=60):
    base = [binary, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--allow-file-access-from-files", "--enable-logging=stderr", "--v=0"]
    return subprocess.run(base + list(args), capture_output=True, text=True, timeout=timeout)


def open_in_chromium(binary, page, name):
    """The DOM Chromium rendered from `page`; fails on a console error."""
    dom = chromium(binary, "--dump-dom", "file://" + page)
    if dom.returncode != 0:
        fail(f"chromium could not open {page}: {dom.stderr[-2000:]}")
    errors = [l for l in dom.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    if errors:
        fail(f"{name}: errors on the page: {errors}")
    return dom.stdout


def screenshot(binary, page, name, folder):
    os.makedirs(folder, exist_ok=True)
    shot = os.path.join(folder, name + ".png")
    s = chromium(binary, "--window-size=1240,1400", "--screenshot=" + shot, "file://" + page)
    if s.returncode != 0 or not os.path.exists(shot) or os.path.getsize(shot) < 20000:
        fail(f"{name}: the screenshot is missing or blank ({s.stderr[-500:]})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vramscope", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--screenshots")
    args = ap.parse_args()
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if not binary:
        if os.environ.get("VRAMSCOPE_REQUIRE_CHROMIUM") == "1":
            fail("chromium is not installed (Debian package chromium)")
        print("SKIP: chromium is not installed (Debian package chromium)")
        return SKIP
    jobs = sorted(glob.glob(os.path.join(args.examples, "*.yaml")) +
                  glob.glob(os.path.join(args.examples, "cases", "*", "job*.yaml")))
    if len(jobs) < 8:
        fail(f"expected the examples and the five cases, found {jobs}")
    tmp = tempfile.mkdtemp(prefix="vramscope-html-")
    rendered = {}

    def html_of(name):
        return rendered[name]

    def render(name, command, elements):
        """Writes the page of `command --html`, opens it, checks its verdict and the drawn
        `elements` (tag prefix, minimum count), and takes the screenshot. Returns the exit code
        and the verdict's (class, text)."""
        page = os.path.join(tmp, name + ".html")
        r = subprocess.run([args.vramscope] + command + ["--html", page], capture_output=True,
                           text=True, timeout=300)
        if r.returncode not in (0, 1, 4) or not os.path.exists(page):
            fail(f"{' '.join(command)} --html: exit {r.returncode}: {r.stderr}")
        html = open_in_chromium(binary, page, name)
        verdict = re.search(r'<p class="verdict (fits|tight|nofit)">([^<]+)', html)
        if not verdict:
            fail(f"{name}: no verdict in the rendered page")
        for element, minimum in elements:
            if html.count(element) < minimum:
                fail(f"{name}: expected at least {minimum} {element} in the rendered DOM")
        screenshot(binary, page, name, args.screenshots or tmp)
        rendered[name] = html
        print(f"ok {name}: {verdict.group(2)}")
        return r.returncode, verdict.groups()

    try:
        for job in jobs:
            name = os.path.relpath(job, args.examples).replace(os.sep, "_").removesuffix(".yaml")
            code, (kind, text) = render(name, ["plan", job], (
                ('<div class="gpus"', 1), ('<rect class="process"', 1), ('<line class="capacity"', 1),
                ('<svg class="breakdown"', 1), ('<rect class="part"', 2),
                ('<polyline class="allocated"', 1), ('<polyline class="reserved"', 1),
                ('<rect class="phase"', 2)))
            if {"fits": 0, "tight": 4, "nofit": 1}[kind] != code:
                fail(f"{name}: the page says {text!r} but plan exited {code}")
            if code == 1 and '<g class="need"' not in html_of(name):
                fail(f"{name}: the job does not fit but the page does not draw what it needs")
        # The timelines' script: it drew the event axis on every plot; opened as #exercise it
        # zoomed the first plot (a scale above 1) and showed the levels at the pointer.
        example = os.path.join(args.examples, "llama-3.1-8b-fsdp2.yaml")
        dom = rendered["llama-3.1-8b-fsdp2"]
        if dom.count('class="tick"') < 5 or '<g class="x-axis">' not in dom:
            fail("the timeline script did not draw the event axis")
        page = os.path.join(tmp, "llama-3.1-8b-fsdp2.html")
        exercised = chromium(binary, "--dump-dom", "file://" + page + "#exercise")
        zoom = re.search(r'<g class="zoomed" transform="translate\([^,]+,0\) scale\(([0-9.]+),1\)"',
                         exercised.stdout)
        if not zoom or float(zoom.group(1)) <= 1.5:
            fail(f"the wheel did not zoom the timeline: {zoom and zoom.group(0)}")
        if not re.search(r'<g class="tip" visibility="visible"[^>]*>.*?allocated \d', exercised.stdout,
                         re.S):
            fail("hovering the timeline did not show the levels at the pointer")
        # ... and what is live there, by category, with sizes (the 8B step's middle holds its
        # parameter shards at least).
        tip = re.search(r'<g class="tip" visibility="visible"[^>]*>(.*?)</g>', exercised.stdout, re.S)
        if not tip or "live tensors:" not in tip.group(1) or \
                not re.search(r'parameters \d+(\.\d+)? (B|KiB|MiB|GiB)', tip.group(1)):
            fail(f"hovering the timeline did not show the live tensors by category: "
                 f"{tip and tip.group(1)[:400]}")
        # Two widths: the page follows the window (the drawings scale down, nothing is cut).
        for width in (1240, 640):
            shot = os.path.join(args.screenshots or tmp, f"plan-8b-{width}.png")
            s = chromium(binary, f"--window-size={width},1400", "--screenshot=" + shot,
                         "file://" + page)
            if s.returncode != 0 or not os.path.exists(shot) or os.path.getsize(shot) < 20000:
                fail(f"plan page at {width} px: the screenshot is missing or blank")
        sweep = (('<svg class="sweep"', 1), ('<rect class="row', 3), ('<line class="capacity"', 1),
                 ('<table class="rows"', 1))
        render("compare", ["compare", example, "--vary", "training.micro_batch=1..5",
                           "--vary", "training.activation_checkpointing=full,selective"], sweep)
        render("fit", ["fit", example], sweep)
        render("fit-try", ["fit", example, "--try", "parallel.strategy=fsdp2,zero3,fsdp1",
                           "--try", "training.micro_batch=1..4"], sweep)
        # explain --html of case 2: the eight ranks' memory_stats and the job.
        case2 = os.path.join(args.examples, "cases", "2-fsdp1-meta-init")
        stats = sorted(glob.glob(os.path.join(case2, "memory_stats_rank*.json")))
        render("explain-case2", ["explain", os.path.join(case2, "job.yaml"), "--stats"] + stats,
               (('<section class="finding', 1), ('<svg class="savings"', 1),
                ('<rect class="saving"', 1)))
        # snapshot --html of the snapshot measured on an H100 (torch 2.11): timeline, the largest
        # allocations at the peak and the segment map.
        pickle = os.path.join(args.examples, os.pardir, "tests", "data", "observe", "h100_torch211",
                              "snapshot.pickle")
        render("snapshot-h100", ["snapshot", pickle],
               (('<polyline class="allocated"', 1), ('<polyline class="reserved"', 1),
                ('<line class="peak"', 1), ('<table class="allocations"', 1),
                ('<g class="segment"', 30)))
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
