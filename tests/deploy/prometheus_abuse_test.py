#!/usr/bin/env python3
"""`watch --prometheus` under abuse, scraped by a real Prometheus on 127.0.0.1.

Two `vramscope watch` processes on a fake NVML: one plain, one with a web configuration (TLS
with a self-signed certificate made here by `openssl`, basic authentication with a bcrypt hash
made by libcrypt). Prometheus scrapes both every second with a 1 s timeout, and also scrapes
the secure one with a wrong password and over plain HTTP (both must fail: 401, and no
answer). Once both are up, clients that abuse each port start:

  - slowloris: connections that send a request's headers (or, on the TLS port, a handshake)
    one byte a second and never finish;
  - malformed requests: garbage, unknown versions, a 100 KiB request line, NUL bytes, bad
    Content-Length and chunked bodies, plain HTTP to the TLS port, in a loop;
  - clients that never read: a TLS or plain connection that sends hundreds of pipelined GETs
    and never reads an answer.

Over a window of WINDOW seconds of that, Prometheus's own records must show every scrape of
both targets succeeded (min_over_time(up) == 1), within its timeout
(max_over_time(scrape_duration_seconds) < 1 s), with at least WINDOW - 3 scrapes each; the
targets endpoint must show no error. Under a minute in all; every process started is stopped.
Exits 77 (skipped) when Prometheus or openssl is missing, unless VRAMSCOPE_REQUIRE_PROMETHEUS=1.
"""
import argparse
import base64
import ctypes
import json
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

from prometheus_support import GiB, SKIP, Processes, fail, fake_node, free_port, get, start_watch, wait_for

WINDOW = 20          # seconds of abuse measured
SCRAPE_TIMEOUT = 1.0
SLOW_CLIENTS = 48    # per port
MALFORMED_LOOPS = 6  # per port
NON_READERS = 6      # per port
PASSWORD = "correct horse"


def bcrypt(password):
    """A bcrypt hash ($2b$, cost 4) from libcrypt, which vramscope checks it with."""
    lib = ctypes.CDLL("libcrypt.so.1")
    lib.crypt_gensalt.restype = ctypes.c_char_p
    lib.crypt_gensalt.argtypes = [ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p, ctypes.c_int]
    lib.crypt.restype = ctypes.c_char_p
    lib.crypt.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    salt = lib.crypt_gensalt(b"$2b$", 4, None, 0)
    return lib.crypt(password.encode(), salt).decode()


class Abuse:
    """The abusive clients of one port, each kind on threads of its own, until stop()."""

    def __init__(self, port, tls_context=None):
        self.port, self.tls = port, tls_context
        self.done = threading.Event()
        self.threads = []
        self.counts = {"slow_open": 0, "slow_reopened": 0, "malformed_sent": 0, "non_readers": 0}
        self.lock = threading.Lock()

    def count(self, key, n=1):
        with self.lock:
            self.counts[key] += n

    def start(self):
        for target in [self.slowloris] + [self.malformed] * MALFORMED_LOOPS + [self.non_reader] * NON_READERS:
            t = threading.Thread(target=target, daemon=True)
            t.start()
            self.threads.append(t)

    def stop(self):
        self.done.set()
        for t in self.threads:
            t.join(timeout=5)

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.port), timeout=2)

    def slowloris(self):
        # On the plain port a request whose headers never end; on the TLS port a ClientHello
        # record header that never completes. One byte a second on each connection.
        opening = b"\x16\x03\x01\x02\x00" if self.tls else b"GET /metrics HTTP/1.1\r\nHost: x\r\n"
        socks = {}
        while not self.done.is_set():
            while len(socks) < SLOW_CLIENTS:
                try:
                    s = self.connect()
                    s.setblocking(False)
                    socks[s] = 0
                    self.count("slow_open")
                except OSError:
                    break
            for s in list(socks):
                i = socks[s]
                byte = opening[i:i + 1] if i < len(opening) else (b"\x01" if self.tls else b"X")
                try:
                    s.send(byte)
                    socks[s] = i + 1
                except OSError:  # closed by the server: open another
                    s.close()
                    del socks[s]
                    self.count("slow_reopened")
            self.done.wait(1.0)
        for s in socks:
            s.close()

    MALFORMED = [
        b"GARBAGE\r\n\r\n",
        b"GET /metrics HTTP/9.9\r\n\r\n",
        b"GET /" + b"a" * 100_000 + b" HTTP/1.1\r\n\r\n",
        b"GET /metrics HTTP/1.1\r\nHost x\r\nno colon here\r\n\r\n",
        b"GET /metr\x00ics HTTP/1.1\r\nHost: \x00\r\n\r\n",
        b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        b"POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 2147483648000\r\n\r\nabc",
        b"POST /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n",
        b"\xff\xfe\xfd" * 1000,
        b"\r\n" * 5000,
    ]

    def malformed(self):
        i = 0
        while not self.done.is_set():
            payload = self.MALFORMED[i % len(self.MALFORMED)]
            i += 1
            try:
                with self.connect() as s:
                    if self.tls and i % 2 == 0:  # half of them inside a TLS session
                        s = self.tls.wrap_socket(s, server_hostname="127.0.0.1")
                    s.sendall(payload)
                    s.settimeout(0.5)
                    try:
                        s.recv(4096)
                    except OSError:
                        pass
                self.count("malformed_sent")
            except OSError:
                self.done.wait(0.05)

    def non_reader(self):
        # 90 pipelined GETs (the server closes a connection after 100 requests), then nothing:
        # the answers fill both sides' buffers and the server's writes block until it gives up.
        token = base64.b64encode(f"prometheus:{PASSWORD}".encode())
        request = b"GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " + token + b"\r\n\r\n"
        while not self.done.is_set():
            try:
                s = self.connect()
                if self.tls:
                    s = self.tls.wrap_socket(s, server_hostname="127.0.0.1")
                s.sendall(request * 90)
                self.count("non_readers")
                self.done.wait(8)
                s.close()
            except OSError:
                self.done.wait(0.1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--vramscope", required=True)
    ap.add_argument("--fake-nvml", required=True)
    args = ap.parse_args()
    required = os.environ.get("VRAMSCOPE_REQUIRE_PROMETHEUS") == "1"
    prometheus, openssl = shutil.which("prometheus"), shutil.which("openssl")
    if not (prometheus and openssl):
        message = "prometheus or openssl is not installed"
        if required:
            fail(message)
        print(f"SKIP: {message}")
        return SKIP

    procs = Processes()
    abusers = []
    tmp = tempfile.mkdtemp(prefix="vramscope-abuse-")
    try:
        subprocess.run([openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", f"{tmp}/server.key", "-out", f"{tmp}/server.crt"],
                       check=True, capture_output=True, timeout=60)
        with open(f"{tmp}/web.yml", "w") as f:
            f.write("tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
                    f"basic_auth_users:\n  prometheus: {bcrypt(PASSWORD)}\n")
        rank = procs.start(["sleep", "120"], env=dict(os.environ, RANK="0"))
        node = fake_node(tmp, "node", [[(rank.pid, 20 * GiB)]])
        plain_port = start_watch(procs, args, args.fake_nvml, node, "plain")
        plain_watch = procs.started[-1]
        secure_port = start_watch(procs, args, args.fake_nvml, node, "secure",
                                  extra=["--web-config", f"{tmp}/web.yml"], scheme="https")
        secure_watch = procs.started[-1]

        # curl's view first: the right password over TLS, a wrong one, plain HTTP.
        curl = shutil.which("curl")
        if curl:
            def curl_code(*extra):
                r = subprocess.run([curl, "-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "5",
                                    "--cacert", f"{tmp}/server.crt", *extra], capture_output=True,
                                   text=True, timeout=10)
                return r.stdout
            url = f"https://127.0.0.1:{secure_port}/metrics"
            checks = {"right password": (curl_code("-u", f"prometheus:{PASSWORD}", url), "200"),
                      "wrong password": (curl_code("-u", "prometheus:wrong", url), "401"),
                      "no password": (curl_code(url), "401"),
                      "plain HTTP": (curl_code("-u", f"prometheus:{PASSWORD}",
                                               f"http://127.0.0.1:{secure_port}/metrics"), "000")}
            for what, (got, want) in checks.items():
                if got != want:
                    fail(f"curl with the {what}: HTTP {got}, expected {want}")

        with open(f"{tmp}/password", "w") as f:
            f.write(PASSWORD)
        job = ("  - job_name: {name}\n    scrape_interval: 1s\n    scrape_timeout: 1s\n"
               "    scheme: {scheme}\n{extra}    static_configs:\n"
               "      - targets: ['127.0.0.1:{port}']\n")
        tls = "    tls_config:\n      ca_file: server.crt\n"
        auth = "    basic_auth:\n      username: prometheus\n      password_file: {file}\n"
        with open(f"{tmp}/wrong", "w") as f:
            f.write("wrong horse")
        config = "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n" + \
            job.format(name="plain", scheme="http", extra="", port=plain_port) + \
            job.format(name="secure", scheme="https", extra=tls + auth.format(file="password"),
                       port=secure_port) + \
            job.format(name="secure_wrong_password", scheme="https",
                       extra=tls + auth.format(file="wrong"), port=secure_port) + \
            job.format(name="secure_without_tls", scheme="http", extra=auth.format(file="password"),
                       port=secure_port)
        with open(f"{tmp}/prometheus.yml", "w") as f:
            f.write(config)
        prom_port = free_port()
        log = open(f"{tmp}/prometheus.log", "w")
        prom = procs.start([prometheus, f"--config.file={tmp}/prometheus.yml",
                            f"--storage.tsdb.path={tmp}/data",
                            f"--web.listen-address=127.0.0.1:{prom_port}"],
                           stdout=log, stderr=subprocess.STDOUT, cwd=tmp)
        api = f"http://127.0.0.1:{prom_port}/api/v1"

        def query(q, at=None):
            url = f"{api}/query?query={urllib.parse.quote(q)}" + (f"&time={at}" if at else "")
            _, _, body = get(url)
            return {r["metric"].get("job"): float(r["value"][1]) for r in json.loads(body)["data"]["result"]}

        def targets():
            _, _, body = get(f"{api}/targets")
            return {t["labels"]["job"]: t for t in json.loads(body)["data"]["activeTargets"]}

        def all_scraped():
            if prom.poll() is not None:
                fail(f"prometheus exited with {prom.returncode}: {open(f'{tmp}/prometheus.log').read()[-2000:]}")
            t = targets()
            return len(t) == 4 and all(x["health"] != "unknown" for x in t.values()) and \
                query("up").get("plain") == 1 and query("up").get("secure") == 1
        wait_for("Prometheus to scrape both targets", all_scraped, 30)

        t = targets()
        for name, words in (("secure_wrong_password", "401"), ("secure_without_tls", "")):
            if t[name]["health"] != "down":
                fail(f"Prometheus scraped {name} ({t[name]}), which must be refused")
            if words not in t[name]["lastError"]:
                fail(f"{name}: expected {words!r} in the error, got {t[name]['lastError']!r}")
        print(f"refused as they must be: wrong password: {t['secure_wrong_password']['lastError']!r}; "
              f"plain HTTP to the TLS port: {t['secure_without_tls']['lastError']!r}")

        ctx = ssl.create_default_context(cafile=f"{tmp}/server.crt")
        abusers = [Abuse(plain_port), Abuse(secure_port, ctx)]
        for a in abusers:
            a.start()
        time.sleep(3)  # the slow clients hold their connections by now
        t0 = time.time()
        time.sleep(WINDOW)
        t1 = time.time()
        scrapes = query(f"count_over_time(up[{WINDOW}s])", t1)
        worst_up = query(f"min_over_time(up[{WINDOW}s])", t1)
        slowest = query(f"max_over_time(scrape_duration_seconds[{WINDOW}s])", t1)
        t = targets()
        # Both end within a second and a half of SIGTERM with the abusers still connected.
        for name, p in (("plain", plain_watch), ("secure", secure_watch)):
            start = time.monotonic()
            p.terminate()
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                fail(f"{name}: watch still running 5 s after SIGTERM under abuse")
            took = time.monotonic() - start
            print(f"{name}: ended {took:.2f} s after SIGTERM, status {p.returncode}")
            if took > 1.5 or p.returncode != 0:
                fail(f"{name}: watch took {took:.2f} s to end after SIGTERM (status {p.returncode})")
        for a in abusers:
            a.stop()
        for name in ("plain", "secure"):
            print(f"{name}: {int(scrapes.get(name, 0))} scrapes in {t1 - t0:.0f} s, min up "
                  f"{worst_up.get(name)}, slowest {slowest.get(name, float('nan')):.3f} s, last error "
                  f"{t[name]['lastError']!r}")
            if scrapes.get(name, 0) < WINDOW - 3:
                fail(f"{name}: only {scrapes.get(name, 0)} scrapes recorded in {WINDOW} s at a 1 s interval")
            if worst_up.get(name) != 1:
                fail(f"{name}: a scrape failed under abuse (min up {worst_up.get(name)}); "
                     f"last error {t[name]['lastError']!r}")
            if not slowest.get(name, 99) < SCRAPE_TIMEOUT:
                fail(f"{name}: a scrape took {slowest.get(name)} s, over the {SCRAPE_TIMEOUT} s timeout")
            if t[name]["lastError"]:
                fail(f"{name}: last scrape error {t[name]['lastError']!r}")
        for a, name in zip(abusers, ("plain", "secure")):
            print(f"{name} abuse: {a.counts}")
            if a.counts["slow_open"] < SLOW_CLIENTS or a.counts["malformed_sent"] < 10 or \
                    a.counts["non_readers"] < NON_READERS:
                fail(f"the abuse of {name} did not run as planned: {a.counts}")
        print("ok: every scrape answered within its timeout under slow, malformed and non-reading clients")
        return 0
    finally:
        for a in abusers:
            a.stop()
        procs.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
