"""Issue 11: two builds side by side on one nginx, alternating, at several windows (jobs in
flight from one ferry-bench-client; the default session has 64 slots, so past 64 jobs wait).
Usage: python3 bench/deep_ab.py BASE_PRODUCTS NEW_PRODUCTS   (N, REPS, WINDOWS=50,100,1000).
Prints each build's jobs/s per window, new ÷ base (median of the pairs, min–max) and each
build's deep ÷ shallow (last window ÷ first)."""
import os, sys, subprocess, tempfile, time, statistics
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Daemon, Nginx
prods = {"base": os.path.abspath(sys.argv[1]), "new": os.path.abspath(sys.argv[2])}
n = int(os.environ.get("N", "20000")); reps = int(os.environ.get("REPS", "4"))
windows = [int(x) for x in os.environ.get("WINDOWS", "50,100,1000").split(",")]
wd = tempfile.mkdtemp(prefix="ferry-ab-"); os.chmod(wd, 0o755)
nginx = Nginx(os.path.join(wd, "nginx"), 1 << 20, 1 << 20)
url = nginx.url("http", "/small")
config = {"log_level": "warning", "limits": {"max_jobs": 20_000, "max_jobs_per_connection": 20_000}, "sessions": {"default": {}}}
ds = {k: Daemon(p, wd, config, k) for k, p in prods.items()}
res = {(k, w): [] for k in prods for w in windows}
try:
    for k, d in ds.items():
        subprocess.run([os.path.join(prods[k], "ferry-bench-client"), d.socket, url, "5000", "50"], capture_output=True)
    for rep in range(reps):
        order = list(prods) if rep % 2 == 0 else list(prods)[::-1]
        for w in windows:
            for k in order:
                t0 = time.monotonic()
                subprocess.run([os.path.join(prods["base"], "ferry-bench-client"), ds[k].socket, url, str(n), str(w)], capture_output=True)
                res[(k, w)].append(n / (time.monotonic() - t0))
    for w in windows:
        b, nw = res[("base", w)], res[("new", w)]
        ratios = [x / y for x, y in zip(nw, b)]
        print(f"window {w:5d}: base {statistics.median(b):7.0f}  new {statistics.median(nw):7.0f}  new/base {statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})")
    for k in prods:
        print(k, "deep/shallow", f"{statistics.median([d/s for d, s in zip(res[(k, windows[-1])], res[(k, windows[0])])]):.2f}")
finally:
    for d in ds.values(): d.stop()
    nginx.stop()
