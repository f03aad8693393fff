# LinkParse — the README's commands. Each target installs what is missing, then builds.
SHELL := /bin/bash
SWIFT ?= swift
SYSTEM_PACKAGES := libicu-dev libpcre2-dev pkg-config
CONFORMANCE_DIR ?= $(abspath ../shared/conformance)

.PHONY: deps build demo test fuzz-smoke fuzz clean

## Install the Debian packages the build needs, if any is missing (apt-get, as root or through sudo).
deps:
	@missing=""; \
	for p in $(SYSTEM_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make: installing system packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

build: deps
	$(SWIFT) build -c release --product linkparse

## Parse the bundled sample of provider callbacks and show the JSON lines.
demo: build
	@echo "== linkparse samples/callbacks.txt"
	@.build/release/linkparse --stats samples/callbacks.txt; status=$$?; \
	echo "== exit status $$status (0: all parsed, 1: some records failed, as the sample intends)"; \
	test $$status -le 1

## Fuzz every target briefly (Fuzz/run.sh: sanitizer build, then FUZZ_SMOKE_SECONDS per target). A crash
## is stored, minimized, in corpus/regressions/ and fails the run.
FUZZ_SMOKE_SECONDS ?= 30
fuzz-smoke: deps
	Fuzz/run.sh --time $(FUZZ_SMOKE_SECONDS)

## The nightly run: an hour per target.
fuzz: deps
	Fuzz/run.sh --time 3600

## Build and run every test (after the fuzz smoke run). Conformance tests read $(CONFORMANCE_DIR); with CI
## set they are required.
test: deps fuzz-smoke
	@if [ -d "$(CONFORMANCE_DIR)" ]; then \
	  echo "make: conformance data: $(CONFORMANCE_DIR)"; \
	else \
	  echo "make: conformance data not found at $(CONFORMANCE_DIR): the WPT conformance tests will be SKIPPED"; \
	  if [ -n "$$CI" ]; then echo "make: CI is set, so they are required: failing"; exit 1; fi; \
	fi
	LINKPARSE_CONFORMANCE_DIR="$(CONFORMANCE_DIR)" $(SWIFT) build --build-tests
	LINKPARSE_CONFORMANCE_DIR="$(CONFORMANCE_DIR)" $(SWIFT) test --skip-build

clean:
	rm -rf .build Fuzz/.build
