package tests

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

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
