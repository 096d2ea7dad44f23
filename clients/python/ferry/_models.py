"""Responses and their headers, built from a job's events."""

import base64
import binascii
import codecs
import json as _json
from collections.abc import Mapping

from ._errors import FerryError, HTTPStatusError, JobCancelled

TERMINAL = frozenset(("done", "failed", "cancelled"))


class Headers(Mapping):
    """Response headers: a read-only mapping whose keys ignore case.

    ferryd sends names lower-cased, joins repeated fields with `, `, and always gives
    `set-cookie` as a list: `headers["set-cookie"]` joins them with `, ` as requests does,
    `headers.get_list("set-cookie")` gives each."""

    __slots__ = ("_items",)

    def __init__(self, items=None):
        # ferryd sends names lower-cased already.
        self._items = dict(items) if items else {}

    def __getitem__(self, name):
        value = self._items[name.lower()]
        return ", ".join(value) if isinstance(value, list) else value

    def get_list(self, name):
        """Every value of `name` as a list (one element unless it is `set-cookie`)."""
        value = self._items.get(name.lower())
        if value is None:
            return []
        return list(value) if isinstance(value, list) else [value]

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)

    def __contains__(self, name):
        return isinstance(name, str) and name.lower() in self._items

    def __repr__(self):
        return f"Headers({self._items!r})"


class Response:
    """An HTTP response as ferryd delivered it (the `done` event, or the response a `failed`
    event carried).

    requests' and httpx's names: `status_code`, `headers`, `content`, `text`, `json()`, `url`,
    `ok`, `raise_for_status()`, `http_version`; and ferry's own: `cache` (`hit`,
    `revalidated`, `miss` or None), `attempts`, `timing` (milliseconds: `queued`, `connect`,
    `tls`, `first_byte`, `total`), `bytes` (for downloads and streams), `job_id`, `event`
    (the terminal event as a dict)."""

    __slots__ = ("event", "method", "_content", "_headers", "_text")

    def __init__(self, event, content=None, method=None):
        self.event = event
        self.method = method
        self._content = content
        self._headers = None
        self._text = None

    # The fields are read from the event when asked for: a response whose headers nobody
    # reads costs no Headers object.
    job_id = property(lambda self: self.event.get("id"))
    status_code = property(lambda self: self.event.get("status", 0))
    http_version = property(lambda self: self.event.get("http_version"))
    url = property(lambda self: self.event.get("url"))
    cache = property(lambda self: self.event.get("cache"))
    attempts = property(lambda self: self.event.get("attempts", 0))
    timing = property(lambda self: self.event.get("timing", {}))
    bytes = property(lambda self: self.event.get("bytes"))
    output = property(lambda self: self.event.get("output"))

    @property
    def headers(self):
        if self._headers is None:
            self._headers = Headers(self.event.get("headers"))
        return self._headers

    @property
    def content(self):
        """The body's bytes (empty for a download, a stream or a HEAD)."""
        if self._content is None:
            self._content = _body_bytes(self.event)
        return self._content

    @property
    def encoding(self):
        """The charset the text is decoded with: the Content-Type's, else UTF-8."""
        if self.event.get("charset") and "body" in self.event:
            return "utf-8"  # ferryd decoded it already (`charset` names what it decoded)
        return _charset_of(self.headers.get("content-type")) or "utf-8"

    @property
    def text(self):
        if self._text is None:
            encoding = self.encoding
            try:
                codecs.lookup(encoding)
            except LookupError:
                encoding = "utf-8"
            self._text = self.content.decode(encoding, errors="replace")
        return self._text

    def json(self, **kwargs):
        return _json.loads(self.content, **kwargs)

    @property
    def ok(self):
        return self.status_code < 400

    @property
    def is_success(self):
        return 200 <= self.status_code < 300

    def raise_for_status(self):
        """Raises `HTTPStatusError` for a 4xx or 5xx status; returns the response otherwise."""
        if 400 <= self.status_code < 600:
            kind = "Client" if self.status_code < 500 else "Server"
            raise HTTPStatusError(f"{self.status_code} {kind} Error for url {self.url}", self)
        return self

    def __repr__(self):
        return f"<Response [{self.status_code}]>"


def _charset_of(content_type):
    if not content_type:
        return None
    for param in content_type.split(";")[1:]:
        key, _, value = param.strip().partition("=")
        if key.strip().lower() == "charset" and value:
            return value.strip().strip('"').lower()
    return None


def _body_bytes(event):
    """The inline body of a `done` or `failed` event as bytes, whichever way it came."""
    b64 = event.get("body_base64")
    if b64 is not None:
        # binascii directly: base64.b64decode's argument checks cost about a microsecond a job.
        return binascii.a2b_base64(b64)
    if "body" in event:
        body = event["body"]
        if isinstance(body, str):
            return body.encode("utf-8")
        return _json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b""


def outcome(event, method=None, content=None):
    """The `Response` for a terminal event, or raises the `FerryError` it stands for."""
    kind = event["event"]
    if kind == "done":
        return Response(event, content, method)
    if kind == "cancelled":
        raise JobCancelled(event.get("reason", "client"), job_id=event.get("id"), event=event)
    error = event.get("error") or {}
    response = Response(event, content, method) if "status" in event else None
    raise FerryError.from_error(error, response=response, job_id=event.get("id"), event=event)


def data_bytes(event):
    """The body piece of a `data` event."""
    text = event.get("text")
    if text is not None:
        return text.encode("utf-8")
    return base64.b64decode(event.get("base64", ""))
