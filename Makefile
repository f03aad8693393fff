# LinkParse — the README's commands. Each target installs what is missing, then builds.
SHELL := /bin/bash
SWIFT ?= swift
SYSTEM_PACKAGES := libicu-dev libpcre2-dev pkg-config
CONFORMANCE_DIR ?= $(abspath ../shared/conformance)

.PHONY: bench-pipeline docs-snippets deps build demo test fuzz-smoke fuzz fuzz-nightly check-fuzz-nightly check-fuzz-config clean bench bench-compare bench-tokens bench-check bench-thresholds serve-example serve-example-https demo-deps bench-server bench-routes bench-ada check-generated idna-tables-deps idna-tables spark-demo spark-test build-static check-static test-portable

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

## Parse the bundled sample of provider callbacks and show the JSON lines. The debug build, which `make test`
## builds anyway: a newcomer's `make demo` then `make test` compile the package once (`make build` is the
## release build, for timing and Spark).
demo: deps
	$(SWIFT) build --product linkparse
	@echo "== linkparse samples/callbacks.txt"
	@.build/debug/linkparse --stats samples/callbacks.txt; status=$$?; \
	echo "== exit status $$status (0: all parsed, 1: some records failed, as the sample intends)"; \
	test $$status -le 1

## The example login server (Examples/CallbackServer) on 127.0.0.1:8080 (HOST, PORT, PUBLIC_BASE_URL), with the
## demo OpenID Connect provider (Examples/DemoProvider) on 127.0.0.1:8081: in-memory store, or PostgreSQL when
## DATABASE_URL is set. Try `curl -c jar -b jar -sL http://127.0.0.1:8080/login/demo`: it ends at /me.
DEMO_PROVIDER_PORT ?= 8081
serve-example: deps demo-deps
	$(SWIFT) build --product linkparse-example-server
	@python3 Examples/DemoProvider/demo_provider.py --port $(DEMO_PROVIDER_PORT) \
	  --redirect-prefix "$${PUBLIC_BASE_URL:-http://$${HOST:-127.0.0.1}:$${PORT:-8080}}/" & provider=$$!; \
	trap "kill $$provider" EXIT INT TERM; \
	DEMO_PROVIDER=http://127.0.0.1:$(DEMO_PROVIDER_PORT) .build/debug/linkparse-example-server

## The same over HTTPS on https://localhost:8443 (PORT), with a self-signed certificate for localhost made once
## into .build/dev-tls/ (Scripts/dev-certificate.py): what `__Host-` cookies and a form_post login (Sign in with
## Apple's `SameSite=None` cookie, which browsers keep only with `Secure`) need. Accept the certificate once in
## the browser, or trust .build/dev-tls/cert.pem.
serve-example-https: deps demo-deps
	python3 Scripts/dev-certificate.py .build/dev-tls
	$(MAKE) --no-print-directory serve-example PORT=$${PORT:-8443} TLS_CERTIFICATE=$(CURDIR)/.build/dev-tls/cert.pem \
	  TLS_PRIVATE_KEY=$(CURDIR)/.build/dev-tls/key.pem PUBLIC_BASE_URL=$${PUBLIC_BASE_URL:-https://localhost:$${PORT:-8443}}

## The demo provider's one Python module (cryptography), from Debian's packages or PyPI when missing.
demo-deps:
	@python3 -c "import cryptography" 2>/dev/null || python3 -m pip install --quiet cryptography \
	  || apt-get install -y python3-cryptography

## Fuzz every target briefly (Fuzz/run.sh: sanitizer build, then FUZZ_SMOKE_SECONDS per target, as many
## targets at once as there are cores), each from its named seeds, its regressions and FUZZ_SMOKE_SAMPLE of the
## inputs nightly runs found (the whole corpus is the nightly run's start: replaying its 10,000 inputs took
## minutes in a debug build). A crash is stored, minimized, in corpus/regressions/ and fails the run.
## FUZZ_CONFIGURATION=debug builds the targets unoptimized (about twice as fast to build). FUZZ_SHARED_BUILD=1
## (what CI's smoke does, after `make test`) builds them into .build, debug, with only LinkParse's own modules
## instrumented, so the dependencies' debug build is reused (Fuzz/run.sh --shared-build).
FUZZ_SMOKE_SECONDS ?= 30
FUZZ_SMOKE_SAMPLE ?= 100
fuzz-smoke: deps
	Fuzz/run.sh --time $(FUZZ_SMOKE_SECONDS) --sample $(FUZZ_SMOKE_SAMPLE) --parallel $$(nproc 2>/dev/null || echo 1) \
	  $(if $(FUZZ_SHARED_BUILD),--shared-build)

## The nightly run (Fuzz/README.md): every target for TIME seconds (default an hour) with FORK processes (or
## JOBS workers; default: every core), or PARALLEL targets at once (one process each), then what it found
## merged into corpus/<target>/ (libFuzzer merge, so the corpus stays minimal) and a report (report.json,
## report.md; the table is printed). SEED and MAX_TOTAL_TIME (seconds for the whole run) make runs repeatable;
## NO_BUILD=1 reuses the fuzz build. A crash, leak, timeout or out-of-memory is minimized into
## corpus/regressions/ and fails the run once every target has run.
TIME ?= 3600
fuzz-nightly: deps
	Fuzz/run.sh --nightly --time $(TIME) $(if $(FORK),--fork $(FORK)) $(if $(JOBS),--jobs $(JOBS)) \
	  $(if $(PARALLEL),--parallel $(PARALLEL)) $(if $(SEED),--seed $(SEED)) \
	  $(if $(MAX_TOTAL_TIME),--max-total-time $(MAX_TOTAL_TIME)) $(if $(NO_BUILD),--no-build)

## The same as fuzz-nightly.
fuzz: fuzz-nightly

## Checks the nightly machinery on a copy of corpus/ (a planted crash must be minimized into regressions/ and fail
## the run), .clusterfuzzlite/build.sh natively, and that the workflow files parse (Fuzz/test-nightly.sh).
check-fuzz-nightly: deps
	Fuzz/test-nightly.sh $(if $(NO_BUILD),--no-build)

## The hosted-fuzzing YAML (.github/workflows/cflite_*.yml, .clusterfuzzlite/project.yaml) parses and says what
## Fuzz/README.md promises (PyYAML from PyPI when missing).
check-fuzz-config:
	@python3 -c "import yaml" 2>/dev/null || python3 -m pip install --quiet pyyaml
	python3 Scripts/check-yaml.py

## Build and run every test, in one debug build that also serves the demo and the Spark test (the fuzz targets'
## regressions are replayed by FuzzRegressionTests; the libFuzzer smoke run and the malloc thresholds, which
## need a sanitizer build and a release build of their own, run in CI: .ci/run). Conformance tests read
## $(CONFORMANCE_DIR); with CI set they are required.
## Without the data (a clone without ../shared) the conformance tests are skipped explicitly
## (LINKPARSE_SKIP_CONFORMANCE=1, which the output names); with CI set they are required.
test: deps demo-deps check-generated check-fuzz-config
	@if [ -d "$(CONFORMANCE_DIR)" ]; then \
	  echo "make: conformance data: $(CONFORMANCE_DIR)"; \
	else \
	  echo "make: conformance data not found at $(CONFORMANCE_DIR): the WPT conformance tests will be SKIPPED"; \
	  echo "make: (LINKPARSE_SKIP_CONFORMANCE=1; set CONFORMANCE_DIR=<web-platform-tests URL data> to run them)"; \
	  if [ -n "$$CI" ]; then echo "make: CI is set, so they are required: failing"; exit 1; fi; \
	fi
	LINKPARSE_CONFORMANCE_DIR="$(CONFORMANCE_DIR)" $(SWIFT) build --build-tests
	@# LinkParsePostgres's tests need a PostgreSQL server: installed when missing and started here (stopped on
	@# any exit, by the trap). Where it cannot be installed or started, its tests are skipped with a message,
	@# except with CI set: then that fails.
	@set -o pipefail; trap '.ci/postgres.sh stop' EXIT; \
	if .ci/postgres.sh start; then export LINKPARSE_TEST_DATABASE_URL="$$(.ci/postgres.sh url)"; \
	elif [ -n "$$CI" ]; then echo "make: PostgreSQL could not be started and CI is set: failing"; exit 1; \
	else echo "make: PostgreSQL could not be installed or started: the LinkParsePostgres tests will be SKIPPED"; fi; \
	if [ ! -d "$(CONFORMANCE_DIR)" ]; then export LINKPARSE_SKIP_CONFORMANCE=1; fi; \
	LINKPARSE_CONFORMANCE_DIR="$(CONFORMANCE_DIR)" $(SWIFT) test --skip-build 2>&1 | tee .build/test-output.txt \
	  || { echo "make: the tests failed; what failed (from .build/test-output.txt):"; \
	       grep -E '✘' .build/test-output.txt | tail -n 60; exit 1; }
	@# The Spark job on a small log, with the debug binary just built (a release build would add minutes).
	@$(MAKE) --no-print-directory spark-test SPARK_LINKPARSE=.build/debug/linkparse
	@# The last line repeats the test runner's count (every step above stops make on a failure).
	@echo "$$(grep -oE 'Test run with [0-9]+ tests' .build/test-output.txt | grep -oE '[0-9]+' | tail -1) passed, 0 failed"

clean:
	rm -rf .build .build-static .build-portable Fuzz/.build Benchmarks/.build

## linkparse as one statically linked executable, stripped, into .build-static/release/linkparse: no shared
## library at all (`ldd`: "not a dynamic executable"), so it runs on any Linux worker, even in an empty root.
## Without the default traits: no ICU, no PCRE2 (constraints run on the linear-time matcher); the command links
## neither FoundationNetworking nor libcurl. No system package is needed.
build-static:
	$(SWIFT) build -c release --product linkparse --scratch-path .build-static --disable-default-traits \
	  --static-swift-stdlib -Xswiftc -static-executable
	strip .build-static/release/linkparse
	@file .build-static/release/linkparse

## check-static: the static linkparse against the default build (Scripts/check-static.sh): `file` and `ldd` say
## static, it runs in an empty root (chroot: the binary and its input only) and writes byte for byte what the
## default debug build writes on samples/ and the benchmark corpus.
check-static: build-static Benchmarks/corpus/callbacks.txt
	$(SWIFT) build --product linkparse
	bash Scripts/check-static.sh .build-static/release/linkparse "$(CURDIR)/.build/debug/linkparse"

## The engine's tests (core, router, providers, CLI) without the default traits: neither ICU nor PCRE2 linked;
## then `ldd` of that build's linkparse must name neither. In .build, like `make test`: the dependencies' build is
## shared and only LinkParse's own modules are compiled again (about 150 s instead of 580 s for a build of its
## own); the next `make test` compiles them back with the traits.
test-portable:
	LINKPARSE_CONFORMANCE_DIR="$(CONFORMANCE_DIR)" $(SWIFT) test --disable-default-traits \
	  --filter 'LinkParseCoreTests|LinkParseRouterTests|LinkParseProvidersTests|LinkParseCLITests'
	@if ldd .build/debug/linkparse | grep -E 'libicu|libpcre2'; then \
	  echo "make: the trait-less linkparse links ICU or PCRE2"; exit 1; \
	else echo "make: ldd .build/debug/linkparse (built without the default traits) names neither libicu nor libpcre2"; fi

## Apache Spark (Examples/spark/; docs/spark.md). Both install what is missing first (.ci/spark.sh: Java 17
## from Debian's packages, pyspark from PyPI in .build/spark-venv).
## spark-demo: the job on a generated log of SPARK_DEMO_LINES lines in local[2], with the summary, timed beside
## Spark SQL's parse_url and a Python UDF on the same data.
SPARK_DEMO_LINES ?= 1000000
spark-demo: build
	@py=$$(.ci/spark.sh | tail -1) && $$py Examples/spark/demo.py --lines $(SPARK_DEMO_LINES) --linkparse "$(CURDIR)/.build/release/linkparse"

## spark-test: --pipeline, --fields, the schemas against real output, and the job on a small log (about a minute
## once installed). SPARK_LINKPARSE names the binary (default: a release build). Where Spark cannot be installed
## the tests are skipped with a message, unless CI is set: then that fails.
SPARK_LINKPARSE ?=
## SPARK_TEST_LINES: the small log's lines (its 1 MB line included); the job's checks hold for any count.
SPARK_TEST_LINES ?= 5000
spark-test: deps
	@bin="$(SPARK_LINKPARSE)"; \
	if [ -z "$$bin" ]; then $(SWIFT) build -c release --product linkparse >&2 || exit 1; bin=.build/release/linkparse; fi; \
	if py=$$(.ci/spark.sh | tail -1) && [ -x "$$py" ]; then \
	  $$py Examples/spark/test_spark.py --linkparse "$$bin" --lines $(SPARK_TEST_LINES); \
	elif [ -n "$$CI" ]; then echo "make: Spark (Java 17, pyspark) could not be installed and CI is set: failing"; exit 1; \
	else echo "make: Spark (Java 17, pyspark) could not be installed: the Spark tests are SKIPPED"; fi

# Generated sources must be their generator's output (the callback name table, the documentation's code
# blocks as compiled tests). Needs python3, as the
# generator does; skipped with a message where it is missing (a fresh Debian has it).
check-generated: idna-tables-deps
	@if command -v python3 >/dev/null; then python3 Scripts/callback-name-table.py --check \
	  && python3 Scripts/doc-snippets.py --check && python3 Scripts/help-text.py --check \
	  && PYTHONPATH=$(IDNA_TABLES_DEPS) python3 Scripts/idna-tables.py --check \
	  && echo "make: generated sources are current"; \
	else echo "make: python3 not found: generated sources NOT checked"; fi

## The Unicode data Scripts/idna-tables.py reads (the PyPI versions it pins: idna and unicodedata2), installed
## into .build/idna-tables-deps when missing, so the system's Python packages stay as they are.
IDNA_TABLES_DEPS = $(abspath .build/idna-tables-deps)
idna-tables-deps:
	@if command -v python3 >/dev/null; then pins="$$(python3 Scripts/idna-tables.py --requirements)"; \
	  PYTHONPATH=$(IDNA_TABLES_DEPS) python3 -c "import sys; from importlib.metadata import version as v; \
	    sys.exit(0 if ' '.join(p + '==' + v(p) for p in ('idna', 'unicodedata2')) == sys.argv[1] else 1)" "$$pins" \
	    2>/dev/null || python3 -m pip install --quiet --upgrade --target $(IDNA_TABLES_DEPS) $$pins; fi

## Rewrite Sources/LinkParseCore/UTS46Tables.swift from the pinned Unicode data (after changing the pins).
idna-tables: idna-tables-deps
	PYTHONPATH=$(IDNA_TABLES_DEPS) python3 Scripts/idna-tables.py

## Re-extract the Swift code blocks of README.md, docs/ and the DocC catalogs into Tests/DocumentationTests/Snippets/,
## and the command's help (Sources/_LinkParseCLI/HelpText.swift) from its DocC article.
docs-snippets:
	python3 Scripts/doc-snippets.py
	python3 Scripts/help-text.py

## The DocC documentation of every public module, each into .build/docs/<Target>: the umbrella `import LinkParse`
## (Sources/LinkParse/LinkParse.docc, with the getting-started articles) and each module's own catalog
## (Sources/<Target>/<Target>.docc), the optional products included. DOCS_TARGETS picks some.
DOCS_TARGETS ?= LinkParse LinkParseCore LinkParseRouter LinkParseProviders LinkParseAuthorization LinkParseOAuth LinkParseIDToken \
  LinkParseHTTP LinkParseHummingbird LinkParsePostgres
.PHONY: docs
docs: deps
	mkdir -p .build/docs
	@set -e; for target in $(DOCS_TARGETS); do \
	  echo "make: documentation of $$target -> .build/docs/$$target"; \
	  $(SWIFT) package --allow-writing-to-directory .build/docs generate-documentation --target $$target \
	    --output-path .build/docs/$$target; \
	done

## Benchmarks (the nested package in Benchmarks/; see docs/benchmarks.md).
BENCH_CORPUS := Benchmarks/corpus/callbacks.txt
# The malloc-count thresholds cover LinkParse's suites; Foundation's are measured, not checked.
BENCH_CHECKED := --skip 'foundation-.*' --metric mallocCountTotal

$(BENCH_CORPUS): Benchmarks/generate-corpus.py
	python3 Benchmarks/generate-corpus.py $@

## Every package-benchmark suite: wall clock and malloc counts (a few minutes on 2 cores).
bench: deps $(BENCH_CORPUS)
	cd Benchmarks && $(SWIFT) package benchmark --no-progress

## LinkParse against URLComponents on the corpus; stdout is BenchCompare's lines only (the build goes to stderr).
bench-compare: deps $(BENCH_CORPUS)
	@cd Benchmarks && $(SWIFT) build -c release --product BenchCompare >&2
	@cd Benchmarks && .build/release/BenchCompare corpus/callbacks.txt

## LinkParse against Ada (the C++ WHATWG parser inside Node.js) in one run (Benchmarks/bench-ada.py): Ada built from
## the ada-url Python package's sdist (pip, at benchmark time, into Benchmarks/.build/ada); the two harnesses
## alternate BENCH_ADA_ROUNDS times, pinned to one core; one `vs-ada measure=… ratio=…` line per measure.
BENCH_ADA_ROUNDS ?= 21
bench-ada: deps $(BENCH_CORPUS)
	@cd Benchmarks && $(SWIFT) build -c release --product BenchCompare >&2
	@python3 Benchmarks/bench-ada.py --rounds $(BENCH_ADA_ROUNDS)

## linkparse through a pipe against a Node.js script doing the same with `new URL` and `searchParams`
## (Benchmarks/bench-pipeline.py, Benchmarks/Node/pipeline.mjs): the same fields byte for byte, lines per second.
## The stage measured is the static linkparse (`make build-static`: the one file a cluster worker is given), one
## `vs-node measure=pipeline … ratio=…` line; beside it, interleaved, the default release build of the benchmarks'
## build (`vs-node measure=pipeline-default …`) and `vs-node measure=ceiling …`, an ideal stage made of `cat` that
## only reads its input and writes the expected output. Node from Debian's nodejs package when missing.
BENCH_PIPELINE_ROUNDS ?= 5
bench-pipeline: deps $(BENCH_CORPUS) build-static
	@$(MAKE) --no-print-directory deps SYSTEM_PACKAGES=nodejs
	@cd Benchmarks && $(SWIFT) build -c release --product linkparse >&2
	@python3 Benchmarks/bench-pipeline.py --rounds $(BENCH_PIPELINE_ROUNDS) --linkparse .build-static/release/linkparse \
	  --default-build "$$(cd Benchmarks && $(SWIFT) build -c release --show-bin-path)/linkparse"

## LinkParseOAuth's workloads, ns per item: token-response decoding and id_token verification (RS256, ES256).
bench-tokens: deps
	@cd Benchmarks && $(SWIFT) build -c release --product BenchTokens >&2
	@cd Benchmarks && .build/release/BenchTokens

## Compiling tables of 8,000 and 100,000 routes (Router(routes)), seconds per table.
bench-routes: deps
	@cd Benchmarks && $(SWIFT) build -c release --product BenchRoutes >&2
	@cd Benchmarks && .build/release/BenchRoutes

## Load test of the server (Benchmarks/Sources/BenchServer): the callback routes alone (callbacks/s), then whole web
## logins against the demo provider (start -> provider -> callback -> exchange -> verified identity -> session;
## logins/s), each with p50/p99, with the in-memory store and with PostgreSQL (DATABASE_URL, or a throw-away server
## from .ci/postgres.sh). BENCH_SERVER_ARGS passes options (--mode callbacks|logins|both --callbacks N --logins N
## --concurrency N --login-concurrency N --seconds S --store memory|postgres|both).
BENCH_SERVER_ARGS ?=
bench-server: deps demo-deps
	@cd Benchmarks && $(SWIFT) build -c release --product BenchServer >&2
	@if [ -n "$$DATABASE_URL" ]; then Benchmarks/.build/release/BenchServer $(BENCH_SERVER_ARGS); \
	else export LINKPARSE_PG_DIR="$${TMPDIR:-/tmp}/linkparse-postgres-bench"; \
	  trap '.ci/postgres.sh stop >&2' EXIT; .ci/postgres.sh start >&2 && \
	  DATABASE_URL="$$(.ci/postgres.sh url)" Benchmarks/.build/release/BenchServer $(BENCH_SERVER_ARGS); fi

## Fails when a LinkParse suite's malloc count rises above its committed threshold (Benchmarks/Thresholds/).
## Time is never checked. A count below its threshold passes with a reminder to lower the threshold (the
## plugin exits 1 for both, so its verdict line tells them apart).
bench-check: deps $(BENCH_CORPUS)
	@set -o pipefail; cd Benchmarks && log=$$(mktemp) && status=0; \
	$(SWIFT) package benchmark thresholds check $(BENCH_CHECKED) --no-progress 2>&1 | tee $$log || status=$$?; \
	if [ $$status != 0 ] && grep -q "is BETTER than the defined thresholds" $$log && ! grep -q "WORSE than" $$log; then \
	  echo "make: malloc counts are BELOW the committed thresholds: lower them with 'make bench-thresholds' and commit Benchmarks/Thresholds/"; \
	  status=0; \
	fi; \
	rm -f $$log; \
	if [ $$status != 0 ]; then echo "make: malloc counts are ABOVE the committed thresholds (Benchmarks/Thresholds/), or the check failed: failing"; fi; \
	exit $$status

## Rewrites the committed malloc-count thresholds from a fresh run; review and commit Benchmarks/Thresholds/.
bench-thresholds: deps $(BENCH_CORPUS)
	cd Benchmarks && $(SWIFT) package --allow-writing-to-package-directory benchmark thresholds update $(BENCH_CHECKED) --no-progress
