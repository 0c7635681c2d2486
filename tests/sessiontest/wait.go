package sessiontest

import (
	"testing"
	"time"
)

// WaitFor polls cond until it holds, failing the test after limit: tests
// wait on conditions, never on fixed sleeps. what names the condition in
// the failure.
func WaitFor(t testing.TB, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	if what == "" {
		what = "condition"
	}
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not in %v", what, limit)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
