#!/bin/sh
# Issue 32's long run: ferryd against the fixture's quota (20 requests per 2 s window, 429 with
# Retry-After past it) for SECONDS (default 60), with backoff "session" + rate "auto", then
# "session" and "job" with no retry policy. Prints one "quota run:" line per run.
# Usage: tools/quota-run.sh [SECONDS]   (from the repository root, after swift build --build-tests)
set -eu
FERRY_QUOTA_SECONDS="${1:-60}" swift test --skip-build --filter ServerQuotaTests 2>&1 |
  grep -E 'quota run:|passed|failed'
