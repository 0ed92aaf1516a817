# goodput — build, test, demo, bench. Everything runs offline after `go mod download`.
GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT   ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS  := -s -w -X main.version=$(VERSION) -X main.commit=$(COMMIT)
# arrow-go's JSON through encoding/json instead of goccy/go-json: 2 MB less
# binary (dataset reads Arrow files; it needs no fast JSON from arrow-go).
TAGS     := arrow_json_stdlib
PKGS     := ./...
FUZZTIME ?= 3s
# staticcheck, pinned; `make tools` installs it into GOBIN (else the first
# GOPATH entry's bin), which lint finds there even when it is not on PATH.
STATICCHECK_VERSION := v0.8.2
GOBIN_DIR   := $(or $(shell $(GO) env GOBIN),$(firstword $(subst :, ,$(shell $(GO) env GOPATH)))/bin)
STATICCHECK ?= $(GOBIN_DIR)/staticcheck

.PHONY: all build test check lint vet fmt-check staticcheck tools unit race knee scale peerdocs readme gate-table fuzz demo bench bench-gate bench-baseline image clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -trimpath -tags $(TAGS) -ldflags "$(LDFLAGS)" -o bin/goodput ./cmd/goodput

## test: the quick suite (a few minutes on two cores): vet, gofmt and every
## test in -short mode without the race detector; -short leaves out the long
## end-to-end runs (each command keeps a representative one), the knee check,
## the 2,000-stream check and the multi-process runs.
test: vet fmt-check unit

## check: everything CI runs: the quick suite's lint plus staticcheck,
## every test with the race detector (the long ones included), the
## real-time knee check and the 2,000-stream memory check (both without
## the race detector, which skews timing and memory), the peers' and the
## README's command lines, and a bounded fuzz pass.
check: lint race knee scale peerdocs readme fuzz

## lint: go vet, the gofmt check and staticcheck.
lint: vet fmt-check staticcheck

vet:
	$(GO) vet $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

staticcheck:
	@test -x "$(STATICCHECK)" || $(MAKE) --no-print-directory tools
	"$(STATICCHECK)" $(PKGS)

## tools: install the pinned staticcheck (needs the Go module proxy or a module cache).
tools:
	$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

unit:
	$(GO) test -short -count=1 -timeout 10m $(PKGS)

race:
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

## knee: the knee search against the capacity-model mock lands within ±10 %
## of the analytic knee (real time, about 80 s; skipped under -race).
knee:
	$(GO) test -count=1 -timeout 10m -run 'TestKneeMatchesCapacity' -v ./sweep

## peerdocs: every command line of the peers' docs against the mock
## (cmd/goodput/testdata/peerdocs), and GuideLLM's examples with their
## output files read back (-race runs only the corpus's short subset).
peerdocs:
	$(GO) test -count=1 -timeout 15m -run 'TestPeerDocsCorpus|TestGuideLLMDocExamples' ./cmd/goodput

## readme: every command line of README.md's code blocks against the mock,
## durations shortened (about 1 minute; -short and -race run a subset).
readme:
	$(GO) test -count=1 -timeout 15m -run 'TestREADMECommands' ./cmd/goodput

## gate-table: measure the README's table of the smallest slowdown each
## default check of goodput compare detects (about 20 minutes; not in check).
gate-table:
	GOODPUT_GATE_TABLE=1 $(GO) test -count=1 -timeout 60m -run 'TestGateTable' -v ./cmd/goodput

## scale: 2,000 streams on goodput's client hold at most 20 KB of live memory
## each (about 10 s; the memory is not checked under -race).
scale:
	$(GO) test -count=1 -timeout 5m -run 'TestTwoThousandStreams' -v ./loadgen

## fuzz: run every fuzz target for FUZZTIME (default 3s, to keep CI under
## 30 minutes on 2 cores) each.
fuzz:
	@scripts/fuzz.sh $(FUZZTIME)

## demo: start the built-in mock on loopback, run a short benchmark, write the report.
demo: build
	@scripts/demo.sh

## bench: the performance suite; prints each figure with its target.
bench: build
	@scripts/bench.sh

## bench-gate: goodput's CPU per token side by side with bench/minclient
## (7 pairs of 3 s runs per load, the two at once; about 1 minute), judged by
## `goodput compare` against bench/baseline/$(BENCH_KIND).json: exit 1 when
## the median ratio rose by more than 10 % and a rank test of the pairs
## against the baseline's finds them higher (p < 0.05).
BENCH_KIND ?= $(shell nproc)cpu-$(shell $(GO) env GOARCH)
BENCH_GATE_OUT ?= bin/bench-gate.json
bench-gate: build
	@test -f bench/baseline/$(BENCH_KIND).json || { echo "no baseline bench/baseline/$(BENCH_KIND).json for this machine kind: make bench-baseline"; exit 2; }
	$(GO) run ./bench/suite -only gate -pairs 7 -json $(BENCH_GATE_OUT)
	bin/goodput compare bench/baseline/$(BENCH_KIND).json $(BENCH_GATE_OUT)

## bench-baseline: measure the gate's loads and keep them as this machine
## kind's baseline (commit bench/baseline/$(BENCH_KIND).json).
bench-baseline: build
	@mkdir -p bench/baseline
	$(GO) run ./bench/suite -only gate -pairs 7 -json bench/baseline/$(BENCH_KIND).json

image:
	docker build --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) -t goodput:$(VERSION) .

clean:
	rm -rf bin
