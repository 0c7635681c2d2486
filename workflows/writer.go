package workflows

import (
	"unicode/utf8"

	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/todo"
)

// writerOf reads the identity an update's sender declared in the
// contract.HeaderWriter header: a JSON string as our client and the SDKs'
// default converters write it, or plain text from a program that sets the
// payload by hand. It is what the sender claims, unchecked; empty when the
// header is absent. Reading it issues no command: the header is part of the
// update's history event, so replay reads the same. dc is the worker's data
// converter: with encryption on, it decrypts a header our client encrypted,
// and it reads a header in clear as the default converter does, so histories
// written before encryption replay unchanged.
func writerOf(ctx workflow.Context, dc converter.DataConverter) string {
	p := interceptor.WorkflowHeader(ctx)[contract.HeaderWriter]
	if p == nil {
		return ""
	}
	if dc == nil {
		dc = converter.GetDefaultDataConverter()
	}
	var name string
	if err := dc.FromPayload(p, &name); err != nil {
		if !utf8.Valid(p.GetData()) {
			return ""
		}
		name = string(p.GetData())
	}
	return todo.CleanWriter(name)
}
