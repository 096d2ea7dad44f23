"""The asyncio client's jobs: `AsyncJob` (submit, attach), the lighter record `request()`
keeps, and `AsyncStreamResponse`."""

import asyncio
import collections

from ._errors import FerryError
from ._models import TERMINAL, Response, data_bytes, outcome


class AsyncJob:
    """A submitted (or attached) job: `id`, `events()` (an async iterator of dicts),
    `cancel()`, `await wait()`."""

    __slots__ = ("client", "id", "spec", "state", "_events", "_wake", "_terminal", "_lost", "_done", "head",
                 "_keep")

    def __init__(self, client, spec, keep_events):
        self.client = client
        self.id = spec.id
        self.spec = spec
        self.state = None
        self._keep = keep_events
        self._events = collections.deque()
        self._wake = None
        self._terminal = None
        self._lost = None
        self._done = client._loop.create_future()
        self.head = None

    def _feed(self, event):
        if isinstance(event, BaseException):
            self._lost = event
            if not self._done.done():
                self._done.set_exception(event)
                self._done.exception()  # retrieved: no "never retrieved" warning
        else:
            kind = event["event"]
            if kind in TERMINAL:
                self._terminal = event
                if not self._done.done():
                    self._done.set_result(event)
            elif kind == "response":
                self.head = event
            if self._keep:
                self._events.append(event)
        wake = self._wake
        if wake is not None and not wake.done():
            wake.set_result(None)

    async def events(self):
        """The job's events as dicts, the terminal one last; raises `DaemonUnavailable` when
        the connection is lost first."""
        self._keep = True
        while True:
            while self._events:
                event = self._events.popleft()
                yield event
                if event["event"] in TERMINAL:
                    return
            if self._lost is not None:
                raise self._lost
            if self._terminal is not None and not self._events:
                return
            self._wake = self.client._loop.create_future()
            await self._wake
            self._wake = None

    async def wait(self):
        """The job's `Response` once it ends (or raises its `FerryError`)."""
        event = await self._done
        return outcome(event, self.spec.method)

    @property
    def done(self):
        return self._terminal is not None

    async def cancel(self):
        """Asks the daemon to cancel the job; a no-op once it ended."""
        self.client._cancel(self)

    def __repr__(self):
        return f"<ferry.AsyncJob {self.id}>"


class _Request:
    """What `request()` keeps of its job: the future its terminal event resolves. Lighter than
    an `AsyncJob` (no event queue), since nobody reads the other events."""

    __slots__ = ("id", "spec", "state", "fut")
    _keep = False

    def __init__(self, spec, state, fut):
        self.id = spec.id
        self.spec = spec
        self.state = state
        self.fut = fut

    def _feed(self, event):
        fut = self.fut
        if fut.done():
            return
        if isinstance(event, BaseException):
            fut.set_exception(event)
            fut.exception()  # retrieved: no warning when the caller is gone
        elif event["event"] in TERMINAL:
            fut.set_result(event)

    @property
    def done(self):
        # A future cancelled with its caller's task is not an ended job: it is to be cancelled.
        return self.fut.done() and not self.fut.cancelled()

    @property
    def _lost(self):
        return None


class AsyncStreamResponse:
    """`async with client.stream(...) as r`: `status_code`, `headers`, `aiter_bytes()`,
    `aread()`; `final` (the `done` Response) once it ended; leaving early cancels the job."""

    def __init__(self, client, submit):
        self.client = client
        self._submit = submit
        self.job = None
        self._final = None
        self._iter = None

    async def __aenter__(self):
        self.job = await self._submit()
        self._iter = self.job.events()
        try:
            async for event in self._iter:
                if event["event"] == "response":
                    break
                if event["event"] in TERMINAL:
                    self._final = outcome(event, self.job.spec.method)
                    break
        except BaseException:
            await self.aclose()
            raise
        self._head = Response(self.job.head or (self._final.event if self._final else {}))
        return self

    async def __aexit__(self, *exc):
        await self.aclose()

    @property
    def status_code(self):
        return self._head.status_code

    @property
    def headers(self):
        return self._head.headers

    @property
    def final(self):
        return self._final

    async def aiter_bytes(self):
        if self._final is not None:
            return
        async for event in self._iter:
            kind = event["event"]
            if kind == "data":
                yield data_bytes(event)
            elif kind == "response":
                self._head = Response(event)
            elif kind in TERMINAL:
                self._final = outcome(event, self.job.spec.method)

    async def aread(self):
        return b"".join([piece async for piece in self.aiter_bytes()])

    async def aclose(self):
        job = self.job
        if job is not None and not job.done and job._lost is None:
            self.client._cancel(job)
            try:
                await asyncio.shield(job._done)
            except FerryError:
                pass
