package embedded

import "go.temporal.io/server/common/dynamicconfig"

// MaxInFlightUpdatePayloads bounds the update requests in flight on one
// workflow execution (history.maxInFlightUpdatePayloads; Temporal's default
// is 20 MiB). The SDK echoes each update request back in the completion of
// the workflow task that handles it, so with several large todo_write
// updates in one task that completion went over the frontend's 4 MiB message
// limit and the session stopped answering. At 2 MiB, which is also the
// largest payload Temporal accepts at all, a large update waits (the client
// retries the server's ResourceExhausted answer by itself) until the one
// before it is done. Production clusters running AgentSession should set the
// same.
const MaxInFlightUpdatePayloads = 2 << 20

// SessionLimits is the dynamic config AgentSession needs from any server it
// runs on; the embedded server sets it, and so do the tests' servers.
func SessionLimits() dynamicconfig.StaticClient {
	return dynamicconfig.StaticClient{
		dynamicconfig.WorkflowExecutionMaxInFlightUpdatePayloads.Key(): MaxInFlightUpdatePayloads,
	}
}
