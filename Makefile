# Platen: `make help` lists the targets.
SHELL := /bin/bash
GO ?= go
GOTOOL := $(GO) tool -modfile=tools/go.mod
GATEWAY_V1 := github.com/grpc-ecosystem/grpc-gateway@v1.16.0
TEST_FLAGS ?= -race -count=1 -timeout 20m

.PHONY: help run build test fuzz test-tools bench bench-render bench-batch bench-webhooks bench-hostile generate generate-proto generate-ent googleapis lint verify

help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

run: ## start platen serve on the embedded defaults (SQLite in ./data)
	$(GO) run ./cmd/platen serve

build: ## build bin/platen
	$(GO) build -o bin/platen ./cmd/platen

test: test-tools ## run every test (PostgreSQL too when PLATEN_TEST_POSTGRES_URL is set)
	$(GO) vet ./...
	$(GO) test $(TEST_FLAGS) ./...

FUZZTIME ?= 30s

fuzz: test-tools ## run each fuzz target for FUZZTIME (30s): the design parser, the renderer, link tokens
	$(GO) test -run XXX -fuzz=FuzzParse -fuzztime=$(FUZZTIME) ./internal/design/
	$(GO) test -run XXX -fuzz=FuzzRender -fuzztime=$(FUZZTIME) -parallel 1 ./internal/rendersup/
	$(GO) test -run XXX -fuzz=FuzzVerify -fuzztime=$(FUZZTIME) ./internal/links/

bench: build ## run the benchmarks of BENCHMARKS.md: HTTP, rendering, batches, webhooks, then hostile input
	$(GO) run ./cmd/platen-bench -platen bin/platen $(BENCH_FLAGS)

bench-render: build ## run only the rendering benchmarks
	$(GO) run ./cmd/platen-bench -platen bin/platen -suites render $(BENCH_FLAGS)

bench-batch: build ## run only the batch benchmark: 200 items on SRA3 sheets, Platen against pdfcpu grid
	$(GO) run ./cmd/platen-bench -platen bin/platen -suites batch $(BENCH_FLAGS)

bench-webhooks: build ## run only the webhook latency benchmarks
	$(GO) run ./cmd/platen-bench -platen bin/platen -suites webhooks $(BENCH_FLAGS)

bench-hostile: build ## run only the hostile-input benchmarks: what each attack costs another team
	$(GO) run ./cmd/platen-bench -platen bin/platen -suites hostile $(BENCH_FLAGS)

generate: generate-proto generate-ent ## regenerate gen/ and ent/

# googleapis' HTTP annotations come from grpc-gateway v1's module (with its
# LICENSE) rather than being committed: buf reads them, never generates them.
googleapis:
	@dir=$$($(GO) mod download -json $(GATEWAY_V1) | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p'); \
	mkdir -p third_party/googleapis/google/api; \
	cp -f $$dir/third_party/googleapis/LICENSE third_party/googleapis/; \
	for f in annotations http httpbody; do cp -f $$dir/third_party/googleapis/google/api/$$f.proto third_party/googleapis/google/api/; done; \
	chmod -R u+w third_party

generate-proto: googleapis ## regenerate gen/ from proto/ with buf
	rm -rf gen
	$(GOTOOL) buf lint
	$(GOTOOL) buf generate

generate-ent: ## regenerate ent/ from ent/schema
	$(GO) generate ./ent

lint: googleapis ## buf lint, gofmt, go vet
	$(GOTOOL) buf lint
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -vE '^(gen|ent)/'))" || (gofmt -l . ; exit 1)
	$(GO) vet ./...

# The render tests check real PDFs with poppler (pdfinfo, pdftoppm,
# pdffonts), and the operator panel's tests drive Debian's chromium with
# playwright-core from npm (no browser download); install what is missing.
test-tools:
	@missing=""; \
	command -v pdftoppm >/dev/null || missing="$$missing poppler-utils"; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v npm >/dev/null || missing="$$missing nodejs npm"; \
	if [ -n "$$missing" ]; then \
	  echo "installing$$missing for the tests"; \
	  SUDO=$$(test "$$(id -u)" = 0 || echo sudo); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi
	@test -d internal/panel/browser/node_modules/playwright-core || \
	  { echo "installing playwright-core for the panel's browser tests"; \
	    npm ci --prefix internal/panel/browser --no-audit --no-fund --silent; }

verify: generate ## regenerate and fail when anything changed
	git diff --exit-code -- gen ent
	@test -z "$$(git status --porcelain -- gen ent)" || (git status --porcelain -- gen ent; exit 1)
