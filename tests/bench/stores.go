package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"go.temporal.io/server/common/config"
	sqliteschema "go.temporal.io/server/schema/sqlite"

	"github.com/durabletodos/agenttodos/embedded"
)

// storeResult is one store configuration's throughput, ours against no-op
// updates on the same server.
type storeResult struct {
	name, durable string
	ours, noop    float64
	err           error
}

// stores measures the throughput figure again on fresh servers with other
// SQLite settings, and with visibility on PostgreSQL when Debian's
// postgresql package is installed: where the search-attribute upsert's
// cost goes with each, in the same run.
func (b *bench) stores() error {
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	pragmas := func(kv ...string) embedded.SQLiteOptions {
		o := embedded.SQLiteOptions{Pragmas: map[string]string{}}
		for i := 0; i < len(kv); i += 2 {
			o.Pragmas[kv[i]] = kv[i+1]
		}
		return o
	}
	const (
		crashAndPower = "process crash and power loss"
		crashOnly     = "process crash; a power loss may undo the last commits"
		crashOnlyRisk = "process crash; a power loss may corrupt the file"
	)
	// visibility: where the variant keeps visibility besides the main file.
	const (
		inMainFile = ""
		secondFile = "sqlite"
		onPostgres = "postgres"
	)
	variants := []struct {
		name, durable string
		opts          embedded.Options
		visibility    string
	}{
		{"SQLite, rollback journal, synchronous=FULL (the plugin's defaults, this project's before)", crashAndPower,
			embedded.Options{SQLite: pragmas("journal_mode", "delete", "synchronous", "full")}, inMainFile},
		{"SQLite, WAL, synchronous=EXTRA", crashAndPower, embedded.Options{SQLite: pragmas("synchronous", "extra")}, inMainFile},
		{"SQLite, WAL, synchronous=FULL", crashAndPower, embedded.Options{SQLite: pragmas("synchronous", "full")}, inMainFile},
		{"SQLite, WAL, synchronous=NORMAL (the default now)", crashOnly, embedded.Options{}, inMainFile},
		{"SQLite, WAL, synchronous=NORMAL, 4 connections", crashOnly, embedded.Options{SQLite: embedded.SQLiteOptions{MaxConns: 4}}, inMainFile},
		{"SQLite, WAL, synchronous=OFF", crashOnlyRisk, embedded.Options{SQLite: pragmas("synchronous", "off")}, inMainFile},
		{"SQLite (WAL, NORMAL) with visibility in a second SQLite file (WAL, NORMAL)", crashOnly, embedded.Options{}, secondFile},
		{"SQLite (WAL, NORMAL) with visibility on PostgreSQL %s (Debian, its defaults: fsync on)", crashOnly + " (SQLite); PostgreSQL: both", embedded.Options{}, onPostgres},
	}
	for _, v := range variants {
		res := storeResult{name: v.name, durable: v.durable}
		switch v.visibility {
		case onPostgres:
			pg, err := findPostgres()
			if err == nil {
				res.name = fmt.Sprintf(v.name, pg.version)
				err = pg.start()
				defer pg.stop()
			}
			if err == nil {
				v.opts.Visibility, err = pg.visibilityStore("temporal_visibility")
			}
			if err != nil {
				res.name = fmt.Sprintf(v.name, "")
				res.err = err
				b.r.stores = append(b.r.stores, res)
				continue
			}
		case secondFile:
			dir, err := os.MkdirTemp("", "bench-visibility-")
			if err == nil {
				defer os.RemoveAll(dir)
				v.opts.Visibility, err = sqliteVisibility(filepath.Join(dir, "visibility.db"))
			}
			if err != nil {
				res.err = err
				b.r.stores = append(b.r.stores, res)
				continue
			}
		}
		res.ours, res.noop, res.err = b.storeThroughput(v.opts, logger)
		b.r.stores = append(b.r.stores, res)
		fmt.Fprintf(os.Stderr, "bench: store %s: %.0f / %.0f\n", res.name, res.ours, res.noop)
	}
	return nil
}

// storeThroughput runs ours, no-op, no-op, ours on a fresh stack with opts.
func (b *bench) storeThroughput(opts embedded.Options, logger *slog.Logger) (ours, noop float64, err error) {
	st, err := startStack(opts, false, logger)
	if err != nil {
		return 0, 0, err
	}
	defer st.stop()
	on := &bench{o: b.o, c: st.c, r: &report{}}
	on.o.roundFor = b.o.roundFor / 2
	rates, _, err := on.throughputOf("store", []string{kindOurs, kindNoop, kindNoop, kindOurs}, "")
	if err != nil {
		return 0, 0, err
	}
	b.r.copyErrors("stores", &on.r.errorNotes)
	return rates[kindOurs].rate(), rates[kindNoop].rate(), nil
}

func sqliteVisibility(file string) (*config.SQL, error) {
	conf := &config.SQL{PluginName: "sqlite", DatabaseName: file, ConnectAttributes: map[string]string{"mode": "rwc"}}
	if err := sqliteschema.SetupSchema(conf); err != nil {
		return nil, err
	}
	return &config.SQL{PluginName: "sqlite", DatabaseName: file,
		ConnectAttributes: map[string]string{"mode": "rw", "journal_mode": "wal", "synchronous": "normal"}}, nil
}
