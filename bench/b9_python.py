"""B9 client libraries (issue 27): B1's workload (N GETs of /small, at most 50 in flight) through
the Python library's AsyncClient (ferry-python) and FerryKit's FerryClient.data(for:)
(ferry-bench-kit: ferry-kit), against aiohttp (bench/.venv, as B1 runs it) and
ferry-bench-client (the same daemon without a library: a library's own cost per job is the
difference), over http and https. ferry-bench-client runs twice: as B1 runs it (bodies
discarded) and asking for what both libraries ask for (`"response":"base64"`, the body in
`done`: ferry-bench-client-base64), so that a library's ratio and overhead compare the same
daemon work.

    bench/run.py --products .build/release [--venv bench/.venv] --only-b9 [--reps 3]
    bench/b9_python.py --products .build/release [--venv ...] [--reps 3]   (the same)

Each repetition runs every client once, in rotated order, against one warm ferryd; ratios are
taken within a repetition. CPU per request: the client's processes (rusage), and for the ferry
rows ferryd's too (/proc), since that work is the client's own on the aiohttp row; on a shared
machine these say more than rates. Targets: ferry-python >= 2x aiohttp's rate, ferry-kit >=
0.9x ferry-bench-client-base64's (the library's overhead per job, the daemon's work the same)."""

import asyncio
import json
import os
import sys
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH_DIR)

from harness import BenchError, rotated, summary, timed  # noqa: E402

TOOLS = ["ferry-python", "ferry-kit", "aiohttp", "ferry-bench-client", "ferry-bench-client-base64"]
# The libraries, each against every peer: ferry-python / aiohttp and ferry-kit /
# ferry-bench-client-base64 are the targets, the others are for reference.
LIBRARIES = ["ferry-python", "ferry-kit"]
PEERS = ["aiohttp", "ferry-bench-client", "ferry-bench-client-base64"]
# A library's own cost per job is its client CPU less that of the bench client asking the
# daemon for the same: both libraries ask for the body in `done` as base64.
SAME_WORK = "ferry-bench-client-base64"


async def python_run(socket_path, url, n, window):
    """n GETs through one AsyncClient, `window` tasks taking the next request, as aiohttp_b1.py
    does; bodies read (the 17 bytes come inline in `done`). Runs in the child (--child)."""
    sys.path.insert(0, os.path.join(os.path.dirname(BENCH_DIR), "clients", "python"))
    import ferry

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
        version = (await client.get(url)).http_version
    return {"seconds": seconds, "http_version": version, **counts}


def run_ferry_client(cmd, daemon, n):
    """One run of a client of `daemon`: its result line, its CPU and ferryd's, per request."""
    before = daemon.cpu_seconds()
    _, out, cpu = timed(cmd)
    daemon_cpu = daemon.cpu_seconds() - before
    return out, {"cpu_us_per_request": cpu / n * 1e6, "daemon_cpu_us_per_request": daemon_cpu / n * 1e6}


def run_python(ctx, daemon, url, n):
    cmd = [sys.executable, os.path.abspath(__file__), "--child", daemon.socket, url, str(n), str(ctx.window)]
    out, result = run_ferry_client(cmd, daemon, n)
    child = json.loads(out)
    if child["ok"] != n:
        raise BenchError(f"ferry-python: {out.strip()}")
    return {"rps": n / child["seconds"], "http_version": child["http_version"], **result}


def run_fields(tool, cmd, daemon, n, count_field, expect):
    """ferry-bench-client and ferry-bench-kit print `key=value` fields; their own clock is the time."""
    out, result = run_ferry_client(cmd, daemon, n)
    fields = dict(item.split("=", 1) for item in out.split())
    if int(fields[count_field]) != expect:
        raise BenchError(f"{tool}: {out.strip()}")
    return {"rps": n / float(fields["seconds"]), **result}


def run_kit(ctx, daemon, url, n):
    cmd = [os.path.join(ctx.products, "ferry-bench-kit"), daemon.socket, url, str(n), str(ctx.window)]
    return run_fields("ferry-bench-kit", cmd, daemon, n, "failed", 0)


def run_bench_client(ctx, daemon, url, n, extra=""):
    cmd = [os.path.join(ctx.products, "ferry-bench-client"), daemon.socket, url, str(n), str(ctx.window), extra]
    return run_fields("ferry-bench-client", cmd, daemon, n, "done", n)


def run_aiohttp(ctx, scheme, url, n):
    cmd = [ctx.venv_python, os.path.join(BENCH_DIR, "aiohttp_b1.py"), url, str(n), str(ctx.window)]
    if scheme == "https":
        cmd.append(ctx.nginx.ca)
    _, out, cpu = timed(cmd)
    result = json.loads(out)
    if result["ok"] != n:
        raise BenchError(f"aiohttp: {out.strip()}")
    return {"rps": n / result["seconds"], "http_version": result["http_version"], "cpu_us_per_request": cpu / n * 1e6}


def run(ctx, daemon, ferry_version):
    """All of B9 against a warm `daemon`; `ferry_version(url)` is the HTTP version ferryd
    negotiates (b1_throughput.probe_ferry_version). Returns the B9 section of the results."""
    tools = [t for t in TOOLS if t != "aiohttp" or ctx.venv_python]
    n = ctx.b9_jobs
    section = {"n": n, "in_flight": ctx.window, "reps": ctx.reps, "skipped": [t for t in TOOLS if t not in tools],
               "protocols": {}}
    for scheme in ("http", "https"):
        url = ctx.nginx.url(scheme, "/small")
        daemon_version = ferry_version(url)
        versions = {"ferry-kit": daemon_version, "ferry-bench-client": daemon_version,
                    "ferry-bench-client-base64": daemon_version}
        per_tool = {t: [] for t in tools}
        for rep in range(ctx.reps):
            for tool in rotated(tools, rep):
                ctx.log(f"B9 {scheme} rep {rep + 1}/{ctx.reps}: {tool}")
                if tool == "ferry-python":
                    result = run_python(ctx, daemon, url, n)
                elif tool == "ferry-kit":
                    result = run_kit(ctx, daemon, url, n)
                elif tool == "aiohttp":
                    result = run_aiohttp(ctx, scheme, url, n)
                elif tool == "ferry-bench-client-base64":
                    result = run_bench_client(ctx, daemon, url, n, '"response":"base64"')
                else:
                    result = run_bench_client(ctx, daemon, url, n)
                versions.setdefault(tool, result.get("http_version"))
                per_tool[tool].append(result)
        section["protocols"][scheme] = summarize(per_tool, versions)
    return section


def summarize(per_tool, versions):
    """Medians per tool, each library's rate over each peer's per repetition, and each
    library's client CPU per request over ferry-bench-client's (its own cost per job)."""
    out = {"http_versions": versions, "tools": {}, "ratios": {}, "overhead_us_per_request": {}}
    for tool, results in per_tool.items():
        out["tools"][tool] = {
            "rps": summary([r["rps"] for r in results]),
            "cpu_us_per_request": summary([r["cpu_us_per_request"] for r in results]),
            "daemon_cpu_us_per_request": summary([r.get("daemon_cpu_us_per_request") for r in results])}
    for library in LIBRARIES:
        for peer in PEERS:
            if library in per_tool and peer in per_tool:
                out["ratios"][f"{library}/{peer}"] = summary(
                    [a["rps"] / b["rps"] for a, b in zip(per_tool[library], per_tool[peer])])
        out["overhead_us_per_request"][library] = summary(
            [a["cpu_us_per_request"] - b["cpu_us_per_request"]
             for a, b in zip(per_tool[library], per_tool[SAME_WORK])])
    return out


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "--child":
        socket_path, url, n, window = sys.argv[2:]
        print(json.dumps(asyncio.run(python_run(socket_path, url, int(n), int(window)))))
        return 0
    # Standalone: bench/run.py --only-b9 with the same options.
    run_py = os.path.join(BENCH_DIR, "run.py")
    os.execv(sys.executable, [sys.executable, run_py, "--only-b9", *sys.argv[1:]])


if __name__ == "__main__":
    sys.exit(main())
