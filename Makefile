# ferry: build, run and test. `make run` and `make test` are the whole set-up on a fresh Debian 12.
SWIFT ?= swift
PREFIX ?= /usr/local
CONFIG ?= config/ferry.json
# Debian packages the build and the tests need. libsqlite3-dev is the durable journal's store
# (FerryStore). media-types gives /etc/mime.types. curl, wrk,
# hyperfine and python3(-venv) are the benchmark's peers and driver (make bench, bench-smoke).
# nodejs runs the HTTP Caching Tests (tools/cache-tests) against ferryd's cache.
DEPS := libevent-dev libcurl4-openssl-dev libsqlite3-dev media-types socat nginx-light openssl jq \
	curl wrk hyperfine python3 python3-venv nodejs
SWIFTFLAGS := -Xswiftc -warnings-as-errors

.PHONY: deps build build-debug run test lint format examples clean bench bench-smoke install fuzz test-sanitize cache-tests

deps:
	@missing=""; for p in $(DEPS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: deps
	$(SWIFT) build -c release $(SWIFTFLAGS)

build-debug: deps
	$(SWIFT) build $(SWIFTFLAGS)

run: build
	.build/release/ferryd --config $(CONFIG) --announce

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests examples

format:
	$(SWIFT) format format --in-place --recursive Package.swift Sources Tests examples

# The Swift example (examples/swift) depends on FerryKit by path, as a program would.
examples:
	cd examples/swift && $(SWIFT) build $(SWIFTFLAGS)

# Black-box tests run the release binaries (FERRY_PRODUCTS): what ships, at its speed. The
# benchmark smoke runs on the same release products, and the fuzz targets a few seconds each
# from their seeds, and the HTTP Caching Tests against ferryd's cache (at least 95 % of their
# required cases), before the tests, so their summary ends the output.
test: deps lint examples
	$(SWIFT) build -c release $(SWIFTFLAGS)
	$(BENCH) --smoke
	Fuzz/run.sh smoke
	tools/cache-tests/run.sh --check
	$(SWIFT) build --build-tests $(SWIFTFLAGS)
	FERRY_PRODUCTS=$(CURDIR)/.build/release $(SWIFT) test --skip-build

# The HTTP Caching Tests (cache-tests.fyi) against ferryd as a private cache (tools/cache-tests);
# ID=case runs one case and prints its exchanges.
cache-tests: build
	tools/cache-tests/run.sh $(ID)

# libFuzzer targets (Fuzz/, docs/FUZZING.md), one at a time, FUZZ_SECONDS each; fails on a
# crash, whose input lands in Fuzz/artifacts/. The long run: make fuzz FUZZ_SECONDS=600.
FUZZ_SECONDS ?= 60
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) Fuzz/run.sh fuzz

# The test suite under AddressSanitizer (with LeakSanitizer), then ThreadSanitizer: debug builds
# in .build/asan and .build/tsan, black-box tests on the sanitized binaries (Fuzz/sanitize.sh).
test-sanitize: deps
	SWIFT=$(SWIFT) Fuzz/sanitize.sh address
	SWIFT=$(SWIFT) Fuzz/sanitize.sh thread

clean:
	rm -rf .build

# Benchmarks (bench/README.md). The driver is Debian's python3, standard library only; aiohttp,
# pinned in bench/requirements.txt, lives in its own venv. `bench` writes BENCHMARKS.md and exits
# 3 when a target is missed; `bench-smoke` (a few seconds, also run by `test`) never judges
# targets and skips aiohttp when the venv is absent, so it needs nothing beyond DEPS.
PYTHON ?= /usr/bin/python3
BENCH_VENV ?= bench/.venv
BENCH = $(PYTHON) bench/run.py --products $(CURDIR)/.build/release --venv $(BENCH_VENV)

bench: build
	@test -x $(BENCH_VENV)/bin/python || $(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install --quiet --disable-pip-version-check -r bench/requirements.txt
	$(BENCH)

bench-smoke: build
	$(BENCH) --smoke

# Installs the binaries, the config (never over an existing one) and the systemd units.
# PREFIX and DESTDIR as usual; the units' ExecStart is rewritten to $(PREFIX)/bin/ferryd.
DESTDIR ?=
SYSTEMD_DIR ?= /etc/systemd/system
install: build
	install -D -m 0755 .build/release/ferryd $(DESTDIR)$(PREFIX)/bin/ferryd
	install -D -m 0755 .build/release/ferry $(DESTDIR)$(PREFIX)/bin/ferry
	install -d -m 0755 $(DESTDIR)/etc/ferry $(DESTDIR)/etc/ferry/ferry.d
	@if [ -e $(DESTDIR)/etc/ferry/ferry.json ]; then \
	  echo "keeping existing $(DESTDIR)/etc/ferry/ferry.json"; \
	else \
	  install -m 0644 config/ferry.json $(DESTDIR)/etc/ferry/ferry.json; \
	fi
	install -d -m 0755 $(DESTDIR)$(SYSTEMD_DIR)
	sed 's#/usr/local/bin/ferryd#$(PREFIX)/bin/ferryd#' systemd/ferryd.service > $(DESTDIR)$(SYSTEMD_DIR)/ferryd.service
	install -m 0644 systemd/ferryd.socket $(DESTDIR)$(SYSTEMD_DIR)/ferryd.socket
	install -D -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/ferry/README.md
	@if [ -z "$(DESTDIR)" ]; then getent group ferry >/dev/null || groupadd --system ferry; fi
	@echo "installed; start with: systemctl daemon-reload && systemctl enable --now ferryd.socket"
