"""Descriptors both ways: a download resumed after the daemon was killed (SIGKILL, restarted
on the same state_dir), and a big multipart upload read by the daemon from a passed file."""

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
import time
import unittest

from support import REPO, DaemonTestCase, ferry

BIG = 1 << 30          # the download: big enough that the kill lands mid-way
UPLOAD = 200 << 20     # the 200 MiB


class Nginx:
    """tools/nginx-fixture.sh: a private loopback nginx whose /big is a sparse file."""

    def __init__(self, big_bytes):
        self.dir = tempfile.mkdtemp(prefix="ferry-py-nginx-")
        os.chmod(self.dir, 0o755)  # nginx's workers may run as another user
        env = dict(os.environ, NGINX_BIG_BYTES=str(big_bytes))
        out = subprocess.run([os.path.join(REPO, "tools", "nginx-fixture.sh"), "start", self.dir], env=env,
                             check=True, capture_output=True, timeout=60).stdout.decode()
        values = dict(pair.split("=", 1) for pair in out.split())
        self.http_port = int(values["http_port"])

    def url(self, path):
        return f"http://127.0.0.1:{self.http_port}{path}"

    def stop(self):
        subprocess.run([os.path.join(REPO, "tools", "nginx-fixture.sh"), "stop", self.dir], timeout=60)
        shutil.rmtree(self.dir, ignore_errors=True)


class ResumedDownloadTests(DaemonTestCase):
    def test_a_download_resumes_after_the_daemon_was_killed(self):
        if not (shutil.which("nginx") or os.path.exists("/usr/sbin/nginx")):
            self.skipTest("nginx is not installed (make deps)")
        nginx = Nginx(BIG)
        self.addCleanup(nginx.stop)
        target = os.path.join(self.tmp, "big.bin")
        part = target + ".part"
        outcome = {}

        def first():
            try:
                outcome["response"] = self.daemon.client().download(nginx.url("/big"), target, resume=True)
            except ferry.FerryError as e:
                outcome["error"] = e
        thread = threading.Thread(target=first)
        thread.start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if os.path.exists(part) and os.path.getsize(part) > (8 << 20):
                break
            time.sleep(0.001)
        self.daemon.kill()
        thread.join(30)
        self.assertIsInstance(outcome.get("error"), ferry.DaemonUnavailable, outcome)
        partial = os.path.getsize(part)
        self.assertTrue(0 < partial < BIG, partial)
        with open(target + ".part.validator") as f:
            self.assertTrue(f.read().startswith('"'), "nginx's strong ETag is the validator")

        self.daemon.start()
        with self.daemon.client() as c:
            r = c.download(nginx.url("/big"), target, resume=True)
        self.assertEqual(r.status_code, 206)  # continued from the partial file's size
        self.assertEqual(r.bytes, BIG)
        self.assertEqual(os.path.getsize(target), BIG)
        self.assertFalse(os.path.exists(part))
        self.assertFalse(os.path.exists(target + ".part.validator"))
        os.unlink(target)

    def test_a_download_without_resume_writes_the_file(self):
        target = os.path.join(self.tmp, "small.bin")
        with self.daemon.client() as c:
            r = c.download(self.url("/bytes/100000"), target, resume=False)
            self.assertEqual((r.status_code, r.bytes, os.path.getsize(target)), (200, 100000, 100000))
            with self.assertRaises(ferry.FerryError) as caught:
                c.download(self.url("/status/404"), target + "2")
            self.assertEqual(caught.exception.code, "unacceptable_status")
            self.assertEqual(caught.exception.response.status_code, 404)

    def test_an_async_download_resumes_a_partial_file(self):
        import asyncio
        target = os.path.join(self.tmp, "versioned.bin")
        with open(target + ".part", "wb") as f:
            f.write(b"A" * 1000)
        with open(target + ".part.validator", "w") as f:
            f.write('"v1"')

        async def main():
            async with self.daemon.async_client() as c:
                return await c.download(self.url("/versioned/5000"), target)
        r = asyncio.run(main())
        self.assertEqual((r.status_code, r.bytes), (206, 5000))
        with open(target, "rb") as f:
            self.assertEqual(f.read(), b"A" * 5000)


class BigUploadTests(DaemonTestCase):
    def test_a_200_MiB_multipart_upload_through_a_descriptor(self):
        path = os.path.join(self.tmp, "big-upload.bin")
        block = hashlib.sha256(b"ferry").digest() * 32768  # 1 MiB
        digest = hashlib.sha256()
        with open(path, "wb") as f:
            for _ in range(UPLOAD >> 20):
                f.write(block)
                digest.update(block)
        with self.daemon.client() as c:
            started = time.monotonic()
            r = c.post(self.url("/echo"), files={"file": path}, data={"name": "big"})
            multipart_s = time.monotonic() - started
            echo = r.json()
            self.assertEqual(r.status_code, 200)
            # The file, its part head and the field's part: at most a few hundred bytes more.
            self.assertTrue(UPLOAD < echo["body_length"] < UPLOAD + 1024, echo["body_length"])
            with open(path, "rb") as f:
                r = c.put(self.url("/echo"), content=f)
            self.assertEqual(r.json()["body_sha256"], digest.hexdigest())
        os.unlink(path)
        print(f"\n  200 MiB multipart upload through a descriptor: {multipart_s:.2f} s", end=" ")


if __name__ == "__main__":
    unittest.main()
