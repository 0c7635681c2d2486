package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/payloads"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// pageFlags are the paging flags of `history` and `log`, sent as the
// queries' {"afterSeq":N,"limit":M}.
type pageFlags struct {
	after   int64
	limit   int
	json    bool
	verbose bool
}

func (p *pageFlags) register(fs *flag.FlagSet, what string) {
	fs.Int64Var(&p.after, "after", 0, "only entries with seq greater than `N`")
	fs.IntVar(&p.limit, "limit", 0, "at most `M` entries (0: all)")
	fs.BoolVar(&p.json, "json", false, "print the query's JSON exactly as returned")
	fs.BoolVar(&p.verbose, "v", false, what)
}

func (p *pageFlags) request() (sessionlog.PageRequest, error) {
	if p.after < 0 || p.limit < 0 {
		return sessionlog.PageRequest{}, usageErrorf("--after and --limit cannot be negative")
	}
	return sessionlog.PageRequest{AfterSeq: p.after, Limit: p.limit}, nil
}

// parse reads the command line of a paged query: the session and the page.
func (p *pageFlags) parse(fs *flag.FlagSet, args []string) (string, sessionlog.PageRequest, error) {
	pos, err := parseCommand(fs, args, []string{"SESSION"}, false)
	if err != nil {
		return "", sessionlog.PageRequest{}, err
	}
	req, err := p.request()
	return pos[0], req, err
}

func (a *app) history(ctx context.Context, args []string) error {
	fs := a.commandFlags("history")
	var pf pageFlags
	pf.register(fs, "list each snapshot's items")
	id, req, err := pf.parse(fs, args)
	if err != nil {
		return err
	}
	snaps, err := queryPages(ctx, a, id, contract.QueryTodoHistory, req, func(s *todo.Snapshot) int64 { return s.Seq })
	if err != nil {
		return err
	}
	if pf.json {
		return a.printJSON(snaps)
	}
	for _, s := range snaps {
		if _, err := io.WriteString(a.stdout, renderSnapshot(s, a.term, pf.verbose)); err != nil {
			return err
		}
	}
	return nil
}

func (a *app) log(ctx context.Context, args []string) error {
	fs := a.commandFlags("log")
	var pf pageFlags
	pf.register(fs, "show whole texts and the items of each plan")
	follow := fs.Bool("follow", false, "keep printing new events until Ctrl-C or the session ends (with --json: one event per line)")
	interval := fs.Duration("interval", defaultInterval, "how often --follow asks")
	id, req, err := pf.parse(fs, args)
	if err != nil {
		return err
	}
	if !*follow {
		events, err := queryPages(ctx, a, id, contract.QuerySessionLog, req, sessionlog.EventSeq)
		if err != nil {
			return err
		}
		if pf.json {
			return a.printJSON(events)
		}
		return a.printEvents(events, pf.verbose)
	}
	if *interval <= 0 {
		return usageErrorf("--interval must be positive")
	}
	c, err := a.connect()
	if err != nil {
		return err
	}
	first := true
	end, closedErr, err := a.poll(ctx, c, id, *interval, func() (bool, error) {
		_, events, err := a.queryLog(ctx, id, req)
		if err != nil {
			if first {
				return false, err
			}
			return false, nil
		}
		first = false
		if len(events) > 0 {
			req.AfterSeq = events[len(events)-1].Seq
		}
		if pf.json {
			return false, a.printEventLines(events)
		}
		return false, a.printEvents(events, pf.verbose)
	})
	if err != nil {
		return err
	}
	if end == pollClosed {
		fmt.Fprintf(a.stderr, "session %s %s\n", id, closedText(closedErr))
	}
	return nil
}

func (a *app) printEvents(events []sessionlog.Event, verbose bool) error {
	for _, ev := range events {
		if _, err := io.WriteString(a.stdout, renderEvent(ev, a.term, verbose)); err != nil {
			return err
		}
	}
	return nil
}

// printEventLines prints one event JSON object per line, so a program can
// follow a session log with a line reader.
func (a *app) printEventLines(events []sessionlog.Event) error {
	for _, ev := range events {
		b, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(a.stdout, "%s\n", b); err != nil {
			return err
		}
	}
	return nil
}

func (a *app) printJSON(v any) error {
	b, err := payloads.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(a.stdout, "%s\n", b)
	return err
}
