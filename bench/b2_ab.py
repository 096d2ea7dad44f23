#!/usr/bin/python3
"""B2 before/after in one run: `ferry get` of two builds, same warm daemon, runs interleaved.

    bench/b2_ab.py --products .build/release --baseline-ferry /tmp/ferry-before [--rounds 5] [--runs 200]

One loopback nginx and one ferryd (from --products), as B2 in bench/run.py: an HTTPS GET of
/small against a warm daemon (10 untimed runs of each first). Each round runs the two binaries
alternately, `--runs` times each (new first on even rounds, base first on odd ones), spawned
directly (no shell) with stdout to /dev/null, and takes each one's median wall time (spawn to
reap) and median CPU (user + sys from wait4). The result is new ÷ base per round, then the
median of the rounds with their min–max. Interleaving run by run, rather than hyperfine's
blocks of one command, keeps a shared machine's changing load out of the ratio: both binaries
see the same moments."""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Daemon, Nginx, summary  # noqa: E402


def spawn_once(argv, env, devnull):
    """Wall seconds and CPU seconds (user + sys) of one run; the run must exit 0."""
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1)])
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{argv[0]} exited {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime


def one_round(binaries, url, env, runs, reverse, devnull):
    order = list(reversed(binaries)) if reverse else list(binaries)
    walls = {name: [] for name in binaries}
    cpus = {name: [] for name in binaries}
    for _ in range(runs):
        for name in order:
            wall, cpu = spawn_once([binaries[name], "get", url], env, devnull)
            walls[name].append(wall)
            cpus[name].append(cpu)
    return {name: (statistics.median(walls[name]), statistics.median(cpus[name])) for name in binaries}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--products", required=True, help="directory holding ferryd and the new ferry")
    parser.add_argument("--baseline-ferry", required=True, help="the ferry binary to compare against")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    products = os.path.abspath(args.products)
    workdir = tempfile.mkdtemp(prefix="ferry-b2ab-")
    os.chmod(workdir, 0o755)
    # Both binaries run from directories of the same depth on the same file system: the loader
    # searches $ORIGIN (the binary's rpath) for every library first, and a longer or slower path
    # there alone moved the result by 2-3 %.
    binaries = {}
    for name, source in (("new", os.path.join(products, "ferry")), ("base", args.baseline_ferry)):
        os.mkdir(os.path.join(workdir, name))
        binaries[name] = shutil.copy2(source, os.path.join(workdir, name, "ferry"))
    nginx = Nginx(os.path.join(workdir, "nginx"), 1 << 20, 1 << 20)
    rounds = []
    try:
        config = {"log_level": "warning", "sessions": {"default": {"ca_file": nginx.ca}}}
        daemon = Daemon(products, workdir, config, "ferryd")
        try:
            url = nginx.url("https", "/small")
            env = dict(os.environ, FERRY_SOCKET=daemon.socket)
            for name, path in binaries.items():
                out = subprocess.run([path, "get", url], env=env, capture_output=True, text=True, timeout=60)
                if out.returncode != 0 or "hello from nginx" not in out.stdout:
                    sys.exit(f"{name} failed: {out.stdout[-300:]} {out.stderr[-300:]}")
            devnull = os.open(os.devnull, os.O_WRONLY)
            one_round(binaries, url, env, 10, False, devnull)
            for rep in range(args.rounds):
                r = one_round(binaries, url, env, args.runs, rep % 2 == 1, devnull)
                rounds.append(r)
                print(f"round {rep + 1}: new {r['new'][0] * 1000:.3f} ms (cpu {r['new'][1] * 1000:.3f}), "
                      f"base {r['base'][0] * 1000:.3f} ms (cpu {r['base'][1] * 1000:.3f}); "
                      f"new/base {r['new'][0] / r['base'][0]:.3f}", flush=True)
            os.close(devnull)
        finally:
            daemon.stop()
    finally:
        nginx.stop()
        shutil.rmtree(workdir, ignore_errors=True)
    result = {
        "wall_ms": {n: summary([r[n][0] * 1000 for r in rounds]) for n in binaries},
        "cpu_ms": {n: summary([r[n][1] * 1000 for r in rounds]) for n in binaries},
        "wall new/base": summary([r["new"][0] / r["base"][0] for r in rounds]),
        "cpu new/base": summary([r["new"][1] / r["base"][1] for r in rounds]),
    }
    for key in ("wall new/base", "cpu new/base"):
        s = result[key]
        print(f"{key}: median {s['median']:.3f} ({s['min']:.3f}–{s['max']:.3f}) over {args.rounds} rounds")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
