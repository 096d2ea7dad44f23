#!/usr/bin/python3
"""FerryKit before and after, in one run: ferry-bench-kit binaries (LABEL=PATH) beside
ferry-bench-client, each repetition rotating their order, against one warm ferryd and the bench
nginx (B9's limits), under `perf stat -e task-clock,context-switches` (CPU and context switches
per job; on a shared machine these hold better than rates).

    unshare -n sh -c 'ip link set lo up && bench/kit_ab.py --products .build/release \\
        before=/tmp/kit-before/ferry-bench-kit after=.build/release/ferry-bench-kit'

Prints one line per run and the median kit ÷ client rate ratio per label; writes nothing."""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import BenchError, Daemon, Nginx, rotated  # noqa: E402


def perf_run(binary, daemon, url, n, window):
    """One run under perf stat: (jobs/s, µs of task-clock per job, context switches per job,
    ferryd's CPU µs per job)."""
    cmd = ["perf", "stat", "-x,", "-e", "task-clock,context-switches", "--",
           binary, daemon.socket, url, str(n), str(window)]
    before = daemon.cpu_seconds()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    daemon_us = (daemon.cpu_seconds() - before) / n * 1e6
    fields = dict(item.split("=", 1) for item in p.stdout.split())
    if p.returncode != 0 or fields.get("failed", "0") != "0" or fields.get("done", str(n)) != str(n):
        raise BenchError(f"{binary}: {p.stdout.strip()} {p.stderr[-300:]}")
    counters = {line.split(",")[2]: float(line.split(",")[0]) for line in p.stderr.splitlines()
                if "task-clock" in line or "context-switches" in line}
    return (n / float(fields["seconds"]), counters["task-clock"] * 1000 / n,
            counters["context-switches"] / n, daemon_us)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--products", required=True, help="directory with ferryd and ferry-bench-client")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--window", type=int, default=50)
    parser.add_argument("kits", nargs="+", help="LABEL=PATH of a ferry-bench-kit")
    args = parser.parse_args()
    products = os.path.abspath(args.products)
    kits = [tuple(k.split("=", 1)) for k in args.kits]
    workdir = tempfile.mkdtemp(prefix="ferry-kit-ab-")
    os.chmod(workdir, 0o755)  # nginx's workers read its root
    nginx = Nginx(os.path.join(workdir, "nginx"), 1 << 20, 1 << 20)
    config = {"log_level": "warning",
              "limits": {"max_jobs": 20_000, "max_jobs_per_connection": 20_000, "max_clients": 4096},
              "sessions": {"default": {"ca_file": nginx.ca}}}
    daemon = Daemon(products, workdir, config, "ferryd-kit-ab")
    try:
        tools = [("client", os.path.join(products, "ferry-bench-client"))] + kits
        for scheme in ("http", "https"):
            url = nginx.url(scheme, "/small")
            perf_run(tools[0][1], daemon, url, 500, args.window)  # warm: pools, TLS
            rates = {label: [] for label, _ in tools}
            for rep in range(args.reps):
                for label, binary in rotated(tools, rep):
                    rps, task_us, switches, daemon_us = perf_run(binary, daemon, url, args.jobs, args.window)
                    rates[label].append(rps)
                    print(f"{scheme} rep {rep + 1} {label}: {rps:.0f}/s, task-clock {task_us:.1f} µs/job, "
                          f"{switches:.2f} context switches/job, ferryd {daemon_us:.1f} µs/job", flush=True)
            for label, _ in kits:
                ratios = [a / b for a, b in zip(rates[label], rates["client"])]
                print(f"{scheme} {label} ÷ client: {statistics.median(ratios):.2f} "
                      f"({min(ratios):.2f}–{max(ratios):.2f})")
    finally:
        daemon.stop()
        nginx.stop()


if __name__ == "__main__":
    main()
