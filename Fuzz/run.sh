#!/usr/bin/env bash
# Builds and runs ferry's libFuzzer targets (see docs/FUZZING.md).
#
#   Fuzz/run.sh build              build every target into .build/fuzz (only what is out of date)
#   Fuzz/run.sh fuzz [TARGET...]   fuzz each target for FUZZ_SECONDS (default 60), one at a time
#   Fuzz/run.sh smoke              build, then a few seconds per target from its seed corpus
#
# FerryWire and FerrySerializer are compiled straight from Sources/ with swiftc (coverage and
# AddressSanitizer on, -enable-testing so that a target can reach internal API), not through
# SwiftPM, so the fuzz flags never touch the package's own builds. Each target is one file in
# Fuzz/<target>/ plus Fuzz/Shared/. Crash inputs go to Fuzz/artifacts/ (gitignored); the
# corpus a run grows goes to .build/fuzz/corpus/<target>, seeded from Fuzz/corpus/<target>.
# Exits non-zero when a target crashed, leaked, hung or ran out of memory.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
# Swift's own crash backtracer would wait on a crashed input for up to 30 s and hold our output
# pipes open; libFuzzer and ASan print the stack themselves.
export SWIFT_BACKTRACE=enable=no

TARGETS=(json decoder serializer framer)
OUT=.build/fuzz
ARTIFACTS=Fuzz/artifacts
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
MAX_LEN=${FUZZ_MAX_LEN:-65536}
SWIFTC=${SWIFTC:-swiftc}
FLAGS=(-O -sanitize=fuzzer,address -parse-as-library -enable-testing -swift-version 6)

# True when `$1` exists and nothing in the other arguments (files or directories) is newer.
is_fresh() {
  local output=$1
  shift
  [ -e "$output" ] && [ -z "$(find "$@" -newer "$output" -print -quit)" ]
}

# Compiles one library module from Sources/<name> into one object file and its module.
build_module() {
  local name=$1
  is_fresh "$OUT/$name.o" Sources/"$name" "$OUT"/FerryWire.o Fuzz/run.sh && return
  "$SWIFTC" "${FLAGS[@]}" -module-name "$name" -I "$OUT" -wmo -c Sources/"$name"/*.swift \
    -emit-module -emit-module-path "$OUT/$name.swiftmodule" -o "$OUT/$name.o"
  # swiftc keeps an unchanged output file as it was, old time included.
  touch "$OUT/$name.o"
}

build() {
  mkdir -p "$OUT"
  local start=$SECONDS
  build_module FerryWire
  build_module FerrySerializer
  for target in "${TARGETS[@]}"; do
    is_fresh "$OUT/fuzz-$target" Fuzz/Shared Fuzz/"$target" "$OUT"/*.o Fuzz/run.sh && continue
    "$SWIFTC" "${FLAGS[@]}" -module-name "Fuzz_$target" -I "$OUT" \
      Fuzz/Shared/*.swift Fuzz/"$target"/*.swift "$OUT/FerryWire.o" "$OUT/FerrySerializer.o" -lm \
      -o "$OUT/fuzz-$target" 2> >(grep -v "ld.gold: warning: Cannot export local symbol" >&2)
    touch "$OUT/fuzz-$target"
  done
  echo "fuzz: targets built or up to date in $((SECONDS - start)) s"
}

# Runs one target for `$2` seconds over the working corpus `$3`, seeded from the repo's, logging
# to `$4`; prints one summary line and returns non-zero when it failed or wrote an artifact.
run_target() {
  local target=$1 seconds=$2 work=$3 log=$4
  mkdir -p "$work" "$ARTIFACTS"
  local before after status=0
  before=$(find "$ARTIFACTS" -name "$target-*" | wc -l)
  "$OUT/fuzz-$target" "$work" "Fuzz/corpus/$target" -max_total_time="$seconds" \
    -max_len="$MAX_LEN" -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$ARTIFACTS/$target-" >"$log" 2>&1 || status=$?
  after=$(find "$ARTIFACTS" -name "$target-*" | wc -l)
  local runs speed cov
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  printf 'fuzz %-10s executions=%s exec/s=%s coverage=%s crashes=%d (%s s, log %s)\n' \
    "$target" "${runs:-?}" "${speed:-?}" "${cov:-?}" $((after - before)) "$seconds" "$log"
  if [ "$status" -ne 0 ] || [ "$after" -gt "$before" ]; then
    grep -E "^(==[0-9]+==ERROR|SUMMARY|fuzz check failed)|Test unit written" "$log" | head -5
    return 1
  fi
}

cmd=${1:-fuzz}
[ $# -gt 0 ] && shift
case $cmd in
  build) build ;;
  fuzz | smoke)
    build
    selected=("$@")
    [ ${#selected[@]} -eq 0 ] && selected=("${TARGETS[@]}")
    failed=0
    for target in "${selected[@]}"; do
      if [ "$cmd" = smoke ]; then
        # A throwaway working corpus: the smoke run only proves the target still builds, runs
        # and passes its seeds and what a few seconds of mutation find.
        work=$(mktemp -d)
        run_target "$target" "${FUZZ_SMOKE_SECONDS:-3}" "$work" "$OUT/$target.smoke.log" || failed=1
        rm -rf "$work"
      else
        run_target "$target" "$FUZZ_SECONDS" "$OUT/corpus/$target" "$OUT/$target.log" || failed=1
      fi
    done
    exit $failed
    ;;
  *)
    echo "usage: Fuzz/run.sh build | fuzz [TARGET...] | smoke" >&2
    exit 2
    ;;
esac
