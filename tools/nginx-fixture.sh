#!/usr/bin/env bash
# A private loopback nginx for tests and benchmarks: plain HTTP/1.1 on one port, HTTPS with
# HTTP/2 on another, a self-signed certificate for localhost and 127.0.0.1.
#
#   tools/nginx-fixture.sh start DIR   → prints "http_port=N https_port=M ca=DIR/cert.pem"
#   tools/nginx-fixture.sh stop DIR
#
# Everything lives in DIR (config, certificate, logs, pid, document root); nothing outside it is
# touched, and nginx listens on 127.0.0.1 only.
set -euo pipefail
cmd=${1:?start|stop}
dir=${2:?directory}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
nginx=$(command -v nginx || echo /usr/sbin/nginx)

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

case "$cmd" in
start)
  if [ ! -f "$dir/cert.pem" ]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
      -subj /CN=localhost -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \
      -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
  fi
  mkdir -p "$dir/root" "$dir/tmp"
  printf 'hello from nginx\n' >"$dir/root/small"
  printf '{"ok":true,"n":12345678901234567890}\n' >"$dir/root/small.json"
  [ -f "$dir/root/big" ] || truncate -s "${NGINX_BIG_BYTES:-268435456}" "$dir/root/big"
  http_port=$(free_port)
  https_port=$(free_port)
  cat >"$dir/nginx.conf" <<CONF
worker_processes 1;
daemon on;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  client_max_body_size 0;
  default_type application/octet-stream;
  types { application/json json; text/plain txt; }
  server {
    listen 127.0.0.1:$http_port;
    root $dir/root;
    location = /upload { client_body_buffer_size 1m; return 200 "ok\n"; }
  }
  server {
    listen 127.0.0.1:$https_port ssl http2;
    ssl_certificate $dir/cert.pem;
    ssl_certificate_key $dir/key.pem;
    root $dir/root;
    location = /upload { client_body_buffer_size 1m; return 200 "ok\n"; }
  }
}
CONF
  # nginx daemonizes: keep its output off our stdout, or a caller reading it to the end waits
  # for the daemon's lifetime.
  "$nginx" -c "$dir/nginx.conf" -p "$dir" -e "$dir/error.log" </dev/null >>"$dir/error.log" 2>&1
  for _ in $(seq 1 100); do
    [ -s "$dir/nginx.pid" ] && break
    sleep 0.05
  done
  echo "http_port=$http_port https_port=$https_port ca=$dir/cert.pem"
  ;;
stop)
  if [ -s "$dir/nginx.pid" ]; then
    kill "$(cat "$dir/nginx.pid")" 2>/dev/null || true
    for _ in $(seq 1 100); do
      [ -e "$dir/nginx.pid" ] || break
      sleep 0.05
    done
  fi
  ;;
*)
  echo "usage: $0 start|stop DIR" >&2
  exit 2
  ;;
esac
