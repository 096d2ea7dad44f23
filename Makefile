# ferry: build, run and test. `make run` and `make test` are the whole set-up on a fresh Debian 12.
SWIFT ?= swift
PREFIX ?= /usr/local
CONFIG ?= config/ferry.json
# Debian packages the build and the tests need. media-types gives /etc/mime.types.
DEPS := libevent-dev libcurl4-openssl-dev media-types socat nginx-light openssl jq
SWIFTFLAGS := -Xswiftc -warnings-as-errors

.PHONY: deps build build-debug run test lint format clean bench

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

clean:
	rm -rf .build
