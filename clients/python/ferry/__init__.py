"""ferry: a client for ferryd, the local HTTP job daemon, in requests' and httpx's shape.

    import ferry
    with ferry.Client() as client:
        r = client.get("https://example.com/", params={"q": "1"})
        r.raise_for_status()
        print(r.status_code, r.headers["content-type"], r.text)

Standard library only. See docs/CLIENTS.md in the ferry repository."""

from ._async import AsyncClient
from ._async_jobs import AsyncJob, AsyncStreamResponse
from ._client import Client
from ._errors import DaemonUnavailable, FerryError, HTTPStatusError, JobCancelled
from ._models import Headers, Response
from ._socket import locate as locate_socket
from ._sync_jobs import Job, StreamResponse

__version__ = "0.1.0"

__all__ = [
    "AsyncClient", "AsyncJob", "AsyncStreamResponse", "Client", "DaemonUnavailable", "FerryError", "HTTPStatusError",
    "Headers", "Job", "JobCancelled", "Response", "StreamResponse", "locate_socket",
]
