package embedded

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func checkMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s: mode %04o, want %04o", filepath.Base(path), got, want)
	}
}

// TestFilesArePrivate: plans and prompts live in the database, so a new data
// directory and everything in it is readable by its owner only.
func TestFilesArePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	dir := filepath.Join(t.TempDir(), "data")
	s := startServer(t, Options{DataDir: dir, FrontendAddress: "127.0.0.1:0", UIAddress: UIDisabled})
	checkMode(t, dir, 0o700)
	checkMode(t, filepath.Join(dir, dbFileName), 0o600)
	checkMode(t, filepath.Join(dir, dbFileName+".lock"), 0o600)
	// The write-ahead log and its index hold the latest writes.
	checkMode(t, filepath.Join(dir, dbFileName+"-wal"), 0o600)
	checkMode(t, filepath.Join(dir, dbFileName+"-shm"), 0o600)
	stopServer(t, s)
}

// syncBuffer is a log destination safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestWidePermissionsAreWarned: files from before this check (or made by
// hand) keep their mode, which may be deliberate, but the user is told.
func TestWidePermissionsAreWarned(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, dbFileName)
	writeTemporalDB(t, db, 0o644)

	var logs syncBuffer
	s := startServer(t, Options{
		DataDir:         dir,
		FrontendAddress: "127.0.0.1:0",
		UIAddress:       UIDisabled,
		Logger:          slog.New(slog.NewTextHandler(&logs, nil)),
	})
	stopServer(t, s)
	out := logs.String()
	for _, want := range []string{dir + " ", "0755", db + " ", "0644"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the log:\n%s", want, out)
		}
	}
	// Warned, not changed.
	checkMode(t, dir, 0o755)
	checkMode(t, db, 0o644)
}
