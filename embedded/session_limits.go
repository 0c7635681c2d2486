package embedded

import "go.temporal.io/server/common/dynamicconfig"

// MaxInFlightUpdatePayloads bounds the update requests in flight on one
// workflow execution (history.maxInFlightUpdatePayloads; Temporal's default
// is 20 MiB). The SDK echoes each update request back in the completion of
// the workflow task that handles it, so with several large todo_write
// updates in one task that completion went over the frontend's 4 MiB message
// limit and the history's 4 MiB transaction limit (the server then
// terminates the workflow). At 2 MiB, which is also the largest payload
// Temporal accepts at all, no valid set of updates in flight can do that.
// Past it the server answers ResourceExhausted, with the cost described at
// MaxInFlightUpdates; only megabytes of plans written at once reach it.
const MaxInFlightUpdatePayloads = 2 << 20

// MaxInFlightUpdates is history.maxInFlightUpdates: 0, no limit on the
// number of updates in flight (Temporal's default is 10). An update turned
// away by any of the in-flight limits gets ResourceExhausted from inside the
// workflow's lock, and the history service clears the workflow's cached
// state on any error there (cacheImpl.makeReleaseFunc → ContextImpl.Clear).
// That drops the pending speculative workflow task and aborts every update
// in flight ("workflow update was aborted"); the clients retry, their retries
// meet the limit again, and a burst of more than 10 concurrent writes
// stalled a session for up to minutes, with "Workflow task not found" and
// "premature end of stream" as symptoms. With no count limit a burst of 50
// completes in tens of milliseconds.
const MaxInFlightUpdates = 0

// SessionLimits is the dynamic config AgentSession needs from any server it
// runs on; the embedded server sets it, and so do the tests' servers.
func SessionLimits() dynamicconfig.StaticClient {
	return dynamicconfig.StaticClient{
		dynamicconfig.WorkflowExecutionMaxInFlightUpdatePayloads.Key(): MaxInFlightUpdatePayloads,
		dynamicconfig.WorkflowExecutionMaxInFlightUpdates.Key():        MaxInFlightUpdates,
	}
}
