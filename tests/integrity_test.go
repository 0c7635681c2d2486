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

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/tests/chattest"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/todo/todotest"
	"github.com/durabletodos/agenttodos/workflows"
)

// sourceCounts counts the snapshots of the history by source ID.
func sourceCounts(hist []todo.Snapshot) map[string]int {
	n := map[string]int{}
	for _, sn := range hist {
		n[sn.Source.ID]++
	}
	return n
}

// TestSignalsInTheContinueAsNewTaskAreNotLost sends signals one at a time to
// a session that continues as new every few writes. The signal that pushes a
// run past its limit arrives in the very workflow task that decides to
// continue as new; it used to be handed to the blocked receiver, unseen by
// the drain, and lost with the run. Both signals are covered, and signal
// source IDs stay unique across runs.
func TestSignalsInTheContinueAsNewTaskAreNotLost(t *testing.T) {
	t.Parallel()
	cs := stepModel(t, 0)
	h := newHarness(t, harnessOptions{models: chatConfig(cs, "test-key")})
	id := uniqueID("signal-at-continue-as-new")
	h.start(id, workflows.SessionInput{ContinueAsNewAfterEvents: 30})

	const writes, messages = 12, 8
	for i := 1; i <= writes; i++ {
		content := fmt.Sprintf("signalled %d", i)
		h.on(id).Signal(contract.SignalTodoWrite, json.RawMessage(todotest.OneItem(content)))
		sessiontest.WaitFor(t, 30*time.Second, "", func() bool { st := h.on(id).Todos(); return len(st.Todos) == 1 && st.Todos[0].Content == content })
	}
	for i := 1; i <= messages; i++ {
		text := fmt.Sprintf("message %d", i)
		h.on(id).Signal(contract.SignalUserMessage, text)
		sessiontest.WaitFor(t, 30*time.Second, "", func() bool {
			st := h.on(id).Todos()
			return len(st.Todos) == 1 && st.Todos[0].Content == text+" step 1"
		})
	}

	if runs := len(h.on(id).RunInputs()); runs < 4 {
		t.Fatalf("%d runs: the test must cross continue-as-new several times", runs)
	}
	hist := h.on(id).History()
	signals, model := 0, 0
	for src, n := range sourceCounts(hist) {
		if n != 1 {
			t.Errorf("source %s applied %d times", src, n)
		}
		switch {
		case strings.HasPrefix(src, "signal-"):
			signals++
		case strings.HasPrefix(src, "call_message"):
			model++
		}
	}
	if signals != writes || model != messages {
		t.Fatalf("%d signalled writes and %d answered messages, want %d and %d", signals, model, writes, messages)
	}
	h.replay(id)
}

// TestContinueAsNewMidPromptKeepsEverythingQueued: a long first prompt (which
// nobody waits on) crosses continue-as-new while user messages are queued;
// then a prompt update and todo_write updates arrive while it still works.
// The queued messages are carried and answered once each, the waiting prompt
// gets its answer, every write is applied once.
func TestContinueAsNewMidPromptKeepsEverythingQueued(t *testing.T) {
	t.Parallel()
	cs := stepModel(t, 150*time.Millisecond)
	h := newHarness(t, harnessOptions{models: chatConfig(cs, "test-key")})
	id := uniqueID("mid-prompt-continue-as-new")
	const first = "long 16: first task"
	h.start(id, workflows.SessionInput{Prompt: first, ContinueAsNewAfterEvents: 40, MaxTurnsPerPrompt: 40})

	sessiontest.WaitFor(t, 30*time.Second, "", func() bool { return h.on(id).Todos().Seq > 0 })
	h.on(id).Signal(contract.SignalUserMessage, "queued one")
	h.on(id).Signal(contract.SignalUserMessage, "queued two")
	sessiontest.WaitFor(t, 30*time.Second, "", func() bool { return len(h.on(id).RunInputs()) >= 2 })

	var wg sync.WaitGroup
	var answer string
	var promptErr error
	wg.Go(func() { answer, promptErr = h.on(id).Prompt("", "waited three") })
	seqs := make([]int64, 3)
	for i := range seqs {
		wg.Go(func() {
			res, err := h.on(id).Write(fmt.Sprint("mid-prompt-write-", i), todotest.OneItem(fmt.Sprint("outside ", i)))
			if err != nil {
				t.Error(err)
			}
			seqs[i] = res.Seq
		})
	}
	wg.Wait()
	if promptErr != nil || answer != "done: waited three" {
		t.Fatalf("waited prompt: %q, %v", answer, promptErr)
	}
	tasks := map[string]int{first: 16, "queued one": 1, "queued two": 1, "waited three": 1}
	sessiontest.WaitFor(t, 30*time.Second, "", func() bool {
		n := sourceCounts(h.on(id).History())
		for task, steps := range tasks {
			if n[stepCallID(task, steps)] == 0 {
				return false
			}
		}
		return true
	})

	counts := sourceCounts(h.on(id).History())
	for task, steps := range tasks {
		for k := 1; k <= steps; k++ {
			if n := counts[stepCallID(task, k)]; n != 1 {
				t.Errorf("%q step %d applied %d times", task, k, n)
			}
		}
	}
	for i, seq := range seqs {
		if n := counts[fmt.Sprint("mid-prompt-write-", i)]; n != 1 || seq == 0 {
			t.Errorf("write %d (seq %d) applied %d times", i, seq, n)
		}
	}
	carried := false
	for _, in := range h.on(id).RunInputs() {
		if c := in.Carry; c != nil && c.Resuming && len(c.Inbox) > 0 {
			carried = true
		}
	}
	if !carried {
		t.Fatal("no run continued as new in the middle of the first prompt with messages queued")
	}
	h.replay(id)
}

// TestRetriedUpdatesAcrossContinueAsNewAreAnsweredOnce retries a todo_write
// and a prompt with their update IDs after the session continued as new:
// each gets its first answer, and nothing is applied or asked again.
func TestRetriedUpdatesAcrossContinueAsNewAreAnsweredOnce(t *testing.T) {
	t.Parallel()
	cs := stepModel(t, 0)
	h := newHarness(t, harnessOptions{models: chatConfig(cs, "test-key")})
	id := uniqueID("retry-across-continue-as-new")
	h.start(id, workflows.SessionInput{ContinueAsNewAfterEvents: 30})

	stale := todotest.OneItem("the list a retry must not bring back")
	first, err := h.on(id).Write("retried-write", stale)
	if err != nil {
		t.Fatal(err)
	}
	answer, err := h.on(id).Prompt("retried-prompt", "plan the release")
	if err != nil || answer != "done: plan the release" {
		t.Fatalf("prompt: %q, %v", answer, err)
	}
	requests := cs.Count()
	run := h.on(id).RunID()
	var latest todo.WriteResult
	for i := 0; h.on(id).RunID() == run; i++ {
		if latest, err = h.on(id).Write("", todotest.OneItem(fmt.Sprint("newer ", i))); err != nil {
			t.Fatal(err)
		}
	}

	again, err := h.on(id).Write("retried-write", stale)
	if err != nil {
		t.Fatal(err)
	}
	if again.Seq != first.Seq || again.Message != first.Message || len(again.Todos) != 1 || again.Todos[0] != first.Todos[0] {
		t.Fatalf("retried write answered %+v, first answer %+v", again, first)
	}
	if st := h.on(id).Todos(); st.Seq != latest.Seq || st.Todos[0].Content != latest.Todos[0].Content {
		t.Fatalf("the retry changed the plan: %+v", st)
	}
	if n := sourceCounts(h.on(id).History())["retried-write"]; n != 1 {
		t.Fatalf("retried write recorded %d times", n)
	}
	answer2, err := h.on(id).Prompt("retried-prompt", "plan the release")
	if err != nil || answer2 != answer {
		t.Fatalf("retried prompt: %q, %v; first answer %q", answer2, err, answer)
	}
	if cs.Count() != requests {
		t.Fatalf("the retried prompt asked the model again (%d requests, were %d)", cs.Count(), requests)
	}
	h.replay(id)
}

// TestSessionInputOutOfBoundsFailsAtStart: out-of-range input fails the
// session at once, naming the field.
func TestSessionInputOutOfBoundsFailsAtStart(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	for field, in := range map[string]workflows.SessionInput{
		"continueAsNewAfterEvents": {ContinueAsNewAfterEvents: 1},
		"maxTurnsPerPrompt":        {MaxTurnsPerPrompt: 100000},
		"conversationBudgetBytes":  {ConversationBudgetBytes: 10},
		"prompt":                   {Prompt: strings.Repeat("p", workflows.MaxPromptBytes+1)},
		"scriptThinkTime":          {ScriptThinkTime: -time.Second},
	} {
		run := h.start(uniqueID("bad-input"), in)
		err := run.Get(h.ctx(), nil)
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || appErr.Type() != workflows.ErrTypeInvalidSessionInput ||
			!strings.HasPrefix(appErr.Message(), "invalid session input: "+field+" must be ") {
			t.Errorf("%s: %v", field, err)
		}
	}
}

// TestCancelledSessionReturnsItsPlan: the summary travels as the
// cancellation's details, so the last plan is in the result people see.
func TestCancelledSessionReturnsItsPlan(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := uniqueID("cancel-summary")
	run := h.start(id, workflows.SessionInput{})
	res, err := h.on(id).Write("", todotest.OneItem("Ship it"))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.c.CancelWorkflow(h.ctx(), id, ""); err != nil {
		t.Fatal(err)
	}
	err = run.Get(h.ctx(), nil)
	var canceled *temporal.CanceledError
	if !errors.As(err, &canceled) || !canceled.HasDetails() {
		t.Fatalf("cancelled session returned %v", err)
	}
	var sum workflows.Summary
	if err := canceled.Details(&sum); err != nil {
		t.Fatal(err)
	}
	if sum.Todos.Seq != res.Seq || len(sum.Todos.Todos) != 1 || sum.Todos.Todos[0].Content != "Ship it" {
		t.Fatalf("summary %+v", sum)
	}
	h.replay(id)
}

// TestSlowModelTurnHeartbeats: a model that thinks longer than the heartbeat
// interval is seen alive by Temporal and its answer arrives.
func TestSlowModelTurnHeartbeats(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, func(int, chattest.Request) (int, any) {
		time.Sleep(activities.HeartbeatInterval + 2*time.Second)
		return 200, completion("Thought it through.")
	})
	h := newHarness(t, harnessOptions{models: chatConfig(cs, "test-key")})
	id := uniqueID("slow-model")
	h.start(id, workflows.SessionInput{})
	done := make(chan error, 1)
	go func() { _, err := h.on(id).Prompt("", "think hard"); done <- err }()
	sessiontest.WaitFor(t, 20*time.Second, "a heartbeat from the model turn in progress", func() bool {
		d, err := h.c.DescribeWorkflowExecution(context.Background(), id, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range d.GetPendingActivities() {
			if a.GetActivityType().GetName() == contract.ActivityModelTurn && a.GetLastHeartbeatTime() != nil &&
				a.GetState() == enums.PENDING_ACTIVITY_STATE_STARTED {
				return true
			}
		}
		return false
	})
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
