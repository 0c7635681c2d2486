package main

import (
	"context"
	"strings"
	"testing"
)

func TestMCPCommandHelpAndUsage(t *testing.T) {
	a, _, _ := testApp(nil)
	if out := run(t, a, "--help"); !strings.Contains(out, "mcp ") {
		t.Errorf("client --help does not list mcp: %s", out)
	}
	a, _, _ = testApp(nil)
	out := run(t, a, "help", "mcp")
	for _, want := range []string{"--session ID", "--http ADDR", "--task-queue QUEUE", "--poll", "agenttodos://sessions/<ID>/todos", "?session=ID", "Agent-Todos-Session"} {
		if !strings.Contains(out, want) {
			t.Errorf("help mcp lacks %q: %s", want, out)
		}
	}
	// Called wrongly, it says so without dialling (testApp has no client).
	for _, args := range [][]string{{"mcp", "extra"}, {"mcp", "--poll", "0s"}, {"mcp", "--http"}} {
		a, out, errOut := testApp(nil)
		if code := a.main(context.Background(), args); code != 2 || out.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}
