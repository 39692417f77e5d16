#!/usr/bin/env python3
"""The deploy/ folder against real programs: two `vramscope watch` processes stand for two GPU
nodes (a fake NVML library answers for their GPUs, real `sleep` processes with RANK in their
environment stand for the ranks), and Debian's Prometheus scrapes both on 127.0.0.1 with the
shipped alert rules. Checks:

  - GET / links /metrics; /metrics carries dcgm-exporter's labels (Hostname, UUID, modelName);
  - every vramscope_* metric the alert rules and the Grafana dashboard query is exported, and
    every dashboard query is valid PromQL that returns data;
  - promtool accepts the configuration and the rules, and the rules' unit tests pass;
  - Prometheus scrapes both nodes and fires the rank-imbalance alert (a rank on one node far
    above the ranks of the other) and the allocator alert (from `watch --stats`).

Exits 77 (skipped) when Prometheus or promtool is not installed, unless
VRAMSCOPE_REQUIRE_PROMETHEUS=1 (set by scripts/test.sh, which installs them). Bounded in time:
every wait gives up after a deadline and every process it started is stopped at the end.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

from prometheus_support import (GiB, SKIP, Processes, fail, fake_node, free_port, get,
                                start_watch, wait_for)


def metric_names(exposition):
    return {line.split("{")[0].split(" ")[0] for line in exposition.splitlines()
            if line and not line.startswith("#")}


def queried_names(text):
    return set(re.findall(r"\bvramscope_[a-z0-9_]+", text))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vramscope", required=True)
    ap.add_argument("--fake-nvml", required=True)
    ap.add_argument("--deploy", required=True)
    args = ap.parse_args()
    args.deploy = os.path.abspath(args.deploy)
    required = os.environ.get("VRAMSCOPE_REQUIRE_PROMETHEUS") == "1"
    prometheus, promtool = shutil.which("prometheus"), shutil.which("promtool")
    if not (prometheus and promtool):
        message = "prometheus and promtool are not installed (Debian package prometheus)"
        if required:
            fail(message)
        print(f"SKIP: {message}")
        return SKIP

    rules = os.path.join(args.deploy, "prometheus", "vramscope-rules.yml")
    for cmd in (["check", "rules", rules],
                ["check", "config", os.path.join(args.deploy, "prometheus", "prometheus.yml")],
                ["test", "rules", os.path.join(args.deploy, "prometheus", "vramscope-rules.test.yml")]):
        r = subprocess.run([promtool, *cmd], capture_output=True, text=True, timeout=60,
                           cwd=os.path.join(args.deploy, "prometheus"))
        if r.returncode != 0:
            fail(f"promtool {' '.join(cmd)}:\n{r.stdout}{r.stderr}")

    procs = Processes()
    tmp = tempfile.mkdtemp(prefix="vramscope-prometheus-")
    try:
        # Four ranks on two nodes; rank 3 holds twice what the others hold.
        ranks = [procs.start(["sleep", "300"], env=dict(os.environ, RANK=str(r), LOCAL_RANK=str(r % 2),
                                                        WORLD_SIZE="4"))
                 for r in range(4)]
        node_a = fake_node(tmp, "node-a", [[(ranks[0].pid, 20 * GiB)], [(ranks[1].pid, 20 * GiB)]])
        node_b = fake_node(tmp, "node-b", [[(ranks[2].pid, 20 * GiB)], [(ranks[3].pid, 40 * GiB)]])
        stats = os.path.join(tmp, "stats-b")
        os.mkdir(stats)
        for rank, allocated, reserved in ((2, 18 * GiB, 19 * GiB), (3, 30 * GiB, 38 * GiB)):
            figures = {"allocated_bytes.all.current": allocated - GiB, "allocated_bytes.all.peak": allocated,
                       "reserved_bytes.all.current": reserved, "reserved_bytes.all.peak": reserved,
                       "active_bytes.all.current": allocated - GiB, "num_alloc_retries": 0, "num_ooms": 0}
            with open(os.path.join(stats, f"rank{rank}.json"), "w") as f:
                json.dump(figures, f)
        with open(os.path.join(stats, "rank9.json"), "w") as f:
            f.write('{"allocated_bytes.all.current": 12')  # a writer caught mid-file
        port_a = start_watch(procs, args, args.fake_nvml, node_a, "node-a")
        port_b = start_watch(procs, args, args.fake_nvml, node_b, "node-b", stats)

        status, ctype, page = get(f"http://127.0.0.1:{port_a}/")
        if status != 200 or "text/html" not in ctype or 'href="/metrics"' not in page:
            fail(f"GET / should be an HTML page linking /metrics, got {status} {ctype}: {page[:200]}")
        _, _, text_a = wait_for("node-a's first sample", lambda: (lambda r: r if "vramscope_gpu_memory_used_bytes{" in r[2] else None)(
            get(f"http://127.0.0.1:{port_a}/metrics")), 20)
        _, _, text_b = wait_for("node-b's first sample", lambda: (lambda r: r if "vramscope_torch_reserved_peak_bytes{" in r[2] else None)(
            get(f"http://127.0.0.1:{port_b}/metrics")), 20)
        for label in ('Hostname="node-a"', 'UUID="GPU-node-a-0000"', 'modelName="NVIDIA H100 80GB HBM3"',
                      'rank="1"'):
            if label not in text_a:
                fail(f"node-a's /metrics lacks {label}:\n{text_a}")
        if 'vramscope_torch_reserved_peak_bytes{rank="3",file="rank3.json",Hostname="node-b"} ' + str(38 * GiB) not in text_b:
            fail(f"node-b's /metrics lacks rank 3's allocator peak:\n{text_b}")
        if 'vramscope_torch_stats_files_skipped{Hostname="node-b"} 1' not in text_b:
            fail(f"node-b should count the half-written stats file as skipped:\n{text_b}")

        exported = metric_names(text_a) | metric_names(text_b)
        with open(rules) as f:
            wanted = {"rules": queried_names(f.read())}
        with open(os.path.join(args.deploy, "grafana", "vramscope-dashboard.json")) as f:
            dashboard = json.load(f)
        exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
        wanted["dashboard"] = queried_names("\n".join(exprs))
        for where, names in wanted.items():
            missing = sorted(names - exported)
            if missing:
                fail(f"the {where} query metrics that watch does not export: {missing}")

        # Prometheus with the shipped rules, their `for` durations shortened so the test is quick.
        with open(rules) as f:
            quick_rules = re.sub(r"\bfor: \S+", "for: 0s", f.read())
        with open(os.path.join(tmp, "rules.yml"), "w") as f:
            f.write(quick_rules)
        with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                    "rule_files:\n  - rules.yml\n"
                    "scrape_configs:\n  - job_name: vramscope\n    static_configs:\n"
                    f"      - targets: ['127.0.0.1:{port_a}', '127.0.0.1:{port_b}']\n")
        prom_port = free_port()
        log = open(os.path.join(tmp, "prometheus.log"), "w")
        prom = procs.start([prometheus, f"--config.file={tmp}/prometheus.yml",
                            f"--storage.tsdb.path={tmp}/data", f"--web.listen-address=127.0.0.1:{prom_port}"],
                           stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
        api = f"http://127.0.0.1:{prom_port}/api/v1"

        def query(q):
            _, _, body = get(f"{api}/query?query={urllib.parse.quote(q)}")
            return json.loads(body)["data"]["result"]

        def both_nodes():
            if prom.poll() is not None:
                fail(f"prometheus exited with {prom.returncode}; see {tmp}/prometheus.log")
            hosts = {r["metric"].get("Hostname") for r in query("vramscope_gpu_memory_total_bytes")}
            return hosts == {"node-a", "node-b"}
        wait_for("Prometheus to scrape both nodes", both_nodes, 60)
        ranks_seen = query('max by (Hostname, rank) (vramscope_process_memory_used_bytes{rank!=""})')
        if len(ranks_seen) != 4:
            fail(f"expected 4 ranks in Prometheus, got {ranks_seen}")

        def firing():
            _, _, body = get(f"{api}/alerts")
            alerts = json.loads(body)["data"]["alerts"]
            names = {(a["labels"]["alertname"], a["labels"].get("Hostname"), a["labels"].get("rank"))
                     for a in alerts if a["state"] == "firing"}
            want = {("VramscopeRankImbalance", "node-b", "3"),
                    ("VramscopeReservedFarAboveAllocated", "node-b", "3")}
            return names if want <= names else None
        names = wait_for("the rank-imbalance and allocator alerts to fire", firing, 60)
        unexpected = {n for n in names if n[0] in ("VramscopeRankImbalance", "VramscopeReservedFarAboveAllocated")
                      and n[2] != "3"}
        if unexpected:
            fail(f"alerts fired for ranks that are fine: {sorted(unexpected)}")
        # Every dashboard query is valid PromQL for this Prometheus, and those over watch's own
        # series return data (DCGM's series are not scraped here).
        for expr in exprs:
            q = expr.replace("$host", ".*")
            try:
                query(q)
            except urllib.error.HTTPError as e:
                fail(f"the dashboard query {expr!r} is refused by Prometheus: {e.read().decode()[:300]}")
            if "DCGM" not in expr and "ALERTS" not in expr and "alert_active" not in expr:
                # range functions such as increase() need two scrapes: wait for them
                wait_for(f"data for the dashboard query {expr!r}", lambda: query(q), 20)

        print(f"ok: Prometheus scraped 2 nodes, 4 ranks; firing: {sorted(names)}")
        return 0
    finally:
        procs.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
