package tests

import (
	"fmt"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	shared = newCluster(&setupT{}, nil)
	code := m.Run()
	shared.server.Stop()
	os.Exit(code)
}

// setupT lets cluster set-up report failures before any test runs.
type setupT struct{ testing.TB }

func (setupT) Helper() {}
func (setupT) Fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "test set-up: "+format+"\n", args...)
	os.Exit(1)
}
