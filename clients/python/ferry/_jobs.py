"""Turning requests/httpx-style arguments into a ferry job line (docs/PROTOCOL.md, "Job
fields"), with the descriptors to pass beside it."""

import base64
import json as _json
import os
from urllib.parse import urlencode

MAX_FDS = 4
# requests and httpx hand back every status as a response and leave judging it to
# raise_for_status(); ferry's default `accept` (200-299) would make a 404 a failed job.
ACCEPT_ALL = {"status": [[100, 599]]}


class Passing:
    """The descriptors that go with one job line: `fds` in index order, and the files the
    library opened itself (closed once the line is sent, the daemon holding its own copies)."""

    __slots__ = ("fds", "owned")

    def __init__(self):
        self.fds = []
        self.owned = []

    def add(self, fd):
        if len(self.fds) >= MAX_FDS:
            raise ValueError(f"a job carries at most {MAX_FDS} descriptors (files, bodies, outputs)")
        self.fds.append(fd)
        return len(self.fds) - 1

    def add_file(self, value):
        """Passes an open file (anything with fileno()) or opens a path for reading with the
        caller's rights; returns (index, filename or None)."""
        if hasattr(value, "fileno"):
            name = getattr(value, "name", None)
            return self.add(value.fileno()), os.path.basename(name) if isinstance(name, str) else None
        path = os.fspath(value)
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        self.owned.append(fd)
        return self.add(fd), os.path.basename(path)

    def open_owned(self, path, flags):
        fd = os.open(path, flags | os.O_CLOEXEC, 0o666)
        self.owned.append(fd)
        return self.add(fd)

    def close_owned(self):
        for fd in self.owned:
            try:
                os.close(fd)
            except OSError:
                pass
        self.owned = []


def _is_path(value):
    return isinstance(value, (str, os.PathLike)) and not isinstance(value, bytes)


def _content_body(content, passing):
    if isinstance(content, str):
        return {"text": content}
    if isinstance(content, (bytes, bytearray, memoryview)):
        return {"base64": base64.b64encode(bytes(content)).decode("ascii")}
    if hasattr(content, "fileno"):
        index, _ = passing.add_file(content)
        return {"fd": index}
    raise TypeError("content must be str, bytes or a file object with fileno() (a regular file, pipe or socket)")


def _pairs(data):
    if isinstance(data, dict):
        items = data.items()
    else:
        items = data
    for key, value in items:
        if isinstance(value, (list, tuple)):
            for v in value:
                yield key, v
        else:
            yield key, value


def _text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if value is True or value is False:
        return "true" if value else "false"
    return str(value)


def _part(name, value, passing):
    filename = content_type = headers = None
    if isinstance(value, tuple):
        filename = value[0]
        content_type = value[2] if len(value) > 2 else None
        headers = value[3] if len(value) > 3 else None
        value = value[1]
    part = {"name": name}
    if isinstance(value, (bytes, bytearray, memoryview)):
        part["base64"] = base64.b64encode(bytes(value)).decode("ascii")
        filename = filename if filename is not None else name
    elif isinstance(value, str) and filename is not None:
        part["value"] = value
    elif hasattr(value, "fileno") or _is_path(value):
        index, own_name = passing.add_file(value)
        part["fd"] = index
        filename = filename if filename is not None else (own_name or name)
    else:
        raise TypeError(f"files[{name!r}]: expected a file object, a path, bytes or a tuple")
    if filename is not None:
        part["filename"] = filename
    if content_type:
        part["type"] = content_type
    if headers:
        part["headers"] = dict(headers)
    return part


def _with_params(url, params):
    if not params:
        return url
    query = params if isinstance(params, str) else urlencode(list(_pairs(params)), doseq=False)
    if not query:
        return url
    base, hash_mark, fragment = url.partition("#")
    separator = "&" if "?" in base and not base.endswith(("?", "&")) else ("" if base.endswith(("?", "&")) else "?")
    return base + separator + query + (hash_mark + fragment)


def build_job(method, url, *, params=None, data=None, json=None, files=None, content=None, headers=None,
              session=None, lane=None, timeout=None, retry=None, cache=None, cookies=None, durable=None,
              detach=None, accept=None, auth=None, follow_redirects=None, response="base64", events=(),
              extra=None, passing=None):
    """The job dict for a request and the `Passing` of its descriptors.

    `params` go into the URL (as requests does, whatever the method). `data` as a dict is form
    fields (`parameters`, encoding `form`, lists repeated as requests does), as str or bytes a
    raw body; `json` is a JSON body; `content` a raw body (str, bytes, or a file object whose
    descriptor is passed); `files` makes the job multipart (with `data`'s fields as value
    parts). `timeout` a number is the whole job's limit in seconds; a pair is (connect, read)
    as in requests, read being the time without a byte moving (`idle_timeout`). `retry` an
    int is `{"max": n}`. `accept` None takes every status (requests' behaviour); a list is
    the accepted statuses; a dict is ferry's own `accept`."""
    passing = passing or Passing()
    try:
        return _build(passing, method, url, params, data, json, files, content, headers, session, lane, timeout,
                      retry, cache, cookies, durable, detach, accept, auth, follow_redirects, response, events,
                      extra)
    except BaseException:
        passing.close_owned()  # the files opened for parts so far
        raise


def _build(passing, method, url, params, data, json, files, content, headers, session, lane, timeout, retry, cache,
           cookies, durable, detach, accept, auth, follow_redirects, response, events, extra):
    job = {"method": method.upper(), "url": _with_params(url, params)}
    if files:
        parts = [{"name": str(k), "value": _text(v)} for k, v in _pairs(data or {})]
        for name, value in (files.items() if isinstance(files, dict) else files):
            parts.append(_part(str(name), value, passing))
        job["parts"] = parts
    elif json is not None:
        job["body"] = {"text": _json.dumps(json, ensure_ascii=False, separators=(",", ":")),
                       "type": "application/json"}
    elif content is not None:
        job["body"] = _content_body(content, passing)
    elif data is not None:
        if isinstance(data, (str, bytes, bytearray, memoryview)) or hasattr(data, "fileno"):
            job["body"] = _content_body(data, passing)
        else:
            job["parameters"] = {}
            for k, v in _pairs(data):
                job["parameters"].setdefault(str(k), []).append(_text(v))
            job["parameters"] = {k: v[0] if len(v) == 1 else v for k, v in job["parameters"].items()}
            job["encoding"] = "form"
            job["array_encoding"] = "repeat"
    if headers:
        job["headers"] = {str(k): (None if v is None else _text(v)) for k, v in dict(headers).items()}
    if auth is not None:
        job["auth"] = {"basic": {"username": auth[0], "password": auth[1]}} if isinstance(auth, tuple) else auth
    if session is not None:
        job["session"] = session
    if lane is not None:
        job["lane"] = lane
    if timeout is not None:
        if isinstance(timeout, tuple):
            connect, read = timeout
            if connect is not None:
                job["connect_timeout"] = connect
            if read is not None:
                job["idle_timeout"] = read
        else:
            job["timeout"] = timeout
    if retry is not None:
        job["retry"] = {"max": retry} if isinstance(retry, int) else dict(retry)
    if cache is not None:
        job["cache"] = cache
    if cookies is not None:
        job["cookies"] = bool(cookies)
    if durable:
        job["durable"] = True
    if detach:
        job["detach"] = True
    if follow_redirects is not None:
        job["follow_redirects"] = bool(follow_redirects)
    if accept is None:
        job["accept"] = ACCEPT_ALL
    elif accept is not False:
        job["accept"] = dict(accept) if isinstance(accept, dict) else {"status": list(accept)}
    if response is not None:
        job["response"] = response
    if events is not None:
        job["events"] = list(events)
    if extra:
        job.update(extra)
    return job, passing


_ENCODER = _json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
_STRING = _json.encoder.encode_basestring
_PLAIN_TAIL = ',"accept":{"status":[[100,599]]},"response":"base64","events":[]}\n'


def plain_line(job_id, method, url, session):
    """The line `build_job` makes for a request with nothing but a method, a URL and maybe a
    session, written directly: the common case costs no dict and no encoder pass."""
    head = '{"id":' + _STRING(job_id) + ',"method":' + _STRING(method.upper()) + ',"url":' + _STRING(url)
    if session is not None:
        head += ',"session":' + _STRING(session)
    return (head + _PLAIN_TAIL).encode("utf-8")


def encode_line(job):
    """The job or op as one line of bytes, `\\n` included."""
    return (_ENCODER.encode(job) + "\n").encode("utf-8")
