"""AsyncClient against ferry-fixture: httpx's names, many requests on one connection,
cancellation of the awaiting task."""

import asyncio
import hashlib
import os
import unittest

from support import DaemonTestCase, ferry, LINES


def run(coro):
    return asyncio.run(coro)


class AsyncClientTests(DaemonTestCase):
    def test_requests_styles_methods(self):
        async def main():
            async with self.daemon.async_client() as c:
                r = await c.get(self.url("/json"))
                self.assertEqual((r.status_code, r.json()["name"]), (200, "ferry"))
                r = await c.post(self.url("/echo"), json={"a": 1})
                self.assertEqual(r.json()["body_sha256"], hashlib.sha256(b'{"a":1}').hexdigest())
                for name in ("put", "patch", "delete", "options"):
                    self.assertEqual((await getattr(c, name)(self.url("/echo"))).json()["method"], name.upper())
                self.assertEqual((await c.head(self.url("/json"))).content, b"")
                self.assertEqual((await c.get(self.url("/status/418"))).status_code, 418)
                self.assertEqual((await c.ping()), {"event": "pong"})
        run(main())

    def test_a_thousand_concurrent_gets_share_one_connection(self):
        async def main():
            async with self.daemon.async_client() as c:
                responses = await asyncio.gather(*(c.get(self.url("/echo"), params={"n": i}) for i in range(1000)))
                self.assertEqual([r.json()["query"] for r in responses], [f"n={i}" for i in range(1000)])
                self.assertEqual((await c.stats())["clients"], 1)
        run(main())

    def test_stream_and_aiter_bytes(self):
        async def main():
            async with self.daemon.async_client() as c:
                async with c.stream("GET", self.url("/bytes/200000")) as r:
                    self.assertEqual(r.status_code, 200)
                    total = 0
                    async for chunk in r.aiter_bytes():
                        total += len(chunk)
                self.assertEqual(total, 200000)
        run(main())

    def test_submit_events_and_wait(self):
        async def main():
            async with self.daemon.async_client() as c:
                job = await c.submit(url=self.url("/json"), events=["started"])
                kinds = [e["event"] async for e in job.events()]
                self.assertEqual(kinds, ["queued", "started", "done"])
                self.assertEqual((await job.wait()).status_code, 200)
        run(main())

    def test_cancelling_the_task_cancels_the_job(self):
        async def main():
            async with self.daemon.async_client() as c:
                task = asyncio.ensure_future(c.get(self.url("/stall")))
                # Wait until the job is live on the daemon (its `queued` came back).
                while not any(b'"event":"queued"' in line for d, line in LINES[-50:] if d == "in"
                              and any(jid.encode() in line for jid in c._conn.jobs)):
                    await asyncio.sleep(0.005)
                job_id = next(iter(c._conn.jobs))
                task.cancel()
                with self.assertRaises(asyncio.CancelledError):
                    await task
                # The daemon ends it `cancelled` (reason client) and frees its window slot.
                while job_id in c._conn.jobs:
                    await asyncio.sleep(0.005)
                self.assertTrue(any(b'"event":"cancelled"' in line and job_id.encode() in line
                                    and b'"reason":"client"' in line for d, line in LINES if d == "in"))
                self.assertEqual((await c.get(self.url("/json"))).status_code, 200)
        run(main())

    def test_a_job_cancelled_mid_transfer(self):
        async def main():
            async with self.daemon.async_client() as c:
                job = await c.submit(method="GET", url=self.url("/bytes/2000000000"),
                                     response="stream", events=["response", "data"])
                got = 0
                async for event in job.events():
                    if event["event"] == "data":
                        got += 1
                        if got == 3:
                            await job.cancel()
                    if event["event"] == "cancelled":
                        self.assertEqual(event["reason"], "client")
                with self.assertRaises(ferry.JobCancelled):
                    await job.wait()
                stats = await c.stats()
                self.assertEqual(stats["jobs"]["running"], 0)
        run(main())

    def test_stats_slowest_lists_a_running_job(self):
        async def main():
            async with self.daemon.async_client() as c:
                job = await c.submit(method="GET", url=self.url("/stall"), timeout=(30, 3600),
                                     events=["started"])
                async for event in job.events():
                    if event["event"] == "started":
                        break
                stats = await c.stats(slowest=3)
                mine = [j for j in stats["slowest"] if j["id"] == job.id]
                self.assertEqual([j["origin"] for j in mine], [self.url("")])
                self.assertNotIn("slowest", await c.stats())
                await job.cancel()
                with self.assertRaises(ferry.JobCancelled):
                    await job.wait()
        run(main())

    def test_one_client_across_two_event_loops(self):
        c = self.daemon.async_client()

        async def get():
            return (await c.get(self.url("/json"))).status_code
        self.assertEqual(run(get()), 200)
        self.assertEqual(run(get()), 200)  # a new loop: the client connects again on it
        run(c.aclose())

    def test_descriptor_body_through_the_async_client(self):
        path = os.path.join(self.tmp, "async-body.bin")
        with open(path, "wb") as f:
            f.write(os.urandom(100000))

        async def main():
            async with self.daemon.async_client() as c:
                with open(path, "rb") as f:
                    r = await c.put(self.url("/echo"), content=f)
                with open(path, "rb") as f:
                    self.assertEqual(r.json()["body_sha256"], hashlib.sha256(f.read()).hexdigest())
        run(main())


if __name__ == "__main__":
    unittest.main()
