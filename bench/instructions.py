#!/usr/bin/python3
"""Instructions per job: ferryd under callgrind, small GETs from the loopback nginx. Unlike
wall-clock throughput, an instruction count does not move with the machine's load, so a
before/after of the hot path holds on a busy shared machine.

    bench/instructions.py --products .build/release [--baseline OLD/.build/release] [--jobs 2000]

For each build and each window (50 in flight, and 1 000 so that most jobs wait for one of the
default session's 64 slots), ferryd runs twice under `valgrind --tool=callgrind`: once with 100
jobs and once with 100 + `--jobs`; the difference of their totals divided by `--jobs` is the
cost of one job, start-up and shutdown cancelled out. Builds alternate within each of `--reps`
repetitions; the table gives medians, ranges and the ratio per repetition. How many jobs share
a loop iteration depends on timing, so counts still vary by several percent from run to run:
compare medians. Prints a table; writes nothing else."""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import BenchError, Daemon, Nginx  # noqa: E402

BASE_JOBS = 100


def total_instructions(path):
    with open(path) as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise BenchError(f"no totals in {path}")


def knows_loop_slice(products, workdir):
    """Whether this build's ferryd takes `limits.loop_slice_ms` (`--check-config`)."""
    path = os.path.join(workdir, "slice-check.json")
    with open(path, "w") as f:
        json.dump({"limits": {"loop_slice_ms": 1000}}, f)
    check = subprocess.run([os.path.join(products, "ferryd"), "--config", path, "--check-config"],
                           capture_output=True, text=True)
    return check.returncode == 0


def one_run(products, workdir, nginx, scheme, jobs, window, tag):
    out = os.path.join(workdir, f"{tag}.callgrind")
    # loop_slice_ms 1000: callgrind runs ferryd 30-60x slower, and the 5 ms slice (issue 26's
    # fairness) would end nearly every loop iteration early, which at full speed happens only
    # under a flood; the count is of the per-job path. A build older than the option (whose
    # slice never took effect: 8e239ab's fix) runs without it.
    limits = {"max_jobs": 20_000, "max_jobs_per_connection": 20_000}
    if knows_loop_slice(products, workdir):
        limits["loop_slice_ms"] = 1000
    config = {"log_level": "warning", "limits": limits,
              "sessions": {"default": {"ca_file": nginx.ca}}}
    wrapper = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no",
               "--collect-atstart=yes"]
    daemon = Daemon(products, workdir, config, tag, wrapper=wrapper)
    try:
        result = subprocess.run(
            [os.path.join(products, "ferry-bench-client"), daemon.socket, nginx.url(scheme, "/small"), str(jobs),
             str(window)], capture_output=True, text=True, timeout=900)
        fields = dict(item.split("=", 1) for item in result.stdout.split())
        if fields.get("done") != str(jobs):
            raise BenchError(f"ferry-bench-client: {result.stdout.strip()} {result.stderr.strip()[-300:]}")
    finally:
        daemon.stop()
    return total_instructions(out)


def per_job(products, workdir, nginx, scheme, jobs, window, label):
    small = one_run(products, workdir, nginx, scheme, BASE_JOBS, window, f"{label}-{scheme}-{window}-small")
    big = one_run(products, workdir, nginx, scheme, BASE_JOBS + jobs, window, f"{label}-{scheme}-{window}-big")
    return (big - small) / jobs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--products", required=True)
    parser.add_argument("--baseline", help="another build's products, measured the same way")
    parser.add_argument("--jobs", type=int, default=2000)
    parser.add_argument("--schemes", default="http,https")
    parser.add_argument("--reps", type=int, default=3, help="repetitions; builds alternate within each")
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        print("instructions: valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 1
    workdir = tempfile.mkdtemp(prefix="ferry-instr-")
    os.chmod(workdir, 0o755)
    nginx = Nginx(os.path.join(workdir, "nginx"), 1 << 20, 1 << 20)
    builds = [("this", os.path.abspath(args.products))]
    if args.baseline:
        builds.append(("baseline", os.path.abspath(args.baseline)))
    rows = []
    try:
        for scheme in args.schemes.split(","):
            for window in (50, 1000):
                samples = {label: [] for label, _ in builds}
                for rep in range(args.reps):
                    order = builds if rep % 2 == 0 else list(reversed(builds))
                    for label, p in order:
                        samples[label].append(per_job(p, workdir, nginx, scheme, args.jobs, window, label))
                    print(f"{scheme} ≤{window} in flight, rep {rep + 1}: " +
                          ", ".join(f"{k} {v[-1] / 1000:.1f}K" for k, v in samples.items()), flush=True)
                rows.append((scheme, window, samples))
    except BenchError as e:
        print(f"instructions: FAILED: {e} (logs kept in {workdir})", file=sys.stderr)
        return 1
    finally:
        nginx.stop()
    print()
    print("| protocol | in flight | this build (instructions per job) |" +
          (" baseline | this ÷ baseline |" if args.baseline else ""))
    print("|---|---|---|" + ("---|---|" if args.baseline else ""))
    def k(values):
        return f"{statistics.median(values) / 1000:.1f}K ({min(values) / 1000:.1f}–{max(values) / 1000:.1f})"

    for scheme, window, c in rows:
        line = f"| {scheme} | {window:,} | {k(c['this'])} |"
        if args.baseline:
            ratios = [a / b for a, b in zip(c["this"], c["baseline"])]
            line += (f" {k(c['baseline'])} | {statistics.median(ratios):.3f}× "
                     f"({min(ratios):.3f}–{max(ratios):.3f}) |")
        print(line)
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
