"""The blocking client: one connection, a reader thread that dispatches events to per-job
queues, writes under a lock. Thread-safe: any number of threads may share one `Client`."""

import collections
import json as _json
import queue
import socket
import threading

from . import _socket
from ._errors import DaemonUnavailable, FerryError
from ._jobs import build_job, encode_line
from ._models import TERMINAL
from ._shared import DownloadFiles, HTTPVerbs, JobSpec, ProtocolState, stream_job_fields
from ._sync_jobs import Job, StreamResponse


class Client(HTTPVerbs):
    """A blocking ferry client on one connection to ferryd.

    `socket_path`: None finds the socket as the CLI does. `session`: the default session of
    every request. `window`: at most this many live jobs on the connection (default and upper
    bound: the daemon's `max_jobs_per_connection`). `line_hook(direction, line)`: called with
    `"in"` or `"out"` and each line's bytes (debugging, tests). The connection is made on
    first use and made again after it was lost."""

    def __init__(self, socket_path=None, *, session=None, window=None, line_hook=None):
        self.socket_path = socket_path
        self.session = session
        self._window_cap = window
        self._hook = line_hook
        self._state = None
        self._lock = threading.Lock()          # the connection's writes and state
        self._connect_lock = threading.Lock()
        self._closed = False
        self.limits = {}
        self.hello_event = None

    # Connection ---------------------------------------------------------------------------

    def __enter__(self):
        self._ensure()
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        """Closes the connection: its unfinished jobs are cancelled by the daemon, except
        `detach` and `durable` ones, which may be attached later."""
        self._closed = True
        state = self._state
        if state is not None:
            try:
                state.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            state.reader.join(timeout=5)
            state.sock.close()

    def _ensure(self):
        state = self._state
        if state is not None and not state.lost:
            return state
        with self._connect_lock:
            state = self._state
            if state is not None and not state.lost:
                return state
            self._closed = False
            sock, path = _socket.connect_blocking(self.socket_path)
            state = _Connection(sock, path)
            state.reader = threading.Thread(target=self._read_loop, args=(state,), daemon=True,
                                            name="ferry-reader")
            state.reader.start()
            try:
                hello = self._op_on(state, {"op": "hello"}, "hello")
            except BaseException:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                raise
            self.hello_event = hello
            self.limits = hello.get("limits", {})
            limit = int(self.limits.get("max_jobs_per_connection", 1000))
            if self._window_cap:
                limit = min(limit, self._window_cap)
            state.window = threading.BoundedSemaphore(limit)
            state.window_size = limit
            # Published only now: other threads use the state once its window exists.
            self._state = state
            return state

    def _read_loop(self, state):
        buffer = b""
        error = None
        try:
            while True:
                chunk = state.sock.recv(1 << 18)
                if not chunk:
                    break
                buffer = buffer + chunk if buffer else chunk
                if b"\n" not in chunk:
                    continue
                lines = buffer.split(b"\n")
                buffer = lines.pop()
                for line in lines:
                    if line.strip():
                        if self._hook:
                            self._hook("in", line)
                        self._dispatch(state, _json.loads(line))
        except OSError as e:
            error = e
        except Exception as e:  # a line that is not JSON, a failing line_hook: give up the connection
            error = e
        self._lose(state, error)

    def _lose(self, state, error):
        with self._lock:
            state.lost = True
            jobs = list(state.jobs.values())
            state.jobs.clear()
            ops = list(state.ops)
            state.ops.clear()
        try:
            state.sock.close()
        except OSError:
            pass
        reason = "the client closed the connection" if self._closed else \
            f"the connection to ferryd at {state.path} was lost" + (f" ({error})" if error else "")
        for job in jobs:
            job.spec.release_fds()
            note = ""
            if job.spec.detached:
                note = f"; job {job.id} is {'durable' if job.spec.durable else 'detached'}: attach('{job.id}') to collect it"
            job._feed(DaemonUnavailable(reason + note, job_id=job.id))
        for _, box in ops:
            box.put(DaemonUnavailable(reason))

    def _dispatch(self, state, event):
        job_id = event.get("id")
        kind = event.get("event")
        if job_id is not None:
            job = state.jobs.get(job_id)
            if job is None:
                return
            if kind in TERMINAL:
                if kind == "failed" and event.get("seq") == 1 and (event.get("error") or {}).get("code") == "overloaded":
                    state.overloaded += 1
                    self._resubmit_later(state, job)
                    return
                with self._lock:
                    state.jobs.pop(job_id, None)
                    waiting = state.room[0] if state.room else None
                state.window.release()
                job.spec.release_fds()
                if waiting is not None:
                    self._resubmit_after(state, waiting, 0)
            job._feed(event)
            return
        if kind == "error":
            error = event.get("error") or {}
            target = error.get("id")
            with self._lock:
                job = state.jobs.pop(target, None) if target is not None else None
            if job is not None:
                state.window.release()
                job.spec.release_fds()
                job._feed({"event": "failed", "id": target, "seq": 1, "error": error, "_from_error": True})
                return
        with self._lock:
            waiter = state.pop_op(kind)
        if waiter is not None:
            waiter.put(event)

    def _resubmit_later(self, state, job):
        """A job refused `overloaded` waits for room: the next end of one of this connection's
        jobs, or a timer (5 ms doubling to 0.5 s). The reader never writes itself (a full
        socket would stop it reading): a timer thread sends the job again."""
        spec = job.spec
        with self._lock:
            spec.backoff = True
            spec.overloaded += 1
            state.room.append(job)
        delay = min(0.5, 0.005 * (2 ** min(spec.overloaded, 7)))
        self._resubmit_after(state, job, delay)

    def _resubmit_after(self, state, job, delay):
        timer = threading.Timer(delay, self._resubmit, args=(state, job, job.spec.overloaded))
        timer.daemon = True
        timer.start()

    def _resubmit(self, state, job, generation):
        with self._lock:
            if not job.spec.backoff or job.spec.overloaded != generation:
                return  # sent again already, or refused again since
            job.spec.backoff = False
            try:
                state.room.remove(job)
            except ValueError:
                pass
        if job.spec.cancelled:
            with self._lock:
                state.jobs.pop(job.id, None)
            state.window.release()
            job.spec.release_fds()
            job._feed({"event": "cancelled", "id": job.id, "seq": 1, "reason": "client", "_local": True})
            return
        try:
            self._write(state, job.spec.line, job.spec.fds)
        except OSError:
            pass  # the reader reports the lost connection

    def _write(self, state, line, fds=None):
        with self._lock:
            if state.lost:
                raise DaemonUnavailable(f"the connection to ferryd at {state.path} was lost")
            self._send_locked(state, line, fds)

    def _send_locked(self, state, line, fds):
        if self._hook:
            self._hook("out", line.rstrip(b"\n"))
        if fds:
            sent = socket.send_fds(state.sock, [line], fds)
            if sent < len(line):
                state.sock.sendall(line[sent:])
        else:
            state.sock.sendall(line)

    def _op_on(self, state, op, expect, timeout=60):
        box = queue.Queue()
        with self._lock:
            if state.lost:
                raise DaemonUnavailable(f"the connection to ferryd at {state.path} was lost")
            state.ops.append((expect, box))
            self._send_locked(state, encode_line(op), None)
        try:
            event = box.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError(f"no answer to {op['op']} within {timeout} s") from None
        if isinstance(event, BaseException):
            raise event
        if event.get("event") == "error":
            raise FerryError.from_error(event.get("error") or {}, event=event)
        return event

    def op(self, name, expect=None, **fields):
        """Any op (`ping`, `hello`, `stats`, `sessions`, `jobs`, `cookies`, `cache`, `purge`,
        `explain`, ...) and its answer event as a dict."""
        if name == "explain" and isinstance(fields.get("job"), dict):
            # An explain error names the inner job's id, as a refused line of a live job
            # would: without one it cannot be taken for this connection's job.
            fields["job"] = {k: v for k, v in fields["job"].items() if k != "id"}
        return self._op_on(self._ensure(), {"op": name, **fields}, expect or _ANSWERS.get(name, name))

    def ping(self):
        return self.op("ping")

    def hello(self):
        return self.op("hello")

    def stats(self, slowest=0):
        """The daemon's counters (`stats` op), the answer as a dict: `jobs`, `clients`, `paused`
        (running jobs held back until their client reads), `connections`, `bytes`, `uptime_s`,
        `sessions`, `cache`. `slowest=N` (0-50) adds `slowest`: the caller's N
        running jobs accepted longest ago, oldest first (`id`, `session`, `origin`, `age_ms`,
        `received_bytes`; every user's, with `uid`, for root)."""
        if slowest:
            return self.op("stats", slowest=slowest)
        return self.op("stats")

    def jobs(self):
        """The caller's detached and durable jobs, live or holding a result (`jobs` op)."""
        return self.op("jobs")["jobs"]

    # Jobs ---------------------------------------------------------------------------------

    def _start(self, spec):
        state = self._ensure()
        state.window.acquire()
        job = Job(self, spec)
        try:
            with self._lock:
                if state.lost:
                    raise DaemonUnavailable(f"the connection to ferryd at {state.path} was lost")
                if spec.id in state.jobs:
                    raise ValueError(f"job id {spec.id!r} is live on this connection")
                state.jobs[spec.id] = job
                job.state = state
                self._send_locked(state, spec.line, spec.fds)
        except BaseException as e:
            with self._lock:
                state.jobs.pop(spec.id, None)
            state.window.release()
            spec.release_fds()
            if isinstance(e, OSError):
                raise DaemonUnavailable(f"the connection to ferryd at {state.path} was lost ({e})",
                                        job_id=spec.id) from e
            raise
        return job

    def submit(self, job=None, /, *, fds=None, **kwargs):
        """Submits a job and returns its `Job` without waiting.

        `job` is a raw job dict (the protocol's fields; `fds`: files or descriptors to pass,
        which its `*_fd` fields name by index), or give `request()`'s keyword arguments
        (`method`, `url`, ...). An `id` is assigned when the job has none."""
        spec = self._spec(job, fds, kwargs)
        return self._start(spec)

    def _spec(self, job, fds, kwargs):
        self._ensure()
        if job is not None:
            return JobSpec.raw(job, fds, self._new_id(), self._max_line())
        kwargs = dict(kwargs)
        method = kwargs.pop("method", "GET")
        url = kwargs.pop("url")
        kwargs.setdefault("session", self.session)
        built, passing = build_job(method, url, **kwargs)
        return JobSpec(built, passing, self._new_id(), self._max_line(), copy=False)

    def _new_id(self):
        return ProtocolState.new_id()

    def _max_line(self):
        return int(self.limits.get("max_line_bytes", 1 << 20))

    def attach(self, job_id):
        """Attaches to a detached or durable job of the caller (after a restart, from another
        program): its recorded events are replayed, then the rest come here."""
        state = self._ensure()
        spec = JobSpec.attached(job_id)
        state.window.acquire()
        job = Job(self, spec)
        with self._lock:
            state.jobs[job_id] = job
            job.state = state
            self._send_locked(state, encode_line({"op": "attach", "id": job_id}), None)
        return job

    def _cancel(self, job):
        state = getattr(job, "state", None)
        if state is None or job.done:
            return
        with self._lock:
            job.spec.cancelled = True
            if job.spec.backoff:
                return  # not live on the daemon: the resubmission ends it `cancelled` here
        try:
            self._write(state, encode_line({"op": "cancel", "id": job.id}))
        except (DaemonUnavailable, OSError):
            pass

    def request(self, method, url, *, params=None, data=None, json=None, files=None, content=None,
                headers=None, session=None, lane=None, timeout=None, retry=None, cache=None, cookies=None,
                durable=None, accept=None, **more):
        """Sends one request through ferryd and returns its `Response` (requests' shape).

        Every status comes back as a response (check it with `raise_for_status()`), unless
        `accept` names what is acceptable. `durable=True` journals the job: if this program
        dies the job goes on, and `attach(response.job_id)` collects it. More job fields:
        `detach`, `auth`, `follow_redirects`, `extra={...}`."""
        job = self.submit(method=method, url=url, params=params, data=data, json=json, files=files,
                          content=content, headers=headers, session=session or self.session, lane=lane,
                          timeout=timeout, retry=retry, cache=cache, cookies=cookies, durable=durable,
                          accept=accept, **more)
        return job.wait()

    def stream(self, method, url, **kwargs):
        """A `StreamResponse` (a context manager) whose body comes while it is read
        (`response: "stream"`); leaving the block before the end cancels the job."""
        kwargs.update(stream_job_fields())
        job = self.submit(method=method, url=url, **kwargs)
        response = StreamResponse(job)
        try:
            response._start()
        except BaseException:
            response.close()
            raise
        return response

    def download(self, url, path, *, resume=True, **kwargs):
        """Downloads `url` into the file `path`, opened here with the caller's rights and passed
        to the daemon (`output_fd`). With `resume`, it is written as `path.part` (its validator
        in `path.part.validator`) and continued from its size by the next call after a failure,
        a kill or a daemon restart; renamed to `path` when done. `on_progress(done, total)` is
        called with the daemon's download progress (`total` None when unknown; `done` counts
        this transfer's bytes). Returns the `Response` (no content; `bytes` is the file's
        size)."""
        files = DownloadFiles(path, resume)
        progress = kwargs.pop("on_progress", None)
        fields = files.fields(kwargs)
        if progress is not None:
            fields["events"] = ["progress"]
        job = self.submit(method=kwargs.pop("method", "GET"), url=url, **kwargs, **fields)
        try:
            for event in job.events():
                if event["event"] == "progress" and event["direction"] == "download":
                    progress(event["done"], event["total"])
            response = job.wait()
        except FerryError as e:
            files.failed(e)
            raise
        files.finished()
        return response


class _Connection:
    """One connection's state: its socket, live jobs by id, ops waiting for answers."""

    def __init__(self, sock, path):
        self.sock = sock
        self.path = path
        self.jobs = {}
        self.ops = collections.deque()
        self.lost = False
        self.reader = None
        self.window = None
        self.window_size = 0
        self.overloaded = 0
        # Jobs refused `overloaded`, waiting for room (oldest first).
        self.room = collections.deque()

    def pop_op(self, kind):
        for i, (expect, box) in enumerate(self.ops):
            if expect == kind or kind == "error":
                del self.ops[i]
                return box
        return None


_ANSWERS = {"ping": "pong", "explain": "explained", "clear_cookies": "cookies_cleared", "purge": "purged"}
