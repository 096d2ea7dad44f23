"""Jobs that outlive the program and the daemon: durable submit, exit, attach from another
program; a durable job across a SIGKILL of the daemon; cancellation mid-transfer."""

import os
import subprocess
import sys
import textwrap
import unittest

from support import DaemonTestCase, HERE, ferry

SUBMITTER = textwrap.dedent("""
    import sys
    sys.path.insert(0, sys.argv[1])
    import ferry
    client = ferry.Client(sys.argv[2])
    job = client.submit(method="GET", url=sys.argv[3], durable=True)
    for event in job.events():
        if event["event"] == "queued":   # committed to the journal: the acknowledgement
            break
    print(job.id, flush=True)
    # The program ends here without waiting; its connection closes.
""")


class DurableTests(DaemonTestCase):
    def submit_from_another_program(self, url):
        out = subprocess.run([sys.executable, "-c", SUBMITTER, os.path.join(HERE, ".."), self.daemon.socket, url],
                             check=True, capture_output=True, timeout=60)
        return out.stdout.decode().strip()

    def test_a_new_program_attaches_to_a_durable_job_after_the_first_exited(self):
        job_id = self.submit_from_another_program(self.url("/delay/1500"))
        with self.daemon.client() as c:
            self.assertIn(job_id, [j["id"] for j in c.jobs() if j["durable"]])
            job = c.attach(job_id)
            events = list(job.events())
            self.assertEqual(events[0]["event"], "queued")
            self.assertEqual(events[0]["seq"], 1)
            r = job.wait()
            self.assertEqual((r.status_code, r.json()), (200, {"delayed_ms": 1500}))
            self.assertNotIn(job_id, [j["id"] for j in c.jobs()])

    def test_a_durable_job_survives_a_killed_daemon(self):
        job_id = self.submit_from_another_program(self.url("/delay/2000"))
        with self.daemon.client() as c:
            while [j["phase"] for j in c.jobs() if j["id"] == job_id] != ["running"]:
                pass
        self.daemon.kill()
        self.daemon.start()
        with self.daemon.client() as c:
            r = c.attach(job_id).wait(timeout=60)
            self.assertEqual(r.status_code, 200)
            self.assertEqual(r.attempts, 2)  # resent after the restart as its next attempt

    def test_a_live_durable_job_reports_how_to_collect_it_when_the_daemon_dies(self):
        c = self.daemon.client()
        job = c.submit(method="GET", url=self.url("/delay/3000"), durable=True)
        next(job.events())  # queued
        self.daemon.kill()
        with self.assertRaises(ferry.DaemonUnavailable) as caught:
            job.wait()
        self.assertIn(f"attach('{job.id}')", str(caught.exception))
        self.daemon.start()
        # The same Client connects again on its next call.
        self.assertEqual(c.attach(job.id).wait(timeout=60).status_code, 200)
        c.close()

    def test_a_stream_cancelled_mid_transfer(self):
        with self.daemon.client() as c:
            with c.stream("GET", self.url("/bytes/2000000000")) as r:
                chunks = r.iter_bytes()
                first = next(chunks)
                self.assertGreater(len(first), 0)
            # Leaving the block cancelled the job; its terminal event was `cancelled`.
            self.assertEqual(r.job._terminal["event"], "cancelled")
            self.assertEqual(r.job._terminal["reason"], "client")
            self.assertEqual(c.stats()["jobs"]["running"], 0)


if __name__ == "__main__":
    unittest.main()
