package main

import (
	"log/slog"
	"time"

	"go.temporal.io/sdk/worker"
)

// defaultStopTimeout is how long a stopping worker lets running tasks
// finish. Most model turns take seconds to a minute, so two minutes lets
// nearly every turn in flight finish here rather than be paid for again on
// another worker. It stays well under ModelTurn's 10-minute start-to-close
// timeout, because a person or a service manager is waiting: a turn cut off
// at the deadline is retried elsewhere, at the latest when its heartbeat
// times out (30 s). A service manager's own stop timeout (systemd
// TimeoutStopSec, Kubernetes terminationGracePeriodSeconds) should be longer
// than this.
const defaultStopTimeout = 2 * time.Minute

// stopGracefully stops polling and waits up to the worker's stop timeout for
// running workflow tasks and activities to finish; the SDK cancels what is
// still running after that. restoreSignals gives SIGINT and SIGTERM back
// their default action first, so a second Ctrl-C ends the process at once
// for someone who would rather not wait.
func stopGracefully(w worker.Worker, timeout time.Duration, restoreSignals func(), logger *slog.Logger) {
	restoreSignals()
	logger.Info("Shutting down: finishing in-flight tasks (interrupt again to stop at once)", "timeout", timeout)
	w.Stop()
}
