package tests

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/tests/chattest"
	"github.com/durabletodos/agenttodos/workflows"
)

// TestAgentOverChatCompletions runs a prompt through a real Chat Completions
// exchange: a malformed tool call is answered with an Error result and the
// loop goes on, and a plan changed from outside mid-turn reaches the model.
func TestAgentOverChatCompletions(t *testing.T) {
	t.Parallel()
	const id = "agent-chat-completions"
	var h *harness
	external := `{"todos":[{"content":"Write the migration","status":"completed"},{"content":"Ask the user before deploying","status":"in_progress"}]}`
	cs := newChatServer(t, func(n int, req chattest.Request) (int, any) {
		switch n {
		case 0:
			return 200, completion("Planning.", todoCall("plan", `{"todos":[{"content":"Write the migration","status":"in_progress"},{"content":"Deploy","status":"pending"}]}`))
		case 1:
			// A person steers the agent while the model is thinking.
			if _, err := h.on(id).Write("person-1", external); err != nil {
				t.Error(err)
			}
			return 200, completion("", todoCall("broken", `{"todos":[{"content":"Deploy","status":`))
		default:
			return 200, completion("Waiting for your go-ahead before deploying.")
		}
	})
	h = newHarness(t, harnessOptions{models: chatConfig(cs, "test-key")})
	h.start(id, workflows.SessionInput{})

	answer, err := h.on(id).Prompt("", "Ship the migration")
	if err != nil {
		t.Fatal(err)
	}
	if answer != "Waiting for your go-ahead before deploying." || cs.Count() != 3 {
		t.Fatalf("answer %q after %d requests", answer, cs.Count())
	}

	first := cs.Request(0)
	if first.Model != "test-model" || first.Messages[0].Role != "system" || first.Messages[1].Text() != "Ship the migration" {
		t.Fatalf("first request %+v", first)
	}
	if len(first.Tools) != 1 || first.Tools[0].Function.Name != "todo_write" || !strings.Contains(string(first.Tools[0].Function.Parameters), `"additionalProperties":false`) {
		t.Fatalf("tools offered %+v", first.Tools)
	}

	last := cs.Request(2)
	msgs := last.Messages
	var reminder, brokenResult string
	for _, m := range msgs {
		if m.Role == "user" && strings.Contains(m.Text(), "<system-reminder>") {
			reminder = m.Text()
		}
		if m.Role == "tool" && strings.Contains(m.ToolCallID, "broken") {
			brokenResult = m.Text()
		}
	}
	if brokenResult != "Error: invalid todos: `todos` must be an array" {
		t.Fatalf("malformed tool call answered %q", brokenResult)
	}
	if !strings.Contains(reminder, "changed from outside") || !strings.Contains(reminder, external) {
		t.Fatalf("the model was not told of the outside change:\n%s", reminder)
	}
	if got := msgs[len(msgs)-1]; got.Role != "user" || got.Text() != reminder {
		t.Fatalf("reminder is not the last message before the model's turn: %+v", got)
	}
	assertToolPairs(t, cs)
	h.replay(id)
}

// assertToolPairs checks that every request pairs each assistant tool call
// with exactly one tool result right after it, and no result is orphaned.
func assertToolPairs(t *testing.T, cs *chattest.Server) {
	t.Helper()
	for n := 0; n < cs.Count(); n++ {
		msgs := cs.Request(n).Messages
		open := map[string]bool{}
		for i, m := range msgs {
			switch m.Role {
			case "assistant":
				if len(open) > 0 {
					t.Fatalf("request %d message %d: tool calls %v left without results", n, i, open)
				}
				for _, c := range m.ToolCalls {
					open[c.ID] = true
				}
			case "tool":
				if !open[m.ToolCallID] {
					t.Fatalf("request %d message %d: tool result %q has no call", n, i, m.ToolCallID)
				}
				delete(open, m.ToolCallID)
			default:
				if len(open) > 0 {
					t.Fatalf("request %d message %d: %s message between a call and its result", n, i, m.Role)
				}
			}
		}
	}
}

func TestModelRateLimitIsRetriedByTemporal(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, func(n int, _ chattest.Request) (int, any) {
		if n == 0 {
			return http.StatusTooManyRequests, chattest.RateLimited()
		}
		return 200, completion("Hello after a retry.")
	})
	h := newHarness(t, harnessOptions{models: chatConfig(cs, "test-key")})
	h.start("agent-429", workflows.SessionInput{})
	answer, err := h.on("agent-429").Prompt("", "hi")
	if err != nil || answer != "Hello after a retry." || cs.Count() != 2 {
		t.Fatalf("answer %q err %v after %d requests", answer, err, cs.Count())
	}
}

func TestModelAuthErrorIsReportedNotRetried(t *testing.T) {
	t.Parallel()
	cs := newChatServer(t, func(int, chattest.Request) (int, any) { return 200, completion("unreachable") })
	h := newHarness(t, harnessOptions{models: chatConfig(cs, "wrong-key")})
	h.start("agent-401", workflows.SessionInput{})
	_, err := h.on("agent-401").Prompt("", "hi")
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != activities.ErrTypeModelRequestRejected ||
		!strings.Contains(appErr.Message(), "401") || !strings.Contains(appErr.Message(), "Incorrect API key provided") {
		t.Fatalf("prompt error %v", err)
	}
	if cs.Count() != 0 {
		t.Fatalf("rejected request reached the handler %d times", cs.Count())
	}
	log := h.on("agent-401").Log()
	if last := log[len(log)-1]; last.Type != sessionlog.TurnFailed {
		t.Fatalf("log ends with %s", last.Type)
	}
	h.assertStillRunning("agent-401")
	// One attempt only: the activity's history shows no retry.
	hist := h.on("agent-401").FetchHistory("")
	for _, e := range hist.GetEvents() {
		if a := e.GetActivityTaskStartedEventAttributes(); a != nil && a.GetAttempt() > 1 {
			t.Fatalf("a 401 was retried: attempt %d", a.GetAttempt())
		}
	}
}

// TestPlanSurvivesContinueAsNewAndTrimming crosses continue-as-new at least
// twice in one prompt and trims the conversation; the list and seq carry over
// and every request after a cut carries the plan verbatim.
func TestPlanSurvivesContinueAsNewAndTrimming(t *testing.T) {
	t.Parallel()
	const id = "agent-continue-as-new"
	const steps = 12
	plan := func(done int) string {
		var items []string
		for i := 0; i < steps; i++ {
			status := "pending"
			if i < done {
				status = "completed"
			} else if i == done {
				status = "in_progress"
			}
			items = append(items, `{"content":"Step `+string(rune('A'+i))+strings.Repeat(" with a long description", 8)+`","status":"`+status+`"}`)
		}
		return `{"todos":[` + strings.Join(items, ",") + `]}`
	}
	cs := newChatServer(t, func(n int, _ chattest.Request) (int, any) {
		if n < steps {
			return 200, completion("Working on step "+string(rune('A'+n))+".", todoCall("step", plan(n)))
		}
		return 200, completion("All steps done.")
	})
	h := newHarness(t, harnessOptions{models: chatConfig(cs, "test-key")})
	h.start(id, workflows.SessionInput{ContinueAsNewAfterEvents: 30, ConversationBudgetBytes: 6000, MaxTurnsPerPrompt: 50})
	// A signal, not an update: nobody waits, so the prompt may cross runs.
	if err := h.c.SignalWorkflow(h.ctx(), id, "", contract.SignalUserMessage, "Do all the steps"); err != nil {
		t.Fatal(err)
	}
	h.waitForAnswer(id, 1)

	st := h.on(id).Todos()
	if st.Seq == 0 || st.Counts.Completed != steps-1 || st.Counts.InProgress != 1 {
		t.Fatalf("final plan %+v", st.Counts)
	}
	runs := 0
	runID := ""
	for {
		runs++
		first := h.on(id).FetchHistory(runID).GetEvents()[0].GetWorkflowExecutionStartedEventAttributes()
		if first.GetContinuedExecutionRunId() == "" {
			break
		}
		runID = first.GetContinuedExecutionRunId()
	}
	if runs < 3 {
		t.Fatalf("crossed continue-as-new %d times, want at least 2", runs-1)
	}
	// seq only grows across runs, and the history tail carries over.
	hist := h.on(id).History()
	for i := 1; i < len(hist); i++ {
		if hist[i].Seq <= hist[i-1].Seq {
			t.Fatalf("seq went back: %d after %d", hist[i].Seq, hist[i-1].Seq)
		}
	}
	if hist[len(hist)-1].Seq != st.Seq || len(hist) != steps {
		t.Fatalf("history has %d snapshots ending at %d, state at %d", len(hist), hist[len(hist)-1].Seq, st.Seq)
	}
	reminded := 0
	for n := 1; n < cs.Count(); n++ {
		msgs := cs.Request(n).Messages
		for _, m := range msgs {
			if m.Role == "user" && strings.Contains(m.Text(), "<system-reminder>") {
				reminded++
				var want struct{ Todos json.RawMessage }
				_ = json.Unmarshal([]byte(plan(0)), &want)
				if !strings.Contains(m.Text(), `{"todos":[{"content":"Step A`) {
					t.Fatalf("reminder without the list: %s", m.Text())
				}
				break
			}
		}
	}
	if reminded == 0 {
		t.Fatal("no request after continue-as-new or trimming carried the plan")
	}
	assertToolPairs(t, cs)
	h.replay(id)
}
