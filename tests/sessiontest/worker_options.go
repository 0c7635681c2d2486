package sessiontest

import (
	"time"

	"go.temporal.io/sdk/worker"
)

// WorkerOptions are the options of every worker the tests start in
// process. One differs from the worker binary's: the SDK fails a workflow
// task whose code runs a second of wall-clock time without yielding
// (DeadlockDetectionTimeout). Under the race detector the session's work on
// the largest valid lists is about four times slower (decoding a 1.5 MB list
// took 41 ms without it and 182 ms with it), so on a busy 2-core machine a
// correct task crossed the second and failed, and the SDK's abandoned
// coroutine then raced with the retry inside the SDK. The timeout scales
// with the detector's slowdown; without -race it is the SDK's default.
func WorkerOptions() worker.Options {
	return worker.Options{DeadlockDetectionTimeout: time.Duration(raceSlowdown) * time.Second}
}
