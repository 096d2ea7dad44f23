#!/usr/bin/python3
"""The benchmark driver behind `make bench` and `make bench-smoke`.

    bench/run.py --products .build/release [--venv bench/.venv] [--smoke] [--reps N] [--out FILE]
                 [--baseline OTHER/.build/release] [--only-b1] [--only-b9] [--only-b4]
    bench/run.py --products .build/release --from-json bench/results/last.json   (report only)

Starts a loopback nginx (bench/nginx.conf) and ferryd daemons with a bench config, runs
B1–B9 side by side with curl, aiohttp, wrk, socat and hyperfine, and writes the raw results
(bench/results/*.json) and the report (BENCHMARKS.md, or bench/results/smoke.md with
--smoke). Exit status: 0, 1 when a benchmark could not run, 3 when a full run missed a target
(the report is written either way). The smoke run is tiny and never fails on a target."""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import b1_throughput  # noqa: E402
import b2_oneshot  # noqa: E402
import b3_large  # noqa: E402
import b6_durable  # noqa: E402
import b4_scale  # noqa: E402
import b5_upload  # noqa: E402
import b7_descriptors  # noqa: E402
import b8_cache  # noqa: E402
import b9_python  # noqa: E402
import report  # noqa: E402
from harness import BENCH_DIR, BenchError, Daemon, Nginx, raise_nofile  # noqa: E402

FULL = {"reps": 5, "b1_jobs": 20_000, "window": 50, "deep_window": 1000, "wrk_seconds": 3, "b2_runs": 60, "b2_warmup": 5,
        "b3_bytes": 256 << 20, "b4_jobs": 10_000, "b4_large_jobs": 100_000, "b4_connections": 1000,
        "b6_reps": 3, "b6_jobs": 5000, "b6_resume_jobs": 10_000,
        "b7_bytes": 1 << 30, "b7_reps": 2, "b7_upload_reps": 2, "b8_jobs": 20_000, "b8_reps": 3,
        "b9_jobs": 20_000}
SMOKE = {"reps": 1, "b1_jobs": 200, "window": 50, "deep_window": 100, "wrk_seconds": 1, "b2_runs": 5, "b2_warmup": 1,
         "b3_bytes": 8 << 20, "b4_jobs": 500, "b4_large_jobs": 2_000, "b4_connections": 100,
         "b6_reps": 1, "b6_jobs": 200, "b6_resume_jobs": 500,
         "b7_bytes": 4 << 20, "b7_reps": 1, "b7_upload_reps": 1, "b8_jobs": 200, "b8_reps": 1,
         "b9_jobs": 200}
# B7's rows in `make bench` (b7_descriptors.py has also the path `output`, which is B3's).
B7_TOOLS = ["output_fd", "stream_raw", "stream", "curl"]


class Context:
    """What every benchmark needs: settings, paths, the nginx, and a log line printer."""

    def __init__(self, args, settings, workdir):
        self.__dict__.update(settings)
        self.settings = settings
        self.smoke = args.smoke
        self.products = os.path.abspath(args.products)
        self.bench_dir = BENCH_DIR
        self.workdir = workdir
        self.venv_python = None
        if args.venv and os.path.exists(os.path.join(args.venv, "bin", "python")):
            self.venv_python = os.path.join(os.path.abspath(args.venv), "bin", "python")
        self.baseline = os.path.abspath(args.baseline) if args.baseline else None
        self.baseline_label = args.baseline_label or self.baseline
        # --only-b1 / --only-b9 / --only-b4: those benchmarks alone (B1 and B9 share the first,
        # warm daemon; B4 starts a fresh daemon per repetition).
        self.only = {name for name, on in (("b1", args.only_b1), ("b9", args.only_b9),
                                           ("b4", args.only_b4)) if on}
        self.nginx = None
        self.started = time.monotonic()
        self.daemons = 0

    def log(self, message):
        print(f"[{time.monotonic() - self.started:6.1f}s] {message}", flush=True)

    def daemon_config(self):
        ca = self.nginx.ca
        # B3 downloads into and uploads from its files directory (files_dir: under /dev/shm or
        # the work dir); ferryd reads and writes no files outside configured roots.
        roots = [self.workdir] + (["/dev/shm"] if os.path.isdir("/dev/shm") else [])
        return {
            "log_level": "warning",
            "files": {"read_roots": roots, "write_roots": roots},
            "limits": {"max_jobs": 200_000, "max_jobs_per_connection": 200_000, "max_clients": 4096},
            "sessions": {
                "default": {"ca_file": ca},
                "burst": {"max_concurrent": 100, "ca_file": ca},
            },
        }

    def start_daemon(self, products=None):
        self.daemons += 1
        return Daemon(products or self.products, self.workdir, self.daemon_config(), f"ferryd-{self.daemons}")


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def files_dir(workdir, need_bytes):
    """tmpfs for B3's files when it has room (the disk is not under test), else the work dir."""
    shm = "/dev/shm"
    if os.path.isdir(shm) and shutil.disk_usage(shm).free > 3 * need_bytes:
        return tempfile.mkdtemp(prefix="ferry-bench-", dir=shm)
    return tempfile.mkdtemp(prefix="files-", dir=workdir)


def run_all(ctx):
    results = {"settings": ctx.settings, "smoke": ctx.smoke, "load_start": loadavg(), "loads": {},
               "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
               "nofile": raise_nofile()}
    if not ctx.venv_python:
        ctx.log("aiohttp: no bench venv (make bench creates it from bench/requirements.txt); skipped")
    ctx.nginx = Nginx(os.path.join(ctx.workdir, "nginx"), ctx.b3_bytes, ctx.b3_bytes)
    results["machine"] = report.machine(ctx)
    try:
        if ctx.only == {"b4"}:
            results["loads"]["B4"] = loadavg()
            results["b4"] = b4_scale.run(ctx, ctx.start_daemon)
            return finish(ctx, results)
        daemon = ctx.start_daemon()
        try:
            results["b5"] = {"idle_rss_start_kib": daemon.rss_kib()}
            # A warm daemon: its first jobs (TLS contexts, pools) are not what B1 measures.
            b1_throughput.probe_ferry_version(daemon, ctx.nginx.url("https", "/small"))
            if not ctx.only or "b1" in ctx.only:
                run_b1(ctx, daemon, results)
            if not ctx.only:
                results["loads"]["B2"] = loadavg()
                results["b2"] = b2_oneshot.run(ctx, daemon)
            if not ctx.only or "b9" in ctx.only:
                results["loads"]["B9"] = loadavg()
                results["b9"] = b9_python.run(ctx, daemon, lambda url: b1_throughput.probe_ferry_version(daemon, url))
            if ctx.only and "b4" in ctx.only:
                results["loads"]["B4"] = loadavg()
                results["b4"] = b4_scale.run(ctx, ctx.start_daemon)
            if ctx.only:
                return finish(ctx, results)
        finally:
            daemon.stop()
        files = files_dir(ctx.workdir, ctx.b3_bytes)
        daemon = ctx.start_daemon()
        try:
            results["loads"]["B3"] = loadavg()
            results["b3"] = b3_large.run(ctx, daemon, files)
        finally:
            daemon.stop()
            shutil.rmtree(files, ignore_errors=True)
        results["loads"]["B4"] = loadavg()
        results["b4"] = b4_scale.run(ctx, ctx.start_daemon)
        results["loads"]["B6"] = loadavg()
        results["b6"] = b6_durable.run(ctx.products, ctx.workdir, reps=ctx.b6_reps, jobs=ctx.b6_jobs,
                                       resume_jobs=ctx.b6_resume_jobs, log=ctx.log)
        # B7 (issue 15): its own nginx (a /big of b7_bytes) and daemon, so its RSS is its own.
        results["loads"]["B7"] = loadavg()
        results["b7"] = b7_descriptors.run(ctx.products, ctx.b7_bytes, ctx.b7_reps, B7_TOOLS, log=ctx.log)
        try:
            results["b7_upload"] = b5_upload.run(ctx.products, ctx.b7_bytes, ctx.b7_upload_reps, log=ctx.log)
        except (RuntimeError, KeyError, ValueError) as e:
            raise BenchError(f"B7 upload: {e}")
        # B8 (issue 17): the HTTP cache, its own fixture and daemon (a state directory).
        results["loads"]["B8"] = loadavg()
        results["b8"] = b8_cache.run(ctx.products, jobs=ctx.b8_jobs, reps=ctx.b8_reps, log=ctx.log)
    finally:
        ctx.nginx.stop()
    return finish(ctx, results)


def run_b1(ctx, daemon, results):
    """B1 against the warm `daemon` (and the baseline's own daemon, with --baseline)."""
    base = None
    if ctx.baseline:
        base = ctx.start_daemon(ctx.baseline)
        b1_throughput.probe_ferry_version(base, ctx.nginx.url("https", "/small"))
    results["loads"]["B1"] = loadavg()
    try:
        results["b1"] = b1_throughput.run(ctx, daemon, base)
    finally:
        if base:
            base.stop()
    results["b5"]["idle_rss_after_b1_kib"] = daemon.rss_kib()
    results["b5"]["hwm_after_b1_kib"] = daemon.hwm_kib()


def finish(ctx, results):
    results["load_end"] = loadavg()
    results["seconds"] = time.monotonic() - ctx.started
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--products", required=True, help="directory holding ferryd, ferry, ferry-bench-client")
    parser.add_argument("--venv", help="virtualenv with aiohttp (bench/requirements.txt)")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one run each, no target fails")
    parser.add_argument("--out", help="report path (default BENCHMARKS.md, or bench/results/smoke.md)")
    parser.add_argument("--reps", type=int, help="repetitions instead of the default (5, or 1 in the smoke)")
    parser.add_argument("--baseline", help="another build's products: B1 runs its ferryd beside this one's")
    parser.add_argument("--baseline-label", help="what the baseline is (a commit), for the report")
    parser.add_argument("--only-b1", action="store_true", help="run B1 only (with --baseline: before/after)")
    parser.add_argument("--only-b9", action="store_true", help="run B9 only (client libraries; with --only-b1: both)")
    parser.add_argument("--only-b4", action="store_true", help="run B4 only (memory of jobs queued at once)")
    parser.add_argument("--from-json", help="only write the report again from a results file (no run)")
    args = parser.parse_args()
    if args.from_json:
        with open(args.from_json) as f:
            results = json.load(f)
        with open(args.out or os.path.join(os.path.dirname(BENCH_DIR), "BENCHMARKS.md"), "w") as f:
            f.write(report.markdown(results))
        return 0
    settings = dict(SMOKE if args.smoke else FULL)
    if args.reps:
        settings["reps"] = args.reps
    results_dir = os.path.join(BENCH_DIR, "results")
    os.makedirs(results_dir, exist_ok=True)
    workdir = tempfile.mkdtemp(prefix="ferry-bench-")
    # nginx's workers run as another user when we are root: they must reach the document root.
    os.chmod(workdir, 0o755)
    ctx = Context(args, settings, workdir)
    ctx.log(f"{'smoke' if args.smoke else 'full'} run in {workdir}, load {loadavg()}")
    try:
        results = run_all(ctx)
    except BenchError as e:
        print(f"bench: FAILED: {e} (logs kept in {workdir})", file=sys.stderr)
        return 1
    results["targets"] = report.targets(results)
    name = "smoke" if args.smoke else time.strftime("%Y%m%d-%H%M%S") + "".join(f"-{b}" for b in sorted(ctx.only))
    with open(os.path.join(results_dir, f"{name}.json"), "w") as f:
        json.dump(results, f, indent=1)
    if not args.smoke and not ctx.only:
        shutil.copyfile(os.path.join(results_dir, f"{name}.json"), os.path.join(results_dir, "last.json"))
    # A B1-, B4- or B9-only run is a comparison, never the report of record (BENCHMARKS.md).
    out = args.out or (os.path.join(results_dir, "smoke.md") if args.smoke
                       else os.path.join(results_dir, f"{name}.md") if ctx.only
                       else os.path.join(os.path.dirname(BENCH_DIR), "BENCHMARKS.md"))
    with open(out, "w") as f:
        f.write(report.markdown(results))
    shutil.rmtree(workdir, ignore_errors=True)
    if args.smoke:
        ctx.log(f"wrote {out}")
        print("bench-smoke: ok (sizes are tiny; targets are not judged)")
        return 0
    missed = [t for t in results["targets"] if t["pass"] is False]
    met = sum(1 for t in results["targets"] if t["pass"] is True)
    ctx.log(f"wrote {out}; {met} of {len(results['targets'])} targets met, {len(missed)} missed")
    for t in missed:
        print(f"  missed: {t['what']}: {t['measured']} (target {t['target']})")
    return 3 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
