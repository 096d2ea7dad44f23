"""B3 large transfers: a download streamed to a file (`output`) against `curl -o`, and a file
sent as a multipart part against `curl -F`, over HTTP/1.1 and HTTPS, on a fresh daemon whose
peak RSS (VmHWM) is read before and after.

Files live in a tmpfs directory when /dev/shm has room, so the disk is not what is measured.
nginx's /upload reads the whole body before it answers (see bench/nginx.conf)."""

import os

from harness import BenchError, rotated, summary, terminal, timed

TOOLS = ["ferryd", "curl"]


def ferry_download(ctx, daemon, url, path):
    events, seconds = daemon.request({"url": url, "output": path, "events": []})
    done = terminal(events)
    if done.get("bytes") != ctx.b3_bytes:
        raise BenchError(f"ferryd download wrote {done.get('bytes')} bytes")
    return seconds, done.get("http_version")


def curl_download(ctx, scheme, url, path):
    cmd = ["curl", "-s", "-o", path, "-w", "%{http_code} %{size_download} %{http_version}", url]
    if scheme == "https":
        cmd += ["--cacert", ctx.nginx.ca]
    seconds, out, _ = timed(cmd)
    code, size, version = out.split()
    if code != "200" or int(size) != ctx.b3_bytes:
        raise BenchError(f"curl download: {out}")
    return seconds, version


def ferry_upload(ctx, daemon, url, source):
    job = {"method": "POST", "url": url, "events": [], "response": "text",
           "parts": [{"name": "file", "file": source, "filename": "upload.bin"}]}
    events, seconds = daemon.request(job)
    done = terminal(events)
    if done.get("status") != 200 or done.get("body") != "ok\n":
        raise BenchError(f"ferryd upload: {str(done)[:300]}")
    return seconds, done.get("http_version")


def curl_upload(ctx, scheme, url, source):
    cmd = ["curl", "-s", "-o", "/dev/null", "-F", f"file=@{source};filename=upload.bin",
           "-w", "%{http_code} %{size_upload} %{http_version}", url]
    if scheme == "https":
        cmd += ["--cacert", ctx.nginx.ca]
    seconds, out, _ = timed(cmd)
    code, size, version = out.split()
    if code != "200" or int(size) < ctx.b3_bytes:
        raise BenchError(f"curl upload: {out}")
    return seconds, version


def one(ctx, daemon, direction, scheme, tool, files):
    """One transfer; returns (MiB/s, HTTP version)."""
    if direction == "download":
        url = ctx.nginx.url(scheme, "/big")
        target = os.path.join(files, f"{tool}.out")
        if tool == "ferryd":
            seconds, version = ferry_download(ctx, daemon, url, target)
        else:
            seconds, version = curl_download(ctx, scheme, url, target)
        os.unlink(target)
    else:
        url = ctx.nginx.url(scheme, "/upload")
        source = os.path.join(files, "upload.bin")
        if tool == "ferryd":
            seconds, version = ferry_upload(ctx, daemon, url, source)
        else:
            seconds, version = curl_upload(ctx, scheme, url, source)
    return ctx.b3_bytes / (1 << 20) / seconds, version


def run(ctx, daemon, files):
    """All of B3 on a fresh `daemon`; `files` is the directory for outputs and the upload."""
    with open(os.path.join(files, "upload.bin"), "wb") as f:
        f.write(os.urandom(1 << 20) * (ctx.b3_bytes >> 20))
    # One small job first, so the baseline includes what any first job allocates.
    terminal(daemon.request({"url": ctx.nginx.url("http", "/small"), "events": []})[0])
    # The first read of the sparse /big fills the page cache; whoever ran first would pay it.
    timed(["curl", "-s", "-o", "/dev/null", ctx.nginx.url("http", "/big")])
    hwm_before = daemon.hwm_kib()
    section = {"bytes": ctx.b3_bytes, "reps": ctx.reps, "files": files, "transfers": {}}
    for direction in ("download", "upload"):
        for scheme in ("http", "https"):
            speeds = {t: [] for t in TOOLS}
            versions = {}
            for rep in range(ctx.reps):
                for tool in rotated(TOOLS, rep):
                    ctx.log(f"B3 {direction} {scheme} rep {rep + 1}/{ctx.reps}: {tool}")
                    speed, version = one(ctx, daemon, direction, scheme, tool, files)
                    speeds[tool].append(speed)
                    versions.setdefault(tool, version)
            section["transfers"][f"{direction} {scheme}"] = {
                "http_versions": versions,
                "mib_s": {t: summary(v) for t, v in speeds.items()},
                "ratio": summary([f / c for f, c in zip(speeds["ferryd"], speeds["curl"])]),
            }
    os.unlink(os.path.join(files, "upload.bin"))
    section["hwm_before_kib"] = hwm_before
    section["hwm_after_kib"] = daemon.hwm_kib()
    section["hwm_growth_kib"] = section["hwm_after_kib"] - hwm_before
    return section
