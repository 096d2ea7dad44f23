#!/usr/bin/env python3
"""Builds ferry's manual pages: docs/man/*.scd through scdoc(1), into OUT.

The pages' tables are not written twice: ferry(1)'s options and exit statuses come from the help
the built `ferry` prints (the same text its parser's options are tested against), ferry.json(5)'s
keys from docs/CONFIG.md's tables, and ferry-protocol(7)'s job fields, ops and error codes from
docs/PROTOCOL.md and the ErrorCode enum of FerryWire. `--check` then fails when a page lacks an
option of `ferryd --help` or `ferry --help`, an error code or a job field the code knows, or
when man(1) warns about a page.

Usage: tools/man/build.py --ferry BIN --ferryd BIN --out DIR [--check]
scdoc, not pandoc or hand-written roff: it is small, Debian packages it, its source reads as
the page does, and it refuses malformed input instead of rendering it.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = ["ferry.1", "ferryd.8", "ferry.json.5", "ferry-protocol.7"]


def scdoc_text(markdown):
    """One cell of a Markdown table as scdoc text: code as bold, links as their text."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown).replace("**", "")
    text = text.replace("\\", "\\\\").replace("*", "\\*").replace("_", "\\_")
    return re.sub(r"`([^`]*)`", lambda m: "*" + m.group(1) + "*" if m.group(1) else "", text)


def markdown_tables(path):
    """(heading, [row cells]) for each table of a Markdown file, rows without the header."""
    tables, heading, rows = [], "", None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("#"):
            heading = line.lstrip("#").strip().strip("`")
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            if rows is None:
                rows = []
                tables.append((heading, rows))
            elif not set(line) <= set("|-: "):
                rows.append(cells)
        else:
            rows = None
    for _, rows in tables:
        if rows:
            rows.pop(0) if rows and rows[0][0] in ("field", "key", "setting", "line") else None
    return tables


def definitions(rows):
    """scdoc definition entries for table rows: first cell the term, the rest its text."""
    out = []
    for cells in rows:
        term = scdoc_text(cells[0])
        rest = [scdoc_text(c) for c in cells[1:] if c]
        out.append(term + "\n\t" + "; ".join(rest) + "\n")
    return "\n".join(out)


def help_options(text):
    """scdoc entries for the option lines of a help text: '  -x, --long ARG   what it does'."""
    out, seen = [], set()
    for line in text.splitlines():
        m = re.match(r"^\s{2,}((?:-\w, )?--[\w-]+)(.*)$", line)
        if not m or m.group(1) in seen:
            continue
        seen.add(m.group(1))
        term, rest = m.group(1), m.group(2)
        if "  " in rest.strip():
            argument, _, what = rest.strip().partition("  ")
        else:
            # One space before the text: an argument is upper case, a choice list or quoted.
            first, _, what = rest.strip().partition(" ")
            argument = first if re.match(r"^([A-Z][A-Z_:\[\]]*|\S*\|\S*|'.*)$", first) else ""
            what = what if argument else rest.strip()
        term = term + (" " + argument if argument else "")
        out.append("*" + scdoc_text(term).replace("*", "") + "*\n\t" + scdoc_text(what.strip()) + "\n")
    return "\n".join(out)


def exit_statuses(text):
    rows = re.findall(r"^\s+(\d+)\s+(\S.*)$", text.split("Exit status:", 1)[1], re.M)
    return "\n".join(f"*{code}*\n\t{scdoc_text(meaning)}\n" for code, meaning in rows)


def error_codes():
    source = open(os.path.join(ROOT, "Sources/FerryWire/ErrorCode.swift"), encoding="utf-8").read()
    codes = []
    for m in re.finditer(r"^\s*case (\w+)(?: = \"([^\"]+)\")?", source, re.M):
        codes.append(m.group(2) or m.group(1))
    return codes


def job_fields():
    source = open(os.path.join(ROOT, "Sources/FerryWire/JSONKnownKeys.swift"), encoding="utf-8").read()
    return sorted(set(re.findall(r'\("(\w+)", "\w+"\)', source)) - {"op", "job"})


def run(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True, check=True).stdout


def fill(name, text, args):
    if name == "ferry.1":
        general = run(args.ferry, "--help")
        request = run(args.ferry, "help", "get")
        text = text.replace("OPTIONS_TABLE", help_options(general + "\n" + request))
        text = text.replace("EXIT_TABLE", exit_statuses(general))
    if name == "ferry.json.5":
        sections = []
        for heading, rows in markdown_tables(os.path.join(ROOT, "docs/CONFIG.md")):
            if rows:
                sections.append("## " + scdoc_text(heading).upper() + "\n\n" + definitions(rows))
        text = text.replace("CONFIG_TABLES", "\n".join(sections))
    if name == "ferry-protocol.7":
        tables = dict(markdown_tables(os.path.join(ROOT, "docs/PROTOCOL.md")))
        text = text.replace("JOB_FIELDS", definitions(tables["Job fields"]))
        text = text.replace("OPS_TABLE", definitions(tables["Ops"]))
        text = text.replace("ERROR_CODES", ", ".join("*" + c.replace("_", "\\_") + "*" for c in error_codes()))
    return text


def check(pages, args):
    """Problems: what a page lacks that the code has, and man's own warnings."""
    problems = []
    # The rendered text, with words that were hyphenated across lines joined again.
    plain = {name: re.sub(r"[\u2010-]\n\s*", "", subprocess.run(
        ["man", "-l", "-P", "cat", path], capture_output=True, text=True,
        env={**os.environ, "MANWIDTH": "200", "LC_ALL": "C.UTF-8"}).stdout) for name, path in pages.items()}
    for option in set(re.findall(r"(?<![\w-])(--[a-z][\w-]*)", run(args.ferryd, "--help"))):
        if option not in plain["ferryd.8"]:
            problems.append(f"ferryd.8 lacks {option}")
    ferry_help = run(args.ferry, "--help") + run(args.ferry, "help", "get")
    for option in set(re.findall(r"(?<![\w-])(--[a-z][\w-]*)", ferry_help)):
        if option not in plain["ferry.1"]:
            problems.append(f"ferry.1 lacks {option}")
    for code in error_codes():
        if code not in plain["ferry-protocol.7"]:
            problems.append(f"ferry-protocol.7 lacks error code {code}")
    for field in job_fields():
        if field not in plain["ferry-protocol.7"]:
            problems.append(f"ferry-protocol.7 lacks job field {field}")
    for name, path in pages.items():
        warn = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", path],
                              capture_output=True, text=True).stderr.strip()
        if warn:
            problems.append(f"{name}: man warns: {warn}")
        lex = subprocess.run(["lexgrog", path], capture_output=True, text=True)
        if lex.returncode != 0:
            problems.append(f"{name}: lexgrog: {lex.stdout.strip()} {lex.stderr.strip()}")
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ferry", required=True)
    parser.add_argument("--ferryd", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    pages = {}
    for name in PAGES:
        source = open(os.path.join(ROOT, "docs/man", name + ".scd"), encoding="utf-8").read()
        path = os.path.join(args.out, name)
        result = subprocess.run(["scdoc"], input=fill(name, source, args), capture_output=True, text=True)
        if result.returncode != 0:
            sys.exit(f"scdoc {name}: {result.stderr.strip()}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(result.stdout)
        pages[name] = path
    if args.check:
        problems = check(pages, args)
        for p in problems:
            print("man:", p, file=sys.stderr)
        if problems:
            sys.exit(1)
        print(f"man: {len(pages)} pages built and checked in {args.out}")


if __name__ == "__main__":
    main()
