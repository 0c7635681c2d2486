package activities

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/notify"
)

func TestDeliverNotificationsStopsWhereARetryIsNeeded(t *testing.T) {
	w := testWebhooks(t)
	var mu sync.Mutex
	var keys []string
	answer := map[string]int{"s:2": http.StatusGone} // s:4 answers as told below
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		key := r.Header.Get(notify.HeaderIdempotencyKey)
		keys = append(keys, key)
		code, ok := answer[key]
		if !ok {
			code = http.StatusNoContent
		}
		if code == http.StatusServiceUnavailable {
			rw.Header().Set("Retry-After", "3")
		}
		rw.WriteHeader(code)
	}))
	defer srv.Close()
	var batch []notify.Notification
	for seq := int64(1); seq <= 5; seq++ {
		batch = append(batch, notify.Notification{ID: fmt.Sprintf("s:%d", seq), SessionID: "s", Seq: seq, Events: []notify.Kind{notify.Changed}})
	}

	// A retryable failure after progress ends the batch with what is done.
	answer["s:4"] = http.StatusServiceUnavailable
	res, err := w.DeliverNotifications(context.Background(), Batch{URL: srv.URL, SecretName: "k", Notifications: batch})
	if err != nil {
		t.Fatal(err)
	}
	want := []Outcome{{Seq: 1, Status: 204, Posts: 1}, {Seq: 2, Posts: 1, Error: "webhook answered 410 Gone"}, {Seq: 3, Status: 204, Posts: 1}}
	if !slices.Equal(res.Outcomes, want) {
		t.Fatalf("outcomes %+v, want %+v", res.Outcomes, want)
	}
	if st := res.Stopped; st == nil || st.Seq != 4 || st.Posts != 1 || st.Error != "webhook answered 503 Service Unavailable" || st.RetryAfter != 3*time.Second {
		t.Fatalf("stopped: %+v", res.Stopped)
	}

	// The next batch starts at the one that failed, counting its earlier
	// POST; while its first notification fails, the activity fails.
	res, err = w.DeliverNotifications(context.Background(), Batch{URL: srv.URL, SecretName: "k", Notifications: batch[3:], HeadPosts: 1})
	if err == nil || message(err) != "webhook answered 503 Service Unavailable" || nextRetryDelay(err) != 3*time.Second || len(res.Outcomes) != 0 {
		t.Fatalf("failing head: %+v, %v", res, err)
	}
	delete(answer, "s:4")
	res, err = w.DeliverNotifications(context.Background(), Batch{URL: srv.URL, SecretName: "k", Notifications: batch[3:], HeadPosts: 2})
	if err != nil || !slices.Equal(res.Outcomes, []Outcome{{Seq: 4, Status: 204, Posts: 3}, {Seq: 5, Status: 204, Posts: 1}}) || res.Stopped != nil {
		t.Fatalf("rest: %+v, %v", res, err)
	}
	if wantKeys := []string{"s:1", "s:2", "s:3", "s:4", "s:4", "s:4", "s:5"}; !slices.Equal(keys, wantKeys) {
		t.Fatalf("POSTs %v, want %v", keys, wantKeys)
	}

	// Without the secret nothing is sent, and each is given up saying why.
	res, err = w.DeliverNotifications(context.Background(), Batch{URL: srv.URL, SecretName: "missing", Notifications: batch[:2]})
	why := `webhook secret "missing" is not configured on this worker (--webhook-secrets)`
	if err != nil || !slices.Equal(res.Outcomes, []Outcome{{Seq: 1, Error: why}, {Seq: 2, Error: why}}) {
		t.Fatalf("missing secret: %+v, %v", res, err)
	}
}

// TestRecalledBatchReportsWhatItDelivered: a batch cancelled in the middle
// (its session is continuing as new) returns a cancellation that carries
// the outcomes so far, so the session records them instead of sending them
// again.
func TestRecalledBatchReportsWhatItDelivered(t *testing.T) {
	w := testWebhooks(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.Header.Get(notify.HeaderIdempotencyKey) == "s:3" {
			// The recall arrives while the third POST is out. (The
			// server notices the client going away once the body is read.)
			_, _ = io.Copy(io.Discard, r.Body)
			cancel()
			select {
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
			return
		}
		rw.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	var batch []notify.Notification
	for seq := int64(1); seq <= 5; seq++ {
		batch = append(batch, notify.Notification{ID: fmt.Sprintf("s:%d", seq), SessionID: "s", Seq: seq, Events: []notify.Kind{notify.Changed}})
	}
	_, err := w.DeliverNotifications(ctx, Batch{URL: srv.URL, SecretName: "k", Notifications: batch})
	var canceled *temporal.CanceledError
	if !errors.As(err, &canceled) {
		t.Fatalf("err %v, want a CanceledError", err)
	}
	var progress BatchProgress
	if err := canceled.Details(&progress); err != nil {
		t.Fatal(err)
	}
	want := []Outcome{{Seq: 1, Status: 204, Posts: 1}, {Seq: 2, Status: 204, Posts: 1}}
	if !slices.Equal(progress.Outcomes, want) || progress.HeadPosts != 1 {
		t.Fatalf("progress %+v, want outcomes %+v and the third's one POST", progress, want)
	}
}
