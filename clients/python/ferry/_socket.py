"""Finding ferryd's socket and deciding whether to trust what answers on it, as the CLI does
(Sources/FerryKit/SocketLocator.swift: SocketLocator and DaemonTrust)."""

import os
import socket
import struct

from ._errors import DaemonUnavailable

SYSTEM_PATH = "/run/ferry/ferryd.sock"


def locate(socket_path=None, environ=None):
    """The socket to connect to and where the choice came from: the argument,
    `$FERRY_SOCKET`, `/run/ferry/ferryd.sock` if it exists, `$XDG_RUNTIME_DIR/ferryd.sock` if
    it exists, else `/tmp/ferryd-$UID/ferryd.sock`."""
    env = os.environ if environ is None else environ
    if socket_path:
        return os.fspath(socket_path), "socket_path"
    if env.get("FERRY_SOCKET"):
        return env["FERRY_SOCKET"], "$FERRY_SOCKET"
    if os.path.exists(SYSTEM_PATH):
        return SYSTEM_PATH, "the system socket"
    runtime = env.get("XDG_RUNTIME_DIR")
    if runtime and os.path.exists(os.path.join(runtime, "ferryd.sock")):
        return os.path.join(runtime, "ferryd.sock"), "$XDG_RUNTIME_DIR"
    return f"/tmp/ferryd-{os.getuid()}/ferryd.sock", "the default"


def peer_uid(sock):
    """The uid of the process that holds the other end of a connected Unix socket."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", creds)
    return uid


def check_trust(sock, path, environ=None):
    """Raises `DaemonUnavailable` unless the daemon on `sock` is root's, the caller's, or the
    uid named in `$FERRY_DAEMON_UID`: a job line may hold a token, and anyone else listening
    there is squatting the path."""
    env = os.environ if environ is None else environ
    uid = peer_uid(sock)
    caller = os.getuid()
    if uid in (0, caller):
        return
    trusted = env.get("FERRY_DAEMON_UID", "")
    if trusted.isdigit() and int(trusted) == uid:
        return
    raise DaemonUnavailable(
        f"refusing to talk to {path}: it is held by uid {uid}, not by root or you (uid {caller}); "
        f"another user may be squatting the socket, and nothing was sent. If that daemon is yours "
        f"to trust, set FERRY_DAEMON_UID={uid}.")


def unreachable(path, source, error):
    return DaemonUnavailable(
        f"cannot reach ferryd at {path} ({source}): {error}; start it with `make run` or "
        f"`systemctl start ferryd.socket`, or name its socket with socket_path or FERRY_SOCKET")


def connect_blocking(socket_path=None):
    """A connected, trusted blocking socket to ferryd, and its path."""
    path, source = locate(socket_path)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as e:
        sock.close()
        raise unreachable(path, source, e.strerror or e) from None
    try:
        check_trust(sock, path)
    except BaseException:
        sock.close()
        raise
    return sock, path
