"""BENCHMARKS.md from a results dictionary: the machine and peer versions, the targets of
issue 6 (and later issues') with pass/fail, then one table per benchmark (median, min–max)."""

import os
import platform
import subprocess

from harness import version_of


def machine(ctx):
    """CPU, cores, kernel, memory and every peer's version."""
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem_kib = int(f.readline().split()[1])
    try:
        with open("/etc/debian_version") as f:
            debian = f.read().strip()
    except OSError:
        debian = "not Debian"
    socat = version_of(["socat", "-V"])
    socat_lines = subprocess.run(["socat", "-V"], capture_output=True, text=True).stdout.splitlines()
    socat = next((line.strip() for line in socat_lines if "version" in line), socat)
    aiohttp = "skipped (no venv)"
    if ctx.venv_python:
        aiohttp = version_of([ctx.venv_python, "-c", "import aiohttp; print('aiohttp', aiohttp.__version__)"])
    commit = subprocess.run(["git", "-C", ctx.bench_dir, "describe", "--always", "--dirty"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    return {
        "commit": commit,
        "cpu": model,
        "cores": os.cpu_count(),
        "kernel": platform.release(),
        "memory_gib": round(mem_kib / (1 << 20), 1),
        "debian": debian,
        "versions": {
            "ferry": version_of([os.path.join(ctx.products, "ferry"), "--version"]),
            "swift": version_of(["swift", "--version"]),
            "curl": version_of(["curl", "--version"]),
            "nginx": version_of(["nginx", "-v"]),
            "python": version_of(["/usr/bin/python3", "--version"]),
            "aiohttp": aiohttp,
            "wrk": version_of(["wrk", "--version"]),
            "hyperfine": version_of(["hyperfine", "--version"]),
            "socat": socat,
            "openssl": version_of(["openssl", "version"]),
        },
    }


def targets(r):
    """Issues 6, 27 and 29's targets, judged on medians. `pass` is None when a figure is missing."""
    out = []

    def add(what, target, value, ok, fmt="{:.2f}×"):
        out.append({"what": what, "target": target,
                    "measured": fmt.format(value) if value is not None else "not measured",
                    "pass": None if value is None else ok(value)})

    for scheme in ("http", "https") if "b1" in r else ():
        ratios = r["b1"]["protocols"][scheme]["ratios"]
        # Issue 29: the engine alone (bench/engine/engine.c) is the ceiling; aim for 0.8 of it.
        # It also raised issue 6's 1.2× curl and 2.5× aiohttp to 1.3× and 3×.
        for peer, need in (("engine", 0.8), ("curl", 1.3), ("aiohttp", 3)):
            value = ratios.get(f"ferryd/{peer}", {}).get("median")
            add(f"B1 {scheme}: ferryd / {peer} throughput", f"≥ {need}×", value, lambda v, n=need: v >= n)
    # Issue 27: the client libraries on B1's workload.
    for scheme in ("http", "https") if "b9" in r else ():
        ratios = r["b9"]["protocols"][scheme]["ratios"]
        for pair, need in (("ferry-python/aiohttp", 2), ("ferry-kit/ferry-bench-client-base64", 0.9)):
            value = ratios.get(pair, {}).get("median")
            library, peer = pair.split("/")
            add(f"B9 {scheme}: {library} / {peer} throughput", f"≥ {need}×", value, lambda v, n=need: v >= n)
    if "b4" in r:
        b4_targets(r["b4"], add)
    if "b2" not in r:
        return out  # a B1-, B4- or B9-only run (--only-b1, --only-b4, --only-b9)
    for name in ("ferry get", "socat"):
        value = r["b2"]["ratios"][f"{name}/curl"]["median"]
        add(f"B2 https one-shot: {name} / curl wall time", "≤ 0.5×", value, lambda v: v <= 0.5)
    for key, transfer in r["b3"]["transfers"].items():
        add(f"B3 {key}: ferryd / curl throughput", "≥ 0.9×", transfer["ratio"]["median"], lambda v: v >= 0.9)
    growth = r["b3"]["hwm_growth_kib"] / 1024
    add("B3 daemon peak RSS growth over all transfers", "≤ 32 MiB", growth, lambda v: v <= 32, "{:.1f} MiB")
    if "b6" in r:
        b6 = r["b6"]
        acks = b6["rows"]["durable normal"]["acks_per_s"]["median"]
        add("B6 durable jobs acknowledged per second, journal.sync normal", "≥ 10 000/s", acks,
            lambda v: v >= 10_000, "{:,.0f}/s")
        start = b6["first_transfer_ms"]["max"]
        add(f"B6 start to the first resumed transfer with {b6['resume_jobs']:,} jobs journaled (max)", "≤ 1 000 ms",
            start, lambda v: v <= 1000, "{:.0f} ms")
    if "b7" in r:
        b7 = r["b7"]
        value = b7.get("ratio_output_fd", {}).get("median")
        size = f"{b7['bytes'] / (1 << 20):,.0f} MiB"
        add(f"B7 {size} into a passed file descriptor (`output_fd`): ferryd / curl -o throughput", "≥ 0.9×", value,
            lambda v: v >= 0.9)
        add("B7 daemon RSS growth during the descriptor and stream downloads", "≤ 16 MiB",
            b7["rss_growth_kib"] / 1024, lambda v: v <= 16, "{:.1f} MiB")
    if "b8" in r:
        value = r["b8"]["cpu_ratio_hit_fetch"]["median"]
        add("B8 a cache hit against the same GET fetched: ferryd CPU per job, hit / fetch", "< 1×", value,
            lambda v: v < 1)
    return out


def b4_targets(b4, add):
    """B4's rows: the memory of jobs queued at once, and idle connections that all answer."""
    peak = b4["peak_rss_mib"]["max"]
    add(f"B4 {b4['jobs']} jobs at once: daemon peak RSS (max of runs)", "≤ 128 MiB", peak,
        lambda v: v <= 128, "{:.1f} MiB")
    if "large_jobs" in b4:
        # Issue 29's aims for a queued job's memory: little more than its line.
        add(f"B4 {b4['jobs']} jobs at once: peak RSS, issue 29's aim", "≤ 32 MiB", peak,
            lambda v: v <= 32, "{:.1f} MiB")
        large = b4["large_peak_rss_mib"]["max"]
        add(f"B4 {b4['large_jobs']} jobs at once: daemon peak RSS (max of runs)", "≤ 160 MiB", large,
            lambda v: v <= 160, "{:.1f} MiB")
    # A connection without its pong stops the run (BenchError), so reaching here means all.
    n = b4["connections"]
    add(f"B4 {n} idle client connections at once, each answers a ping", f"all {n}", n, lambda v: True,
        "all {}")


def fmt(s, unit="", digits=0, scale=1.0):
    """`median (min–max)` of a summary."""
    if not s or s.get("median") is None:
        return "—"
    f = f"{{:,.{digits}f}}"
    return (f"{f.format(s['median'] * scale)}{unit} ({f.format(s['min'] * scale)}–"
            f"{f.format(s['max'] * scale)})")


def header(r):
    m = r["machine"]
    busy = max(float(r["load_start"].split()[0]), float(r["load_end"].split()[0])) > 0.5
    during = ", ".join(f"{k} {v.split()[0]}" for k, v in r.get("loads", {}).items())
    lines = [
        "# ferry benchmarks",
        "",
        f"Written by bench/run.py (`make bench`) on {r['started']}; how to run it and what each row "
        "means: [bench/README.md](bench/README.md). Each figure is the median of "
        f"{r['settings']['reps']} runs with the min–max in brackets; ratios are taken pair by pair "
        "within each run (the tools alternate their order), then the median of those ratios.",
        "",
        f"- ferry commit: {m['commit']}",
        f"- Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB, kernel {m['kernel']}, "
        f"Debian {m['debian']}",
        f"- Load average (1, 5, 15 min) at start: {r['load_start']}; at end: {r['load_end']}; "
        f"1 min at the start of each benchmark: {during}. "
        + ("Other work shared the cores during this run, so absolute figures are noisy; the "
           "pairwise ratios less so." if busy else "The machine was otherwise idle."),
        f"- Run time: {r['seconds']:.0f} s; descriptor limit {r['nofile']}",
        "",
        "| peer | version |",
        "|---|---|",
    ]
    lines += [f"| {k} | {v} |" for k, v in m["versions"].items()]
    lines += ["", "## Targets (issues 6, 27 and 29)", "", "| target | need | measured (median) | result |",
              "|---|---|---|---|"]
    for t in r["targets"]:
        verdict = {True: "pass", False: "**FAIL**", None: "—"}[t["pass"]]
        lines.append(f"| {t['what']} | {t['target']} | {t['measured']} | {verdict} |")
    return lines


def b1_tables(r):
    b1 = r["b1"]
    lines = ["", f"## B1 throughput: {b1['n']:,} small GETs, ≤ {b1['in_flight']} in flight", ""]
    if b1["skipped"]:
        lines += [f"Skipped (not installed): {', '.join(b1['skipped'])}.", ""]
    lines += ["| protocol | client | HTTP version | requests/s | ferryd ÷ client | client CPU µs per request |",
              "|---|---|---|---|---|---|"]
    for scheme, p in b1["protocols"].items():
        for tool, t in p["tools"].items():
            if tool in ("ferryd-deep", "engine-deep", "base", "base-deep"):
                continue
            ratio = "—" if tool == "ferryd" else fmt(p["ratios"].get(f"ferryd/{tool}"), "×", 2)
            lines.append(f"| {scheme} | {tool} | {p['http_versions'].get(tool)} | {fmt(t['rps'])} | {ratio} | "
                         f"{fmt(t['cpu_us_per_request'], '', 1)} |")
    for scheme, p in b1["protocols"].items():
        for tool, t in p["tools"].items():
            if t.get("errors"):
                lines += ["", f"{tool} over {scheme} reported: {'; '.join(t['errors'])}."]
    lines += ["", "*Client CPU per request*: user + sys of the client processes over the run, divided by the "
              "requests (for ferryd: the daemon and ferry-bench-client together; for wrk, over its "
              "duration). *engine* is the engine alone (issue 29, bench/engine/engine.c): libevent "
              "driving libcurl's multi_socket API with ferryd's curl options, no client, no job lines, "
              "bodies discarded; the ceiling of a daemon built on the two."]
    lines += ["", "ferryd's CPU per job and the bench client's CPU share (client CPU ÷ wall time; "
              "well under 1 means the client is not the limit):", "",
              "| protocol | ferryd CPU µs per job | bench client CPU share |", "|---|---|---|"]
    for scheme, p in b1["protocols"].items():
        f = p["tools"]["ferryd"]
        lines.append(f"| {scheme} | {fmt(f['cpu_us_per_job'], '', 1)} | {fmt(f['client_cpu_share'], '', 2)} |")
    lines += deep_queue_table(b1)
    lines += baseline_table(b1)
    return lines


def baseline_table(b1):
    """With --baseline: this build's ferryd against the baseline's, same repetitions."""
    if not b1.get("baseline"):
        return []
    lines = ["", f"Before/after: this build against the baseline ({b1['baseline']}), each with its own "
             "daemon and bench client, in the same repetitions:", "",
             "| protocol | in flight | this build req/s | baseline req/s | this ÷ baseline | "
             "this CPU µs/job | baseline CPU µs/job |", "|---|---|---|---|---|---|---|"]
    for scheme, p in b1["protocols"].items():
        rows = [("ferryd", "base", b1["in_flight"]), ("ferryd-deep", "base-deep", b1["deep_window"])]
        for new, old, window in rows:
            n, o = p["tools"].get(new), p["tools"].get(old)
            if not n or not o:
                continue
            lines.append(f"| {scheme} | {window:,} | {fmt(n['rps'])} | {fmt(o['rps'])} | "
                         f"{fmt(p['ratios'].get(f'{new}/{old}'), '×', 2)} | {fmt(n['cpu_us_per_job'], '', 1)} | "
                         f"{fmt(o['cpu_us_per_job'], '', 1)} |")
    base_deep = b1["protocols"].get("http", {}).get("ratios", {}).get("base-deep/shallow")
    if base_deep:
        lines += ["", f"Baseline deep ÷ shallow (http): {fmt(base_deep, '×', 2)}."]
    return lines


def deep_queue_table(b1):
    """ferryd with most jobs waiting for a slot against the shallow window, same repetitions."""
    p = b1["protocols"].get("http", {})
    deep = p.get("tools", {}).get("ferryd-deep")
    if not deep:
        return []
    shallow = p["tools"]["ferryd"]
    engine = p["tools"].get("engine-deep")
    engine_row = [] if not engine else [
        f"| engine alone, {min(b1['deep_window'], 64)} transfers at once (the session's slots; it has no queue) | "
        f"{fmt(engine['rps'])} | deep ÷ this: {fmt(p['ratios'].get('ferryd-deep/engine-deep'), '×', 2)} | — |"]
    return ["", f"Deep queue (http): the same jobs with ≤ {b1['deep_window']:,} in flight, so all past the "
            "default session's 64 slots wait for one (issue 11 aims for deep ÷ shallow ≥ 0.90):", "",
            "| in flight | requests/s | deep ÷ shallow | ferryd CPU µs per job |", "|---|---|---|---|",
            f"| {b1['in_flight']} | {fmt(shallow['rps'])} | — | {fmt(shallow['cpu_us_per_job'], '', 1)} |",
            f"| {b1['deep_window']:,} | {fmt(deep['rps'])} | {fmt(p['ratios'].get('deep/shallow'), '×', 2)} | "
            f"{fmt(deep['cpu_us_per_job'], '', 1)} |"] + engine_row


def b2_b3_tables(r):
    b2, b3 = r["b2"], r["b3"]
    lines = ["", "## B2 one-shot from a shell (HTTPS, warm daemon)", "",
             f"Timed by {b2['timer']}: {b2['rounds']} rounds of {b2['runs_per_round']} runs per command "
             "(after warm-up runs), median of each round.", "",
             "| command | wall ms | ÷ curl |", "|---|---|---|"]
    labels = {"ferry get": "`ferry get URL`", "socat": "`echo JOB \\| socat - UNIX-CONNECT:SOCK`",
              "curl": "`curl -s --cacert CA URL`"}
    for name, s in b2["ms"].items():
        ratio = fmt(b2["ratios"].get(f"{name}/curl"), "×", 2) if name != "curl" else "—"
        lines.append(f"| {labels[name]} | {fmt(s, '', 2)} | {ratio} |")
    mib = b3["bytes"] / (1 << 20)
    lines += ["", f"## B3 large transfers: {mib:.0f} MiB", "",
              "| transfer | HTTP version (ferryd / curl) | ferryd MiB/s | curl MiB/s | ferryd ÷ curl |",
              "|---|---|---|---|---|"]
    for key, t in b3["transfers"].items():
        v = t["http_versions"]
        lines.append(f"| {key} | {v.get('ferryd')} / {v.get('curl')} | {fmt(t['mib_s']['ferryd'])} | "
                     f"{fmt(t['mib_s']['curl'])} | {fmt(t['ratio'], '×', 2)} |")
    lines += ["", f"Daemon peak RSS (VmHWM): {b3['hwm_before_kib'] / 1024:.1f} MiB before the transfers, "
              f"{b3['hwm_after_kib'] / 1024:.1f} MiB after: growth {b3['hwm_growth_kib'] / 1024:.1f} MiB."]
    return lines


def b4_b5_tables(r):
    return b4_table(r) + b5_table(r)


def b4_table(r):
    b4 = r["b4"]
    return [
        "", f"## B4 scale ({b4['reps']} runs, a fresh daemon each)", "",
        "| measure | value |", "|---|---|",
        f"| {b4['jobs']:,} jobs at once, `max_concurrent` {b4['max_concurrent']}: all done, seconds | "
        f"{fmt(b4['burst_seconds'], '', 2)} |",
        f"| … jobs/s | {fmt(b4['burst_jobs_per_s'])} |",
        f"| … daemon peak RSS (VmHWM), MiB | {fmt(b4['peak_rss_mib'], '', 1)} |",
    ] + ([
        f"| {b4['large_jobs']:,} jobs at once, a daemon of their own: all done, seconds | "
        f"{fmt(b4['large_burst_seconds'], '', 2)} |",
        f"| … daemon peak RSS (VmHWM), MiB | {fmt(b4['large_peak_rss_mib'], '', 1)} |",
    ] if "large_jobs" in b4 else []) + [
        f"| {b4['connections']:,} idle connections open: daemon RSS, MiB | "
        f"{fmt(b4['rss_with_connections_mib'], '', 1)} |",
        f"| … a ping on each: all {b4['connections']:,} pongs, ms | {fmt(b4['all_pongs_ms'], '', 1)} |",
    ]


def b5_table(r):
    b5 = r["b5"]
    b1 = r["b1"]["protocols"]
    cpu = {k: fmt(b1[k]["tools"]["ferryd"]["cpu_us_per_job"], " µs", 1) for k in b1}
    return [
        "", "## B5 footprint", "",
        "| measure | value |", "|---|---|",
        f"| idle RSS of a fresh ferryd | {b5['idle_rss_start_kib'] / 1024:.1f} MiB |",
        f"| idle RSS after B1 (its peak: {b5['hwm_after_b1_kib'] / 1024:.1f} MiB) | "
        f"{b5['idle_rss_after_b1_kib'] / 1024:.1f} MiB |",
        f"| CPU per job in B1 over HTTP/1.1 (user + sys) | {cpu['http']} |",
        f"| CPU per job in B1 over HTTPS (user + sys) | {cpu['https']} |",
    ] + [
        # ferryd runs every job on one thread: one core's worth of CPU per job is its ceiling.
        f"| one-core ceiling this implies over {name} (10⁶ ÷ median µs per job) | {ceiling(b1[key])} |"
        for key, name in (("http", "HTTP/1.1"), ("https", "HTTPS"))
    ]


def b6_table(r):
    b6 = r.get("b6")
    if not b6:
        return []
    lines = [
        "", f"## B6 durable jobs ({b6['clients']} clients; a fresh daemon and journal each run)", "",
        f"Acknowledged: each client sends {b6['jobs']:,} jobs at once to a session with one slot (the rest "
        "wait), timed until every `queued`. Whole jobs: the same number each, "
        f"{b6['window']} in flight, to a closed loopback port (every record of a job's life journaled). "
        "Ping: another client's round trip meanwhile, p99.", "",
        "| jobs | acknowledged/s | CPU µs per ack | whole jobs/s | CPU µs per job | bystander ping p99, ms |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in b6["rows"].items():
        lines.append(
            f"| {name} | {fmt(row['acks_per_s'])} | {fmt(row['cpu_us_per_ack'], '', 1)} | {fmt(row['jobs_per_s'])} | "
            f"{fmt(row['cpu_us_per_job'], '', 1)} | {fmt(row['ping_p99_ms'], '', 1)} |")
    lines += ["", f"Start of a daemon with {b6['resume_jobs']:,} jobs journaled to its first resumed transfer: "
              f"{fmt(b6['first_transfer_ms'], ' ms')}."]
    return lines


def b7_table(r):
    b7, up = r.get("b7"), r.get("b7_upload")
    if not b7:
        return []
    mib = b7["bytes"] / (1 << 20)
    labels = {"output_fd": "`output_fd`: into a file passed with the job line (`ferry get URL > file`)",
              "stream_raw": "`response: stream`: `data` events read without decoding them",
              "stream": "`response: stream`: a Python client decoding every event's base64",
              "output": "`output` path (B3's way)", "curl": "`curl -o FILE`"}
    lines = ["", f"## B7 descriptors and streams: {mib:,.0f} MiB over HTTP/1.1 ({b7['reps']} runs)", "",
             "| download | MiB/s | ÷ curl -o in the same run |", "|---|---|---|"]
    for tool, s in b7["mib_s"].items():
        ratio = "—" if tool == "curl" else fmt(b7.get(f"ratio_{tool}"), "×", 2)
        lines.append(f"| {labels.get(tool, tool)} | {fmt(s)} | {ratio} |")
    lines += ["", f"Daemon RSS: {b7['rss_before_kib'] / 1024:.1f} MiB before the downloads; the highest of "
              f"VmHWM after and VmRSS sampled every 10 ms during them: +{b7['rss_growth_kib'] / 1024:.1f} MiB."]
    if up:
        lines += ["", f"Upload of {up['bytes'] / (1 << 20):,.0f} MiB from a piped stdin to the fixture's `/echo` "
                  f"({up['reps']} runs, alternating):", "",
                  "| upload | MiB/s | ferry ÷ curl |", "|---|---|---|",
                  f"| `head -c N /dev/zero \\| ferry put URL` (stdin passed as a descriptor) | "
                  f"{fmt(up['mib_s']['ferry'])} | {fmt(up['ratio'], '×', 2)} |",
                  f"| `head -c N /dev/zero \\| curl -T - URL` | {fmt(up['mib_s']['curl'])} | — |"]
    return lines


def b8_table(r):
    b8 = r.get("b8")
    if not b8:
        return []
    labels = {"fetch": "fetched (a session without a cache)", "hit": "a cache hit (fresh entry: no request)",
              "revalidate": "revalidated (`no-cache` entry: every job a 304)"}
    lines = ["", f"## B8 the HTTP cache: {b8['jobs']:,} GETs of one URL, {b8['window']} in flight "
             f"({b8['reps']} runs)", "", "| jobs | jobs/s | ferryd CPU µs/job |", "|---|---|---|"]
    for run in ("fetch", "hit", "revalidate"):
        lines.append(f"| {labels[run]} | {fmt(b8['jobs_per_s'][run])} | {fmt(b8['cpu_us_per_job'][run], '', 1)} |")
    lines += ["", f"A hit ÷ a fetch, per run: ferryd CPU {fmt(b8['cpu_ratio_hit_fetch'], '×', 2)}, "
              f"jobs/s {fmt(b8['rate_ratio_hit_fetch'], '×', 2)}."]
    return lines


def b9_table(r):
    b9 = r.get("b9")
    if not b9:
        return []
    lines = ["", f"## B9 client libraries (issue 27): {b9['n']:,} small GETs, ≤ {b9['in_flight']} in flight", "",
             "B1's workload through the Python library's `AsyncClient` (*ferry-python*) and FerryKit's "
             "`FerryClient.data(for:)` (*ferry-kit*: ferry-bench-kit), against aiohttp and ferry-bench-client "
             "(the same daemon, no library; *-base64*: asking for the body in `done` as base64, as "
             "both libraries do, where B1's discards it), one warm ferryd, the clients in rotated order.", ""]
    if b9["skipped"]:
        lines += [f"Skipped (not installed): {', '.join(b9['skipped'])}.", ""]
    peers = ("aiohttp", "ferry-bench-client", "ferry-bench-client-base64")
    lines += ["| protocol | client | HTTP version | requests/s | ÷ aiohttp | ÷ ferry-bench-client | "
              "÷ ferry-bench-client-base64 | client CPU µs per request | ferryd CPU µs per request |",
              "|---|---|---|---|---|---|---|---|---|"]
    for scheme, p in b9["protocols"].items():
        for tool, t in p["tools"].items():
            ratios = [fmt(p["ratios"].get(f"{tool}/{peer}"), "×", 2) for peer in peers]
            lines.append(f"| {scheme} | {tool} | {p['http_versions'].get(tool)} | {fmt(t['rps'])} | "
                         f"{' | '.join(ratios)} | {fmt(t['cpu_us_per_request'], '', 1)} | "
                         f"{fmt(t['daemon_cpu_us_per_request'], '', 1)} |")
    lines += ["", "*Client CPU per request*: user + sys of the client's processes (rusage) over the run ÷ "
              "requests; for the ferry rows ferryd's CPU over the same run is beside it (/proc), since that "
              "work is the client's own on the aiohttp row. A library's own cost per job, its client CPU "
              "per request less that of ferry-bench-client-base64 (the same daemon work) in the same "
              "repetition:",
              "", "| protocol | ferry-python, µs per job | ferry-kit, µs per job |", "|---|---|---|"]
    for scheme, p in b9["protocols"].items():
        over = p["overhead_us_per_request"]
        lines.append(f"| {scheme} | {fmt(over.get('ferry-python'), '', 1)} | {fmt(over.get('ferry-kit'), '', 1)} |")
    return lines


def ceiling(protocol):
    cpu = protocol["tools"]["ferryd"]["cpu_us_per_job"]["median"]
    return f"{1e6 / cpu:,.0f} jobs/s" if cpu else "—"


def notes():
    """bench/NOTES.md, when present: what limits a missed target (kept across regenerations)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "NOTES.md")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return ["", "## Notes", "", f.read().strip()]


def markdown(r):
    lines = header(r) + (b1_tables(r) if "b1" in r else [])
    if "b2" in r:
        lines += b2_b3_tables(r) + b4_b5_tables(r) + b6_table(r) + b7_table(r) + b8_table(r)
    elif "b4" in r:
        lines += b4_table(r)
    lines += b9_table(r)
    lines += notes()
    if r["smoke"]:
        lines.insert(1, "\n**Smoke run: tiny sizes, one run each; not a measurement.**")
    return "\n".join(lines) + "\n"
