"""B1 throughput: N small GETs with at most 50 in flight, over HTTP/1.1 and HTTPS, by ferryd
(through ferry-bench-client, one pipelined connection), curl --parallel, aiohttp and wrk.

Each repetition runs every tool once, in alternating order, and the ratios ferryd/curl and
ferryd/aiohttp are taken within the repetition. ferryd's CPU time per job (B5) is read from
/proc around its runs, and the bench client's own CPU time shows it is not the limit."""

import json
import os
import re
import shutil
import subprocess

from harness import BenchError, rotated, summary, timed

TOOLS = ["ferryd", "engine", "curl", "aiohttp", "wrk"]
# The deep queue: ferryd alone with `deep_window` jobs unanswered, so most of them wait for one
# of the default session's 64 slots; compared with the shallow window within each repetition.
DEEP = "ferryd-deep"
# With --baseline: the same two ferryd rows from another build's products (its own daemon and
# bench client), run in the same repetitions, so before/after is a ratio within one run.
BASE = "base"
BASE_DEEP = "base-deep"
# The engine alone (issue 29, bench/engine/engine.c): libevent driving curl's multi_socket API
# with ferryd's curl options and nothing else, the ceiling of any daemon on the two. Its deep
# row runs as many transfers as ferryd's default session does at once (the engine has no queue).
ENGINE_DEEP = "engine-deep"
ENGINE_SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "engine", "engine.c")
# The default session's max_concurrent (SessionConfig.maxConcurrent): what ferryd runs of a deep window.
DEFAULT_MAX_CONCURRENT = 64


def probe_ferry_version(daemon, url):
    """The HTTP version ferryd negotiates for `url` (from a `done` event)."""
    events, _ = daemon.request({"url": url, "events": [], "response": "discard"})
    last = events[-1]
    if last.get("event") != "done":
        raise BenchError(f"ferryd probe failed: {json.dumps(last)[:300]}")
    return last.get("http_version")


def run_ferry(ctx, daemon, url, n, window=None, products=None):
    cpu_before = daemon.cpu_seconds()
    seconds, out, client_cpu = timed(
        [os.path.join(products or ctx.products, "ferry-bench-client"), daemon.socket, url, str(n),
         str(window or ctx.window)])
    daemon_cpu = daemon.cpu_seconds() - cpu_before
    fields = dict(item.split("=", 1) for item in out.split())
    if int(fields["done"]) != n:
        raise BenchError(f"ferry-bench-client: {out.strip()}")
    # The client's own clock (after connecting) is the job time; process start-up is not.
    jobs_seconds = float(fields["seconds"])
    return {"rps": n / jobs_seconds, "cpu_us_per_job": daemon_cpu / n * 1e6,
            "cpu_us_per_request": (daemon_cpu + client_cpu) / n * 1e6,
            "client_cpu_share": client_cpu / jobs_seconds}


def build_engine():
    """Compiles bench/engine/engine.c into the repository's .build/bench/ (again when the source
    is newer) with cc, or the Swift toolchain's clang, against libevent-dev and
    libcurl4-openssl-dev (both in the Makefile's DEPS: ferryd links them); returns its path."""
    out_dir = os.path.join(os.path.dirname(os.path.dirname(ENGINE_SOURCE)), "..", ".build", "bench")
    exe = os.path.normpath(os.path.join(out_dir, "engine"))
    if os.path.exists(exe) and os.path.getmtime(exe) >= os.path.getmtime(ENGINE_SOURCE):
        return exe
    compiler = shutil.which("cc") or shutil.which("clang")
    if not compiler:
        raise BenchError("engine: no C compiler (cc, or the Swift toolchain's clang) on PATH")
    os.makedirs(os.path.dirname(exe), exist_ok=True)
    result = subprocess.run([compiler, "-O2", "-Wall", "-o", exe + ".tmp", ENGINE_SOURCE, "-lcurl", "-levent"],
                            capture_output=True, text=True)
    if result.returncode != 0:
        raise BenchError(f"engine: {compiler} failed: {result.stderr.strip()[-600:]}")
    os.replace(exe + ".tmp", exe)
    return exe


def run_engine(ctx, scheme, url, n, window):
    cmd = [ctx.engine, url, str(n), str(window)] + ([ctx.nginx.ca] if scheme == "https" else [])
    _, out, cpu = timed(cmd)
    fields = dict(item.split("=", 1) for item in out.split())
    if int(fields["done"]) != n or int(fields["failed"]) != 0:
        raise BenchError(f"engine: {out.strip()}")
    # Its own clock, from the first transfer started to the last ended, as ferry-bench-client's.
    return {"rps": n / float(fields["seconds"]), "http_version": fields["http_version"],
            "cpu_us_per_request": cpu / n * 1e6}


def curl_list(ctx, scheme, url, n):
    path = os.path.join(ctx.workdir, f"curl-{scheme}-{n}.list")
    if not os.path.exists(path):
        with open(path, "w") as f:
            f.write(f'url = "{url}"\noutput = "/dev/null"\n' * n)
    return path


def run_curl(ctx, scheme, url, n):
    cmd = ["curl", "-s", "--parallel", "--parallel-max", str(ctx.window), "-K", curl_list(ctx, scheme, url, n),
           "-w", "%{http_code} %{http_version}\\n"]
    if scheme == "https":
        cmd += ["--cacert", ctx.nginx.ca]
    seconds, out, cpu = timed(cmd)
    lines = out.split("\n")
    ok = sum(1 for line in lines if line.startswith("200 "))
    if ok != n:
        raise BenchError(f"curl: {ok} of {n} requests answered 200")
    return {"rps": n / seconds, "http_version": lines[0].split()[1], "cpu_us_per_request": cpu / n * 1e6}


def run_aiohttp(ctx, scheme, url, n):
    cmd = [ctx.venv_python, os.path.join(ctx.bench_dir, "aiohttp_b1.py"), url, str(n), str(ctx.window)]
    if scheme == "https":
        cmd.append(ctx.nginx.ca)
    _, out, cpu = timed(cmd)
    result = json.loads(out)
    if result["ok"] != n:
        raise BenchError(f"aiohttp: {out.strip()}")
    return {"rps": n / result["seconds"], "http_version": result["http_version"],
            "cpu_us_per_request": cpu / n * 1e6}


def run_wrk(ctx, url):
    threads = min(2, ctx.window)
    _, out, cpu = timed(["wrk", "-t", str(threads), "-c", str(ctx.window), "-d", f"{ctx.wrk_seconds}s", url])
    match = re.search(r"Requests/sec:\s+([\d.]+)", out)
    total = re.search(r"(\d+) requests in", out)
    if not match or not total or "Non-2xx" in out:
        raise BenchError(f"wrk: {out.strip()[-400:]}")
    # Socket errors (a timeout at the end of a loaded run) are kept, not fatal: wrk is the ceiling.
    errors = re.search(r"Socket errors:.*", out)
    return {"rps": float(match.group(1)), "http_version": "1.1", "errors": errors.group(0) if errors else None,
            "cpu_us_per_request": cpu / int(total.group(1)) * 1e6}


def run(ctx, daemon, base_daemon=None):
    """All of B1 against a warm `daemon` (and `base_daemon`, the baseline build's, when given);
    returns the B1 section of the results."""
    tools = [t for t in TOOLS if (t != "aiohttp" or ctx.venv_python) and (t != "wrk" or shutil.which("wrk"))]
    skipped = [t for t in TOOLS if t not in tools]
    ctx.engine = build_engine()
    section = {"n": ctx.b1_jobs, "in_flight": ctx.window, "reps": ctx.reps, "skipped": skipped, "protocols": {},
               "deep_window": ctx.deep_window}
    if base_daemon:
        section["baseline"] = ctx.baseline_label
    for scheme in ("http", "https"):
        url = ctx.nginx.url(scheme, "/small")
        versions = {"ferryd": probe_ferry_version(daemon, url)}
        scheme_tools = tools + [DEEP, ENGINE_DEEP] if scheme == "http" else list(tools)
        if base_daemon:
            versions[BASE] = probe_ferry_version(base_daemon, url)
            scheme_tools += [BASE, BASE_DEEP] if scheme == "http" else [BASE]
        per_tool = {t: [] for t in scheme_tools}
        for rep in range(ctx.reps):
            for tool in rotated(scheme_tools, rep):
                ctx.log(f"B1 {scheme} rep {rep + 1}/{ctx.reps}: {tool}")
                if tool == "ferryd":
                    result = run_ferry(ctx, daemon, url, ctx.b1_jobs)
                elif tool == DEEP:
                    result = run_ferry(ctx, daemon, url, ctx.b1_jobs, ctx.deep_window)
                elif tool == BASE:
                    result = run_ferry(ctx, base_daemon, url, ctx.b1_jobs, products=ctx.baseline)
                elif tool == BASE_DEEP:
                    result = run_ferry(ctx, base_daemon, url, ctx.b1_jobs, ctx.deep_window, products=ctx.baseline)
                elif tool == "engine":
                    result = run_engine(ctx, scheme, url, ctx.b1_jobs, ctx.window)
                elif tool == ENGINE_DEEP:
                    result = run_engine(ctx, scheme, url, ctx.b1_jobs, min(ctx.deep_window, DEFAULT_MAX_CONCURRENT))
                elif tool == "curl":
                    result = run_curl(ctx, scheme, url, ctx.b1_jobs)
                elif tool == "aiohttp":
                    result = run_aiohttp(ctx, scheme, url, ctx.b1_jobs)
                else:
                    result = run_wrk(ctx, url)
                versions.setdefault(tool, result.get("http_version"))
                per_tool[tool].append(result)
        section["protocols"][scheme] = summarize(per_tool, versions)
    return section


def summarize(per_tool, versions):
    """Medians per tool and the pairwise ratios of each repetition."""
    out = {"http_versions": versions, "tools": {}, "ratios": {}}
    for tool, results in per_tool.items():
        out["tools"][tool] = {"rps": summary([r["rps"] for r in results]),
                              "cpu_us_per_request": summary([r["cpu_us_per_request"] for r in results])}
        errors = [r["errors"] for r in results if r.get("errors")]
        if errors:
            out["tools"][tool]["errors"] = errors
    ferry = per_tool["ferryd"]
    for tool in ("ferryd", DEEP, BASE, BASE_DEEP):
        if tool in per_tool:
            out["tools"][tool]["cpu_us_per_job"] = summary([r["cpu_us_per_job"] for r in per_tool[tool]])
            out["tools"][tool]["client_cpu_share"] = summary([r["client_cpu_share"] for r in per_tool[tool]])
            versions.setdefault(tool, versions.get("ferryd"))
    if DEEP in per_tool:
        out["ratios"]["deep/shallow"] = summary([d["rps"] / f["rps"] for d, f in zip(per_tool[DEEP], ferry)])
    if ENGINE_DEEP in per_tool:
        out["ratios"][f"{DEEP}/{ENGINE_DEEP}"] = summary(
            [d["rps"] / e["rps"] for d, e in zip(per_tool[DEEP], per_tool[ENGINE_DEEP])])
    if BASE_DEEP in per_tool:
        out["ratios"]["base-deep/shallow"] = summary(
            [d["rps"] / f["rps"] for d, f in zip(per_tool[BASE_DEEP], per_tool[BASE])])
    for new, old in (("ferryd", BASE), (DEEP, BASE_DEEP)):
        if old in per_tool:
            out["ratios"][f"{new}/{old}"] = summary([n["rps"] / o["rps"] for n, o in zip(per_tool[new], per_tool[old])])
    for peer in ("engine", "curl", "aiohttp", "wrk"):
        if peer in per_tool:
            out["ratios"][f"ferryd/{peer}"] = summary(
                [f["rps"] / p["rps"] for f, p in zip(ferry, per_tool[peer])])
    return out
