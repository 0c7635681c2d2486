package tests

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/durabletodos/agenttodos/embedded"
	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
)

// receivedPost is one POST a webhook receiver got, whatever it answered.
type receivedPost struct {
	Key       string
	Event     string
	SigOK     bool
	Body      []byte
	Note      notify.Notification
	Answered  int
	Attempted int // the how-manieth POST with this key
}

// webhookReceiver is a real HTTP server that checks signatures like a
// production receiver would; answer decides each POST's status.
type webhookReceiver struct {
	t      testing.TB
	srv    *httptest.Server
	secret []byte
	answer func(p receivedPost) int

	mu    sync.Mutex
	posts []receivedPost
	tries map[string]int
}

const testWebhookSecret = "a-long-enough-test-secret"

func newWebhookReceiver(t testing.TB, answer func(p receivedPost) int) *webhookReceiver {
	r := &webhookReceiver{t: t, secret: []byte(testWebhookSecret), answer: answer, tries: map[string]int{}}
	if r.answer == nil {
		r.answer = func(receivedPost) int { return http.StatusOK }
	}
	r.srv = httptest.NewUnstartedServer(http.HandlerFunc(r.serve))
	r.srv.Start()
	t.Cleanup(r.srv.Close)
	return r
}

// newDownWebhookReceiver reserves an address nobody answers on yet; start
// it with up.
func newDownWebhookReceiver(t testing.TB) (*webhookReceiver, string) {
	addr, err := embedded.FreeAddress("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	r := &webhookReceiver{t: t, secret: []byte(testWebhookSecret), answer: func(receivedPost) int { return http.StatusOK }, tries: map[string]int{}}
	return r, "http://" + addr + "/hook"
}

// up starts a down receiver on its reserved address.
func (r *webhookReceiver) up(url string) {
	addr := url[len("http://") : len(url)-len("/hook")]
	l, err := net.Listen("tcp", addr)
	if err != nil {
		r.t.Fatal(err)
	}
	r.srv = &httptest.Server{Listener: l, Config: &http.Server{Handler: http.HandlerFunc(r.serve)}}
	r.srv.Start()
	r.t.Cleanup(r.srv.Close)
}

func (r *webhookReceiver) url() string { return r.srv.URL + "/hook" }

func (r *webhookReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	p := receivedPost{
		Key:   req.Header.Get(notify.HeaderIdempotencyKey),
		Event: req.Header.Get(notify.HeaderEvent),
		SigOK: notify.Verify(r.secret, body, req.Header.Get(notify.HeaderSignature)),
		Body:  body,
	}
	if err := json.Unmarshal(body, &p.Note); err != nil {
		r.t.Errorf("webhook body is not a notification: %v: %s", err, body)
	}
	r.mu.Lock()
	r.tries[p.Key]++
	p.Attempted = r.tries[p.Key]
	r.mu.Unlock()
	p.Answered = r.answer(p)
	r.mu.Lock()
	r.posts = append(r.posts, p)
	r.mu.Unlock()
	w.WriteHeader(p.Answered)
}

// all is every POST so far.
func (r *webhookReceiver) all() []receivedPost {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]receivedPost(nil), r.posts...)
}

// delivered is the notifications answered 2xx, first of each key, in
// arrival order.
func (r *webhookReceiver) delivered() []receivedPost {
	var out []receivedPost
	seen := map[string]bool{}
	for _, p := range r.all() {
		if p.Answered/100 == 2 && !seen[p.Key] {
			seen[p.Key] = true
			out = append(out, p)
		}
	}
	return out
}

// waitDelivered waits until n distinct notifications were delivered.
func (r *webhookReceiver) waitDelivered(n int, within time.Duration) []receivedPost {
	r.t.Helper()
	sessiontest.WaitFor(r.t, within, "webhook deliveries", func() bool { return len(r.delivered()) >= n })
	return r.delivered()
}

// testSecrets are the worker's secrets in these tests.
func testSecrets(t testing.TB) *notify.Secrets {
	s, err := notify.NewSecrets(map[string]string{"test": testWebhookSecret})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// failsFirst answers 503 to the first n attempts of every notification and
// 204 after: a receiver that is briefly overloaded.
func failsFirst(n int) func(receivedPost) int {
	return func(p receivedPost) int {
		if p.Attempted <= n {
			return http.StatusServiceUnavailable
		}
		return http.StatusNoContent
	}
}
