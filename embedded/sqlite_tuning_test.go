package embedded

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
)

func TestSQLitePragmasAreChecked(t *testing.T) {
	got, err := SQLiteOptions{}.pragmas()
	if err != nil || got["journal_mode"] != "wal" || got["synchronous"] != "normal" || len(got) != 2 {
		t.Fatalf("defaults: %v, %v", got, err)
	}
	got, err = SQLiteOptions{Pragmas: map[string]string{" Synchronous ": "FULL"}}.pragmas()
	if err != nil || got["synchronous"] != "full" || got["journal_mode"] != "wal" {
		t.Fatalf("override: %v, %v", got, err)
	}
	got, err = SQLiteOptions{MaxConns: 4}.pragmas()
	if err != nil || got["busy_timeout"] != "5000" {
		t.Fatalf("4 connections: %v, %v", got, err)
	}
	for _, tc := range []struct {
		opts SQLiteOptions
		want string
	}{
		{SQLiteOptions{Pragmas: map[string]string{"mode": "ro"}}, `sqlite pragma "mode" is not supported (supported: busy_timeout, journal_mode, synchronous)`},
		{SQLiteOptions{Pragmas: map[string]string{"busy_timeout": "soon"}}, `sqlite pragma busy_timeout="soon": want milliseconds`},
		{SQLiteOptions{Pragmas: map[string]string{"synchronous": "sometimes"}}, `sqlite pragma synchronous="sometimes": want one of off, normal, full, extra`},
		{SQLiteOptions{Pragmas: map[string]string{"journal_mode": "delete"}, MaxConns: 4}, "sqlite: 4 connections need journal_mode=wal, not delete"},
	} {
		if _, err := tc.opts.pragmas(); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: error %v, want %q", tc.opts, err, tc.want)
		}
	}
}

// journalMode reads the mode recorded in the file (WAL is persistent; the
// rollback modes read as "delete" from a fresh connection).
func journalMode(t *testing.T, file string) string {
	t.Helper()
	// busy_timeout: in rollback mode a reader waits while the running
	// server writes.
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRowContext(context.Background(), "PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	return strings.ToLower(mode)
}

// TestDatabaseRunsWithAWriteAheadLog: a new database runs in WAL mode, and
// so does one made by an earlier version (rollback journal) once a worker
// of this version opens it; a pragma set by the user wins.
func TestDatabaseRunsWithAWriteAheadLog(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	file := filepath.Join(dir, dbFileName)

	old := startServer(t, Options{DataDir: dir, FrontendAddress: "127.0.0.1:0", UIAddress: UIDisabled,
		SQLite: SQLiteOptions{Pragmas: map[string]string{"journal_mode": "delete", "synchronous": "full"}}})
	if got := journalMode(t, file); got != "delete" {
		t.Errorf("with journal_mode=delete: %s", got)
	}
	stopServer(t, old)

	s := startServer(t, Options{DataDir: dir, FrontendAddress: "127.0.0.1:0", UIAddress: UIDisabled})
	if got := journalMode(t, file); got != "wal" {
		t.Errorf("default: journal mode %s, want wal", got)
	}
	stopServer(t, s)

	if _, err := Start(context.Background(), Options{DataDir: dir, FrontendAddress: "127.0.0.1:0", UIAddress: UIDisabled,
		SQLite: SQLiteOptions{Pragmas: map[string]string{"locking_mode": "exclusive"}}}); err == nil ||
		!strings.Contains(err.Error(), `sqlite pragma "locking_mode" is not supported`) {
		t.Errorf("unsupported pragma: %v", err)
	}
}
