"""B9: the Python library's AsyncClient on B1's workload (N small GETs of /small, 50 in flight,
from a loopback nginx) against aiohttp (bench/.venv, as B1 runs it) and ferry-bench-client
(the same daemon without the library: the library's own cost per job is the difference).

    bench/b9_python.py --products .build/release [--venv bench/.venv] [--n 20000] [--window 50]
                       [--reps 3] [--schemes http,https]

Standalone (not in bench/run.py yet). Each repetition runs the three clients once, in rotated
order, against one warm ferryd and one nginx from tools/nginx-fixture.sh; ratios are taken
within a repetition and reported as median (min-max). Prints a table and one JSON line. CPU per
request: the client process's (rusage), and for the ferry rows ferryd's too (/proc), since
that work is the client's on the aiohttp row; on a shared machine these say more than rates.
Target (issue 27): the AsyncClient at >= 2x aiohttp's rate."""

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH_DIR)
sys.path.insert(0, BENCH_DIR)
sys.path.insert(0, os.path.join(REPO, "clients", "python"))

from harness import Daemon, raise_nofile, rotated, summary, timed  # noqa: E402

import ferry  # noqa: E402

TOOLS = ["ferry-python", "aiohttp", "ferry-bench-client"]


async def python_run(socket_path, url, n, window):
    """n GETs through one AsyncClient, `window` tasks taking the next request, as aiohttp_b1.py
    does; bodies read (the 17 bytes come inline in `done`)."""
    async with ferry.AsyncClient(socket_path) as client:
        remaining = iter(range(n))
        counts = {"ok": 0, "failed": 0}

        async def worker():
            for _ in remaining:
                r = await client.get(url)
                counts["ok" if r.status_code == 200 and r.content else "failed"] += 1
        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(window)))
        seconds = time.perf_counter() - start
        version = r.http_version if (r := await client.get(url)) else None
    return {"seconds": seconds, "http_version": version, **counts}


def run_python(args, daemon, url):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", daemon.socket, url, str(args.n), str(args.window)]
    before = daemon.cpu_seconds()
    _, out, cpu = timed(cmd)
    daemon_cpu = daemon.cpu_seconds() - before
    result = json.loads(out)
    if result["ok"] != args.n:
        raise SystemExit(f"ferry-python: {out}")
    return {"rps": args.n / result["seconds"], "cpu_us_per_request": cpu / args.n * 1e6,
            "daemon_cpu_us_per_request": daemon_cpu / args.n * 1e6, "http_version": result["http_version"]}


def run_aiohttp(args, url, ca):
    cmd = [os.path.join(args.venv, "bin", "python"), os.path.join(BENCH_DIR, "aiohttp_b1.py"), url, str(args.n),
           str(args.window)] + ([ca] if url.startswith("https") else [])
    _, out, cpu = timed(cmd)
    result = json.loads(out)
    if result["ok"] != args.n:
        raise SystemExit(f"aiohttp: {out}")
    return {"rps": args.n / result["seconds"], "cpu_us_per_request": cpu / args.n * 1e6,
            "http_version": result["http_version"]}


def run_bench_client(args, daemon, url):
    before = daemon.cpu_seconds()
    _, out, cpu = timed([os.path.join(args.products, "ferry-bench-client"), daemon.socket, url, str(args.n),
                         str(args.window)])
    daemon_cpu = daemon.cpu_seconds() - before
    fields = dict(item.split("=", 1) for item in out.split())
    if int(fields["done"]) != args.n:
        raise SystemExit(f"ferry-bench-client: {out}")
    return {"rps": args.n / float(fields["seconds"]), "cpu_us_per_request": cpu / args.n * 1e6,
            "daemon_cpu_us_per_request": daemon_cpu / args.n * 1e6}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--child", nargs=4)
    parser.add_argument("--products", default=os.path.join(REPO, ".build", "release"))
    parser.add_argument("--venv", default=os.path.join(BENCH_DIR, ".venv"))
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("--window", type=int, default=50)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--schemes", default="http,https")
    args = parser.parse_args()
    if args.child:
        socket_path, url, n, window = args.child
        print(json.dumps(asyncio.run(python_run(socket_path, url, int(n), int(window)))))
        return
    raise_nofile()
    tools = [t for t in TOOLS if t != "aiohttp" or os.path.exists(os.path.join(args.venv, "bin", "python"))]
    workdir = tempfile.mkdtemp(prefix="ferry-b9-")
    nginx_dir = os.path.join(workdir, "nginx")
    os.makedirs(nginx_dir)
    os.chmod(workdir, 0o755)
    out = subprocess.run([os.path.join(REPO, "tools", "nginx-fixture.sh"), "start", nginx_dir],
                         env=dict(os.environ, NGINX_BIG_BYTES="1024"), check=True, capture_output=True).stdout
    ports = dict(pair.split("=", 1) for pair in out.decode().split())
    ca = ports["ca"]
    config = {"log_level": "warning", "limits": {"max_jobs": 20000, "max_jobs_per_connection": 20000},
              "sessions": {"default": {"ca_file": ca}}}
    daemon = Daemon(args.products, workdir, config, "ferryd-b9")
    results = {"n": args.n, "in_flight": args.window, "reps": args.reps, "load_start": os.getloadavg(),
               "protocols": {}}
    try:
        for scheme in args.schemes.split(","):
            port = ports["http_port" if scheme == "http" else "https_port"]
            url = f"{scheme}://127.0.0.1:{port}/small"
            per_tool = {t: [] for t in tools}
            for rep in range(args.reps):
                for tool in rotated(tools, rep):
                    if tool == "ferry-python":
                        per_tool[tool].append(run_python(args, daemon, url))
                    elif tool == "aiohttp":
                        per_tool[tool].append(run_aiohttp(args, url, ca))
                    else:
                        per_tool[tool].append(run_bench_client(args, daemon, url))
                    print(f"{scheme} rep {rep + 1}: {tool} {per_tool[tool][-1]['rps']:.0f} req/s", file=sys.stderr)
            section = {t: {"rps": summary([r["rps"] for r in rs]),
                           "client_cpu_us_per_request": summary([r["cpu_us_per_request"] for r in rs]),
                           "daemon_cpu_us_per_request": summary([r.get("daemon_cpu_us_per_request") for r in rs])}
                       for t, rs in per_tool.items()}
            ratios = {}
            for other in tools[1:]:
                ratios[f"ferry-python / {other}"] = summary(
                    [p["rps"] / o["rps"] for p, o in zip(per_tool["ferry-python"], per_tool[other])])
            results["protocols"][scheme] = {"tools": section, "ratios": ratios}
    finally:
        daemon.stop()
        subprocess.run([os.path.join(REPO, "tools", "nginx-fixture.sh"), "stop", nginx_dir], capture_output=True)
        shutil.rmtree(workdir, ignore_errors=True)
    results["load_end"] = os.getloadavg()
    for scheme, section in results["protocols"].items():
        print(f"\nB9 {scheme}: {args.n} GETs of /small, {args.window} in flight, {args.reps} reps (median, min-max)")
        for tool, r in section["tools"].items():
            rps = r["rps"]
            daemon_cpu = r["daemon_cpu_us_per_request"]["median"]
            print(f"  {tool:20s} {rps['median']:8.0f} req/s ({rps['min']:.0f}-{rps['max']:.0f}); "
                  f"client CPU {r['client_cpu_us_per_request']['median']:.0f} us/request"
                  + (f" + ferryd {daemon_cpu:.0f}" if daemon_cpu is not None else ""))
        for name, ratio in section["ratios"].items():
            print(f"  {name:36s} {ratio['median']:.2f}x ({ratio['min']:.2f}-{ratio['max']:.2f})")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
