"""Shared pieces of the benchmark harness: the loopback nginx, a ferryd under test, /proc
readings, timed child processes and the statistics every table uses. Standard library only."""

import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
CLK_TCK = os.sysconf("SC_CLK_TCK")


class BenchError(Exception):
    """A run that could not be measured (a tool failed, a job failed): the harness stops."""


# ---------------------------------------------------------------- statistics


def summary(values):
    """Median with min–max of a list of numbers, as every table shows it."""
    values = [v for v in values if v is not None]
    if not values:
        return {"median": None, "min": None, "max": None, "n": 0, "values": []}
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "n": len(values),
        "values": values,
    }


def rotated(tools, rep):
    """The order tools run in during repetition `rep`: forwards on even ones, backwards on odd
    ones, so no tool always runs first (cold) or last (after the others warmed the machine)."""
    return list(tools) if rep % 2 == 0 else list(reversed(tools))


# ---------------------------------------------------------------- processes and /proc


def raise_nofile():
    """Raise the soft descriptor limit to the hard one; children (ferryd, nginx) inherit it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard if hard != resource.RLIM_INFINITY else 1 << 20
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def proc_status_kib(pid, field):
    """A `VmRSS`/`VmHWM`-style field of /proc/PID/status, in KiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise BenchError(f"/proc/{pid}/status has no {field}")


def proc_cpu_seconds(pid):
    """User + system CPU time of a process so far (utime + stime of /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        # The command name may hold spaces; fields are counted after its closing parenthesis.
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def timed(cmd, env=None, stdin=None, cwd=None, timeout=300):
    """Runs a command to its end; returns (wall seconds, stdout text, child CPU seconds).
    Raises BenchError when it exits non-zero or runs past `timeout` seconds (then it is killed)."""
    # The delta of RUSAGE_CHILDREN is this child's: the driver reaps no other child meanwhile.
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.PIPE if stdin else None,
        env=env, cwd=cwd)
    try:
        out, err = proc.communicate(stdin.encode() if stdin else None, timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise BenchError(f"{' '.join(cmd)[:200]} ran past {timeout} s") from None
    seconds = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise BenchError(f"{cmd[0]} exited {proc.returncode}: {err.decode(errors='replace')[-500:]}")
    cpu = (usage.ru_utime + usage.ru_stime) - (before.ru_utime + before.ru_stime)
    return seconds, out.decode(errors="replace"), cpu


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def version_of(cmd):
    """The first line a tool prints about its version, or `missing`."""
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
        text = (out.stdout or out.stderr).strip().splitlines()
        return text[0].strip() if text else "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "missing"


# ---------------------------------------------------------------- nginx


class Nginx:
    """A private nginx on loopback from bench/nginx.conf: HTTP/1.1 on one port, HTTPS with
    HTTP/2 on another, a self-signed certificate, /small, /big (sparse) and the /upload sink."""

    def __init__(self, directory, big_bytes, upload_bytes):
        self.dir = directory
        self.http_port = free_port()
        self.https_port = free_port()
        self.ca = os.path.join(directory, "cert.pem")
        self.big_bytes = big_bytes
        os.makedirs(os.path.join(directory, "root"), exist_ok=True)
        os.makedirs(os.path.join(directory, "tmp"), exist_ok=True)
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
             "-nodes", "-days", "30", "-subj", "/CN=localhost",
             "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
             "-keyout", os.path.join(directory, "key.pem"), "-out", self.ca],
            check=True, capture_output=True)
        with open(os.path.join(directory, "root", "small"), "w") as f:
            f.write("hello from nginx\n")
        with open(os.path.join(directory, "root", "big"), "wb") as f:
            f.truncate(big_bytes)
        with open(os.path.join(BENCH_DIR, "nginx.conf")) as f:
            conf = f.read()
        # The upload buffer holds a whole upload in memory, so nginx never writes it to disk.
        buffer_mib = upload_bytes // (1 << 20) + 16
        for key, value in {"@DIR@": directory, "@HTTP_PORT@": str(self.http_port),
                           "@HTTPS_PORT@": str(self.https_port),
                           "@UPLOAD_BUFFER@": f"{buffer_mib}m"}.items():
            conf = conf.replace(key, value)
        self.conf = os.path.join(directory, "nginx.conf")
        with open(self.conf, "w") as f:
            f.write(conf)
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        log = os.path.join(directory, "error.log")
        # nginx daemonizes; its output goes to the log so nothing waits on our pipes.
        with open(log, "a") as out:
            subprocess.run([nginx, "-c", self.conf, "-p", directory, "-e", log],
                           stdin=subprocess.DEVNULL, stdout=out, stderr=out, check=True)
        self._wait_for_port(self.http_port)
        self._wait_for_port(self.https_port)

    @staticmethod
    def _wait_for_port(port):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise BenchError(f"nginx did not listen on {port}")

    def url(self, scheme, path):
        port = self.http_port if scheme == "http" else self.https_port
        return f"{scheme}://127.0.0.1:{port}{path}"

    def stop(self):
        pid_file = os.path.join(self.dir, "nginx.pid")
        try:
            with open(pid_file) as f:
                pid = int(f.read().strip())
        except (OSError, ValueError):
            return
        try:
            os.kill(pid, 15)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + 10
        while os.path.exists(pid_file) and time.monotonic() < deadline:
            time.sleep(0.05)


# ---------------------------------------------------------------- ferryd


def private_environment(home):
    """Our environment with every per-user directory under `home` (made here): a bench daemon
    never opens the user's journal, cookies or cache, nor a CLI the user's daemon."""
    env = dict(os.environ)
    for name, path in [("HOME", ""), ("XDG_STATE_HOME", ".local/state"), ("XDG_RUNTIME_DIR", "run"),
                       ("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache"),
                       ("STATE_DIRECTORY", "state"), ("RUNTIME_DIRECTORY", "run")]:
        full = os.path.join(home, path)
        os.makedirs(full, mode=0o700, exist_ok=True)
        env[name] = full.rstrip("/")
    return env


class Daemon:
    """One ferryd on a private socket with a bench config (bench/run.py builds the config)."""

    def __init__(self, products, directory, config, tag, wrapper=()):
        self.socket = os.path.join(directory, f"{tag}.sock")
        config_path = os.path.join(directory, f"{tag}.json")
        with open(config_path, "w") as f:
            json.dump(config, f, indent=2)
        self.log = open(os.path.join(directory, f"{tag}.log"), "w")
        # `wrapper`: a command the daemon runs under (valgrind, for bench/instructions.py).
        self.proc = subprocess.Popen(
            [*wrapper, os.path.join(products, "ferryd"), "--config", config_path, "--socket", self.socket,
             "--log-level", "warning"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
            env=private_environment(os.path.join(directory, f"{tag}.home")))
        self.pid = self.proc.pid
        deadline = time.monotonic() + (120 if wrapper else 10)
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"ferryd exited {self.proc.returncode}; see {self.log.name}")
            try:
                self.connect().close()
                return
            except OSError:
                time.sleep(0.02)
        raise BenchError("ferryd did not start listening")

    def connect(self):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(self.socket)
        return s

    def rss_kib(self):
        return proc_status_kib(self.pid, "VmRSS")

    def hwm_kib(self):
        return proc_status_kib(self.pid, "VmHWM")

    def cpu_seconds(self):
        return proc_cpu_seconds(self.pid)

    def request(self, line, timeout=300):
        """Sends one op or job line on a new connection and returns the events up to the
        terminal one (or the single answer of an op), with the seconds it took."""
        with self.connect() as s:
            s.settimeout(timeout)
            start = time.perf_counter()
            s.sendall(json.dumps(line).encode() + b"\n")
            events = []
            for event in read_events(s):
                events.append(event)
                if event.get("event") not in ("queued", "started", "response", "progress"):
                    break
            return events, time.perf_counter() - start

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def read_events(sock):
    """Yields the JSON event lines a socket sends until it closes."""
    pending = b""
    while True:
        chunk = sock.recv(1 << 16)
        if not chunk:
            return
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for line in lines:
            if line.strip():
                yield json.loads(line)


def terminal(events):
    """The last event of a job, checked to be `done`."""
    last = events[-1] if events else {}
    if last.get("event") != "done":
        raise BenchError(f"job did not finish: {json.dumps(last)[:400]}")
    return last
