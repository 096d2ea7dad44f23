"""The blocking Client against ferry-fixture: requests' names and what they send."""

import hashlib
import json
import os
import threading
import unittest

from support import DaemonTestCase, ferry


class RequestsShapeTests(DaemonTestCase):
    def setUp(self):
        self.client = self.daemon.client()
        self.addCleanup(self.client.close)

    def test_get_json_keeps_the_body_bytes_and_the_response_fields(self):
        r = self.client.get(self.url("/json"))
        self.assertEqual(r.status_code, 200)
        self.assertTrue(r.ok)
        self.assertEqual(r.headers["Content-Type"], "application/json")
        self.assertEqual(r.json()["numbers"][2], 12345678901234567890)
        self.assertEqual(r.json()["text"], "h\u00e9llo \u2713")
        self.assertEqual(r.url, self.url("/json"))
        self.assertEqual(r.attempts, 1)
        self.assertIn("total", r.timing)
        self.assertIsNone(r.cache)
        self.assertEqual(r.http_version, "1.1")

    def test_params_go_into_the_query_string(self):
        r = self.client.get(self.url("/echo"), params={"q": "a b", "tags": ["x", "y"]})
        self.assertEqual(r.json()["query"], "q=a+b&tags=x&tags=y")

    def test_each_method_is_sent_as_named(self):
        for name in ("get", "post", "put", "patch", "delete", "options"):
            with self.subTest(name):
                r = getattr(self.client, name)(self.url("/echo"))
                self.assertEqual(r.json()["method"], name.upper())
        r = self.client.head(self.url("/json"))
        self.assertEqual((r.status_code, r.content), (200, b""))

    def test_data_dict_is_a_form_body(self):
        r = self.client.post(self.url("/echo"), data={"a": "1", "b": ["2", "3"]})
        body = b"a=1&b=2&b=3"
        self.assertEqual(r.json()["headers"]["content-type"], "application/x-www-form-urlencoded")
        self.assertEqual(r.json()["body_sha256"], hashlib.sha256(body).hexdigest())

    def test_json_content_and_headers(self):
        r = self.client.put(self.url("/echo"), json={"k": [1, 2]}, headers={"X-Test": "yes"})
        echo = r.json()
        self.assertEqual(echo["headers"]["content-type"], "application/json")
        self.assertEqual(echo["headers"]["x-test"], "yes")
        self.assertEqual(echo["body_sha256"], hashlib.sha256(b'{"k":[1,2]}').hexdigest())
        payload = bytes(range(256)) * 10
        r = self.client.patch(self.url("/echo"), content=payload)
        self.assertEqual(r.json()["body_sha256"], hashlib.sha256(payload).hexdigest())

    def test_a_file_object_body_goes_as_a_descriptor(self):
        path = os.path.join(self.tmp, "body.bin")
        with open(path, "wb") as f:
            f.write(b"0123456789" * 1000)
        with open(path, "rb") as f:
            f.seek(10)  # the body is what lies past the offset
            r = self.client.post(self.url("/echo"), content=f)
        self.assertEqual(r.json()["body_length"], 9990)
        self.assertEqual(r.json()["body_sha256"], hashlib.sha256(b"0123456789" * 999).hexdigest())

    def test_multipart_files_and_fields(self):
        path = os.path.join(self.tmp, "part.txt")
        with open(path, "wb") as f:
            f.write(b"from a file\n")
        with open(path, "rb") as opened:
            r = self.client.post(self.url("/echo"), data={"field": "v"},
                                 files={"a": opened, "b": ("b.txt", b"bytes", "text/plain"), "c": path})
        echo = r.json()
        self.assertTrue(echo["headers"]["content-type"].startswith("multipart/form-data; boundary="))
        self.assertGreater(echo["body_length"], 12 + 5 + 12 + 1)

    def test_more_than_four_descriptors_are_refused_and_none_is_leaked(self):
        path = os.path.join(self.tmp, "five.txt")
        with open(path, "wb") as f:
            f.write(b"x")
        self.client.ping()  # connected: its socket is not counted as a leak
        before = len(os.listdir("/proc/self/fd"))
        with self.assertRaises(ValueError):
            self.client.post(self.url("/echo"), files={str(i): path for i in range(5)})
        self.assertEqual(len(os.listdir("/proc/self/fd")), before)
        r = self.client.post(self.url("/echo"), files={str(i): path for i in range(4)})
        self.assertEqual(r.status_code, 200)
        self.assertEqual(len(os.listdir("/proc/self/fd")), before)

    def test_error_statuses_are_responses_until_raise_for_status(self):
        r = self.client.get(self.url("/status/404"))
        self.assertEqual(r.status_code, 404)
        self.assertFalse(r.ok)
        with self.assertRaises(ferry.HTTPStatusError) as caught:
            r.raise_for_status()
        self.assertIs(caught.exception.response, r)
        self.assertIs(self.client.get(self.url("/status/201")).raise_for_status().status_code, 201)

    def test_accept_makes_other_statuses_failures_with_the_response(self):
        with self.assertRaises(ferry.FerryError) as caught:
            self.client.get(self.url("/status/503"), accept=[200])
        self.assertEqual(caught.exception.code, "unacceptable_status")
        self.assertEqual(caught.exception.response.status_code, 503)
        self.assertEqual(caught.exception.response.json(), {"status": 503})

    def test_invalid_job_names_its_field(self):
        with self.assertRaises(ferry.FerryError) as caught:
            self.client.get(self.url("/json"), timeout=-1)
        self.assertEqual((caught.exception.code, caught.exception.field), ("invalid_job", "timeout"))

    def test_text_is_decoded_by_its_charset(self):
        self.assertEqual(self.client.get(self.url("/text")).text, "h\u00e9llo, w\u00f6rld \u2713\n")
        self.assertEqual(self.client.get(self.url("/latin1")).text, "h\u00e9llo, w\u00f6rld\n")

    def test_headers_ignore_case_and_keep_each_cookie(self):
        r = self.client.get(self.url("/headers?Set-Cookie=a%3D1&Set-Cookie=b%3D2&X-One=1"))
        self.assertEqual(r.headers.get_list("SET-COOKIE"), ["a=1", "b=2"])
        self.assertEqual(r.headers["x-one"], "1")
        self.assertIn("X-ONE", r.headers)

    def test_stream_yields_the_body_while_it_arrives(self):
        with self.client.stream("GET", self.url("/bytes/300000")) as r:
            self.assertEqual(r.status_code, 200)
            total = sum(len(chunk) for chunk in r.iter_bytes())
        self.assertEqual(total, 300000)
        self.assertEqual(r.final.bytes, 300000)

    def test_submit_gives_every_event(self):
        job = self.client.submit(url=self.url("/json"), events=["started", "response"])
        kinds = [e["event"] for e in job.events()]
        self.assertEqual(kinds, ["queued", "started", "response", "done"])
        self.assertEqual(job.wait().status_code, 200)

    def test_submit_takes_a_raw_job(self):
        job = self.client.submit({"url": self.url("/json"), "response": "json", "events": []})
        r = job.wait()
        self.assertEqual(r.json()["name"], "ferry")
        self.assertTrue(job.id.startswith("py"))

    def test_ops(self):
        self.assertEqual(self.client.ping(), {"event": "pong"})
        self.assertEqual(self.client.hello()["protocol"], 1)
        self.assertEqual(self.client.jobs(), [])
        with self.assertRaises(ferry.FerryError) as caught:
            self.client.op("no_such_op", expect="nothing")
        self.assertEqual(caught.exception.code, "unknown_op")

    def test_attach_to_an_unknown_job_fails_unknown_id(self):
        with self.assertRaises(ferry.FerryError) as caught:
            self.client.attach("no-such-job").wait()
        self.assertEqual(caught.exception.code, "unknown_id")

    def test_threads_share_one_client(self):
        results = []

        def work():
            for _ in range(40):
                results.append(self.client.get(self.url("/echo")).status_code)
        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(results, [200] * 320)
        # One connection carried them all.
        stats = self.client.stats()
        self.assertEqual(stats["clients"], 1)
        self.assertEqual(stats["paused"], 0)

    def test_stats_slowest_lists_a_running_job_by_its_origin(self):
        job = self.client.submit(method="GET", url=self.url("/stall?secret=1"), timeout=(30, 3600),
                                 events=["started"])
        for event in job.events(timeout=30):
            if event["event"] == "started":
                break
        stats = self.client.stats(slowest=5)
        self.assertGreaterEqual(stats["jobs"]["running"], 1)
        mine = [j for j in stats["slowest"] if j["id"] == job.id]
        self.assertEqual(len(mine), 1)
        self.assertEqual(mine[0]["origin"], self.url(""))
        self.assertEqual(mine[0]["session"], "default")
        self.assertNotIn("slowest", self.client.stats())
        with self.assertRaises(ferry.FerryError) as caught:
            self.client.stats(slowest=51)
        self.assertEqual(caught.exception.code, "invalid_job")
        job.cancel()
        with self.assertRaises(ferry.JobCancelled):
            job.wait(timeout=30)

    def test_a_missing_daemon_is_daemon_unavailable(self):
        with self.assertRaises(ferry.DaemonUnavailable):
            ferry.Client(os.path.join(self.tmp, "nothing.sock")).get(self.url("/json"))


class AcceptedAsIsTests(unittest.TestCase):
    def test_the_socket_is_found_as_the_cli_finds_it(self):
        from ferry._socket import locate
        self.assertEqual(locate(None, {"FERRY_SOCKET": "/x.sock"}), ("/x.sock", "$FERRY_SOCKET"))
        self.assertEqual(locate("/given", {"FERRY_SOCKET": "/x.sock"})[0], "/given")
        if not os.path.exists("/run/ferry/ferryd.sock"):
            self.assertEqual(locate(None, {})[0], f"/tmp/ferryd-{os.getuid()}/ferryd.sock")

    def test_only_root_the_caller_or_FERRY_DAEMON_UID_is_trusted(self):
        from unittest import mock
        from ferry import _socket
        stranger = os.getuid() + 4242
        with mock.patch.object(_socket, "peer_uid", return_value=stranger):
            with self.assertRaises(ferry.DaemonUnavailable) as caught:
                _socket.check_trust(None, "/x.sock", {})
            self.assertIn(f"FERRY_DAEMON_UID={stranger}", caught.exception.message)
            _socket.check_trust(None, "/x.sock", {"FERRY_DAEMON_UID": str(stranger)})
        for trusted in (0, os.getuid()):
            with mock.patch.object(_socket, "peer_uid", return_value=trusted):
                _socket.check_trust(None, "/x.sock", {})

    def test_the_peer_uid_is_read_with_SO_PEERCRED(self):
        import socket as s
        from ferry import _socket
        a, b = s.socketpair(s.AF_UNIX)
        self.assertEqual(_socket.peer_uid(a), os.getuid())
        a.close()
        b.close()

    def test_job_lines_from_arguments(self):
        from ferry._jobs import build_job
        job, passing = build_job("post", "http://127.0.0.1:1/x?a=1", params={"b": 2}, timeout=(3, 4), retry=2,
                                 cache="reload", cookies=False, lane="l")
        self.assertEqual(job["url"], "http://127.0.0.1:1/x?a=1&b=2")
        self.assertEqual((job["connect_timeout"], job["idle_timeout"]), (3, 4))
        self.assertEqual(job["retry"], {"max": 2})
        self.assertEqual((job["cache"], job["cookies"], job["lane"]), ("reload", False, "l"))
        self.assertEqual(json.dumps(job["accept"]), '{"status": [[100, 599]]}')


if __name__ == "__main__":
    unittest.main()
