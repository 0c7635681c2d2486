package workflows

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/payloads"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// validateTodoWrite rejects a bad list before the update is accepted, so a
// rejected update writes nothing to history. Temporal does not run
// validators on replay, so their rules may change between versions.
func (s *session) validateTodoWrite(_ workflow.Context, args converter.RawValue) error {
	_, err := todo.Parse([]byte(rawJSON(args)), s.cfg.Limits)
	return err
}

func (s *session) onTodoWriteUpdate(ctx workflow.Context, args converter.RawValue) (todo.WriteResult, error) {
	id := workflow.GetCurrentUpdateInfo(ctx).ID
	s.countTaskBytes(ctx, len(rawJSON(args)))
	if s.integrity {
		if a, ok := s.answered.lookup(contract.UpdateTodoWrite, id); ok {
			return s.repeatedWrite(a, rawJSON(args))
		}
	}
	src := todo.Source{Kind: todo.SourceUpdate, ID: id}
	if s.steer {
		src.By = writerOf(ctx, s.cfg.DataConverter)
	}
	res, err := s.write(ctx, s.takeTicket(), rawJSON(args), src)
	if err != nil {
		return res, err
	}
	if s.integrity {
		s.answered.remember(AnsweredUpdate{Name: contract.UpdateTodoWrite, ID: id, Seq: res.Seq})
		s.reserveTaskBytes(ctx, todo.EncodedSize(res.Todos)+len(res.Message)+96)
	}
	return res, nil
}

// repeatedWrite answers a todo_write retried after a continue-as-new with
// what the first attempt returned, and applies nothing. The list is the
// snapshot's while the history still holds it, else the retried request's
// own arguments (a retry carries the same request).
func (s *session) repeatedWrite(a AnsweredUpdate, args string) (todo.WriteResult, error) {
	items, err := decodeAccepted(args)
	if i, ok := s.snapshotIndex(a.Seq); ok {
		items, err = s.history[i].Todos, nil
	}
	if err != nil {
		return todo.WriteResult{}, err
	}
	counts := todo.CountOf(items)
	return todo.WriteResult{Todos: items, Counts: counts, Message: todo.Message(counts), Seq: a.Seq}, nil
}

// acceptTodoWriteSignal applies a signalled list in its turn; an invalid one
// is logged as todo/rejected and never applied.
func (s *session) acceptTodoWriteSignal(ctx workflow.Context, args converter.RawValue) {
	s.signalCount++
	src := todo.Source{Kind: todo.SourceSignal, ID: "signal-" + strconv.Itoa(s.signalCount)}
	ticket := s.takeTicket()
	s.signalsInFlight++
	workflow.Go(ctx, func(ctx workflow.Context) {
		defer func() { s.signalsInFlight-- }()
		_, _ = s.write(ctx, ticket, rawJSON(args), src)
	})
}

func (s *session) takeTicket() int64 {
	t := s.nextTicket
	s.nextTicket++
	return t
}

// noCheck is the expected seq of a write that replaces whatever the plan is
// (todo_write from outside: last write wins, as the seed's contract says).
const noCheck = -1

// write runs the TodoWrite activity for one call and records the result when
// its ticket comes up. Rejections from signals and the model are logged as
// todo/rejected; an update's rejection already happened in its validator.
func (s *session) write(ctx workflow.Context, ticket int64, args string, src todo.Source) (todo.WriteResult, error) {
	return s.writeChecked(ctx, ticket, args, src, noCheck)
}

// writeChecked is write for a writer who saw the plan at seq expect: a valid
// list is not applied when, in its turn, the plan has moved on. (Validation
// comes first, as for every write: an invalid list gets its rule's message.)
// A todo_edit gets the conflict error; the model, whose writes always replace
// the whole list, gets told who changed the plan (and logs a todo/rejected).
func (s *session) writeChecked(ctx workflow.Context, ticket int64, args string, src todo.Source, expect int64) (todo.WriteResult, error) {
	// A write the session accepted completes even if the session is being
	// cancelled: the caller was told it was accepted.
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	if err := workflow.Await(ctx, func() bool { return s.serving == ticket }); err != nil {
		return todo.WriteResult{}, err
	}
	defer func() { s.serving++ }()

	lactx := workflow.WithLocalActivityOptions(ctx, workflow.LocalActivityOptions{
		ScheduleToCloseTimeout: writeTimeout,
		RetryPolicy:            &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	var res todo.WriteResult
	err := workflow.ExecuteLocalActivity(lactx, contract.ActivityTodoWrite, activities.TodoWriteRequest{Arguments: args, Source: src}).Get(ctx, &res)
	if err != nil {
		if src.Kind == todo.SourceSignal || src.Kind == todo.SourceModel {
			s.appendEvent(ctx, sessionlog.TodoRejected, rejectedData(err, src, args))
		}
		return todo.WriteResult{}, err
	}
	if expect != noCheck && s.current.Seq != expect {
		if src.Kind != todo.SourceModel {
			return todo.WriteResult{}, todo.EditConflictError(expect, s.current.Seq)
		}
		err := todo.StaleWriteError(s.outside, expect, s.current.Seq)
		s.appendEvent(ctx, sessionlog.TodoRejected, rejectedData(err, src, args))
		return todo.WriteResult{}, err
	}
	// The activity accepted these arguments; decoding them here again gives
	// the list without recording it in history a second time.
	if res.Todos, err = decodeAccepted(args); err != nil {
		return todo.WriteResult{}, err
	}
	res.Seq = s.apply(ctx, res.Todos, res.Counts, src)
	return res, nil
}

// decodeAccepted reads the list out of arguments TodoWrite accepted. It is a
// frozen decoder, deliberately not todo.Parse: on replay it reads writes that
// an older validator accepted, and it must read them as they were applied
// then, whatever the rules are today. encoding/json ignores keys it does not
// know, which is what every version of the validator let through.
func decodeAccepted(args string) ([]todo.Item, error) {
	var v struct {
		Todos []todo.Item `json:"todos"`
	}
	if err := json.Unmarshal([]byte(args), &v); err != nil {
		return nil, err
	}
	if v.Todos == nil {
		v.Todos = []todo.Item{}
	}
	return v.Todos, nil
}

// apply makes an accepted list the current one: the one with the highest seq.
func (s *session) apply(ctx workflow.Context, items []todo.Item, counts todo.Counts, src todo.Source) int64 {
	seq := s.appendEvent(ctx, sessionlog.TodoWrite, sessionlog.TodoWriteData{Todos: items, Source: src})
	now := workflow.Now(ctx)
	before := s.current
	s.current = todo.State{Todos: items, Counts: counts, Seq: seq, UpdatedAt: now}
	if s.notify {
		s.notifyChange(ctx, before.Todos, before.Seq, s.current, src)
	}
	s.history = append(s.history, todo.Snapshot{Seq: seq, Todos: items, Counts: counts, At: now, Source: src})
	if src.Kind != todo.SourceModel {
		s.remind = sessionlog.ReminderChangedOutside
		if s.steer {
			s.outside = append(s.outside, src)
			if len(s.outside) > maxOutsideKept {
				s.outside = s.outside[len(s.outside)-maxOutsideKept:]
			}
		}
	}
	s.showPlan(ctx)
	return seq
}

// maxOutsideKept bounds the outside writes remembered for the model between
// two of its requests: it is told who wrote, not every write.
const maxOutsideKept = 8

// appendEvent adds one event to the session log and returns its seq.
func (s *session) appendEvent(ctx workflow.Context, typ sessionlog.Type, data any) int64 {
	raw, err := payloads.Marshal(data)
	if err != nil {
		// Every data type is plain structs of strings and numbers.
		panic(err)
	}
	seq := s.nextSeq()
	s.log = append(s.log, sessionlog.Event{Seq: seq, Type: typ, At: workflow.Now(ctx), Data: raw})
	return seq
}

// rejectedPrefixBytes is how much of a rejected payload the log keeps: a
// rejected list can be megabytes, and the log is read back by queries and
// model turns whose answers must stay far below Temporal's limits.
const rejectedPrefixBytes = 1024

// rejectedData records a rejected payload by its size, a hash and a prefix.
func rejectedData(err error, src todo.Source, args string) sessionlog.TodoRejectedData {
	sum := sha256.Sum256([]byte(args))
	return sessionlog.TodoRejectedData{
		Error: todo.ErrorMessage(err), Source: src,
		ArgumentsBytes: len(args), ArgumentsSHA256: hex.EncodeToString(sum[:]),
		ArgumentsPrefix: utf8Prefix(args, rejectedPrefixBytes),
	}
}

// utf8Prefix is at most n bytes of s, cut at a character boundary.
func utf8Prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "")
}
