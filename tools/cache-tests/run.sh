#!/bin/sh
# Runs the HTTP Caching Tests (https://github.com/http-tests/cache-tests, cache-tests.fyi)
# against ferryd as a private cache: the suite's origin server, one ferryd with a cached
# session, adapter.mjs in front of it, and the suite's client in private (browser) mode.
#
#   tools/cache-tests/run.sh [--check] [--suite DIR] [TEST_ID]
#
# The suite is the copy in tools/cache-tests/suite (README.md there) unless --suite names a
# checkout. With TEST_ID one case runs and its requests and answers are printed. --check (what
# `make test` runs) exits 1 when fewer than 95 % of the required cases pass (issue 17's bar),
# and prints which not-passed required cases differ from expected-failures.txt.
# Needs node >= 18 and the release products (`swift build -c release`, or FERRY_PRODUCTS=DIR).
# Everything listens on 127.0.0.1 only, on ports the kernel picks. The results are kept in $OUT
# (a temporary directory unless set): results.json, ferryd.log, origin.log, adapter.log.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
suite=$here/suite
check=""
test_id=""
while [ $# -gt 0 ]; do
  case $1 in
    --check) check=1 ;;
    --suite) suite=$(cd "$2" && pwd); shift ;;
    *) test_id=$1 ;;
  esac
  shift
done
products=${FERRY_PRODUCTS:-$root/.build/release}
out=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/ferry-cache-tests.XXXXXX")}
mkdir -p "$out/state"
rm -f "$out/origin.log" "$out/adapter.log" "$out/ferryd.sock"

cat > "$out/ferryd.json" <<EOF
{
  "log_level": "warning",
  "state_dir": "$out/state",
  "sessions": {"cachetests": {"cache": {"max_bytes": 67108864}}}
}
EOF

pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM

# The first line of `what` in FILE that says `http://127.0.0.1:PORT/`, within 10 s.
port_of() {
  for _ in $(seq 100); do
    p=$(sed -n "s|.*$2 http://127.0.0.1:\([0-9]*\)/.*|\1|p" "$1" 2>/dev/null | head -1)
    if [ -n "$p" ]; then echo "$p"; return 0; fi
    sleep 0.1
  done
  echo "run.sh: no '$2' line in $1:" >&2
  cat "$1" >&2
  return 1
}

(cd "$suite" && npm_config_protocol=http npm_config_port=0 npm_config_host=127.0.0.1 \
  npm_config_pidfile="$out/origin.pid" exec node test-engine/server/server.mjs) > "$out/origin.log" 2>&1 &
pids="$pids $!"
# Its home, state and runtime directories are the run's own, never the user's.
mkdir -p "$out/home" "$out/run"
HOME="$out/home" XDG_STATE_HOME="$out/home" XDG_RUNTIME_DIR="$out/run" STATE_DIRECTORY="$out/state" \
  "$products/ferryd" --config "$out/ferryd.json" --socket "$out/ferryd.sock" > "$out/ferryd.log" 2>&1 &
pids="$pids $!"
origin_port=$(port_of "$out/origin.log" "Listening on")
verbose=""
[ -n "$test_id" ] && verbose=--verbose
node "$here/adapter.mjs" --socket "$out/ferryd.sock" --session cachetests \
  --origin "http://127.0.0.1:$origin_port" $verbose > "$out/adapter.log" 2>&1 &
pids="$pids $!"
adapter_port=$(port_of "$out/adapter.log" "adapter:")
for _ in $(seq 100); do [ -S "$out/ferryd.sock" ] && break; sleep 0.1; done

base="http://127.0.0.1:$adapter_port"
if [ -n "$test_id" ]; then
  node "$here/run-private.mjs" "$suite" "$base" "$out/results.json" --id "$test_id"
  cat "$out/adapter.log"
elif [ -n "$check" ]; then
  node "$here/run-private.mjs" "$suite" "$base" "$out/results.json" \
    --expect "$here/expected-failures.txt" --min-percent 95
else
  node "$here/run-private.mjs" "$suite" "$base" "$out/results.json"
fi
echo "results: $out"
