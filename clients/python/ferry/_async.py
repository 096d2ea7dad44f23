"""The asyncio client: one non-blocking connection driven by `loop.add_reader` and
`add_writer` (asyncio streams cannot carry SCM_RIGHTS), many jobs on it at once."""

import asyncio
import collections
import json as _json
import socket

from . import _socket
from ._errors import DaemonUnavailable, FerryError
from ._async_jobs import AsyncJob, AsyncStreamResponse, _Request
from ._jobs import build_job, encode_line, plain_line
from ._models import TERMINAL, outcome
from ._shared import DownloadFiles, HTTPVerbs, JobSpec, ProtocolState, stream_job_fields

_loads = _json.JSONDecoder().decode


class _Conn:
    """One connection: the socket, live jobs by id, ops awaiting answers, the write queue."""

    def __init__(self, sock, path):
        self.sock = sock
        self.path = path
        self.jobs = {}
        self.ops = collections.deque()
        self.lost = False
        self.window = None
        self.window_size = 0
        self.overloaded = 0
        self.rbuf = b""
        # Pending writes: [bytearray, fds, offset, owner spec]; lines without descriptors
        # are coalesced into one entry, so one send() carries many.
        self.wqueue = collections.deque()
        # Jobs refused `overloaded`, waiting for room (oldest first).
        self.room = collections.deque()
        self.flush_scheduled = False
        self.writer_added = False


class _Window:
    """At most `size` live jobs on a connection: asyncio.Semaphore's role (first come, first
    served), with `take()`, which takes a free place without a coroutine: a request that finds
    room (nearly all of them) costs no await for it."""

    __slots__ = ("free", "waiters")

    def __init__(self, size):
        self.free = size
        self.waiters = collections.deque()

    def take(self):
        """Takes a free place at once; False when none is free (or others wait for one)."""
        if self.free > 0 and not self.waiters:
            self.free -= 1
            return True
        return False

    async def acquire(self):
        if self.take():
            return
        fut = asyncio.get_running_loop().create_future()
        self.waiters.append(fut)
        try:
            await fut
        except asyncio.CancelledError:
            if not fut.cancelled():
                self.release()  # the place came as the waiter was cancelled: pass it on
            raise

    def release(self):
        # A place goes straight to the oldest waiter still waiting.
        waiters = self.waiters
        while waiters:
            fut = waiters.popleft()
            if not fut.done():
                fut.set_result(None)
                return
        self.free += 1


class AsyncClient(HTTPVerbs):
    """An asyncio ferry client on one connection to ferryd (`async with AsyncClient() as c`).

    Thousands of concurrent `await c.get(...)` (e.g. with `asyncio.gather`) share the
    connection; at most `window` (default: the daemon's `max_jobs_per_connection`) are live at
    once, the rest wait in the library. Cancelling the task that awaits a request cancels its
    job, except a `durable` or `detach` one, which is left running for a later `attach`.
    `line_hook(direction, line)` sees every line in (`"in"`) and out (`"out"`)."""

    def __init__(self, socket_path=None, *, session=None, window=None, line_hook=None):
        self.socket_path = socket_path
        self.session = session
        self._window_cap = window
        self._hook = line_hook
        self._conn = None
        self._connecting = None
        self._loop = None
        self._closed = False
        self.limits = {}
        self._max_line = 1 << 20
        self.hello_event = None

    async def __aenter__(self):
        await self._ensure()
        return self

    async def __aexit__(self, *exc):
        await self.aclose()

    async def aclose(self):
        """Closes the connection: unfinished jobs are cancelled by the daemon, except
        `detach` and `durable` ones."""
        self._closed = True
        conn = self._conn
        if conn is not None and not conn.lost:
            self._lose(conn, None)

    # Connection ---------------------------------------------------------------------------

    async def _ensure(self):
        conn = self._conn
        if conn is not None and not conn.lost:
            if self._loop is asyncio.get_running_loop():
                return conn
            # The client outlived its event loop (a second asyncio.run): its connection was
            # watched by the old loop. Start afresh on this one.
            self._closed = True
            self._lose_elsewhere(conn)
            self._closed = False
            self._connecting = None
        if self._connecting is None:
            self._connecting = asyncio.ensure_future(self._connect())
        try:
            return await asyncio.shield(self._connecting)
        finally:
            if self._connecting is not None and self._connecting.done():
                self._connecting = None

    async def _connect(self):
        self._loop = asyncio.get_running_loop()
        self._closed = False
        path, source = _socket.locate(self.socket_path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.setblocking(False)
        try:
            await self._loop.sock_connect(sock, path)
            _socket.check_trust(sock, path)
        except OSError as e:
            sock.close()
            raise _socket.unreachable(path, source, e.strerror or e) from None
        except BaseException:
            sock.close()
            raise
        conn = _Conn(sock, path)
        self._loop.add_reader(sock.fileno(), self._on_readable, conn)
        try:
            hello = await self._op_on(conn, {"op": "hello"}, "hello")
        except BaseException as e:
            self._lose(conn, e)
            raise
        self.hello_event = hello
        self.limits = hello.get("limits", {})
        self._max_line = int(self.limits.get("max_line_bytes", 1 << 20))
        limit = int(self.limits.get("max_jobs_per_connection", 1000))
        if self._window_cap:
            limit = min(limit, self._window_cap)
        conn.window = _Window(limit)
        conn.window_size = limit
        # Published only now: a request that finds it uses its window at once.
        self._conn = conn
        return conn

    def _on_readable(self, conn):
        try:
            chunk = conn.sock.recv(1 << 18)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as e:
            self._lose(conn, e)
            return
        if not chunk:
            self._lose(conn, None)
            return
        if conn.rbuf:
            chunk = conn.rbuf + chunk
        # Whole lines only: a UTF-8 character never spans a newline byte.
        cut = chunk.rfind(b"\n") + 1
        conn.rbuf = chunk[cut:]
        if not cut:
            return
        lines = chunk[:cut].decode("utf-8").split("\n")
        lines.pop()
        hook = self._hook
        dispatch = self._dispatch
        jobs = conn.jobs
        for line in lines:
            if line:
                if hook:
                    hook("in", line.encode("utf-8"))
                if line.startswith('{"event":"queued","id":"'):
                    # Most jobs never look at `queued`: skip parsing it for them.
                    end = line.find('"', 24)
                    job_id = line[24:end]
                    if "\\" not in job_id:
                        job = jobs.get(job_id)
                        if job is not None and not job._keep:
                            continue
                try:
                    dispatch(conn, _loads(line))
                except Exception as e:  # not JSON, or a failing line_hook: give up the connection
                    self._lose(conn, e)
                    return

    def _dispatch(self, conn, event):
        job_id = event.get("id")
        kind = event["event"]
        if job_id is not None:
            job = conn.jobs.get(job_id)
            if job is None:
                return
            if kind in TERMINAL:
                if kind == "failed" and event.get("seq") == 1 and event["error"]["code"] == "overloaded":
                    conn.overloaded += 1
                    self._resubmit_later(conn, job)
                    return
                del conn.jobs[job_id]
                conn.window.release()
                job.spec.release_fds()
                if conn.room:
                    waiting = conn.room[0]
                    self._resubmit(conn, waiting, waiting.spec.overloaded)
            job._feed(event)
            return
        if kind == "error":
            error = event.get("error") or {}
            target = error.get("id")
            job = conn.jobs.pop(target, None) if target is not None else None
            if job is not None:
                conn.window.release()
                job.spec.release_fds()
                job._feed({"event": "failed", "id": target, "seq": 1, "error": error, "_from_error": True})
                return
        for i, (expect, fut) in enumerate(conn.ops):
            if expect == kind or kind == "error":
                del conn.ops[i]
                if not fut.done():
                    fut.set_result(event)
                break

    def _lose_elsewhere(self, conn):
        """Forgets a connection made on another (likely closed) loop: its jobs fail
        DaemonUnavailable without touching that loop's futures' callbacks."""
        conn.lost = True
        try:
            conn.sock.close()
        except OSError:
            pass
        for job in list(conn.jobs.values()):
            job.spec.release_fds()
        conn.jobs.clear()
        conn.ops.clear()
        conn.wqueue.clear()

    def _lose(self, conn, error):
        if conn.lost:
            return
        conn.lost = True
        try:
            self._loop.remove_reader(conn.sock.fileno())
            if conn.writer_added:
                self._loop.remove_writer(conn.sock.fileno())
        except (ValueError, OSError):
            pass
        conn.sock.close()
        reason = "the client closed the connection" if self._closed else \
            f"the connection to ferryd at {conn.path} was lost" + (f" ({error})" if error else "")
        jobs = list(conn.jobs.values())
        conn.jobs.clear()
        for job in jobs:
            job.spec.release_fds()
            note = ""
            if job.spec.detached:
                note = f"; job {job.id} is {'durable' if job.spec.durable else 'detached'}: attach('{job.id}') to collect it"
            job._feed(DaemonUnavailable(reason + note, job_id=job.id))
        for _, fut in conn.ops:
            if not fut.done():
                fut.set_exception(DaemonUnavailable(reason))
        conn.ops.clear()
        for entry in conn.wqueue:
            if entry[3] is not None:
                entry[3].release_fds()
        conn.wqueue.clear()

    # Writing --------------------------------------------------------------------------------

    def _write(self, conn, line, fds=None, spec=None):
        if conn.lost:
            raise DaemonUnavailable(f"the connection to ferryd at {conn.path} was lost")
        if self._hook:
            self._hook("out", line.rstrip(b"\n"))
        queue = conn.wqueue
        if not fds and queue and not queue[-1][1] and len(queue[-1][0]) < (1 << 20):
            queue[-1][0] += line
        else:
            queue.append([bytearray(line), list(fds) if fds else None, 0, spec])
        if not conn.flush_scheduled and not conn.writer_added:
            conn.flush_scheduled = True
            self._loop.call_soon(self._flush, conn)

    def _flush(self, conn):
        conn.flush_scheduled = False
        if conn.lost:
            return
        queue = conn.wqueue
        sock = conn.sock
        try:
            while queue:
                entry = queue[0]
                data, fds, offset = entry[0], entry[1], entry[2]
                view = memoryview(data)[offset:]
                if fds:
                    sent = socket.send_fds(sock, [view], fds)
                    entry[1] = None  # the descriptors went with the first byte
                else:
                    sent = sock.send(view)
                view.release()
                offset += sent
                if offset < len(data):
                    entry[2] = offset
                    continue
                queue.popleft()
        except (BlockingIOError, InterruptedError):
            if not conn.writer_added:
                conn.writer_added = True
                self._loop.add_writer(sock.fileno(), self._flush, conn)
            return
        except OSError as e:
            self._lose(conn, e)
            return
        if conn.writer_added:
            conn.writer_added = False
            self._loop.remove_writer(sock.fileno())

    # Ops ------------------------------------------------------------------------------------

    async def _op_on(self, conn, op, expect):
        fut = self._loop.create_future()
        conn.ops.append((expect, fut))
        self._write(conn, encode_line(op))
        event = await fut
        if event.get("event") == "error":
            raise FerryError.from_error(event.get("error") or {}, event=event)
        return event

    async def op(self, name, expect=None, **fields):
        """Any op and its answer event as a dict."""
        conn = await self._ensure()
        if name == "explain" and isinstance(fields.get("job"), dict):
            # An explain error names the inner job's id: without one it cannot be taken for
            # this connection's job of that id.
            fields["job"] = {k: v for k, v in fields["job"].items() if k != "id"}
        return await self._op_on(conn, {"op": name, **fields}, expect or _ANSWERS.get(name, name))

    async def ping(self):
        return await self.op("ping")

    async def hello(self):
        return await self.op("hello")

    async def stats(self, slowest=0):
        """The daemon's counters (`stats` op), the answer as a dict: `jobs`, `clients`, `paused`
        (running jobs held back until their client reads), `connections`, `bytes`, `uptime_s`,
        `sessions`, `cache`. `slowest=N` (0-50) adds `slowest`: the caller's N
        running jobs accepted longest ago, oldest first (`id`, `session`, `origin`, `age_ms`,
        `received_bytes`; every user's, with `uid`, for root)."""
        if slowest:
            return await self.op("stats", slowest=slowest)
        return await self.op("stats")

    async def jobs(self):
        """The caller's detached and durable jobs, live or holding a result."""
        return (await self.op("jobs"))["jobs"]

    # Jobs -----------------------------------------------------------------------------------

    def _resubmit_later(self, conn, job):
        """A job the daemon refused `overloaded` waits for room: the next end of one of this
        connection's jobs, or a timer (5 ms doubling to 0.5 s) when the room is taken by
        other clients."""
        spec = job.spec
        spec.backoff = True
        spec.overloaded += 1
        conn.room.append(job)
        delay = min(0.5, 0.005 * (2 ** min(spec.overloaded, 7)))
        self._loop.call_later(delay, self._resubmit, conn, job, spec.overloaded)

    def _resubmit(self, conn, job, generation):
        spec = job.spec
        if not spec.backoff or spec.overloaded != generation:
            return  # sent again already (room came first), or refused again since
        spec.backoff = False
        try:
            conn.room.remove(job)
        except ValueError:
            pass
        if conn.lost:
            return
        if job.spec.cancelled:
            conn.jobs.pop(job.id, None)
            conn.window.release()
            job.spec.release_fds()
            job._feed({"event": "cancelled", "id": job.id, "seq": 1, "reason": "client", "_local": True})
            return
        self._write(conn, job.spec.line, job.spec.fds, job.spec)

    async def _start(self, spec, keep_events):
        conn = await self._ensure()
        try:
            await conn.window.acquire()
        except BaseException:
            spec.release_fds()
            raise
        if conn.lost:
            conn.window.release()
            spec.release_fds()
            raise DaemonUnavailable(f"the connection to ferryd at {conn.path} was lost")
        if spec.id in conn.jobs:
            conn.window.release()
            spec.release_fds()
            raise ValueError(f"job id {spec.id!r} is live on this connection")
        job = AsyncJob(self, spec, keep_events)
        job.state = conn
        conn.jobs[spec.id] = job
        self._write(conn, spec.line, spec.fds, spec)
        return job

    async def _spec(self, job, fds, kwargs):
        await self._ensure()
        max_line = int(self.limits.get("max_line_bytes", 1 << 20))
        if job is not None:
            return JobSpec.raw(job, fds, ProtocolState.new_id(), max_line)
        kwargs = dict(kwargs)
        method = kwargs.pop("method", "GET")
        url = kwargs.pop("url")
        if kwargs.get("session") is None:
            kwargs["session"] = self.session
        built, passing = build_job(method, url, **kwargs)
        return JobSpec(built, passing, ProtocolState.new_id(), max_line, copy=False)

    async def submit(self, job=None, /, *, fds=None, **kwargs):
        """Submits a job (a raw job dict with `fds`, or `request()`'s keyword arguments) and
        returns its `AsyncJob` without waiting for it to end."""
        spec = await self._spec(job, fds, kwargs)
        return await self._start(spec, True)

    async def attach(self, job_id):
        """Attaches to a detached or durable job of the caller; its recorded events are
        replayed first."""
        conn = await self._ensure()
        await conn.window.acquire()
        job = AsyncJob(self, JobSpec.attached(job_id), True)
        job.state = conn
        conn.jobs[job_id] = job
        self._write(conn, encode_line({"op": "attach", "id": job_id}))
        return job

    def _cancel(self, job):
        conn = job.state
        if conn is None or job.done or conn.lost:
            return
        job.spec.cancelled = True
        if job.spec.backoff:
            return
        self._write(conn, encode_line({"op": "cancel", "id": job.id}))

    async def request(self, method, url, *, params=None, data=None, json=None, files=None, content=None,
                      headers=None, session=None, lane=None, timeout=None, retry=None, cache=None,
                      cookies=None, durable=None, accept=None, **more):
        """Sends one request through ferryd and returns its `Response` (httpx's shape)."""
        conn = self._conn
        if conn is None or conn.lost or self._loop is not asyncio.get_running_loop():
            await self._ensure()
        max_line = self._max_line
        if (params is None and data is None and json is None and files is None and content is None
                and headers is None and lane is None and timeout is None and retry is None and cache is None
                and cookies is None and durable is None and accept is None and not more and len(url) < 65536):
            job_id = ProtocolState.new_id()
            spec = JobSpec.plain(job_id, method, plain_line(job_id, method, url, session or self.session))
        else:
            built, passing = build_job(method, url, params=params, data=data, json=json, files=files,
                                       content=content, headers=headers, session=session or self.session,
                                       lane=lane, timeout=timeout, retry=retry, cache=cache, cookies=cookies,
                                       durable=durable, accept=accept, **more)
            spec = JobSpec(built, passing, ProtocolState.new_id(), max_line, copy=False)
        conn = self._conn
        if not conn.window.take():
            try:
                await conn.window.acquire()
            except BaseException:
                spec.release_fds()
                raise
        if conn.lost or spec.id in conn.jobs:
            conn.window.release()
            spec.release_fds()
            if conn.lost:
                raise DaemonUnavailable(f"the connection to ferryd at {conn.path} was lost")
            raise ValueError(f"job id {spec.id!r} is live on this connection")
        job = _Request(spec, conn, self._loop.create_future())
        conn.jobs[spec.id] = job
        self._write(conn, spec.line, spec.fds, spec)
        try:
            event = await job.fut
        except asyncio.CancelledError:
            if not spec.detached:
                self._cancel(job)
            raise
        return outcome(event, spec.method)

    def stream(self, method, url, **kwargs):
        """`async with client.stream("GET", url) as r: async for chunk in r.aiter_bytes()`."""
        kwargs.update(stream_job_fields())
        return AsyncStreamResponse(self, lambda: self.submit(method=method, url=url, **kwargs))

    async def download(self, url, path, *, resume=True, **kwargs):
        """As `Client.download`: the file opened here and passed (`output_fd`, and with
        `resume` `validator_fd`), `path.part` renamed to `path` when done."""
        files = DownloadFiles(path, resume)
        progress = kwargs.pop("on_progress", None)
        fields = files.fields(kwargs)
        if progress is not None:
            fields["events"] = ["progress"]
        job = await self.submit(method=kwargs.pop("method", "GET"), url=url, **kwargs, **fields)
        try:
            if progress is not None:
                async for event in job.events():
                    if event["event"] == "progress" and event["direction"] == "download":
                        progress(event["done"], event["total"])
            response = await job.wait()
        except asyncio.CancelledError:
            self._cancel(job)
            raise
        except FerryError as e:
            files.failed(e)
            raise
        files.finished()
        return response


_ANSWERS = {"ping": "pong", "explain": "explained", "clear_cookies": "cookies_cleared", "purge": "purged"}
