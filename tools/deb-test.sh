#!/usr/bin/env bash
# The Debian package as an administrator meets it (make deb-test; root): install it on this
# machine, check what it put where, run the installed ferryd under systemd-socket-activate as
# the socket unit would and send it a job with the installed ferry, edit the conffile, upgrade to
# a rebuilt package (the same files under a higher version) and check that the edit survived,
# then purge and check that nothing is left. An /etc/ferry that was here before is put back.
#
# Usage: tools/deb-test.sh PACKAGE.deb
set -euo pipefail
deb=$(readlink -f "$1")
work=$(mktemp -d "${TMPDIR:-/tmp}/ferry-deb-test.XXXXXX")
pids=""
fail() { echo "deb-test: FAIL: $*" >&2; exit 1; }
note() { echo "deb-test: $*"; }
if [ -e /etc/ferry ]; then cp -a /etc/ferry "$work/etc-ferry.saved"; rm -rf /etc/ferry; fi
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done
  if dpkg-query -W -f='${Status}' ferry 2>/dev/null | grep -q installed; then
    DEBIAN_FRONTEND=noninteractive dpkg --purge ferry >/dev/null 2>&1 || true
  fi
  if [ -e "$work/etc-ferry.saved" ]; then rm -rf /etc/ferry; cp -a "$work/etc-ferry.saved" /etc/ferry; fi
  rm -rf "$work"
}
trap cleanup EXIT
dpkg-query -W -f='${Status}' ferry 2>/dev/null | grep -q "ok installed" && fail "ferry is already installed here"

# Install, as apt would (its dependencies are Debian's libraries, already here for the build).
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" > "$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "apt-get install"; }
for f in /usr/bin/ferryd /usr/bin/ferry /lib/systemd/system/ferryd.service /lib/systemd/system/ferryd.socket /lib/systemd/system/ferryd-metrics.socket \
  /usr/lib/sysusers.d/ferry.conf /usr/share/man/man1/ferry.1.gz /usr/share/man/man8/ferryd.8.gz \
  /usr/share/man/man5/ferry.json.5.gz /usr/share/man/man7/ferry-protocol.7.gz /usr/share/doc/ferry/README.md.gz; do
  [ -e "$f" ] || fail "$f is not installed"
done
getent group ferry > /dev/null || fail "no ferry group"
[ -L /etc/systemd/system/sockets.target.wants/ferryd.socket ] || fail "ferryd.socket is not enabled"
[ -e /etc/systemd/system/multi-user.target.wants/ferryd.service ] && fail "ferryd.service is enabled by itself"
[ -e /etc/systemd/system/sockets.target.wants/ferryd-metrics.socket ] && fail "ferryd-metrics.socket is enabled"
dpkg-query -W -f='${Conffiles}' ferry | grep -q "/etc/ferry/ferry.json" || fail "ferry.json is no conffile"
grep -q '^ExecStart=/usr/bin/ferryd ' /lib/systemd/system/ferryd.service || fail "the unit does not run /usr/bin/ferryd"
readelf -d /usr/bin/ferryd | grep -q 'libswift' && fail "ferryd links the Swift runtime dynamically"
readelf -d /usr/bin/ferryd | grep -i 'r.*path' | grep -q '\.build' && fail "ferryd has a RUNPATH into the build tree"
man -w ferry > /dev/null && man -w 8 ferryd > /dev/null && man -w 5 ferry.json > /dev/null || fail "man finds no page"
/usr/bin/ferryd --config /etc/ferry/ferry.json --check-config > /dev/null || fail "the packaged config is not valid"
note "installed: $(/usr/bin/ferryd --version), $(dpkg-query -W -f='${Depends}' ferry)"

# A loopback origin, and the installed daemon started by its socket as systemd would start it.
python3 - "$work" > "$work/origin.port" <<'PY' &
import http.server, sys, threading
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b'{"packaged":true}'
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
print(s.server_address[1], flush=True)
s.serve_forever()
PY
pids="$pids $!"
for _ in $(seq 50); do [ -s "$work/origin.port" ] && break; sleep 0.1; done
port=$(cat "$work/origin.port")
mkdir -p "$work/state"
STATE_DIRECTORY="$work/state" systemd-socket-activate -l "$work/ferryd.sock" \
  /usr/bin/ferryd --config /etc/ferry/ferry.json > "$work/ferryd.log" 2>&1 &
pids="$pids $!"
for _ in $(seq 50); do [ -S "$work/ferryd.sock" ] && break; sleep 0.1; done
body=$(/usr/bin/ferry --socket "$work/ferryd.sock" get "http://127.0.0.1:$port/x") ||
  { cat "$work/ferryd.log"; fail "ferry get through the installed daemon"; }
[ "$body" = '{"packaged":true}' ] || fail "unexpected body: $body"
note "a job through the installed ferryd and ferry: $body"

# The administrator edits the conffile; an upgrade keeps the edit.
sed -i 's/"log_level": "info"/"log_level": "notice"/' /etc/ferry/ferry.json
grep -q '"log_level": "notice"' /etc/ferry/ferry.json || fail "could not edit the conffile"
dpkg-deb -R "$deb" "$work/rebuilt"
sed -i 's/^Version: \(.*\)$/Version: \1+rebuilt1/' "$work/rebuilt/DEBIAN/control"
dpkg-deb --root-owner-group -b "$work/rebuilt" "$work/ferry-rebuilt.deb" > /dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o Dpkg::Options::=--force-confold \
  "$work/ferry-rebuilt.deb" > "$work/upgrade.log" 2>&1 || { cat "$work/upgrade.log"; fail "upgrade"; }
dpkg-query -W -f='${Version}' ferry | grep -q 'rebuilt1' || fail "the upgrade did not happen"
grep -q '"log_level": "notice"' /etc/ferry/ferry.json || fail "the upgrade lost the edited conffile"
note "upgraded to $(dpkg-query -W -f='${Version}' ferry), the edited conffile kept"

# Purge: nothing of the package is left (the ferry group stays, as Debian keeps system groups).
DEBIAN_FRONTEND=noninteractive dpkg --purge ferry > "$work/purge.log" 2>&1 || { cat "$work/purge.log"; fail "purge"; }
for f in /usr/bin/ferryd /usr/bin/ferry /etc/ferry /lib/systemd/system/ferryd.service \
  /lib/systemd/system/ferryd.socket /etc/systemd/system/sockets.target.wants/ferryd.socket \
  /usr/lib/sysusers.d/ferry.conf /usr/share/doc/ferry /usr/share/man/man1/ferry.1.gz; do
  [ -e "$f" ] || [ -L "$f" ] && fail "$f is left after purge"
done
dpkg-query -W ferry > /dev/null 2>&1 && dpkg-query -W -f='${Status}' ferry | grep -qv "not-installed" &&
  fail "dpkg still knows ferry: $(dpkg-query -W -f='${Status}' ferry)"
note "purged, nothing left"
echo "deb-test: 1 passed, 0 failed"
