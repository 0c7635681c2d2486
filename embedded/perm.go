package embedded

import (
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"runtime"
)

// Plans and prompts are stored in the database, so what this package
// creates is for its owner only: the data directory 0700, the database, its
// temporary build file and the lock file 0600 (SQLite gives the database's
// journal, write-ahead log and shared-memory file the database's mode).
const (
	dataDirPerm = 0o700
	filePerm    = 0o600
)

// warnIfShared logs when an existing data directory or database is open to
// other local users, as everything made before this package restricted
// modes is (0755 and 0644).
//
// It does not chmod: a mode wider than ours may be deliberate (a group that
// runs backups, a directory the user chose that holds other things), and we
// cannot tell our old default from the user's choice. Changing it behind
// the user's back would break such setups silently; the warning says how to
// tighten it.
func warnIfShared(logger *slog.Logger, path string, fi fs.FileInfo) {
	if runtime.GOOS == "windows" { // mode bits there are made up
		return
	}
	perm := fi.Mode().Perm()
	if perm&0o077 == 0 {
		return
	}
	want := fs.FileMode(filePerm)
	if fi.IsDir() {
		want = dataDirPerm
	}
	logger.Warn("other local users can read the Temporal data, which includes plans and prompts",
		"path", path, "mode", fmt.Sprintf("%04o", perm), "fix", fmt.Sprintf("chmod %o %s", want, path))
}

// warnIfKeyShared logs when other local users can read the TLS private key:
// whoever has it can pose as this server. It is the operator's file, so as
// with the data directory we say how to fix it rather than refuse or chmod.
func warnIfKeyShared(logger *slog.Logger, path string) {
	fi, err := os.Stat(path)
	if err != nil || runtime.GOOS == "windows" || fi.Mode().Perm()&0o077 == 0 {
		return
	}
	logger.Warn("other local users can read the TLS private key, and with it pose as this server",
		"path", path, "mode", fmt.Sprintf("%04o", fi.Mode().Perm()), "fix", "chmod 600 "+path)
}
