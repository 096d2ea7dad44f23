#!/bin/sh
# FerryCache's per-operation cost (docs/CACHE.md "Figures"): compiles the module's sources with
# this bench in one optimised module (no package target) and runs it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${TMPDIR:-/tmp}/ferry-bench-cache
swiftc -O -wmo -enforce-exclusivity=unchecked -module-name FerryCacheBench \
  "$root"/Sources/FerryCache/*.swift "$here/main.swift" -o "$out"
exec "$out"
