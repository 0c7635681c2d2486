package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/workflows"
)

func TestDefaultSubscriberID(t *testing.T) {
	cases := map[string]string{
		"https://hooks.example.com/todos?token=x": "hooks.example.com",
		"http://127.0.0.1:8399/hook":              "127.0.0.1-8399",
		"http://[::1]:8080/":                      "1-8080",
		"http://Bücher.example/":                  "B-cher.example",
		"nope":                                    "webhook",
		"ftp://":                                  "webhook",
	}
	for in, want := range cases {
		got := defaultSubscriberID(in)
		if got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
		if err := (notify.Subscriber{ID: got, URL: "https://x/", SecretName: "s"}).Check(); err != nil {
			t.Errorf("%q: the session would refuse ID %q: %v", in, got, err)
		}
	}
}

func TestSubscribeFlagsAtStart(t *testing.T) {
	f := subscribeFlags{
		urls:   []string{"https://hooks.example.com/a?x=1", "https://hooks.example.com/b", "team=https://team.example.com/t", "hooks.example.com=http://other/"},
		secret: "team", events: []string{"item_completed", "plan_finished"}, giveUp: "2h",
	}
	subs, err := f.subscribers()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range subs {
		ids = append(ids, s.ID+" "+s.URL)
		if s.SecretName != "team" || len(s.Events) != 2 || s.GiveUpAfter != "2h" {
			t.Errorf("%+v", s)
		}
	}
	want := "hooks.example.com-2 https://hooks.example.com/a?x=1|hooks.example.com-3 https://hooks.example.com/b|team https://team.example.com/t|hooks.example.com http://other/"
	if got := strings.Join(ids, "|"); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}

	// The session's own rules, before anything starts.
	f = subscribeFlags{urls: []string{"ftp://x/y"}, secret: "team"}
	_, err = f.subscribers()
	var ee *exitError
	if !errors.As(err, &ee) || ee.code != 1 || ee.msg != "Error: invalid session input: subscriber x: url must be an absolute http or https URL without credentials, of at most 2048 bytes" {
		t.Fatalf("bad URL: %v", err)
	}
}

func TestSubscribeSendsTheSubscriberAndPrintsTheTable(t *testing.T) {
	result := `[{"id":"hooks.example.com","url":"https://hooks.example.com/todos","events":["item_completed"],"secretName":"team","pending":0}]`
	fc := &fakeClient{updateResult: result, queries: map[string]string{contract.QuerySubscribers: `[]`}}
	a, _, _ := testApp(fc)
	out := run(t, a, "subscribe", "S1", "--url", "https://hooks.example.com/todos", "--secret", "team", "--events", "item_completed")
	want := "Subscribed hooks.example.com: session S1 POSTs changes that are item_completed to https://hooks.example.com/todos, signed with \"team\".\n" +
		"ID                 EVENTS          PENDING  OLDEST  SECRET  GIVE UP  URL\n" +
		"hooks.example.com  item_completed  0        -       team    1h0m0s   https://hooks.example.com/todos\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	u := fc.updates[0]
	if u.WorkflowID != "S1" || u.UpdateName != contract.UpdateSubscribe {
		t.Fatalf("update %+v", u)
	}
	if got := string(u.Args[0].(converter.RawValue).Payload().GetData()); got != `{"id":"hooks.example.com","url":"https://hooks.example.com/todos","events":["item_completed"],"secretName":"team"}` {
		t.Fatalf("sent %s", got)
	}
	if out := run(t, a, "subscribe", "S1", "--url", "https://hooks.example.com/todos", "--secret", "team", "--id", "x", "-o", "json"); out != result+"\n" {
		t.Fatalf("json: %s", out)
	}
	if out := run(t, a, "subscribers", "S1", "-o", "jsonl"); out != "" {
		t.Fatalf("jsonl of none: %q", out)
	}
	fc.queries[contract.QuerySubscribers] = "[" + strings.TrimPrefix(strings.TrimSuffix(result, "]"), "[") + `,{"id":"b","url":"http://b/","secretName":"s","pending":2,"oldestPendingSeq":7}]`
	lines := strings.Split(strings.TrimSuffix(run(t, a, "subscribers", "S1", "-o", "jsonl"), "\n"), "\n")
	if len(lines) != 2 || lines[1] != `{"id":"b","url":"http://b/","secretName":"s","pending":2,"oldestPendingSeq":7}` {
		t.Fatalf("jsonl: %q", lines)
	}
}

func TestSubscribeWithAMadeUpIDNeverReplacesAnotherURL(t *testing.T) {
	fc := &fakeClient{queries: map[string]string{contract.QuerySubscribers: `[{"id":"hooks.example.com","url":"https://hooks.example.com/other","secretName":"team","pending":0}]`}}
	a, out, errOut := testApp(fc)
	code := a.main(context.Background(), []string{"subscribe", "S1", "--url", "https://hooks.example.com/todos", "--secret", "team"})
	if code != 1 || out.Len() != 0 || len(fc.updates) != 0 ||
		errOut.String() != `client: session "S1" already has a webhook "hooks.example.com" (https://hooks.example.com/other): give --id to add another, or --id hooks.example.com to replace it`+"\n" {
		t.Fatalf("exit %d, %d updates, stderr %q", code, len(fc.updates), errOut)
	}
}

func TestRefusedSubscribePrintsTheSessionsMessage(t *testing.T) {
	msg := `subscriber team: webhook secret "other" is not configured on the worker (--webhook-secrets)`
	fc := &fakeClient{updateErr: errors.Join(temporal.GetDefaultFailureConverter().FailureToError(
		temporal.GetDefaultFailureConverter().ErrorToFailure(temporal.NewNonRetryableApplicationError(msg, notify.ErrTypeInvalidSubscriber, nil))))}
	a, out, errOut := testApp(fc)
	if code := a.main(context.Background(), []string{"subscribe", "S1", "--url", "https://x/", "--secret", "other", "--id", "team"}); code != 1 || out.Len() != 0 || errOut.String() != "Error: "+msg+"\n" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestSubscribeUsageErrorsNeverDial(t *testing.T) {
	cases := [][]string{
		{"subscribe"},
		{"subscribe", "S1", "--secret", "s"},
		{"subscribe", "S1", "--url", "https://x/"},
		{"subscribe", "S1", "S2", "--url", "https://x/", "--secret", "s"},
		{"unsubscribe", "S1"},
		{"subscribers"},
		{"start", "--subscribe", "https://x/"},
		{"start", "--subscribe-secret", "s"},
	}
	for _, args := range cases {
		a, out, errOut := testApp(nil)
		if code := a.main(context.Background(), args); code != 2 {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut)
		}
		if out.Len() != 0 {
			t.Errorf("%q: stdout %q", args, out)
		}
	}
}

func TestRenderSubscribers(t *testing.T) {
	subs := []workflows.SubscriberStatus{
		{Subscriber: notify.Subscriber{ID: "127.0.0.1-8399", URL: "http://127.0.0.1:8399/hook", SecretName: "demo"}},
		{Subscriber: notify.Subscriber{ID: "team", URL: "https://hooks.example.com/todos", SecretName: "team", Events: []notify.Kind{notify.ItemCompleted, notify.PlanFinished}, GiveUpAfter: "24h"}, Pending: 3, OldestPendingSeq: 12},
	}
	want := "ID              EVENTS                        PENDING  OLDEST  SECRET  GIVE UP  URL\n" +
		"127.0.0.1-8399  changed                       0        -       demo    1h0m0s   http://127.0.0.1:8399/hook\n" +
		"team            item_completed,plan_finished  3        seq 12  team    24h      https://hooks.example.com/todos\n"
	if got := renderSubscribers(subs, terminal{}); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	narrow := renderSubscribers(subs, terminal{tty: true, width: 90})
	for _, line := range strings.Split(strings.TrimSuffix(narrow, "\n"), "\n") {
		if w := runewidth.StringWidth(line); w > 90 {
			t.Errorf("%d columns: %q", w, line)
		}
	}
	if got := renderSubscribers(nil, terminal{}); got != "(no subscribers)\n" {
		t.Fatalf("none: %q", got)
	}
}
