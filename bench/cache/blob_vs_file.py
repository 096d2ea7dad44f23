#!/usr/bin/env python3
"""Issue 17's open question: the HTTP cache's bodies as files (what ferryd does) or as BLOBs in
cache.db, for bodies of 1 KiB, 16 KiB, 256 KiB and 4 MiB. docs/CACHE.md "Bodies: files or
BLOBs" has the result and the decision.

    bench/cache/blob_vs_file.py [--reps N] [--dir DIR] [--sizes 1024,...] [--entries N] [--json FILE]

The timed loops are C (`blob_vs_file.c`, compiled here with `cc -O2 … -lsqlite3`, Debian's
libsqlite3 as ferryd links it), not Python: a 1 KiB hit costs 1–6 µs in C, and Python's own
cost per hit (the interpreter, argument tuples, a result tuple, a bytes copy) is 1.5–3 µs, as
much as a small BLOB hit, which pulls the ratios towards 1. To show it, the warm hits are also
timed from Python over the same files (the last table). This script runs the C program once per
(repetition, size, variant), each in a fresh directory under DIR (default: a new one in
$TMPDIR, which must be a disk, not tmpfs, for fsync to mean anything), in an order that turns
round every repetition; ratios are taken within a repetition. Figures are µs per operation:
median (min–max) over the repetitions of each run's mean.

Variants: `file` (ferryd's layout) and `blob`, each with synchronous=NORMAL (ferryd's default
`journal.sync`) and FULL; and `blob-mmap`, the BLOB layout with PRAGMA mmap_size = 1 GiB (hits
only). Hits do not depend on `synchronous`: they are timed in the NORMAL runs only. Only this
benchmark's own files are written, fsynced and dropped from the page cache (posix_fadvise);
the directory is removed at the end."""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import rotated, summary  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = [1 << 10, 16 << 10, 256 << 10, 4 << 20]
VARIANTS = [("file", "NORMAL"), ("blob", "NORMAL"), ("blob-mmap", "NORMAL"), ("file", "FULL"), ("blob", "FULL")]
STORED = [v for v in VARIANTS if v[0] != "blob-mmap"]


ENTRIES = None  # --entries


def counts(size):
    """(entries kept, stores, warm hits, cold hits) of one run for bodies of `size` bytes: a
    cache of 16 MiB or 4,096 entries (more than SQLite's default 2 MB page cache holds) unless
    --entries says otherwise, and about a second of work per phase on an idle machine."""
    slots = ENTRIES or max(16, min(4096, (16 << 20) // size))
    # Enough stores for several WAL checkpoints (every 1,000 pages) in each run's mean.
    stores = 600 if size <= 16 << 10 else 100 if size <= 256 << 10 else 16
    hits = max(100, min(20_000, (80 << 20) // size))
    return slots, stores, hits, min(slots, 200)


def loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[:3]


def compile_core(directory):
    exe = os.path.join(directory, "blob_vs_file")
    subprocess.run(["cc", "-O2", "-Wall", "-o", exe, os.path.join(HERE, "blob_vs_file.c"), "-lsqlite3"],
                   check=True)
    return exe


def run_core(exe, layout, sync, size, directory):
    slots, stores, hits, cold = counts(size)
    if sync != "NORMAL":
        hits = cold = 0
    if layout == "blob-mmap":
        # Mapped pages are not dropped by posix_fadvise: no cold figure without closing the
        # connection; its stores are the BLOB layout's.
        stores = cold = 0
    p = subprocess.run([exe, layout, sync, str(size), directory, str(slots), str(stores), str(hits), str(cold)],
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def python_hits(directory, layout, size, hits):
    """The warm hits again, timed from Python over the store `run_core` left in `directory`:
    os.open/fstat/read/close for a file, a cached SELECT and Connection.blobopen for a BLOB."""
    import sqlite3
    con = sqlite3.connect(os.path.join(directory, "cache.db"), isolation_level=None)
    con.execute("PRAGMA locking_mode = EXCLUSIVE")
    con.execute("PRAGMA journal_mode = WAL")
    names = [r[0] for r in con.execute("SELECT body_file FROM cache_entry ORDER BY key")]
    out = {}
    if layout == "file":
        cache = os.path.join(directory, "cache")
        dirfd = os.open(cache, os.O_RDONLY | os.O_DIRECTORY)
        room = min(size, 65536) + 1

        def hit(name):
            fd = os.open(name, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW, dir_fd=dirfd)
            try:
                if os.fstat(fd).st_size != size:
                    raise RuntimeError("size")
                body = bytearray()
                while True:
                    piece = os.read(fd, room)
                    if not piece:
                        break
                    body += piece
                return body
            finally:
                os.close(fd)
        out["hit_us"] = timed_hits(hit, names, hits)
        os.close(dirfd)
    else:
        ids = [int(n) for n in names]
        select = "SELECT body FROM cache_body WHERE id = ?"

        def hit(rowid):
            return con.execute(select, (rowid,)).fetchone()[0]

        def hit_io(rowid):
            with con.blobopen("cache_body", "body", rowid, readonly=True) as b:
                body = bytearray()
                while True:
                    piece = b.read(65536)
                    if not piece:
                        return body
                    body += piece
        out["hit_us"] = timed_hits(hit, ids, hits)
        out["hit_blobio_us"] = timed_hits(hit_io, ids, hits)
    con.close()
    return out


def timed_hits(hit, keys, hits):
    for k in keys:
        hit(k)
    t0 = time.perf_counter()
    for i in range(hits):
        hit(keys[i % len(keys)])
    return (time.perf_counter() - t0) * 1e6 / hits


def measure(reps, root, sizes, with_python, log):
    exe = compile_core(root)
    runs = {}  # (size, layout, sync) -> list of per-repetition results
    py = {}
    for rep in range(reps):
        for size in sizes:
            for layout, sync in rotated(VARIANTS, rep):
                d = os.path.join(root, f"r{rep}-{size}-{layout}-{sync}")
                r = run_core(exe, layout, sync, size, d)
                runs.setdefault((size, layout, sync), []).append(r)
                if with_python and sync == "NORMAL" and layout != "blob-mmap":
                    py.setdefault((size, layout), []).append(python_hits(d, layout, size, counts(size)[2]))
                shutil.rmtree(d)
            log(f"rep {rep + 1}/{reps} {size} B done, load {loadavg()[0]}")
    return runs, py, runs[(sizes[0], "file", "NORMAL")][0]["sqlite"]


def fmt(s):
    def one(v):
        return f"{v:,.0f}" if v >= 100 else f"{v:.1f}" if v >= 10 else f"{v:.2f}"
    return f"{one(s['median'])} ({one(s['min'])}–{one(s['max'])})"


def ratio(a, b):
    s = summary([x / y for x, y in zip(a, b) if y])
    return f"{s['median']:.2f}× ({s['min']:.2f}–{s['max']:.2f})"


def size_name(size):
    return f"{size >> 20} MiB" if size >= 1 << 20 else f"{size >> 10} KiB"


def tables(runs, py, sizes):
    def col(size, layout, sync, field):
        return [r[field] for r in runs[(size, layout, sync)]]
    lines = ["Store (µs per store; a full cache, each store replaces an entry):", "",
             "| body | file, NORMAL (ferryd) | BLOB, NORMAL | BLOB ÷ file | file, FULL | BLOB, FULL | BLOB ÷ file |",
             "|---|---|---|---|---|---|---|"]
    for size in sizes:
        fn, bn = col(size, "file", "NORMAL", "store_us"), col(size, "blob", "NORMAL", "store_us")
        ff, bf = col(size, "file", "FULL", "store_us"), col(size, "blob", "FULL", "store_us")
        lines.append(f"| {size_name(size)} | {fmt(summary(fn))} | {fmt(summary(bn))} | {ratio(bn, fn)} "
                     f"| {fmt(summary(ff))} | {fmt(summary(bf))} | {ratio(bf, ff)} |")
    lines += ["", "CPU µs per store (getrusage; the rest of a store's time is waiting for the disk):", "",
              "| body | file, NORMAL | BLOB, NORMAL | file, FULL | BLOB, FULL |", "|---|---|---|---|---|"]
    for size in sizes:
        cells = [fmt(summary(col(size, lay, syn, "store_cpu_us"))) for lay, syn in STORED]
        lines.append(f"| {size_name(size)} | {cells[0]} | {cells[1]} | {cells[2]} | {cells[3]} |")
    lines += ["", "Warm hit (µs per hit, the body in the page cache; read whole into the job's collector):", "",
              "| body | file | BLOB, SELECT | ÷ file | BLOB, blob I/O | ÷ file | BLOB + mmap, SELECT | ÷ file "
              "| BLOB + mmap, blob I/O | ÷ file |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for size in sizes:
        f = col(size, "file", "NORMAL", "hit_us")
        row = f"| {size_name(size)} | {fmt(summary(f))} "
        for layout in ("blob", "blob-mmap"):
            for field in ("hit_us", "hit_blobio_us"):
                v = col(size, layout, "NORMAL", field)
                row += f"| {fmt(summary(v))} | {ratio(v, f)} "
        lines.append(row + "|")
    lines += ["", "Cold hit (µs per hit; this run's pages dropped with posix_fadvise DONTNEED before each):", "",
              "| body | file | BLOB, b-tree warm, SELECT | ÷ file | BLOB, b-tree warm, blob I/O | ÷ file "
              "| BLOB, whole db cold, SELECT | ÷ file |", "|---|---|---|---|---|---|---|---|"]
    for size in sizes:
        f = col(size, "file", "NORMAL", "cold_us")
        t, ti, c = (col(size, "blob", "NORMAL", "cold_tree_us"), col(size, "blob", "NORMAL", "cold_tree_blobio_us"),
                    col(size, "blob", "NORMAL", "cold_us"))
        lines.append(f"| {size_name(size)} | {fmt(summary(f))} | {fmt(summary(t))} | {ratio(t, f)} "
                     f"| {fmt(summary(ti))} | {ratio(ti, f)} | {fmt(summary(c))} | {ratio(c, f)} |")
    if py:
        lines += ["", "The same warm hits timed from Python (µs per hit; why the figures above come from C):", "",
                  "| body | file, C | file, Python | BLOB SELECT, C | BLOB SELECT, Python | blob I/O, C "
                  "| blobopen, Python |", "|---|---|---|---|---|---|---|"]
        for size in sizes:
            pf = summary([r["hit_us"] for r in py[(size, "file")]])
            ps = summary([r["hit_us"] for r in py[(size, "blob")]])
            pb = summary([r["hit_blobio_us"] for r in py[(size, "blob")]])
            cf, cs, cb = (summary(col(size, layout, "NORMAL", field))
                          for layout, field in (("file", "hit_us"), ("blob", "hit_us"), ("blob", "hit_blobio_us")))
            lines.append(f"| {size_name(size)} | {fmt(cf)} | {fmt(pf)} | {fmt(cs)} | {fmt(ps)} "
                         f"| {fmt(cb)} | {fmt(pb)} |")
    return "\n".join(lines)


def filesystem(path):
    p = subprocess.run(["stat", "-f", "-c", "%T", path], capture_output=True, text=True)
    return p.stdout.strip() or "?"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--dir", help="where the stores are made (a disk; default: a new directory in $TMPDIR)")
    ap.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    ap.add_argument("--entries", type=int, help="entries in the cache (default: 16 MiB of bodies, at most 4096)")
    ap.add_argument("--no-python", action="store_true", help="skip the Python-timed hits")
    ap.add_argument("--json", help="also write the raw results here")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    global ENTRIES
    ENTRIES = a.entries
    root = tempfile.mkdtemp(prefix="ferry-blob-vs-file-", dir=a.dir)
    fs = filesystem(root)
    if fs == "tmpfs":
        print(f"warning: {root} is on tmpfs: fsync costs nothing there", file=sys.stderr)
    start = loadavg()
    t0 = time.monotonic()
    try:
        runs, py, sqlite_version = measure(a.reps, root, sizes, not a.no_python,
                                           lambda m: print(m, file=sys.stderr))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    end = loadavg()
    print(f"SQLite {sqlite_version}, {a.reps} repetitions, {fs} at {os.path.dirname(root)}, "
          f"{time.monotonic() - t0:.0f} s; load average at start {' '.join(start)}, at end {' '.join(end)}")
    print()
    print(tables(runs, py, sizes))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"load_start": start, "load_end": end, "sqlite": sqlite_version, "filesystem": fs,
                       "runs": {f"{k[0]} {k[1]} {k[2]}": v for k, v in runs.items()},
                       "python": {f"{k[0]} {k[1]}": v for k, v in py.items()}}, f, indent=1)


if __name__ == "__main__":
    main()
