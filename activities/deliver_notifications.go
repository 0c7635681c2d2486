package activities

import (
	"context"
	"errors"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/notify"
)

// Batch is the input of DeliverNotifications: a subscriber's waiting
// notifications, oldest first. Each is still its own POST, in this order.
type Batch struct {
	URL           string                `json:"url"`
	SecretName    string                `json:"secretName"`
	Notifications []notify.Notification `json:"notifications"`
	// HeadPosts counts the POSTs the first notification had in an earlier
	// batch that stopped at it, so its log entry counts them all.
	HeadPosts int `json:"headPosts,omitempty"`
}

// Outcome is what became of one notification of a batch.
type Outcome struct {
	Seq int64 `json:"seq"`
	// Status is the receiver's 2xx answer; 0 when the notification was
	// given up.
	Status int `json:"status,omitempty"`
	// Posts counts the POSTs it took.
	Posts int `json:"posts"`
	// Error says why it was given up: an answer no retry can change.
	Error string `json:"error,omitempty"`
}

// BatchResult lists the outcomes of a batch's first notifications, in order.
// When it stopped early, the rest is left to the next batch and Stopped says
// why.
type BatchResult struct {
	Outcomes []Outcome `json:"outcomes,omitempty"`
	Stopped  *Stop     `json:"stopped,omitempty"`
}

// Stop is the retryable failure of the first notification a batch left.
type Stop struct {
	Seq   int64  `json:"seq"`
	Posts int    `json:"posts"`
	Error string `json:"error"`
	// RetryAfter is how long the receiver asked to be left alone (its
	// Retry-After), or zero.
	RetryAfter time.Duration `json:"retryAfter,omitempty"`
}

// DeliverNotifications POSTs a batch of notifications to one subscriber, one
// at a time and in order, each signed and with its idempotency key.
//
// Batches exist for the session's sake: each delivery's result is a workflow
// task of the session, which a write arriving at that moment has to wait
// for, so during a burst of writes the session sends what piled up in one
// activity instead of one per change.
//
// Retries stay per notification. The activity fails (and is retried with
// the workflow's backoff) only while its first notification fails; once
// something was delivered, a retryable failure ends the batch with what is
// done, and the next batch starts its own retries at the one that failed.
// Progress is heartbeated around each POST, so an attempt after a crash or a
// failure skips what was delivered and counts the POSTs already made.
func (w *Webhooks) DeliverNotifications(ctx context.Context, b Batch) (BatchResult, error) {
	secret, err := w.secret(b.SecretName)
	if err != nil {
		// Every notification would fail the same way.
		var res BatchResult
		for _, n := range b.Notifications {
			res.Outcomes = append(res.Outcomes, Outcome{Seq: n.Seq, Error: message(err)})
		}
		return res, nil
	}
	p := BatchProgress{HeadPosts: b.HeadPosts}
	if activity.IsActivity(ctx) && activity.HasHeartbeatDetails(ctx) {
		var last BatchProgress
		if activity.GetHeartbeatDetails(ctx, &last) == nil && len(last.Outcomes) <= len(b.Notifications) {
			p = last
		}
	}
	for _, n := range b.Notifications[len(p.Outcomes):] {
		// Counted before it is sent: a POST cut short by a crash was still
		// seen by the receiver, most likely. (An activity's first heartbeat
		// goes out at once; later ones are batched by the SDK.)
		p.HeadPosts++
		heartbeat(ctx, p)
		status, err := w.post(ctx, b.URL, secret, n)
		var app *temporal.ApplicationError
		switch {
		case err != nil && errors.Is(ctx.Err(), context.Canceled):
			// The session recalled the batch (it is continuing as new):
			// it takes what was delivered from the cancellation.
			return BatchResult{}, temporal.NewCanceledError(p)
		case err == nil:
			p.Outcomes = append(p.Outcomes, Outcome{Seq: n.Seq, Status: status, Posts: p.HeadPosts})
		case errors.As(err, &app) && app.NonRetryable():
			p.Outcomes = append(p.Outcomes, Outcome{Seq: n.Seq, Posts: p.HeadPosts, Error: app.Message()})
		case len(p.Outcomes) > 0:
			return BatchResult{Outcomes: p.Outcomes, Stopped: &Stop{Seq: n.Seq, Posts: p.HeadPosts, Error: message(err), RetryAfter: nextRetryDelay(err)}}, nil
		default:
			return BatchResult{}, err
		}
		p.HeadPosts = 0
		heartbeat(ctx, p)
	}
	return BatchResult{Outcomes: p.Outcomes}, nil
}

// BatchProgress is what DeliverNotifications heartbeats: the outcomes so far
// and the POSTs of the notification it is on. A session reads it from a
// batch that timed out.
type BatchProgress struct {
	Outcomes  []Outcome `json:"outcomes,omitempty"`
	HeadPosts int       `json:"headPosts,omitempty"`
}

func heartbeat(ctx context.Context, p BatchProgress) {
	if activity.IsActivity(ctx) {
		activity.RecordHeartbeat(ctx, p)
	}
}

func message(err error) string {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.Message()
	}
	return err.Error()
}

func nextRetryDelay(err error) time.Duration {
	var app *temporal.ApplicationError
	if errors.As(err, &app) {
		return app.NextRetryDelay()
	}
	return 0
}
