# trail: the two set-up commands are `make demo` and `make test`.
GO      ?= go
BIN     ?= bin/trail
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)

.PHONY: build demo test bench fmt vet man

build:
	$(GO) build -ldflags "-X trail/commands.Version=$(VERSION)" -o $(BIN) .

# A scripted session, offline, in a temporary home.
demo: build
	scripts/demo.sh $(BIN)

# The whole suite: formatting, vet, unit and end-to-end tests.
test:
	@unformatted=$$(gofmt -l . | grep -v '^testdata/'); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test ./...

# The SPEC 9 numbers: CLI timings, list over 10,000 sessions, log appends.
bench: build
	scripts/bench.sh

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	$(GO) vet ./...

# The manual page, from the command definitions (scripts/man): man -l trail.1
man:
	$(GO) run ./scripts/man > trail.1
