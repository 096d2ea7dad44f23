#!/bin/sh
# The HTTP cache through ferryd (issue 17): N GETs of one URL against ferry-fixture, K in flight,
# in a session without a cache (every job fetched), in a cached session where the entry is
# fresh (every job a hit: no request, no session slot), and where it must be revalidated
# (`no-cache`: every job a conditional request answered 304). Prints the client's jobs/s and
# ferryd's CPU time per job (utime + stime from /proc) for each.
#   bench/cache/daemon.sh [N] [K]     (release products in .build/release)
set -eu
N=${1:-5000}
K=${2:-32}
B=$(pwd)/.build/release
D=$(mktemp -d /tmp/ferry-bench-cache.XXXXXX)
trap 'kill $FIX $DAEMON 2>/dev/null; rm -rf "$D"' EXIT
"$B/ferry-fixture" > "$D/fixture.out" &
FIX=$!
while ! grep -q '^port=' "$D/fixture.out" 2>/dev/null; do sleep 0.05; done
PORT=$(sed -n 's/^port=//p' "$D/fixture.out")
cat > "$D/ferry.json" <<JSON
{"state_dir": "$D/state", "sessions": {"plain": {}, "cached": {"cache": {"max_bytes": 67108864}}}}
JSON
"$B/ferryd" --config "$D/ferry.json" --socket "$D/s.sock" --log-level warning &
DAEMON=$!
while [ ! -S "$D/s.sock" ]; do sleep 0.05; done
TICK=$(getconf CLK_TCK)
cpu() { awk '{print $14 + $15}' "/proc/$DAEMON/stat"; }
FRESH="http://127.0.0.1:$PORT/conditional?Cache-Control=max-age%3D86400"
STALE="http://127.0.0.1:$PORT/conditional?etag=%22v1%22&Cache-Control=no-cache"
# Store both entries once.
"$B/ferry-bench-client" "$D/s.sock" "$FRESH" 1 1 '"session":"cached"' > /dev/null
"$B/ferry-bench-client" "$D/s.sock" "$STALE" 1 1 '"session":"cached"' > /dev/null
for run in fetch hit revalidate; do
  case $run in
    fetch) S=plain; URL=$FRESH ;;
    hit) S=cached; URL=$FRESH ;;
    revalidate) S=cached; URL=$STALE ;;
  esac
  before=$(cpu)
  printf '%-10s ' "$run"
  "$B/ferry-bench-client" "$D/s.sock" "$URL" "$N" "$K" "\"session\":\"$S\"" | tr '\n' ' '
  after=$(cpu)
  awk -v t="$((after - before))" -v hz="$TICK" -v n="$N" 'BEGIN { printf "ferryd_cpu_us_per_job=%.1f\n", t / hz * 1e6 / n }'
done
