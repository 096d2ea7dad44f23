"""B2 one-shot from a shell, HTTPS, warm daemon: the wall time of one small GET as a shell
script would make it, by `ferry get`, by a job line through `socat`, and by `curl -s`.

hyperfine times the commands (each through the shell, whose start-up it measures and
subtracts); without hyperfine, a plain loop of runs through the shell does. Every round times
the three commands, in alternating order, and the ratios are taken within the round."""

import json
import os
import shlex
import shutil
import statistics
import subprocess
import tempfile
import time

from harness import BenchError, rotated, summary

COMMANDS = ["ferry get", "socat", "curl"]


def commands(ctx, daemon, url):
    job = json.dumps({"url": url})
    return {
        "ferry get": f"{shlex.quote(os.path.join(ctx.products, 'ferry'))} get {shlex.quote(url)}",
        "socat": f"echo {shlex.quote(job)} | socat - UNIX-CONNECT:{shlex.quote(daemon.socket)}",
        "curl": f"curl -s --cacert {shlex.quote(ctx.nginx.ca)} {shlex.quote(url)}",
    }


def time_with_hyperfine(ctx, names, cmds, env):
    """Median wall seconds of each command in one hyperfine invocation."""
    with tempfile.NamedTemporaryFile(suffix=".json", dir=ctx.workdir, delete=False) as f:
        export = f.name
    args = ["hyperfine", "--style", "none", "--warmup", str(ctx.b2_warmup), "--runs", str(ctx.b2_runs),
            "--export-json", export]
    args += [cmds[n] for n in names]
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise BenchError(f"hyperfine: {done.stderr.strip()[-500:]}")
    with open(export) as f:
        results = json.load(f)["results"]
    os.unlink(export)
    return {n: r["median"] for n, r in zip(names, results)}


def time_with_loop(ctx, names, cmds, env):
    """The fallback: each command run through `sh -c` b2_runs times after a warm-up."""
    medians = {}
    for n in names:
        times = []
        for i in range(ctx.b2_warmup + ctx.b2_runs):
            start = time.perf_counter()
            subprocess.run(["sh", "-c", cmds[n]], env=env, stdout=subprocess.DEVNULL, check=True, timeout=60)
            if i >= ctx.b2_warmup:
                times.append(time.perf_counter() - start)
        medians[n] = statistics.median(times)
    return medians


def check_once(cmds, env):
    """Each command must fetch the body, or the timings would time a failure."""
    for name, cmd in cmds.items():
        out = subprocess.run(["sh", "-c", cmd], env=env, capture_output=True, text=True, timeout=60)
        if out.returncode != 0 or "hello from nginx" not in out.stdout:
            raise BenchError(f"B2 {name} failed: {out.stdout[-300:]} {out.stderr[-300:]}")


def run(ctx, daemon):
    url = ctx.nginx.url("https", "/small")
    cmds = commands(ctx, daemon, url)
    env = dict(os.environ, FERRY_SOCKET=daemon.socket)
    check_once(cmds, env)
    tool = "hyperfine" if shutil.which("hyperfine") else "loop"
    per_round = []
    for rep in range(ctx.reps):
        ctx.log(f"B2 round {rep + 1}/{ctx.reps} ({tool}, {ctx.b2_runs} runs each)")
        names = rotated(COMMANDS, rep)
        timer = time_with_hyperfine if tool == "hyperfine" else time_with_loop
        per_round.append(timer(ctx, names, cmds, env))
    return {
        "timer": tool,
        "runs_per_round": ctx.b2_runs,
        "rounds": ctx.reps,
        "commands": cmds,
        "ms": {n: summary([r[n] * 1000 for r in per_round]) for n in COMMANDS},
        "ratios": {
            f"{n}/curl": summary([r[n] / r["curl"] for r in per_round]) for n in ("ferry get", "socat")
        },
    }
