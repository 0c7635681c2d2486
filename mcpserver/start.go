package mcpserver

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/workflows"
)

// ensureSession finds session id running or starts it, and says whether it
// started it. A running session is used as it is, whatever its task queue:
// binding must never replace a plan someone already has.
func (s *Sessions) ensureSession(ctx context.Context, id string) (started bool, err error) {
	d, err := s.opts.Client.DescribeWorkflowExecution(ctx, id, "")
	if err == nil && d.GetWorkflowExecutionInfo().GetStatus() == enums.WORKFLOW_EXECUTION_STATUS_RUNNING {
		return false, nil
	}
	if _, notFound := errors.AsType[*serviceerror.NotFound](err); err != nil && !notFound {
		return false, err
	}
	_, err = s.opts.Client.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID:        id,
		TaskQueue: s.opts.TaskQueue,
		// Two clients binding the same new ID at once: the second attaches.
		WorkflowExecutionErrorWhenAlreadyStarted: true,
		StaticSummary:                            "Agent session (MCP)",
	}, contract.WorkflowType, workflows.SessionInput{})
	if _, running := errors.AsType[*serviceerror.WorkflowExecutionAlreadyStarted](err); running {
		return false, nil
	}
	return err == nil, err
}

// newSessionID is the client's form (session-<8 random>), so sessions
// started here look like the ones people start.
func newSessionID() string { return "session-" + strings.ToLower(rand.Text()[:8]) }
