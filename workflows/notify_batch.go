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
)

// batchWindow is the least time between the starts of two batches to one
// subscriber. A change after a quiet spell goes out at once; the changes of
// a burst wait and go together. The window is what keeps deliveries off the
// write path: each batch's result is a workflow task of the session, and a
// write that arrives during one waits for it (one per change doubled the
// round trip of back-to-back writes, see BENCHMARKS.md).
const batchWindow = time.Second

// maxBatch bounds the notifications one activity sends.
const maxBatch = 64

// handoverGrace bounds how long a run that continues as new waits for the
// answer of a batch it recalled. The activity learns of the cancellation
// with its next heartbeat, which the SDK may hold back for up to 80% of the
// heartbeat timeout; past the grace the next run sends again what the batch
// had not reported, under the same keys.
const handoverGrace = deliveryAttemptTimeout

// deliverBatches sends a subscriber's notifications in order, in batches,
// until the subscriber is removed. Like deliver, it runs on a disconnected
// context, so that a cancelled session still sends what it accepted.
func (s *session) deliverBatches(ctx workflow.Context, sub *subscription) {
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	var notBefore time.Time
	for {
		// A run that is handing over starts no batch: the next run sends
		// what is pending.
		if err := workflow.Await(ctx, func() bool { return sub.removed || (len(sub.pending) > 0 && !s.handingOver) }); err != nil || sub.removed {
			return
		}
		if workflow.Now(ctx).Before(notBefore) {
			// The condition reads the clock, so a write's own workflow task
			// after notBefore starts the batch; the timer only fires when
			// the writes stop.
			_, err := workflow.AwaitWithTimeout(ctx, notBefore.Sub(workflow.Now(ctx)), func() bool {
				return sub.removed || !workflow.Now(ctx).Before(notBefore)
			})
			if err != nil || sub.removed {
				return
			}
			if s.handingOver {
				continue
			}
		}
		s.giveUpExpired(ctx, sub)
		if len(sub.pending) == 0 {
			continue
		}
		now := workflow.Now(ctx)
		notBefore = now.Add(batchWindow)
		size, headPosts := maxBatch, 0
		if sub.retried.seq == sub.pending[0].Seq {
			// A receiver that just failed gets the change it failed on
			// alone until it answers: a batch is recorded in history
			// whole, and one that stops at its first change again would
			// record the rest once more each time.
			size, headPosts = 1, sub.retried.posts
		}
		batch := slices.Clone(sub.pending[:min(len(sub.pending), size)])
		// The batch's deadline is its first notification's: the others
		// came later, and go in the next batch if this one runs out.
		remaining := batch[0].At.Add(sub.Deadline()).Sub(now)
		actx, cancel := workflow.WithCancel(workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
			ScheduleToCloseTimeout: remaining,
			// Progress is heartbeated around each POST, and one POST is
			// bounded by activities.WebhookTimeout: a worker that dies in
			// the middle is noticed after this long.
			HeartbeatTimeout: deliveryAttemptTimeout,
			RetryPolicy:      &deliveryRetry,
			Summary:          batchSummary(sub.ID, batch),
			// Started eagerly, a batch would run inside the completion of
			// the write's own workflow task and slow the next write.
			DisableEagerExecution: true,
			// A recalled batch still reports what it delivered.
			WaitForCancellation: s.notifyHandover,
		}))
		sub.inFlight, sub.cancel = len(batch), cancel
		var res activities.BatchResult
		err := workflow.ExecuteActivity(actx, contract.ActivityDeliverNotifications, activities.Batch{
			URL: sub.URL, SecretName: sub.SecretName, Notifications: batch, HeadPosts: headPosts,
		}).Get(actx, &res)
		recalled := sub.recalled
		sub.inFlight, sub.cancel, sub.recalled = 0, nil, false
		if sub.removed {
			return
		}
		if err != nil {
			res.Outcomes = batchProgress(err).Outcomes
		}
		s.recordOutcomes(ctx, sub, res.Outcomes)
		switch {
		case recalled:
			// Whatever the batch did not report goes to the next run.
		case err != nil && len(res.Outcomes) < len(batch) && len(sub.pending) > 0 && sub.pending[0].Seq == batch[len(res.Outcomes)].Seq:
			// Retried until its deadline (or failed for good): give it up.
			// The rest have later deadlines and go in the next batch.
			n := sub.pending[0]
			if len(res.Outcomes) == 0 || !n.At.Add(sub.Deadline()).After(workflow.Now(ctx)) {
				s.delivered(ctx, sub, n, activities.Delivered{}, err)
			}
		case res.Stopped != nil:
			sub.retried = retriedHead{seq: res.Stopped.Seq, posts: res.Stopped.Posts}
			// The next batch retries it: no sooner than the receiver
			// asked, nor than a first retry would have.
			notBefore = maxTime(notBefore, workflow.Now(ctx).Add(max(res.Stopped.RetryAfter, deliveryRetry.InitialInterval)))
		}
	}
}

// batchProgress is what a batch that ended in err had delivered: a batch
// that timed out left it in its last heartbeat, and a recalled one returns
// it with its cancellation.
func batchProgress(err error) activities.BatchProgress {
	var progress activities.BatchProgress
	var timeout *temporal.TimeoutError
	var canceled *temporal.CanceledError
	switch {
	case errors.As(err, &timeout) && timeout.HasLastHeartbeatDetails():
		_ = timeout.LastHeartbeatDetails(&progress)
	case errors.As(err, &canceled) && canceled.HasDetails():
		// A batch cancelled before it started has the server's note here,
		// not progress: it delivered nothing.
		_ = canceled.Details(&progress)
	}
	return progress
}

// recallBatches cancels the batches in flight of a run that is handing over,
// and says until when the run waits for their answers.
func (s *session) recallBatches(ctx workflow.Context) time.Time {
	for _, sub := range s.subs {
		if sub.inFlight > 0 && !sub.recalled && sub.cancel != nil {
			sub.recalled = true
			sub.cancel()
		}
	}
	return workflow.Now(ctx).Add(handoverGrace)
}

// batchesOut says a recalled batch has not answered yet and the run may
// still wait for it.
func (s *session) batchesOut(ctx workflow.Context, until time.Time) bool {
	if !workflow.Now(ctx).Before(until) {
		return false
	}
	for _, sub := range s.subs {
		if sub.inFlight > 0 {
			return true
		}
	}
	return false
}

// giveUpExpired gives up the notifications at the head of sub's queue that
// are past the subscriber's giveUpAfter.
func (s *session) giveUpExpired(ctx workflow.Context, sub *subscription) {
	for len(sub.pending) > 0 {
		n := sub.pending[0]
		if n.At.Add(sub.Deadline()).After(workflow.Now(ctx)) {
			return
		}
		s.delivered(ctx, sub, n, activities.Delivered{}, fmt.Errorf("not delivered within %s of the change", sub.Deadline()))
	}
}

// recordOutcomes logs what became of the first notifications of a batch and
// takes them off sub's queue. The queue still starts with the batch: what
// is in flight is never trimmed, and a removed subscriber records nothing.
func (s *session) recordOutcomes(ctx workflow.Context, sub *subscription, outcomes []activities.Outcome) {
	for _, o := range outcomes {
		if len(sub.pending) == 0 || sub.pending[0].Seq != o.Seq {
			return
		}
		n := sub.pending[0]
		sub.pending = sub.pending[1:]
		sub.bytes -= n.Size()
		if o.Error != "" {
			s.gaveUp(ctx, sub, n, o.Error)
			continue
		}
		workflow.GetLogger(ctx).Info("Notification delivered", "subscriber", sub.ID, "seq", n.Seq, "posts", o.Posts, "status", o.Status)
		s.appendEvent(ctx, sessionlog.NotifyDelivered, sessionlog.NotifyData{Subscriber: sub.ID, Seq: n.Seq, Attempts: int32(o.Posts), Status: o.Status})
	}
}

// batchSummary names a batch in the UI's event history.
func batchSummary(id string, batch []notify.Notification) string {
	first, last := batch[0].Seq, batch[len(batch)-1].Seq
	if first == last {
		return fmt.Sprintf("notify %s of seq %d", id, first)
	}
	return fmt.Sprintf("notify %s of seq %d to %d (%d changes)", id, first, last, len(batch))
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
