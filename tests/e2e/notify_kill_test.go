package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

// TestNotificationSurvivesAWorkerKilledMidDelivery holds the first POST of
// a notification open, kills the worker binary (and the server inside it)
// while the receiver has it, and starts a new worker on the same data
// directory. The notification arrives again, with the same idempotency key,
// body and signature, and the session logs it delivered.
func TestNotificationSurvivesAWorkerKilledMidDelivery(t *testing.T) {
	t.Parallel()
	const secret = "kill-test-secret-0123456789"
	secrets := filepath.Join(t.TempDir(), "webhook-secrets")
	if err := os.WriteFile(secrets, []byte("# test\nhooks="+secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	type post struct{ key, sig, body string }
	var mu sync.Mutex
	var posts []post
	held, release := make(chan struct{}), make(chan struct{})
	var holdOnce sync.Once
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		posts = append(posts, post{r.Header.Get(notify.HeaderIdempotencyKey), r.Header.Get(notify.HeaderSignature), string(body)})
		first := len(posts) == 1
		mu.Unlock()
		if first {
			holdOnce.Do(func() { close(held) })
			<-release
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(rcv.Close)
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()

	cfg := newWorkerConfig(t)
	cfg.Env = []string{"AGENT_WEBHOOK_SECRETS=" + secrets}
	before := startWorker(t, "before-kill", cfg)
	c := dial(t, cfg.Frontend)
	id := "notify-kill"
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: contract.TaskQueue}, contract.WorkflowType,
		workflows.SessionInput{Subscribers: []notify.Subscriber{{ID: "hooks", URL: rcv.URL, SecretName: "hooks"}}}); err != nil {
		t.Fatal(err)
	}
	s := sessiontest.Session{T: t, C: c, ID: id}
	w := s.MustWrite("", todosJSON([]todo.Item{{Content: "Deploy", Status: todo.InProgress}}))

	select {
	case <-held:
	case <-time.After(time.Minute):
		t.Fatal("the notification never reached the receiver")
	}
	before.Kill()
	close(release)
	startWorker(t, "after-kill", cfg)

	key := notify.Key(id, w.Seq)
	sessiontest.WaitFor(t, 2*time.Minute, "the notification sent again", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(posts) >= 2
	})
	mu.Lock()
	first, again := posts[0], posts[1]
	mu.Unlock()
	if first.key != key || again != first {
		t.Fatalf("first attempt %+v\nafter the kill %+v\nwant both with key %s and the same body and signature", first, again, key)
	}
	if !notify.Verify([]byte(secret), []byte(again.body), again.sig) {
		t.Fatal("signature does not verify")
	}
	sessiontest.WaitFor(t, time.Minute, "notify/delivered in the log", func() bool {
		for _, e := range s.Log() {
			var d sessionlog.NotifyData
			if e.Type == sessionlog.NotifyDelivered && json.Unmarshal(e.Data, &d) == nil && d.Seq == w.Seq && d.Attempts >= 2 {
				return true
			}
		}
		return false
	})
}
