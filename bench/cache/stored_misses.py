"""Issue 17: stored misses per second (1 000 distinct 1 KiB cacheable GETs of ferry-fixture, each
fetched and stored) through one ferryd per build, builds alternating, three rounds; and ferryd's
CPU per stored miss (start-up included). Usage: python3 bench/cache/stored_misses.py PRODUCTS...
(the first build's ferry-fixture serves them, on 127.0.0.1:18090)."""
import os, sys, json, socket, subprocess, tempfile, time
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from harness import Daemon
prods = sys.argv[1:]
wd = tempfile.mkdtemp(prefix="ferry-st-"); os.chmod(wd, 0o755)
fx = subprocess.Popen([os.path.join(prods[0], "ferry-fixture"), "--port", "18090"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.5)
def run(p, tag, n=1000):
    config = {"log_level": "warning", "state_dir": os.path.join(wd, tag + "-state"), "sessions": {"default": {"cache": {"max_bytes": 1 << 30}}}}
    d = Daemon(p, wd, config, tag)
    s = socket.socket(socket.AF_UNIX); s.connect(d.socket)
    f = s.makefile("rwb")
    t0 = time.monotonic()
    for i in range(n):
        f.write(json.dumps({"id": f"j{i}", "url": f"http://127.0.0.1:18090/bytes/1024?cache_control=max-age%3D600&{tag}={i}", "events": [], "response": "discard"}).encode() + b"\n")
    f.flush()
    done = 0
    while done < n:
        line = f.readline()
        if b'"done"' in line or b'"failed"' in line: done += 1
    t = time.monotonic() - t0
    cpu = open(f"/proc/{d.pid}/stat").read().split(")")[1].split()
    us = (int(cpu[11]) + int(cpu[12])) * 10000 / n
    d.stop()
    return n / t, us
try:
    for rep in range(3):
        for i, p in enumerate(prods):
            r, us = run(p, f"p{i}r{rep}")
            print(f"{p}: {r:.0f} stored misses/s, ferryd CPU {us:.0f} µs each")
finally:
    fx.terminate()
