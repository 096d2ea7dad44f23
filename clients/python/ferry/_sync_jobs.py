"""The blocking client's jobs: `Job` (submit, attach) and `StreamResponse`."""

import queue

from ._errors import FerryError
from ._models import TERMINAL, Response, data_bytes, outcome


class Job:
    """A submitted (or attached) job: `id`, `events()`, `cancel()`, `wait()`."""

    def __init__(self, client, spec):
        self.client = client
        self.id = spec.id
        self.spec = spec
        self._queue = queue.Queue()
        self._terminal = None
        self._lost = None
        self.head = None  # the latest `response` event

    # Called by the reader thread.
    def _feed(self, event):
        self._queue.put(event)

    def _next(self, timeout=None):
        try:
            item = self._queue.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"job {self.id}: no event within {timeout} s") from None
        if isinstance(item, BaseException):
            self._lost = item
            raise item
        if item["event"] == "response":
            self.head = item
        elif item["event"] in TERMINAL:
            self._terminal = item
        return item

    def events(self, timeout=None):
        """The job's events as dicts, the terminal one (`done`, `failed`, `cancelled`) last.
        Raises `DaemonUnavailable` when the connection is lost first."""
        while self._terminal is None:
            if self._lost is not None:
                raise self._lost
            yield self._next(timeout)

    def wait(self, timeout=None):
        """The job's `Response` once it ends; raises `FerryError` (`JobCancelled` when
        cancelled) when it fails, `DaemonUnavailable` when the connection is lost."""
        for _ in self.events(timeout):
            pass
        if self._lost is not None:
            raise self._lost
        return outcome(self._terminal, self.spec.method)

    @property
    def done(self):
        return self._terminal is not None

    def cancel(self):
        """Asks the daemon to cancel the job (`cancelled`, reason `client`); a no-op once it
        ended. Works for detached and durable jobs too."""
        self.client._cancel(self)

    def __repr__(self):
        return f"<ferry.Job {self.id}>"


class StreamResponse:
    """A response whose body arrives while it is read: `status_code`, `headers` (from the
    `response` event), `iter_bytes()`, `read()`; `url`, `attempts`, `timing` once it ended."""

    def __init__(self, job):
        self.job = job
        self._final = None

    def _start(self):
        for event in self.job.events():
            if event["event"] == "response":
                break
            if event["event"] in TERMINAL:
                self._final = outcome(event, self.job.spec.method)
                break
        self._head = Response(self.job.head or (self._final.event if self._final else {}))

    @property
    def status_code(self):
        return self._head.status_code

    @property
    def headers(self):
        return self._head.headers

    @property
    def http_version(self):
        return self._head.http_version

    def iter_bytes(self):
        for event in self.job.events():
            kind = event["event"]
            if kind == "data":
                yield data_bytes(event)
            elif kind == "response":
                self._head = Response(event)
            elif kind in TERMINAL:
                self._final = outcome(event, self.job.spec.method)

    def read(self):
        return b"".join(self.iter_bytes())

    @property
    def final(self):
        """The `Response` of the `done` event (no body), once the stream ended."""
        return self._final

    def close(self):
        if not self.job.done and self.job._lost is None:
            self.job.cancel()
            try:
                for _ in self.job.events():
                    pass
            except FerryError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
