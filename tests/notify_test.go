package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

// listArgs is todo_write arguments from plan's "status:content" items.
func listArgs(items ...string) string { return writeArgs(plan(items...)) }

// notifyEvents is the session log's notify/* events.
func notifyEvents(s sessiontest.Session) (delivered, givenUp []sessionlog.NotifyData) {
	for _, e := range s.Log() {
		var d sessionlog.NotifyData
		switch e.Type {
		case sessionlog.NotifyDelivered:
			_ = json.Unmarshal(e.Data, &d)
			delivered = append(delivered, d)
		case sessionlog.NotifyGivenUp:
			_ = json.Unmarshal(e.Data, &d)
			givenUp = append(givenUp, d)
		}
	}
	return delivered, givenUp
}

func TestNotificationsAreSignedFilteredAndInOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{secrets: testSecrets(t)})
	all := newWebhookReceiver(t, nil)
	done := newWebhookReceiver(t, nil)
	id := uniqueID("notify-filter")
	// One subscriber from the start, one added by an update.
	h.start(id, workflows.SessionInput{Subscribers: []notify.Subscriber{{ID: "all", URL: all.url(), SecretName: "test"}}})
	s := h.on(id)
	s.As = "alice"
	if _, err := s.Subscribe(notify.Subscriber{ID: "done", URL: done.url(), SecretName: "test", Events: []notify.Kind{notify.ItemCompleted, notify.PlanFinished}}); err != nil {
		t.Fatal(err)
	}
	w1 := s.MustWrite("", listArgs("in_progress:Write the test", "pending:Fix the bug"))
	s.MustWrite("", listArgs("in_progress:Write the test", "pending:Fix the bug")) // the same list: no change
	w3 := s.MustWrite("", listArgs("completed:Write the test", "in_progress:Fix the bug"))
	w4 := s.MustWrite("", listArgs("completed:Write the test", "completed:Fix the bug"))

	got := all.waitDelivered(3, time.Minute)
	if len(got) != 3 {
		t.Fatalf("all: %d deliveries, want 3 (the repeated list changes nothing)", len(got))
	}
	wantKinds := [][]notify.Kind{
		{notify.Changed, notify.ItemStarted, notify.ChangedOutside},
		{notify.Changed, notify.ItemStarted, notify.ItemCompleted, notify.ChangedOutside},
		{notify.Changed, notify.ItemCompleted, notify.PlanFinished, notify.ChangedOutside},
	}
	for i, w := range []todo.WriteResult{w1, w3, w4} {
		p := got[i]
		if !p.SigOK {
			t.Errorf("delivery %d: signature does not verify", i)
		}
		if want := fmt.Sprintf("%s:%d", id, w.Seq); p.Key != want || p.Note.ID != want {
			t.Errorf("delivery %d: key %q, body id %q, want %q", i, p.Key, p.Note.ID, want)
		}
		if !slices.Equal(p.Note.Events, wantKinds[i]) {
			t.Errorf("delivery %d: events %v, want %v", i, p.Note.Events, wantKinds[i])
		}
		if p.Note.Counts != w.Counts || p.Note.Source.By != "alice" || p.Note.SessionID != id || p.Note.Change == nil {
			t.Errorf("delivery %d: %s", i, p.Body)
		}
	}
	if c := got[1].Note.Change; len(c.Status) != 2 || c.Status[0] != (todo.StatusChange{Content: "Write the test", From: todo.InProgress, To: todo.Completed}) {
		t.Errorf("change record of seq %d: %+v", w3.Seq, c)
	}
	if got[1].Note.PreviousSeq != w1.Seq+1 && got[1].Note.PreviousSeq <= w1.Seq {
		t.Errorf("previousSeq %d", got[1].Note.PreviousSeq)
	}

	// The filtered subscriber hears of completions and the finish only.
	fin := done.waitDelivered(2, time.Minute)
	if len(fin) != 2 || fin[0].Note.Seq != w3.Seq || fin[1].Note.Seq != w4.Seq || fin[1].Event != "changed,item_completed,plan_finished,changed_outside" {
		t.Fatalf("filtered deliveries: %+v", fin)
	}
	sessiontest.WaitFor(t, 30*time.Second, "delivered events in the log", func() bool {
		d, _ := notifyEvents(s)
		return len(d) == 5
	})
	for _, st := range s.Subscribers() {
		if st.Pending != 0 {
			t.Errorf("subscriber %s still has %d pending", st.ID, st.Pending)
		}
	}
	h.replay(id)
}

func TestNotificationsAreRetriedUntilTheReceiverAnswers(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{secrets: testSecrets(t)})
	// This receiver fails the first two attempts of every notification.
	flaky := newWebhookReceiver(t, failsFirst(2))
	// This one is down until the test brings it up.
	down, downURL := newDownWebhookReceiver(t)
	id := uniqueID("notify-retry")
	h.start(id, workflows.SessionInput{Subscribers: []notify.Subscriber{
		{ID: "flaky", URL: flaky.url(), SecretName: "test"},
		{ID: "down", URL: downURL, SecretName: "test"},
	}})
	s := h.on(id)
	var seqs []int64
	for i := range 3 {
		// The writes do not wait for any delivery.
		seqs = append(seqs, s.MustWrite("", listArgs(fmt.Sprintf("in_progress:Step %d", i))).Seq)
	}
	got := flaky.waitDelivered(3, 2*time.Minute)
	for i, p := range got {
		if p.Note.Seq != seqs[i] {
			t.Fatalf("flaky receiver got seq %d at %d, want %d", p.Note.Seq, i, seqs[i])
		}
	}
	// Every attempt carried the same body, signature and key.
	bodies := map[string]string{}
	for _, p := range flaky.all() {
		if !p.SigOK {
			t.Errorf("attempt %d of %s: bad signature", p.Attempted, p.Key)
		}
		if b, ok := bodies[p.Key]; ok && b != string(p.Body) {
			t.Errorf("attempts of %s sent different bodies", p.Key)
		}
		bodies[p.Key] = string(p.Body)
	}
	sub := s.Subscribers()
	if sub[1].ID != "down" || sub[1].Pending != 3 || sub[1].OldestPendingSeq != seqs[0] {
		t.Fatalf("while down: %+v", sub[1])
	}
	down.up(downURL)
	late := down.waitDelivered(3, 2*time.Minute)
	for i, p := range late {
		if p.Note.Seq != seqs[i] || !p.SigOK {
			t.Fatalf("receiver that was down got seq %d at %d (signature ok: %v), want %d", p.Note.Seq, i, p.SigOK, seqs[i])
		}
	}
	sessiontest.WaitFor(t, 30*time.Second, "delivered events", func() bool {
		d, _ := notifyEvents(s)
		return len(d) == 6
	})
	d, g := notifyEvents(s)
	if len(g) != 0 {
		t.Fatalf("given up: %+v", g)
	}
	for _, e := range d {
		if e.Subscriber == "flaky" && (e.Attempts != 3 || e.Status != http.StatusNoContent) {
			t.Errorf("flaky delivery logged as %+v, want 3 attempts and 204", e)
		}
		// Only the first waited for the receiver: the others queued behind it.
		if e.Subscriber == "down" && (e.Seq == seqs[0]) != (e.Attempts > 1) {
			t.Errorf("down delivery logged as %+v", e)
		}
	}
}

func TestNotificationsAreGivenUpAndTheSessionGoesOn(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{secrets: testSecrets(t)})
	refusing := newWebhookReceiver(t, func(receivedPost) int { return http.StatusUnauthorized })
	_, deadURL := newDownWebhookReceiver(t)
	id := uniqueID("notify-give-up")
	h.start(id, workflows.SessionInput{Subscribers: []notify.Subscriber{
		{ID: "refusing", URL: refusing.url(), SecretName: "test"},
		{ID: "dead", URL: deadURL, SecretName: "test", GiveUpAfter: "3s"},
		{ID: "unknown-secret", URL: refusing.url(), SecretName: "not-on-this-worker"},
	}})
	s := h.on(id)
	w := s.MustWrite("", listArgs("in_progress:Ship it"))
	sessiontest.WaitFor(t, time.Minute, "three given up", func() bool {
		_, g := notifyEvents(s)
		return len(g) == 3
	})
	_, g := notifyEvents(s)
	why := map[string]string{}
	for _, e := range g {
		if e.Seq != w.Seq {
			t.Errorf("given up seq %d, want %d", e.Seq, w.Seq)
		}
		why[e.Subscriber] = e.Error
	}
	if why["refusing"] != "webhook answered 401 Unauthorized" {
		t.Errorf("refusing: %q", why["refusing"])
	}
	if !strings.HasPrefix(why["dead"], "retried until giveUpAfter passed; last attempt: ") || !strings.Contains(why["dead"], "connection refused") {
		t.Errorf("dead: %q", why["dead"])
	}
	if why["unknown-secret"] != `webhook secret "not-on-this-worker" is not configured on this worker (--webhook-secrets)` {
		t.Errorf("unknown-secret: %q", why["unknown-secret"])
	}
	if n := len(refusing.all()); n != 1 {
		t.Errorf("a 401 was retried: %d POSTs", n)
	}
	if st := s.Todos(); st.Seq != w.Seq {
		t.Fatalf("plan at seq %d, want %d", st.Seq, w.Seq)
	}
	s.MustWrite("", listArgs("completed:Ship it"))
	h.replay(id)
}

func TestSubscribeContract(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{secrets: testSecrets(t)})
	id := uniqueID("notify-contract")
	h.start(id, workflows.SessionInput{})
	s := h.on(id)
	ok := notify.Subscriber{ID: "team", URL: "https://hooks.example.com/todos?token=x", SecretName: "test"}
	cases := []struct {
		sub  notify.Subscriber
		want string
	}{
		{notify.Subscriber{ID: "", URL: ok.URL, SecretName: "test"}, "subscriber id must be 1 to 64 letters, digits, '.', '_' or '-'"},
		{notify.Subscriber{ID: "a b", URL: ok.URL, SecretName: "test"}, "subscriber id must be 1 to 64 letters, digits, '.', '_' or '-'"},
		{notify.Subscriber{ID: "team", URL: "ftp://x/y", SecretName: "test"}, "subscriber team: url must be an absolute http or https URL without credentials, of at most 2048 bytes"},
		{notify.Subscriber{ID: "team", URL: "https://user:pw@x/y", SecretName: "test"}, "subscriber team: url must be an absolute http or https URL without credentials, of at most 2048 bytes"},
		{notify.Subscriber{ID: "team", URL: "/relative", SecretName: "test"}, "subscriber team: url must be an absolute http or https URL without credentials, of at most 2048 bytes"},
		{notify.Subscriber{ID: "team", URL: ok.URL, SecretName: "test", Events: []notify.Kind{"done"}}, `subscriber team: unknown event "done": use changed, item_started, item_completed, plan_finished or changed_outside`},
		{notify.Subscriber{ID: "team", URL: ok.URL}, "subscriber team: secretName must name a secret of the worker's webhook secrets file (1 to 64 letters, digits, '.', '_' or '-')"},
		{notify.Subscriber{ID: "team", URL: ok.URL, SecretName: "other"}, `subscriber team: webhook secret "other" is not configured on the worker (--webhook-secrets)`},
		{notify.Subscriber{ID: "team", URL: ok.URL, SecretName: "test", GiveUpAfter: "forever"}, `subscriber team: giveUpAfter must be a duration between 1s and 72h0m0s (got "forever")`},
		{notify.Subscriber{ID: "team", URL: ok.URL, SecretName: "test", GiveUpAfter: "100h"}, `subscriber team: giveUpAfter must be a duration between 1s and 72h0m0s (got "100h")`},
	}
	for _, c := range cases {
		_, err := s.Subscribe(c.sub)
		if refusal(err) != c.want {
			t.Errorf("subscribe %+v: %v\nwant %s", c.sub, err, c.want)
		}
	}
	for i := range notify.MaxSubscribers {
		sub := ok
		sub.ID = fmt.Sprintf("s%d", i)
		if _, err := s.Subscribe(sub); err != nil {
			t.Fatal(err)
		}
	}
	extra := ok
	if _, err := s.Subscribe(extra); refusal(err) != "a session has at most 16 subscribers" {
		t.Errorf("17th subscriber: %v", err)
	}
	// Subscribing again with an ID replaces that subscriber.
	again := ok
	again.ID, again.Events = "s3", []notify.Kind{notify.PlanFinished}
	subs, err := s.Subscribe(again)
	if err != nil || len(subs) != notify.MaxSubscribers || !slices.Equal(subs[3].Events, again.Events) {
		t.Fatalf("replace: %v %+v", err, subs)
	}
	if _, err := s.Unsubscribe("nobody"); refusal(err) != `no subscriber "nobody"` {
		t.Errorf("unsubscribe nobody: %v", err)
	}
	subs, err = s.Unsubscribe("s0")
	if err != nil || len(subs) != notify.MaxSubscribers-1 || subs[0].ID != "s1" {
		t.Fatalf("unsubscribe: %v %+v", err, subs)
	}
	// Refused subscribes recorded nothing, and the session still writes.
	if got := len(s.Subscribers()); got != notify.MaxSubscribers-1 {
		t.Fatalf("%d subscribers", got)
	}
	s.MustWrite("", listArgs("pending:Still here"))
	h.replay(id)

	// A session whose input names a bad subscriber does not start.
	bad := uniqueID("notify-bad-input")
	run := h.start(bad, workflows.SessionInput{Subscribers: []notify.Subscriber{{ID: "x", URL: "nope", SecretName: "test"}}})
	err = run.Get(h.ctx(), nil)
	if err == nil || !strings.Contains(err.Error(), "invalid session input: subscriber x: url must be") {
		t.Fatalf("bad input: %v", err)
	}
}

// refusal is an update's rejection as its sender reads it: the message of
// the InvalidSubscriber error.
func refusal(err error) string {
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != notify.ErrTypeInvalidSubscriber {
		return fmt.Sprintf("not a refusal: %v", err)
	}
	return appErr.Message()
}

// TestCancelledSessionDeliversWhatItAccepted: a session cancelled right
// after a write still delivers that write's notification (its receiver
// fails the first attempt) before it ends; an unsubscribed receiver's
// pending ones are given up, not sent.
func TestCancelledSessionDeliversWhatItAccepted(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{secrets: testSecrets(t)})
	slow := newWebhookReceiver(t, func(p receivedPost) int {
		if p.Attempted == 1 {
			return http.StatusBadGateway
		}
		return http.StatusOK
	})
	_, deadURL := newDownWebhookReceiver(t)
	id := uniqueID("notify-cancel")
	run := h.start(id, workflows.SessionInput{Subscribers: []notify.Subscriber{
		{ID: "slow", URL: slow.url(), SecretName: "test"},
		{ID: "gone", URL: deadURL, SecretName: "test"},
	}})
	s := h.on(id)
	w := s.MustWrite("", listArgs("in_progress:Last step"))
	if _, err := s.Unsubscribe("gone"); err != nil {
		t.Fatal(err)
	}
	if err := h.c.CancelWorkflow(h.ctx(), id, ""); err != nil {
		t.Fatal(err)
	}
	if err := run.Get(h.ctx(), nil); !temporal.IsCanceledError(err) {
		t.Fatalf("session ended with %v", err)
	}
	got := slow.delivered()
	if len(got) != 1 || got[0].Note.Seq != w.Seq {
		t.Fatalf("delivered before the end: %+v", got)
	}
	d, g := notifyEvents(s)
	if len(d) != 1 || d[0].Subscriber != "slow" || len(g) != 1 || g[0].Subscriber != "gone" || g[0].Error != "unsubscribed" {
		t.Fatalf("log: delivered %+v, given up %+v", d, g)
	}
	h.replay(id)
}

// TestOutboxIsBoundedWhileAReceiverIsDown: a receiver that stays down while
// big changes pile up keeps the session's outbox within its budget: the
// oldest waiting notifications are given up ("outbox full"), never the
// newest, and the rest arrive in order once it is back.
func TestOutboxIsBoundedWhileAReceiverIsDown(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{secrets: testSecrets(t)})
	down, url := newDownWebhookReceiver(t)
	id := uniqueID("notify-outbox")
	h.start(id, workflows.SessionInput{Subscribers: []notify.Subscriber{{ID: "down", URL: url, SecretName: "test"}}})
	s := h.on(id)
	// Each write replaces a 3.5 KB item with another: a change record of
	// about 7 KB, so 40 of them are more than the 192 KiB outbox.
	const writes = 40
	var seqs []int64
	for i := range writes {
		content := fmt.Sprintf("%03d %s", i, strings.Repeat("x", 3500))
		seqs = append(seqs, s.MustWrite("", listArgs("pending:"+content)).Seq)
	}
	_, g := notifyEvents(s)
	if len(g) == 0 {
		t.Fatalf("%d big changes queued and none given up: the outbox is unbounded", writes)
	}
	for i, e := range g {
		if e.Error != "outbox full: the subscriber fell too far behind" || e.Seq != seqs[i+1] {
			t.Fatalf("given up %+v, want the oldest waiting ones (after the one in flight, seq %d) for a full outbox", e, seqs[0])
		}
	}
	st := s.Subscribers()[0]
	if st.Pending != writes-len(g) {
		t.Fatalf("%d pending and %d given up of %d", st.Pending, len(g), writes)
	}
	down.up(url)
	got := down.waitDelivered(st.Pending, 2*time.Minute)
	for i, p := range got {
		if i > 0 && p.Note.Seq <= got[i-1].Note.Seq {
			t.Fatalf("seq %d after %d", p.Note.Seq, got[i-1].Note.Seq)
		}
	}
	if got[len(got)-1].Note.Seq != seqs[writes-1] {
		t.Fatalf("the newest change (seq %d) was not delivered last: %d", seqs[writes-1], got[len(got)-1].Note.Seq)
	}
	h.replay(id)
}

// TestBurstOfWritesIsDeliveredInBatches: back-to-back writes are each told
// to the subscriber, once, in order, by a few DeliverNotifications
// activities rather than one per change, so that deliveries' results do not
// keep interrupting the writes (see BENCHMARKS.md).
func TestBurstOfWritesIsDeliveredInBatches(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{secrets: testSecrets(t)})
	rcv := newWebhookReceiver(t, nil)
	id := uniqueID("notify-batch")
	h.start(id, workflows.SessionInput{Subscribers: []notify.Subscriber{{ID: "all", URL: rcv.url(), SecretName: "test"}}})
	s := h.on(id)
	const writes = 30
	var seqs []int64
	began := time.Now()
	for i := range writes {
		seqs = append(seqs, s.MustWrite("", listArgs(fmt.Sprintf("in_progress:Step %d", i))).Seq)
	}
	got := rcv.waitDelivered(writes, time.Minute)
	for i, p := range got {
		if p.Note.Seq != seqs[i] || !p.SigOK {
			t.Fatalf("delivery %d: seq %d (signature ok: %v), want %d", i, p.Note.Seq, p.SigOK, seqs[i])
		}
	}
	if n := len(rcv.all()); n != writes {
		t.Errorf("%d POSTs for %d changes", n, writes)
	}
	sessiontest.WaitFor(t, 30*time.Second, "delivered events in the log", func() bool {
		d, _ := notifyEvents(s)
		return len(d) == writes
	})
	took := time.Since(began)
	batches := 0
	for _, e := range s.FetchHistory("").GetEvents() {
		if a := e.GetActivityTaskScheduledEventAttributes(); a != nil && a.GetActivityType().GetName() == contract.ActivityDeliverNotifications {
			batches++
		}
	}
	// The first change goes at once; what follows within a second waits
	// for the next batch: at most one batch starts per second, however
	// slow the machine makes the writes.
	if limit := 1 + int(took/time.Second); batches == 0 || batches > limit || batches >= writes {
		t.Errorf("%d DeliverNotifications activities for %d back-to-back changes in %s (at most %d)", batches, writes, took.Round(time.Millisecond), limit)
	}
	t.Logf("%d changes delivered by %d activities in %s", writes, batches, took.Round(time.Millisecond))
	h.replay(id)
}
