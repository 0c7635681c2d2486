package embedded

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"go.temporal.io/server/common/config"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
)

// dbFileName is fixed so a restart with the same DataDir finds the state.
const dbFileName = "temporal.db"

// memoryDBSeq names in-memory databases. The sqlite plugin shares one
// connection per DSN across the whole process, so two in-memory servers with
// the same name would silently share state.
var memoryDBSeq atomic.Int64

// openDatabase returns the persistence config for dataDir's database after
// running setup (the namespace registration) on it. A missing database is
// built whole in a temporary file first (see createDatabase); an existing
// one is checked, since the server would otherwise fail on it in confusing
// ways or, for a half-built one, run on a partial schema.
//
// dataDir must exist, be absolute and be locked: the plugin keeps one
// connection per DSN for the life of the process, so two spellings of one
// path would mean two writers on one file, and temporary files are only
// ours to remove while no other server can be building one.
func openDatabase(ctx context.Context, dataDir string, tuning SQLiteOptions, logger *slog.Logger, setup func(*config.SQL) error) (*config.SQL, error) {
	if dataDir == "" {
		conf := &config.SQL{
			PluginName: sqliteplugin.PluginName,
			// "memory" also makes the plugin create the schema on first
			// connect; "shared" lets every store in the server see it.
			ConnectAttributes: map[string]string{"mode": "memory", "cache": "shared"},
			DatabaseName:      "embedded-" + strconv.FormatInt(memoryDBSeq.Add(1), 10),
		}
		return conf, setup(conf)
	}

	file := filepath.Join(dataDir, dbFileName)
	// Checked before anything is made, so a typo creates nothing.
	if _, err := fileConfig(file, tuning); err != nil {
		return nil, err
	}
	removeLeftovers(file, logger)
	if err := checkNotReplaced(file); err != nil {
		return nil, err
	}
	fi, err := os.Stat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := createDatabase(file, setup); err != nil {
			return nil, err
		}
		if err := rememberDatabase(file); err != nil {
			return nil, err
		}
		return fileConfig(file, tuning)
	case err != nil:
		return nil, fmt.Errorf("checking database file: %w", err)
	}
	warnIfShared(logger, file, fi)
	if err := checkDatabase(ctx, file, fi); err != nil {
		return nil, err
	}
	if err := rememberDatabase(file); err != nil {
		return nil, err
	}
	conf, err := fileConfig(file, tuning)
	if err != nil {
		return nil, err
	}
	return conf, setup(conf)
}

// fileConfig is the server's config for an existing database file. Mode
// "rw", not "rwc": only createDatabase makes the file, so if it vanishes the
// server fails instead of starting on an empty file with no schema (and
// with SQLite's default 0644 mode).
func fileConfig(file string, tuning SQLiteOptions) (*config.SQL, error) {
	attrs, err := tuning.pragmas()
	if err != nil {
		return nil, err
	}
	attrs["mode"] = "rw"
	return &config.SQL{
		PluginName:        sqliteplugin.PluginName,
		ConnectAttributes: attrs,
		DatabaseName:      file,
		MaxConns:          tuning.MaxConns,
		MaxIdleConns:      tuning.MaxConns,
	}, nil
}
