package embedded

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"go.temporal.io/server/common/config"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	sqliteschema "go.temporal.io/server/schema/sqlite"
)

// tempSuffix marks a database still being built; SQLite names its journal
// after the file, so one prefix finds both.
const tempSuffix = ".tmp-"

// createDatabase builds a new database at file: schema, then setup (the
// namespace), in a temporary file next to it that is renamed into place only
// when complete. The schema is created one statement at a time, outside any
// transaction, so a process killed during a first start used to leave a
// half-built file that every later start trusted and failed on; now it
// leaves only a temporary file, which the next start removes.
func createDatabase(file string, setup func(*config.SQL) error) (err error) {
	// CreateTemp makes the file 0600. SQLite opens it as it is (an empty
	// file is an empty database) and gives its journal the same mode;
	// left to create the file itself it would use 0644.
	f, err := os.CreateTemp(filepath.Dir(file), filepath.Base(file)+tempSuffix+"*")
	if err != nil {
		return fmt.Errorf("creating database: %w", err)
	}
	tmp := f.Name()
	if err := f.Close(); err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("creating database: %w", err)
	}
	defer func() {
		if err != nil {
			removeTemp(tmp)
		}
	}()

	// The plugin pools this connection until the process exits (it never
	// closes one), so it stays open on the file after the rename. That is
	// harmless: nothing uses it again, and it holds no lock, so the
	// server's own connection may switch the renamed file to WAL (this one
	// runs with a rollback journal; its side files would follow the old
	// name, but it never writes again).
	conf := &config.SQL{
		PluginName: sqliteplugin.PluginName,
		ConnectAttributes: map[string]string{
			"mode": "rw",
			// No fsync per statement: a crash discards this file anyway,
			// and it is synced once before the rename. This makes the
			// schema a few times faster to create.
			"synchronous": "off",
		},
		DatabaseName: tmp,
	}
	if err := sqliteschema.SetupSchema(conf); err != nil {
		return fmt.Errorf("creating schema in %s: %w", tmp, err)
	}
	if err := setup(conf); err != nil {
		return err
	}
	if err := syncPath(tmp); err != nil {
		return fmt.Errorf("syncing %s: %w", tmp, err)
	}
	// dataDir is locked and file was absent, so this replaces nothing.
	if err := os.Rename(tmp, file); err != nil {
		return fmt.Errorf("moving the new database into place: %w", err)
	}
	// Makes the rename durable. Best effort: some systems cannot sync a
	// directory, and losing the rename to a power cut only means the next
	// start builds the database again.
	_ = syncPath(filepath.Dir(file))
	return nil
}

func syncPath(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// removeLeftovers deletes what an interrupted createDatabase left behind.
// They are never a usable database: only complete files are renamed to
// file.
func removeLeftovers(file string, logger *slog.Logger) {
	// ReadDir rather than Glob: the data dir's path may contain glob
	// metacharacters.
	entries, _ := os.ReadDir(filepath.Dir(file))
	prefix := filepath.Base(file) + tempSuffix
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		m := filepath.Join(filepath.Dir(file), e.Name())
		if err := os.Remove(m); err != nil && !errors.Is(err, fs.ErrNotExist) {
			// Harmless beyond the disk space: each build uses a new name.
			logger.Warn("cannot remove a temporary file left by an interrupted first start", "path", m, "error", err)
			continue
		}
		logger.Warn("removed a temporary file left by an interrupted first start", "path", m)
	}
}

func removeTemp(tmp string) {
	for _, p := range []string{tmp, tmp + "-journal"} {
		_ = os.Remove(p)
	}
}
