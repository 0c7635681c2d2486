package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/payloads"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// worstItems is the largest valid list of control characters: six bytes each
// as JSON.
func worstItems(tag string) []todo.Item {
	items := make([]todo.Item, 64)
	for i := range items {
		prefix := fmt.Sprintf("%s %02d ", tag, i)
		items[i] = todo.Item{Content: prefix + strings.Repeat("\x01", 4096-len(prefix)), Status: todo.InProgress}
	}
	return items
}

func sessionWithHistory(n int, items func(i int) []todo.Item) *session {
	s := &session{in: SessionInput{}.withDefaults(), integrity: true}
	for i := 1; i <= n; i++ {
		list := items(i)
		s.seq = int64(i)
		s.history = append(s.history, todo.Snapshot{Seq: s.seq, Todos: list, Counts: todo.CountOf(list),
			At: time.Unix(int64(i), 0).UTC(), Source: todo.Source{Kind: todo.SourceUpdate, ID: fmt.Sprint("u", i)}})
	}
	last := s.history[len(s.history)-1]
	s.current = todo.State{Todos: last.Todos, Counts: last.Counts, Seq: last.Seq, UpdatedAt: last.At}
	return s
}

// What continue-as-new carries stays within its budget whatever the
// content, holds each list once, and comes back unchanged.
func TestCarryIsBoundedAndRestoresTheSession(t *testing.T) {
	s := sessionWithHistory(20, func(i int) []todo.Item { return worstItems(fmt.Sprint("w", i)) })
	s.signalCount = 7
	s.inbox = []*prompt{{text: "queued one"}, {text: "queued two"}}
	s.answered.remember(AnsweredUpdate{Name: "todo_write", ID: "u20", Seq: 20})

	c := s.carry()
	raw, err := payloads.Marshal(SessionInput{Carry: c})
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > carryBudget {
		t.Fatalf("carry of worst-case lists is %d bytes, budget %d", len(raw), carryBudget)
	}
	if c.Current != nil || c.History != nil {
		t.Fatal("the carry holds the current list besides the snapshots")
	}
	if len(c.Snapshots) < 2 || c.Snapshots[len(c.Snapshots)-1].Seq != 20 {
		t.Fatalf("carried snapshots %d, last seq %d", len(c.Snapshots), c.Snapshots[len(c.Snapshots)-1].Seq)
	}

	var in SessionInput
	if err := json.Unmarshal(raw, &in); err != nil {
		t.Fatal(err)
	}
	next := &session{in: in.withDefaults()}
	if err := next.restore(in.Carry); err != nil {
		t.Fatal(err)
	}
	if next.current.Seq != 20 || len(next.current.Todos) != 64 || next.current.Todos[5] != s.current.Todos[5] ||
		next.current.Counts != s.current.Counts || !next.current.UpdatedAt.Equal(s.current.UpdatedAt) {
		t.Fatalf("restored current %d items at seq %d", len(next.current.Todos), next.current.Seq)
	}
	if next.seq != 20 || next.signalCount != 7 || len(next.inbox) != 2 || next.inbox[1].text != "queued two" || next.inbox[0].waited {
		t.Fatalf("restored seq %d, signals %d, inbox %d", next.seq, next.signalCount, len(next.inbox))
	}
	if a, ok := next.answered.lookup("todo_write", "u20"); !ok || a.Seq != 20 {
		t.Fatal("answered update IDs were not carried")
	}
	if next.remind != sessionlog.ReminderContinuedAsNew {
		t.Fatal("no reminder after continue-as-new")
	}
}

// Small lists are carried up to the tail's count.
func TestCarryKeepsTheNewestSnapshots(t *testing.T) {
	s := sessionWithHistory(historyTail+50, func(i int) []todo.Item {
		return []todo.Item{{Content: fmt.Sprint("step ", i), Status: todo.Pending}}
	})
	c := s.carry()
	if len(c.Snapshots) != historyTail || c.Snapshots[0].Seq != 51 {
		t.Fatalf("carried %d snapshots from seq %d", len(c.Snapshots), c.Snapshots[0].Seq)
	}
}

// A run started before changeSessionIntegrity carried the list twice; a new
// run still reads that.
func TestRestoreReadsTheCarryOfEarlierVersions(t *testing.T) {
	var in SessionInput
	legacy := `{"carry":{"seq":4,"current":{"todos":[{"content":"a","status":"completed"}],"counts":{"pending":0,"inProgress":0,"completed":1},"seq":3,"updatedAt":"2026-11-01T00:00:00Z"},` +
		`"history":[{"seq":3,"todos":[{"content":"a","status":"completed"}],"counts":{"pending":0,"inProgress":0,"completed":1},"at":"2026-11-01T00:00:00Z","source":{"kind":"update","id":"x"}}],"log":[],"conversationFrom":0,"scriptTurn":0,"runs":2,"prompts":0}}`
	if err := json.Unmarshal([]byte(legacy), &in); err != nil {
		t.Fatal(err)
	}
	s := &session{}
	if err := s.restore(in.Carry); err != nil {
		t.Fatal(err)
	}
	if s.seq != 4 || s.current.Seq != 3 || len(s.history) != 1 || s.runs != 3 || s.current.Todos[0].Content != "a" {
		t.Fatalf("restored %+v", s)
	}
}

// Nothing queued that someone waits on may be carried, nor more queued
// messages than fit.
func TestMayContinueAsNew(t *testing.T) {
	s := &session{}
	if !s.mayContinueAsNew() {
		t.Fatal("an empty inbox forbids continue-as-new")
	}
	s.inbox = []*prompt{{text: "later"}}
	if !s.mayContinueAsNew() {
		t.Fatal("a queued message nobody waits on forbids continue-as-new")
	}
	s.inbox = append(s.inbox, &prompt{text: "now", waited: true})
	if s.mayContinueAsNew() {
		t.Fatal("a waited prompt may be carried")
	}
	s.inbox = []*prompt{{text: strings.Repeat("x", carryInboxBytes+1)}}
	if s.mayContinueAsNew() {
		t.Fatal("an inbox over its budget may be carried")
	}
}

// fitWorkflow runs fitConversation on a log of n turns of turnBytes each.
func fitWorkflow(ctx workflow.Context, n, turnBytes, budget int) (int64, error) {
	s := &session{in: SessionInput{ConversationBudgetBytes: budget}, integrity: true}
	s.current = todo.State{Todos: []todo.Item{{Content: "a", Status: todo.Pending}}}
	text, _ := json.Marshal(sessionlog.MessageData{Text: strings.Repeat("x", turnBytes)})
	call, _ := json.Marshal(sessionlog.AssistantData{ToolCalls: []sessionlog.Call{{ID: "c", Name: "todo_write", Arguments: "{}"}}})
	result, _ := json.Marshal(sessionlog.ToolResultData{ToolCallID: "c", Content: "ok"})
	for range n {
		for _, e := range []struct {
			typ  sessionlog.Type
			data []byte
		}{{sessionlog.UserMessage, text}, {sessionlog.AssistantMessage, call}, {sessionlog.ToolResult, result}} {
			s.log = append(s.log, sessionlog.Event{Seq: s.nextSeq(), Type: e.typ, Data: e.data})
		}
	}
	s.fitConversation(ctx)
	if s.remind != sessionlog.ReminderTrimmed && s.conversationFrom > 0 {
		return 0, fmt.Errorf("trimmed without a reminder")
	}
	return s.conversationFrom, nil
}

// Trimming starts the window at a user or assistant message, never between
// a tool call and its result, and keeps the newest turn however large.
func TestFitConversationKeepsCallsWithResults(t *testing.T) {
	for _, c := range []struct {
		n, turnBytes, budget int
		wantFrom             int64
	}{
		{n: 3, turnBytes: 100, budget: 1 << 20, wantFrom: 0},
		{n: 10, turnBytes: 1000, budget: 4500, wantFrom: 20}, // from turn 7's assistant message: its call and result stay together
		{n: 2, turnBytes: 10000, budget: 4096, wantFrom: 5},  // only the newest turn's assistant message on
	} {
		var suite testsuite.WorkflowTestSuite
		env := suite.NewTestWorkflowEnvironment()
		env.RegisterWorkflow(fitWorkflow)
		env.ExecuteWorkflow(fitWorkflow, c.n, c.turnBytes, c.budget)
		var from int64
		if err := env.GetWorkflowResult(&from); err != nil {
			t.Fatal(err)
		}
		if from != c.wantFrom {
			t.Errorf("%d turns of %d bytes in %d: window from seq %d, want %d", c.n, c.turnBytes, c.budget, from, c.wantFrom)
		}
	}
}
