#!/usr/bin/env python3
"""B8 (issue 17): the HTTP cache through ferryd. N GETs of one URL of ferry-fixture, K in flight
(ferry-bench-client), in a session without a cache (every job fetched), in a cached session
whose entry is fresh (every job a hit: no request, no session slot) and where it must be
revalidated (`no-cache`: every job a conditional request answered 304). For each: the
client's jobs/s and ferryd's CPU time per job (utime + stime from /proc). The target is the
issue's: a hit costs less of ferryd's CPU than a fetch. (It replaces bench/cache/daemon.sh, the first version.)

`make bench` runs it (bench/run.py); directly:

    bench/b8_cache.py --products .build/release [--jobs N] [--window K] [--reps N]"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BenchError, Daemon, rotated, summary  # noqa: E402

RUNS = ["fetch", "hit", "revalidate"]


def start_fixture(products, directory):
    out = open(os.path.join(directory, "fixture.out"), "w+")
    proc = subprocess.Popen([os.path.join(products, "ferry-fixture")], stdout=out, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        out.seek(0)
        m = re.search(r"^port=(\d+)$", out.read(), re.M)
        if m:
            return proc, int(m.group(1))
        if proc.poll() is not None:
            raise BenchError("ferry-fixture exited")
        time.sleep(0.02)
    proc.kill()
    raise BenchError("ferry-fixture did not print its port")


def client(products, sock, url, jobs, window, session):
    cmd = [os.path.join(products, "ferry-bench-client"), sock, url, str(jobs), str(window),
           f'"session":"{session}"']
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    fields = dict(kv.split("=", 1) for kv in p.stdout.split() if "=" in kv)
    if p.returncode != 0 or fields.get("failed") != "0" or fields.get("done") != str(jobs):
        raise BenchError(f"B8 {session} {url}: {p.stdout.strip()} {p.stderr.strip()}")
    return jobs / float(fields["seconds"])


def run(products, jobs=20_000, window=32, reps=3, log=print):
    directory = tempfile.mkdtemp(prefix="ferry-bench-cache-")
    fixture, port = start_fixture(products, directory)
    config = {"log_level": "warning", "state_dir": os.path.join(directory, "state"),
              "sessions": {"plain": {}, "cached": {"cache": {"max_bytes": 64 << 20}}}}
    fresh = f"http://127.0.0.1:{port}/conditional?Cache-Control=max-age%3D86400"
    stale = f"http://127.0.0.1:{port}/conditional?etag=%22v1%22&Cache-Control=no-cache"
    urls = {"fetch": ("plain", fresh), "hit": ("cached", fresh), "revalidate": ("cached", stale)}
    rates = {r: [] for r in RUNS}
    cpu = {r: [] for r in RUNS}
    daemon = None
    try:
        daemon = Daemon(products, directory, config, "b8")
        # Both entries stored once.
        for url in (fresh, stale):
            client(products, daemon.socket, url, 1, 1, "cached")
        for rep in range(reps):
            for r in rotated(RUNS, rep):
                session, url = urls[r]
                before = daemon.cpu_seconds()
                rates[r].append(client(products, daemon.socket, url, jobs, window, session))
                cpu[r].append((daemon.cpu_seconds() - before) * 1e6 / jobs)
                log(f"B8 {r}: {rates[r][-1]:,.0f} jobs/s, ferryd {cpu[r][-1]:.1f} µs/job")
    finally:
        if daemon:
            daemon.stop()
        fixture.kill()
        fixture.wait()
    result = {"jobs": jobs, "window": window, "reps": reps,
              "jobs_per_s": {r: summary(rates[r]) for r in RUNS},
              "cpu_us_per_job": {r: summary(cpu[r]) for r in RUNS}}
    # Per repetition: a hit's CPU over a fetch's (below 1 meets the aim).
    result["cpu_ratio_hit_fetch"] = summary([h / f for h, f in zip(cpu["hit"], cpu["fetch"]) if f])
    result["rate_ratio_hit_fetch"] = summary([h / f for h, f in zip(rates["hit"], rates["fetch"]) if f])
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--products", required=True)
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--window", type=int, default=32)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    result = run(os.path.abspath(args.products), args.jobs, args.window, args.reps,
                 log=lambda m: print(m, file=sys.stderr, flush=True))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    sys.exit(main())
