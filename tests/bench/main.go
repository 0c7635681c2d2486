// Command bench measures what a todo_write costs on a real Temporal server,
// beside a no-op update on the same server in the same run, and writes the
// results as a Markdown table (BENCHMARKS.md).
//
//	go run ./tests/bench -out BENCHMARKS.md   # full run, a few minutes on 2 cores
//	go run ./tests/bench -quick               # CI smoke run, under a minute
//	go run ./tests/bench -sessions 2000       # more live sessions for the memory figures
//	go run ./tests/bench -cpuprofile cpu.prof -memprofile mem.prof
//
// One process holds everything: an in-memory embedded Temporal server (no UI)
// and a worker that registers AgentSession exactly as the worker binary does,
// plus a benchmark-only BenchNoop workflow on the same task queue. The
// worker-only memory figure re-runs this binary as a separate worker process.
package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/durabletodos/agenttodos/embedded"
)

type options struct {
	out   string
	quick bool

	sessions      int           // live sessions for the memory figure
	updates       int           // sequential updates measured, each kind
	queries       int           // sequential queries measured, each kind
	manyWrites    int           // writes on one session before the "after many writes" query
	historyWrites int           // writes measured for history growth
	concurrency   int           // sessions (and goroutines) for throughput
	roundFor      time.Duration // one throughput round; two rounds each, ABBA
	warmup        int

	cpuProfile, memProfile string
	workerChild            string

	steps   string // comma-separated subset of the steps, for a quick look at one figure
	dataDir string // embedded server's SQLite directory; empty: a temporary one
	memory  bool   // the embedded server in memory instead
}

func parseOptions() options {
	var o options
	flag.StringVar(&o.out, "out", "", "also write the report to this file (e.g. BENCHMARKS.md)")
	flag.BoolVar(&o.quick, "quick", false, "short smoke run (fewer samples; targets still checked)")
	flag.IntVar(&o.sessions, "sessions", 1000, "live sessions for the memory figure (-quick: 100 unless set)")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the first throughput round of todo_write (whole process)")
	flag.StringVar(&o.memProfile, "memprofile", "", "write a heap profile taken with the live sessions")
	flag.StringVar(&o.steps, "steps", "", "run only these steps, comma-separated (memory, worker-only memory, update latency, query latency, encryption, history growth, bursts, throughput, two workers, stores); the report then has only their rows")
	flag.StringVar(&o.dataDir, "data-dir", "", "the embedded server's SQLite directory (default: a temporary one)")
	flag.BoolVar(&o.memory, "memory", false, "run the embedded server in memory, not on a SQLite file")
	flag.StringVar(&o.workerChild, "worker-child", "", "internal: run only a worker against host:port,namespace (the worker-only memory figure)")
	flag.Parse()
	o.concurrency = 50
	if o.quick {
		set := false
		flag.Visit(func(f *flag.Flag) { set = set || f.Name == "sessions" })
		if !set {
			o.sessions = 100
		}
		o.updates, o.queries, o.manyWrites, o.historyWrites = 100, 100, 500, 20
		o.roundFor, o.warmup = 2*time.Second, 20
	} else {
		o.updates, o.queries, o.manyWrites, o.historyWrites = 500, 500, 5000, 100
		o.roundFor, o.warmup = 10*time.Second, 50
	}
	return o
}

func main() {
	o := parseOptions()
	if o.workerChild != "" {
		if err := runChild(o.workerChild); err != nil {
			fmt.Fprintln(os.Stderr, "bench worker-only process:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	began := time.Now()
	r := &report{
		command: strings.TrimSpace("go run ./tests/bench " + strings.Join(os.Args[1:], " ")),
		date:    began.UTC(),
		machine: describeMachine(),
		loadAt:  loadAverage(),
		opts:    o,
	}
	// Warnings and errors only, from the server and the SDK alike.
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	st, err := startStack(embedded.Options{DataDir: o.dataDir}, o.memory, logger)
	if err != nil {
		return err
	}
	defer st.stop()
	srv, c := st.srv, st.c
	b := &bench{o: o, c: c, r: r, hostPort: srv.FrontendAddress(), namespace: srv.Namespace()}
	fmt.Fprintf(os.Stderr, "bench: server and worker up in %v; load %s\n", time.Since(began).Round(time.Millisecond), r.loadAt)
	steps := []struct {
		name string
		fn   func() error
	}{
		// Memory first, on a fresh process, so the baseline and the delta
		// are not blurred by the sessions the other figures leave behind.
		{"memory", b.memory},
		{"worker-only memory", b.workerOnlyMemory},
		{"update latency", b.updateLatency},
		{"query latency", b.queryLatency},
		{"encryption", b.encryption},
		{"history growth", b.historyGrowth},
		{"bursts", b.bursts},
		{"throughput", b.throughput},
		{"two workers", b.workers},
		{"stores", b.stores},
	}
	for _, s := range steps {
		if o.steps != "" && !slices.Contains(strings.Split(o.steps, ","), s.name) {
			continue
		}
		t := time.Now()
		if err := s.fn(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		fmt.Fprintf(os.Stderr, "bench: %s done in %v\n", s.name, time.Since(t).Round(time.Millisecond))
	}
	r.loadEnd = loadAverage()
	r.took = time.Since(began)

	md := r.markdown()
	fmt.Print(md)
	if o.out != "" {
		if err := os.WriteFile(o.out, []byte(md), 0o644); err != nil {
			return err
		}
	}
	return nil
}
