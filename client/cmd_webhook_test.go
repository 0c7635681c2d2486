package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/todo"
)

func TestWebhookListenerChecksSignaturesAndRepeats(t *testing.T) {
	secret := []byte("a-long-enough-test-secret")
	var printed bytes.Buffer
	var refusals []string
	l := &webhookListener{secret: secret, seen: map[string]bool{},
		accepted: func(n notify.Notification, _ []byte, again bool) {
			printed.WriteString(renderNotification(n, terminal{}, again))
		},
		refused: func(_ *http.Request, status int, why string) { refusals = append(refusals, why) },
	}
	srv := httptest.NewServer(l)
	defer srv.Close()
	items := []todo.Item{{Content: "Ship it", Status: todo.InProgress}}
	change := todo.Diff(nil, items)
	n := notify.New("demo", 2, 0, notify.KindsOf(nil, items, change, todo.Source{Kind: todo.SourceModel}), change, todo.CountOf(items), todo.Source{Kind: todo.SourceModel, ID: "c1"}, time.Now())
	body, _ := json.Marshal(n)
	post := func(sig string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/hook", bytes.NewReader(body))
		req.Header.Set(notify.HeaderSignature, sig)
		req.Header.Set(notify.HeaderIdempotencyKey, n.ID)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(notify.Sign([]byte("another-secret-of-length"), body)); code != http.StatusUnauthorized {
		t.Fatalf("forged: %d", code)
	}
	if code := post(""); code != http.StatusUnauthorized {
		t.Fatalf("unsigned: %d", code)
	}
	if printed.Len() != 0 || len(refusals) != 2 {
		t.Fatalf("printed %q, refusals %q", printed.String(), refusals)
	}
	if code := post(notify.Sign(secret, body)); code != http.StatusNoContent {
		t.Fatalf("signed: %d", code)
	}
	if code := post(notify.Sign(secret, body)); code != http.StatusNoContent {
		t.Fatalf("again: %d", code)
	}
	if !strings.Contains(printed.String(), "demo · seq 2 · changed, item_started · by the model\n  + Ship it (in progress)\n  0/1 completed") ||
		!strings.HasSuffix(printed.String(), "\ndemo · seq 2 (again)\n") {
		t.Fatalf("printed:\n%s", printed.String())
	}
	resp, err := http.Get(srv.URL + "/hook")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %d", resp.StatusCode)
	}
}

func TestRenderNotification(t *testing.T) {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.Local)
	before := []todo.Item{{Content: "Write the fix", Status: todo.InProgress}}
	after := []todo.Item{{Content: "Write the fix", Status: todo.Completed}, {Content: "Update the changelog", Status: todo.Pending}}
	src := todo.Source{Kind: todo.SourceEdit, ID: "u-1", By: "alice", Note: "fix done"}
	change := todo.Diff(before, after)
	n := notify.New("demo", 5, 3, notify.KindsOf(before, after, change, src), change, todo.CountOf(after), src, at)
	want := "2025-01-02 03:04:05  demo · seq 5 · changed, item_completed, changed_outside · by alice (\"fix done\")\n" +
		"  + Update the changelog\n" +
		"  ✓ Write the fix\n" +
		"  1/2 completed · 0 in progress · 1 pending\n"
	if got := renderNotification(n, terminal{}, false); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if got := renderNotification(n, terminal{}, true); got != "demo · seq 5 (again)\n" {
		t.Fatalf("again: %q", got)
	}
	n.Change, n.ChangeTruncated = nil, true
	if got := renderNotification(n, terminal{}, false); !strings.Contains(got, "\n  (too large to send: client diff demo 3 5)\n") {
		t.Fatalf("truncated: %q", got)
	}
}

func TestWebhookUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"webhook"},
		{"webhook", "listen", "--secret-file", "f"},
		{"webhook", "listen", "--secret", "s", "--secret-file", ""},
	} {
		a, out, errOut := testApp(nil)
		if code := a.main(context.Background(), args); code != 2 || out.Len() != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}
