#!/usr/bin/python3
"""Fails when a binary imports a symbol of a module kept off ferry's per-job path.

    tools/import-check.py .build/release/ferryd

_StringProcessing's `StringProtocol.contains(String)` builds a substring searcher with a
dictionary of Characters on every call: one such call on every cache lookup doubled a cache
hit's cost (issue 29, B8, 2026-12-07) and no test saw it. A multi-character String argument to
`contains`, `ranges(of:)`, `firstRange(of:)`, `split(separator: String)` or a Regex resolves to
that module; ferryd uses FerryWire's `TextCheck` byte searches instead. The check reads the
binary's dynamic imports (`nm -D --undefined-only`), so it sees what the compiler chose, not
what the source seems to say."""

import subprocess
import sys

KEPT_OFF = ["_StringProcessing", "_RegexParser"]


def imports(binary):
    out = subprocess.run(["nm", "-D", "--undefined-only", binary], capture_output=True, text=True, check=True)
    return [line.split()[-1] for line in out.stdout.splitlines() if line.strip()]


def offenders(symbols):
    # Swift mangles a module name as its length and its name (`17_StringProcessing`).
    marks = [f"{len(m)}{m}" for m in KEPT_OFF]
    return [s for s in symbols if any(mark in s for mark in marks)]


def main(binaries):
    failed = False
    for binary in binaries:
        found = offenders(imports(binary))
        if found:
            failed = True
            try:
                names = subprocess.run(["swift", "demangle", *found], capture_output=True, text=True).stdout
            except OSError:
                names = ""
            print(f"{binary} imports from {', '.join(KEPT_OFF)} (use FerryWire's TextCheck):")
            for line in (names or "\n".join(found)).splitlines():
                print(f"  {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
