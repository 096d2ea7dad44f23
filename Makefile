# ferry: build, run and test. `make run` and `make test` are the whole set-up on a fresh Debian 12.
SWIFT ?= swift
PREFIX ?= /usr/local
CONFIG ?= config/ferry.json
# Debian packages the build and the tests need. libsqlite3-dev is the durable journal's store
# (FerryStore). media-types gives /etc/mime.types. python3-jsonschema checks every line of the
# Python library's tests against docs/schema (make test-python). curl, wrk,
# hyperfine and python3(-venv) are the benchmark's peers and driver (make bench, bench-smoke).
# nodejs runs the HTTP Caching Tests (tools/cache-tests) against ferryd's cache. scdoc and
# man-db build and check the manual pages (tools/man/build.py). fish and zsh check and run the
# shell completions (CompletionTests drives bash's, fish's and checks zsh's); tmux runs `ferry top`
# on a terminal in TopTerminalTests. binutils' nm reads ferryd's imports (tools/import-check.py).
DEPS := libevent-dev libhiredis-dev redis-server redis-tools libcurl4-openssl-dev libsqlite3-dev media-types socat nginx-light openssl jq \
	curl wrk hyperfine python3 python3-venv nodejs python3-jsonschema scdoc man-db prometheus \
	fish zsh tmux iproute2 util-linux binutils
SWIFTFLAGS := -Xswiftc -warnings-as-errors

.PHONY: deps build build-debug run test lint format examples clean bench bench-smoke install fuzz test-sanitize \
	cache-tests test-python bench-python man deb deb-test architecture-check

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

# The architecture check (issue 28, docs/ARCHITECTURE.md "The architecture check"), first and
# in about a second: no Glibc in FerryDaemon, no new @unchecked Sendable (each one says why it
# is safe), no usleep in tests, no function over 60 lines or file over 400 in Sources, except
# for tools/architecture-allow.txt's entries, which may only go. Its own tests plant offenders
# in a temp tree first.
architecture-check:
	$(PYTHON) tools/test_architecture_check.py
	$(PYTHON) tools/architecture-check.py

# Black-box tests run the release binaries (FERRY_PRODUCTS): what ships, at its speed. The
# benchmark smoke runs on the same release products, and the fuzz targets a few seconds each
# from their seeds, and the HTTP Caching Tests against ferryd's cache (at least 95 % of their
# required cases), the manual pages' checks, and the Python library's tests (with every line
# checked against docs/schema), before the Swift tests, so their summary ends the output.
# tools/import-check.py first fails a ferryd that imports _StringProcessing (issue 29's B8).
# FerryKit's tests run first, logging every line they exchange, which tools/schema-check.py
# then checks against the schema as the Python tests' lines are. The bystander-latency tests
# (a client's ping p99 while another floods the daemon) run last and alone: what they bound is
# what one user does to another, not what 900 tests running at once do to the machine (in the
# parallel run a CI machine with a busy core saw pings of 40-55 ms before any flood).
test: architecture-check deps lint examples
	$(SWIFT) build -c release $(SWIFTFLAGS)
	$(PYTHON) tools/import-check.py .build/release/ferryd
	$(BENCH) --smoke
	Fuzz/run.sh smoke
	tools/cache-tests/run.sh --check
	$(PYTHON) tools/man/build.py --ferry .build/release/ferry --ferryd .build/release/ferryd --out .build/man --check
	cd clients/python && FERRY_PRODUCTS=$(CURDIR)/.build/release $(PYTHON) -m unittest discover -s tests
	$(SWIFT) build --build-tests $(SWIFTFLAGS)
	rm -f .build/ferrykit-lines.log
	FERRYKIT_LINE_LOG=$(CURDIR)/.build/ferrykit-lines.log FERRY_PRODUCTS=$(CURDIR)/.build/release \
	  $(SWIFT) test --skip-build --filter FerryKitTests
	$(PYTHON) tools/schema-check.py .build/ferrykit-lines.log
	FERRY_PRODUCTS=$(CURDIR)/.build/release $(SWIFT) test --skip-build --skip FerryKitTests --skip BystanderLatencyTests
	FERRY_PRODUCTS=$(CURDIR)/.build/release $(SWIFT) test --skip-build --filter BystanderLatencyTests

# The Python library (clients/python) against the release ferryd and ferry-fixture, each test
# class with its own daemon in a temp dir; every line exchanged is checked against
# docs/schema/ferry.schema.json. Debian's python3 (standard library + python3-jsonschema).
test-python: deps
	$(SWIFT) build -c release $(SWIFTFLAGS)
	cd clients/python && FERRY_PRODUCTS=$(CURDIR)/.build/release $(PYTHON) -m unittest discover -s tests

# B9 alone (it is also in `make bench`): the Python AsyncClient and FerryKit on B1's workload
# against aiohttp (bench/.venv) and ferry-bench-client; writes bench/results/<time>-b9.md.
bench-python: build
	@test -x $(BENCH_VENV)/bin/python || $(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install --quiet --disable-pip-version-check -r bench/requirements.txt
	$(BENCH) --only-b9

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

# Installs the binaries, the config (never over an existing one), the systemd units and the
# shell completions. PREFIX and DESTDIR as usual; the units' ExecStart is rewritten to
# $(PREFIX)/bin/ferryd. The completions go where each shell looks under PREFIX: for /usr,
# Debian's places (zsh's vendor-completions); for /usr/local, zsh's site-functions.
DESTDIR ?=
SYSTEMD_DIR ?= /etc/systemd/system
BASH_COMPLETION_DIR ?= $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETION_DIR ?= $(PREFIX)/share/zsh/$(if $(filter /usr,$(PREFIX)),vendor-completions,site-functions)
FISH_COMPLETION_DIR ?= $(PREFIX)/share/fish/vendor_completions.d
install: build man
	install -D -m 0755 .build/release/ferryd $(DESTDIR)$(PREFIX)/bin/ferryd
	install -D -m 0755 .build/release/ferry $(DESTDIR)$(PREFIX)/bin/ferry
	install -d -m 0755 $(DESTDIR)/etc/ferry $(DESTDIR)/etc/ferry/ferry.d
	@if [ -e $(DESTDIR)/etc/ferry/ferry.json ]; then \
	  echo "keeping existing $(DESTDIR)/etc/ferry/ferry.json"; \
	else \
	  install -m 0644 config/ferry.system.json $(DESTDIR)/etc/ferry/ferry.json; \
	fi
	install -d -m 0755 $(DESTDIR)$(SYSTEMD_DIR)
	sed 's#/usr/local/bin/ferryd#$(PREFIX)/bin/ferryd#' systemd/ferryd.service > $(DESTDIR)$(SYSTEMD_DIR)/ferryd.service
	install -m 0644 systemd/ferryd.socket $(DESTDIR)$(SYSTEMD_DIR)/ferryd.socket
	install -m 0644 systemd/ferryd-metrics.socket $(DESTDIR)$(SYSTEMD_DIR)/ferryd-metrics.socket
	install -D -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/ferry/README.md
	install -D -m 0644 completions/ferry.bash $(DESTDIR)$(BASH_COMPLETION_DIR)/ferry
	install -D -m 0644 completions/_ferry $(DESTDIR)$(ZSH_COMPLETION_DIR)/_ferry
	install -D -m 0644 completions/ferry.fish $(DESTDIR)$(FISH_COMPLETION_DIR)/ferry.fish
	for page in .build/man/*.[0-9]; do \
	  install -D -m 0644 $$page $(DESTDIR)$(PREFIX)/share/man/man$${page##*.}/$$(basename $$page); \
	done
	@if [ -z "$(DESTDIR)" ]; then getent group ferry >/dev/null || groupadd --system ferry; fi
	@echo "installed; start with: systemctl daemon-reload && systemctl enable --now ferryd.socket"

# Manual pages (docs/man/*.scd through scdoc; tools/man/build.py fills their tables from the
# code's own help and docs and fails when a page lacks an option, field or error code).
man: build
	$(PYTHON) tools/man/build.py --ferry .build/release/ferry --ferryd .build/release/ferryd --out .build/man --check

# The Debian package (debian/, debhelper compat 13): ferryd and ferry with the Swift standard
# library linked static, so it depends on Debian's libraries only. Into .build/debs/, with
# lintian's verdict; `deb-test` installs it on this machine, uses it, upgrades and purges it
# (tools/deb-test.sh; root).
DEB_DEPS := debhelper dpkg-dev lintian scdoc man-db fakeroot
deb:
	@$(MAKE) --no-print-directory deps DEPS="$(DEPS) $(DEB_DEPS)"
	rm -rf .build/debs && mkdir -p .build/debs
	dpkg-buildpackage --build=binary --no-sign --buildinfo-option=-u.build/debs \
	  --changes-option=-u.build/debs --buildinfo-file=.build/debs/ferry.buildinfo \
	  --changes-file=.build/debs/ferry.changes
	lintian --fail-on error,warning --info .build/debs/*.changes

deb-test: deb
	tools/deb-test.sh .build/debs/ferry_*.deb
