package workflows

import (
	"encoding/json"
	"math"
	"strconv"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// validateTodoWrite rejects a bad list before the update is accepted, so a
// rejected update writes nothing to history.
func (s *session) validateTodoWrite(_ workflow.Context, args converter.RawValue) error {
	_, err := todo.Parse([]byte(rawJSON(args)), s.cfg.Limits)
	return err
}

func (s *session) onTodoWriteUpdate(ctx workflow.Context, args converter.RawValue) (todo.WriteResult, error) {
	src := todo.Source{Kind: todo.SourceUpdate, ID: workflow.GetCurrentUpdateInfo(ctx).ID}
	return s.write(ctx, s.takeTicket(), rawJSON(args), src)
}

// receiveSignals takes both signals in one coroutine, in the order they
// arrive: a live session costs a goroutine less than one receiver each.
func (s *session) receiveSignals(ctx workflow.Context) {
	sel := workflow.NewSelector(ctx)
	sel.AddReceive(workflow.GetSignalChannel(ctx, SignalTodoWrite), func(ch workflow.ReceiveChannel, _ bool) {
		var args converter.RawValue
		ch.Receive(ctx, &args)
		s.acceptTodoWriteSignal(ctx, args)
	})
	sel.AddReceive(workflow.GetSignalChannel(ctx, SignalUserMessage), func(ch workflow.ReceiveChannel, _ bool) {
		s.queueUserMessage(ctx, ch)
	})
	for {
		sel.Select(ctx)
	}
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

// write runs the TodoWrite activity for one call and records the result when
// its ticket comes up. Rejections from signals and the model are logged as
// todo/rejected; an update's rejection already happened in its validator.
func (s *session) write(ctx workflow.Context, ticket int64, args string, src todo.Source) (todo.WriteResult, error) {
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
	err := workflow.ExecuteLocalActivity(lactx, ActivityTodoWrite, activities.TodoWriteRequest{Arguments: args, Source: src}).Get(ctx, &res)
	if err != nil {
		if src.Kind != todo.SourceUpdate {
			s.appendEvent(ctx, sessionlog.TodoRejected, sessionlog.TodoRejectedData{
				Error: todo.ErrorMessage(err), Source: src, Arguments: jsonOrNil(args),
			})
		}
		return todo.WriteResult{}, err
	}
	// The activity accepted these arguments; decoding them here again (with
	// no limits, so a worker's changed limits cannot matter on replay) gives
	// the list without recording it in history a second time.
	if res.Todos, err = todo.Parse([]byte(args), acceptedLimits); err != nil {
		return todo.WriteResult{}, err
	}
	res.Seq = s.apply(ctx, res.Todos, res.Counts, src)
	return res, nil
}

// acceptedLimits lift every limit: they apply to a list TodoWrite accepted.
var acceptedLimits = todo.Limits{MaxItems: math.MaxInt32, MaxContentBytes: math.MaxInt32, MaxTotalBytes: math.MaxInt32}

// apply makes an accepted list the current one: the one with the highest seq.
func (s *session) apply(ctx workflow.Context, items []todo.Item, counts todo.Counts, src todo.Source) int64 {
	if items == nil {
		items = []todo.Item{}
	}
	seq := s.appendEvent(ctx, sessionlog.TodoWrite, sessionlog.TodoWriteData{Todos: items, Source: src})
	now := workflow.Now(ctx)
	s.current = todo.State{Todos: items, Counts: counts, Seq: seq, UpdatedAt: now}
	s.history = append(s.history, todo.Snapshot{Seq: seq, Todos: items, Counts: counts, At: now, Source: src})
	if src.Kind != todo.SourceModel {
		s.remind = sessionlog.ReminderChangedOutside
	}
	s.showPlan(ctx)
	return seq
}

// appendEvent adds one event to the session log and returns its seq.
func (s *session) appendEvent(ctx workflow.Context, typ sessionlog.Type, data any) int64 {
	raw, err := json.Marshal(data)
	if err != nil {
		// Every data type is plain structs of strings and numbers.
		panic(err)
	}
	seq := s.nextSeq()
	s.log = append(s.log, sessionlog.Event{Seq: seq, Type: typ, At: workflow.Now(ctx), Data: raw})
	return seq
}

// jsonOrNil keeps rejected arguments in the log when they are JSON at all.
func jsonOrNil(s string) json.RawMessage {
	if !json.Valid([]byte(s)) {
		return nil
	}
	return json.RawMessage(s)
}
