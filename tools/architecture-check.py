#!/usr/bin/env python3
"""The architecture check `make test` runs first (issue 28): fails on what the house style
(/work/shared/STYLE.md, docs/ARCHITECTURE.md) rules out, except for today's offenders, which
tools/architecture-allow.txt lists with their counts.

Rules, over the Swift files under ROOT (default: the repository):
  glibc       `import Glibc` in a Sources/FerryDaemon file (the daemon goes through FerryLoop)
  unchecked   `@unchecked Sendable` in Sources/ (count per file); each one also needs, in the
              comment just before it, a line `// @unchecked Sendable: why it is safe`
  usleep      `usleep` in Tests/ (count per file): a test waits for the event it expects
  function    a function (func, init, deinit, subscript) in Sources/ over 60 lines, counted
              from its keyword's line to its closing brace (key: file and name, the longest
              of a name's overloads)
  file        a file in Sources/ over 400 lines
  table-entry a call into the job table from a FerryDaemon file outside JobTable*.swift other
              than its one entry point `table.handle(...)`, its queries (TABLE_QUERIES) and
              `bodyReceived` (a chunk's verdict, per chunk: the one documented exception)
  table-doc   a case of `JobTable.Event` (JobTable+Events.swift) or `JobTable.Action`
              (JobTable.swift) that docs/ARCHITECTURE.md does not name (`name` or `name(`),
              so that its list of the table's events and actions matches the code

The allow-list is a ratchet: an entry lets its file (or function) offend up to its count and
no more; an entry that no longer offends must be removed, and one whose count has dropped is
reported so that it can be lowered. A new offender is never added to it without a reason in
the commit that adds it.

Usage: tools/architecture-check.py [ROOT] [--allow FILE]
Exit status: 0 clean, 1 violations (each on a line of its own), 2 bad usage or allow-list.
"""

import argparse
import os
import re
import sys

MAX_FUNCTION_LINES = 60
MAX_FILE_LINES = 400
RULES = ("glibc", "unchecked", "usleep", "function", "file", "table-entry", "table-doc")
# Where the job table's events and actions are declared, and the document that lists them.
TABLE_ENUMS = (("Sources/FerryDaemon/JobTable+Events.swift", "Event"), ("Sources/FerryDaemon/JobTable.swift", "Action"))
TABLE_DOC = "docs/ARCHITECTURE.md"
# What the daemon may call on `table` besides `handle`: reads that change nothing, and the
# per-chunk body verdict (docs/ARCHITECTURE.md, "The job table").
TABLE_QUERIES = {"handle", "bodyReceived", "isDetachedIDTaken", "liveDetachedJob", "plainDetachedJobs",
                 "nextDetachedExpiryMs", "accepts", "readsClock", "holdUntilMs", "startIntervalMs",
                 "holdsUnreachable"}
TABLE_CALL = re.compile(r"\btable\.([A-Za-z_]+)\s*\(")
FUNCTION_KEYWORDS = ("func", "init", "deinit", "subscript")
# A declaration with no body (a protocol requirement) ends at one of these before any `{`.
DECLARATION_STARTS = {"func", "var", "let", "case", "init", "deinit", "subscript", "typealias",
                      "associatedtype", "struct", "class", "enum", "extension", "protocol"}
UNCHECKED = re.compile(r"@unchecked\s+(?:Swift\s*\.\s*)?Sendable\b")
STRING_START = re.compile(r'(#*)("""|")')


def tokens(source):
    """Identifiers and the punctuation `{}()[].` of Swift source, with their line numbers;
    comments and string literals (raw and multi-line ones included) are skipped, the code of
    their interpolations is not."""
    out = []
    i, n, line = 0, len(source), 1
    # Frames: ["code", None] at the top, ["code", depth] inside an interpolation,
    # ["string", hashes, multiline].
    stack = [["code", None]]
    while i < n:
        c = source[i]
        frame = stack[-1]
        if c == "\n":
            line += 1
            i += 1
            continue
        if frame[0] == "string":
            hashes, multiline = frame[1], frame[2]
            if c == "\\" and source.startswith("#" * hashes, i + 1):
                k = i + 1 + hashes
                if k < n and source[k] == "(":
                    stack.append(["code", 1])
                    i = k + 1
                elif k < n and source[k] == "\n":
                    i = k  # a line continuation: the newline is counted above
                else:
                    i = k + 1
                continue
            close = ('"""' if multiline else '"') + "#" * hashes
            if source.startswith(close, i):
                stack.pop()
                i += len(close)
            else:
                i += 1
            continue
        if source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
            continue
        if source.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if source.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif source.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += source[i] == "\n"
                    i += 1
            continue
        if c in '#"':
            m = STRING_START.match(source, i)
            if m and (c == '"' or m.group(1)):
                stack.append(["string", len(m.group(1)), m.group(2) == '"""'])
                i = m.end()
                continue
        if c.isalpha() or c in "_#@":
            m = re.compile(r"[#@]?[A-Za-z_][A-Za-z0-9_]*").match(source, i)
            if m:
                out.append((m.group(0), line))
                i = m.end()
                continue
        if c in "{}()[].":
            if frame[1] is not None and c in "()":
                frame[1] += 1 if c == "(" else -1
                if frame[1] == 0:
                    stack.pop()
                    i += 1
                    continue
            out.append((c, line))
        i += 1
    return out


def function_lengths(source):
    """Each function's name and line count (keyword line to closing brace, inclusive)."""
    toks = tokens(source)
    found = []
    for index, (text, line) in enumerate(toks):
        if text not in FUNCTION_KEYWORDS or (index and toks[index - 1][0] == "."):
            continue
        if text == "func":
            m = re.search(r"\bfunc\s+([^\s(<]+)", source.splitlines()[line - 1])
            name = m.group(1) if m else "func"
        else:
            name = text
        depth, j, body = 0, index + 1, None
        while j < len(toks):
            t = toks[j][0]
            if t in "([":
                depth += 1
            elif t in ")]":
                depth -= 1
            elif depth == 0 and t == "{":
                body = j
                break
            elif depth == 0 and (t == "}" or t in DECLARATION_STARTS):
                break
            j += 1
        if body is None:
            continue
        braces, j = 0, body
        while j < len(toks):
            if toks[j][0] == "{":
                braces += 1
            elif toks[j][0] == "}":
                braces -= 1
                if braces == 0:
                    break
            j += 1
        end = toks[min(j, len(toks) - 1)][1]
        found.append((name, end - line + 1))
    return found


def swift_files(root, under):
    base = os.path.join(root, under)
    for directory, dirs, files in os.walk(base):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(".swift"):
                path = os.path.join(directory, name)
                yield os.path.relpath(path, root), path


def code_lines(text):
    """The lines of `text` that are not wholly a `//` comment."""
    return [l for l in text.splitlines() if not l.lstrip().startswith("//")]


def justified(lines, number):
    """Whether the comment lines just before line `number` (0-based) hold one that begins
    `// @unchecked Sendable:` (or `///`): the reason it is safe, next to the declaration."""
    j = number - 1
    while j >= 0 and lines[j].lstrip().startswith("//"):
        if re.match(r"\s*///?\s*@unchecked Sendable:", lines[j]):
            return True
        j -= 1
    return False


def enum_cases(text, enum):
    """The case names declared directly in `enum NAME { ... }` of `text` (not in nested types)."""
    names, depth, inside = [], 0, False
    for line in code_lines(text):
        code = line.split("//", 1)[0]
        if not inside:
            if re.search(r"\benum\s+" + enum + r"\b", code):
                inside, depth = True, code.count("{") - code.count("}")
            continue
        case = re.match(r"\s*case\s+(.*)", code)
        if case and depth == 1:
            # `case a(x: Int, y: Int), b`: the names, not the labels inside the parentheses.
            names += re.findall(r"(?:^|,)\s*(\w+)", re.sub(r"\([^()]*(?:\([^()]*\)[^()]*)*\)", "", case.group(1)))
        depth += code.count("{") - code.count("}")
        if depth <= 0:
            break
    return names


def undocumented_table_cases(root):
    """`JobTable.Event` and `.Action` cases that docs/ARCHITECTURE.md does not name."""
    doc_path = os.path.join(root, TABLE_DOC)
    if not os.path.exists(doc_path):
        return []
    with open(doc_path, encoding="utf-8") as f:
        doc = f.read()
    missing = []
    for rel, enum in TABLE_ENUMS:
        path = os.path.join(root, rel)
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            for name in enum_cases(f.read(), enum):
                if not re.search("`" + re.escape(name) + "[`(]", doc):
                    missing.append(f"{TABLE_DOC} {enum}.{name}")
    return missing


def measure(root):
    """Offences found: {(rule, key): count}, and lines for what no allow-list can excuse."""
    found, errors = {}, []
    for rel, path in swift_files(root, "Sources"):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        lines = text.splitlines()
        if rel.startswith("Sources/FerryDaemon/"):
            if any(re.match(r"\s*import\s+Glibc\b", l) for l in lines):
                found[("glibc", rel)] = 1
            if not os.path.basename(rel).startswith("JobTable"):
                calls = sum(1 for l in code_lines(text) for m in TABLE_CALL.finditer(l)
                            if m.group(1) not in TABLE_QUERIES)
                if calls:
                    found[("table-entry", rel)] = calls
        unchecked = 0
        # Every spelling counts (`@unchecked  Sendable`, `Swift.Sendable`, split over lines,
        # two on a line); comment lines are blanked, keeping the line numbers.
        code = "\n".join("" if l.lstrip().startswith("//") else l for l in lines)
        for m in UNCHECKED.finditer(code):
            number = code.count("\n", 0, m.start())
            unchecked += 1
            if not justified(lines, number):
                errors.append(
                    f"{rel}:{number + 1}: @unchecked Sendable without a comment just before it "
                    "(`// @unchecked Sendable: why it is safe`)")
        if unchecked:
            found[("unchecked", rel)] = unchecked
        if len(lines) > MAX_FILE_LINES:
            found[("file", rel)] = len(lines)
        longest = {}
        for name, length in function_lengths(text):
            longest[name] = max(length, longest.get(name, 0))
        for name, length in longest.items():
            if length > MAX_FUNCTION_LINES:
                found[("function", f"{rel} {name}")] = length
    for rel, path in swift_files(root, "Tests"):
        with open(path, encoding="utf-8") as f:
            count = sum(len(re.findall(r"\busleep\s*\(", l)) for l in code_lines(f.read()))
        if count:
            found[("usleep", rel)] = count
    for key in undocumented_table_cases(root):
        found[("table-doc", key)] = 1
    return found, errors


def read_allow(path):
    allowed = {}
    if not os.path.exists(path):
        return allowed
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) < 3 or parts[0] not in RULES or not parts[-1].isdigit():
                print(f"{path}:{number}: expected `RULE PATH [NAME] COUNT`, RULE one of {', '.join(RULES)}",
                      file=sys.stderr)
                sys.exit(2)
            allowed[(parts[0], " ".join(parts[1:-1]))] = int(parts[-1])
    return allowed


def describe(rule, key, count):
    return {
        "glibc": f"{key}: imports Glibc (FerryDaemon reaches the kernel through FerryLoop)",
        "unchecked": f"{key}: {count} @unchecked Sendable",
        "usleep": f"{key}: {count} usleep (wait for the event expected, never for a time)",
        "function": f"{key}: function of {count} lines (over {MAX_FUNCTION_LINES})",
        "file": f"{key}: {count} lines (over {MAX_FILE_LINES})",
        "table-entry": f"{key}: {count} call(s) into the job table other than `table.handle` (its one entry point)",
        "table-doc": f"{key}: a job table case the document does not name (its list of events and actions)",
    }[rule]


def main():
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    parser = argparse.ArgumentParser(description="ferry's architecture check (issue 28)")
    parser.add_argument("root", nargs="?", default=here)
    parser.add_argument("--allow", help="the allow-list (default: ROOT/tools/architecture-allow.txt)")
    args = parser.parse_args()
    allow_path = args.allow or os.path.join(args.root, "tools", "architecture-allow.txt")
    allowed = read_allow(allow_path)
    found, problems = measure(args.root)
    notes = []
    for (rule, key), count in sorted(found.items()):
        limit = allowed.get((rule, key))
        if limit is None:
            problems.append(describe(rule, key, count))
        elif count > limit:
            problems.append(describe(rule, key, count) + f"; the allow-list lets it have {limit}")
        elif count < limit:
            notes.append(f"{allow_path}: lower `{rule} {key}` to {count}")
    for (rule, key), limit in sorted(allowed.items()):
        if (rule, key) not in found:
            problems.append(f"{allow_path}: `{rule} {key} {limit}` no longer offends: remove it")
    for note in notes:
        print("note: " + note)
    for problem in problems:
        print("architecture-check: " + problem)
    if problems:
        print(f"architecture-check: {len(problems)} problem(s); rules in {os.path.relpath(__file__, here)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
