package embedded

import (
	"fmt"
	"io/fs"
	"os"
	"sync"
)

// openedDatabases maps each database path this process has handed to the
// server to the file it was then (fs.FileInfo, for os.SameFile).
//
// The server's sqlite plugin keeps its first connection to a path until the
// process exits and hands it to every later start (its connPool.Close
// leaves the connection open). If the file has since been deleted or
// replaced, that connection still points at the old file: the server would
// run on it, unlinked, and everything written would vanish at exit.
var openedDatabases sync.Map

func checkNotReplaced(file string) error {
	v, ok := openedDatabases.Load(file)
	if !ok {
		return nil
	}
	if fi, err := os.Stat(file); err == nil && os.SameFile(v.(fs.FileInfo), fi) {
		return nil
	}
	return fmt.Errorf("database %s was deleted or replaced after this process last used it, "+
		"and the SQLite driver keeps using the old file until the process exits: restart the process to use the new one", file)
}

func rememberDatabase(file string) error {
	fi, err := os.Stat(file)
	if err != nil {
		return fmt.Errorf("checking database file: %w", err)
	}
	openedDatabases.Store(file, fi)
	return nil
}
