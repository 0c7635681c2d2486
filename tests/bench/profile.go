package main

import (
	"os"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// cpuCategory is a part of the process's CPU time, recognised by a function
// on the sample's stack. The first category that matches takes the sample.
type cpuCategory struct {
	name  string
	match []string // substrings of function names
}

var cpuCategories = []cpuCategory{
	{"visibility: the search-attribute upsert's visibility task (history's visibility queue → SQLite `INSERT … ON CONFLICT DO UPDATE` on `executions_visibility`)",
		[]string{"visibilityQueueTaskExecutor", "persistence/visibility"}},
	{"history: workflow task completed (mutable state, history events, the transaction)",
		[]string{"history.(*Handler).RespondWorkflowTaskCompleted"}},
	{"history: update requests and other history RPCs",
		[]string{"service/history."}},
	{"matching and frontend (task dispatch, RPC handling)",
		[]string{"service/matching.", "service/frontend."}},
	{"other SQLite work (queues, task reads and deletes)",
		[]string{"modernc.org/sqlite"}},
	{"SDK worker and client (workflow code, local activity, payloads)",
		[]string{"go.temporal.io/sdk/", "agenttodos/"}},
	{"gRPC and protobuf outside the above",
		[]string{"google.golang.org/grpc", "google.golang.org/protobuf"}},
	{"garbage collection", []string{"runtime.gcBgMarkWorker", "runtime.gcDrain", "runtime.bgsweep", "runtime.bgscavenge"}},
}

// statementCompile is SQLite parsing and compiling an SQL statement, part of
// whichever category ran it: the server's SQLite plugin prepares every
// statement anew (modernc.org/sqlite keeps no statement cache for Exec).
const statementCompile = "sqlite3Prepare"

// cpuShares is what one CPU profile says about one throughput round.
type cpuShares struct {
	duration time.Duration
	total    time.Duration   // CPU time sampled, all goroutines
	byName   []time.Duration // per cpuCategories entry, then "other"
	// compile is statement compilation inside the visibility category, and
	// compileAll anywhere.
	compile, compileAll time.Duration
	writes              int64 // writes done while profiling
}

func readCPUProfile(path string) (cpuShares, error) {
	f, err := os.Open(path)
	if err != nil {
		return cpuShares{}, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return cpuShares{}, err
	}
	s := cpuShares{duration: time.Duration(p.DurationNanos), byName: make([]time.Duration, len(cpuCategories)+1)}
	// The "cpu" sample value is in nanoseconds.
	valueIndex := len(p.SampleType) - 1
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			valueIndex = i
		}
	}
	for _, sample := range p.Sample {
		d := time.Duration(sample.Value[valueIndex])
		s.total += d
		var names []string
		for _, loc := range sample.Location {
			for _, line := range loc.Line {
				names = append(names, line.Function.Name)
			}
		}
		has := func(subs []string) bool {
			for _, n := range names {
				for _, sub := range subs {
					if strings.Contains(n, sub) {
						return true
					}
				}
			}
			return false
		}
		cat := len(cpuCategories)
		for i, c := range cpuCategories {
			if has(c.match) {
				cat = i
				break
			}
		}
		s.byName[cat] += d
		if has([]string{statementCompile}) {
			s.compileAll += d
			if cat == 0 {
				s.compile += d
			}
		}
	}
	return s, nil
}
