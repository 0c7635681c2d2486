package activities

import (
	"context"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/sessionlog"
)

// scriptedTurn replays the turn the workflow picked from its script. The
// conversation was still read and built, so an offline session exercises the
// same log query and window as a real model does.
func scriptedTurn(ctx context.Context, in ModelTurnInput, msgs []sessionlog.Message) (ModelTurnOutput, error) {
	if in.ScriptedThinkTime > 0 {
		select {
		case <-time.After(in.ScriptedThinkTime):
		case <-ctx.Done():
			return ModelTurnOutput{}, ctx.Err()
		}
	}
	if in.Scripted == nil {
		return ModelTurnOutput{}, temporal.NewNonRetryableApplicationError(
			"scripted model: no assistant turn left in the script", ErrTypeScriptExhausted, nil)
	}
	finish := "stop"
	if len(in.Scripted.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	return ModelTurnOutput{Message: *in.Scripted, FinishReason: finish, Requested: len(msgs)}, nil
}
