#!/usr/bin/env python3
"""Checks a log of protocol lines against docs/schema/ferry.schema.json.

The log holds one line per protocol line, `in <json>` for a line the daemon wrote and
`out <json>` for one a client wrote (FerryKit's tests write it through FERRYKIT_LINE_LOG). Each
`in` line must be an `event`, each `out` line a `clientLine`; an empty log fails too, since it
means nothing was checked. Needs Debian's python3-jsonschema.

Usage: tools/schema-check.py LOG
"""
import collections
import json
import os
import sys

import jsonschema

SCHEMA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs", "schema",
                      "ferry.schema.json")


def validator(definition):
    with open(SCHEMA) as f:
        schema = json.load(f)
    schema.pop("anyOf")
    schema["$ref"] = f"#/$defs/{definition}"
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def main(path):
    validators = {"in": validator("event"), "out": validator("clientLine")}
    kinds, failures, count = collections.Counter(), [], 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, record in enumerate(f, 1):
            direction, _, text = record.rstrip("\n").partition(" ")
            line = json.loads(text)
            count += 1
            kinds[(direction, line.get("event") or line.get("op") or "job")] += 1
            error = jsonschema.exceptions.best_match(validators[direction].iter_errors(line))
            if error is not None:
                failures.append(f"{path}:{number}: {direction} line: {error.message} at "
                                f"{list(error.absolute_path)}: {text[:300]}")
    for failure in failures[:20]:
        print(failure, file=sys.stderr)
    if count == 0:
        sys.exit(f"schema-check: {path} holds no lines: nothing was checked")
    summary = ", ".join(f"{d} {k} {n}" for (d, k), n in sorted(kinds.items()))
    print(f"schema-check: {count} lines, {len(failures)} not matching the schema ({summary})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main(sys.argv[1])
