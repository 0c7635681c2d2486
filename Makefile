# `make test` is the one command that runs every check CI runs. On a fresh
# machine it first installs the two tools the end-to-end tests drive.
.PHONY: test tools lint unit fuzz bench run

# The stock temporal CLI carries its own (older) server and UI, so it gets its
# own GOBIN and never enters this module's go.mod.
TEMPORAL_CLI_BIN ?= $(HOME)/.cache/agenttodos/bin
export TEMPORAL_CLI_BIN
export PATH := $(TEMPORAL_CLI_BIN):$(PATH)

test: tools lint unit fuzz

tools: $(TEMPORAL_CLI_BIN)/temporal /usr/bin/chromium

$(TEMPORAL_CLI_BIN)/temporal:
	mkdir -p $(TEMPORAL_CLI_BIN)
	cd /tmp && GOFLAGS= GOBIN=$(TEMPORAL_CLI_BIN) go install github.com/temporalio/cli/cmd/temporal@v1.5.1

# Debian's Chromium for the Temporal UI browser test, and the colour emoji
# font the plan's marks need in screenshots.
/usr/bin/chromium:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null

lint:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	go vet ./...

unit:
	go test -race -count=1 -timeout 60m ./...
	# Allocation counts are only meaningful without the race detector.
	go test -count=1 -run Allocations ./todo

# Each fuzz target runs a fixed number of inputs (about 15 seconds here) on
# top of its seed corpus. A count, not a duration: Go 1.26's fuzz coordinator
# can report its own -fuzztime deadline as a failure ("context deadline
# exceeded", golang/go#75804, fixed in Go 1.27); a count never sets that
# deadline. -timeout still bounds a run that stops making progress.
fuzz:
	go test -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=15000x -timeout=5m ./todo
	go test -run='^$$' -fuzz='^FuzzParseLimits$$' -fuzztime=15000x -timeout=5m ./todo
	go test -run='^$$' -fuzz='^FuzzParseEdit$$' -fuzztime=40000x -timeout=5m ./todo

# Debian's PostgreSQL for the benchmark's production-visibility-store row.
bench: /usr/bin/pg_ctlcluster
	go test -run='^$$' -bench=. -benchmem ./todo
	go run ./tests/bench -out BENCHMARKS.md

/usr/bin/pg_ctlcluster:
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null

run:
	go run ./worker
