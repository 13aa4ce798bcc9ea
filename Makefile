# Platen: `make help` lists the targets.
SHELL := /bin/bash
GO ?= go
GOTOOL := $(GO) tool -modfile=tools/go.mod
GATEWAY_V1 := github.com/grpc-ecosystem/grpc-gateway@v1.16.0
# make test's and make test-race's go test flags. -p 4 runs four test
# binaries at once: much of a test's time is spent waiting (on a database,
# a render process, a browser, a retry's delay), so four overlap well on
# two cores. -ldflags='-s -w' leaves the symbol table and DWARF out of each
# test binary, which halves its link (about 8 s to 4 s for each of some
# fifty binaries of about 100 MB); a panic's trace still names every
# function, file and line.
TEST_FLAGS ?= -count=1 -timeout 20m -p 4 -ldflags='-s -w'

.PHONY: help run build test test-race test-cluster cover fuzz test-tools missing-test-tools install-test-tools bench-harness bench bench-soak bench-scaling bench-render bench-batch bench-webhooks bench-hostile bench-prints bench-latency bench-guard generate generate-proto generate-ent googleapis icc-profiles lint lint-openapi verify

help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

# Built, then run in make's place: go run would answer Ctrl-C with exit
# status 1 (and make with "Error 1") however cleanly platen stopped.
run: build ## start platen serve on the embedded defaults (SQLite in ./data); RUN_FLAGS adds flags
	exec bin/platen serve $(RUN_FLAGS)

# make build stamps git describe's answer into the binary, so that platen
# version and platen_build_info name the build wherever Go's own VCS
# stamping records nothing (-buildvcs=false, sources without .git). Where
# git or the repository is missing VERSION is empty, and the binary says
# what Go recorded; VERSION=… on the command line sets it by hand.
GIT ?= git
VERSION ?= $(shell $(GIT) describe --always --dirty 2>/dev/null)
VERSION_LDFLAGS = $(if $(VERSION),-ldflags "-X github.com/platen-print/platen/internal/version.Stamp=$(VERSION)")

# canvas's latex build tag swaps its built-in TeX engine, with 8.6 MB of
# Latin Modern fonts, for a call to a latex program. Platen never typesets
# LaTeX, so the tag only leaves out 65 of the 977 packages a first build
# compiles (about 30 s of its 10 minutes here; the linker dropped them from
# the binary already). Exported so that go test, go vet and the builds the
# tests make share it, and the build cache with it.
export GOFLAGS := $(strip $(GOFLAGS) -tags=latex)

# The first build compiles every package: say so, and name each as it goes
# (-v), so that ten quiet minutes are not taken for a hang.
build: ## build bin/platen, stamped with git describe's version
	@test -x bin/platen || echo "building bin/platen: a first build compiles about 900 packages, about 10 minutes on a 2-core machine (later builds take seconds); each is named as it is compiled"
	$(GO) build -v $(VERSION_LDFLAGS) -o bin/platen ./cmd/platen

# Coverage is measured across packages (a test of one package counts for
# the code of every package it runs) and includes the processes the tests
# start: the CLI tests' platen binary, built with -cover when
# PLATEN_TEST_COVERDIR is set, writes there. (Render processes end before
# Go's coverage runtime starts, so what they run counts only where a test
# renders in its own process.) The total is printed last; make cover
# prints it by package. make test fails when a test fails or when the
# coverage cannot be read. The benchmark harness, a module of its own in
# bench/, is vetted and its unit tests run too, after Platen's, with no
# coverage. Before the total it prints the table of the
# render fidelity suite (internal/render/testdata/fidelity), which go test
# would show only with -v: the test writes it to PLATEN_FIDELITY_TABLE.
# make test runs without the race detector, which made every test 3 to
# 10 times slower; make test-race runs it where goroutines share state.
COVER_DIR := $(CURDIR)/.cover

# The packages whose tests take longest start first (go test runs them in
# the order given, each once), so that none is left running alone at the
# end while the other core idles; the queue's and the store's, which
# mostly wait, start early too, beside those that keep both cores busy.
TEST_PACKAGES := ./internal/panel ./internal/cli ./internal/renderjobs ./internal/webhooks ./internal/queue \
  ./internal/render ./internal/server ./internal/storage ./e2e/hostile ./...

test: test-tools ## run every test (PostgreSQL too when PLATEN_TEST_POSTGRES_URL is set), then print the coverage
	$(GO) vet ./...
	$(GO) -C bench vet ./...
	@rm -rf $(COVER_DIR) && mkdir -p $(COVER_DIR)/unit $(COVER_DIR)/bin
	@status=0; \
	PLATEN_TEST_COVERDIR=$(COVER_DIR)/bin PLATEN_FIDELITY_TABLE=$(COVER_DIR)/fidelity.txt \
	  $(GO) test $(TEST_FLAGS) -covermode=set -coverpkg=./internal/...,./third_party/... $(TEST_PACKAGES) \
	  -args -test.gocoverdir=$(COVER_DIR)/unit || status=$$?; \
	$(GO) -C bench test $(TEST_FLAGS) ./... || status=$$?; \
	test ! -s $(COVER_DIR)/fidelity.txt || cat $(COVER_DIR)/fidelity.txt; \
	test -n "$$(ls $(COVER_DIR)/bin)" || echo "note: no coverage from the platen binary: the CLI tests did not run"; \
	$(GO) tool covdata textfmt -i=$(COVER_DIR)/unit,$(COVER_DIR)/bin -o $(COVER_DIR)/all.out || exit 1; \
	echo "coverage by every test and the processes they start, of the product:"; \
	$(GO) tool cover -func=$(COVER_DIR)/all.out | tail -1; \
	exit $$status

# The race detector runs the tests of the packages whose own code shares
# state between goroutines: the database's group commit, the job queue,
# the render processes' supervisor and the jobs that use them, webhook
# deliveries, the servers, their middleware, limits and caches. The
# drawing, the documents and the panel's pages hold none (a render's state
# is its own, shown under -race by the render service's tests of renders
# side by side), and under the detector their tests took three quarters of
# its time. CI runs it after make test; PostgreSQL too when
# PLATEN_TEST_POSTGRES_URL is set.
RACE_PACKAGES := auth downloads/token fetch fonts gateway idempotency inproc inputlimit operators \
  platentest/poll press prints queue readiness renderjobs renderproc server storage webhooks
test-race: test-tools ## run the tests of the packages whose goroutines share state under the race detector
	$(GO) test -race $(TEST_FLAGS) $(addprefix ./internal/,$(RACE_PACKAGES))

# The cluster test runs the built platen binary as two serve and two render
# processes on PostgreSQL (a database of its own on PLATEN_TEST_POSTGRES_URL's
# server) and a real S3 server, SeaweedFS, under load while faults come in
# a fixed order, then prints its invariants as a table (e2e/cluster).
# SeaweedFS is built once from the Go module proxy into GOPATH's bin, as
# weed-VERSION (a few minutes; later runs, fresh clones included, reuse it). Its go.mod has replace directives, so go
# install refuses it: it is built in its module's own directory.
WEED_MODULE := github.com/seaweedfs/seaweedfs
WEED_VERSION := v0.0.0-20261109003541-7506e5f91cd6
WEED_BIN := $(firstword $(subst :, ,$(shell $(GO) env GOPATH)))/bin/weed-$(WEED_VERSION)

$(WEED_BIN):
	@mkdir -p $(dir $@)
	@echo "building SeaweedFS $(WEED_VERSION) into $@ (once)"
	@src=$$($(GO) mod download -json $(WEED_MODULE)@$(WEED_VERSION) | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p'); \
	test -n "$$src" || { echo "cannot download $(WEED_MODULE)@$(WEED_VERSION)"; exit 1; }; \
	cd "$$src" && $(GO) build -buildvcs=false -o $@.tmp ./weed && mv $@.tmp $@

test-cluster: $(WEED_BIN) ## run the cluster test: 2 serve + 2 render on PostgreSQL and SeaweedFS, under load and faults (needs PLATEN_TEST_POSTGRES_URL)
	@test -n "$$PLATEN_TEST_POSTGRES_URL" || { echo "PLATEN_TEST_POSTGRES_URL must be set"; exit 1; }
	PLATEN_TEST_CLUSTER=1 PLATEN_TEST_WEED=$(WEED_BIN) $(GO) test -count=1 -timeout 12m -v -run '^TestCluster$$' ./e2e/cluster/

cover: ## print the coverage of the last make test, by package
	$(GO) tool covdata percent -i=$(COVER_DIR)/unit,$(COVER_DIR)/bin

# Each target runs a count of inputs, about 30 s here, not a time: with a
# duration, Go's fuzzing coordinator can fail a target with "context
# deadline exceeded" and no input at all, when the deadline catches a
# worker mid-input (a race of its own, seen in CI on the render target).
# FUZZTIME=30s (or any -fuzztime) sets every target's budget at once;
# FUZZ_SHARE=3 runs a third of each count (about 10 s a target, as CI does).
FUZZ_PARSE ?= 300000
FUZZ_SPLIT ?= 200000
FUZZ_RENDER ?= 150000
FUZZ_VERIFY ?= 3000000
FUZZ_VALID ?= 1000000
FUZZ_UNESCAPE ?= 100000
FUZZ_CONTOUR ?= 30000
FUZZ_PLAIN ?= 300000
FUZZ_SVG ?= 100000
FUZZ_SHARE ?= 1
fuzztime = $(or $(FUZZTIME),$(shell expr $(1) / $(FUZZ_SHARE))x)

fuzz: test-tools ## run each fuzz target for about 30 s (a count of inputs each; FUZZTIME=… overrides): the design parser, the JSON splitter and validator, the template_config unescaper, the renderer, link tokens, die-cut contours, the answers' plain-string test, SVG images
	$(GO) test -run XXX -fuzz=FuzzParse -fuzztime=$(call fuzztime,$(FUZZ_PARSE)) ./internal/designdoc/
	$(GO) test -run XXX -fuzz=FuzzSplit -fuzztime=$(call fuzztime,$(FUZZ_SPLIT)) ./internal/jsonscan/
	$(GO) test -run XXX -fuzz=FuzzValid -fuzztime=$(call fuzztime,$(FUZZ_VALID)) ./internal/jsonscan/
	$(GO) test -run XXX -fuzz=FuzzQueryUnescape -fuzztime=$(call fuzztime,$(FUZZ_UNESCAPE)) ./internal/designdoc/
	$(GO) test -run XXX -fuzz=FuzzRender -fuzztime=$(call fuzztime,$(FUZZ_RENDER)) -parallel 1 ./internal/renderproc/
	$(GO) test -run XXX -fuzz=FuzzVerify -fuzztime=$(call fuzztime,$(FUZZ_VERIFY)) ./internal/downloads/token/
	$(GO) test -run XXX -fuzz=FuzzTrace -fuzztime=$(call fuzztime,$(FUZZ_CONTOUR)) ./internal/contour/
	$(GO) test -run XXX -fuzz=FuzzPlain -fuzztime=$(call fuzztime,$(FUZZ_PLAIN)) ./internal/gateway/
	$(GO) test -run XXX -fuzz=FuzzParse -fuzztime=$(call fuzztime,$(FUZZ_SVG)) ./internal/svgart/

# The benchmark harness is a Go module of its own, bench/, so that what
# only it uses stays out of Platen's go.mod. It is built into bin/ and run
# from here, so that paths in BENCH_FLAGS and what it writes (bench-soak/)
# are the repository's.
PLATEN_BENCH := bin/platen-bench -platen bin/platen

bench-harness: ## build bin/platen-bench, the benchmark harness (bench/)
	$(GO) -C bench build -o $(CURDIR)/bin/platen-bench ./cmd/platen-bench

bench: build bench-harness ## run the benchmarks of BENCHMARKS.md: HTTP, rendering, batches, webhooks, then hostile input
	$(PLATEN_BENCH) $(BENCH_FLAGS)

bench-latency: build bench-harness ## run only the latency benchmarks: an order to a ready file and its webhook
	$(PLATEN_BENCH) -suites latency $(BENCH_FLAGS)

bench-soak: build bench-harness ## run the soak (not part of bench): 30 min of mixed load at half the measured capacity on SQLite (and PostgreSQL with BENCH_FLAGS=-postgres=URL); samples and charts in bench-soak/
	$(PLATEN_BENCH) -suites soak $(BENCH_FLAGS)

bench-scaling: build bench-harness ## run the scaling measurement (not part of bench; PostgreSQL: BENCH_FLAGS=-postgres=URL): render processes and a serve pinned to a core each, each part's CPU per order, and the capacity table they give
	$(PLATEN_BENCH) -suites scaling $(BENCH_FLAGS)

bench-render: build bench-harness ## run only the rendering benchmarks
	$(PLATEN_BENCH) -suites render $(BENCH_FLAGS)

bench-batch: build bench-harness ## run only the batch benchmark: 200 items on SRA3 sheets, Platen against pdfcpu grid
	$(PLATEN_BENCH) -suites batch $(BENCH_FLAGS)

bench-webhooks: build bench-harness ## run only the webhook latency benchmarks
	$(PLATEN_BENCH) -suites webhooks $(BENCH_FLAGS)

bench-hostile: build bench-harness ## run only the hostile-input benchmarks: what each attack costs another team
	$(PLATEN_BENCH) -suites hostile $(BENCH_FLAGS)

bench-prints: build bench-harness ## run only the operator's prints list over 100,000 seeded prints
	$(PLATEN_BENCH) -suites prints $(BENCH_FLAGS)

# Run before closing any change to a request's or a render's path: it
# fails when a share falls more than 15% under BENCHMARKS.md's figure.
bench-guard: build bench-harness ## the create, read and render yardsticks in a few minutes (SQLite, 3 rounds interleaved), failing when one falls more than 15% under the figure BENCHMARKS.md records
	$(PLATEN_BENCH) -suites guard $(BENCH_FLAGS)

# The PDF/X colour profiles are committed; this rebuilds them from Debian's
# icc-profiles-free (needs apt-get and colprof from Debian's argyll).
icc-profiles: ## rebuild internal/iccprofile's FOGRA39 and sRGB profiles from Debian's icc-profiles-free
	internal/iccprofile/build.sh

generate: generate-proto generate-ent ## regenerate gen/ and ent/

# googleapis' HTTP annotations come from grpc-gateway v1's module (with its
# LICENSE) rather than being committed: buf reads them, never generates them.
googleapis:
	@dir=$$($(GO) mod download -json $(GATEWAY_V1) | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p'); \
	mkdir -p third_party/googleapis/google/api; \
	cp -f $$dir/third_party/googleapis/LICENSE third_party/googleapis/; \
	for f in annotations http httpbody; do cp -f $$dir/third_party/googleapis/google/api/$$f.proto third_party/googleapis/google/api/; done; \
	chmod -R u+w third_party

# buf writes the Go code and a Swagger 2.0 file (build/openapiv2, ignored);
# platen-openapi makes the OpenAPI 3.1 document of gen/openapi from it and
# the descriptors, and the API reference, docs/api-reference.md, from that.
generate-proto: googleapis ## regenerate gen/ from proto/ with buf, then the OpenAPI document
	rm -rf gen build/openapiv2
	$(GOTOOL) buf lint
	$(GOTOOL) buf generate
	$(GO) run ./cmd/platen-openapi -in build/openapiv2/platen.swagger.json -out gen/openapi

generate-ent: ## regenerate ent/ from ent/schema
	$(GO) generate ./ent

# staticcheck is pinned in a module of its own (tools/staticcheck), so that
# it moves no other tool's dependencies; staticcheck.conf files say which
# checks a folder leaves out, and why.
STATICCHECK := $(GO) tool -modfile=$(CURDIR)/tools/staticcheck/go.mod staticcheck

lint: googleapis ## buf lint, gofmt, go vet, staticcheck (the benchmark harness in bench/ too)
	$(GOTOOL) buf lint
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -vE '^(gen|ent)/'))" || (gofmt -l . ; exit 1)
	$(GO) vet ./...
	$(GO) -C bench vet ./...
	$(STATICCHECK) ./...
	cd bench && $(STATICCHECK) ./...

# Redocly's CLI, pinned in tools/openapi-lint (npm ci, no global install),
# lints the OpenAPI document: errors fail. Its one kind of warning is
# operation-4xx-response, on the six GETs that answer no 4xx (health,
# readiness, metrics, the document, its page and script). Without npm the
# lint is skipped, except where PLATEN_TEST_REQUIRE_TOOLS is set (CI).
lint-openapi: ## lint gen/openapi/platen.openapi.json with Redocly's CLI (needs npm)
	@if ! command -v npm >/dev/null; then \
	  echo "npm is not installed: the OpenAPI lint is skipped"; \
	  test -z "$$PLATEN_TEST_REQUIRE_TOOLS"; exit; \
	fi; \
	test -x tools/openapi-lint/node_modules/.bin/redocly || npm ci --prefix tools/openapi-lint --no-audit --no-fund --silent; \
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
	  tools/openapi-lint/node_modules/.bin/redocly lint --format=summary gen/openapi/platen.openapi.json

# The render tests check real PDFs with poppler (pdfinfo, pdftoppm,
# pdffonts), qpdf and Ghostscript (PDF/X-4: internal/pdfxtest), text in
# every script with the fallback fonts (Debian's Noto Sans, Droid Sans
# Fallback, Nanum Gothic and Symbola, which the renderer looks for), and
# compare rendered pages with SVGs drawn by librsvg (rsvg-convert) and
# Chromium (the fidelity suite); the operator panel's tests drive
# Debian's Chromium with playwright-core from
# npm (no browser download); the webhook tests verify
# deliveries with the npm verifiers receivers install. make test installs
# those npm packages into the repository when npm is there, and says which
# system packages are missing (their tests then skip); it never calls
# sudo. make install-test-tools installs them (with sudo unless root).

test-tools:
	@missing=$$($(MAKE) -s missing-test-tools); \
	if [ -n "$$missing" ]; then \
	  echo "not installed:$$missing; the tests that need them skip (make install-test-tools installs them)"; \
	fi
	@if command -v npm >/dev/null && ! { test -d internal/panel/browser/node_modules/playwright-core && \
	    test -d internal/panel/browser/node_modules/fabric; }; then \
	  echo "installing playwright-core and fabric for the panel's browser tests and the render package's fabric oracle"; \
	  npm ci --prefix internal/panel/browser --omit=optional --no-audit --no-fund --loglevel=error || \
	    echo "npm ci failed (its error is above): the panel's browser tests skip, or fail where PLATEN_TEST_REQUIRE_TOOLS is set"; \
	fi
	@if command -v npm >/dev/null && ! { test -d internal/webhooks/verifiers/node_modules/@octokit/webhooks-methods && \
	    test -d internal/webhooks/verifiers/node_modules/standardwebhooks; }; then \
	  echo "installing @octokit/webhooks-methods and standardwebhooks for the webhook verifier tests"; \
	  npm ci --prefix internal/webhooks/verifiers --no-audit --no-fund --loglevel=error || \
	    echo "npm ci failed (its error is above): the webhook verifier tests skip, or fail where PLATEN_TEST_REQUIRE_TOOLS is set"; \
	fi
	@if command -v npm >/dev/null && ! test -x e2e/clients/ts/node_modules/.bin/tsc; then \
	  echo "installing openapi-typescript, openapi-fetch and TypeScript for the generated-client tests"; \
	  npm ci --prefix e2e/clients/ts --no-audit --no-fund --loglevel=error || \
	    echo "npm ci failed (its error is above): the TypeScript client test skips, or fails where PLATEN_TEST_REQUIRE_TOOLS is set"; \
	fi

missing-test-tools:
	@missing=""; \
	command -v pdftoppm >/dev/null || missing="$$missing poppler-utils"; \
	command -v curl >/dev/null || missing="$$missing curl"; \
	command -v jq >/dev/null || missing="$$missing jq"; \
	command -v rsvg-convert >/dev/null || missing="$$missing librsvg2-bin"; \
	command -v qpdf >/dev/null || missing="$$missing qpdf"; \
	command -v patch >/dev/null || missing="$$missing patch"; \
	command -v gs >/dev/null || missing="$$missing ghostscript"; \
	command -v chromium-headless-shell >/dev/null || missing="$$missing chromium-headless-shell"; \
	command -v node >/dev/null || missing="$$missing nodejs"; \
	command -v npm >/dev/null || missing="$$missing npm"; \
	test -f /usr/share/fonts/truetype/noto/NotoSans-Regular.ttf || missing="$$missing fonts-noto-core"; \
	test -f /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf || missing="$$missing fonts-droid-fallback"; \
	test -f /usr/share/fonts/truetype/nanum/NanumGothic.ttf || missing="$$missing fonts-nanum"; \
	test -f /usr/share/fonts/truetype/ancient-scripts/Symbola_hint.ttf || missing="$$missing fonts-symbola"; \
	test -f /usr/share/fonts/opentype/urw-base35/NimbusSans-Regular.otf || missing="$$missing fonts-urw-base35"; \
	echo "$$missing"

install-test-tools: ## install the Debian packages the PDF and browser tests use (sudo unless root)
	@missing=$$($(MAKE) -s missing-test-tools); \
	if [ -n "$$missing" ]; then \
	  echo "installing$$missing"; \
	  SUDO=$$(test "$$(id -u)" = 0 || echo sudo); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
	@$(MAKE) -s test-tools

verify: generate ## regenerate and fail when anything changed
	git diff --exit-code -- gen ent docs/api-reference.md
	@test -z "$$(git status --porcelain -- gen ent docs/api-reference.md)" || (git status --porcelain -- gen ent docs/api-reference.md; exit 1)
