# trail: the two set-up commands are `make demo` and `make test`.
GO      ?= go
BIN     ?= bin/trail
VERSION ?= $(shell git describe --tags --always --dirty --abbrev=7 2>/dev/null || echo 0.1.0-dev)

.PHONY: build demo test bench fmt vet man cross

# The release build: no cgo (Go's own resolver reads /etc/hosts and honours
# HTTPS_PROXY; e2e_proxy_test.go checks both on this binary), urfave/cli
# without its man-page generator (blackfriday's init costs ~2 ms a run and
# trail never calls it), no symbol tables. go install with the same tags and
# CGO_ENABLED=0 (README) gives the same program.
RELEASE_TAGS    = urfave_cli_no_docs
RELEASE_LDFLAGS = -s -w -X trail/commands.Version=$(VERSION)

build:
	CGO_ENABLED=0 $(GO) build -trimpath -tags $(RELEASE_TAGS) -ldflags "$(RELEASE_LDFLAGS)" -o $(BIN) .

# A scripted session, offline, in a temporary home.
demo: build
	scripts/demo.sh $(BIN)

# The whole suite: formatting, vet, unit and end-to-end tests.
test:
	@unformatted=$$(gofmt -l . | grep -v '^testdata/'); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test ./...

# The release targets, each built without cgo into bin/cross/, then vet
# with the tests for the other two systems: it type-checks the files behind
# build tags (store/open_windows.go, the pty helpers) that no test here runs.
CROSS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
cross:
	@set -e; for p in $(CROSS); do \
		os=$${p%/*}; arch=$${p#*/}; exe=trail-$$os-$$arch; [ $$os = windows ] && exe=$$exe.exe; \
		echo "build $$p -> bin/cross/$$exe"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -tags $(RELEASE_TAGS) -ldflags "$(RELEASE_LDFLAGS)" -o bin/cross/$$exe .; \
	done
	GOOS=darwin $(GO) vet ./...
	GOOS=windows $(GO) vet ./...

# The SPEC 9 numbers: CLI timings, list over 10,000 sessions, log appends.
bench: build
	scripts/bench.sh

fmt:
	gofmt -w $$(git ls-files '*.go')

vet:
	$(GO) vet ./...

# The manual page, from the command definitions (scripts/man): man -l trail.1
man:
	$(GO) run -ldflags "-X trail/commands.Version=$(VERSION)" ./scripts/man > trail.1
