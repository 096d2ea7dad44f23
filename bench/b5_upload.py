#!/usr/bin/env python3
"""B5: a 1 GiB upload from a piped stdin, `ferry put URL < pipe` against `curl -T - URL`.

Both read the same kind of pipe (`head -c N /dev/zero |`) and PUT it chunked to the fixture's
/echo (which hashes every byte) on loopback, in the same run, alternating. ferry passes its
stdin to ferryd as a descriptor (issue 15): the daemon reads the pipe itself.

    python3 bench/b5_upload.py [--bytes N] [--reps R]

Needs release products (.build/release: ferryd, ferry, ferry-fixture) and curl.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRODUCTS = os.environ.get("FERRY_PRODUCTS", os.path.join(ROOT, ".build", "release"))


def start(args, **kw):
    return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, **kw)


def timed(shell):
    t = time.monotonic()
    out = subprocess.run(["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True)
    elapsed = time.monotonic() - t
    if out.returncode != 0:
        sys.exit(f"failed: {shell}\n{out.stderr}")
    return elapsed, out.stdout


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bytes", type=int, default=1 << 30)
    p.add_argument("--reps", type=int, default=3)
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="ferry-b5-")
    fixture = start([os.path.join(PRODUCTS, "ferry-fixture"), "--port", "0"])
    port = int(fixture.stdout.readline().strip().split("=")[1])
    config = os.path.join(work, "ferry.json")
    with open(config, "w") as f:
        f.write('{"sessions": {"default": {}}}')
    sock = os.path.join(work, "ferryd.sock")
    daemon = start([os.path.join(PRODUCTS, "ferryd"), "--config", config, "--socket", sock,
                    "--log-level", "warning"])
    for _ in range(200):
        if os.path.exists(sock):
            break
        time.sleep(0.02)
    url = f"http://127.0.0.1:{port}/echo"
    env = f"FERRY_SOCKET={sock}"
    feed = f"head -c {a.bytes} /dev/zero"
    ferry = f"{feed} | {env} {os.path.join(PRODUCTS, 'ferry')} put {url}"
    curl = f"{feed} | curl -sS -T - {url}"
    rows = {"ferry": [], "curl": []}
    try:
        for _ in range(a.reps):
            for name, shell in (("ferry", ferry), ("curl", curl)):
                elapsed, out = timed(shell)
                echo = json.loads(out)
                assert echo["body_length"] == a.bytes, echo
                rows[name].append(elapsed)
    finally:
        daemon.terminate()
        fixture.terminate()
        daemon.wait()
        fixture.wait()
        shutil.rmtree(work, ignore_errors=True)
    mib = a.bytes / (1 << 20)
    best = {k: min(v) for k, v in rows.items()}
    for k in ("ferry", "curl"):
        times = ", ".join(f"{t:.2f}" for t in rows[k])
        print(f"{k:5}  best {best[k]:.2f} s = {mib / best[k]:.0f} MiB/s  (runs: {times} s)")
    print(f"ferry / curl throughput (best runs): {best['curl'] / best['ferry']:.2f}x")


if __name__ == "__main__":
    main()
