#!/usr/bin/env python3
"""A job that outlives this program (and a daemon restart): submit it, exit, collect it later.

    python3 examples/python/durable_job.py submit URL     # prints the job id, exits at once
    python3 examples/python/durable_job.py list           # your detached and durable jobs
    python3 examples/python/durable_job.py collect ID     # waits for it and prints the answer
    python3 examples/python/durable_job.py cancel ID

`queued` is the daemon's promise: the job was written to its journal and will end exactly
once, whatever happens to this program or to ferryd."""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "clients", "python"))
import ferry  # noqa: E402


def main(command, *args):
    with ferry.Client() as client:
        if command == "submit":
            job = client.submit(method="GET", url=args[0], durable=True, retry=5)
            for event in job.events():
                if event["event"] == "queued":
                    break  # committed: safe to exit
            print(job.id)
        elif command == "list":
            for entry in client.jobs():
                print(json.dumps(entry))
        elif command == "collect":
            try:
                r = client.attach(args[0]).wait()
            except ferry.FerryError as e:
                sys.exit(f"{args[0]}: {e.code}: {e.message}")
            print(r.status_code, r.text[:2000])
        elif command == "cancel":
            job = client.attach(args[0])
            job.cancel()
            try:
                job.wait()
            except ferry.JobCancelled:
                print("cancelled")
        else:
            sys.exit(__doc__)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(*sys.argv[1:])
