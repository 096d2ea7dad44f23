#!/usr/bin/python3
"""FerryKit before and after, in one run: ferry-bench-kit binaries (LABEL=PATH) beside
ferry-bench-client asking for what the kit asks for (`"response":"base64"`: B9's
ferry-bench-client-base64, the peer of the 0.9x aim), each repetition rotating their order, against one warm ferryd and the bench
nginx (B9's limits), under `perf stat -e task-clock,context-switches` (CPU and context switches
per job; on a shared machine these hold better than rates), and the client's `send` and `recv`
calls per job (`syscalls:sys_enter_sendto`, `recvfrom`: how many job lines share a write), and
ferryd's system calls per job over each run (`perf stat -p`: epoll waits are loop iterations).

    unshare -n sh -c 'ip link set lo up && bench/kit_ab.py --products .build/release \\
        before=/tmp/kit-before/ferry-bench-kit after=.build/release/ferry-bench-kit'

Prints one line per run and the median kit ÷ client rate ratio per label; writes nothing."""

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import BenchError, Daemon, Nginx, rotated  # noqa: E402


def perf_run(binary, daemon, url, n, window, extra=()):
    """One run under perf stat: (jobs/s, µs of task-clock per job, context switches per job,
    ferryd's CPU µs per job, sends per job, receives per job)."""
    cmd = ["perf", "stat", "-x,", "-e", ",".join(COUNTERS), "--",
           binary, daemon.socket, url, str(n), str(window), *extra]
    # ferryd's loop iterations (epoll waits) and reads per job over the same run.
    watch = subprocess.Popen(["perf", "stat", "-x,", "-e", ",".join(DAEMON_COUNTERS), "-p", str(daemon.pid)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    before = daemon.cpu_seconds()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    daemon_us = (daemon.cpu_seconds() - before) / n * 1e6
    watch.send_signal(signal.SIGINT)
    daemon_calls = {}
    for line in watch.communicate(timeout=30)[1].splitlines():
        parts = line.split(",")
        if len(parts) > 2 and parts[2] in DAEMON_COUNTERS and parts[0].isdigit():
            daemon_calls[parts[2].split("_enter_")[-1]] = int(parts[0]) / n
    fields = dict(item.split("=", 1) for item in p.stdout.split())
    if p.returncode != 0 or fields.get("failed", "0") != "0" or fields.get("done", str(n)) != str(n):
        raise BenchError(f"{binary}: {p.stdout.strip()} {p.stderr[-300:]}")
    counters = {}
    for line in p.stderr.splitlines():
        parts = line.split(",")
        if len(parts) > 2 and parts[2] in COUNTERS:
            counters[parts[2]] = float(parts[0]) if parts[0].replace(".", "").isdigit() else float("nan")
    return (n / float(fields["seconds"]), counters["task-clock"] * 1000 / n,
            counters["context-switches"] / n, daemon_us,
            counters.get(COUNTERS[2], float("nan")) / n, counters.get(COUNTERS[3], float("nan")) / n,
            daemon_calls)


COUNTERS = ["task-clock", "context-switches", "syscalls:sys_enter_sendto", "syscalls:sys_enter_recvfrom"]
DAEMON_COUNTERS = ["context-switches", "cpu-migrations", "syscalls:sys_enter_epoll_wait", "syscalls:sys_enter_recvfrom", "syscalls:sys_enter_recvmsg",
                   "syscalls:sys_enter_sendto", "syscalls:sys_enter_sendmsg", "syscalls:sys_enter_writev",
                   "syscalls:sys_enter_write", "syscalls:sys_enter_read"]


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
            perf_run(tools[0][1], daemon, url, 500, args.window, ['"response":"base64"'])  # warm: pools, TLS
            rates = {label: [] for label, _ in tools}
            for rep in range(args.reps):
                for label, binary in rotated(tools, rep):
                    extra = ['"response":"base64"'] if label == "client" else []
                    rps, task_us, switches, daemon_us, sends, recvs, daemon_calls = perf_run(
                        binary, daemon, url, args.jobs, args.window, extra)
                    rates[label].append(rps)
                    print(f"{scheme} rep {rep + 1} {label}: {rps:.0f}/s, task-clock {task_us:.1f} µs/job, "
                          f"{switches:.2f} context switches/job, ferryd {daemon_us:.1f} µs/job, "
                          f"{sends:.3f} sends/job, {recvs:.3f} recvs/job; ferryd per job: "
                          + ", ".join(f"{k} {v:.3f}" for k, v in sorted(daemon_calls.items())), flush=True)
            for label, _ in kits:
                ratios = [a / b for a, b in zip(rates[label], rates["client"])]
                print(f"{scheme} {label} ÷ client-base64: {statistics.median(ratios):.2f} "
                      f"({min(ratios):.2f}–{max(ratios):.2f})")
    finally:
        daemon.stop()
        nginx.stop()


if __name__ == "__main__":
    main()
