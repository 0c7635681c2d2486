package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/todo/todotest"
)

var (
	clientBinOnce sync.Once
	clientBin     string
	clientBinErr  error
)

// buildClient builds the project's client command once per test binary.
func buildClient(t testing.TB) string {
	t.Helper()
	clientBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "agent-client-")
		if err != nil {
			clientBinErr = err
			return
		}
		clientBin = filepath.Join(dir, "client")
		out, err := exec.Command("go", "build", "-o", clientBin, "../client").CombinedOutput()
		if err != nil {
			clientBinErr = errors.New(string(out))
		}
	})
	if clientBinErr != nil {
		t.Fatalf("build client: %v", clientBinErr)
	}
	return clientBin
}

// runClient runs the client command against the shared server.
func (h *harness) runClient(args ...string) (stdout, stderr string, code int) {
	h.t.Helper()
	return h.runClientWith(nil, "", args...)
}

// runClientWith runs it with more environment variables and stdin.
func (h *harness) runClientWith(env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	h.t.Helper()
	full := append([]string{"--address", shared.server.GetFrontendHostPort(), "--namespace", shared.server.GetDefaultNamespace()}, args...)
	cmd := exec.Command(buildClient(h.t), full...)
	cmd.Env = append(append(os.Environ(), "AGENT_TASK_QUEUE="+h.queue, "NO_COLOR=1", "AGENT_WRITER="), env...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		h.t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func TestClientCommandWritesShowsAndRejects(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := "client-cli"
	out, errOut, code := h.runClient("start", "--id", id)
	if code != 0 || strings.TrimSpace(out) != id {
		t.Fatalf("start: %q %q %d", out, errOut, code)
	}
	t.Cleanup(func() { h.runClient("cancel", id) })

	out, errOut, code = h.runClient("write", id, "--todo", "in_progress:Read the code", "--todo", "pending:Write the fix", "--todo", "done:Open the issue")
	if code != 0 || !strings.HasPrefix(out, "Updated todo list: 1 pending, 1 in progress, 1 completed.\n") {
		t.Fatalf("write: %q %q %d", out, errOut, code)
	}
	for _, want := range []string{"1/3 completed", "🔄 Read the code", "⬜ Write the fix", "✅ Open the issue"} {
		if !strings.Contains(out, want) {
			t.Errorf("checklist lacks %q:\n%s", want, out)
		}
	}

	// A rejection prints exactly the contract's message and fails.
	_, errOut, code = h.runClient("write", id, "--file", writeTemp(t, `{"todos":[{"content":"x","status":"pending","owner":"me"}]}`))
	if code != 1 || strings.TrimSpace(errOut) != `Error: invalid todo: unknown key "owner"` {
		t.Fatalf("rejected write: %q exit %d", errOut, code)
	}
	_, errOut, code = h.runClient("write", id, "--todo", "pending:same", "--todo", "pending:same")
	if code != 1 || strings.TrimSpace(errOut) != `Error: invalid todos: duplicate content "same"` {
		t.Fatalf("duplicate: %q exit %d", errOut, code)
	}

	// A list too large for Temporal to carry gets its rule's message at
	// once, without waiting on a server that would hold it back.
	_, errOut, code = h.runClient("write", id, "--file", writeTemp(t, todotest.Huge(600, 5000)))
	if code != 1 || strings.TrimSpace(errOut) != `Error: invalid todos: at most 500 items (got 600)` {
		t.Fatalf("3 MB write: %q exit %d", errOut, code)
	}

	out, _, code = h.runClient("todos", id, "--output", "json")
	var st todo.State
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Seq != 1 || st.Counts != (todo.Counts{Pending: 1, InProgress: 1, Completed: 1}) {
		t.Fatalf("todos --output json: %q", out)
	}

	if _, errOut, code = h.runClient("signal", id, "--todo", "completed:Read the code"); code != 0 {
		t.Fatalf("signal: %q", errOut)
	}
	sessiontest.WaitFor(t, 30*time.Second, "", func() bool { return h.on(id).Todos().Seq == 2 })
	out, _, _ = h.runClient("history", id)
	var heads []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "#") {
			heads = append(heads, l)
		}
	}
	if len(heads) != 2 || !strings.Contains(heads[1], "signal:") || !strings.Contains(out, "  ✓ Read the code — by an unidentified writer, seq 2\n") {
		t.Fatalf("history:\n%s", out)
	}
	if out, _, code = h.runClient("log", id, "-o", "json"); code != 0 || !strings.Contains(out, `"todo/write"`) {
		t.Fatalf("log -o json: %q", out)
	}
}

func TestClientRunsAnOfflineAgentToTheEnd(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	out, errOut, code := h.runClient("run", "--id", "client-run", "--think-time", "0s", "--script", "../examples/plan-and-build.json", "Add a --json flag to the report command")
	t.Cleanup(func() { h.runClient("cancel", "client-run") })
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(out, "Done: `report --json` prints the report as JSON") || !strings.Contains(out, "5/5 completed") {
		t.Fatalf("run output:\n%s", out)
	}
	if st := h.on("client-run").Todos(); st.Counts.Completed != 5 {
		t.Fatalf("plan %+v", st)
	}
}

func TestClientPromptWaitsForTheAnswer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	if out, errOut, code := h.runClient("start", "--id", "client-prompt", "--think-time", "0s", "--script", "../examples/plan-and-build.json"); code != 0 {
		t.Fatalf("start: %q %q", out, errOut)
	}
	t.Cleanup(func() { h.runClient("cancel", "client-prompt") })
	out, errOut, code := h.runClient("prompt", "client-prompt", "Add a --json flag")
	if code != 0 || !strings.HasPrefix(out, "Done: `report --json` prints the report as JSON") {
		t.Fatalf("prompt: %q %q exit %d", out, errOut, code)
	}
	log := h.on("client-prompt").Log()
	var first sessionlog.MessageData
	if err := json.Unmarshal(log[0].Data, &first); err != nil || first.Text != "Add a --json flag" {
		t.Fatalf("first event %+v", log[0])
	}
}

func TestClientSchemaIsTheToolTheModelSees(t *testing.T) {
	t.Parallel()
	h := &harness{t: t}
	out, _, code := h.runClient("schema")
	var def struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &def) != nil || def.Name != "todo_write" || !strings.Contains(string(def.Parameters), `"enum"`) {
		t.Fatalf("schema: %q", out)
	}
}

func writeTemp(t testing.TB, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "todos.json")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
