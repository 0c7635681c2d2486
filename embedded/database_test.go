package embedded

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/server/common/config"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	sqliteschema "go.temporal.io/server/schema/sqlite"
)

// writeTemporalDB puts a complete Temporal database at path, built apart
// (as the server's own setup does) and copied in, so this process holds no
// driver connection to path itself.
func writeTemporalDB(t *testing.T, path string, perm os.FileMode) {
	t.Helper()
	scratch := filepath.Join(t.TempDir(), dbFileName)
	conf := &config.SQL{
		PluginName:        sqliteplugin.PluginName,
		ConnectAttributes: map[string]string{"mode": "rwc"},
		DatabaseName:      scratch,
	}
	if err := sqliteschema.SetupSchema(conf); err != nil {
		t.Fatalf("building a reference database: %v", err)
	}
	data, err := os.ReadFile(scratch)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil { // WriteFile's mode is masked by umask
		t.Fatal(err)
	}
}

// execSQL runs statements on a SQLite file through the driver the server's
// plugin registers.
func execSQL(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=rw")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range stmts {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// TestDamagedDatabaseIsAnError: a file that is not a complete Temporal
// database must stop Start quickly with an error that names the file and
// says what to do, and must be left exactly as it was.
func TestDamagedDatabaseIsAnError(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"empty", func(t *testing.T, path string) {
			if err := os.WriteFile(path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"garbage", func(t *testing.T, path string) {
			if err := os.WriteFile(path, bytes.Repeat([]byte("not a database\n"), 500), 0o600); err != nil {
				t.Fatal(err)
			}
		}},
		{"truncated", func(t *testing.T, path string) {
			writeTemporalDB(t, path, 0o600)
			if err := os.Truncate(path, 8192); err != nil {
				t.Fatal(err)
			}
		}},
		{"few bytes", func(t *testing.T, path string) {
			writeTemporalDB(t, path, 0o600)
			if err := os.Truncate(path, 10); err != nil {
				t.Fatal(err)
			}
		}},
		{"half-built", func(t *testing.T, path string) {
			// What an interrupted first start used to leave: the schema
			// statements run one by one, so the last ones are missing.
			writeTemporalDB(t, path, 0o600)
			execSQL(t, path, "DROP TABLE executions_visibility")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, dbFileName)
			tc.make(t, path)
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}

			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			begin := time.Now()
			s, err := Start(ctx, Options{DataDir: dir, FrontendAddress: "127.0.0.1:0", UIAddress: UIDisabled, SearchAttributes: testAttrs})
			took := time.Since(begin)
			if err == nil {
				_ = s.Stop()
				t.Fatal("Start on a damaged database succeeded")
			}
			t.Logf("after %v: %v", took, err)
			if took > 10*time.Second {
				t.Errorf("Start took %v to give up, want it to fail fast", took)
			}
			if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "delete") {
				t.Errorf("error does not name %s and say to delete or move it: %v", path, err)
			}
			after, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("the damaged database is gone: %v", err)
			}
			if !bytes.Equal(before, after) {
				t.Error("the damaged database was modified")
			}
		})
	}
}

// TestLeftoverTempFileIsRemoved: what a crash during the first start leaves
// behind is cleaned up, and the start builds a fresh database.
func TestLeftoverTempFileIsRemoved(t *testing.T) {
	dir := t.TempDir()
	leftovers := []string{
		filepath.Join(dir, dbFileName+".tmp-123456"),
		filepath.Join(dir, dbFileName+".tmp-123456-journal"),
	}
	for _, p := range leftovers {
		if err := os.WriteFile(p, []byte("half a database"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := startServer(t, Options{DataDir: dir, FrontendAddress: "127.0.0.1:0", UIAddress: UIDisabled, SearchAttributes: testAttrs})
	for _, p := range leftovers {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s still there (stat: %v)", filepath.Base(p), err)
		}
	}
	checkSearchAttributes(t, dial(t, s), s.Namespace(), testAttrs)
	stopServer(t, s)
}

// TestFailedFirstStartLeavesNoDatabase: a first start that fails while
// setting up the database leaves nothing behind that a later start would
// trust.
func TestFailedFirstStartLeavesNoDatabase(t *testing.T) {
	dir := t.TempDir()
	// SQLite visibility has three Int columns, so the fourth attribute makes
	// the namespace setup fail after the schema has been created.
	_, err := Start(context.Background(), Options{
		DataDir:          dir,
		FrontendAddress:  "127.0.0.1:0",
		UIAddress:        UIDisabled,
		SearchAttributes: []string{"A1", "A2", "A3", "A4"},
	})
	if err == nil {
		t.Fatal("Start with four Int search attributes succeeded")
	}
	t.Logf("got expected error: %v", err)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != dbFileName+".lock" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

// crashChildEnv makes the test binary, run again as a child process, do a
// first start on the directory it names (TestMain dispatches it), for
// TestKilledFirstStartRecovers to kill.
const crashChildEnv = "EMBEDDED_CRASH_CHILD_DIR"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		_, err := Start(context.Background(), Options{DataDir: dir, FrontendAddress: "127.0.0.1:0", UIAddress: UIDisabled, SearchAttributes: testAttrs})
		fmt.Fprintf(os.Stderr, "Start returned (%v) before the parent killed this process\n", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

// TestKilledFirstStartRecovers kills a process in the middle of creating its
// database, as a user pressing Ctrl-\ or the OOM killer would, and checks
// that the next start works.
func TestKilledFirstStartRecovers(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	deadline := time.Now().Add(time.Minute)
	for !killed && time.Now().Before(deadline) {
		// Kill as soon as the database being built has content: the schema
		// is written statement by statement, so it is incomplete now.
		matches, _ := filepath.Glob(filepath.Join(dir, dbFileName+"*"))
		for _, m := range matches {
			if fi, err := os.Stat(m); err == nil && fi.Size() > 0 && !strings.HasSuffix(m, ".lock") {
				_ = cmd.Process.Kill()
				killed = true
				t.Logf("killed the child once %s had %d bytes", filepath.Base(m), fi.Size())
				break
			}
		}
		time.Sleep(time.Millisecond)
	}
	if !killed {
		_ = cmd.Process.Kill()
	}
	_ = cmd.Wait()
	if !killed {
		t.Fatal("the child never started writing a database")
	}

	s := startServer(t, Options{DataDir: dir, FrontendAddress: "127.0.0.1:0", UIAddress: UIDisabled, SearchAttributes: testAttrs})
	checkSearchAttributes(t, dial(t, s), s.Namespace(), testAttrs)
	stopServer(t, s)
	tmps, _ := filepath.Glob(filepath.Join(dir, dbFileName+".tmp-*"))
	if len(tmps) > 0 {
		t.Errorf("temp files left after a successful start: %v", tmps)
	}
}

// TestReplacedDatabaseIsAnError: the server's sqlite plugin keeps its first
// connection to a file for the life of the process, so a database deleted
// or replaced after a start in this process must not be used again, or the
// new server would silently write to the old, unlinked file.
func TestReplacedDatabaseIsAnError(t *testing.T) {
	dir := t.TempDir()
	opts := Options{DataDir: dir, FrontendAddress: "127.0.0.1:0", UIAddress: UIDisabled}
	stopServer(t, startServer(t, opts))
	if err := os.Remove(filepath.Join(dir, dbFileName)); err != nil {
		t.Fatal(err)
	}
	s, err := Start(context.Background(), opts)
	if err == nil {
		_ = s.Stop()
		t.Fatal("Start after deleting the database succeeded")
	}
	if !strings.Contains(err.Error(), "restart the process") {
		t.Errorf("error does not say to restart the process: %v", err)
	}
	t.Logf("got expected error: %v", err)
}
