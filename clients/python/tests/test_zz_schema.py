"""docs/schema/ferry.schema.json against every line exchanged with ferryd during the run:
each line the daemon wrote must be an `event`, each line the library wrote a `clientLine`.

Named to run last (unittest sorts modules by name) so that it sees the lines of every other
test module run before it; on its own it still drives each op, event and error kind it can
reach. Needs Debian's python3-jsonschema (Draft 2020-12 support since 4.0)."""

import asyncio
import json
import os
import socket
import unittest

from support import LINES, REPO, DaemonTestCase, capture

try:
    import jsonschema
except ImportError:  # pragma: no cover
    jsonschema = None

SCHEMA_PATH = os.path.join(REPO, "docs", "schema", "ferry.schema.json")


def validator(definition):
    with open(SCHEMA_PATH) as f:
        schema = json.load(f)
    schema.pop("anyOf")
    schema["$ref"] = f"#/$defs/{definition}"
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@unittest.skipIf(jsonschema is None, "python3-jsonschema is not installed (apt-get install python3-jsonschema)")
class SchemaTests(DaemonTestCase):
    CONFIG = {"sessions": {"default": {}, "cached": {"cache": {"max_bytes": 1048576}},
                           "jar": {"cookies": True}}}

    def raw_lines(self, *lines, expect):
        """Sends raw lines on a socket of its own and returns `expect` answer lines."""
        s = socket.socket(socket.AF_UNIX)
        s.connect(self.daemon.socket)
        s.sendall(b"".join(lines))
        out = b""
        while out.count(b"\n") < expect:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
        s.close()
        for line in lines:
            for part in line.split(b"\n"):
                if part.strip() and len(part) < 100000:
                    try:
                        json.loads(part)
                        capture("raw-out", part)
                    except ValueError:
                        pass
        answers = [line for line in out.split(b"\n") if line]
        for line in answers:
            capture("in", line)
        return [json.loads(line) for line in answers]

    def drive_everything(self):
        """Every op, each event kind, and the errors a library never provokes."""
        url = self.url
        with self.daemon.client() as c:
            for name in ("ping", "hello", "stats", "metrics", "sessions", "jobs"):
                c.op(name)
            c.op("explain", job={"url": url("/echo"), "method": "POST", "parts": [{"name": "a", "value": "1"}]})
            c.op("cookies", session="jar", values=True)
            c.op("clear_cookies", session="jar")
            c.op("cache", session="cached")
            c.op("cache", session="default")
            c.op("purge", session="cached", all=True)
            c.get(url("/headers?Set-Cookie=a%3D1"), session="jar")
            c.op("cookies", session="jar")
            for _ in range(2):
                c.get(url("/bytes/100?cache_control=max-age%3D60"), session="cached")
            c.op("cache", session="cached")
            job = c.submit({"url": url("/bytes/300000"), "events": ["started", "response", "progress"],
                            "progress_interval_ms": 0, "response": "discard"})
            job.wait()
            for mode in ("auto", "json", "text", "base64"):
                c.submit({"url": url("/json"), "response": mode}).wait()
            c.submit({"url": url("/latin1"), "response": "text"}).wait()
            c.submit({"url": url("/text"), "response": "stream", "events": ["data"]}).wait()
            c.submit({"url": url("/bytes/1000"), "response": "stream", "events": ["data"]}).wait()
            for job_line in ({"url": url("/status/404"), "events": []},
                             {"url": url("/bytes/100"), "accept": {"content_types": ["text/plain"]}},
                             {"url": url("/bytes/9000000"), "max_inline_bytes": 1000},
                             {"url": "ftp://127.0.0.1/x"}, {"url": url("/json"), "session": "nope"},
                             {"url": url("/delay/2000"), "timeout": 0.2},
                             {"url": "http://127.0.0.1:1/refused"}):
                try:
                    c.submit(dict(job_line)).wait()
                except Exception:
                    pass
            stalled = c.submit({"url": url("/stall")})
            stalled.cancel()
            try:
                stalled.wait()
            except Exception:
                pass
            detached = c.submit({"url": url("/json"), "detach": True})
            detached.wait()
            for op_line in ({"op": "attach", "id": "nobody"}, {"op": "nope"}):
                try:
                    c.op(op_line.pop("op"), expect="never", **op_line)
                except Exception:
                    pass
        self.raw_lines(b"not json\n", b'{"url": 1}\n', b'{"id": "x", "url": "/a", "url": "/b"}\n',
                       b'{"op": "ping", "id": "p"}\n', b'{"op": "cancel", "id": "nothing"}\n',
                       b'{"url": "' + b"a" * (1 << 20) + b'"}\n',
                       b'{"id": "dup", "url": "' + url("/stall").encode() + b'"}\n',
                       b'{"id": "dup", "url": "' + url("/stall").encode() + b'"}\n', expect=7)

        async def many():
            async with self.daemon.async_client() as ac:
                await asyncio.gather(*(ac.get(url("/echo")) for _ in range(50)))
        asyncio.run(many())

    def test_every_line_exchanged_matches_the_schema(self):
        self.drive_everything()
        events, client_lines = validator("event"), validator("clientLine")
        seen_events, seen_codes, checked = set(), set(), 0
        # Job lines the daemon refused as invalid_job may break the schema too: not checked.
        refused = set()
        for direction, line in LINES:
            if direction == "in" and b'"invalid_job"' in line:
                value = json.loads(line)
                refused.add(value.get("id") or value["error"].get("id"))
        for direction, line in list(LINES):
            value = json.loads(line)
            if direction == "out" and value.get("id") in refused:
                continue
            if direction == "raw-out":
                continue  # deliberately broken lines, sent to provoke errors
            if direction == "out" and value == {"op": "nope"}:
                self.assertFalse(client_lines.is_valid(value), "an unknown op must not validate")
                continue
            check = events if direction == "in" else client_lines
            errors = sorted(check.iter_errors(value), key=lambda e: e.path)
            if errors:
                best = jsonschema.exceptions.best_match(errors)
                self.fail(f"{direction} line does not match the schema: {best.message} at "
                          f"{list(best.absolute_path)}\n{line[:600]!r}")
            if direction == "in":
                self.assertEqual(next(iter(value)), "event", line[:200])
                seen_events.add(value["event"])
                if "error" in value:
                    seen_codes.add(value["error"]["code"])
            checked += 1
        # The run reached every kind of event the daemon writes (a smaller set would mean the
        # schema's other branches went untested).
        self.assertTrue({"queued", "started", "response", "progress", "data", "done", "failed", "cancelled", "pong",
                         "hello", "explained", "stats", "metrics", "sessions", "jobs", "cookies", "cookies_cleared",
                         "cache", "purged", "error"} <= seen_events, seen_events)
        self.assertTrue({"invalid_json", "invalid_job", "line_too_long", "duplicate_id", "unknown_op", "unknown_id",
                         "unknown_session", "unsupported_scheme", "unacceptable_status",
                         "unacceptable_content_type", "response_too_large", "timeout", "connect_failed"}
                        <= seen_codes, seen_codes)
        print(f"\n  schema: {checked} lines checked, {len(seen_events)} event kinds, {len(seen_codes)} error codes",
              end=" ")

    def test_the_schema_knows_every_error_code_of_the_daemon(self):
        source = os.path.join(REPO, "Sources", "FerryWire", "ErrorCode.swift")
        with open(source) as f:
            text = f.read()
        import re
        codes = set(re.findall(r'case \w+ = "(\w+)"', text)) | set(re.findall(r"case (\w+)\n", text))
        with open(SCHEMA_PATH) as f:
            schema = json.load(f)
        self.assertEqual(codes, set(schema["$defs"]["errorCode"]["enum"]))


if __name__ == "__main__":
    unittest.main()
