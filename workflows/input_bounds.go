package workflows

import (
	"github.com/durabletodos/agenttodos/notify"

	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/todo"
)

// ErrTypeInvalidSessionInput fails a session whose input is out of bounds.
const ErrTypeInvalidSessionInput = "InvalidSessionInput"

// Bounds of SessionInput. They keep one run able to make progress before it
// continues as new, and keep what continue-as-new carries (the input itself
// included) far below Temporal's payload limit.
const (
	MaxPromptBytes       = 32 << 10
	MaxSystemPromptBytes = 32 << 10
	MaxModelNameBytes    = 256
	MaxScriptBytes       = 128 << 10
	MaxScriptThinkTime   = 10 * time.Minute

	DefaultMaxTurnsPerPrompt = 25
	MaxMaxTurnsPerPrompt     = 500

	DefaultConversationBudget = 256 << 10
	MinConversationBudget     = 4 << 10
	MaxConversationBudget     = 512 << 10

	DefaultContinueAsNewAfterEvents = 10000
	// MinContinueAsNewAfterEvents leaves a run room for a few writes past the
	// events every run starts with.
	MinContinueAsNewAfterEvents = 20
	// MaxContinueAsNewAfterEvents stays below Temporal's default hard limit
	// of 51,200 events per run.
	MaxContinueAsNewAfterEvents = 50000
)

// validate checks a new session's input; the error names the field.
func (in SessionInput) validate() error {
	scriptBytes := in.scriptBytes()
	checks := []struct {
		ok    bool
		field string
		bound string
		got   any
	}{
		{len(in.Prompt) <= MaxPromptBytes, "prompt", fmt.Sprintf("at most %d bytes", MaxPromptBytes), len(in.Prompt)},
		{len(in.Model) <= MaxModelNameBytes, "model", fmt.Sprintf("at most %d bytes", MaxModelNameBytes), len(in.Model)},
		{scriptBytes <= MaxScriptBytes, "script", fmt.Sprintf("at most %d bytes", MaxScriptBytes), scriptBytes},
		{in.ScriptThinkTime >= 0 && in.ScriptThinkTime <= MaxScriptThinkTime, "scriptThinkTime", "between 0 and " + MaxScriptThinkTime.String(), in.ScriptThinkTime},
		{len(in.SystemPrompt) <= MaxSystemPromptBytes, "systemPrompt", fmt.Sprintf("at most %d bytes", MaxSystemPromptBytes), len(in.SystemPrompt)},
		{inRange(in.MaxTurnsPerPrompt, 1, MaxMaxTurnsPerPrompt), "maxTurnsPerPrompt",
			fmt.Sprintf("0 (default %d) or between 1 and %d", DefaultMaxTurnsPerPrompt, MaxMaxTurnsPerPrompt), in.MaxTurnsPerPrompt},
		{inRange(in.ConversationBudgetBytes, MinConversationBudget, MaxConversationBudget), "conversationBudgetBytes",
			fmt.Sprintf("0 (default %d) or between %d and %d", DefaultConversationBudget, MinConversationBudget, MaxConversationBudget), in.ConversationBudgetBytes},
		{inRange(in.ContinueAsNewAfterEvents, MinContinueAsNewAfterEvents, MaxContinueAsNewAfterEvents), "continueAsNewAfterEvents",
			fmt.Sprintf("0 (default %d) or between %d and %d", DefaultContinueAsNewAfterEvents, MinContinueAsNewAfterEvents, MaxContinueAsNewAfterEvents), in.ContinueAsNewAfterEvents},
	}
	for _, c := range checks {
		if !c.ok {
			return temporal.NewNonRetryableApplicationError(
				fmt.Sprintf("invalid session input: %s must be %s (got %v)", c.field, c.bound, c.got),
				ErrTypeInvalidSessionInput, nil)
		}
	}
	if err := notify.CheckAll(in.Subscribers); err != nil {
		return temporal.NewNonRetryableApplicationError("invalid session input: "+err.Error(), ErrTypeInvalidSessionInput, nil)
	}
	return nil
}

// inRange accepts 0 (the default) or a value within [lo, hi].
func inRange(v, lo, hi int) bool { return v == 0 || (v >= lo && v <= hi) }

// withDefaults fills zero fields, once, at the start of a run.
func (in SessionInput) withDefaults() SessionInput {
	in.MaxTurnsPerPrompt = orDefault(in.MaxTurnsPerPrompt, DefaultMaxTurnsPerPrompt)
	in.ConversationBudgetBytes = orDefault(in.ConversationBudgetBytes, DefaultConversationBudget)
	in.ContinueAsNewAfterEvents = orDefault(in.ContinueAsNewAfterEvents, DefaultContinueAsNewAfterEvents)
	return in
}

// clamped brings a carried input within bounds: out-of-bounds values only
// reach a run from a session started before the bounds existed, and that
// session must keep running.
func (in SessionInput) clamped() SessionInput {
	in.MaxTurnsPerPrompt = min(in.MaxTurnsPerPrompt, MaxMaxTurnsPerPrompt)
	in.ConversationBudgetBytes = min(max(in.ConversationBudgetBytes, MinConversationBudget), MaxConversationBudget)
	in.ContinueAsNewAfterEvents = min(max(in.ContinueAsNewAfterEvents, MinContinueAsNewAfterEvents), MaxContinueAsNewAfterEvents)
	return in
}

func orDefault(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

// scriptBytes bounds the script's encoded size.
func (in SessionInput) scriptBytes() int {
	n := 0
	for _, turn := range in.Script {
		n += todo.EncodedStringSize(turn.Content) + 32
		for _, c := range turn.ToolCalls {
			n += todo.EncodedStringSize(c.ID) + todo.EncodedStringSize(c.Name) + todo.EncodedStringSize(c.Arguments) + 48
		}
	}
	return n
}
