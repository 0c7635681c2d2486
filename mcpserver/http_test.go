package mcpserver

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// isInitialize reads the start of the body to decide, and the SDK must
// still read all of it.
func TestIsInitializeLeavesTheBodyWhole(t *testing.T) {
	for _, c := range []struct {
		body string
		want bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`, true},
		{`{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, false},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"pad":"` + strings.Repeat("x", maxInitializeBytes) + `"}}`, false},
		{`not json`, false},
	} {
		r := httptest.NewRequest("POST", "/mcp", strings.NewReader(c.body))
		if got := isInitialize(r); got != c.want {
			t.Errorf("%.60s: %v, want %v", c.body, got, c.want)
		}
		if rest, _ := io.ReadAll(r.Body); string(rest) != c.body {
			t.Errorf("%.60s: body after the check is %d bytes, want %d", c.body, len(rest), len(c.body))
		}
	}
}

func TestResourceURIEscapesTheID(t *testing.T) {
	if got := ResourceURI("a b/c"); got != "agenttodos://sessions/a%20b%2Fc/todos" {
		t.Errorf("got %s", got)
	}
}
