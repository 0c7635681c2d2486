// Package identity carries who a person or program says they are from a Go
// context into the contract.HeaderWriter header of the updates they send, so
// the session records them as the writer of the plans they change. It is a
// self-declared name, not an authenticated one.
package identity

import (
	"context"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/contract"
)

type key struct{}

// With returns a context whose updates, sent by a client with Propagator,
// name writer as who sends them; an empty writer sends no header.
func With(ctx context.Context, writer string) context.Context {
	return context.WithValue(ctx, key{}, writer)
}

// From is the writer With put in ctx, or "".
func From(ctx context.Context) string {
	w, _ := ctx.Value(key{}).(string)
	return w
}

// Propagator is the client's context propagator (client.Options) that writes
// the header. Inside workflows and activities it does nothing: the session
// reads the header of each update itself.
type Propagator struct {
	// Converter writes the header: the client's own data converter, so
	// that with encryption on the writer's name is encrypted like every
	// payload (the SDK leaves headers to their propagators). Nil: the SDK's
	// default converter.
	Converter converter.DataConverter
}

var _ workflow.ContextPropagator = Propagator{}

// Inject writes the writer of ctx, as a JSON string, into an outgoing header.
func (p Propagator) Inject(ctx context.Context, h workflow.HeaderWriter) error {
	w := From(ctx)
	if w == "" {
		return nil
	}
	dc := p.Converter
	if dc == nil {
		dc = converter.GetDefaultDataConverter()
	}
	payload, err := dc.ToPayload(w)
	if err != nil {
		return err
	}
	h.Set(contract.HeaderWriter, payload)
	return nil
}

// Extract leaves an activity's context as it is.
func (Propagator) Extract(ctx context.Context, _ workflow.HeaderReader) (context.Context, error) {
	return ctx, nil
}

// InjectFromWorkflow sends nothing from a workflow.
func (Propagator) InjectFromWorkflow(workflow.Context, workflow.HeaderWriter) error { return nil }

// ExtractToWorkflow leaves a workflow's context as it is.
func (Propagator) ExtractToWorkflow(ctx workflow.Context, _ workflow.HeaderReader) (workflow.Context, error) {
	return ctx, nil
}
