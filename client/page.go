package main

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/durabletodos/agenttodos/sessionlog"
)

// pageFlags are the paging flags of `history` and `log`, sent as the
// queries' {"afterSeq":N,"limit":M}.
type pageFlags struct {
	after   int64
	limit   int
	verbose bool
}

func (p *pageFlags) register(fs *pflag.FlagSet, verbose string) {
	fs.Int64Var(&p.after, "after", 0, "only entries with seq greater than `N`")
	fs.IntVar(&p.limit, "limit", 0, "at most `M` entries (0: all)")
	fs.BoolVarP(&p.verbose, "verbose", "v", false, verbose)
}

func (p *pageFlags) request() (sessionlog.PageRequest, error) {
	if p.after < 0 || p.limit < 0 {
		return sessionlog.PageRequest{}, usageErrorf("--after and --limit cannot be negative")
	}
	return sessionlog.PageRequest{AfterSeq: p.after, Limit: p.limit}, nil
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
