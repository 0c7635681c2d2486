package sessionlog

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/durabletodos/agenttodos/todo"
)

// convLog builds a log from (type, data) pairs, seq from 1.
func convLog(t *testing.T, pairs ...any) []Event {
	t.Helper()
	var out []Event
	for i := 0; i < len(pairs); i += 2 {
		data, err := json.Marshal(pairs[i+1])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Event{Seq: int64(len(out) + 1), Type: pairs[i].(Type), At: time.Unix(0, 0).UTC(), Data: data})
	}
	return out
}

func checkMessages(t *testing.T, got, want []Message) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		w, _ := json.MarshalIndent(want, "", "  ")
		t.Fatalf("messages:\n%s\nwant:\n%s", g, w)
	}
}

// checkPaired asserts what every chat API requires: each tool message answers
// a call of the assistant message right before its run of tool messages, and
// every call is answered there.
func checkPaired(t *testing.T, msgs []Message) {
	t.Helper()
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == RoleTool {
			t.Fatalf("message %d: tool result %q without its assistant call right before", i, m.ToolCallID)
		}
		if m.Role != RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		want := map[string]bool{}
		for _, c := range m.ToolCalls {
			want[c.ID] = true
		}
		for i+1 < len(msgs) && msgs[i+1].Role == RoleTool {
			i++
			if !want[msgs[i].ToolCallID] {
				t.Fatalf("message %d: result %q answers no call of the assistant message", i, msgs[i].ToolCallID)
			}
			delete(want, msgs[i].ToolCallID)
		}
		if len(want) > 0 {
			t.Fatalf("assistant calls without results: %v", want)
		}
	}
}

func TestMessagesMapsEachEventType(t *testing.T) {
	call := Call{ID: "call_1", Name: "todo_write", Arguments: `{"todos":[{"content":"Run the tests","status":"in_progress"}]}`}
	events := convLog(t,
		UserMessage, MessageData{Text: "Fix the build"},
		AssistantMessage, AssistantData{Content: "Planning.", ToolCalls: []Call{call}},
		ToolCall, call,
		TodoWrite, TodoWriteData{Todos: []todo.Item{{Content: "Run the tests", Status: todo.InProgress}}, Source: todo.Source{Kind: todo.SourceModel, ID: "call_1"}},
		ToolResult, ToolResultData{ToolCallID: "call_1", Name: "todo_write", Content: "Updated todo list: 0 pending, 1 in progress, 0 completed."},
		TodoRejected, TodoRejectedData{Error: "invalid todos: `todos` must be an array", Source: todo.Source{Kind: todo.SourceSignal, ID: "s"}},
		AssistantMessage, AssistantData{Content: "Done."},
	)
	got := Messages("You are careful.", events)
	checkMessages(t, got, []Message{
		{Role: RoleSystem, Content: "You are careful."},
		{Role: RoleUser, Content: "Fix the build"},
		{Role: RoleAssistant, Content: "Planning.", ToolCalls: []Call{call}},
		{Role: RoleTool, Content: "Updated todo list: 0 pending, 1 in progress, 0 completed.", ToolCallID: "call_1"},
		{Role: RoleAssistant, Content: "Done."},
	})
	checkPaired(t, got)
}

func TestMessagesWithoutSystemPrompt(t *testing.T) {
	got := Messages("", convLog(t, UserMessage, MessageData{Text: "hi"}))
	checkMessages(t, got, []Message{{Role: RoleUser, Content: "hi"}})
}

func TestReminderTexts(t *testing.T) {
	items := []todo.Item{{Content: `Compare a < b && "c"`, Status: todo.InProgress}, {Content: "Ship", Status: todo.Pending}}
	list := `{"todos":[{"content":"Compare a < b && \"c\"","status":"in_progress"},{"content":"Ship","status":"pending"}]}`
	cases := []struct {
		reason ReminderReason
		why    string
	}{
		{ReminderChangedOutside, "The todo list was changed from outside this conversation (by a person or another program). This is now the current plan; continue from it and resend it in full on your next todo_write:"},
		{ReminderContinuedAsNew, "Earlier turns of this conversation were dropped; your current todo list, verbatim, is:"},
		{ReminderTrimmed, "Earlier turns of this conversation were dropped; your current todo list, verbatim, is:"},
	}
	for _, tc := range cases {
		got := Messages("", convLog(t, TodoReminder, TodoReminderData{Reason: tc.reason, Todos: items}))
		want := "<system-reminder>\n" + tc.why + "\n" + reminderData + "\n" + list + "\n</system-reminder>"
		checkMessages(t, got, []Message{{Role: RoleUser, Content: want}})
		if Reminder(TodoReminderData{Reason: tc.reason, Todos: items}) != want {
			t.Fatalf("Reminder disagrees with Messages for %s", tc.reason)
		}
	}
	// The list embedded is exactly what todo_write accepts back.
	if _, err := todo.Parse([]byte(list), todo.Limits{}); err != nil {
		t.Fatal(err)
	}
	if got := Reminder(TodoReminderData{Reason: ReminderTrimmed}); !strings.Contains(got, "\n"+`{"todos":[]}`+"\n") {
		t.Fatalf("empty list: %q", got)
	}
}

func TestMessagesDropsOrphans(t *testing.T) {
	a := Call{ID: "a", Name: "todo_write", Arguments: `{}`}
	b := Call{ID: "b", Name: "todo_write", Arguments: `{"todos":[]}`}
	t.Run("result whose call is before the window", func(t *testing.T) {
		got := Messages("", convLog(t,
			ToolResult, ToolResultData{ToolCallID: "gone", Content: "Updated todo list: 0 pending, 0 in progress, 0 completed."},
			UserMessage, MessageData{Text: "next"},
		))
		checkMessages(t, got, []Message{{Role: RoleUser, Content: "next"}})
	})
	t.Run("call without result keeps the text", func(t *testing.T) {
		got := Messages("", convLog(t,
			AssistantMessage, AssistantData{Content: "Let me plan.", ToolCalls: []Call{a}},
			UserMessage, MessageData{Text: "stop"},
		))
		checkMessages(t, got, []Message{{Role: RoleAssistant, Content: "Let me plan."}, {Role: RoleUser, Content: "stop"}})
		checkPaired(t, got)
	})
	t.Run("call without result and without text", func(t *testing.T) {
		got := Messages("", convLog(t,
			UserMessage, MessageData{Text: "go"},
			AssistantMessage, AssistantData{ToolCalls: []Call{a}},
		))
		checkMessages(t, got, []Message{{Role: RoleUser, Content: "go"}})
	})
	t.Run("one of two calls answered", func(t *testing.T) {
		got := Messages("", convLog(t,
			AssistantMessage, AssistantData{ToolCalls: []Call{a, b}},
			ToolResult, ToolResultData{ToolCallID: "b", Content: "ok b"},
			AssistantMessage, AssistantData{Content: "next turn"},
			ToolResult, ToolResultData{ToolCallID: "a", Content: "late a"},
		))
		checkMessages(t, got, []Message{
			{Role: RoleAssistant, ToolCalls: []Call{b}},
			{Role: RoleTool, Content: "ok b", ToolCallID: "b"},
			{Role: RoleAssistant, Content: "next turn"},
		})
		checkPaired(t, got)
	})
	t.Run("duplicate result and duplicate call", func(t *testing.T) {
		got := Messages("", convLog(t,
			AssistantMessage, AssistantData{ToolCalls: []Call{a, a, {Name: "todo_write"}}},
			ToolResult, ToolResultData{ToolCallID: "a", Content: "first"},
			ToolResult, ToolResultData{ToolCallID: "a", Content: "second"},
		))
		checkMessages(t, got, []Message{
			{Role: RoleAssistant, ToolCalls: []Call{a}},
			{Role: RoleTool, Content: "first", ToolCallID: "a"},
		})
		checkPaired(t, got)
	})
	t.Run("undecodable data", func(t *testing.T) {
		events := convLog(t, UserMessage, MessageData{Text: "hi"})
		events = append(events, Event{Seq: 2, Type: AssistantMessage, Data: json.RawMessage(`"not an object"`)})
		checkMessages(t, Messages("", events), []Message{{Role: RoleUser, Content: "hi"}})
	})
}

func TestMessagesKeepsResultsNextToTheirCalls(t *testing.T) {
	a := Call{ID: "a", Name: "todo_write", Arguments: `{"todos":[]}`}
	b := Call{ID: "b", Name: "todo_write", Arguments: `{"todos":[]}`}
	// A person writes the list and says something while the model's tool
	// calls run; the results answer in reverse order.
	got := Messages("", convLog(t,
		AssistantMessage, AssistantData{Content: "Two writes.", ToolCalls: []Call{a, b}},
		TodoReminder, TodoReminderData{Reason: ReminderChangedOutside, Todos: []todo.Item{{Content: "x", Status: todo.Pending}}},
		ToolResult, ToolResultData{ToolCallID: "b", Content: "rb"},
		UserMessage, MessageData{Text: "also this"},
		ToolResult, ToolResultData{ToolCallID: "a", Content: "ra"},
		AssistantMessage, AssistantData{Content: "ok"},
	))
	checkMessages(t, got, []Message{
		{Role: RoleAssistant, Content: "Two writes.", ToolCalls: []Call{a, b}},
		{Role: RoleTool, Content: "ra", ToolCallID: "a"},
		{Role: RoleTool, Content: "rb", ToolCallID: "b"},
		{Role: RoleUser, Content: Reminder(TodoReminderData{Reason: ReminderChangedOutside, Todos: []todo.Item{{Content: "x", Status: todo.Pending}}})},
		{Role: RoleUser, Content: "also this"},
		{Role: RoleAssistant, Content: "ok"},
	})
	checkPaired(t, got)
}

// Every suffix of a log, as trimming or continue-as-new would cut it, still
// pairs calls and results.
func TestMessagesEveryWindowIsPaired(t *testing.T) {
	var pairs []any
	for i := range 6 {
		id := string(rune('a' + i))
		c := Call{ID: id, Name: "todo_write", Arguments: `{"todos":[]}`}
		pairs = append(pairs,
			UserMessage, MessageData{Text: "u" + id},
			AssistantMessage, AssistantData{ToolCalls: []Call{c, {ID: id + "2", Name: "todo_write"}}},
			ToolCall, c,
			ToolResult, ToolResultData{ToolCallID: id, Content: "r"},
			TodoReminder, TodoReminderData{Reason: ReminderTrimmed},
			ToolResult, ToolResultData{ToolCallID: id + "2", Content: "r2"},
		)
	}
	events := convLog(t, pairs...)
	for from := range events {
		for to := from; to <= len(events); to++ {
			checkPaired(t, Messages("sys", events[from:to]))
		}
	}
}

func TestEstimateBytes(t *testing.T) {
	events := convLog(t,
		UserMessage, MessageData{Text: "hello"},
		AssistantMessage, AssistantData{Content: "hi"},
		ToolResult, ToolResultData{ToolCallID: "a", Content: "ok"},
		TodoReminder, TodoReminderData{Reason: ReminderTrimmed},
		ToolCall, Call{ID: "a"},
		TodoWrite, TodoWriteData{},
		TodoRejected, TodoRejectedData{},
	)
	for _, e := range events[:4] {
		if n := EstimateBytes(e); n <= len(e.Data) || n > len(e.Data)+512 {
			t.Errorf("%s: %d for %d data bytes", e.Type, n, len(e.Data))
		}
	}
	// The reminder's text is longer than its data; the estimate must cover it.
	if r := events[3]; EstimateBytes(r) < len(Messages("", events[3:4])[0].Content) {
		t.Errorf("reminder underestimated: %d", EstimateBytes(r))
	}
	for _, e := range events[4:] {
		if n := EstimateBytes(e); n != 0 {
			t.Errorf("%s is never sent but weighs %d", e.Type, n)
		}
	}
}

func TestPageStopsAtTheByteBudget(t *testing.T) {
	big := strings.Repeat("x", 400<<10)
	var events []Event
	for i := int64(1); i <= 10; i++ {
		events = append(events, Event{Seq: i, Type: UserMessage, Data: json.RawMessage(`"` + big + `"`)})
	}
	page := Page(events, EventSeq, EventBytes, PageRequest{AfterSeq: 3})
	if len(page) != 2 || page[0].Seq != 4 {
		t.Fatalf("page of %d from seq %d", len(page), page[0].Seq)
	}
	// One entry over the budget still comes alone, so paging moves on.
	huge := []Event{{Seq: 1, Data: json.RawMessage(`"` + strings.Repeat("y", 2<<20) + `"`)}, {Seq: 2}}
	if page := Page(huge, EventSeq, EventBytes, PageRequest{}); len(page) != 1 {
		t.Fatalf("page of %d", len(page))
	}
	if page := Page(events, EventSeq, EventBytes, PageRequest{AfterSeq: 10}); page == nil || len(page) != 0 {
		t.Fatalf("past the end: %v", page)
	}
	if page := Page(events, EventSeq, EventBytes, PageRequest{AfterSeq: 0, Limit: 1}); len(page) != 1 {
		t.Fatalf("limit 1: %d", len(page))
	}
}
