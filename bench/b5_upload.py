#!/usr/bin/env python3
"""B5: a 1 GiB upload from a piped stdin, `ferry put URL < pipe` against `curl -T - URL`.

Both read the same kind of pipe (`head -c N /dev/zero |`) and PUT it chunked to the fixture's
/echo (which hashes every byte) on loopback, in the same run, alternating. ferry passes its
stdin to ferryd as a descriptor (issue 15): the daemon reads the pipe itself.

    python3 bench/b5_upload.py [--bytes N] [--reps R]

`make bench` runs it too (bench/run.py; the report's "B7 descriptors" section).

Needs release products (.build/release: ferryd, ferry, ferry-fixture) and curl.
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRODUCTS = os.environ.get("FERRY_PRODUCTS", os.path.join(ROOT, ".build", "release"))


def start(args, **kw):
    # stdin /dev/null: ferry-fixture ends when a piped stdin closes (bench/run.py's may be one).
    return subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, **kw)


def timed(shell):
    t = time.monotonic()
    out = subprocess.run(["bash", "-o", "pipefail", "-c", shell], capture_output=True, text=True)
    elapsed = time.monotonic() - t
    if out.returncode != 0:
        raise RuntimeError(f"failed: {shell}\n{out.stderr}")
    return elapsed, out.stdout


def run(products=PRODUCTS, size=1 << 30, reps=3, log=print):
    """`reps` alternating runs of each; returns seconds and MiB/s per tool and the ratio of
    ferry's throughput to curl's, run by run (`make bench` files it as `b7_upload`)."""
    work = tempfile.mkdtemp(prefix="ferry-b5-")
    fixture = start([os.path.join(products, "ferry-fixture"), "--port", "0"])
    port = int(fixture.stdout.readline().strip().split("=")[1])
    config = os.path.join(work, "ferry.json")
    with open(config, "w") as f:
        f.write('{"sessions": {"default": {}}}')
    sock = os.path.join(work, "ferryd.sock")
    daemon = start([os.path.join(products, "ferryd"), "--config", config, "--socket", sock,
                    "--log-level", "warning"])
    for _ in range(200):
        if os.path.exists(sock):
            break
        time.sleep(0.02)
    url = f"http://127.0.0.1:{port}/echo"
    env = f"FERRY_SOCKET={sock}"
    feed = f"head -c {size} /dev/zero"
    ferry = f"{feed} | {env} {os.path.join(products, 'ferry')} put {url}"
    curl = f"{feed} | curl -sS -T - {url}"
    rows = {"ferry": [], "curl": []}
    try:
        for rep in range(reps):
            order = (("ferry", ferry), ("curl", curl))
            for name, shell in order if rep % 2 == 0 else reversed(order):
                elapsed, out = timed(shell)
                echo = json.loads(out)
                if echo["body_length"] != size:
                    raise RuntimeError(f"{name}: the server got {echo['body_length']} bytes")
                rows[name].append(elapsed)
                log(f"B7 upload rep {rep + 1} {name}: {size / (1 << 20) / elapsed:.0f} MiB/s")
    finally:
        daemon.terminate()
        fixture.terminate()
        daemon.wait()
        fixture.wait()
        shutil.rmtree(work, ignore_errors=True)
    mib = size / (1 << 20)

    def summary(values):
        values = sorted(values)
        return {"median": values[len(values) // 2] if len(values) % 2 else
                (values[len(values) // 2 - 1] + values[len(values) // 2]) / 2,
                "min": values[0], "max": values[-1]}

    return {"bytes": size, "reps": reps, "seconds": rows,
            "mib_s": {k: summary([mib / t for t in v]) for k, v in rows.items()},
            "ratio": summary([c / f for f, c in zip(rows["ferry"], rows["curl"])])}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bytes", type=int, default=1 << 30)
    p.add_argument("--reps", type=int, default=3)
    a = p.parse_args()
    r = run(PRODUCTS, a.bytes, a.reps, log=lambda m: None)
    for k in ("ferry", "curl"):
        times = ", ".join(f"{t:.2f}" for t in r["seconds"][k])
        s = r["mib_s"][k]
        print(f"{k:5}  median {s['median']:.0f} MiB/s (min {s['min']:.0f}, max {s['max']:.0f})  (runs: {times} s)")
    ratio = r["ratio"]
    print(f"ferry / curl throughput, run by run: median {ratio['median']:.2f}x "
          f"(min {ratio['min']:.2f}, max {ratio['max']:.2f})")


if __name__ == "__main__":
    main()
