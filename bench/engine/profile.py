#!/usr/bin/python3
"""Where a job's time goes (issue 29): ferryd against the engine alone, per job.

    bench/engine/profile.py --products .build/release [--schemes http,https] [--jobs N] [--strace]

For each scheme, ferryd (its products copied and `strip --strip-debug`ed, since valgrind 3.19
cannot read Swift 6.3's DWARF 5) and `.build/bench/engine` each run under `valgrind
--tool=callgrind` for 100 and for 100 + --jobs small GETs of the loopback nginx, 50 in flight
(ferryd fed by ferry-bench-client); the difference of the two runs over --jobs is one job's
cost, per function, self and inclusive (`callgrind_annotate`). Prints instructions per job by
library; retain/release, allocation, copying and hashing; and ferryd's steps (inclusive, so
they nest and overlap). With --strace, system calls per job the same way (`strace -c -f`
attached to the daemon, and around the engine). Run it inside `unshare -n` with lo up; about
two minutes per scheme. Writes nothing but its temporary directory."""

import argparse
import collections
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import b1_throughput  # noqa: E402
from harness import BenchError, Daemon, Nginx  # noqa: E402

BASE_JOBS = 100
LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?):(\S+)\s+\[(.*)\]\s*$")
STEPS = [
    ("read and frame the client's lines", "ferryd", r"BufferedConnection.readAvailable\(\)"),
    ("  Daemon.handleLine", "ferryd", r"Daemon.handleLine\(_:from:\)"),
    ("  decode (JobDecoder.decode)", "ferryd", r"specialized JobDecoder.decode<A>\(_:\)"),
    ("  serialize (Daemon.prepareRequest)", "ferryd", r"Daemon.prepareRequest\(_:profile:client:owner:\)"),
    ("  schedule (JobTable.handle)", "ferryd", r"JobTable.handle\(_:into:\)"),
    ("  JobRun.start", "ferryd", r"JobRun.start\(\)"),
    ("  configure the handle (Engine.start)", "ferryd", r"Engine.start\(_:delegate:cookies:\)"),
    ("    Transfer.configureHop", "ferryd", r"Transfer.configureHop\(\)"),
    ("curl (Engine.socketAction)", "ferryd", r"Engine.socketAction\(_:_:\)"),
    ("  curl_multi_socket_action", "libcurl", r"curl_multi_socket_action"),
    ("  header callback", "ferryd", r"@objc closure #1 in variable initialization expression of static CurlTrampolines.header"),
    ("  write callback", "ferryd", r"@objc closure #1 in variable initialization expression of static CurlTrampolines.write"),
    ("  socket callback", "ferryd", r"@objc closure #1 in variable initialization expression of static CurlTrampolines.socket"),
    ("  timer callback", "ferryd", r"@objc closure #1 in variable initialization expression of static CurlTrampolines.timer"),
    ("  Engine.deliverEvents", "ferryd", r"Engine.deliverEvents\(\)"),
    ("    encode (EventEncoder.encode)", "ferryd", r"static EventEncoder.encode\(_:into:\)"),
    ("    Engine.detach", "ferryd", r"Engine.detach\(_:\)"),
    ("    Engine.recycle", "ferryd", r"Engine.recycle\(_:\)"),
    ("    EasyHandle.init (a new handle)", "ferryd", r"EasyHandle.init\(loop:share:jar:\)"),
    ("executor checks (swift_task_isCurrentExecutor)", "libswift_Concurrency", r"swift_task_isCurrentExecutor"),
]
CATEGORIES = [
    ("retain/release", r"swift_(retain|release|bridgeObjectRetain|bridgeObjectRelease|unknownObjectRetain|"
                       r"unknownObjectRelease)(_n)?('\d+)?"),
    ("allocation", r"(_int_malloc|_int_free|malloc|free|cfree|calloc|realloc|_int_realloc|malloc_consolidate|"
                   r"unlink_chunk.*|swift_allocObject|swift_deallocObject|swift_slowAlloc|swift_slowDealloc|"
                   r"swift_deallocClassInstance|_swift_release_dealloc|sysmalloc)('\d+)?"),
    ("copying (memcpy, memmove)", r"__(memcpy|memmove|mempcpy)\w*"),
    ("memset", r"__memset\w*"),
]


def annotate(path, inclusive):
    out = subprocess.run(["callgrind_annotate", "--threshold=100", f"--inclusive={'yes' if inclusive else 'no'}",
                          path], capture_output=True, text=True, check=True).stdout
    costs = collections.Counter()
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            costs[(m.group(3), os.path.basename(m.group(4)))] += int(m.group(1).replace(",", ""))
    return costs


def per_job(small, big, jobs, inclusive):
    a, b = annotate(small, inclusive), annotate(big, inclusive)
    return {k: (b[k] - a.get(k, 0)) / jobs for k in b}


def demangled(names):
    """Swift names readable (swift-demangle, from the toolchain on PATH); as they are without it."""
    if not shutil.which("swift-demangle"):
        return {n: n for n in names}
    out = subprocess.run(["swift-demangle", "--simplified", "--compact"], input="\n".join(names),
                         capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out)) if len(out) == len(names) else {n: n for n in names}


def library(obj):
    return re.sub(r"\.so.*", "", obj)


def report(label, small, big, jobs, steps):
    self_cost = per_job(small, big, jobs, False)
    total = sum(self_cost.values())
    print(f"\n{label}: {total / 1000:.1f}K instructions per job")
    libs = collections.Counter()
    for (_, obj), v in self_cost.items():
        libs[library(obj)] += v
    print("  by library: " + ", ".join(f"{k} {v / 1000:.1f}K" for k, v in libs.most_common() if v >= 50))
    names = demangled(sorted({f for f, _ in self_cost}))
    cats = collections.Counter()
    for (f, obj), v in self_cost.items():
        name = names.get(f, f)
        for cat, pattern in CATEGORIES:
            if re.fullmatch(pattern, f):
                cats[cat] += v
                break
        else:
            if "Hasher" in name and library(obj).startswith(("libswiftCore", "ferryd")):
                cats["hashing (Hasher)"] += v
    print("  " + ", ".join(f"{k} {v / 1000:.1f}K ({100 * v / total:.0f} %)" for k, v in cats.most_common()))
    if not steps:
        return
    inclusive = per_job(small, big, jobs, True)
    names = demangled(sorted({f for f, _ in inclusive}))
    print("  steps (inclusive; they nest and overlap):")
    for step, lib, pattern in STEPS:
        values = [v for (f, obj), v in inclusive.items()
                  if library(obj).startswith(lib) and re.fullmatch(pattern, names.get(f, f))]
        print(f"    {step:48} {max(values, default=0) / 1000:6.1f}K")


def top(small, big, jobs, n):
    """ferryd's n costliest functions per job, by self cost and by inclusive cost."""
    for inclusive in (False, True):
        cost = per_job(small, big, jobs, inclusive)
        ranked = sorted(cost.items(), key=lambda kv: -kv[1])[:n]
        names = demangled([f for (f, _), _ in ranked])
        print(f"  top {n} by {'inclusive' if inclusive else 'self'} cost per job:")
        for (f, obj), v in ranked:
            print(f"    {v / 1000:6.2f}K  {library(obj):18} {names.get(f, f)[:110]}")


def run_ferryd(products, workdir, nginx, url, jobs, window, tag, strace):
    out = os.path.join(workdir, tag + (".strace" if strace else ".cg"))
    # loop_slice_ms 1000, as bench/instructions.py sets it: under callgrind the 5 ms slice and
    # the start pacer's budget (Engine.startBudgetMicros) would end nearly every iteration early
    # and queue starts, which at full speed happens only under a flood.
    limits = {"max_jobs": 20_000, "max_jobs_per_connection": 20_000, "loop_slice_ms": 1000}
    config = {"log_level": "warning", "limits": limits, "sessions": {"default": {"ca_file": nginx.ca}}}
    wrapper = [] if strace else ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no"]
    daemon = Daemon(products, workdir, config, tag, wrapper=wrapper)
    tracer = None
    try:
        if strace:
            tracer = subprocess.Popen(["strace", "-c", "-f", "-o", out, "-p", str(daemon.pid)],
                                      stderr=subprocess.DEVNULL)
            time.sleep(1)
        result = subprocess.run([os.path.join(products, "ferry-bench-client"), daemon.socket, url, str(jobs), str(window)],
                                capture_output=True, text=True, timeout=900)
        if f"done={jobs} " not in result.stdout:
            raise BenchError(f"ferry-bench-client: {result.stdout.strip()} {result.stderr.strip()[-300:]}")
    finally:
        if tracer:
            tracer.send_signal(signal.SIGINT)
            tracer.wait()
        daemon.stop()
    return out


def run_engine(engine, workdir, nginx, scheme, url, jobs, window, tag, strace):
    out = os.path.join(workdir, tag + (".strace" if strace else ".cg"))
    wrapper = (["strace", "-c", "-f", "-o", out] if strace else
               ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", "--dump-instr=no"])
    cmd = wrapper + [engine, url, str(jobs), str(window)] + ([nginx.ca] if scheme == "https" else [])
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        raise BenchError(f"engine: {result.stdout.strip()} {result.stderr.strip()[-300:]}")
    return out


def syscalls(path):
    calls = collections.Counter()
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 5 and re.fullmatch(r"[\d.]+", fields[0]) and fields[-1] != "total":
                calls[fields[-1]] += int(fields[3])
    return calls


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--products", required=True)
    parser.add_argument("--schemes", default="http,https")
    parser.add_argument("--jobs", type=int, help="jobs measured (default 2 000, or 20 000 with --strace)")
    parser.add_argument("--window", type=int, default=50, help="jobs in flight (default 50)")
    parser.add_argument("--strace", action="store_true", help="system calls per job instead of instructions")
    parser.add_argument("--top", type=int, default=0,
                        help="also list ferryd's N costliest functions per job, self and inclusive")
    parser.add_argument("--keep", help="copy the callgrind (or strace) files into this directory")
    args = parser.parse_args()
    args.jobs = args.jobs or (20_000 if args.strace else 2000)
    tool = "strace" if args.strace else "valgrind"
    if not shutil.which(tool):
        print(f"profile: {tool} is not installed", file=sys.stderr)
        return 1
    workdir = tempfile.mkdtemp(prefix="ferry-profile-")
    os.chmod(workdir, 0o755)
    products = os.path.join(workdir, "products")
    os.makedirs(products)
    for name in ("ferryd", "ferry-bench-client"):
        shutil.copy2(os.path.join(args.products, name), products)
    subprocess.run(["strip", "--strip-debug", os.path.join(products, "ferryd")], check=True)
    engine = b1_throughput.build_engine()
    nginx = Nginx(os.path.join(workdir, "nginx"), 1 << 20, 1 << 20)
    try:
        for scheme in args.schemes.split(","):
            url = nginx.url(scheme, "/small")
            runs = {}
            for jobs in (BASE_JOBS, BASE_JOBS + args.jobs):
                runs.setdefault("ferryd", []).append(
                    run_ferryd(products, workdir, nginx, url, jobs, args.window, f"ferryd-{scheme}-{jobs}", args.strace))
                runs.setdefault("engine", []).append(
                    run_engine(engine, workdir, nginx, scheme, url, jobs, args.window, f"engine-{scheme}-{jobs}", args.strace))
            for who, (small, big) in runs.items():
                if args.strace:
                    a, b = syscalls(small), syscalls(big)
                    per = {k: (b[k] - a.get(k, 0)) / args.jobs for k in b}
                    print(f"{who} {scheme}: {sum(per.values()):.2f} system calls per job: " + ", ".join(
                        f"{k} {v:.2f}" for k, v in sorted(per.items(), key=lambda kv: -kv[1]) if v >= 0.005))
                else:
                    report(f"{who} {scheme}", small, big, args.jobs, who == "ferryd")
                    if who == "ferryd" and args.top:
                        top(small, big, args.jobs, args.top)
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    for path in (small, big):
                        shutil.copy2(path, args.keep)
    except (BenchError, subprocess.CalledProcessError) as e:
        print(f"profile: FAILED: {e} (files kept in {workdir})", file=sys.stderr)
        return 1
    finally:
        nginx.stop()
    shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
