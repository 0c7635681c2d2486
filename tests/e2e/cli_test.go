package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
)

// cli runs the stock temporal CLI against one server.
type cli struct {
	t    *testing.T
	bin  string
	addr string
	env  []string
}

type cliResult struct {
	stdout, stderr string
	err            error
}

func (r cliResult) output() string { return r.stdout + r.stderr }

func (c *cli) run(args ...string) cliResult {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	full := append(args, "--address", c.addr, "--namespace", namespaceName)
	cmd := exec.CommandContext(ctx, c.bin, full...)
	cmd.Env = c.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	c.t.Logf("$ temporal %s\n%s%s", strings.Join(args, " "), stdout.String(), stderr.String())
	return cliResult{stdout.String(), stderr.String(), err}
}

// json runs a command that must succeed and decodes its -o json output.
func (c *cli) json(into any, args ...string) {
	c.t.Helper()
	r := c.run(append(args, "-o", "json")...)
	if r.err != nil {
		c.t.Fatalf("temporal %s: %v\n%s", strings.Join(args, " "), r.err, r.output())
	}
	if into == nil {
		return
	}
	if err := json.Unmarshal([]byte(r.stdout), into); err != nil {
		c.t.Fatalf("temporal %s printed no JSON we understand: %v\n%s", strings.Join(args, " "), err, r.stdout)
	}
}

// query runs `temporal workflow query` and decodes its single result: the CLI
// wraps query results as {"queryResult":[<result>]}.
func (c *cli) query(into any, args ...string) {
	c.t.Helper()
	var out struct {
		QueryResult []json.RawMessage `json:"queryResult"`
	}
	c.json(&out, append([]string{"workflow", "query"}, args...)...)
	if len(out.QueryResult) != 1 {
		c.t.Fatalf("query printed %d results, want 1", len(out.QueryResult))
	}
	if err := json.Unmarshal(out.QueryResult[0], into); err != nil {
		c.t.Fatalf("query result: %v\n%s", err, out.QueryResult[0])
	}
}

// listIDs runs `temporal workflow list --query` and returns the workflow IDs.
func (c *cli) listIDs(query string) []string {
	c.t.Helper()
	var out []struct {
		Execution struct {
			WorkflowID string `json:"workflowId"`
		} `json:"execution"`
	}
	c.json(&out, "workflow", "list", "--query", query)
	ids := make([]string, len(out))
	for i, e := range out {
		ids[i] = e.Execution.WorkflowID
	}
	return ids
}

// TestStockTemporalCLI drives a session with nothing but the stock Temporal
// CLI, the way the README tells people to: the contract's names and JSON
// payloads must work without our client.
func TestStockTemporalCLI(t *testing.T) {
	t.Parallel()
	bin := temporalCLI(t)
	cfg := newWorkerConfig(t)
	startWorker(t, "cli", cfg)
	c := &cli{t: t, bin: bin, addr: cfg.Frontend, env: cleanEnv(t)}
	const id = "cli-session"

	var started struct {
		WorkflowID string `json:"workflowId"`
		Type       string `json:"type"`
		TaskQueue  string `json:"taskQueue"`
	}
	c.json(&started, "workflow", "start", "--type", contract.WorkflowType, "--task-queue", contract.TaskQueue,
		"--workflow-id", id, "--input", "{}")
	if started.WorkflowID != id || started.Type != contract.WorkflowType || started.TaskQueue != contract.TaskQueue {
		t.Fatalf("workflow start printed %+v", started)
	}

	// Update: the result is the contract's TodoWriteResult, verbatim.
	first := []todo.Item{
		{Content: "Read the code", Status: todo.Completed},
		{Content: "Write the fix", Status: todo.InProgress},
		{Content: "Run the tests", Status: todo.Pending},
	}
	var updated struct {
		Name     string           `json:"name"`
		UpdateID string           `json:"updateId"`
		Result   todo.WriteResult `json:"result"`
	}
	c.json(&updated, "workflow", "update", "execute", "--name", contract.UpdateTodoWrite, "--workflow-id", id,
		"--input", todosJSON(first))
	wantResult := todo.WriteResult{
		Todos:   first,
		Counts:  todo.Counts{Pending: 1, InProgress: 1, Completed: 1},
		Message: "Updated todo list: 1 pending, 1 in progress, 1 completed.",
		Seq:     1,
	}
	if !reflect.DeepEqual(updated.Result, wantResult) {
		t.Fatalf("update result = %+v, want %+v", updated.Result, wantResult)
	}
	if updated.Name != contract.UpdateTodoWrite || updated.UpdateID == "" {
		t.Fatalf("update printed name %q, updateId %q", updated.Name, updated.UpdateID)
	}

	// The validator rejects an unknown key with the contract's message and
	// the CLI exits non-zero.
	// The CLI reports errors as log records; JSON ones say exactly what the
	// error was, where the text format escapes the quotes in our message.
	r := c.run("workflow", "update", "execute", "--name", contract.UpdateTodoWrite, "--workflow-id", id,
		"--input", `{"todos":[{"content":"a","status":"pending","id":1}]}`, "-o", "json", "--log-format", "json")
	if r.err == nil {
		t.Fatalf("an update with an unknown key succeeded:\n%s", r.output())
	}
	if _, ok := errors.AsType[*exec.ExitError](r.err); !ok {
		t.Fatalf("temporal did not run: %v", r.err)
	}
	if want := `invalid todo: unknown key "id"`; !slices.ContainsFunc(logMessages(r.stderr), func(m string) bool {
		return strings.Contains(m, want)
	}) {
		t.Fatalf("rejected update did not report %q:\n%s", want, r.output())
	}

	// Signal: fire-and-forget, applied as the next seq.
	second := []todo.Item{
		{Content: "Read the code", Status: todo.Completed},
		{Content: "Write the fix", Status: todo.Completed},
		{Content: "Run the tests", Status: todo.InProgress},
	}
	c.json(nil, "workflow", "signal", "--name", contract.SignalTodoWrite, "--workflow-id", id, "--input", todosJSON(second))

	var state todo.State
	sessiontest.WaitFor(t, 10*time.Second, "the signalled list in the todos query", func() bool {
		c.query(&state, "--workflow-id", id, "--type", contract.QueryTodos)
		return state.Seq == 2
	})
	if !reflect.DeepEqual(state.Todos, second) || state.Counts != (todo.Counts{InProgress: 1, Completed: 2}) || state.UpdatedAt.IsZero() {
		t.Fatalf("todos query = %+v, want the signalled list %+v", state, second)
	}

	var history []todo.Snapshot
	c.query(&history, "--workflow-id", id, "--type", contract.QueryTodoHistory)
	if len(history) != 2 {
		t.Fatalf("todo_history has %d snapshots, want 2: %+v", len(history), history)
	}
	h1, h2 := history[0], history[1]
	if h1.Seq != 1 || !reflect.DeepEqual(h1.Todos, first) || h1.Counts != wantResult.Counts ||
		h1.Source != (todo.Source{Kind: todo.SourceUpdate, ID: updated.UpdateID}) || h1.At.IsZero() {
		t.Errorf("first snapshot = %+v, want seq 1, the updated list, source update %s", h1, updated.UpdateID)
	}
	if h2.Seq != 2 || !reflect.DeepEqual(h2.Todos, second) || h2.Source.Kind != todo.SourceSignal || h2.Source.ID == "" ||
		!h2.At.Equal(state.UpdatedAt) {
		t.Errorf("second snapshot = %+v, want seq 2, the signalled list, source signal, at %s", h2, state.UpdatedAt)
	}

	var page []todo.Snapshot
	c.query(&page, "--workflow-id", id, "--type", contract.QueryTodoHistory, "--input", `{"afterSeq":1,"limit":1}`)
	if len(page) != 1 || !reflect.DeepEqual(page[0], h2) {
		t.Errorf("todo_history after seq 1, limit 1 = %+v, want [%+v]", page, h2)
	}

	// Search attributes: a second session with nothing in progress shows the
	// query tells them apart, not just that the list is empty.
	c.json(nil, "workflow", "start", "--type", contract.WorkflowType, "--task-queue", contract.TaskQueue,
		"--workflow-id", "cli-idle", "--input", "{}")
	c.json(nil, "workflow", "update", "execute", "--name", contract.UpdateTodoWrite, "--workflow-id", "cli-idle",
		"--input", todosJSON([]todo.Item{{Content: "Wait for review", Status: todo.Pending}}))
	// Visibility is eventually consistent: a write is in the list a moment later.
	sessiontest.WaitFor(t, 10*time.Second, "TodoInProgress > 0 to list only "+id, func() bool {
		return slices.Equal(c.listIDs("TodoInProgress > 0"), []string{id})
	})
	sessiontest.WaitFor(t, 10*time.Second, "TodoInProgress = 0 to list only cli-idle", func() bool {
		return slices.Equal(c.listIDs("TodoInProgress = 0"), []string{"cli-idle"})
	})

	// Conflict-checked edits work from the stock CLI too, with the JSON the
	// README shows; the CLI cannot set Temporal headers, so its edits show as
	// unidentified, and the note says why.
	const edited = "cli-edit"
	c.json(nil, "workflow", "start", "--type", contract.WorkflowType, "--task-queue", contract.TaskQueue,
		"--workflow-id", edited, "--input", "{}")
	edit := func(expectedSeq int, items []todo.Item) cliResult {
		return c.run("workflow", "update", "execute", "--name", contract.UpdateTodoEdit, "--workflow-id", edited,
			"--input", mustJSON(map[string]any{"todos": items, "expectedSeq": expectedSeq, "note": "from the CLI"}), "-o", "json", "--log-format", "json")
	}
	plan := []todo.Item{{Content: "Review the plan", Status: todo.InProgress}}
	if r := edit(0, plan); r.err != nil || !strings.Contains(r.stdout, `"seq": 1`) {
		t.Fatalf("todo_edit at seq 0: %v\n%s", r.err, r.output())
	}
	r = edit(0, []todo.Item{{Content: "Overwrite it", Status: todo.Pending}})
	if want := "todo_edit conflict: expectedSeq is 0 but the plan is at seq 1"; r.err == nil || !slices.ContainsFunc(logMessages(r.stderr), func(m string) bool {
		return strings.Contains(m, want)
	}) {
		t.Fatalf("a stale todo_edit did not report %q:\n%s", want, r.output())
	}
	var editHistory []todo.Snapshot
	c.query(&editHistory, "--workflow-id", edited, "--type", contract.QueryTodoHistory)
	if len(editHistory) != 1 || editHistory[0].Source.Kind != todo.SourceEdit || editHistory[0].Source.Note != "from the CLI" ||
		editHistory[0].Source.By != "" || editHistory[0].Change == nil || len(editHistory[0].Change.Added) != 1 {
		t.Fatalf("todo_history after the CLI's edits: %+v", editHistory)
	}
	var diff struct {
		Change todo.Change `json:"change"`
	}
	c.query(&diff, "--workflow-id", edited, "--type", contract.QueryTodoDiff, "--input", `{"fromSeq":0,"toSeq":1}`)
	if len(diff.Change.Added) != 1 || diff.Change.Added[0].Content != "Review the plan" {
		t.Fatalf("todo_diff from the CLI: %+v", diff)
	}
}

// logMessages is the msg of every JSON log record in the CLI's output.
func logMessages(out string) []string {
	var msgs []string
	for _, line := range strings.Split(out, "\n") {
		var rec struct {
			Msg string `json:"msg"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Msg != "" {
			msgs = append(msgs, rec.Msg)
		}
	}
	return msgs
}

func todosJSON(items []todo.Item) string { return mustJSON(map[string]any{"todos": items}) }
