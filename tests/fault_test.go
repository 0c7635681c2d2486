package tests

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/todo/todotest"
	"github.com/durabletodos/agenttodos/workflows"
)

// TestFiftyConcurrentWritersOnOneSession: 50 clients write one session at
// once. Every write is accepted and recorded exactly once, under its own
// update ID, at the seq its writer was told; the seqs are 1..50 with no gap
// and the current list is the one with the highest seq.
//
// Each writer behaves as a client should: when its call times out it
// retries with the same update ID, which must then be applied once, not
// twice. With Temporal's default of 10 updates in flight per workflow, a
// burst like this stalled the session for up to minutes (a turned-away
// update cleared the workflow's server-side state and aborted every update
// in flight; embedded.MaxInFlightUpdates says how). The servers here run
// with embedded.SessionLimits, so no workflow task may fail.
func TestFiftyConcurrentWritersOnOneSession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := uniqueID("fifty-writers")
	h.start(id, workflows.SessionInput{})

	const (
		writers = 50
		budget  = 2 * time.Minute  // for all writers, retries included
		attempt = 20 * time.Second // one call
	)
	type outcome struct {
		res      todo.WriteResult
		err      error
		attempts int
		took     time.Duration
	}
	out := make([]outcome, writers)
	updateID := func(i int) string { return fmt.Sprintf("writer-%02d", i) }
	content := func(i int) string { return fmt.Sprintf("writer %02d's plan", i) }
	begin := time.Now()
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			args := fmt.Sprintf(`{"todos":[{"content":%q,"status":"in_progress"},{"content":"shared step","status":"pending"}]}`, content(i))
			o := &out[i]
			for time.Since(begin) < budget {
				o.attempts++
				var timedOut bool
				o.res, timedOut, o.err = h.on(id).WriteOnce(updateID(i), args, attempt)
				if !timedOut {
					break
				}
			}
			o.took = time.Since(begin)
		})
	}
	wg.Wait()
	slowest := 0
	for i := range out {
		if out[i].took > out[slowest].took {
			slowest = i
		}
	}
	t.Logf("all %d writers done in %v; slowest %s took %v over %d attempts",
		writers, time.Since(begin).Round(time.Millisecond), updateID(slowest), out[slowest].took.Round(time.Millisecond), out[slowest].attempts)

	bySeq := map[int64]int{}
	highest := -1
	for i, o := range out {
		if o.err != nil {
			t.Errorf("writer %d: %v", i, o.err)
			continue
		}
		if o.res.Seq < 1 || o.res.Seq > writers {
			t.Errorf("writer %d: seq %d outside 1..%d", i, o.res.Seq, writers)
		}
		if prev, dup := bySeq[o.res.Seq]; dup {
			t.Errorf("writers %d and %d were both told seq %d", prev, i, o.res.Seq)
		}
		bySeq[o.res.Seq] = i
		if highest < 0 || o.res.Seq > out[highest].res.Seq {
			highest = i
		}
	}
	if t.Failed() {
		logHistory(t, h, id)
		t.FailNow()
	}

	hist := h.on(id).History()
	if len(hist) != writers {
		t.Fatalf("todo_history has %d snapshots, want %d", len(hist), writers)
	}
	h.on(id).AssertNoFailedTasks()
	recorded := map[string]int{}
	for i, s := range hist {
		if s.Seq != int64(i+1) {
			t.Errorf("snapshot %d has seq %d, want %d (seqs must be 1..%d in order)", i, s.Seq, i+1, writers)
		}
		recorded[s.Source.ID]++
		w, ok := bySeq[s.Seq]
		if !ok {
			t.Errorf("seq %d recorded but no writer was told it", s.Seq)
			continue
		}
		if s.Source.Kind != todo.SourceUpdate || s.Source.ID != updateID(w) {
			t.Errorf("seq %d: source %+v, want update %s (the writer told this seq)", s.Seq, s.Source, updateID(w))
		}
		if len(s.Todos) != 2 || s.Todos[0].Content != content(w) {
			t.Errorf("seq %d holds %+v, want writer %d's list", s.Seq, s.Todos, w)
		}
	}
	for i := range writers {
		if n := recorded[updateID(i)]; n != 1 {
			t.Errorf("update %s recorded %d times, want exactly once", updateID(i), n)
		}
	}

	st := h.on(id).Todos()
	if st.Seq != writers || len(st.Todos) != 2 || st.Todos[0].Content != content(highest) {
		t.Errorf("current %+v; want seq %d holding writer %d's list (the highest seq)", st, writers, highest)
	}
	writes := 0
	for _, e := range h.on(id).Log() {
		if e.Type == sessionlog.TodoWrite {
			writes++
		}
	}
	if writes != writers {
		t.Errorf("session log has %d todo/write events, want %d", writes, writers)
	}
	h.assertStillRunning(id)
}

// logHistory writes a summary of the session's history to the test log,
// to tell a lost update from a stuck workflow task.
func logHistory(t *testing.T, h *harness, id string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	it := h.c.GetWorkflowHistory(ctx, id, "", false, 0)
	counts := map[string]int{}
	var lines []string
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Logf("history: %v", err)
			return
		}
		counts[e.GetEventType().String()]++
		line := fmt.Sprintf("%d %s", e.GetEventId(), e.GetEventType())
		if f := e.GetWorkflowTaskFailedEventAttributes(); f != nil {
			line += fmt.Sprintf(" cause=%s %s", f.GetCause(), f.GetFailure().GetMessage())
		}
		if a := e.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil {
			line += " " + a.GetAcceptedRequest().GetMeta().GetUpdateId()
		}
		if a := e.GetWorkflowExecutionUpdateCompletedEventAttributes(); a != nil {
			line += " " + a.GetMeta().GetUpdateId()
		}
		lines = append(lines, line)
	}
	t.Logf("history of %s: %v\n%s", id, counts, strings.Join(lines, "\n"))
}

// startSessionWorker starts one more worker on queue, registered as the
// worker binary registers it. The caller decides when it stops.
func startSessionWorker(t *testing.T, queue string) worker.Worker {
	t.Helper()
	w := worker.New(shared.client, queue, sessiontest.WorkerOptions())
	workflows.Register(w, &workflows.Config{SearchAttributes: true}, &activities.Todos{},
		&activities.Models{Client: shared.client})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestUpdateRetriedAfterClientTimeoutAppliedOnce: a client sends a write
// while no worker is running, gives up when its deadline passes, and retries
// with the same update ID once a worker is back. The write is applied once.
//
// Stopping the worker is what makes the client time out every time: with a
// worker running, a short deadline races the write and the test would not
// know which case it exercised.
func TestUpdateRetriedAfterClientTimeoutAppliedOnce(t *testing.T) {
	t.Parallel()
	h := &harness{t: t, c: shared.client, queue: fmt.Sprintf("agent-sessions-%s-%d", t.Name(), queueCounter.Add(1))}
	first := startSessionWorker(t, h.queue)
	id := uniqueID("retry-after-client-timeout")
	h.start(id, workflows.SessionInput{})
	if _, err := h.on(id).Write("before", `{"todos":[{"content":"written before the outage","status":"completed"}]}`); err != nil {
		t.Fatal(err)
	}
	first.Stop()

	const retried = "retried-write"
	args := `{"todos":[{"content":"written before the outage","status":"completed"},{"content":"sent during the outage","status":"in_progress"}]}`
	sent := time.Now()
	_, timedOut, err := h.on(id).WriteOnce(retried, args, 5*time.Second)
	if err == nil {
		t.Fatal("the update completed with no worker running")
	}
	if !timedOut {
		t.Fatalf("with no worker running the client got %v before its deadline passed", err)
	}
	t.Logf("first attempt, no worker, 5s deadline: after %v: %v", time.Since(sent).Round(time.Millisecond), err)

	second := startSessionWorker(t, h.queue)
	t.Cleanup(second.Stop)
	res, err := h.on(id).Write(retried, args)
	if err != nil {
		t.Fatalf("retry with the same update ID: %v", err)
	}
	if res.Seq != 2 || len(res.Todos) != 2 {
		t.Fatalf("retry result %+v, want seq 2 with the two-item list", res)
	}
	// And once more, now that it has completed: still the same outcome.
	again, err := h.on(id).Write(retried, args)
	if err != nil || again.Seq != res.Seq {
		t.Fatalf("second retry: %+v, %v; want seq %d again", again, err, res.Seq)
	}

	hist := h.on(id).History()
	n := 0
	for _, s := range hist {
		if s.Source.ID == retried {
			n++
			if s.Seq != res.Seq || s.Source.Kind != todo.SourceUpdate {
				t.Errorf("snapshot %+v, want seq %d from an update", s, res.Seq)
			}
		}
	}
	if n != 1 || len(hist) != 2 {
		t.Fatalf("%d snapshots with source %q among %d, want exactly one of two: %+v", n, retried, len(hist), hist)
	}
	if st := h.on(id).Todos(); st.Seq != 2 || len(st.Todos) != 2 {
		t.Fatalf("current %+v", st)
	}
}

// uniqueID keeps workflow IDs apart across -count runs against the one
// shared server: starting an ID that is still running returns the old run.
func uniqueID(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, queueCounter.Add(1))
}

// TestThreeMegabyteListRejectedSessionKeepsLastGoodList: a list of about
// 3 MB (600 items of 5,000 bytes; rule 3 is the first it breaks) sent as an
// update and as a signal. The session keeps its last good list and runs on.
//
// What users get is not the contract message, because Temporal's limits act
// first:
//   - update: the server refuses to hold a request that alone exceeds the
//     in-flight payload limit (2 MiB, embedded.SessionLimits) and answers
//     ResourceExhausted until the caller gives up; the workflow never sees
//     it. (With Temporal's default of 20 MiB the update reached the
//     validator, whose rejection echoes the request back, over the payload
//     limit itself, and the session stopped answering for about 20 s.)
//   - signal: the frontend refuses the input before any workflow code runs.
//
// An oversized list that fits in a signal (about 1.8 MB) does reach the
// session and is logged as todo/rejected with the contract message.
func TestThreeMegabyteListRejectedSessionKeepsLastGoodList(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := uniqueID("three-megabytes")
	h.start(id, workflows.SessionInput{})
	good := `{"todos":[{"content":"Keep this plan","status":"in_progress"},{"content":"And this step","status":"pending"}]}`
	if _, err := h.on(id).Write("good", good); err != nil {
		t.Fatal(err)
	}
	keeps := func(when string, seq int64) {
		t.Helper()
		st := h.on(id).Todos()
		if st.Seq != seq || len(st.Todos) != 2 || st.Todos[0].Content != "Keep this plan" || st.Counts != (todo.Counts{Pending: 1, InProgress: 1}) {
			t.Fatalf("%s: current %+v, want the good list at seq %d", when, st, seq)
		}
		if hist := h.on(id).History(); len(hist) != 1 || hist[0].Source.ID != "good" {
			t.Fatalf("%s: todo_history %+v, want only the good write", when, hist)
		}
		h.assertStillRunning(id)
	}

	big := todotest.Huge(600, 5000)
	if len(big) < 3_000_000 || len(big) > 3_200_000 {
		t.Fatalf("test list is %d bytes, want about 3 MB", len(big))
	}
	const want = "invalid todos: at most 500 items (got 600)"

	// As an update: the server holds back an update whose request alone is
	// over the in-flight limit (history.maxInFlightUpdatePayloads, 2 MiB,
	// embedded.SessionLimits) and answers ResourceExhausted, which the SDK
	// retries until the caller's deadline. It never reaches the workflow, so
	// no workflow task fails and the session answers queries meanwhile.
	// (`client write` refuses such a list before sending it, with the
	// message of the rule it breaks.)
	begin := time.Now()
	_, timedOut, err := h.on(id).WriteOnce("too-big", big, 15*time.Second)
	var appErr *temporal.ApplicationError
	switch {
	case err == nil:
		t.Fatal("3 MB update accepted")
	case errors.As(err, &appErr):
		// What the contract promises, should Temporal ever deliver it.
		if appErr.Message() != want || appErr.Type() != todo.ErrTypeInvalidTodos {
			t.Fatalf("3 MB update: got %v, want %s %q", err, todo.ErrTypeInvalidTodos, want)
		}
	case !timedOut:
		t.Fatalf("3 MB update: got %v", err)
	}
	t.Logf("3 MB update, after %v: %v", time.Since(begin).Round(time.Millisecond), err)
	keeps("after the 3 MB update", 1)
	h.on(id).AssertNoFailedTasks()

	// As a signal: the frontend refuses any signal input over the
	// namespace's blob size limit (2 MiB by default) before any workflow
	// code runs, so the caller is told at once and the log has nothing.
	err = h.c.SignalWorkflow(h.ctx(), id, "", contract.SignalTodoWrite, json.RawMessage(big))
	if err == nil || !strings.Contains(err.Error(), "Blob data size exceeds limit") {
		t.Fatalf("3 MB signal: got %v, want the server's blob size error", err)
	}
	t.Logf("3 MB signal: %v", err)
	keeps("after the 3 MB signal", 1)
	if log := h.on(id).Log(); len(log) != 1 {
		t.Fatalf("session log after the refused signal: %d events, want only the good write", len(log))
	}

	// The largest oversized list a signal can carry (about 1.8 MB, still
	// rule 3) reaches the session: logged as todo/rejected, never applied.
	admitted := todotest.Huge(600, 3000)
	if err := h.c.SignalWorkflow(h.ctx(), id, "", contract.SignalTodoWrite, json.RawMessage(admitted)); err != nil {
		t.Fatalf("%d-byte signal: %v", len(admitted), err)
	}
	var log []sessionlog.Event
	sessiontest.WaitFor(t, 30*time.Second, "", func() bool {
		log = h.on(id).Log(sessionlog.PageRequest{AfterSeq: 1})
		return len(log) > 0
	})
	var rej sessionlog.TodoRejectedData
	if len(log) != 1 || log[0].Type != sessionlog.TodoRejected || json.Unmarshal(log[0].Data, &rej) != nil {
		t.Fatalf("session log after the oversized signal: %d events, first %v", len(log), log[0].Type)
	}
	if rej.Error != want || rej.Source.Kind != todo.SourceSignal {
		t.Fatalf("todo/rejected %q from %+v, want %q from a signal", rej.Error, rej.Source, want)
	}
	keeps("after the oversized signal", 1)

	// And the session still takes writes.
	res, err := h.on(id).Write("after", `{"todos":[{"content":"Keep this plan","status":"completed"}]}`)
	if err != nil || res.Seq <= 2 {
		t.Fatalf("write after the rejections: %+v, %v", res, err)
	}
}
