package embedded

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"sync"

	"go.temporal.io/server/common/persistence"
	"go.temporal.io/server/schema"
)

// schemaFiles are the files sqliteschema.SetupSchema runs, in its order. It
// embeds them privately; schema.Assets serves the same files.
var schemaFiles = []string{
	"sqlite/v3/temporal/schema.sql",
	"sqlite/v3/visibility/schema.sql",
}

// referenceSchema is the names of the tables, indexes and triggers a
// complete database has, from the schema of the server version built in,
// so no list here goes stale on an upgrade.
var referenceSchema = sync.OnceValues(func() ([]string, error) {
	var readers []io.Reader
	for _, name := range schemaFiles {
		f, err := schema.Assets().Open(name)
		if err != nil {
			return nil, fmt.Errorf("reading the Temporal schema: %w", err)
		}
		defer f.Close()
		readers = append(readers, f)
	}
	// Split as SetupSchema splits them.
	stmts, err := persistence.LoadAndSplitQueryFromReaders(readers)
	if err != nil {
		return nil, fmt.Errorf("reading the Temporal schema: %w", err)
	}

	// A private in-memory database, which needs a single connection:
	// each connection to ":memory:" is a database of its own.
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	for _, stmt := range stmts {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			return nil, fmt.Errorf("building the reference Temporal schema: %q: %w", stmt, err)
		}
	}
	return listSchema(ctx, db)
})
