package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mattn/go-runewidth"

	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func samplePlan() todo.State {
	items := []todo.Item{
		{Content: "Read the code", Status: todo.Completed},
		{Content: "Write the fix", Status: todo.Completed},
		{Content: "Run the tests", Status: todo.InProgress},
		{Content: "Update the docs", Status: todo.Pending},
		{Content: "Ship it", Status: todo.Pending},
	}
	return todo.State{Todos: items, Counts: todo.CountOf(items), Seq: 7}
}

func TestRenderPlanPlain(t *testing.T) {
	got := renderPlan(samplePlan(), terminal{})
	want := "Plan · 2/5 completed · 1 in progress · 2 pending · seq 7\n" +
		"[████████▒▒▒▒░░░░░░░░] 40%\n" +
		"  ✅ Read the code\n" +
		"  ✅ Write the fix\n" +
		"  🔄 Run the tests\n" +
		"  ⬜ Update the docs\n" +
		"  ⬜ Ship it\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestRenderPlanColourIsOnlyDecoration(t *testing.T) {
	plain := renderPlan(samplePlan(), terminal{tty: true})
	coloured := renderPlan(samplePlan(), terminal{tty: true, color: true})
	if !strings.Contains(coloured, "\x1b[") {
		t.Fatalf("no colour in %q", coloured)
	}
	if strings.Contains(plain, "\x1b[") {
		t.Fatalf("colour without asking: %q", plain)
	}
	if stripped := ansi.ReplaceAllString(coloured, ""); stripped != plain {
		t.Fatalf("colour changed the text:\n%s\nvs\n%s", stripped, plain)
	}
	// The in-progress item stands out; completed ones recede.
	if !strings.Contains(coloured, "\x1b[1;33mRun the tests\x1b[0m") {
		t.Fatalf("in-progress item not highlighted: %q", coloured)
	}
	if !strings.Contains(coloured, "\x1b[2mRead the code\x1b[0m") {
		t.Fatalf("completed item not dimmed: %q", coloured)
	}
}

func TestRenderEmptyPlan(t *testing.T) {
	got := renderPlan(todo.State{Todos: []todo.Item{}}, terminal{})
	want := "Plan · 0/0 completed · 0 in progress · 0 pending · seq 0\n" +
		"[░░░░░░░░░░░░░░░░░░░░] 0%\n" +
		"  (no todos yet)\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

func TestProgressBar(t *testing.T) {
	cases := []struct {
		c    todo.Counts
		want string
	}{
		{todo.Counts{Completed: 3}, "[████████████████████] 100%"},
		{todo.Counts{Pending: 1, Completed: 2}, "[█████████████░░░░░░░] 66%"},
		{todo.Counts{InProgress: 2}, "[▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒] 0%"},
		{todo.Counts{Pending: 499, Completed: 1}, "[░░░░░░░░░░░░░░░░░░░░] 0%"},
	}
	for _, tc := range cases {
		if got := progressBar(tc.c, false); got != tc.want {
			t.Errorf("%+v: got %s, want %s", tc.c, got, tc.want)
		}
	}
}

func TestItemLinesFitTheTerminal(t *testing.T) {
	st := todo.State{Todos: []todo.Item{{Content: strings.Repeat("word ", 40), Status: todo.Pending}}, Counts: todo.Counts{Pending: 1}}
	out := renderPlan(st, terminal{tty: true, width: 40})
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if w := runewidth.StringWidth(line); w > 40 {
			t.Errorf("line %q is %d columns wide", line, w)
		}
	}
	if !strings.Contains(out, "…") {
		t.Errorf("cut line not marked: %q", out)
	}
	// Not a terminal: nothing is cut, so a program sees whole contents.
	if out := renderPlan(st, terminal{}); !strings.Contains(out, st.Todos[0].Content) {
		t.Errorf("content cut without a terminal: %q", out)
	}
}

func TestModelTextCannotDriveTheTerminal(t *testing.T) {
	st := todo.State{Todos: []todo.Item{{Content: "line one\nline two\x1b[2J\tend", Status: todo.Pending}}, Counts: todo.Counts{Pending: 1}}
	out := renderPlan(st, terminal{})
	if strings.Contains(out, "\x1b") {
		t.Fatalf("escape sequence passed through: %q", out)
	}
	if !strings.Contains(out, "  ⬜ line one line two\uFFFD[2J end\n") {
		t.Fatalf("content not kept on one line: %q", out)
	}
}

func TestTruncateCountsWideCharacters(t *testing.T) {
	if got := truncate("日本語のテキスト", 7); got != "日本語…" {
		t.Fatalf("got %q", got)
	}
	if got := truncate("short", 10); got != "short" {
		t.Fatalf("got %q", got)
	}
}

func event(seq int64, typ sessionlog.Type, data any) sessionlog.Event {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err)
	}
	return sessionlog.Event{Seq: seq, Type: typ, At: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), Data: b}
}

func TestRenderEvents(t *testing.T) {
	items := []todo.Item{{Content: "Plan", Status: todo.Completed}, {Content: "Do", Status: todo.InProgress}}
	cases := []struct {
		ev   sessionlog.Event
		want string
	}{
		{event(1, sessionlog.UserMessage, sessionlog.MessageData{Text: "Fix the\nbuild"}), "#1 user/message       Fix the build\n"},
		{event(2, sessionlog.AssistantMessage, sessionlog.AssistantData{Content: "Planning.", ToolCalls: []sessionlog.Call{{ID: "c1", Name: "todo_write", Arguments: "{}"}}}), "#2 assistant/message  Planning. → todo_write\n"},
		{event(3, sessionlog.ToolCall, sessionlog.Call{ID: "c1", Name: "todo_write", Arguments: `{"todos":[]}`}), "#3 tool/call          todo_write {\"todos\":[]}\n"},
		{event(4, sessionlog.TodoWrite, sessionlog.TodoWriteData{Todos: items, Source: todo.Source{Kind: todo.SourceModel, ID: "c1"}}), "#4 todo/write         model:c1 · 1/2 completed · 1 in progress · 0 pending\n"},
		{event(5, sessionlog.ToolResult, sessionlog.ToolResultData{ToolCallID: "c1", Name: "todo_write", Content: "Updated todo list: 0 pending, 1 in progress, 1 completed."}), "#5 tool/result        Updated todo list: 0 pending, 1 in progress, 1 completed.\n"},
		{event(6, sessionlog.TodoRejected, sessionlog.TodoRejectedData{Error: `invalid todos: unknown key "x"`, Source: todo.Source{Kind: todo.SourceSignal, ID: "signal-1"}}), "#6 todo/rejected      signal:signal-1 · Error: invalid todos: unknown key \"x\"\n"},
		{event(7, sessionlog.TodoReminder, sessionlog.TodoReminderData{Reason: sessionlog.ReminderChangedOutside, Todos: items}), "#7 todo/reminder      changed-outside · 1/2 completed · 1 in progress · 0 pending\n"},
		{event(8, sessionlog.AssistantMessage, sessionlog.AssistantData{Content: "All done."}), "#8 assistant/message  All done.\n"},
		{event(9, sessionlog.TurnFailed, sessionlog.MessageData{Text: "agent stopped after 25 model turns"}), "#9 turn/failed        agent stopped after 25 model turns\n"},
		{event(10, "future/thing", map[string]int{"n": 1}), "#10 future/thing       {\"n\":1}\n"},
		{event(11, sessionlog.NotifyDelivered, sessionlog.NotifyData{Subscriber: "hooks", Seq: 4, Attempts: 3, Status: 204}), "#11 notify/delivered   → hooks · seq 4 delivered (attempt 3, 204)\n"},
		{event(12, sessionlog.NotifyGivenUp, sessionlog.NotifyData{Subscriber: "team", Seq: 4, Error: "webhook answered 401 Unauthorized"}), "#12 notify/given_up    → team · seq 4 given up: webhook answered 401 Unauthorized\n"},
	}
	for _, tc := range cases {
		if got := renderEvent(tc.ev, terminal{}, false); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

func TestRenderEventVerboseListsItemsAndFitsWidthOtherwise(t *testing.T) {
	items := []todo.Item{{Content: "Plan", Status: todo.Completed}}
	ev := event(4, sessionlog.TodoWrite, sessionlog.TodoWriteData{Todos: items, Source: todo.Source{Kind: todo.SourceUpdate, ID: "u1"}})
	if got := renderEvent(ev, terminal{}, true); !strings.HasSuffix(got, "\n    ✅ Plan\n") {
		t.Fatalf("got %q", got)
	}
	long := event(1, sessionlog.UserMessage, sessionlog.MessageData{Text: strings.Repeat("x", 200)})
	got := renderEvent(long, terminal{tty: true, color: true, width: 60}, false)
	if w := runewidth.StringWidth(ansi.ReplaceAllString(strings.TrimSuffix(got, "\n"), "")); w > 60 {
		t.Fatalf("%d columns: %q", w, got)
	}
}

func TestRenderSnapshot(t *testing.T) {
	items := []todo.Item{{Content: "Plan", Status: todo.Completed}, {Content: "Do", Status: todo.Pending}}
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.Local)
	s := todo.Snapshot{Seq: 12, Todos: items, Counts: todo.CountOf(items), At: at, Source: todo.Source{Kind: todo.SourceUpdate, ID: "u-1"}}
	want := "#12  2025-01-02 03:04:05  update:u-1  1/2 completed · 0 in progress · 1 pending\n"
	if got := renderSnapshot(s, terminal{}, false); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if got := renderSnapshot(s, terminal{}, true); got != want+"    ✅ Plan\n    ⬜ Do\n" {
		t.Fatalf("verbose: %q", got)
	}
}

func TestLiveViewOnAPipeAppendsBlocks(t *testing.T) {
	var b strings.Builder
	v := &liveView{w: &b}
	v.show("one\n")
	v.show("two\n")
	if b.String() != "one\n\ntwo\n" {
		t.Fatalf("got %q", b.String())
	}
	b.Reset()
	v = &liveView{w: &b, tty: true}
	v.show("a\nb\n")
	v.show("c\n")
	if b.String() != "a\nb\n\x1b[2A\r\x1b[Jc\n" {
		t.Fatalf("got %q", b.String())
	}
}

func TestGivenUpNotificationsAreRed(t *testing.T) {
	ev := event(12, sessionlog.NotifyGivenUp, sessionlog.NotifyData{Subscriber: "team", Seq: 4, Error: "unsubscribed"})
	got := renderEvent(ev, terminal{color: true}, false)
	if !strings.Contains(got, "\x1b[31mnotify/given_up\x1b[0m") || !strings.Contains(got, "\x1b[31m→ team · seq 4 given up: unsubscribed\x1b[0m") {
		t.Fatalf("got %q", got)
	}
	ok := renderEvent(event(11, sessionlog.NotifyDelivered, sessionlog.NotifyData{Subscriber: "hooks", Seq: 4, Attempts: 1, Status: 200}), terminal{color: true}, false)
	if strings.Contains(ok, "\x1b[31m") {
		t.Fatalf("a delivery in red: %q", ok)
	}
}
