package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/proto"

	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/tests/chattest"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

// growthTurn is model turn n of the measured session: some text and a
// todo_write that moves the plan on, like a real agent's turn.
func growthTurn(n int) (string, string) {
	var items []string
	for i := 0; i < 8; i++ {
		status := "pending"
		switch {
		case i < n%8:
			status = "completed"
		case i == n%8:
			status = "in_progress"
		}
		items = append(items, fmt.Sprintf(`{"content":"Task %d of round %d: update the handler and its tests","status":"%s"}`, i, n/8, status))
	}
	text := fmt.Sprintf("Turn %d: the handler change is in; moving to the next task.", n)
	return text, `{"todos":[` + strings.Join(items, ",") + `]}`
}

// naiveAgent is the design we avoid: the whole conversation is the model
// activity's input, so history holds it again on every turn.
func naiveAgent(ctx workflow.Context, turns int) error {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	lactx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{ScheduleToCloseTimeout: 10 * time.Second})
	conv := []sessionlog.Message{{Role: sessionlog.RoleUser, Content: "Do the tasks"}}
	for i := 0; i < turns; i++ {
		var out sessionlog.AssistantData
		if err := workflow.ExecuteActivity(ctx, "NaiveModelTurn", conv).Get(ctx, &out); err != nil {
			return err
		}
		conv = append(conv, sessionlog.Message{Role: sessionlog.RoleAssistant, Content: out.Content, ToolCalls: out.ToolCalls})
		for _, c := range out.ToolCalls {
			var res todo.WriteResult
			msg := ""
			if err := workflow.ExecuteLocalActivity(lactx, "NaiveTodoWrite", c.Arguments).Get(ctx, &res); err != nil {
				msg = todo.ErrorResult(err)
			} else {
				msg = res.Message
			}
			conv = append(conv, sessionlog.Message{Role: sessionlog.RoleTool, ToolCallID: c.ID, Content: msg})
		}
	}
	return nil
}

// naiveTodoWrite validates like TodoWrite but skips the owner check, which
// the naive workflow's type would fail.
func naiveTodoWrite(_ context.Context, args string) (todo.WriteResult, error) {
	items, err := todo.Parse([]byte(args), todo.Limits{})
	if err != nil {
		return todo.WriteResult{}, err
	}
	c := todo.CountOf(items)
	return todo.WriteResult{Todos: items, Counts: c, Message: todo.Message(c)}, nil
}

type historySize struct{ events, bytes int }

func (h *harness) historySize(id string) historySize {
	var s historySize
	runID := ""
	for {
		hist := h.on(id).FetchHistory(runID)
		for _, e := range hist.GetEvents() {
			s.events++
			s.bytes += proto.Size(e)
		}
		first := hist.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes()
		if first.GetContinuedExecutionRunId() == "" {
			return s
		}
		runID = first.GetContinuedExecutionRunId()
	}
}

// TestHistoryGrowsLinearlyInModelTurns measures history after 10, 50 and 100
// tool-calling model turns, beside the naive design in the same run.
func TestHistoryGrowsLinearlyInModelTurns(t *testing.T) {
	t.Parallel()
	turnOf := func(req chattest.Request) int {
		n := 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				n++
			}
		}
		return n
	}
	cs := newChatServer(t, func(_ int, req chattest.Request) (int, any) {
		text, args := growthTurn(turnOf(req))
		return 200, completion(text, todoCall("turn", args))
	})
	h := newHarness(t, harnessOptions{models: chatConfig(cs, "test-key"), register: func(r worker.Registry) {
		r.RegisterWorkflowWithOptions(naiveAgent, workflow.RegisterOptions{Name: "NaiveAgent"})
		r.RegisterActivityWithOptions(func(ctx context.Context, conv []sessionlog.Message) (sessionlog.AssistantData, error) {
			body, _ := json.Marshal(map[string]any{"model": "test-model", "messages": conv})
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, cs.URL+"/v1/chat/completions", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer test-key")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return sessionlog.AssistantData{}, err
			}
			defer resp.Body.Close()
			var c struct {
				Choices []struct {
					Message chattest.Message `json:"message"`
				} `json:"choices"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
				return sessionlog.AssistantData{}, err
			}
			m := c.Choices[0].Message
			out := sessionlog.AssistantData{Content: m.Text()}
			for _, tc := range m.ToolCalls {
				out.ToolCalls = append(out.ToolCalls, sessionlog.Call{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
			}
			return out, nil
		}, activity.RegisterOptions{Name: "NaiveModelTurn"})
	}})
	// The naive workflow runs TodoWrite locally without an owning session.
	h.worker.RegisterActivityWithOptions(naiveTodoWrite, activity.RegisterOptions{Name: "NaiveTodoWrite"})

	var rows []string
	for _, turns := range []int{10, 50, 100} {
		id := fmt.Sprintf("growth-ours-%d", turns)
		h.start(id, workflows.SessionInput{MaxTurnsPerPrompt: turns, ContinueAsNewAfterEvents: workflows.MaxContinueAsNewAfterEvents})
		_, _ = h.on(id).Prompt("", "Do the tasks") // ends at the turn limit: every turn calls a tool
		ours := h.historySize(id)
		payload := 0
		for _, e := range h.on(id).Log() {
			if e.Type == sessionlog.AssistantMessage || e.Type == sessionlog.ToolResult {
				payload += len(e.Data)
			}
		}

		naiveID := fmt.Sprintf("growth-naive-%d", turns)
		run, err := h.c.ExecuteWorkflow(h.ctx(), clientStart(naiveID, h.queue), "NaiveAgent", turns)
		if err != nil {
			t.Fatal(err)
		}
		// The naive design's history grows with the square of the turns
		// (about 5 MB at 100): under the race detector, with another test
		// on the second core, that alone takes a minute.
		ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
		defer cancel()
		if err := run.Get(ctx, nil); err != nil {
			t.Fatal(err)
		}
		naive := h.historySize(naiveID)
		rows = append(rows, fmt.Sprintf("| %d | %d | %d | %d | %.2fx | %d | %.1fx |",
			turns, payload, ours.bytes, ours.events, float64(ours.bytes)/float64(payload), naive.bytes, float64(naive.bytes)/float64(ours.bytes)))
		if float64(ours.bytes) > 3*float64(payload) {
			t.Errorf("%d turns: history %d bytes is more than 3x the %d bytes of model outputs and tool results", turns, ours.bytes, payload)
		}
	}
	t.Logf("\n| model turns | outputs + tool results (bytes) | our history (bytes) | events | ours / payload | naive history (bytes) | naive / ours |\n|---|---|---|---|---|---|---|\n%s", strings.Join(rows, "\n"))
}

func clientStart(id, queue string) client.StartWorkflowOptions {
	return client.StartWorkflowOptions{ID: id, TaskQueue: queue}
}
