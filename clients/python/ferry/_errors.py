"""The library's exceptions: the protocol's stable error codes, and what the library adds."""


class FerryError(Exception):
    """A job or an op that ferryd refused or that failed.

    `code` is the protocol's stable error code (docs/PROTOCOL.md, "Error codes"), `message` its
    human text, `field` the dotted path of the offending job field (`invalid_job`), `timer` the
    timer that fired (`timeout`), `response` the `Response` when one came with the failure
    (`unacceptable_status`, `unacceptable_content_type`, `response_too_large`), and `job_id`
    the job's id when there is one."""

    def __init__(self, code, message, field=None, timer=None, response=None, job_id=None, event=None):
        super().__init__(f"{code}: {message}" + (f" (field {field})" if field else ""))
        self.code = code
        self.message = message
        self.field = field
        self.timer = timer
        self.response = response
        self.job_id = job_id
        #: The daemon's event (`failed`, `error` or `cancelled`) as a dict, when one came.
        self.event = event

    @classmethod
    def from_error(cls, error, response=None, job_id=None, event=None):
        """Builds the exception for an `error` object of a `failed` or `error` event."""
        return cls(error.get("code", "unknown"), error.get("message", ""), field=error.get("field"),
                   timer=error.get("timer"), response=response, job_id=job_id or error.get("id"), event=event)


class JobCancelled(FerryError):
    """The job ended `cancelled`; `reason` is `client`, `disconnected` or `shutdown`."""

    def __init__(self, reason, job_id=None, event=None):
        super().__init__("cancelled", f"job {job_id} was cancelled ({reason})", job_id=job_id, event=event)
        self.reason = reason


class DaemonUnavailable(FerryError):
    """No trusted ferryd answers, or the connection to it was lost.

    When the connection is lost while a job is live, `job_id` names it: a `durable` or
    `detach` job keeps running (or waits in the journal) and can be collected with
    `client.attach(job_id)` once the daemon is back."""

    def __init__(self, message, job_id=None):
        super().__init__("daemon_unavailable", message, job_id=job_id)


class HTTPStatusError(FerryError):
    """Raised by `Response.raise_for_status()` for a 4xx or 5xx status."""

    def __init__(self, message, response):
        super().__init__("http_status", message, response=response,
                         job_id=getattr(response, "job_id", None))
