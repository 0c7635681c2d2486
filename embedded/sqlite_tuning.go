package embedded

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// SQLiteOptions tune the database file (Options.DataDir set); the zero value
// is what a worker runs with.
//
// The default is a write-ahead log with synchronous=NORMAL on one
// connection. A commit then appends to the log without waiting for the
// disk, so writes are several times faster than with the plugin's own
// default (rollback journal, synchronous=FULL: two fsyncs per commit). A
// commit is durable as soon as the server acknowledges it against a crash or
// SIGKILL of the process (the log is in the operating system's hands); a
// power cut or kernel crash can undo the commits since the last
// checkpoint, never corrupt the file.
type SQLiteOptions struct {
	// Pragmas override the defaults, as `temporal server start-dev
	// --sqlite-pragma` does: journal_mode (wal, delete, truncate,
	// persist) and synchronous (off, normal, full, extra).
	Pragmas map[string]string
	// MaxConns lets that many connections share the file; more than one
	// needs journal_mode=wal, and gets busy_timeout=5000 unless set: SQLite
	// still takes one writer at a time, and without a timeout a second
	// writer fails at once with SQLITE_BUSY. Zero means one connection,
	// which measured faster (BENCHMARKS.md) and keeps every write in one
	// queue.
	MaxConns int
}

// defaultPragmas are applied to every connection to the database file.
var defaultPragmas = map[string]string{
	"journal_mode": "wal",
	"synchronous":  "normal",
}

// allowedPragmas are the ones SQLiteOptions may set, with their values:
// the plugin turns any other connect attribute into a pragma, so anything
// unchecked here would reach SQLite as whatever it was spelled.
var allowedPragmas = map[string][]string{
	"journal_mode": {"wal", "delete", "truncate", "persist"},
	"synchronous":  {"off", "normal", "full", "extra"},
	"busy_timeout": nil, // milliseconds
}

// pragmas merges o over the defaults and checks the result.
func (o SQLiteOptions) pragmas() (map[string]string, error) {
	out := maps.Clone(defaultPragmas)
	for k, v := range o.Pragmas {
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.ToLower(strings.TrimSpace(v))
		values, ok := allowedPragmas[k]
		if !ok {
			return nil, fmt.Errorf("sqlite pragma %q is not supported (supported: %s)", k, strings.Join(slices.Sorted(maps.Keys(allowedPragmas)), ", "))
		}
		if k == "busy_timeout" {
			if n, err := strconv.Atoi(v); err != nil || n < 0 {
				return nil, fmt.Errorf("sqlite pragma busy_timeout=%q: want milliseconds", v)
			}
		} else if !slices.Contains(values, v) {
			return nil, fmt.Errorf("sqlite pragma %s=%q: want one of %s", k, v, strings.Join(values, ", "))
		}
		out[k] = v
	}
	if o.MaxConns > 1 {
		if out["journal_mode"] != "wal" {
			return nil, fmt.Errorf("sqlite: %d connections need journal_mode=wal, not %s", o.MaxConns, out["journal_mode"])
		}
		if _, ok := out["busy_timeout"]; !ok {
			out["busy_timeout"] = "5000"
		}
	}
	return out, nil
}
