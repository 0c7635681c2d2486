package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

// write sends a todo_write update with the arguments as raw JSON, exactly
// what the model (or `temporal workflow update execute --input`) sends. Like
// any careful client it retries a call that timed out with the same update
// ID, which the session applies once: server v1.32.1 can stall a session
// under bursts of concurrent updates (temporalio/temporal#7741) for a minute
// or more before it recovers.
func (h *harness) write(id, updateID, args string) (todo.WriteResult, error) {
	h.t.Helper()
	if updateID == "" {
		updateID = fmt.Sprintf("%s-%d", id, updateCounter.Add(1))
	}
	deadline := time.Now().Add(writeBudget)
	for {
		res, timedOut, err := writeOnce(h, id, updateID, args, writeAttempt)
		if !timedOut || time.Now().After(deadline) {
			return res, err
		}
	}
}

const (
	writeBudget  = 8 * time.Minute
	writeAttempt = 30 * time.Second
)

var updateCounter atomic.Int64

func (h *harness) todos(id string) todo.State {
	h.t.Helper()
	var st todo.State
	h.query(id, contract.QueryTodos, &st)
	return st
}

func (h *harness) history(id string, req ...sessionlog.PageRequest) []todo.Snapshot {
	h.t.Helper()
	var snaps []todo.Snapshot
	h.query(id, contract.QueryTodoHistory, &snaps, req...)
	return snaps
}

func (h *harness) sessionLog(id string, req ...sessionlog.PageRequest) []sessionlog.Event {
	h.t.Helper()
	var events []sessionlog.Event
	h.query(id, contract.QuerySessionLog, &events, req...)
	return events
}

func (h *harness) query(id, name string, into any, req ...sessionlog.PageRequest) {
	h.t.Helper()
	args := make([]any, len(req))
	for i := range req {
		args[i] = req[i]
	}
	v, err := h.c.QueryWorkflow(h.ctx(), id, "", name, args...)
	if err != nil {
		h.t.Fatalf("query %s: %v", name, err)
	}
	if err := v.Get(into); err != nil {
		h.t.Fatal(err)
	}
}

func TestWriteQueryAndReject(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.start("write-query-reject", workflows.SessionInput{})

	if st := h.todos("write-query-reject"); st.Seq != 0 || st.Todos == nil || len(st.Todos) != 0 {
		t.Fatalf("fresh session: %+v", st)
	}
	res, err := h.write("write-query-reject", "", `{"todos":[{"content":"Run the tests","status":"in_progress"},{"content":"Fix the bug","status":"pending"},{"content":"Read the issue","status":"completed"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	if res.Message != "Updated todo list: 1 pending, 1 in progress, 1 completed." || res.Seq != 1 {
		t.Fatalf("result %+v", res)
	}

	rejects := map[string]string{
		`{"todos":[{"content":"a","status":"pending","priority":"high"}]}`:                  `invalid todo: unknown key "priority"`,
		`{"todos":[{"content":"a","status":"pending"}],"mode":"merge"}`:                     `invalid todos: unknown key "mode"`,
		`{"todos":[{"content":"","status":"pending"}]}`:                                     "invalid todo: `content` must be a non-empty string",
		`{"todos":[{"content":"a","status":"blocked"}]}`:                                    "invalid todo: `status` must be one of pending, in_progress, completed",
		`{"todos":[{"content":"a","status":"pending"},{"content":"a","status":"pending"}]}`: `invalid todos: duplicate content "a"`,
		`[1,2]`:          "invalid todos: `todos` must be an array",
		`{"todos":[42]}`: "invalid todo: `todos[0]` must be an object",
		`{"todos":[{"content":"` + strings.Repeat("é", 2049) + `","status":"pending"}]}`: "invalid todo: `content` exceeds 4096 bytes",
	}
	for args, want := range rejects {
		_, err := h.write("write-query-reject", "", args)
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || appErr.Message() != want || appErr.Type() != todo.ErrTypeInvalidTodos {
			t.Errorf("%.60s: got %v, want %q", args, err, want)
		}
	}

	st := h.todos("write-query-reject")
	if st.Seq != 1 || len(st.Todos) != 3 || st.Counts != (todo.Counts{Pending: 1, InProgress: 1, Completed: 1}) {
		t.Fatalf("rejected writes changed the list: %+v", st)
	}
	if hist := h.history("write-query-reject"); len(hist) != 1 || hist[0].Seq != 1 || hist[0].Source.Kind != todo.SourceUpdate {
		t.Fatalf("history %+v", hist)
	}
	if log := h.sessionLog("write-query-reject"); len(log) != 1 || log[0].Type != sessionlog.TodoWrite {
		t.Fatalf("session log %+v", log)
	}
	// Rejected updates never reached history: one accepted update, no more.
	accepted := 0
	for _, e := range h.fetchHistory("write-query-reject", "").GetEvents() {
		if e.GetWorkflowExecutionUpdateAcceptedEventAttributes() != nil {
			accepted++
		}
		if e.GetWorkflowExecutionUpdateRejectedEventAttributes() != nil {
			t.Fatalf("a rejected update was written to history: %v", e)
		}
	}
	if accepted != 1 {
		t.Fatalf("%d accepted updates in history, want 1", accepted)
	}
	h.assertStillRunning("write-query-reject")
	h.replay("write-query-reject")
}

func (h *harness) assertStillRunning(id string) {
	h.t.Helper()
	desc, err := h.c.DescribeWorkflowExecution(h.ctx(), id, "")
	if err != nil {
		h.t.Fatal(err)
	}
	if s := desc.GetWorkflowExecutionInfo().GetStatus().String(); s != "Running" {
		h.t.Fatalf("session %s is %s", id, s)
	}
}

func TestSignalWritesAndRejectsWithoutApplying(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := "signal-writes"
	h.start(id, workflows.SessionInput{})
	mustSignal := func(args string) {
		if err := h.c.SignalWorkflow(h.ctx(), id, "", contract.SignalTodoWrite, json.RawMessage(args)); err != nil {
			t.Fatal(err)
		}
	}
	mustSignal(`{"todos":[{"content":"signalled","status":"in_progress"}]}`)
	mustSignal(`{"todos":[{"content":"signalled","status":"pending","owner":"me"}]}`)
	waitFor(t, func() bool { return len(h.sessionLog(id)) == 2 })
	// The first two are checked below; a burst after them makes the session
	// signal-heavy for its replay.
	defer func() {
		for i := 0; i < 30; i++ {
			mustSignal(fmt.Sprintf(`{"todos":[{"content":"burst %d","status":"in_progress"},{"content":"signalled","status":"completed"}]}`, i))
		}
		mustSignal(`{"todos":[{"content":"burst","status":"in_progress"},{"content":"burst","status":"completed"}]}`)
		waitFor(t, func() bool { return len(h.sessionLog(id)) == 33 })
		if st := h.todos(id); st.Todos[0].Content != "burst 29" {
			t.Fatalf("after the burst: %+v", st)
		}
		h.replay(id)
	}()
	st := h.todos(id)
	if st.Seq != 1 || st.Todos[0].Content != "signalled" || st.Counts.InProgress != 1 {
		t.Fatalf("state %+v", st)
	}
	log := h.sessionLog(id)
	var rej sessionlog.TodoRejectedData
	if err := json.Unmarshal(log[1].Data, &rej); err != nil || log[1].Type != sessionlog.TodoRejected {
		t.Fatalf("log %+v", log)
	}
	if rej.Error != `invalid todo: unknown key "owner"` || rej.Source.Kind != todo.SourceSignal {
		t.Fatalf("rejection %+v", rej)
	}
	h.assertStillRunning(id)
}

func TestLastWriteWinsWithConcurrentWriters(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := "concurrent-writers"
	h.start(id, workflows.SessionInput{})
	const writers = 20
	results := make([]todo.WriteResult, writers)
	var wg sync.WaitGroup
	for i := 0; i < writers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := h.write(id, "", fmt.Sprintf(`{"todos":[{"content":"writer %d","status":"in_progress"}]}`, i))
			if err != nil {
				t.Error(err)
			}
			results[i] = res
		}()
	}
	wg.Wait()
	seen := map[int64]int{}
	var last todo.WriteResult
	for i, r := range results {
		if r.Seq < 1 || r.Seq > writers {
			t.Fatalf("writer %d got seq %d", i, r.Seq)
		}
		if prev, dup := seen[r.Seq]; dup {
			t.Fatalf("writers %d and %d both got seq %d", prev, i, r.Seq)
		}
		seen[r.Seq] = i
		if r.Seq > last.Seq {
			last = r
		}
	}
	st := h.todos(id)
	if st.Seq != writers || st.Todos[0].Content != last.Todos[0].Content {
		t.Fatalf("current %+v, highest seq wrote %q", st, last.Todos[0].Content)
	}
	hist := h.history(id)
	if len(hist) != writers {
		t.Fatalf("history has %d snapshots, want %d", len(hist), writers)
	}
	for i, s := range hist {
		if s.Seq != int64(i+1) {
			t.Fatalf("history out of order at %d: seq %d", i, s.Seq)
		}
		if w := seen[s.Seq]; s.Todos[0].Content != fmt.Sprint("writer ", w) {
			t.Fatalf("seq %d holds %q, writer %d was told that seq", s.Seq, s.Todos[0].Content, w)
		}
	}
	if page := h.history(id, sessionlog.PageRequest{AfterSeq: 10, Limit: 5}); len(page) != 5 || page[0].Seq != 11 {
		t.Fatalf("page %+v", page)
	}
}

func TestSameUpdateIDAppliedOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := "same-update-id"
	h.start(id, workflows.SessionInput{})
	args := `{"todos":[{"content":"only once","status":"pending"}]}`
	first, err := h.write(id, "retry-me", args)
	if err != nil {
		t.Fatal(err)
	}
	second, err := h.write(id, "retry-me", args)
	if err != nil {
		t.Fatal(err)
	}
	if first.Seq != 1 || second.Seq != 1 {
		t.Fatalf("seqs %d and %d, want 1 and 1", first.Seq, second.Seq)
	}
	if hist := h.history(id); len(hist) != 1 {
		t.Fatalf("history %+v", hist)
	}
}

// intruder is another workflow type trying to use the session-only activity.
func intruder(ctx workflow.Context) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 10 * time.Second})
	var res todo.WriteResult
	err := workflow.ExecuteActivity(ctx, contract.ActivityTodoWrite, activities.TodoWriteRequest{
		Arguments: `{"todos":[{"content":"not mine","status":"pending"}]}`,
	}).Get(ctx, &res)
	if err != nil {
		return todo.ErrorMessage(err), nil
	}
	return "accepted", nil
}

func TestTodoWriteRejectsCallersThatAreNotSessions(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{register: func(r worker.Registry) {
		r.RegisterWorkflowWithOptions(intruder, workflow.RegisterOptions{Name: "Intruder"})
	}})
	run, err := h.c.ExecuteWorkflow(h.ctx(), client.StartWorkflowOptions{TaskQueue: h.queue}, "Intruder")
	if err != nil {
		t.Fatal(err)
	}
	var got string
	if err := run.Get(h.ctx(), &got); err != nil {
		t.Fatal(err)
	}
	if got != "todo_write requires an owning agent session" {
		t.Fatalf("another workflow type got %q", got)
	}

	// A standalone activity, started by a client with no workflow at all.
	handle, err := h.c.ExecuteActivity(h.ctx(), client.StartActivityOptions{
		ID: "standalone-todo-write", TaskQueue: h.queue, StartToCloseTimeout: 10 * time.Second,
	}, contract.ActivityTodoWrite, activities.TodoWriteRequest{Arguments: `{"todos":[]}`})
	if err != nil {
		t.Fatalf("start standalone activity: %v", err)
	}
	err = handle.Get(h.ctx(), nil)
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Message() != todo.MsgNoOwningSession || appErr.Type() != todo.ErrTypeNoOwningSession {
		t.Fatalf("standalone activity: %v", err)
	}
}

func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
