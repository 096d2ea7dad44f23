#!/usr/bin/python3
"""The cookie flood of BystanderLatencyTests (issue 26), three rounds of 200 jobs of
`/cookies/50` at once on a session with cookies, against a ferryd and ferry-fixture of PRODUCTS;
prints ferryd's CPU seconds. MODE `dwarf` or `fp` records ferryd with perf into OUT
(`--call-graph dwarf` or frame pointers); `none` records nothing.

    unshare -n sh -c 'ip link set lo up && python3 bench/cookie_flood.py .build/release /tmp/flood.data dwarf'
"""
import os, subprocess, sys, tempfile, json, socket, time, signal
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Daemon
products = os.path.abspath(sys.argv[1]); out = sys.argv[2]; mode = sys.argv[3] if len(sys.argv) > 3 else "dwarf"
workdir = tempfile.mkdtemp(prefix="ferry-flood-"); os.chmod(workdir, 0o755)
fx = subprocess.Popen([os.path.join(products, "ferry-fixture"), "--port", "0"], stdout=subprocess.PIPE, stdin=subprocess.PIPE, text=True)
port = int(fx.stdout.readline().strip().split("=")[1])
config = {"log_level": "warning", "state_dir": workdir + "/state", "limits": {"max_jobs_per_connection": 5000}, "sessions": {"default": {"cookies": True}}}
daemon = Daemon(products, workdir, config, "ferryd-flood")
try:
    s = socket.socket(socket.AF_UNIX); s.connect(daemon.socket)
    rec = None
    if mode != "none":
        args = ["perf", "record", "-q", "-F", "2000", "-o", out, "-p", str(daemon.pid)] + (["--call-graph", "dwarf,16384"] if mode == "dwarf" else ["-g"])
        rec = subprocess.Popen(args); time.sleep(0.5)
    for r in range(3):
        lines = "".join(json.dumps({"id": f"r{r}j{i}", "url": f"http://127.0.0.1:{port}/cookies/50?name=r{r}n{i}", "events": []}) + "\n" for i in range(200))
        s.sendall(lines.encode())
        done = 0; buf = b""
        while done < 200:
            buf += s.recv(1 << 20)
            *full, buf = buf.split(b"\n")
            done += sum(1 for l in full if b'"event":"done"' in l)
    print("cpu", daemon.cpu_seconds())
    if rec: rec.send_signal(signal.SIGINT); rec.wait()
finally:
    daemon.stop(); fx.terminate()
