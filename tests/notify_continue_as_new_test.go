package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo/todotest"
	"github.com/durabletodos/agenttodos/workflows"
)

// TestNotificationsCrossContinueAsNew: concurrent updates and signals keep
// a session continuing as new while its only subscriber is down, so
// notifications are queued, in flight and carried at every hand-over. Once
// the receiver is up, it has every accepted change, in seq order, each under
// its own key (a re-sent one under the same key), and nothing else.
func TestNotificationsCrossContinueAsNew(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{secrets: testSecrets(t)})
	var open atomic.Bool
	rcv := newWebhookReceiver(t, func(receivedPost) int {
		if !open.Load() {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	id := uniqueID("notify-continue-as-new")
	h.start(id, workflows.SessionInput{
		ContinueAsNewAfterEvents: 40,
		Subscribers:              []notify.Subscriber{{ID: "all", URL: rcv.url(), SecretName: "test"}},
	})

	const writers, writes, signals = 3, 8, 8
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range writes {
				h.on(id).MustWrite(fmt.Sprintf("w-%d-%d", g, i), todotest.OneItem(fmt.Sprintf("update %d.%d", g, i)))
			}
		})
	}
	wg.Go(func() {
		for i := range signals {
			h.on(id).Signal(contract.SignalTodoWrite, json.RawMessage(todotest.OneItem(fmt.Sprintf("signal %d", i))))
			time.Sleep(20 * time.Millisecond)
		}
	})
	wg.Wait()
	total := writers*writes + signals
	s := h.on(id)
	sessiontest.WaitFor(t, time.Minute, "every write applied", func() bool { return len(s.AllHistory()) == total })

	carried := 0
	for _, in := range s.RunInputs() {
		if in.Carry != nil && len(in.Carry.Subscribers) == 1 {
			carried += len(in.Carry.Subscribers[0].Pending)
		}
	}
	if runs := len(s.RunInputs()); runs < 3 || carried == 0 {
		t.Fatalf("%d runs carried %d pending notifications: the test must hand queued ones over", runs, carried)
	}

	open.Store(true)
	got := rcv.waitDelivered(total, 3*time.Minute)
	want := map[string]bool{}
	for _, sn := range s.AllHistory() {
		want[notify.Key(id, sn.Seq)] = true
	}
	for i, p := range got {
		if !want[p.Key] || !p.SigOK {
			t.Errorf("delivery %s (signature ok: %v) is not an accepted change", p.Key, p.SigOK)
		}
		if i > 0 && p.Note.Seq <= got[i-1].Note.Seq {
			t.Errorf("seq %d delivered after seq %d", p.Note.Seq, got[i-1].Note.Seq)
		}
	}
	if len(got) != total {
		t.Fatalf("%d distinct notifications for %d accepted changes", len(got), total)
	}
	// Nothing is pending, and nothing was given up.
	sessiontest.WaitFor(t, 30*time.Second, "empty queue", func() bool { return s.Subscribers()[0].Pending == 0 })
	if _, g := notifyEvents(s); len(g) != 0 {
		t.Fatalf("given up: %+v", g)
	}
	// (No AssertNoFailedTasks: a signal that lands while the session
	// decides to continue as new fails that task with UnhandledCommand,
	// which is how the server hands the signal back to be taken first.)
	h.replay(id)
}

// TestHandOverLetsTheBatchInFlightAnswer: back-to-back writes keep a session
// continuing as new while batches go to a healthy receiver, so hand-overs
// land while a batch is out and in the very workflow task that takes its
// answer. Every accepted change reaches the receiver exactly once: a run
// hands over only after its batch answered, and carries only what is still
// to send.
func TestHandOverLetsTheBatchInFlightAnswer(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{secrets: testSecrets(t)})
	// A receiver that takes its time keeps batches out long enough for
	// hand-overs to meet them.
	rcv := newWebhookReceiver(t, func(receivedPost) int {
		time.Sleep(20 * time.Millisecond)
		return http.StatusNoContent
	})
	id := uniqueID("notify-handover")
	h.start(id, workflows.SessionInput{
		ContinueAsNewAfterEvents: 40,
		Subscribers:              []notify.Subscriber{{ID: "all", URL: rcv.url(), SecretName: "test"}},
	})
	const writers, writes = 3, 40
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range writes {
				h.on(id).MustWrite(fmt.Sprintf("w-%d-%d", g, i), todotest.OneItem(fmt.Sprintf("update %d.%d", g, i)))
			}
		})
	}
	wg.Wait()
	total := writers * writes
	s := h.on(id)
	got := rcv.waitDelivered(total, 2*time.Minute)
	sessiontest.WaitFor(t, 30*time.Second, "empty queue", func() bool { return s.Subscribers()[0].Pending == 0 })

	// How many hand-overs had a batch out: those recalled it.
	runs, recalled := 0, 0
	s.Runs(func(_ string, hist *historypb.History) {
		runs++
		for _, e := range hist.GetEvents() {
			if e.GetEventType() == enumspb.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED {
				recalled++
			}
		}
	})
	if runs < 4 || recalled == 0 {
		t.Fatalf("%d runs, %d recalled a batch: the test must hand over several times, with batches out", runs, recalled)
	}
	for i, p := range got {
		if i > 0 && p.Note.Seq <= got[i-1].Note.Seq {
			t.Errorf("seq %d delivered after seq %d", p.Note.Seq, got[i-1].Note.Seq)
		}
	}
	posts := map[string]int{}
	for _, p := range rcv.all() {
		posts[p.Key]++
	}
	for key, n := range posts {
		if n != 1 {
			t.Errorf("%s was POSTed %d times", key, n)
		}
	}
	if len(got) != total || len(posts) != total {
		t.Fatalf("%d distinct notifications (%d keys) for %d accepted changes", len(got), len(posts), total)
	}
	t.Logf("%d changes, %d runs (%d hand-overs recalled a batch), %d POSTs", total, runs, recalled, len(rcv.all()))
	h.replay(id)
}
