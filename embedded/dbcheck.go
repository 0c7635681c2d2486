package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// checkDatabase fails, naming file, unless it is a readable SQLite database
// with every table, index and trigger of the Temporal schema. Otherwise the
// server fails on it later with errors that name neither the file nor the
// remedy ("no such table", "file is not a database"), or, for a database
// whose first start was interrupted after the tables were made, runs with
// visibility silently broken.
//
// The file is never changed or removed: it may hold the user's only copy of
// their work, and a damaged page can often be recovered by hand.
func checkDatabase(ctx context.Context, file string, fi fs.FileInfo) error {
	switch {
	case !fi.Mode().IsRegular():
		return unusableDatabase(file, "is not a regular file")
	case fi.Size() == 0:
		return unusableDatabase(file, "is empty")
	}

	names, err := schemaObjects(ctx, file)
	switch {
	case isDamaged(err):
		return unusableDatabase(file, fmt.Sprintf("is not a readable SQLite database (%v)", err))
	case err != nil:
		// Locked by another program, no permission, an I/O error: the file
		// may well be fine, so no advice to move it away.
		return fmt.Errorf("reading database %s: %w", file, err)
	}
	want, err := referenceSchema()
	if err != nil {
		return fmt.Errorf("checking %s: %w", file, err)
	}
	have := make(map[string]bool, len(names))
	for _, name := range names {
		have[name] = true
	}
	var missing []string
	for _, name := range want {
		if !have[name] {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		const show = 5
		list := strings.Join(missing[:min(show, len(missing))], ", ")
		if len(missing) > show {
			list += ", ..."
		}
		return unusableDatabase(file, fmt.Sprintf(
			"lacks %d of the %d tables, indexes and triggers of a Temporal database (%s): "+
				"a first start was interrupted, or another Temporal version made it", len(missing), len(want), list))
	}
	return nil
}

// SQLite's primary result codes for a file that is not a database, or is one
// with damaged pages (https://sqlite.org/rescode.html).
const (
	sqliteCorrupt = 11
	sqliteNotADB  = 26
)

// isDamaged tells a damaged file from a file SQLite could not get at. The
// driver's errors (modernc.org/sqlite's *Error) carry the extended result
// code; the interface keeps this package off the driver's API, which it
// only reaches through database/sql.
func isDamaged(err error) bool {
	var coded interface{ Code() int }
	if !errors.As(err, &coded) {
		return false
	}
	switch coded.Code() & 0xff {
	case sqliteCorrupt, sqliteNotADB:
		return true
	}
	return false
}

func unusableDatabase(file, what string) error {
	return fmt.Errorf("database %s %s, so it cannot be used; "+
		"move it away (or delete it if it holds nothing you need) and start again to create a new, empty one", file, what)
}

// schemaObjects lists the tables, indexes and triggers in a SQLite file.
//
// It opens its own connection, closed on return, instead of going through
// the server's plugin: the plugin would keep a connection to a damaged file
// open for the life of the process, and hand it to the next start after the
// user had replaced the file.
//
// Mode "rw", not "ro": after a crash mid-transaction a good database has a
// hot journal, and only a writer may roll it back; read-only, the check
// would reject it.
func schemaObjects(ctx context.Context, file string) ([]string, error) {
	// "sqlite" is the modernc.org/sqlite driver, registered by the server's
	// sqlite plugin. busy_timeout: another program (a sqlite3 shell, a
	// backup) may hold a lock for a moment.
	db, err := sql.Open("sqlite", "file:"+file+"?mode=rw&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	return listSchema(ctx, db)
}

// listSchema returns names in creation order, so the first missing one
// shows where an interrupted build stopped. It leaves out SQLite's own
// objects (sqlite_autoindex_*, sqlite_stat1, ...): they come and go with
// ANALYZE and the like.
func listSchema(ctx context.Context, db *sql.DB) ([]string, error) {
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master
		WHERE type IN ('table', 'index', 'trigger') AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
		ORDER BY rowid`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		names = append(names, name)
	}
	return names, rows.Err()
}
