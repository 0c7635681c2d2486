package activities

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
)

// HeartbeatInterval is how often a model turn tells Temporal it is alive.
// The workflow gives ModelTurn a heartbeat timeout a few times this long, so
// a worker that dies mid-request is noticed in seconds, while a slow
// reasoning model may take up to the turn's start-to-close timeout.
const HeartbeatInterval = 5 * time.Second

// keepAlive heartbeats until the returned stop is called. Outside an
// activity (unit tests calling ModelTurn directly) it does nothing.
func keepAlive(ctx context.Context) (stop func()) {
	if !activity.IsActivity(ctx) {
		return func() {}
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(HeartbeatInterval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				activity.RecordHeartbeat(ctx)
			case <-done:
				return
			case <-ctx.Done():
				return
			}
		}
	}()
	return func() { close(done) }
}
