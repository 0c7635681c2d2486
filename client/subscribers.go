package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/mattn/go-runewidth"
	"github.com/spf13/pflag"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/workflows"
)

// defaultSubscriberID names a webhook after its host (and port), which is
// what a person reads in the log; a URL without one gets a name the session
// accepts, so its refusal is about the URL, not the ID.
func defaultSubscriberID(rawURL string) string {
	u, err := url.Parse(rawURL)
	host := ""
	if err == nil {
		host = u.Hostname()
		if p := u.Port(); p != "" {
			host += "-" + p
		}
	}
	id := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '-'
	}, host)
	id = strings.Trim(id, "-.")
	if len(id) > notify.MaxIDBytes {
		id = id[:notify.MaxIDBytes]
	}
	if id == "" {
		return "webhook"
	}
	return id
}

// splitSubscribeFlag reads `--subscribe [ID=]URL`. The ID is only taken
// when what follows "=" is an http(s) URL, since a URL's query holds "="
// too.
func splitSubscribeFlag(v string) (id, rawURL string) {
	if before, after, ok := strings.Cut(v, "="); ok {
		lower := strings.ToLower(after)
		if !strings.ContainsAny(before, ":/?") && (strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")) {
			return before, after
		}
	}
	return "", v
}

func kindsOf(events []string) []notify.Kind {
	var kinds []notify.Kind
	for _, e := range events {
		if e = strings.TrimSpace(e); e != "" {
			kinds = append(kinds, notify.Kind(e))
		}
	}
	return kinds
}

func kindNames() []string {
	names := make([]string, len(notify.AllKinds))
	for i, k := range notify.AllKinds {
		names[i] = string(k)
	}
	return names
}

func (a *app) querySubscribers(ctx context.Context, id string) ([]byte, []workflows.SubscriberStatus, error) {
	var subs []workflows.SubscriberStatus
	raw, err := a.query(ctx, id, contract.QuerySubscribers, &subs)
	return raw, subs, err
}

// printSubscribers prints the subscribers as a table after text, or, for a
// program, the JSON the session returned: one array, or one subscriber a
// line, each byte for byte.
func (a *app) printSubscribers(text string, raw []byte, subs []workflows.SubscriberStatus) error {
	if a.out.text() {
		return a.out.result(text+renderSubscribers(subs, a.term), nil)
	}
	if a.out.format == formatJSON {
		return a.out.value(json.RawMessage(raw))
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return fmt.Errorf("the session returned unexpected JSON: %w", err)
	}
	return printList(a.out, items, func(json.RawMessage) string { return "" })
}

// renderSubscribers is a table, one subscriber a row. The URL goes last,
// since it is the one long cell, and is cut to the terminal width.
func renderSubscribers(subs []workflows.SubscriberStatus, t terminal) string {
	p := palette(t.color)
	if len(subs) == 0 {
		return p.paint(styleDim, "(no subscribers)") + "\n"
	}
	rows := [][]string{{"ID", "EVENTS", "PENDING", "OLDEST", "SECRET", "GIVE UP", "URL"}}
	for _, s := range subs {
		events := make([]string, len(s.Events))
		for i, k := range s.Events {
			events[i] = string(k)
		}
		if len(events) == 0 {
			events = []string{string(notify.Changed)}
		}
		oldest := "-"
		if s.Pending > 0 {
			oldest = "seq " + strconv.FormatInt(s.OldestPendingSeq, 10)
		}
		giveUp := s.GiveUpAfter
		if giveUp == "" {
			giveUp = notify.DefaultGiveUpAfter.String()
		}
		rows = append(rows, []string{oneLine(s.ID), strings.Join(events, ","), strconv.Itoa(s.Pending), oldest, oneLine(s.SecretName), oneLine(giveUp), oneLine(s.URL)})
	}
	widths := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, cell := range r[:len(r)-1] {
			widths[i] = max(widths[i], runewidth.StringWidth(cell))
		}
	}
	var b strings.Builder
	for n, r := range rows {
		line := ""
		for i, cell := range r[:len(r)-1] {
			line += cell + strings.Repeat(" ", widths[i]-runewidth.StringWidth(cell)+2)
		}
		last := r[len(r)-1]
		if t.width > 0 {
			last = truncate(last, t.width-runewidth.StringWidth(line)-1)
		}
		line += last
		switch {
		case n == 0:
			line = p.paint(styleBold, line)
		case subs[n-1].Pending > 0:
			// A queue is the thing to notice: somebody is not hearing.
			line = p.paint(styleYellow, line)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}

// subscribeFlags give a session its webhooks at start, so it misses none
// of its changes: the same secret, events and give-up time for each.
type subscribeFlags struct {
	urls    []string
	secret  string
	events  []string
	giveUp  string
	changed func(string) bool
}

func (f *subscribeFlags) register(fs *pflag.FlagSet) {
	f.changed = fs.Changed
	fs.StringArrayVar(&f.urls, "subscribe", nil, "POST the session's changes to `[ID=]URL` from its start (repeatable; ID default: the URL's host); needs --subscribe-secret")
	fs.StringVar(&f.secret, "subscribe-secret", "", "sign --subscribe's notifications with the secret called `NAME` in the worker's --webhook-secrets file")
	fs.StringSliceVar(&f.events, "subscribe-events", nil, "send --subscribe only changes of these `KINDS` ("+strings.Join(kindNames(), ", ")+"; default changed)")
	fs.StringVar(&f.giveUp, "subscribe-give-up-after", "", "retry each of --subscribe's notifications for at most `DURATION` after its change (1s to 72h; default 1h)")
}

// subscribers are the webhooks the flags describe. They are checked here by
// the session's own rules: a session started with a bad one would fail at
// once, after the client had printed its ID.
func (f *subscribeFlags) subscribers() ([]notify.Subscriber, error) {
	if len(f.urls) == 0 {
		for _, name := range []string{"subscribe-secret", "subscribe-events", "subscribe-give-up-after"} {
			if f.changed != nil && f.changed(name) {
				return nil, usageErrorf("--%s applies to --subscribe URL, which is missing", name)
			}
		}
		return nil, nil
	}
	if f.secret == "" {
		return nil, usageErrorf("--subscribe needs --subscribe-secret NAME, a name in the worker's --webhook-secrets file")
	}
	subs := make([]notify.Subscriber, len(f.urls))
	taken := map[string]bool{}
	for i, v := range f.urls {
		subs[i].ID, subs[i].URL = splitSubscribeFlag(v)
		taken[subs[i].ID] = true
	}
	for i := range subs {
		if subs[i].ID == "" {
			// Two webhooks on one host get host, host-2, ...
			base := defaultSubscriberID(subs[i].URL)
			id := base
			for n := 2; taken[id]; n++ {
				id = base + "-" + strconv.Itoa(n)
			}
			subs[i].ID, taken[id] = id, true
		}
		subs[i].SecretName, subs[i].Events, subs[i].GiveUpAfter = f.secret, kindsOf(f.events), f.giveUp
	}
	if err := notify.CheckAll(subs); err != nil {
		return nil, &exitError{code: 1, msg: "Error: invalid session input: " + err.Error()}
	}
	return subs, nil
}
