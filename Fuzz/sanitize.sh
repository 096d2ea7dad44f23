#!/usr/bin/env bash
# Runs the test suite under a sanitizer: `Fuzz/sanitize.sh address` or `Fuzz/sanitize.sh thread`.
#
# A debug build with tests in its own scratch path (.build/asan, .build/tsan), then the tests
# with FERRY_PRODUCTS pointing at that build, so the black-box tests run a sanitized ferryd,
# ferry and ferry-fixture too. Every sanitized process writes its reports to files under
# .build/sanitizer-logs/<kind>/ (a report on a child's stderr could be lost in a test's pipe);
# the run fails when the tests fail or when any report was written.
set -euo pipefail
cd "$(dirname "$0")/.."
kind=${1:?usage: Fuzz/sanitize.sh address|thread}
case $kind in
  address) scratch=.build/asan ;;
  thread) scratch=.build/tsan ;;
  *) echo "usage: Fuzz/sanitize.sh address|thread" >&2; exit 2 ;;
esac
SWIFT=${SWIFT:-swift}
logs="$PWD/.build/sanitizer-logs/$kind"
supp="$PWD/Fuzz/sanitizers"
start=$SECONDS

"$SWIFT" build --build-tests --sanitize="$kind" --scratch-path "$scratch" -Xswiftc -warnings-as-errors \
  2> >(grep -v "ld.gold: warning: Cannot export local symbol" >&2)
built=$SECONDS
rm -rf "$logs"
mkdir -p "$logs"

# Swift's crash backtracer would hold a crashed child for up to 30 s; the sanitizers print
# their own stacks.
export SWIFT_BACKTRACE=enable=no
export FERRY_PRODUCTS="$PWD/$scratch/debug"
# A small quarantine keeps use-after-free detection for recent frees without holding 256 MiB of
# freed memory, which would break the tests that bound ferryd's RSS.
# Options already in the environment come last, so they win (e.g. ASAN_OPTIONS=detect_leaks=0
# where ptrace is not allowed and LeakSanitizer cannot run).
export ASAN_OPTIONS="log_path=$logs/asan:suppressions=$supp/asan.supp:detect_leaks=1:quarantine_size_mb=8:malloc_context_size=20${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export TSAN_OPTIONS="log_path=$logs/tsan:suppressions=$supp/tsan.supp:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
status=0
"$SWIFT" test --skip-build --sanitize="$kind" --scratch-path "$scratch" --skip BystanderLatencyTests || status=$?
# Alone, as make test runs them: they bound one user's effect on another's latency.
"$SWIFT" test --skip-build --sanitize="$kind" --scratch-path "$scratch" --filter BystanderLatencyTests || status=$?

reports=$(find "$logs" -type f | sort)
if [ -n "$reports" ]; then
  for report in $reports; do
    echo "=== $report"
    cat "$report"
  done
  echo "test-sanitize ($kind): sanitizer reports above" >&2
  status=1
fi
echo "test-sanitize ($kind): build $((built - start)) s, tests $((SECONDS - built)) s, status $status"
exit $status
