package embedded

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"

	"go.temporal.io/server/common/config"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	sqliteschema "go.temporal.io/server/schema/sqlite"
)

// dbFileName is fixed so a restart with the same DataDir finds the state.
const dbFileName = "temporal.db"

// memoryDBSeq names in-memory databases. The sqlite plugin shares one
// connection per DSN across the whole process, so two in-memory servers with
// the same name would silently share state.
var memoryDBSeq atomic.Int64

// sqliteConfig builds the persistence config and, for a new file, creates the
// schema: the server does not migrate an empty SQLite file on its own.
// dataDir must exist and be absolute: the plugin keeps one connection per DSN
// for the life of the process, and two spellings of one path would mean two
// writers on one file.
func sqliteConfig(dataDir string) (*config.SQL, error) {
	if dataDir == "" {
		return &config.SQL{
			PluginName: sqliteplugin.PluginName,
			// "memory" also makes the plugin create the schema on first
			// connect; "shared" lets every store in the server see it.
			ConnectAttributes: map[string]string{"mode": "memory", "cache": "shared"},
			DatabaseName:      "embedded-" + strconv.FormatInt(memoryDBSeq.Add(1), 10),
		}, nil
	}

	file := filepath.Join(dataDir, dbFileName)
	conf := &config.SQL{
		PluginName:        sqliteplugin.PluginName,
		ConnectAttributes: map[string]string{"mode": "rwc"},
		DatabaseName:      file,
	}
	_, err := os.Stat(file)
	switch {
	case err == nil:
		return conf, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("checking database file: %w", err)
	}
	if err := sqliteschema.SetupSchema(conf); err != nil {
		// A half-initialised file would be taken as a valid database on the
		// next start and fail later in confusing ways; start over instead.
		_ = os.Remove(file)
		return nil, fmt.Errorf("creating schema in %s: %w", file, err)
	}
	return conf, nil
}
