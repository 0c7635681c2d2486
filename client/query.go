package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/spf13/pflag"
	"go.temporal.io/sdk/converter"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// queryTimeout bounds one query: a query needs a worker to answer, and
// with none running it would otherwise wait for as long as the server lets it.
const queryTimeout = 10 * time.Second

// query runs a query on a session and returns the result's JSON exactly as
// the workflow sent it (for --output json), decoded into out as well.
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
	// Without the keys an encrypted answer arrives as it is stored; explain
	// turns this error into the hint to pass them.
	if enc := string(raw.Payload().GetMetadata()[converter.MetadataEncoding]); enc != converter.MetadataEncodingJSON {
		return nil, fmt.Errorf("query %s: encoding %s: %w", name, enc, converter.ErrEncodingIsNotSupported)
	}
	data := raw.Payload().GetData()
	if err := json.Unmarshal(data, out); err != nil {
		return nil, fmt.Errorf("query %s returned unexpected JSON: %w", name, err)
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

// pageFlags are the paging flags of `history` and `log`, sent as the
// queries' {"afterSeq":N,"limit":M}. Unsigned, so pflag refuses a negative.
type pageFlags struct {
	after   uint64
	limit   uint
	verbose bool
}

func (p *pageFlags) register(fs *pflag.FlagSet, verbose string) {
	fs.Uint64Var(&p.after, "after", 0, "only entries with seq greater than `N`")
	fs.UintVar(&p.limit, "limit", 0, "at most `M` entries (0: all)")
	fs.BoolVarP(&p.verbose, "verbose", "v", false, verbose)
}

func (p *pageFlags) request() sessionlog.PageRequest {
	return sessionlog.PageRequest{AfterSeq: int64(min(p.after, math.MaxInt64)), Limit: int(min(p.limit, math.MaxInt32))}
}

// queryPages reads a paged query (todo_history, session_log) to its end, or
// to req.Limit entries: the workflow ends a page at its byte budget, so one
// page may hold fewer entries than were asked for.
func queryPages[T any](ctx context.Context, a *app, id, name string, req sessionlog.PageRequest, seqOf func(*T) int64) ([]T, error) {
	all := []T{}
	for {
		var page []T
		if _, err := a.query(ctx, id, name, &page, req); err != nil {
			return nil, err
		}
		all = append(all, page...)
		if len(page) == 0 {
			return all, nil
		}
		if req.Limit > 0 {
			if req.Limit -= len(page); req.Limit <= 0 {
				return all, nil
			}
		}
		req.AfterSeq = seqOf(&page[len(page)-1])
	}
}
