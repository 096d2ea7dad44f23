# ferry: build, run and test. `make run` and `make test` are the whole set-up on a fresh Debian 12.
SWIFT ?= swift
PREFIX ?= /usr/local
CONFIG ?= config/ferry.json
# Debian packages the build and the tests need. media-types gives /etc/mime.types.
DEPS := libevent-dev libcurl4-openssl-dev media-types socat nginx-light openssl jq
SWIFTFLAGS := -Xswiftc -warnings-as-errors

.PHONY: deps build build-debug run test lint format clean bench install fuzz test-sanitize

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
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

format:
	$(SWIFT) format format --in-place --recursive Package.swift Sources Tests

# Black-box tests run the release binaries (FERRY_PRODUCTS): what ships, at its speed.
test: deps lint
	$(SWIFT) build -c release $(SWIFTFLAGS)
	$(SWIFT) build --build-tests $(SWIFTFLAGS)
	FERRY_PRODUCTS=$(CURDIR)/.build/release $(SWIFT) test --skip-build
	Fuzz/run.sh smoke

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
