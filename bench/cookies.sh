#!/bin/sh
# Per-job cost of cookie jars (issue 16): N GETs through one ferryd against ferry-fixture, in a
# session without cookies, with cookies and no Set-Cookie, and with a Set-Cookie on every
# response (each one saved to cookies.db before its response event).
#   bench/cookies.sh [N] [K]     (release products in .build/release)
set -eu
N=${1:-5000}
K=${2:-32}
B=$(pwd)/.build/release
D=$(mktemp -d /tmp/ferry-bench-cookies.XXXXXX)
trap 'kill $FIX $DAEMON 2>/dev/null; rm -rf "$D"' EXIT
"$B/ferry-fixture" > "$D/fixture.out" &
FIX=$!
while ! grep -q '^port=' "$D/fixture.out" 2>/dev/null; do sleep 0.05; done
PORT=$(sed -n 's/^port=//p' "$D/fixture.out")
cat > "$D/ferry.json" <<JSON
{"state_dir": "$D/state", "sessions": {"plain": {}, "jar": {"cookies": true}}}
JSON
"$B/ferryd" --config "$D/ferry.json" --socket "$D/s.sock" --log-level warning &
DAEMON=$!
while [ ! -S "$D/s.sock" ]; do sleep 0.05; done
for run in plain jar jar-set; do
  case $run in
    plain) S=plain; URL="http://127.0.0.1:$PORT/headers" ;;
    jar) S=jar; URL="http://127.0.0.1:$PORT/headers" ;;
    jar-set) S=jar; URL="http://127.0.0.1:$PORT/headers?Set-Cookie=sid%3Dabcdef0123456789" ;;
  esac
  printf '%-8s ' "$run"
  "$B/ferry-bench-client" "$D/s.sock" "$URL" "$N" "$K" "\"session\":\"$S\""
done
