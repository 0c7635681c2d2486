package workflows

import (
	"time"

	"go.temporal.io/sdk/workflow"
)

// One workflow task's completion carries every update result produced in it,
// and concurrent writes all complete in the same task (their local
// activities run inside it). A valid list can take about 1.5 MB as JSON, so
// a few of them together exceeded the frontend's 4 MiB message limit, the
// task failed, and so did every retry. taskResultBudget keeps what one task
// carries in update results within reach of that limit: past it, a result
// waits for the next task. The update requests a task echoes back (the SDK
// returns each request it accepts or rejects) are bounded by the server's
// history.maxInFlightUpdatePayloads, which the embedded server sets to
// 2 MiB: with the results, a completion stays under the frontend's 4 MiB
// message limit and the history's 4 MiB transaction limit.
const taskResultBudget = 1 << 20

// continueAsNewTaskBytes is the most a task may already carry when it would
// also carry the continue-as-new input (up to about 1.2 MiB); past it, the
// session continues as new in the next task.
const continueAsNewTaskBytes = 512 << 10

// taskBudget counts the update bytes of the current workflow task, which is
// known by the history length it started at.
type taskBudget struct {
	startedAt int
	bytes     int
}

// taskBytes is what the current workflow task carries so far.
func (s *session) taskBytes(ctx workflow.Context) *int {
	if at := workflow.GetInfo(ctx).GetCurrentHistoryLength(); at != s.task.startedAt {
		s.task = taskBudget{startedAt: at}
	}
	return &s.task.bytes
}

// countTaskBytes adds n bytes the task carries whatever the workflow does:
// the SDK echoes every update request it accepts (or rejects) back in the
// task's completion.
func (s *session) countTaskBytes(ctx workflow.Context, n int) {
	if s.integrity {
		*s.taskBytes(ctx) += n
	}
}

// reserveTaskBytes returns once a result of n bytes fits in the current
// workflow task: at once when the task carries nothing yet or room is left,
// otherwise after a one-millisecond timer has ended the task.
func (s *session) reserveTaskBytes(ctx workflow.Context, n int) {
	if !s.integrity {
		return
	}
	ctx, _ = workflow.NewDisconnectedContext(ctx)
	for {
		if used := s.taskBytes(ctx); *used == 0 || *used+n <= taskResultBudget {
			*used += n
			return
		}
		_ = workflow.Sleep(ctx, time.Millisecond)
	}
}
