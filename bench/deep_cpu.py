"""Issue 11: where the deep queue's time goes. Runs 20 000 small GETs through one ferryd at
window 50 and 1 000 (default session: 64 slots), alternating, and reports per job: ferryd user
and system CPU, nginx CPU, the client's, ferryd's context switches and TCP segments.
Usage: python3 bench/deep_cpu.py .build/release   (REPS=6 N=30000 to change the run)."""
import os, sys, subprocess, tempfile, statistics, resource, time
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Daemon, Nginx
p = os.path.abspath(sys.argv[1]); n = int(os.environ.get("N", "20000")); reps = int(os.environ.get("REPS", "4"))
wd = tempfile.mkdtemp(prefix="ferry-util-"); os.chmod(wd, 0o755)
nginx = Nginx(os.path.join(wd, "nginx"), 1 << 20, 1 << 20)
url = nginx.url("http", "/small")
config = {"log_level": "warning", "limits": {"max_jobs": 20_000, "max_jobs_per_connection": 20_000}, "sessions": {"default": {}}}
d = Daemon(p, wd, config, "util")
master = [int(x) for x in subprocess.run(["pgrep", "-f", nginx.conf], capture_output=True, text=True).stdout.split()]
npids = master + [int(x) for m in master for x in subprocess.run(["pgrep", "-P", str(m)], capture_output=True, text=True).stdout.split()]
def cpu(pid):
    f = open(f"/proc/{pid}/stat").read().split(")")[1].split()
    return (int(f[11]) + int(f[12])) / 100
def us(pid):
    f = open(f"/proc/{pid}/stat").read().split(")")[1].split()
    return int(f[11]) / 100, int(f[12]) / 100
def vcs(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("voluntary_ctxt_switches"): v = int(line.split()[1])
        if line.startswith("nonvoluntary_ctxt_switches"): nv = int(line.split()[1])
    return v, nv
def segs():
    lines = [l.split() for l in open("/proc/net/snmp") if l.startswith("Tcp:")]
    h, v = lines[0], lines[1]
    d = dict(zip(h, v)); return int(d["InSegs"]), int(d["OutSegs"])
res = {}; seg = {}
try:
    for rep in range(reps):
        for w in ((50, 1000) if rep % 2 == 0 else (1000, 50)):
            u0 = us(d.pid); c0 = cpu(d.pid); n0 = sum(cpu(x) for x in npids); v0 = vcs(d.pid); r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            s0 = segs(); t0 = time.monotonic()
            out = subprocess.run([os.path.join(p, "ferry-bench-client"), d.socket, url, str(n), str(w)], capture_output=True, text=True).stdout
            t = time.monotonic() - t0; s1 = segs(); seg.setdefault(w, []).append((s1[1]-s0[1])/n)
            r1 = resource.getrusage(resource.RUSAGE_CHILDREN); c1 = cpu(d.pid); u1 = us(d.pid); n1 = sum(cpu(x) for x in npids); v1 = vcs(d.pid)
            cl = (r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
            res.setdefault(w, []).append((n / t, (c1 - c0) / t, (n1 - n0) / t, cl / t, (v1[0] - v0[0]) / n, (v1[1] - v0[1]) / n, (u1[0]-u0[0])/n*1e6, (u1[1]-u0[1])/n*1e6, (n1-n0)/n*1e6))
    for w, rows in sorted(res.items()):
        med = [statistics.median(c) for c in zip(*rows)]
        print(f"window {w}: {med[0]:.0f} jobs/s; busy ferryd {med[1]:.2f} nginx {med[2]:.2f} client {med[3]:.2f} cores; ferryd voluntary switches/job {med[4]:.3f} involuntary {med[5]:.3f}; ferryd user {med[6]:.1f} sys {med[7]:.1f} µs/job, nginx {med[8]:.1f} µs/job")
    for w, v in sorted(seg.items()): print(w, "TCP segments out per job (both ends)", statistics.median(v))
finally:
    d.stop(); nginx.stop()
