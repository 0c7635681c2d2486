package activities

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/notify"
)

func TestDeliverNotificationAnswers(t *testing.T) {
	w := testWebhooks(t)
	var lastSig, lastKey, lastBody string
	status, retryAfter := 0, ""
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		lastBody, lastSig, lastKey = string(b), r.Header.Get(notify.HeaderSignature), r.Header.Get(notify.HeaderIdempotencyKey)
		if retryAfter != "" {
			rw.Header().Set("Retry-After", retryAfter)
		}
		if status == http.StatusFound {
			rw.Header().Set("Location", "http://example.com/elsewhere")
		}
		rw.WriteHeader(status)
	}))
	defer srv.Close()
	d := Delivery{URL: srv.URL + "/hook?token=abc", SecretName: "k", Notification: notify.Notification{ID: "s:3", SessionID: "s", Seq: 3, Events: []notify.Kind{notify.Changed}}}

	status = http.StatusAccepted
	res, err := w.DeliverNotification(context.Background(), d)
	if err != nil || res.Status != http.StatusAccepted {
		t.Fatalf("202: %+v %v", res, err)
	}
	if lastKey != "s:3" || !notify.Verify([]byte("0123456789abcdef-key"), []byte(lastBody), lastSig) {
		t.Fatalf("key %q, signature %q over %s", lastKey, lastSig, lastBody)
	}

	for _, c := range []struct {
		status      int
		retryAfter  string
		retryable   bool
		nextRetry   time.Duration
		wantMessage string
	}{
		{http.StatusServiceUnavailable, "", true, 0, "webhook answered 503 Service Unavailable"},
		{http.StatusTooManyRequests, "7", true, 7 * time.Second, "webhook answered 429 Too Many Requests"},
		{http.StatusTooManyRequests, "86400", true, maxRetryAfter, "webhook answered 429 Too Many Requests"},
		{http.StatusUnauthorized, "", false, 0, "webhook answered 401 Unauthorized"},
		{http.StatusGone, "", false, 0, "webhook answered 410 Gone"},
		{http.StatusFound, "", false, 0, "webhook answered 302 Found"},
	} {
		status, retryAfter = c.status, c.retryAfter
		_, err := w.DeliverNotification(context.Background(), d)
		var app *temporal.ApplicationError
		if !errors.As(err, &app) || app.Message() != c.wantMessage || app.NonRetryable() == c.retryable || app.NextRetryDelay() != c.nextRetry {
			t.Errorf("%d: %v (next retry %v)", c.status, err, app.NextRetryDelay())
		}
	}
	retryAfter = ""

	// No answer at all: retryable, and the error does not repeat the URL
	// (its query can hold a token, and the error is kept in history).
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := "http://" + l.Addr().String() + "/hook?token=abc"
	l.Close()
	_, err = w.DeliverNotification(context.Background(), Delivery{URL: dead, SecretName: "k", Notification: d.Notification})
	var app *temporal.ApplicationError
	if !errors.As(err, &app) || app.NonRetryable() || app.Type() != ErrTypeWebhookTransport || strings.Contains(app.Message(), "token") {
		t.Fatalf("dead receiver: %v", err)
	}

	_, err = w.DeliverNotification(context.Background(), Delivery{URL: srv.URL, SecretName: "missing", Notification: d.Notification})
	if !errors.As(err, &app) || !app.NonRetryable() || app.Message() != `webhook secret "missing" is not configured on this worker (--webhook-secrets)` {
		t.Fatalf("missing secret: %v", err)
	}
}

// testWebhooks is a Webhooks activity whose only secret, "k", signs every
// test delivery.
func testWebhooks(t *testing.T) *Webhooks {
	t.Helper()
	secrets, err := notify.NewSecrets(map[string]string{"k": "0123456789abcdef-key"})
	if err != nil {
		t.Fatal(err)
	}
	return &Webhooks{Secrets: secrets}
}
