#!/usr/bin/env python3
"""Fetch many URLs at once through ferryd with the asyncio client, then print a summary.

    python3 examples/python/fetch_many.py URL [URL ...]
    python3 examples/python/fetch_many.py --repeat 1000 http://127.0.0.1:8080/

One connection carries them all; the library keeps at most the daemon's
max_jobs_per_connection live and waits for room when the daemon is busy. Ctrl-C cancels every
job still running (they are not durable)."""

import argparse
import asyncio
import collections
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
import ferry  # noqa: E402


async def main(urls):
    statuses = collections.Counter()
    started = time.perf_counter()
    async with ferry.AsyncClient() as client:
        results = await asyncio.gather(*(client.get(url, timeout=60) for url in urls), return_exceptions=True)
    for url, result in zip(urls, results):
        if isinstance(result, ferry.FerryError):
            statuses[result.code] += 1
            print(f"{url}: {result.code}: {result.message}", file=sys.stderr)
        else:
            statuses[result.status_code] += 1
    seconds = time.perf_counter() - started
    print(f"{len(urls)} requests in {seconds:.2f} s ({len(urls) / seconds:.0f}/s):",
          ", ".join(f"{k}: {v}" for k, v in sorted(statuses.items(), key=str)))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("urls", nargs="+")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    try:
        asyncio.run(main(args.urls * args.repeat))
    except ferry.DaemonUnavailable as e:
        sys.exit(f"ferry: {e.message}")
