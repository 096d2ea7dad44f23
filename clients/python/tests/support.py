"""Test support: a private ferryd and ferry-fixture per test class, each in its own temp dir
with its own state, runtime and home directories; every line a client exchanged is kept for
the schema test (test_zz_schema.py).

FERRY_PRODUCTS names the directory of the release binaries (default: the repository's
.build/release). Nothing here resolves a name or leaves loopback."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.abspath(os.path.join(HERE, "..")))

import ferry  # noqa: E402

PRODUCTS = os.environ.get("FERRY_PRODUCTS", os.path.join(REPO, ".build", "release"))

# Every line clients wrote ("out") and read ("in") during the run, for the schema test.
LINES = []
_LINES_LOCK = threading.Lock()


def capture(direction, line):
    with _LINES_LOCK:
        LINES.append((direction, bytes(line)))


def product(name):
    path = os.path.join(PRODUCTS, name)
    if not os.access(path, os.X_OK):
        raise unittest.SkipTest(f"{path} is missing: build with `swift build -c release`")
    return path


class Fixture:
    """ferry-fixture on a loopback port; exits with us (its stdin is our pipe)."""

    def __init__(self):
        self.process = subprocess.Popen([product("ferry-fixture")], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        line = self.process.stdout.readline().decode()
        if not line.startswith("port="):
            raise RuntimeError(f"ferry-fixture said {line!r}")
        self.port = int(line[5:])

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self):
        self.process.terminate()
        self.process.wait(10)
        self.process.stdin.close()
        self.process.stdout.close()


class Daemon:
    """ferryd on a private socket in `directory` with `limits`; `start()` again after
    `kill()` reuses the same state_dir (the durable journal)."""

    def __init__(self, directory, limits=None, config=None):
        self.dir = directory
        self.socket = os.path.join(directory, "ferryd.sock")
        self.state = os.path.join(directory, "state")
        for sub in ("home", "runtime", "state", "config", "cache", "files"):
            os.makedirs(os.path.join(directory, sub), mode=0o700, exist_ok=True)
        conf = {"state_dir": self.state,
                "files": {"read_roots": [directory], "write_roots": [directory]},
                "limits": limits or {}, "sessions": {"default": {}}}
        conf.update(config or {})
        self.config = os.path.join(directory, "ferry.json")
        with open(self.config, "w") as f:
            json.dump(conf, f)
        self.env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.path.join(directory, "home"),
                    "XDG_RUNTIME_DIR": os.path.join(directory, "runtime"),
                    "XDG_STATE_HOME": os.path.join(directory, "state"),
                    "XDG_CONFIG_HOME": os.path.join(directory, "config"),
                    "XDG_CACHE_HOME": os.path.join(directory, "cache"), "LANG": "C"}
        self.process = None
        self.start()

    def start(self):
        self.log = open(os.path.join(self.dir, "ferryd.log"), "ab")
        self.process = subprocess.Popen(
            [product("ferryd"), "--config", self.config, "--socket", self.socket, "--log-level", "info"],
            env=self.env, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            s = socket.socket(socket.AF_UNIX)
            try:
                s.connect(self.socket)
                s.close()
                return
            except OSError:
                s.close()
                if self.process.poll() is not None:
                    break
                time.sleep(0.01)
        raise RuntimeError(f"ferryd did not start: {open(os.path.join(self.dir, 'ferryd.log')).read()[-2000:]}")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)
        self.log.close()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()

    def client(self, **kwargs):
        return ferry.Client(self.socket, line_hook=capture, **kwargs)

    def async_client(self, **kwargs):
        return ferry.AsyncClient(self.socket, line_hook=capture, **kwargs)


class DaemonTestCase(unittest.TestCase):
    """A class's tests share one fixture and one daemon (LIMITS, CONFIG) in a temp dir."""

    LIMITS = None
    CONFIG = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="ferry-py-")
        cls.fixture = Fixture()
        cls.daemon = Daemon(os.path.join(cls.tmp, "d"), cls.LIMITS, cls.CONFIG)

    @classmethod
    def tearDownClass(cls):
        cls.daemon.stop()
        cls.fixture.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def url(self, path):
        return self.fixture.url(path)
