"""B1 for aiohttp: N GETs of one URL through one ClientSession whose pool holds K connections,
K requests in flight, each body read to the end. Prints one JSON line.

    python aiohttp_b1.py URL N K [CA_FILE]

Runs in the bench venv (aiohttp pinned in bench/requirements.txt), on asyncio's default loop.
The clock starts after imports and stops when the last response is read."""

import asyncio
import json
import ssl
import sys
import time

import aiohttp


async def run(url, total, window, ca_file):
    tls = ssl.create_default_context(cafile=ca_file) if ca_file else None
    connector = aiohttp.TCPConnector(limit=window, ssl=tls if tls else True)
    remaining = iter(range(total))
    counts = {"ok": 0, "failed": 0}

    async def worker(session):
        # Workers share one iterator: whoever is free takes the next request.
        for _ in remaining:
            async with session.get(url) as response:
                await response.read()
                counts["ok" if response.status == 200 else "failed"] += 1

    async with aiohttp.ClientSession(connector=connector) as session:
        start = time.perf_counter()
        await asyncio.gather(*(worker(session) for _ in range(window)))
        seconds = time.perf_counter() - start
    return {"seconds": seconds, "http_version": "1.1", "aiohttp": aiohttp.__version__, **counts}


def main():
    url, total, window = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    ca_file = sys.argv[4] if len(sys.argv) > 4 else None
    print(json.dumps(asyncio.run(run(url, total, window, ca_file))))


if __name__ == "__main__":
    main()
