package workflows

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

func newEnv(t *testing.T) *testsuite.TestWorkflowEnvironment {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	cfg := &Config{}
	env.RegisterWorkflowWithOptions(cfg.AgentSession, workflow.RegisterOptions{Name: contract.WorkflowType})
	env.RegisterActivityWithOptions((&activities.Todos{}).TodoWrite, activity.RegisterOptions{Name: contract.ActivityTodoWrite})
	env.RegisterActivityWithOptions((&activities.Models{}).ModelTurn, activity.RegisterOptions{Name: contract.ActivityModelTurn})
	return env
}

type updateResult struct {
	accepted, rejected error
	result             todo.WriteResult
	done               bool
}

func (u *updateResult) callbacks() *testsuite.TestUpdateCallback {
	return &testsuite.TestUpdateCallback{
		OnAccept: func() {},
		OnReject: func(err error) { u.rejected, u.done = err, true },
		OnComplete: func(v any, err error) {
			u.done, u.accepted = true, err
			if err == nil {
				u.result = v.(todo.WriteResult)
			}
		},
	}
}

// sendWrite sends args exactly as a client would: a JSON payload, decoded by
// the workflow as raw bytes.
func sendWrite(env *testsuite.TestWorkflowEnvironment, id, args string) *updateResult {
	u := &updateResult{}
	env.UpdateWorkflow(contract.UpdateTodoWrite, id, u.callbacks(), rawArgs(args))
	return u
}

func rawArgs(args string) converter.RawValue {
	return converter.NewRawValue(commonPayload{data: args}.payload())
}

func queryState(t *testing.T, env *testsuite.TestWorkflowEnvironment) todo.State {
	t.Helper()
	v, err := env.QueryWorkflow(contract.QueryTodos)
	if err != nil {
		t.Fatal(err)
	}
	var st todo.State
	if err := v.Get(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

func queryHistory(t *testing.T, env *testsuite.TestWorkflowEnvironment, req ...sessionlog.PageRequest) []todo.Snapshot {
	t.Helper()
	args := []any{}
	for _, r := range req {
		args = append(args, r)
	}
	v, err := env.QueryWorkflow(contract.QueryTodoHistory, args...)
	if err != nil {
		t.Fatal(err)
	}
	var h []todo.Snapshot
	if err := v.Get(&h); err != nil {
		t.Fatal(err)
	}
	return h
}

func queryLog(t *testing.T, env *testsuite.TestWorkflowEnvironment) []sessionlog.Event {
	t.Helper()
	v, err := env.QueryWorkflow(contract.QuerySessionLog)
	if err != nil {
		t.Fatal(err)
	}
	var l []sessionlog.Event
	if err := v.Get(&l); err != nil {
		t.Fatal(err)
	}
	return l
}

// run starts a session, runs steps at staggered workflow times, then cancels.
func run(t *testing.T, env *testsuite.TestWorkflowEnvironment, steps ...func()) {
	t.Helper()
	for i, step := range steps {
		env.RegisterDelayedCallback(step, time.Duration(i+1)*time.Second)
	}
	env.RegisterDelayedCallback(env.CancelWorkflow, time.Duration(len(steps)+1)*time.Second)
	env.ExecuteWorkflow(contract.WorkflowType, SessionInput{})
	if !env.IsWorkflowCompleted() {
		t.Fatal("session did not end after cancel")
	}
}

func TestUpdateAcceptedRecordsSnapshot(t *testing.T) {
	env := newEnv(t)
	var u *updateResult
	run(t, env, func() {
		if st := queryState(t, env); st.Seq != 0 || st.Todos == nil || len(st.Todos) != 0 {
			t.Errorf("before any write: %+v", st)
		}
		u = sendWrite(env, "u1", `{"todos":[{"content":"Run the tests","status":"in_progress"},{"content":"Ship","status":"pending"}]}`)
	}, func() {
		if !u.done || u.accepted != nil {
			t.Fatalf("update: done %v err %v", u.done, u.accepted)
		}
		want := "Updated todo list: 1 pending, 1 in progress, 0 completed."
		if u.result.Message != want || u.result.Seq != 1 || len(u.result.Todos) != 2 {
			t.Fatalf("result %+v", u.result)
		}
		st := queryState(t, env)
		if st.Seq != 1 || st.Counts != (todo.Counts{Pending: 1, InProgress: 1}) || st.Todos[0].Content != "Run the tests" {
			t.Fatalf("state %+v", st)
		}
		h := queryHistory(t, env)
		if len(h) != 1 || h[0].Source != (todo.Source{Kind: todo.SourceUpdate, ID: "u1"}) {
			t.Fatalf("history %+v", h)
		}
	})
}

func TestUpdateValidatorRejectsWithContractMessageAndWritesNothing(t *testing.T) {
	env := newEnv(t)
	cases := map[string]string{
		`{"todos":[{"content":"a","status":"pending","id":1}]}`: `invalid todo: unknown key "id"`,
		`{"todos":"nope"}`: "invalid todos: `todos` must be an array",
		`{"todos":[{"content":"a","status":"pending"},{"content":"a","status":"completed"}]}`: `invalid todos: duplicate content "a"`,
		`{"todos":[{"content":"  ","status":"pending"}]}`:                                     "invalid todo: `content` must be a non-empty string",
		`{"todos":[{"content":"a","status":"done"}]}`:                                         "invalid todo: `status` must be one of pending, in_progress, completed",
		`{"todos":[],"extra":true}`:                                                           `invalid todos: unknown key "extra"`,
	}
	results := map[string]*updateResult{}
	var good *updateResult
	run(t, env, func() {
		good = sendWrite(env, "good", `{"todos":[{"content":"keep me","status":"pending"}]}`)
	}, func() {
		i := 0
		for args := range cases {
			i++
			results[args] = sendWrite(env, fmt.Sprint("bad-", i), args)
		}
	}, func() {
		if good.accepted != nil {
			t.Fatal(good.accepted)
		}
		for args, want := range cases {
			u := results[args]
			if u.rejected == nil {
				t.Errorf("%s: not rejected by the validator", args)
				continue
			}
			if got := todo.ErrorMessage(u.rejected); got != want {
				t.Errorf("%s: got %q want %q", args, got, want)
			}
		}
		st := queryState(t, env)
		if st.Seq != 1 || st.Todos[0].Content != "keep me" {
			t.Fatalf("a rejected write changed the list: %+v", st)
		}
		if h := queryHistory(t, env); len(h) != 1 {
			t.Fatalf("rejected writes reached history: %+v", h)
		}
	})
}

func TestSignalAppliesValidAndLogsRejected(t *testing.T) {
	env := newEnv(t)
	run(t, env, func() {
		env.SignalWorkflow(contract.SignalTodoWrite, rawArgs(`{"todos":[{"content":"from a signal","status":"completed"}]}`))
	}, func() {
		env.SignalWorkflow(contract.SignalTodoWrite, rawArgs(`{"todos":[{"content":"x","status":"bogus"}]}`))
	}, func() {
		env.SignalWorkflow(contract.SignalTodoWrite, "not an object")
	}, func() {
		st := queryState(t, env)
		if st.Seq != 1 || st.Todos[0].Content != "from a signal" || st.Counts.Completed != 1 {
			t.Fatalf("state %+v", st)
		}
		log := queryLog(t, env)
		if len(log) != 3 {
			t.Fatalf("log %+v", log)
		}
		if log[0].Type != sessionlog.TodoWrite || log[1].Type != sessionlog.TodoRejected || log[2].Type != sessionlog.TodoRejected {
			t.Fatalf("log types %v %v %v", log[0].Type, log[1].Type, log[2].Type)
		}
		var rej sessionlog.TodoRejectedData
		if err := json.Unmarshal(log[1].Data, &rej); err != nil {
			t.Fatal(err)
		}
		if rej.Error != "invalid todo: `status` must be one of pending, in_progress, completed" || rej.Source.Kind != todo.SourceSignal {
			t.Fatalf("rejected %+v", rej)
		}
		if err := json.Unmarshal(log[2].Data, &rej); err != nil {
			t.Fatal(err)
		}
		if rej.Error != "invalid todos: `todos` must be an array" {
			t.Fatalf("non-object signal: %+v", rej)
		}
	})
}

func TestConcurrentUpdatesApplyInAcceptedOrder(t *testing.T) {
	env := newEnv(t)
	const writers = 20
	us := make([]*updateResult, writers)
	run(t, env, func() {
		for i := range us {
			us[i] = sendWrite(env, fmt.Sprint("w", i), fmt.Sprintf(`{"todos":[{"content":"writer %d","status":"pending"}]}`, i))
		}
	}, func() {
		for i, u := range us {
			if u.accepted != nil || u.result.Seq != int64(i+1) {
				t.Fatalf("writer %d: seq %d err %v", i, u.result.Seq, u.accepted)
			}
		}
		st := queryState(t, env)
		if st.Seq != writers || st.Todos[0].Content != fmt.Sprint("writer ", writers-1) {
			t.Fatalf("last write did not win: %+v", st)
		}
		h := queryHistory(t, env)
		if len(h) != writers {
			t.Fatalf("history has %d snapshots", len(h))
		}
		page := queryHistory(t, env, sessionlog.PageRequest{AfterSeq: 5, Limit: 3})
		if len(page) != 3 || page[0].Seq != 6 || page[2].Seq != 8 {
			t.Fatalf("page %+v", page)
		}
		if rest := queryHistory(t, env, sessionlog.PageRequest{AfterSeq: writers}); len(rest) != 0 {
			t.Fatalf("page past the end: %+v", rest)
		}
	})
}

func TestCancelFinishesInFlightWritesFirst(t *testing.T) {
	env := newEnv(t)
	var us []*updateResult
	env.RegisterDelayedCallback(func() {
		for i := 0; i < 3; i++ {
			us = append(us, sendWrite(env, fmt.Sprint("last-", i), fmt.Sprintf(`{"todos":[{"content":"w%d","status":"pending"}]}`, i)))
		}
		env.CancelWorkflow()
	}, time.Second)
	env.ExecuteWorkflow(contract.WorkflowType, SessionInput{})
	if !env.IsWorkflowCompleted() {
		t.Fatal("session did not end")
	}
	for i, u := range us {
		if !u.done || u.accepted != nil || u.result.Seq != int64(i+1) {
			t.Fatalf("write %d: done %v err %v seq %d", i, u.done, u.accepted, u.result.Seq)
		}
	}
	var summary Summary
	err := env.GetWorkflowResult(&summary)
	if err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Fatalf("session ended with %v, want cancelled", err)
	}
}
