#!/usr/bin/env python3
"""How many permits a second one redis-server grants (issue 32, docs/FLEET.md).

Starts Debian's redis-server on a Unix socket in a temporary directory, loads the permit script
that ferryd runs (read from Sources/FerryDaemon/CoordinationScript.swift, so it is the same
text), and has redis-benchmark run EVALSHA with it from many connections, each call with a new
lease id. Each call stands for one job start on some host; the connections stand for hosts.

Usage: bench/fleet_redis.py [--clients 50] [--requests 200000] [--keys 1]
"""
import argparse
import os
import re
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def permit_script():
    text = open(os.path.join(ROOT, "Sources/FerryDaemon/CoordinationScript.swift")).read()
    body = re.search(r'static let permit = """\n(.*?)\n\s*"""', text, re.S).group(1)
    return "\n".join(line[4:] if line.startswith("    ") else line for line in body.splitlines())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--requests", type=int, default=200000)
    ap.add_argument("--keys", type=int, default=1, help="distinct shared keys (sessions)")
    ap.add_argument("--pipeline", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        sock = os.path.join(d, "redis.sock")
        server = subprocess.Popen(
            ["redis-server", "--port", "0", "--unixsocket", sock, "--save", "", "--appendonly", "no",
             "--dir", d], stdout=subprocess.DEVNULL)
        try:
            for _ in range(200):
                if os.path.exists(sock):
                    break
                time.sleep(0.05)
            sha = subprocess.check_output(["redis-cli", "-s", sock, "SCRIPT", "LOAD", permit_script()]).decode().strip()
            key = "b:{k__rand_int__}" if args.keys > 1 else "b:{api}"
            # interval 1 µs (the rate path runs, never denies), no concurrency limit past 10^9,
            # a lease of 10 s: every call is a grant that writes the rate key and a lease.
            cmd = ["redis-benchmark", "-s", sock, "-c", str(args.clients), "-n", str(args.requests),
                   "-P", str(args.pipeline), "-r", str(max(args.keys, 1_000_000_000)), "--csv",
                   "EVALSHA", sha, "3", key + ":rate", key + ":leases", key + ":hold",
                   "1", "1000000000", "lease:__rand_int__", "10000", "25"]
            if args.keys > 1:
                cmd[cmd.index("-r") + 1] = str(args.keys)
            out = subprocess.check_output(cmd).decode()
            print(" ".join(cmd[:9]), "... EVALSHA permit")
            print(out.strip())
            info = subprocess.check_output(["redis-cli", "-s", sock, "INFO", "cpu"]).decode()
            print([l for l in info.splitlines() if l.startswith("used_cpu")])
        finally:
            server.terminate()
            server.wait()


if __name__ == "__main__":
    main()
