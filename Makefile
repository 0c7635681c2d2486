# `make test` is the one command that runs every check CI runs.
.PHONY: test lint unit fuzz bench run

test: lint unit fuzz

lint:
	@out="$$(gofmt -l .)"; if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	go vet ./...

unit:
	go test -race -count=1 -timeout 60m ./...
	# Allocation counts are only meaningful without the race detector.
	go test -count=1 -run Allocations ./todo

# Each fuzz target runs for a bounded 20 seconds on top of its seed corpus.
fuzz:
	go test -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=20s ./todo
	go test -run='^$$' -fuzz='^FuzzParseLimits$$' -fuzztime=20s ./todo

bench:
	go test -run='^$$' -bench=. -benchmem ./todo
	go run ./tests/bench

run:
	go run ./worker
