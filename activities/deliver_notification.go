package activities

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/notify"
)

// Delivery is the input of DeliverNotification: where to send one
// notification and the name of the key that signs it.
type Delivery struct {
	URL          string              `json:"url"`
	SecretName   string              `json:"secretName"`
	Notification notify.Notification `json:"notification"`
}

// Delivered is what a successful delivery reports.
type Delivered struct {
	Status  int   `json:"status"`
	Attempt int32 `json:"attempt"`
}

// Error types of a delivery that fails. Retryable ones are retried with the
// workflow's backoff until the subscriber's giveUpAfter; the others give up
// at once.
const (
	ErrTypeWebhookStatus    = "WebhookStatus"    // a 408, 425, 429 or 5xx answer
	ErrTypeWebhookRejected  = "WebhookRejected"  // any other answer but 2xx
	ErrTypeWebhookNoSecret  = "WebhookNoSecret"  // the worker lacks the secret
	ErrTypeWebhookTransport = "WebhookTransport" // no answer: refused, reset, timed out
)

// WebhookTimeout bounds one POST, answer included.
const WebhookTimeout = 10 * time.Second

// maxRetryAfter caps how long a receiver's Retry-After may defer the next
// attempt.
const maxRetryAfter = 5 * time.Minute

// Webhooks delivers notifications; one value serves every session of a worker.
type Webhooks struct {
	Secrets *notify.Secrets
	// Client sends the POSTs; nil means a client that follows no redirect
	// (a redirect is an answer, not a delivery) and times out after
	// WebhookTimeout.
	Client *http.Client
}

var defaultWebhookClient = &http.Client{
	Timeout:       WebhookTimeout,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// DeliverNotification POSTs one notification, signed, with its idempotency
// key. Every attempt sends the same body, signature and key, so a receiver
// that saw the key already can answer 2xx and drop it. Sessions started
// before batched deliveries still run it; newer ones use
// DeliverNotifications.
func (w *Webhooks) DeliverNotification(ctx context.Context, d Delivery) (Delivered, error) {
	secret, err := w.secret(d.SecretName)
	if err != nil {
		return Delivered{}, err
	}
	status, err := w.post(ctx, d.URL, secret, d.Notification)
	if err != nil {
		return Delivered{}, err
	}
	attempt := int32(1)
	if activity.IsActivity(ctx) {
		attempt = activity.GetInfo(ctx).Attempt
	}
	return Delivered{Status: status, Attempt: attempt}, nil
}

func (w *Webhooks) secret(name string) ([]byte, error) {
	secret, ok := w.Secrets.Lookup(name)
	if !ok {
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("webhook secret %q is not configured on this worker (--webhook-secrets)", name), ErrTypeWebhookNoSecret, nil)
	}
	return secret, nil
}

// post sends one notification and returns the receiver's 2xx status, or an
// ApplicationError that says whether another attempt could succeed.
func (w *Webhooks) post(ctx context.Context, url string, secret []byte, n notify.Notification) (int, error) {
	body, err := json.Marshal(n)
	if err != nil {
		return 0, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeWebhookRejected, nil)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeWebhookRejected, nil)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "agent-todos-webhooks/1")
	req.Header.Set(notify.HeaderSignature, notify.Sign(secret, body))
	req.Header.Set(notify.HeaderIdempotencyKey, n.ID)
	req.Header.Set(notify.HeaderEvent, joinKinds(n.Events))

	client := w.Client
	if client == nil {
		client = defaultWebhookClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, temporal.NewApplicationError(transportError(err), ErrTypeWebhookTransport)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		return code, nil
	case code == http.StatusRequestTimeout, code == http.StatusTooEarly, code == http.StatusTooManyRequests, code >= 500:
		return 0, temporal.NewApplicationErrorWithOptions(
			fmt.Sprintf("webhook answered %s", resp.Status), ErrTypeWebhookStatus,
			temporal.ApplicationErrorOptions{NextRetryDelay: retryAfter(resp.Header.Get("Retry-After"))})
	default:
		return 0, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("webhook answered %s", resp.Status), ErrTypeWebhookRejected, nil)
	}
}

// retryAfter reads a Retry-After header given in seconds (capped); zero lets
// the retry policy decide.
func retryAfter(v string) time.Duration {
	secs, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || secs <= 0 {
		return 0
	}
	return min(time.Duration(secs)*time.Second, maxRetryAfter)
}

// transportError is what went wrong without the URL: a URL's query can carry
// a token, and the error is recorded in history.
func transportError(err error) string {
	if ue, ok := errors.AsType[*url.Error](err); ok {
		err = ue.Err
	}
	return err.Error()
}

func joinKinds(kinds []notify.Kind) string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ",")
}
