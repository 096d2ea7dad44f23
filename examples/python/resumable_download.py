#!/usr/bin/env python3
"""Download a file through ferryd, resumably, with a progress line.

    python3 examples/python/resumable_download.py URL FILE

The file is opened here, with your rights, and passed to the daemon (no write_roots needed).
It is written as FILE.part; if this program, the connection or the daemon dies, running it
again continues from the bytes already there (Range + If-Range on the saved validator), and
FILE.part becomes FILE when it is complete."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
import ferry  # noqa: E402


def show(done, total):
    of = f" of {total}" if total is not None else ""
    print(f"\r{done} bytes{of}", end="", file=sys.stderr, flush=True)


def main(url, path):
    already = os.path.getsize(path + ".part") if os.path.exists(path + ".part") else 0
    if already:
        print(f"resuming after {already} bytes", file=sys.stderr)
    with ferry.Client() as client:
        try:
            r = client.download(url, path, resume=True, retry=3, on_progress=show)
        except ferry.FerryError as e:
            sys.exit(f"download failed: {e.code}: {e.message}"
                     + (" (run again to resume)" if e.code != "resume_mismatch" else ""))
    print(file=sys.stderr)
    print(f"{path}: {r.bytes} bytes, HTTP {r.status_code}, {r.timing.get('total', 0) / 1000:.1f} s")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
