"""Issue 11: throughput against the number of jobs in flight, one build, one daemon (SLOTS=64
slots by default), alternating windows. Usage: python3 bench/deep_curve.py PRODUCTS
(N, REPS, WINDOWS=50,64,65,80,128,256,1000,2000)."""
import os, sys, subprocess, tempfile, time, statistics
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Daemon, Nginx
p = os.path.abspath(sys.argv[1]); n = int(os.environ.get("N", "20000"))
slots = int(os.environ.get("SLOTS", "64"))
wd = tempfile.mkdtemp(prefix="ferry-cv-"); os.chmod(wd, 0o755)
nginx = Nginx(os.path.join(wd, "nginx"), 1 << 20, 1 << 20)
url = nginx.url("http", "/small")
config = {"log_level": "warning", "limits": {"max_jobs": 20_000, "max_jobs_per_connection": 20_000}, "sessions": {"default": {"max_concurrent": slots}}}
d = Daemon(p, wd, config, "cv")
windows = [int(x) for x in os.environ.get("WINDOWS", "50,64,65,80,128,256,1000,2000").split(",")]
res = {w: [] for w in windows}
try:
    subprocess.run([os.path.join(p, "ferry-bench-client"), d.socket, url, "5000", "50"], capture_output=True)
    for rep in range(int(os.environ.get("REPS", "3"))):
        for w in (windows if rep % 2 == 0 else windows[::-1]):
            t0 = time.monotonic()
            subprocess.run([os.path.join(p, "ferry-bench-client"), d.socket, url, str(n), str(w)], capture_output=True)
            res[w].append(n / (time.monotonic() - t0))
    for w in windows:
        print(f"window {w:5d}: {statistics.median(res[w]):7.0f} jobs/s  ({min(res[w]):.0f}-{max(res[w]):.0f})")
finally:
    d.stop(); nginx.stop()
