package workflows

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// A session tells its subscribers of each accepted change that matches their
// filter. Each subscriber has its own queue and one delivery in flight at a
// time (a batch: see notify_batch.go), so a receiver gets a session's
// changes in seq order and a slow or dead receiver holds up nobody else; the
// write path only appends to the queues. Queues survive continue-as-new: a
// run that hands over recalls the batch it has out and waits for its answer
// (see recallBatches), so the next run sends only what was not delivered.

// outboxBudget bounds the notifications a session holds for its subscribers
// together, so that they fit in the continue-as-new carry: each subscriber
// may hold its share; past it, its oldest waiting one is given up.
const outboxBudget = 192 << 10

// finishGrace is how long a cancelled session waits for the notifications of
// its last changes before it ends and gives the rest up.
const finishGrace = time.Minute

// Delivery retries: exponential from a second up to five minutes between
// attempts, until the subscriber's giveUpAfter since the change.
var deliveryRetry = temporal.RetryPolicy{
	InitialInterval:    time.Second,
	BackoffCoefficient: 2,
	MaximumInterval:    5 * time.Minute,
}

// deliveryAttemptTimeout bounds one attempt: the POST's own timeout and some
// room. A worker killed mid-attempt is noticed by it, and the attempt retried.
const deliveryAttemptTimeout = activities.WebhookTimeout + 5*time.Second

// subscription is one subscriber and the notifications it has yet to get,
// oldest first; the first inFlight of them are being sent.
type subscription struct {
	notify.Subscriber
	pending  []notify.Notification
	bytes    int
	inFlight int
	removed  bool
	cancel   workflow.CancelFunc
	// recalled says a run handing over cancelled the batch in flight:
	// what it did not deliver stays queued for the next run.
	recalled bool
	// retried is the notification a batch stopped at, and its POSTs.
	retried retriedHead
}

type retriedHead struct {
	seq   int64
	posts int
}

// SubscriberStatus is what the subscribers query returns for each.
type SubscriberStatus struct {
	notify.Subscriber
	// Pending counts the notifications not yet delivered; OldestPendingSeq
	// is the seq of the first of them (0 when none).
	Pending          int   `json:"pending"`
	OldestPendingSeq int64 `json:"oldestPendingSeq,omitempty"`
}

// CarriedSubscriber is a subscriber and its pending notifications, carried
// across continue-as-new.
type CarriedSubscriber struct {
	Subscriber notify.Subscriber     `json:"subscriber"`
	Pending    []notify.Notification `json:"pending,omitempty"`
}

func (s *session) subscriberStatus() []SubscriberStatus {
	out := make([]SubscriberStatus, 0, len(s.subs))
	for _, sub := range s.subs {
		st := SubscriberStatus{Subscriber: sub.Subscriber, Pending: len(sub.pending)}
		if len(sub.pending) > 0 {
			st.OldestPendingSeq = sub.pending[0].Seq
		}
		out = append(out, st)
	}
	return out
}

// registerNotifyHandlers adds subscribe, unsubscribe and the subscribers
// query.
func (s *session) registerNotifyHandlers(ctx workflow.Context) error {
	if err := workflow.SetQueryHandlerWithOptions(ctx, contract.QuerySubscribers, func() ([]SubscriberStatus, error) {
		return s.subscriberStatus(), nil
	}, workflow.QueryHandlerOptions{Description: "The session's webhook subscribers and what each has pending."}); err != nil {
		return err
	}
	if err := workflow.SetUpdateHandlerWithOptions(ctx, contract.UpdateSubscribe, func(ctx workflow.Context, sub notify.Subscriber) ([]SubscriberStatus, error) {
		s.subscribe(ctx, sub, nil)
		return s.subscriberStatus(), nil
	}, workflow.UpdateHandlerOptions{
		Validator:   s.validateSubscribe,
		Description: `Add or replace a webhook: {"id":"...","url":"https://...","events":["item_completed"],"secretName":"...","giveUpAfter":"1h"}.`,
	}); err != nil {
		return err
	}
	return workflow.SetUpdateHandlerWithOptions(ctx, contract.UpdateUnsubscribe, func(ctx workflow.Context, req notify.Unsubscribe) ([]SubscriberStatus, error) {
		s.unsubscribe(ctx, req.ID)
		return s.subscriberStatus(), nil
	}, workflow.UpdateHandlerOptions{
		Validator: func(_ workflow.Context, req notify.Unsubscribe) error {
			if s.subscription(req.ID) == nil {
				return invalidSubscriber(notify.NoSuchSubscriber(req.ID))
			}
			return nil
		},
		Description: `Remove a webhook and drop what it has pending: {"id":"..."}.`,
	})
}

// validateSubscribe checks the subscriber against the contract and the
// worker's secrets. Validators do not run on replay, so asking the worker
// here is safe; the handler itself decides nothing from worker state.
func (s *session) validateSubscribe(_ workflow.Context, sub notify.Subscriber) error {
	if err := sub.Check(); err != nil {
		return invalidSubscriber(err)
	}
	if !s.cfg.WebhookSecrets.Has(sub.SecretName) {
		return invalidSubscriber(fmt.Errorf("subscriber %s: webhook secret %q is not configured on the worker (--webhook-secrets)", sub.ID, sub.SecretName))
	}
	if s.subscription(sub.ID) == nil && len(s.subs) >= notify.MaxSubscribers {
		return invalidSubscriber(notify.ErrTooManySubscribers)
	}
	return nil
}

func invalidSubscriber(err error) error {
	return temporal.NewNonRetryableApplicationError(err.Error(), notify.ErrTypeInvalidSubscriber, nil)
}

func (s *session) subscription(id string) *subscription {
	for _, sub := range s.subs {
		if sub.ID == id {
			return sub
		}
	}
	return nil
}

// subscribe adds a subscriber with what it has pending, or replaces the
// one with its ID (keeping that one's queue).
func (s *session) subscribe(ctx workflow.Context, sub notify.Subscriber, pending []notify.Notification) {
	if old := s.subscription(sub.ID); old != nil {
		old.Subscriber = sub
		return
	}
	next := &subscription{Subscriber: sub}
	for _, n := range pending {
		next.pending = append(next.pending, n)
		next.bytes += n.Size()
	}
	s.subs = append(s.subs, next)
	// From the session's own context: one made by a subscribe update would
	// tag every later log line of this subscriber with that update.
	workflow.Go(s.notifyCtx, func(ctx workflow.Context) {
		if s.notifyBatch {
			s.deliverBatches(ctx, next)
			return
		}
		s.deliver(ctx, next)
	})
}

// unsubscribe removes a subscriber; what it had pending is given up.
func (s *session) unsubscribe(ctx workflow.Context, id string) {
	sub := s.subscription(id)
	if sub == nil {
		return
	}
	sub.removed = true
	if sub.cancel != nil {
		sub.cancel()
	}
	for _, n := range sub.pending {
		s.gaveUp(ctx, sub, n, "unsubscribed")
	}
	sub.pending = nil
	s.subs = slices.DeleteFunc(s.subs, func(o *subscription) bool { return o == sub })
}

// notifyChange queues the notification of an accepted change for every
// subscriber whose filter it matches. It only appends to queues: the write
// that made the change does not wait for any delivery.
func (s *session) notifyChange(ctx workflow.Context, before []todo.Item, previousSeq int64, after todo.State, src todo.Source) {
	if len(s.subs) == 0 {
		return
	}
	change := todo.Diff(before, after.Todos)
	kinds := notify.KindsOf(before, after.Todos, change, src)
	if len(kinds) == 0 {
		return
	}
	n := notify.New(workflow.GetInfo(ctx).WorkflowExecution.ID, after.Seq, previousSeq, kinds, change, after.Counts, src, after.UpdatedAt)
	size := n.Size()
	share := outboxBudget / len(s.subs)
	for _, sub := range s.subs {
		if !sub.Wants(kinds) {
			continue
		}
		// Make room by giving up the oldest waiting notification, never
		// one in flight.
		first := sub.inFlight
		for sub.bytes+size > share && len(sub.pending) > first {
			old := sub.pending[first]
			sub.pending = slices.Delete(sub.pending, first, first+1)
			sub.bytes -= old.Size()
			s.gaveUp(ctx, sub, old, "outbox full: the subscriber fell too far behind")
		}
		sub.pending = append(sub.pending, n)
		sub.bytes += size
	}
}

// deliver sends a subscriber's notifications one activity each, in order,
// until the subscriber is removed; sessions started before batches still
// run it. It runs on a disconnected context: a cancelled
// session still sends what it accepted (finish waits for it).
func (s *session) deliver(ctx workflow.Context, sub *subscription) {
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	for {
		if err := workflow.Await(ctx, func() bool { return len(sub.pending) > 0 || sub.removed }); err != nil || sub.removed {
			return
		}
		n := sub.pending[0]
		remaining := n.At.Add(sub.Deadline()).Sub(workflow.Now(ctx))
		if remaining <= 0 {
			s.delivered(ctx, sub, n, activities.Delivered{}, fmt.Errorf("not delivered within %s of the change", sub.Deadline()))
			continue
		}
		actx, cancel := workflow.WithCancel(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			ScheduleToCloseTimeout: remaining,
			StartToCloseTimeout:    min(deliveryAttemptTimeout, remaining),
			RetryPolicy:            &deliveryRetry,
			Summary:                fmt.Sprintf("notify %s of seq %d", sub.ID, n.Seq),
			// Started eagerly, a delivery ran inside the completion of the
			// write's own workflow task, and its result's task then met
			// the next write: the bench's write round trip with one
			// subscriber went from 24.8 ms to 14.8 ms without it.
			DisableEagerExecution: true,
		}))
		sub.inFlight, sub.cancel = 1, cancel
		var res activities.Delivered
		err := workflow.ExecuteActivity(actx, contract.ActivityDeliverNotification, activities.Delivery{
			URL: sub.URL, SecretName: sub.SecretName, Notification: n,
		}).Get(actx, &res)
		sub.inFlight, sub.cancel = 0, nil
		if sub.removed {
			return
		}
		s.delivered(ctx, sub, n, res, err)
	}
}

// delivered records what became of the notification at the head of sub's
// queue and takes it off.
func (s *session) delivered(ctx workflow.Context, sub *subscription, n notify.Notification, res activities.Delivered, err error) {
	sub.pending = sub.pending[1:]
	sub.bytes -= n.Size()
	if err != nil {
		s.gaveUp(ctx, sub, n, deliveryError(err))
		return
	}
	workflow.GetLogger(ctx).Info("Notification delivered", "subscriber", sub.ID, "seq", n.Seq, "attempts", res.Attempt, "status", res.Status)
	s.appendEvent(ctx, sessionlog.NotifyDelivered, sessionlog.NotifyData{Subscriber: sub.ID, Seq: n.Seq, Attempts: res.Attempt, Status: res.Status})
}

func (s *session) gaveUp(ctx workflow.Context, sub *subscription, n notify.Notification, why string) {
	workflow.GetLogger(ctx).Warn("Notification given up", "subscriber", sub.ID, "seq", n.Seq, "error", why)
	s.appendEvent(ctx, sessionlog.NotifyGivenUp, sessionlog.NotifyData{Subscriber: sub.ID, Seq: n.Seq, Error: why})
}

// deliveryError is the last attempt's error as people read it: the
// receiver's answer or the transport error, and, when it could have been
// retried, that giveUpAfter passed first.
func deliveryError(err error) string {
	const deadline = "retried until giveUpAfter passed; last attempt: "
	var timeout *temporal.TimeoutError
	if errors.As(err, &timeout) {
		if cause := errors.Unwrap(timeout); cause != nil {
			return deadline + rootMessage(cause)
		}
		return deadline + "none finished"
	}
	var app *temporal.ApplicationError
	if errors.As(err, &app) && !app.NonRetryable() {
		return deadline + app.Message()
	}
	return rootMessage(err)
}

// rootMessage is the message of the innermost error: an ActivityError wraps
// the ApplicationError the activity returned.
func rootMessage(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	for errors.Unwrap(err) != nil {
		err = errors.Unwrap(err)
	}
	return err.Error()
}

// pendingNotifications counts what the subscribers have yet to get.
func (s *session) pendingNotifications() int {
	n := 0
	for _, sub := range s.subs {
		n += len(sub.pending)
	}
	return n
}

// flushNotifications lets a finishing session deliver what it has queued,
// for at most finishGrace; what is left is given up.
func (s *session) flushNotifications(ctx workflow.Context) {
	if s.pendingNotifications() == 0 {
		return
	}
	_, _ = workflow.AwaitWithTimeout(ctx, finishGrace, func() bool { return s.pendingNotifications() == 0 })
	for _, sub := range s.subs {
		for _, n := range sub.pending {
			s.gaveUp(ctx, sub, n, "the session ended first")
		}
		sub.pending = nil
		sub.removed = true
		if sub.cancel != nil {
			sub.cancel()
		}
	}
}

// subscribersToCarry is every subscriber with what it has pending.
func (s *session) subscribersToCarry() ([]CarriedSubscriber, int) {
	var out []CarriedSubscriber
	size := 0
	for _, sub := range s.subs {
		out = append(out, CarriedSubscriber{Subscriber: sub.Subscriber, Pending: sub.pending})
		size += sub.Size() + sub.bytes
	}
	return out, size
}

// startSubscribers takes the session's subscribers: carried from the
// previous run with what they have pending, or given at start.
func (s *session) startSubscribers(ctx workflow.Context, in SessionInput) {
	s.notifyCtx = ctx
	if in.Carry != nil {
		for _, c := range in.Carry.Subscribers {
			s.subscribe(ctx, c.Subscriber, c.Pending)
		}
		return
	}
	for _, sub := range in.Subscribers {
		s.subscribe(ctx, sub, nil)
	}
}
