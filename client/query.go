package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.temporal.io/sdk/converter"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// queryTimeout bounds one query: a query needs a worker to answer, and
// with none running it would otherwise wait for as long as the server lets it.
const queryTimeout = 10 * time.Second

// query runs a query on a session and returns the result's JSON exactly as
// the workflow sent it (for --output json), decoded into out as well when out is
// not nil.
func (a *app) query(ctx context.Context, id, name string, out any, args ...any) ([]byte, error) {
	c, err := a.connect()
	if err != nil {
		return nil, err
	}
	qctx, cancel := context.WithTimeout(ctx, queryTimeout)
	defer cancel()
	v, err := c.QueryWorkflow(qctx, id, "", name, args...)
	if err != nil {
		return nil, a.sessionError(id, err)
	}
	// A RawValue skips the data converter, so --output json shows the payload the
	// workflow produced, not a re-encoding of what this client understood.
	var raw converter.RawValue
	if err := v.Get(&raw); err != nil {
		return nil, err
	}
	data := raw.Payload().GetData()
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return nil, fmt.Errorf("query %s returned unexpected JSON: %w", name, err)
		}
	}
	return data, nil
}

func (a *app) queryState(ctx context.Context, id string) ([]byte, todo.State, error) {
	var st todo.State
	raw, err := a.query(ctx, id, contract.QueryTodos, &st)
	return raw, st, err
}

func (a *app) queryLog(ctx context.Context, id string, page sessionlog.PageRequest) ([]sessionlog.Event, error) {
	var events []sessionlog.Event
	_, err := a.query(ctx, id, contract.QuerySessionLog, &events, page)
	return events, err
}
