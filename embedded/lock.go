//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package embedded

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockDataDir takes an exclusive lock so that two servers, in this process
// or another, never run on the same SQLite file: both would claim the single
// history shard and corrupt each other's state. The kernel drops the lock if
// the process dies, so a crash never leaves a stale lock behind.
func lockDataDir(dataDir string) (unlock func(), err error) {
	path := filepath.Join(dataDir, dbFileName+".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, filePerm)
	if err != nil {
		return nil, fmt.Errorf("opening lock file: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s is in use by another embedded Temporal server", dataDir)
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { _ = f.Close() }, nil
}
