package tests

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/durabletodos/agenttodos/mcpserver"
	"github.com/durabletodos/agenttodos/workflows"
)

// lockedBuffer is a process's stderr, read while the process writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// connectStdio runs the built `client mcp` with args, as an agent runtime
// configured with its command does, and connects the go-sdk's client to it
// over the process's stdin and stdout.
func (h *harness) connectStdio(args ...string) (*mcpClient, *lockedBuffer) {
	h.t.Helper()
	full := append([]string{"--address", shared.server.GetFrontendHostPort(), "--namespace", shared.server.GetDefaultNamespace(),
		"mcp", "--task-queue", h.queue, "--poll", "100ms"}, args...)
	cmd := exec.Command(buildClient(h.t), full...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	c, updates := newMCPClient(h.t, "stdio-agent")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		h.t.Fatalf("client mcp %v: %v (stderr: %s)", args, err, stderr)
	}
	h.t.Cleanup(func() { cs.Close() })
	return &mcpClient{t: h.t, cs: cs, updates: updates}, stderr
}

func TestMCPStdioCommand(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := "mcp-stdio"
	h.start(id, workflows.SessionInput{})
	m, stderr := h.connectStdio("--session", id)
	if !strings.Contains(stderr.String(), "bound to running session "+id) {
		t.Errorf("stderr does not name the session: %q", stderr)
	}
	if text, isErr := m.write(`{"todos":[{"content":"Read the code","status":"in_progress"},{"content":"Write the fix","status":"pending"}]}`); isErr || text != "Updated todo list: 1 pending, 1 in progress, 0 completed." {
		t.Fatalf("todo_write: %q", text)
	}
	if text, isErr := m.write(`{"todos":[{"content":"a","status":"pending"},{"content":"a","status":"pending"}]}`); !isErr || text != `Error: invalid todos: duplicate content "a"` {
		t.Errorf("duplicate: %q", text)
	}
	checkOutsideWriteNotifies(t, h, m, id)
	before := m.read()
	if hist := h.on(id).AllHistory(); hist[0].Source.By != "mcp:stdio-agent" {
		t.Errorf("first write by %q, want mcp:stdio-agent", hist[0].Source.By)
	}

	// The agent runtime restarts the server: a new process, same arguments.
	if err := m.cs.Close(); err != nil {
		t.Logf("closing the first server: %v", err)
	}
	m2, _ := h.connectStdio("--session", id)
	if after := m2.read(); after.Seq != before.Seq || !reflect.DeepEqual(after.Todos, before.Todos) {
		t.Fatalf("after restart %+v, before %+v", after, before)
	}
}

// With no --session the command starts one and says which, on stderr and
// in its instructions.
func TestMCPStdioCommandStartsASession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	m, stderr := h.connectStdio()
	id := boundSession(t, m)
	t.Cleanup(func() { _ = h.c.CancelWorkflow(context.Background(), id, "") })
	if !strings.Contains(stderr.String(), "started session "+id+" (resource "+mcpserver.ResourceURI(id)+")") {
		t.Errorf("stderr does not name the new session %s: %q", id, stderr)
	}
	if text, _ := m.write(`{"todos":[]}`); text != "Updated todo list: 0 pending, 0 in progress, 0 completed." {
		t.Fatal(text)
	}
	if st := h.on(id).Todos(); st.Seq == 0 {
		t.Errorf("the new session has no write: %+v", st)
	}
}
