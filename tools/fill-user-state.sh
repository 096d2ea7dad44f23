#!/usr/bin/env bash
# Fills the invoking user's own ferry state, as a person who used ferry by hand would leave it:
# a journal holding durable jobs that never finished, a cookie store and an HTTP cache, all under
# the default state directory (~/.local/state/ferry, or $XDG_STATE_HOME/ferry), and a stale
# socket under $XDG_RUNTIME_DIR. `.ci/run` runs it before `make test` to prove that no test
# reads or writes the user's state (issue 24): a test daemon that opened this journal would
# recover its jobs and hold three more descriptors; one that found this socket would talk to a
# dead daemon.
#
# Usage: tools/fill-user-state.sh [PRODUCTS]   (PRODUCTS: .build/release by default)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
products=${1:-$root/.build/release}
state=${XDG_STATE_HOME:-$HOME/.local/state}/ferry
work=$(mktemp -d "${TMPDIR:-/tmp}/ferry-fill.XXXXXX")
pids=""
cleanup() { exec 3>&- 2>/dev/null || true; for p in $pids; do kill -9 "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

# The fixture on a loopback port; it exits when its stdin (this fifo) closes.
mkfifo "$work/fixture.in"
"$products/ferry-fixture" < "$work/fixture.in" > "$work/fixture.out" 2>&1 &
pids="$pids $!"
exec 3> "$work/fixture.in"
for _ in $(seq 100); do grep -q '^port=' "$work/fixture.out" 2>/dev/null && break; sleep 0.1; done
port=$(sed -n 's/^port=//p' "$work/fixture.out")
[ -n "$port" ] || { echo "fill-user-state: the fixture did not start" >&2; exit 1; }
base="http://127.0.0.1:$port"

# ferryd with no state_dir: it uses the user's default state directory, as `make run` does.
cat > "$work/ferry.json" <<JSON
{"log_level": "warning",
 "sessions": {"default": {"cookies": true, "cache": {"max_bytes": 1048576}}}}
JSON
"$products/ferryd" --config "$work/ferry.json" --socket "$work/ferryd.sock" 2> "$work/ferryd.log" &
daemon=$!
pids="$pids $daemon"
for _ in $(seq 100); do [ -S "$work/ferryd.sock" ] && break; sleep 0.1; done

send() { socat -t 30 - "UNIX-CONNECT:$work/ferryd.sock"; }
# A stored cookie and a stored answer, each job run to its end.
printf '%s\n' \
  "{\"id\":\"c\",\"url\":\"$base/headers?Set-Cookie=fill%3D1%3B%20Max-Age%3D86400\",\"events\":[]}" \
  "{\"id\":\"h\",\"url\":\"$base/headers?Cache-Control=max-age%3D86400\",\"events\":[]}" | send > "$work/done.log"
grep -q '"id":"c".*"status":200' "$work/done.log" && grep -q '"id":"h".*"status":200' "$work/done.log" || {
  echo "fill-user-state: the cookie and cache jobs failed:" >&2; cat "$work/done.log" "$work/ferryd.log" >&2; exit 1; }

# Durable jobs still running when the daemon dies: they stay in the journal for its next start.
{
  for i in $(seq 20); do
    echo "{\"id\":\"d$i\",\"url\":\"$base/delay/60000\",\"durable\":true,\"events\":[]}"
  done
  sleep 1
} | socat -t 1 - "UNIX-CONNECT:$work/ferryd.sock" > /dev/null || true
kill -9 "$daemon"
wait "$daemon" 2>/dev/null || true

# A socket file where a user's daemon would listen, with nobody behind it.
if [ -n "${XDG_RUNTIME_DIR:-}" ] && [ -d "$XDG_RUNTIME_DIR" ]; then
  python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' \
    "$XDG_RUNTIME_DIR/ferryd.sock" 2>/dev/null || true
fi

[ -s "$state/journal.db" ] || { echo "fill-user-state: no journal in $state" >&2; exit 1; }
echo "fill-user-state: $state holds $(ls "$state" | tr '\n' ' ')"
