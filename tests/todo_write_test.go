package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

func TestWriteQueryAndReject(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	h.start("write-query-reject", workflows.SessionInput{})

	if st := h.on("write-query-reject").Todos(); st.Seq != 0 || st.Todos == nil || len(st.Todos) != 0 {
		t.Fatalf("fresh session: %+v", st)
	}
	res, err := h.on("write-query-reject").Write("", `{"todos":[{"content":"Run the tests","status":"in_progress"},{"content":"Fix the bug","status":"pending"},{"content":"Read the issue","status":"completed"}]}`)
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
		_, err := h.on("write-query-reject").Write("", args)
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || appErr.Message() != want || appErr.Type() != todo.ErrTypeInvalidTodos {
			t.Errorf("%.60s: got %v, want %q", args, err, want)
		}
	}

	st := h.on("write-query-reject").Todos()
	if st.Seq != 1 || len(st.Todos) != 3 || st.Counts != (todo.Counts{Pending: 1, InProgress: 1, Completed: 1}) {
		t.Fatalf("rejected writes changed the list: %+v", st)
	}
	if hist := h.on("write-query-reject").History(); len(hist) != 1 || hist[0].Seq != 1 || hist[0].Source.Kind != todo.SourceUpdate {
		t.Fatalf("history %+v", hist)
	}
	if log := h.on("write-query-reject").Log(); len(log) != 1 || log[0].Type != sessionlog.TodoWrite {
		t.Fatalf("session log %+v", log)
	}
	// Rejected updates never reached history: one accepted update, no more.
	accepted := 0
	for _, e := range h.on("write-query-reject").FetchHistory("").GetEvents() {
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
	sessiontest.WaitFor(t, 30*time.Second, "", func() bool { return len(h.on(id).Log()) == 2 })
	// The first two are checked below; a burst after them makes the session
	// signal-heavy for its replay.
	defer func() {
		for i := 0; i < 30; i++ {
			mustSignal(fmt.Sprintf(`{"todos":[{"content":"burst %d","status":"in_progress"},{"content":"signalled","status":"completed"}]}`, i))
		}
		mustSignal(`{"todos":[{"content":"burst","status":"in_progress"},{"content":"burst","status":"completed"}]}`)
		sessiontest.WaitFor(t, 30*time.Second, "", func() bool { return len(h.on(id).Log()) == 33 })
		if st := h.on(id).Todos(); st.Todos[0].Content != "burst 29" {
			t.Fatalf("after the burst: %+v", st)
		}
		h.replay(id)
	}()
	st := h.on(id).Todos()
	if st.Seq != 1 || st.Todos[0].Content != "signalled" || st.Counts.InProgress != 1 {
		t.Fatalf("state %+v", st)
	}
	log := h.on(id).Log()
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
			res, err := h.on(id).Write("", fmt.Sprintf(`{"todos":[{"content":"writer %d","status":"in_progress"}]}`, i))
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
	st := h.on(id).Todos()
	if st.Seq != writers || st.Todos[0].Content != last.Todos[0].Content {
		t.Fatalf("current %+v, highest seq wrote %q", st, last.Todos[0].Content)
	}
	hist := h.on(id).History()
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
	if page := h.on(id).History(sessionlog.PageRequest{AfterSeq: 10, Limit: 5}); len(page) != 5 || page[0].Seq != 11 {
		t.Fatalf("page %+v", page)
	}
}

func TestSameUpdateIDAppliedOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := "same-update-id"
	h.start(id, workflows.SessionInput{})
	args := `{"todos":[{"content":"only once","status":"pending"}]}`
	first, err := h.on(id).Write("retry-me", args)
	if err != nil {
		t.Fatal(err)
	}
	second, err := h.on(id).Write("retry-me", args)
	if err != nil {
		t.Fatal(err)
	}
	if first.Seq != 1 || second.Seq != 1 {
		t.Fatalf("seqs %d and %d, want 1 and 1", first.Seq, second.Seq)
	}
	if hist := h.on(id).History(); len(hist) != 1 {
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
