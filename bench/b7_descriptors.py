#!/usr/bin/env python3
"""B7 (issue 15): a 1 GiB download through `output_fd` into a file (the descriptor passed with
the job line, SCM_RIGHTS) and through `response: "stream"` to a client that reads and decodes
every `data` event, each against `curl -o` in the same repetitions, over HTTP/1.1 from the
loopback nginx; and the daemon's RSS growth during them (VmHWM after against VmRSS before,
and the highest VmRSS sampled every 10 ms).

`make bench` runs it (bench/run.py, the rows `output_fd`, `stream_raw`, `stream` and `curl`);
directly:

    bench/b7_descriptors.py --products .build/release [--bytes N] [--reps N] [--tools a,b]

Files go to /dev/shm when it has room, so the disk is not what is measured."""

import argparse
import array
import binascii
import json
import os
import shutil
import socket
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BenchError, Daemon, Nginx, proc_status_kib, raise_nofile, rotated, summary, timed  # noqa: E402

TOOLS = ["output_fd", "stream", "stream_raw", "output", "curl"]


def send_with_fd(sock, line, fd):
    data = json.dumps(line).encode() + b"\n"
    sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])


def lines(sock):
    pending = b""
    while True:
        chunk = sock.recv(1 << 20)
        if not chunk:
            return
        pending += chunk
        *complete, pending = pending.split(b"\n")
        yield from complete


def ferry_output_fd(daemon, url, path, size):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with daemon.connect() as s:
        start = time.perf_counter()
        send_with_fd(s, {"url": url, "output_fd": 0, "events": []}, fd)
        os.close(fd)
        for line in lines(s):
            event = json.loads(line)
            if event["event"] in ("done", "failed", "cancelled"):
                break
        seconds = time.perf_counter() - start
    if event.get("bytes") != size or os.path.getsize(path) != size:
        raise BenchError(f"output_fd: {event}")
    return seconds


def ferry_output(daemon, url, path, size):
    """The path-based `output` of B3, as a reference within the same run."""
    events, seconds = daemon.request({"url": url, "output": path, "events": []})
    if events[-1].get("bytes") != size:
        raise BenchError(f"output: {events[-1]}")
    return seconds


def ferry_stream(daemon, url, size):
    """Reads every data event and decodes its base64: a client that consumes the body."""
    got = 0
    marker = b'"base64":"'
    with daemon.connect() as s:
        start = time.perf_counter()
        s.sendall(json.dumps({"url": url, "response": "stream", "events": ["data"]}).encode() + b"\n")
        for line in lines(s):
            if line.startswith(b'{"event":"data"'):
                at = line.index(marker) + len(marker)
                got += len(binascii.a2b_base64(line[at:-2]))
                continue
            event = json.loads(line)
            if event["event"] in ("done", "failed", "cancelled"):
                break
        seconds = time.perf_counter() - start
    if got != size or event.get("event") != "done":
        raise BenchError(f"stream: {got} bytes, {str(event)[:200]}")
    return seconds


def ferry_stream_raw(daemon, url, size):
    """Reads the events without decoding them (the daemon's side of a stream, not Python's):
    the wire bytes until the line that ends the job."""
    wire = 0
    with daemon.connect() as s:
        start = time.perf_counter()
        s.sendall(json.dumps({"url": url, "response": "stream", "events": ["data"]}).encode() + b"\n")
        tail = b""
        while True:
            chunk = s.recv(1 << 20)
            if not chunk:
                raise BenchError("stream_raw: connection closed")
            wire += len(chunk)
            tail = (tail + chunk)[-4096:]
            if b'{"event":"done"' in tail and tail.endswith(b"\n"):
                break
            if b'{"event":"failed"' in tail:
                raise BenchError(f"stream_raw: {tail[-300:]}")
        seconds = time.perf_counter() - start
    if wire < size * 4 // 3:
        raise BenchError(f"stream_raw: {wire} wire bytes")
    return seconds


def curl(url, path, size):
    seconds, out, _ = timed(["curl", "-s", "-o", path, "-w", "%{http_code} %{size_download}", url])
    code, got = out.split()
    if code != "200" or int(got) != size:
        raise BenchError(f"curl: {out}")
    return seconds


class RSSSampler(threading.Thread):
    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid = pid
        self.peak = 0
        self.running = True

    def run(self):
        while self.running:
            self.peak = max(self.peak, proc_status_kib(self.pid, "VmRSS"))
            time.sleep(0.01)


def run(products, size=1 << 30, reps=3, tools=TOOLS, log=print):
    """Runs the rows of `tools` (curl always) `reps` times with a loopback nginx and a ferryd
    of its own; returns the result dictionary (`make bench` files it as `b7`)."""
    tools = list(tools) if "curl" in tools else list(tools) + ["curl"]
    work = tempfile.mkdtemp(prefix="ferry-b7-")
    os.chmod(work, 0o755)  # nginx workers (another user) serve from it
    shm = "/dev/shm"
    files = (tempfile.mkdtemp(prefix="ferry-b7-", dir=shm)
             if os.path.isdir(shm) and shutil.disk_usage(shm).free > 3 * size else work)
    nginx = Nginx(os.path.join(work, "nginx"), size, 1 << 20)
    config = {"log_level": "warning", "files": {"write_roots": [files]}, "sessions": {"default": {}}}
    daemon = Daemon(os.path.abspath(products), work, config, "ferryd-b7")
    try:
        url = nginx.url("http", "/big")
        # Warm: the first read of the sparse file, and the daemon's first job.
        timed(["curl", "-s", "-o", "/dev/null", url])
        ferry_output_fd(daemon, nginx.url("http", "/small"), os.path.join(files, "warm"), 17)
        rss_before = daemon.rss_kib()
        hwm_before = daemon.hwm_kib()
        sampler = RSSSampler(daemon.pid)
        sampler.start()
        speeds = {t: [] for t in tools}
        for rep in range(reps):
            for tool in rotated(tools, rep):
                path = os.path.join(files, f"{tool}.out")
                if tool == "output_fd":
                    seconds = ferry_output_fd(daemon, url, path, size)
                elif tool == "output":
                    seconds = ferry_output(daemon, url, path, size)
                elif tool == "stream_raw":
                    seconds = ferry_stream_raw(daemon, url, size)
                elif tool == "stream":
                    seconds = ferry_stream(daemon, url, size)
                else:
                    seconds = curl(url, path, size)
                if os.path.exists(path):
                    os.unlink(path)
                speeds[tool].append(size / (1 << 20) / seconds)
                hwm = daemon.hwm_kib()
                log(f"B7 rep {rep + 1} {tool}: {speeds[tool][-1]:.0f} MiB/s, VmHWM {hwm} KiB "
                    f"(+{hwm - rss_before}), VmRSS {daemon.rss_kib()} KiB, "
                    f"load {open('/proc/loadavg').read().split()[0]}")
        sampler.running = False
        sampler.join()
        result = {
            "bytes": size, "reps": reps, "files": files,
            "mib_s": {t: summary(v) for t, v in speeds.items()},
            "rss_before_kib": rss_before, "hwm_before_kib": hwm_before,
            "rss_peak_sampled_kib": sampler.peak, "hwm_after_kib": daemon.hwm_kib(),
            "load": open("/proc/loadavg").read().split()[:3],
        }
        for t in tools:
            if t != "curl":
                result[f"ratio_{t}"] = summary([f / c for f, c in zip(speeds[t], speeds["curl"])])
        result["rss_growth_kib"] = max(result["rss_peak_sampled_kib"], result["hwm_after_kib"]) - rss_before
        return result
    finally:
        daemon.stop()
        nginx.stop()
        shutil.rmtree(files, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--products", required=True)
    parser.add_argument("--bytes", type=int, default=1 << 30)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--tools", default=",".join(TOOLS), help="rows to run, comma-separated (curl always)")
    parser.add_argument("--out")
    args = parser.parse_args()
    raise_nofile()
    result = run(args.products, args.bytes, args.reps, args.tools.split(","),
                 log=lambda m: print(m, flush=True))
    print(json.dumps({k: v for k, v in result.items() if k != "mib_s"}, indent=1))
    for t, s in result["mib_s"].items():
        print(f"{t:10} median {s['median']:.0f} MiB/s (min {s['min']:.0f}, max {s['max']:.0f})")
    out = args.out or os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                                   time.strftime("%Y%m%d-%H%M%S-b7.json"))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
