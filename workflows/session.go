package workflows

import (
	"errors"
	"time"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// Config is what a worker decides for every session it runs.
type Config struct {
	// Limits bound one todo_write; the update validator and the TodoWrite
	// activity apply the same ones.
	Limits todo.Limits
	// SearchAttributes says whether TodoPending, TodoInProgress and
	// TodoCompleted are registered on the namespace. Upserting an unregistered
	// one fails every workflow task, so the worker checks at start-up.
	SearchAttributes bool
	// WebhookSecrets are the keys subscribers may name to sign their
	// notifications; the subscribe update refuses any other name.
	WebhookSecrets *notify.Secrets
	// DataConverter is the worker client's: the session reads the
	// contract.HeaderWriter header with it, because the SDK hands headers
	// to workflows as sent, and a client with encryption on encrypts the
	// header too (identity.Propagator). Nil: the SDK's default converter.
	DataConverter converter.DataConverter
}

// Summary is what a finished session returns; a cancelled session returns it
// as the details of its CanceledError, so the last plan is in the result the
// CLI and the UI show.
type Summary struct {
	Todos   todo.State `json:"todos"`
	Prompts int        `json:"prompts"`
	Runs    int        `json:"runs"`
}

// AgentSession is the workflow that owns one agent's plan and conversation.
// It lives until it is cancelled; it continues as new when its history grows,
// carrying the list, seq, history tail, remaining conversation, queued
// messages and the update IDs it has answered.
func (c *Config) AgentSession(ctx workflow.Context, in SessionInput) (Summary, error) {
	s, err := newSession(ctx, c, in)
	if err != nil {
		return Summary{}, err
	}
	for {
		err := workflow.Await(ctx, func() bool {
			return len(s.inbox) > 0 || s.resuming || s.shouldContinueAsNew(ctx)
		})
		if err != nil {
			return s.finish(ctx, err)
		}
		if s.resuming || len(s.inbox) > 0 {
			err := s.work(ctx)
			if err == nil {
				continue
			}
			if !errors.Is(err, errContinueAsNew) {
				return s.finish(ctx, err)
			}
			if !s.integrity {
				return s.continueAsNew(ctx)
			}
		}
		if s.drainForContinueAsNew(ctx) {
			return s.continueAsNew(ctx)
		}
	}
}

// finish ends the session once every in-flight handler and every delivered
// signal has been handled, so a write the session accepted is never cut off
// by its cancellation.
func (s *session) finish(ctx workflow.Context, cause error) (Summary, error) {
	done, _ := workflow.NewDisconnectedContext(ctx)
	if s.integrity {
		s.takeSignals(done)
	}
	_ = workflow.Await(done, func() bool { return workflow.AllHandlersFinished(done) && s.signalsInFlight == 0 })
	if s.notify && s.pendingNotifications() > 0 {
		s.flushNotifications(done)
		// A write that came in meanwhile still gets its answer.
		_ = workflow.Await(done, func() bool { return workflow.AllHandlersFinished(done) && s.signalsInFlight == 0 })
	}
	if temporal.IsCanceledError(cause) {
		workflow.GetLogger(ctx).Info("Session cancelled", "seq", s.seq)
		return Summary{}, temporal.NewCanceledError(s.summary())
	}
	return s.summary(), cause
}

func (s *session) summary() Summary {
	return Summary{Todos: s.current, Prompts: s.prompts, Runs: s.runs}
}

// writeTimeout bounds one TodoWrite: a local activity that only validates.
const writeTimeout = 10 * time.Second

// session is one run's state. Handlers and the agent loop run as coroutines
// of one workflow, never in parallel, so no field needs a lock; writes are
// still serialized explicitly (see ticket) because they wait on an activity.
type session struct {
	cfg *Config
	in  SessionInput
	// integrity is changeSessionIntegrity's version for this run.
	integrity bool
	// steer is changeSteer's: todo_edit, named writers, checked model writes.
	steer bool
	// notify is changeNotify's: webhook subscribers and their deliveries.
	notify bool
	// notifyBatch is changeNotifyBatch's: deliveries in batches.
	notifyBatch bool
	// notifyHandover is changeNotifyHandover's: continue-as-new waits for
	// the batches in flight.
	notifyHandover bool
	// handingOver holds new batches while the run drains for
	// continue-as-new.
	handingOver bool
	subs        []*subscription
	// notifyCtx is the run's root context, which delivery loops start from.
	notifyCtx workflow.Context

	seq, startSeq int64
	current       todo.State
	history       []todo.Snapshot
	log           []sessionlog.Event

	// Writes apply strictly in the order the workflow accepted them: each
	// takes a ticket when its handler starts and waits for its turn.
	nextTicket, serving int64
	signalsInFlight     int
	signalCount         int

	todoWriteSignals, userMessageSignals workflow.ReceiveChannel

	// answered remembers update IDs across continue-as-new; Temporal itself
	// deduplicates them within one run only.
	answered answeredUpdates
	// task counts what the current workflow task's completion carries.
	task taskBudget

	useSearchAttributes bool
	lastCounts          *todo.Counts

	// The agent.
	inbox            []*prompt
	prompts          int
	conversationFrom int64
	scriptTurn       int
	remind           sessionlog.ReminderReason
	// viewSeq is the seq of the plan the model's latest request showed it
	// (or of its own write since); outside lists the writes from outside
	// since the model last heard of one, so the model is told who made them.
	viewSeq int64
	outside []todo.Source
	// toldSeq is the plan a stale todo_write's result last showed the model.
	toldSeq   int64
	resuming  bool
	turnsUsed int
	runs      int
}

func newSession(ctx workflow.Context, cfg *Config, in SessionInput) (*session, error) {
	s := &session{cfg: cfg, in: in, runs: 1}
	s.current = todo.State{Todos: []todo.Item{}}
	s.integrity = integrityVersion(ctx)
	s.steer = s.integrity && steerVersion(ctx)
	s.notify = s.steer && notifyVersion(ctx)
	s.notifyBatch = s.notify && notifyBatchVersion(ctx)
	s.notifyHandover = s.notifyBatch && notifyHandoverVersion(ctx)
	// A session's input is checked when it starts; a carried input was
	// checked then (or predates the check, and is clamped by withDefaults).
	if s.integrity && in.Carry == nil {
		if err := in.validate(); err != nil {
			return nil, err
		}
	}
	s.in = in.withDefaults()
	if s.integrity && in.Carry != nil {
		s.in = s.in.clamped()
	}
	if c := in.Carry; c != nil {
		if err := s.restore(c); err != nil {
			return nil, err
		}
	} else if in.Prompt != "" {
		// Nobody waits on the first prompt: a start request returns at once.
		s.inbox = append(s.inbox, &prompt{text: in.Prompt, waited: !s.integrity})
	}
	if s.notify {
		s.startSubscribers(ctx, in)
	}
	s.in.Carry, s.in.Subscribers = nil, nil
	s.startSeq = s.seq
	// Whether search attributes exist is a fact about the cluster, not the
	// workflow: record it once per run so a replay decides the same way.
	enabled := cfg.SearchAttributes
	if err := workflow.SideEffect(ctx, func(workflow.Context) any { return enabled }).Get(&s.useSearchAttributes); err != nil {
		return nil, err
	}
	if err := s.registerHandlers(ctx); err != nil {
		return nil, err
	}
	s.showPlan(ctx)
	return s, nil
}

func (s *session) nextSeq() int64 {
	s.seq++
	return s.seq
}
