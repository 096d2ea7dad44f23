"""B6 durable jobs (issue 14): jobs acknowledged per second with `durable: true` under
`journal.sync` `normal` and `full`, against the same jobs not durable; and the time from the
daemon's start to its first resumed transfer with 10 000 jobs in the journal.

Throughput: `clients` ferry-bench-client processes at once, each pipelining `jobs` GETs with
`window` in flight to a closed loopback port (each job a quick `connect_failed`), so what is
measured is the daemon's and the journal's work per job, not a server's. Every job's whole life
is journaled (submitted, queued, running, ended, removed): a client that stays attached takes
each result. jobs/s = all clients' jobs over the wall time of the slowest; a job is counted when
its terminal event arrives, which in a steady window of `window` is the rate of `queued` too.

Start-up: one daemon journals `resume_jobs` durable GETs on a session with one slot, to a
loopback listener that accepts and never answers (one job running, the rest queued), and is
SIGKILLed; a new daemon on the same state directory is started, and the time from its exec to
the listener's first accepted connection (the resent GET) is the figure.

Run directly: `python3 bench/b6_durable.py --products .build/release [--reps 3]`; with
`--baseline DIR` (another build's ferryd and ferry-bench-client) every row runs on both builds
in each repetition, for before/after figures from the same machine state.
"""

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import BenchError, Daemon, summary  # noqa: E402

ROWS = [("not durable", None), ("durable normal", "normal"), ("durable full", "full")]


def closed_port():
    """A loopback port nothing listens on (bound, then closed)."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def config(state, sync, max_concurrent=64):
    c = {
        "log_level": "warning",
        "limits": {"max_jobs": 20_000, "max_jobs_per_connection": 20_000},
        "sessions": {"default": {"max_concurrent": max_concurrent}},
        "state_dir": state,
    }
    if sync:
        c["journal"] = {"sync": sync}
    return c


def throughput(products, workdir, sync, jobs, window, clients, tag):
    state = tempfile.mkdtemp(prefix="state-", dir=workdir)
    daemon = Daemon(products, workdir, config(state, sync), tag)
    try:
        url = f"http://127.0.0.1:{closed_port()}/x"
        extra = '"durable":true' if sync else ""
        client = os.path.join(products, "ferry-bench-client")
        cpu_before = daemon.cpu_seconds()
        prober = PingProbe(daemon)
        start = time.perf_counter()
        procs = [
            subprocess.Popen([client, daemon.socket, url, str(jobs), str(window), extra, f"c{i}-"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for i in range(clients)
        ]
        for p in procs:
            out, err = p.communicate(timeout=300)
            if p.returncode != 0:
                raise BenchError(f"ferry-bench-client exited {p.returncode}: {err.strip()[:300]}")
            # Every job is a quick connect_failed; anything else means the row measured nothing.
            if "first failure" in err and "connect_failed" not in err:
                raise BenchError(f"unexpected failure: {err.strip()[:300]}")
        seconds = time.perf_counter() - start
        cpu = daemon.cpu_seconds() - cpu_before
        pings = prober.stop()
        return {"jobs_per_s": clients * jobs / seconds, "cpu_us_per_job": cpu * 1e6 / (clients * jobs),
                "ping_ms": pings}
    finally:
        daemon.stop()
        shutil.rmtree(state, ignore_errors=True)


class PingProbe:
    """Another client's `ping` every 5 ms while the load runs: how long the loop keeps a
    bystander waiting (before the writer thread, the journal's commits and `full`'s fsync ran
    on the loop; now only the loop's own work is in the way)."""

    def __init__(self, daemon):
        self.sock = daemon.connect()
        self.sock.settimeout(30)
        self.samples = []
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while self.running:
            t = time.perf_counter()
            self.sock.sendall(b'{"op":"ping"}\n')
            buf = b""
            while b"\n" not in buf:
                chunk = self.sock.recv(4096)
                if not chunk:
                    return
                buf += chunk
            self.samples.append((time.perf_counter() - t) * 1000)
            time.sleep(0.005)

    def stop(self):
        self.running = False
        self.thread.join()
        self.sock.close()
        s = sorted(self.samples)
        if not s:
            return None
        return {"n": len(s), "p50": s[len(s) // 2], "p99": s[min(len(s) - 1, len(s) * 99 // 100)], "max": s[-1]}


def acknowledged(products, workdir, sync, jobs, clients, tag):
    """`clients` connections each send `jobs` jobs at once (pipelined) to a session with one
    slot whose first job never ends: the rest wait, so what is timed is the submission path up
    to each job's `queued` (for a durable job: committed to the journal). Acknowledgements per
    second over the wall time until every client has all its `queued`."""
    state = tempfile.mkdtemp(prefix="state-", dir=workdir)
    listener = Listener()
    daemon = Daemon(products, workdir, config(state, sync, max_concurrent=1), tag)
    try:
        url = f"http://127.0.0.1:{listener.port}/hold"
        extra = ',"durable":true' if sync else ',"detach":true'
        payloads = [
            "".join('{"id":"c%d-%d","url":"%s","events":[]%s}\n' % (c, i, url, extra) for i in range(jobs)).encode()
            for c in range(clients)
        ]
        socks = [daemon.connect() for _ in range(clients)]
        counts = [0] * clients
        errors = []

        def drive(c):
            s = socks[c]
            s.settimeout(120)
            threading.Thread(target=s.sendall, args=(payloads[c],), daemon=True).start()
            seen = 0
            tail = b""
            while seen < jobs:
                chunk = s.recv(1 << 20)
                if not chunk:
                    errors.append("closed")
                    return
                data = tail + chunk
                seen += data.count(b'"event":"queued"') - tail.count(b'"event":"queued"')
                if b'"event":"failed"' in chunk:
                    errors.append(chunk[:300])
                    return
                tail = data[-32:]
            counts[c] = seen

        cpu_before = daemon.cpu_seconds()
        start = time.perf_counter()
        threads = [threading.Thread(target=drive, args=(c,)) for c in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        seconds = time.perf_counter() - start
        cpu = daemon.cpu_seconds() - cpu_before
        if errors:
            raise BenchError(f"acknowledgements failed: {errors[0]}")
        for s in socks:
            s.close()
        return {"acks_per_s": clients * jobs / seconds, "cpu_us_per_ack": cpu * 1e6 / (clients * jobs)}
    finally:
        daemon.proc.kill()
        daemon.proc.wait()
        listener.sock.close()
        listener.reset()
        shutil.rmtree(state, ignore_errors=True)


class Listener:
    """Accepts connections on loopback and never answers; records when the first came."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(128)
        self.port = self.sock.getsockname()[1]
        self.first = None
        self.held = []
        self.event = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            if self.first is None:
                self.first = time.perf_counter()
                self.event.set()
            self.held.append(c)

    def reset(self):
        for c in self.held:
            c.close()
        self.held = []
        self.first = None
        self.event.clear()


def startup(products, workdir, count, tag):
    state = tempfile.mkdtemp(prefix="state-", dir=workdir)
    listener = Listener()
    conf = config(state, "normal", max_concurrent=1)
    daemon = Daemon(products, workdir, conf, tag + "-a")
    try:
        url = f"http://127.0.0.1:{listener.port}/hold"
        with daemon.connect() as s:
            lines = "".join(
                json.dumps({"id": f"s{i}", "url": url, "durable": True, "events": []}) + "\n" for i in range(count))
            s.sendall(lines.encode())
            # Whole lines only (an event split across two reads is looked at once, when whole),
            # until every job is acknowledged or refused; a job that fails is reported.
            answered = set()
            failed = []
            buf = b""
            s.settimeout(120)
            while len(answered) < count:
                chunk = s.recv(1 << 20)
                if not chunk:
                    raise BenchError("ferryd closed the connection while journaling")
                buf += chunk
                lines, _, buf = buf.rpartition(b"\n")
                for line in lines.split(b"\n"):
                    if b'"event":"queued"' in line or b'"event":"failed"' in line:
                        answered.add(json.loads(line)["id"])
                    if b'"event":"failed"' in line:
                        failed.append(line)
            if failed:
                print(f"B6 start-up: {len(failed)} journaled jobs failed, the first: {failed[0][:300]!r}",
                      file=sys.stderr)
        if not listener.event.wait(10):
            raise BenchError("the first job never reached the listener")
        daemon.proc.send_signal(signal.SIGKILL)
        daemon.proc.wait()
        listener.reset()
        start = time.perf_counter()
        second = Daemon(products, workdir, conf, tag + "-b")
        try:
            if not listener.event.wait(30):
                raise BenchError("no resumed transfer within 30 s")
            return {"first_transfer_ms": (listener.first - start) * 1000}
        finally:
            second.proc.send_signal(signal.SIGKILL)
            second.proc.wait()
    finally:
        if daemon.proc.poll() is None:
            daemon.proc.kill()
        listener.sock.close()
        listener.reset()
        shutil.rmtree(state, ignore_errors=True)


def run(products, workdir, reps=3, jobs=5000, window=200, clients=3, resume_jobs=10_000, log=print,
        baseline=None):
    """With `baseline` (another build's products), every row runs on both builds in each
    repetition, alternating which goes first: before/after figures from the same machine state."""
    builds = [("", products)] if baseline is None else [(" [before]", baseline), (" [after]", products)]
    names = [(name + label, sync, build) for name, sync in ROWS for label, build in builds]
    rows = {name: [] for name, _, _ in names}
    cpu = {name: [] for name, _, _ in names}
    p99 = {name: [] for name, _, _ in names}
    acks = {name: [] for name, _, _ in names}
    ack_cpu = {name: [] for name, _, _ in names}
    n = 0
    for rep in range(reps):
        order = names if rep % 2 == 0 else list(reversed(names))
        for name, sync, build in order:
            n += 1
            a = acknowledged(build, workdir, sync, jobs, clients, f"b6-{n}a")
            acks[name].append(a["acks_per_s"])
            ack_cpu[name].append(a["cpu_us_per_ack"])
            r = throughput(build, workdir, sync, jobs, window, clients, f"b6-{n}")
            rows[name].append(r["jobs_per_s"])
            cpu[name].append(r["cpu_us_per_job"])
            ping = r["ping_ms"] or {"p50": 0, "p99": 0, "max": 0}
            p99[name].append(ping["p99"])
            log(f"B6 {name}: a bystander's ping during the whole jobs: p50 {ping['p50']:.2f} ms, "
                f"p99 {ping['p99']:.2f} ms, max {ping['max']:.2f} ms")
            log(f"B6 {name}: {a['acks_per_s']:.0f} acknowledged/s ({a['cpu_us_per_ack']:.0f} us CPU each); "
                f"{r['jobs_per_s']:.0f} whole jobs/s ({r['cpu_us_per_job']:.0f} us CPU each)")
    starts = []
    for rep in range(reps if resume_jobs else 0):
        r = startup(products, workdir, resume_jobs, f"b6-start-{rep}")
        starts.append(r["first_transfer_ms"])
        log(f"B6 start-up with {resume_jobs} journaled jobs: first resumed transfer after "
            f"{r['first_transfer_ms']:.0f} ms")
    return {
        "jobs": jobs, "window": window, "clients": clients, "resume_jobs": resume_jobs,
        "rows": {name: {"acks_per_s": summary(acks[name]), "cpu_us_per_ack": summary(ack_cpu[name]),
                        "jobs_per_s": summary(rows[name]), "cpu_us_per_job": summary(cpu[name]),
                        "ping_p99_ms": summary(p99[name])}
                 for name, _, _ in names},
        "first_transfer_ms": summary(starts) if starts else None,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--products", required=True)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--jobs", type=int, default=5000, help="jobs per client")
    p.add_argument("--window", type=int, default=200)
    p.add_argument("--clients", type=int, default=3)
    p.add_argument("--resume-jobs", type=int, default=10_000, help="0: no start-up row")
    p.add_argument("--baseline", help="another build's products: each row runs on both, before/after")
    args = p.parse_args()
    workdir = tempfile.mkdtemp(prefix="ferry-b6-")
    try:
        result = run(os.path.abspath(args.products), workdir, args.reps, args.jobs, args.window, args.clients,
                     args.resume_jobs, baseline=os.path.abspath(args.baseline) if args.baseline else None)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    with open("/proc/loadavg") as f:
        result["load"] = " ".join(f.read().split()[:3])
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
