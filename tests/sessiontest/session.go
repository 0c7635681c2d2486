package sessiontest

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/identity"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

// Session is one AgentSession seen through a client. Its helpers fail the
// test on errors that are not what the test is about; Write and Prompt
// return theirs.
type Session struct {
	T  testing.TB
	C  client.Client
	ID string
	// WriteBudget bounds Write, retries included; zero means two minutes,
	// what a healthy server needs.
	WriteBudget time.Duration
	// As is who the session's updates say they come from (the
	// contract.HeaderWriter header, sent when C has identity.Propagator);
	// empty sends none.
	As string
}

// callTimeout bounds one call that is not the subject of a test.
const callTimeout = time.Minute

func (s Session) ctx() context.Context {
	ctx, cancel := context.WithTimeout(identity.With(context.Background(), s.As), callTimeout)
	s.T.Cleanup(cancel)
	return ctx
}

// Write sends a todo_write with raw JSON arguments. Like any careful client
// it sends a call that timed out again with the same update ID, which the
// session applies once; a healthy server answers within the first attempt.
func (s Session) Write(updateID, args string) (todo.WriteResult, error) {
	s.T.Helper()
	if updateID == "" {
		updateID = uuid.NewString()
	}
	deadline := time.Now().Add(cmp.Or(s.WriteBudget, writeBudget))
	for {
		res, timedOut, err := s.WriteOnce(updateID, args, writeAttempt)
		if !(timedOut || notAccepted(err)) || time.Now().After(deadline) {
			return res, err
		}
	}
}

const (
	writeBudget  = 2 * time.Minute
	writeAttempt = 30 * time.Second
	// deadlineMargin is how early before a client's deadline the server
	// may end an update's long poll.
	deadlineMargin = time.Second
)

// WriteOnce is one attempt with a deadline of its own; timedOut says the
// call ended because that deadline came (the SDK then reports "context
// deadline exceeded" or, when the server cut its long poll just before the
// deadline, a stream cancelled by the server).
func (s Session) WriteOnce(updateID, args string, limit time.Duration) (res todo.WriteResult, timedOut bool, err error) {
	ctx, cancel := context.WithTimeout(identity.With(context.Background(), s.As), limit)
	defer cancel()
	deadline, _ := ctx.Deadline()
	res, err = Write(ctx, s.C, s.ID, updateID, []byte(args))
	return res, err != nil && time.Until(deadline) < deadlineMargin, err
}

// Edit sends a todo_edit with raw JSON arguments ({"todos":[...],
// "expectedSeq":N,"note":"..."}), with a new update ID when updateID is empty.
func (s Session) Edit(updateID, args string) (todo.WriteResult, error) {
	if updateID == "" {
		updateID = uuid.NewString()
	}
	var res todo.WriteResult
	err := Update(s.ctx(), s.C, s.ID, updateID, contract.UpdateTodoEdit, []byte(args), &res)
	return res, err
}

// MustWrite is Write for the steps that are not what a test is about.
func (s Session) MustWrite(updateID, args string) todo.WriteResult {
	s.T.Helper()
	res, err := s.Write(updateID, args)
	if err != nil {
		s.T.Fatalf("todo_write %s on %s: %v", updateID, s.ID, err)
	}
	return res
}

// Prompt sends a prompt update (a new update ID when updateID is empty) and
// waits for the answer.
func (s Session) Prompt(updateID, text string) (string, error) {
	var answer string
	h, err := s.C.UpdateWorkflow(s.ctx(), client.UpdateWorkflowOptions{
		WorkflowID: s.ID, UpdateID: updateID, UpdateName: contract.UpdatePrompt, Args: []any{text},
		WaitForStage: client.WorkflowUpdateStageCompleted,
	})
	if err == nil {
		err = h.Get(s.ctx(), &answer)
	}
	return answer, err
}

// Signal sends a signal to the session's current run.
func (s Session) Signal(name string, arg any) {
	s.T.Helper()
	if err := s.C.SignalWorkflow(s.ctx(), s.ID, "", name, arg); err != nil {
		s.T.Fatalf("signal %s to %s: %v", name, s.ID, err)
	}
}

// Query runs a query on the session's current run.
func (s Session) Query(name string, into any, args ...any) {
	s.T.Helper()
	if err := Query(s.ctx(), s.C, s.ID, name, into, args...); err != nil {
		s.T.Fatalf("query %s on %s: %v", name, s.ID, err)
	}
}

// Todos is the todos query.
func (s Session) Todos() todo.State {
	s.T.Helper()
	var st todo.State
	s.Query(contract.QueryTodos, &st)
	return st
}

// History is one page of todo_history.
func (s Session) History(req ...sessionlog.PageRequest) []todo.Snapshot {
	s.T.Helper()
	var page []todo.Snapshot
	s.Query(contract.QueryTodoHistory, &page, pageArgs(req)...)
	return page
}

// AllHistory reads todo_history a page at a time, as a client of a long
// session must: a page ends at the workflow's byte budget.
func (s Session) AllHistory() []todo.Snapshot {
	s.T.Helper()
	var all []todo.Snapshot
	for req := (sessionlog.PageRequest{}); ; {
		page := s.History(req)
		if len(page) == 0 {
			return all
		}
		all = append(all, page...)
		req.AfterSeq = page[len(page)-1].Seq
	}
}

// Log is one page of session_log.
func (s Session) Log(req ...sessionlog.PageRequest) []sessionlog.Event {
	s.T.Helper()
	var page []sessionlog.Event
	s.Query(contract.QuerySessionLog, &page, pageArgs(req)...)
	return page
}

func pageArgs(req []sessionlog.PageRequest) []any {
	args := make([]any, len(req))
	for i := range req {
		args[i] = req[i]
	}
	return args
}

// RunID is the session's current run.
func (s Session) RunID() string {
	s.T.Helper()
	d, err := s.C.DescribeWorkflowExecution(s.ctx(), s.ID, "")
	if err != nil {
		s.T.Fatal(err)
	}
	return d.GetWorkflowExecutionInfo().GetExecution().GetRunId()
}

// FetchHistory returns the events of one run (the current one for "").
func (s Session) FetchHistory(runID string) *historypb.History {
	s.T.Helper()
	it := s.C.GetWorkflowHistory(s.ctx(), s.ID, runID, false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	hist := &historypb.History{}
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			s.T.Fatal(err)
		}
		hist.Events = append(hist.Events, e)
	}
	return hist
}

// Runs calls fn with every run's history, newest first, following the
// chain back through continue-as-new.
func (s Session) Runs(fn func(runID string, hist *historypb.History)) {
	s.T.Helper()
	runID := s.RunID()
	for runID != "" {
		hist := s.FetchHistory(runID)
		fn(runID, hist)
		runID = hist.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetContinuedExecutionRunId()
	}
}

// RunInputs returns the input of every run, oldest first.
func (s Session) RunInputs() []workflows.SessionInput {
	s.T.Helper()
	var out []workflows.SessionInput
	s.Runs(func(_ string, hist *historypb.History) {
		var in workflows.SessionInput
		first := hist.GetEvents()[0].GetWorkflowExecutionStartedEventAttributes()
		if err := json.Unmarshal(first.GetInput().GetPayloads()[0].GetData(), &in); err != nil {
			s.T.Fatal(err)
		}
		out = append([]workflows.SessionInput{in}, out...)
	})
	return out
}

// AssertNoFailedTasks checks every run for failed workflow tasks.
func (s Session) AssertNoFailedTasks() {
	s.T.Helper()
	s.Runs(func(runID string, hist *historypb.History) {
		for _, e := range hist.GetEvents() {
			if e.GetEventType() == enums.EVENT_TYPE_WORKFLOW_TASK_FAILED {
				s.T.Errorf("run %s: workflow task failed: %v", runID, e.GetWorkflowTaskFailedEventAttributes().GetFailure().GetMessage())
			}
		}
	})
}

// notAccepted says the server dropped the update before the workflow
// accepted it: the workflow task that carried it failed on the server (for
// one, a continue-as-new that met a signal arriving at the same time), and
// the server tells the caller to try again (WorkflowNotReady). A retry with
// the same update ID is applied once.
func notAccepted(err error) bool {
	_, ok := errors.AsType[*serviceerror.WorkflowNotReady](err)
	return ok
}
