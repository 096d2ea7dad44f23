"""What the blocking and the asyncio clients share: job specs, ids, downloads."""

import itertools
import os
import secrets

from ._errors import FerryError
from ._jobs import Passing, encode_line


# Job ids: a random prefix per process (detached and durable ids must be unique among the
# user's detached jobs, across programs) and a counter.
_PREFIX = "py" + secrets.token_hex(5) + "-"
_COUNTER = itertools.count(1)


class ProtocolState:
    @staticmethod
    def new_id():
        return _PREFIX + str(next(_COUNTER))


def stream_job_fields():
    return {"response": "stream", "events": ["response", "data"]}


class JobSpec:
    """A job ready to send: its line, the descriptors that go with it, and what the library
    tracks about it (resubmissions after `overloaded`, cancellation before it was sent)."""

    __slots__ = ("id", "method", "line", "fds", "passing", "detached", "durable", "cancelled",
                 "overloaded", "backoff")

    def __init__(self, job, passing, new_id, max_line, copy=True):
        if copy:
            job = dict(job)
            if job.get("session", 0) is None:
                del job["session"]
        if "id" not in job:
            job["id"] = new_id
        self.id = job["id"]
        self.method = str(job.get("method", "GET")).upper()
        self.durable = bool(job.get("durable"))
        self.detached = self.durable or bool(job.get("detach"))
        self.line = encode_line(job)
        if len(self.line) - 1 > max_line:
            if passing is not None:
                passing.close_owned()
            raise FerryError("line_too_long", f"the job line is {len(self.line) - 1} bytes, past the daemon's "
                             f"max_line_bytes ({max_line}): pass big bodies as files (content=open(...))",
                             job_id=self.id)
        self.passing = passing
        self.fds = list(passing.fds) if passing is not None else []
        self.cancelled = False
        self.overloaded = 0
        self.backoff = False

    @classmethod
    def raw(cls, job, fds, new_id, max_line):
        passing = Passing()
        for fd in fds or ():
            passing.add(fd if isinstance(fd, int) else fd.fileno())
        return cls(job, passing, new_id, max_line)

    @classmethod
    def plain(cls, job_id, method, line):
        """A request's spec whose line `plain_line` wrote."""
        spec = cls.__new__(cls)
        spec.id = job_id
        spec.method = method.upper()
        spec.line = line
        spec.fds = ()
        spec.passing = None
        spec.detached = False
        spec.durable = False
        spec.cancelled = False
        spec.overloaded = 0
        spec.backoff = False
        return spec

    @classmethod
    def attached(cls, job_id):
        spec = cls.__new__(cls)
        spec.id = job_id
        spec.method = None
        spec.line = b""
        spec.fds = []
        spec.passing = None
        spec.detached = True
        spec.durable = False
        spec.cancelled = False
        spec.overloaded = 0
        spec.backoff = False
        return spec

    def release_fds(self):
        """Closes the descriptors the library opened for the job, once it ended (until then a
        resubmission after `overloaded` needs them again)."""
        if self.passing is not None:
            self.passing.close_owned()


class DownloadFiles:
    """The files of `download()`: `path` itself, or with `resume` `path.part` and
    `path.part.validator` (the CLI's names), opened with the caller's rights."""

    def __init__(self, path, resume):
        self.path = os.fspath(path)
        self.resume = resume

    def fields(self, kwargs):
        """The `build_job` arguments that pass the files."""
        passing = Passing()
        extra = dict(kwargs.pop("extra", None) or {})
        if self.resume:
            extra["output_fd"] = passing.open_owned(self.path + ".part", os.O_WRONLY | os.O_CREAT)
            extra["validator_fd"] = passing.open_owned(self.path + ".part.validator", os.O_RDWR | os.O_CREAT)
            extra["resume"] = True
        else:
            extra["output_fd"] = passing.open_owned(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        kwargs.setdefault("accept", False)
        return {"passing": passing, "extra": extra, "response": None}

    def finished(self):
        if self.resume:
            os.rename(self.path + ".part", self.path)
            self._unlink(self.path + ".part.validator")

    def failed(self, error):
        # The daemon emptied the partial file: start over next time.
        if self.resume and error.code == "resume_mismatch":
            self._unlink(self.path + ".part")
            self._unlink(self.path + ".part.validator")

    @staticmethod
    def _unlink(path):
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


class HTTPVerbs:
    """`get`, `post`, ... as requests and httpx name them, for `Client` and `AsyncClient`:
    each is `request(METHOD, url, **kwargs)`; on `AsyncClient` that returns request()'s
    coroutine, awaited the same, one frame fewer."""

    def get(self, url, **kwargs):
        return self.request("GET", url, **kwargs)

    def head(self, url, **kwargs):
        return self.request("HEAD", url, **kwargs)

    def options(self, url, **kwargs):
        return self.request("OPTIONS", url, **kwargs)

    def delete(self, url, **kwargs):
        return self.request("DELETE", url, **kwargs)

    def post(self, url, **kwargs):
        return self.request("POST", url, **kwargs)

    def put(self, url, **kwargs):
        return self.request("PUT", url, **kwargs)

    def patch(self, url, **kwargs):
        return self.request("PATCH", url, **kwargs)
