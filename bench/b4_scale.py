"""B4 scale: many jobs submitted at once to a session limited to 100 at a time, and many idle
client connections held open at once. Each repetition starts a fresh daemon, so its VmHWM is
the peak of that repetition alone."""

import json
import os
import select
import time

from harness import BenchError, summary, timed


def burst(ctx, daemon, jobs=None):
    """All `jobs` (b4_jobs) jobs written at once on one connection (the client's window is the
    whole burst) to the `burst` session; returns seconds and the daemon's peak RSS."""
    jobs = jobs or ctx.b4_jobs
    extra = '"session":"burst"'
    _, out, _ = timed([os.path.join(ctx.products, "ferry-bench-client"), daemon.socket,
                       ctx.nginx.url("http", "/small"), str(jobs), str(jobs), extra])
    fields = dict(item.split("=", 1) for item in out.split())
    if int(fields["done"]) != jobs:
        raise BenchError(f"B4 burst: {out.strip()}")
    return float(fields["seconds"]), daemon.hwm_kib()


def idle_connections(ctx, daemon):
    """Opens b4_connections connections, checks the daemon counts them all, then pings each
    one and waits for every pong. Returns (RSS with them open in KiB, seconds for the pongs)."""
    conns = []
    try:
        for _ in range(ctx.b4_connections):
            conns.append(daemon.connect())
        # Give the loop a moment to accept them all before asking for the count.
        deadline = time.monotonic() + 10
        while True:
            events, _ = daemon.request({"op": "stats"})
            clients = events[0].get("clients")
            if clients == ctx.b4_connections + 1 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        if clients != ctx.b4_connections + 1:
            raise BenchError(f"B4: stats counts {clients} clients with {ctx.b4_connections} open")
        rss = daemon.rss_kib()
        start = time.perf_counter()
        for c in conns:
            c.sendall(b'{"op":"ping"}\n')
        waiting = {c.fileno(): c for c in conns}
        poller = select.poll()
        for fd in waiting:
            poller.register(fd, select.POLLIN)
        buffers = {fd: b"" for fd in waiting}
        while waiting and time.perf_counter() - start < 30:
            for fd, _ in poller.poll(1000):
                data = waiting[fd].recv(4096)
                buffers[fd] += data
                if b"\n" in buffers[fd] or not data:
                    line = buffers[fd].split(b"\n", 1)[0]
                    if json.loads(line or b"{}").get("event") != "pong":
                        raise BenchError(f"B4: a connection got {line[:200]!r} instead of pong")
                    poller.unregister(fd)
                    del waiting[fd]
        if waiting:
            raise BenchError(f"B4: {len(waiting)} connections got no pong")
        return rss, time.perf_counter() - start
    finally:
        for c in conns:
            c.close()


def run(ctx, start_daemon):
    """`start_daemon()` gives a fresh daemon; each repetition uses its own."""
    seconds, peaks, idle_rss, pong_s, large_seconds, large_peaks = [], [], [], [], [], []
    for rep in range(ctx.reps):
        # The large burst on a daemon of its own, so that its peak is its own.
        ctx.log(f"B4 rep {rep + 1}/{ctx.reps}: {ctx.b4_large_jobs} jobs")
        daemon = start_daemon()
        try:
            s, peak = burst(ctx, daemon, ctx.b4_large_jobs)
            large_seconds.append(s)
            large_peaks.append(peak / 1024)
        finally:
            daemon.stop()
        ctx.log(f"B4 rep {rep + 1}/{ctx.reps}: {ctx.b4_jobs} jobs, {ctx.b4_connections} connections")
        daemon = start_daemon()
        try:
            s, peak = burst(ctx, daemon)
            seconds.append(s)
            peaks.append(peak / 1024)
            rss, pongs = idle_connections(ctx, daemon)
            idle_rss.append(rss / 1024)
            pong_s.append(pongs * 1000)
        finally:
            daemon.stop()
    return {
        "jobs": ctx.b4_jobs,
        "max_concurrent": 100,
        "connections": ctx.b4_connections,
        "reps": ctx.reps,
        "burst_seconds": summary(seconds),
        "burst_jobs_per_s": summary([ctx.b4_jobs / s for s in seconds]),
        "peak_rss_mib": summary(peaks),
        "large_jobs": ctx.b4_large_jobs,
        "large_burst_seconds": summary(large_seconds),
        "large_peak_rss_mib": summary(large_peaks),
        "rss_with_connections_mib": summary(idle_rss),
        "all_pongs_ms": summary(pong_s),
    }
