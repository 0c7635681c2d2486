package tests

import (
	"context"
	"errors"
	"net"
	"net/http"
	"reflect"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/durabletodos/agenttodos/mcpserver"
	"github.com/durabletodos/agenttodos/workflows"
)

// serveMCPHTTP serves sessions over streamable HTTP on a loopback port
// (addr, or any free one for ""), as `client mcp --http` does, and returns
// its address and a stop function.
func serveMCPHTTP(t testing.TB, sessions *mcpserver.Sessions, addr string) (string, func()) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", sessions.HTTPHandler())
	srv := &http.Server{Handler: mux}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			t.Error(err)
		}
	}()
	stop := func() {
		// Close, not Shutdown: the clients' notification streams stay
		// open, as they would when the process is killed.
		srv.Close()
		<-done
		sessions.Close()
	}
	t.Cleanup(stop)
	return ln.Addr().String(), stop
}

// headerTransport names the session in a header, as an MCP client
// configured with headers does.
type headerTransport struct{ session string }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(mcpserver.SessionHeader, h.session)
	return http.DefaultTransport.RoundTrip(r)
}

// connectHTTP connects the go-sdk's client to endpoint over streamable HTTP.
func connectHTTP(t testing.TB, endpoint string, httpClient *http.Client) *mcpClient {
	t.Helper()
	c, updates := newMCPClient(t, "test-agent")
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: httpClient, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &mcpClient{t: t, cs: cs, updates: updates}
}

var instructionsSession = regexp.MustCompile(`agent session "([^"]+)"`)

// boundSession is the session the server's instructions name.
func boundSession(t testing.TB, m *mcpClient) string {
	t.Helper()
	got := instructionsSession.FindStringSubmatch(m.cs.InitializeResult().Instructions)
	if got == nil {
		t.Fatalf("instructions name no session: %q", m.cs.InitializeResult().Instructions)
	}
	return got[1]
}

func TestMCPStreamableHTTP(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := "mcp-http"
	h.start(id, workflows.SessionInput{})
	addr, stop := serveMCPHTTP(t, h.mcpSessions(), "127.0.0.1:0")
	endpoint := "http://" + addr + "/mcp?" + mcpserver.SessionQuery + "=" + id
	m := connectHTTP(t, endpoint, nil)
	checkWriteReadAndErrors(t, h, m, id)
	checkOutsideWriteNotifies(t, h, m, id)
	before := m.read()

	// Restart the server on the same address, as a supervisor would: the
	// client's configuration (its URL) is unchanged, the plan is whole.
	stop()
	m.cs.Close()
	addr2, _ := serveMCPHTTP(t, h.mcpSessions(), addr)
	if addr2 != addr {
		t.Fatalf("restarted on %s, not %s", addr2, addr)
	}
	m2 := connectHTTP(t, endpoint, nil)
	if after := m2.read(); after.Seq != before.Seq || !reflect.DeepEqual(after.Todos, before.Todos) {
		t.Fatalf("after restart %+v, before %+v", after, before)
	}
	if text, isErr := m2.write(`{"todos":[{"content":"Run the tests","status":"completed"}]}`); isErr || text != "Updated todo list: 0 pending, 0 in progress, 1 completed." {
		t.Fatalf("write after restart: %q", text)
	}
	if hist := h.on(id).AllHistory(); len(hist) != 3 {
		t.Errorf("history has %d snapshots, want 3 (ours, alice's, ours after the restart)", len(hist))
	}
}

// A client that names no session gets a new one, named in the
// instructions; another naming it in the header shares its plan.
func TestMCPStreamableHTTPNewSessionAndHeader(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	var mu sync.Mutex
	var bound []string
	sessions := h.mcpSessionsWith(func(b *mcpserver.Bound) {
		mu.Lock()
		defer mu.Unlock()
		bound = append(bound, b.ID)
	})
	addr, _ := serveMCPHTTP(t, sessions, "127.0.0.1:0")
	endpoint := "http://" + addr + "/mcp"
	a := connectHTTP(t, endpoint, nil)
	id := boundSession(t, a)
	mu.Lock()
	// The client's first probe (server/discover) starts nothing.
	if !reflect.DeepEqual(bound, []string{id}) {
		t.Errorf("connecting one client bound %v, want only %s", bound, id)
	}
	mu.Unlock()
	t.Cleanup(func() { _ = h.c.CancelWorkflow(context.Background(), id, "") })
	if text, _ := a.write(`{"todos":[{"content":"Plan the work","status":"in_progress"}]}`); text != "Updated todo list: 0 pending, 1 in progress, 0 completed." {
		t.Fatal(text)
	}
	if got := a.read(); got.Session != id || got.Seq == 0 {
		t.Fatalf("first client reads %+v", got)
	}
	other := connectHTTP(t, endpoint, nil)
	otherID := boundSession(t, other)
	t.Cleanup(func() { _ = h.c.CancelWorkflow(context.Background(), otherID, "") })
	if otherID == id {
		t.Error("a second client naming no session was bound to the first one's")
	}
	b := connectHTTP(t, endpoint, &http.Client{Transport: headerTransport{session: id}, Timeout: time.Minute})
	if boundSession(t, b) != id {
		t.Fatalf("the header named %s, bound to %s", id, boundSession(t, b))
	}
	if got := b.read(); len(got.Todos) != 1 || got.Todos[0].Content != "Plan the work" {
		t.Errorf("second client reads %+v", got)
	}
	if st := h.on(id).Todos(); st.Seq == 0 {
		t.Errorf("the session has no plan: %+v", st)
	}
}
