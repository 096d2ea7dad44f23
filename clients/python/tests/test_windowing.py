"""Many jobs on one connection: the library reads while it writes, keeps at most the daemon's
max_jobs_per_connection live, and absorbs `overloaded` (it waits and resubmits)."""

import asyncio
import hashlib
import threading
import unittest

from support import DaemonTestCase, LINES

BODY = bytes(range(256)) * 80  # 20 480 bytes
BODY_SHA = hashlib.sha256(BODY).hexdigest()


def overloaded_lines():
    return sum(1 for d, line in LINES if d == "in" and b'"code":"overloaded"' in line)


class WindowTests(DaemonTestCase):
    # A small per-connection limit, so 2 000 jobs go through the window many times over.
    LIMITS = {"max_jobs_per_connection": 16}

    def test_two_thousand_20kB_posts_async_on_one_connection(self):
        before = overloaded_lines()

        async def main():
            async with self.daemon.async_client() as c:
                self.assertEqual(c._conn.window_size, 16)
                rs = await asyncio.gather(*(c.post(self.url("/echo"), content=BODY) for _ in range(2000)))
                return rs, (await c.stats())["clients"]
        rs, clients = asyncio.run(main())
        self.assertEqual([r.status_code for r in rs], [200] * 2000)
        self.assertEqual({r.json()["body_sha256"] for r in rs}, {BODY_SHA})
        self.assertEqual(clients, 1)
        self.assertEqual(overloaded_lines(), before, "the window let the daemon refuse jobs")

    def test_two_thousand_20kB_posts_sync_submitted_before_any_is_read(self):
        before = overloaded_lines()
        with self.daemon.client() as c:
            self.assertEqual(c._state.window_size, 16)
            jobs = [c.submit(method="POST", url=self.url("/echo"), content=BODY) for _ in range(2000)]
            rs = [job.wait(timeout=60) for job in jobs]
        self.assertEqual([r.status_code for r in rs], [200] * 2000)
        self.assertEqual({r.json()["body_length"] for r in rs}, {len(BODY)})
        self.assertEqual(overloaded_lines(), before)


class OverloadedTests(DaemonTestCase):
    # The daemon as a whole takes 4 live jobs, the connection 64: the library's window (64)
    # lets the daemon refuse, and the library must absorb every `overloaded`.
    LIMITS = {"max_jobs": 4, "max_jobs_per_connection": 64}

    def test_overloaded_never_reaches_the_caller(self):
        before = overloaded_lines()

        async def main():
            async with self.daemon.async_client() as c:
                rs = await asyncio.gather(*(c.post(self.url("/echo"), content=BODY) for _ in range(300)))
                return rs, c._conn.overloaded
        rs, absorbed = asyncio.run(main())
        self.assertEqual([r.status_code for r in rs], [200] * 300)
        self.assertGreater(absorbed, 0, "the daemon never refused: the test did not exercise resubmission")
        self.assertEqual(overloaded_lines() - before, absorbed)

    def test_overloaded_is_absorbed_by_the_sync_client_across_threads(self):
        with self.daemon.client() as c:
            results = []

            def work():
                jobs = [c.submit(method="GET", url=self.url("/delay/5")) for _ in range(40)]
                results.extend(job.wait(timeout=60).status_code for job in jobs)
            threads = [threading.Thread(target=work) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(results, [200] * 160)
            self.assertGreater(c._state.overloaded, 0)


class AsyncWindowTests(unittest.TestCase):
    """The AsyncClient's window of live jobs (`_Window`), without a daemon."""

    def test_a_free_place_is_taken_at_once_and_a_full_window_waits_first_come_first_served(self):
        from ferry._async import _Window

        async def run():
            window = _Window(2)
            self.assertTrue(window.take())
            self.assertTrue(window.take())
            self.assertFalse(window.take())
            order = []

            async def waiter(name):
                await window.acquire()
                order.append(name)
            tasks = [asyncio.ensure_future(waiter(n)) for n in ("a", "b")]
            await asyncio.sleep(0)
            window.release()
            # The freed place went to the oldest waiter: none is free for a newcomer.
            self.assertFalse(window.take())
            window.release()
            await asyncio.gather(*tasks)
            self.assertEqual(order, ["a", "b"])
            self.assertEqual(window.free, 0)
        asyncio.run(run())

    def test_a_waiter_cancelled_as_its_place_came_passes_the_place_on(self):
        from ferry._async import _Window

        async def run():
            window = _Window(1)
            self.assertTrue(window.take())
            first = asyncio.ensure_future(window.acquire())
            second = asyncio.ensure_future(window.acquire())
            await asyncio.sleep(0)
            window.release()  # the place goes to `first` ...
            first.cancel()  # ... which is cancelled before it runs
            await asyncio.gather(first, return_exceptions=True)
            await asyncio.wait_for(second, 5)
            self.assertEqual(window.free, 0)
            window.release()
            self.assertEqual(window.free, 1)
        asyncio.run(run())


if __name__ == "__main__":
    unittest.main()
