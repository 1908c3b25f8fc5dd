# KRaft Lab. `make run` serves the playground, `make test` runs everything CI runs.
GO ?= go
PORT ?= 8080

.PHONY: test checks e2e fmt-check mod-check vet unit bench bench-wasm bench-scale pgo run

# make test runs its parts side by side, at the same priority: the browser tests (e2e), the
# longest part, and everything else (checks). Neither waits for the other: a browser test's
# page draws frames all the time it plays, so Chromium takes every cycle the checks leave, and
# a lower priority (nice) for the checks starved them (Chromium sets its own threads' priority,
# its compositors above the default as root, whatever it was started with). --output-sync
# prints each part's output whole, when it ends.
test: fmt-check mod-check
	@$(MAKE) --no-print-directory -j --output-sync=target e2e checks

checks:
	@$(MAKE) --no-print-directory -j --output-sync=target vet check-ts unit wasm-test

# go.mod and go.sum must be what go mod tidy writes: direct dependencies not marked
# // indirect, nothing unused, every checksum present.
mod-check:
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '_templ.go$$')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# Every package's tests but the browser tests (make e2e). KRAFTLAB_RELEASE_SIZES=1: web/build's
# TestReleaseSizes builds the release site (brotli at its best quality, tens of seconds of CPU)
# once and holds each wasm and page load to the size budgets. The longest packages come first,
# so that go test starts them first. -timeout=20m: a loaded machine can take several times as
# long as an idle one.
SLOW_PACKAGES := ./web/build ./cluster ./wasm/bridge ./lessons
unit:
	KRAFTLAB_RELEASE_SIZES=1 $(GO) test -count=1 -timeout=20m $(SLOW_PACKAGES) $$($(GO) list ./... | grep -v '/web/e2e$$')

# The browser tests (web/e2e): the site built once, then the tests in one headless Chromium
# they share, each on its own server, E2E_PARALLEL of them at a time. More than the cores: a test mostly waits for the
# page or for cluster time to pass, and the suite's CPU time is about a third of its wall time
# two at a time (docs/performance.md, "The test suite").
E2E_PARALLEL ?= 3
e2e:
	$(GO) test -count=1 -timeout=20m -parallel=$(E2E_PARALLEL) ./web/e2e

# Benchmarks of the hot paths; figures are recorded in docs/performance.md.
bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./engine/...

# Profile-guided optimisation. cmd/kraftlab/default.pgo is a CPU profile of the cluster's two
# scale runs: `go build ./cmd/kraftlab` (and go run, go install) use it on their own, as Go does
# with a main package's default.pgo, and the scale benchmarks pass it with -pgo so that they time
# the code the CLI ships. It changes what the compiler inlines and how it lays out code, never
# what a run computes. `make pgo` records it again, from a build without it (about 2 minutes).
# The wasm programs are built without a profile: there it did not pay (docs/performance.md).
PGO := $(CURDIR)/cmd/kraftlab/default.pgo

pgo:
	@tmp=$$(mktemp -d) && \
	KRAFTLAB_BIG=1 $(GO) test -pgo=off -count=1 -run='TestRollingRestartMillionPartitions$$' -cpuprofile=$$tmp/big.prof -o $$tmp/cluster.test ./cluster && \
	$(GO) test -pgo=off -count=1 -run='^$$' -bench=KIPLoadTest -benchtime=6x -cpuprofile=$$tmp/kip.prof -o $$tmp/cluster.test ./cluster && \
	$(GO) tool pprof -proto $$tmp/big.prof $$tmp/kip.prof > $(PGO) && rm -rf $$tmp

# The cluster's scale budgets (docs/performance.md): the KIP load test, and the 1M-partition rolling
# restart (about a minute, 1.8 GB), built with the CLI's profile.
bench-scale:
	$(GO) test -pgo=$(PGO) -run='^$$' -bench=KIPLoadTest -benchtime=3x ./cluster
	KRAFTLAB_BIG=1 $(GO) test -pgo=$(PGO) -v -run='TestRollingRestartMillionPartitions$$' -timeout=20m ./cluster

# The engine's hot path compiled to WebAssembly and run under Node, as the page runs it.
bench-wasm:
	GOOS=js GOARCH=wasm $(GO) test -run='^$$' -bench=ElectPreferredRun -benchtime=50x -exec="$$($(GO) env GOROOT)/lib/wasm/go_js_wasm_exec" ./engine/controller

# Build dist/ and serve it on 127.0.0.1 (the playground page; see web/). The edit loop's build:
# no compressed copies, which on loopback would save nothing and cost most of the build.
run:
	$(GO) run build.go -dev && $(GO) run ./web/cmd/serve -addr 127.0.0.1:$${PORT:-8080}

# --- web pipeline: build.go, web/, wasm/ ---------------------------------------------------------
.PHONY: dist wasm-test templ tsgen check-ts bench-frame bench-page

# The release build: the static site with .gz/.br copies for a static host, its size table and
# any budget it exceeds (go run build.go -h for options).
dist:
	$(GO) run build.go

# The js/wasm layer (wasm/worker, wasm/bridge) under Node, with the packages the page runs
# through it (lessons, the scenario format, the lab), as the page runs them; native
# `go vet ./...` cannot see js-only files, so they are vetted here too. Every test of the
# js-only code runs, and every test that holds a run to figures recorded natively (the
# goldens, the compiled course, the lessons' expect: lines), which is where the platform could
# make a run differ; long tests that compare two computations inside one process run natively
# only (internal/jsskip; KRAFTLAB_JS_ALL=1 runs them here too). CONTRIBUTING.md has the rule.
# lessons, the longest under Node, comes first, so that go test starts it first.
wasm-test:
	GOOS=js GOARCH=wasm $(GO) vet ./wasm/...
	GOOS=js GOARCH=wasm $(GO) test -count=1 -timeout=20m -exec="$$($(GO) env GOROOT)/lib/wasm/go_js_wasm_exec" ./lessons/... ./wasm/... ./cluster/scenario/... ./lab/...

# The page's hot path: building a frame (10,000 and 100,000 partitions), a minute of cluster
# time on the default cluster and a frame's worth at 10,000x on a quiet cluster (QuietPlayback,
# cluster-s/s), natively and compiled to WebAssembly under Node (docs/performance.md).
bench-frame:
	$(GO) test -run='^$$' -bench='Frame|Advance|QuietPlayback' -benchmem ./wasm/bridge
	GOOS=js GOARCH=wasm $(GO) test -run='^$$' -bench='Frame$$|Advance|QuietPlayback' -benchtime=40x -exec="$$($(GO) env GOROOT)/lib/wasm/go_js_wasm_exec" ./wasm/bridge
	KRAFTLAB_MEASURE=1 $(GO) test -count=1 -v -run='TestPlayground/(page|frame)' ./web/e2e | grep -E 'time to|in Chromium|canvas:'

# The page's figures in headless Chromium, printed as docs/performance.md's table: fps and speed
# reached at every offered speed, first frame under two network profiles, memory, the lab's
# compare. It builds this tree's release site; KRAFTLAB_BENCH_SITES=before=DIR,after=DIR measures
# built sites side by side instead, KRAFTLAB_BENCH_ONLY=speed,load,memory,week,fast,lab a subset. A
# benchmark, not a test: CI runs none of it (about 15 minutes per site).
bench-page:
	KRAFTLAB_BENCH_PAGE=1 $(GO) test -count=1 -v -timeout=90m -run='^TestBenchPage$$' ./web/e2e | grep -v '^=== '

# Regenerate web/*_templ.go after editing a .templ file (a test fails while they are stale).
templ:
	$(GO) tool templ generate -path web

# Regenerate the TypeScript message types (web/ts/protocol_gen.ts, web/ts/lesson/protocol.ts,
# web/ts/lab/protocol_gen.ts) from the bridge's Go types after changing one (a test fails while
# they are stale).
tsgen:
	$(GO) run ./web/cmd/tsgen

# Type-check the TypeScript (esbuild strips types without checking them) with a pinned
# TypeScript from npm, fetched once into npm's cache; .ci/run installs Node and npm. One tsc
# checks the four projects (the playground, its tests, the lab, the lessons) in build mode,
# which parses the files they share once: about two thirds of the CPU of four tsc runs. It records
# each project's state in a .tsbuildinfo file beside its tsconfig.json (ignored by git).
TYPESCRIPT := 5.9.3
check-ts:
	npx --yes -p typescript@$(TYPESCRIPT) -c 'tsc -b web/ts web/ts/test web/ts/lab web/ts/lesson'

# The screenshot set (web/e2e TestScreenshots): the playground, presenter mode, a lesson, the
# lessons index and the config lab at 390, 800 and 1440 px wide, as PNGs (the viewport) and
# JPEGs (the whole page) in $(SHOTS), for a person to look at.
SHOTS ?= test-output/screenshots
.PHONY: screenshots
screenshots:
	KRAFTLAB_SCREENSHOTS=$(SHOTS) $(GO) test -count=1 -timeout=20m -run 'TestScreenshots' ./web/e2e

# --- reliability: fuzzers and the browser monkey (docs/reliability.md) ----------------------------
.PHONY: fuzz fuzz-go fuzz-ts monkey

# Every fuzzer, FUZZTIME each (go test runs one fuzz target at a time): the scenario parser,
# the share link's sim.load, the lab's description file and imports, the properties parser, the
# plan's durations (against time.ParseDuration) and the lesson format. A crasher is saved
# under the package's testdata/fuzz and fails the target.
FUZZTIME ?= 30s
FUZZERS := ./cluster/scenario:FuzzParse ./wasm/bridge:FuzzLoad ./lab:FuzzParseDescription \
	./lab:FuzzImport ./lab:FuzzParseProperties ./lab:FuzzParseDurationMs ./lessons:FuzzParse

fuzz: fuzz-go fuzz-ts

fuzz-go:
	@for f in $(FUZZERS); do \
		pkg=$${f%%:*}; name=$${f##*:}; echo "== $$name ($$pkg, $(FUZZTIME))"; \
		$(GO) test -run='^$$' -fuzz="^$$name$$" -fuzztime=$(FUZZTIME) $$pkg || exit 1; \
	done

# The TypeScript decoders (share link, lab link, lesson Markdown) under fast-check, an npm
# package installed here for these tests only (web/ts/test/prop; needs npm and node).
FAST_CHECK_DIR ?= $(CURDIR)/.cache/fast-check
PROP_RUNS ?= 5000
fuzz-ts:
	npm install --prefix $(FAST_CHECK_DIR) --no-audit --no-fund --silent fast-check@4.11.0
	KRAFTLAB_FAST_CHECK=$(FAST_CHECK_DIR)/node_modules KRAFTLAB_PROP_RUNS=$(PROP_RUNS) \
		$(GO) test -count=1 -v -run='^TestTypeScriptProperties$$' ./web/tstest

# The browser monkey (web/e2e TestMonkey) at length: MONKEY_ACTIONS random actions with a fresh
# seed (printed; MONKEY_SEED=N replays one), each answer held to 200 ms of main-thread delay.
MONKEY_ACTIONS ?= 3000
MONKEY_SEED ?= $(shell date +%s)
monkey:
	KRAFTLAB_MONKEY_SEED=$(MONKEY_SEED) KRAFTLAB_MONKEY_ACTIONS=$(MONKEY_ACTIONS) KRAFTLAB_MONKEY_LAG_MS=200 \
		$(GO) test -count=1 -v -timeout=60m -run='^TestMonkey$$' ./web/e2e
