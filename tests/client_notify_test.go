package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"

	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

// hostID is the subscriber ID the client derives from a receiver's URL.
func hostID(t testing.TB, raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u.Hostname() + "-" + u.Port()
}

// TestClientSubscribeCommands: subscribe, subscribers and unsubscribe
// through the built client against a real session and worker: the text
// people read, the JSON programs read, the session's refusals word for
// word, and a change that reaches the webhook.
func TestClientSubscribeCommands(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{secrets: testSecrets(t)})
	done := newWebhookReceiver(t, nil)
	team := newWebhookReceiver(t, nil)
	id := uniqueID("client-subscribe")
	if _, errOut, code := h.runClient("start", "--id", id); code != 0 {
		t.Fatal(errOut)
	}
	t.Cleanup(func() { h.runClient("cancel", id) })

	doneID := hostID(t, done.url())
	out, errOut, code := h.runClient("subscribe", id, "--url", done.url(), "--secret", "test", "--events", "item_completed,plan_finished")
	if code != 0 {
		t.Fatalf("subscribe: exit %d: %s", code, errOut)
	}
	wantHead := "Subscribed " + doneID + ": session " + id + " POSTs changes that are item_completed or plan_finished to " + done.url() + ", signed with \"test\".\n"
	if !strings.HasPrefix(out, wantHead) || !regexp.MustCompile(`(?m)^ID +EVENTS +PENDING +OLDEST +SECRET +GIVE UP +URL$`).MatchString(out) ||
		!regexp.MustCompile(`(?m)^`+regexp.QuoteMeta(doneID)+` +item_completed,plan_finished +0 +- +test +1h0m0s +`+regexp.QuoteMeta(done.url())+`$`).MatchString(out) {
		t.Fatalf("subscribe printed:\n%s", out)
	}

	// The ID the client made up from the host never replaces another URL.
	_, errOut, code = h.runClient("subscribe", id, "--url", done.url()+"/other", "--secret", "test")
	if code != 1 || strings.TrimSpace(errOut) != `client: session "`+id+`" already has a webhook "`+doneID+`" (`+done.url()+`): give --id to add another, or --id `+doneID+` to replace it` {
		t.Fatalf("made-up ID taken: exit %d: %q", code, errOut)
	}

	out, errOut, code = h.runClient("subscribe", id, "--id", "team", "--url", team.url(), "--secret", "test", "--give-up-after", "24h", "-o", "json")
	var subs []workflows.SubscriberStatus
	if code != 0 || json.Unmarshal([]byte(out), &subs) != nil || len(subs) != 2 || subs[1].ID != "team" || subs[1].GiveUpAfter != "24h" || strings.Count(out, "\n") != 1 {
		t.Fatalf("subscribe -o json: exit %d: %q %s", code, out, errOut)
	}

	// Refusals are the session's contract messages, exit 1, nothing changed.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--id", "x", "--url", team.url(), "--secret", "other"}, `Error: subscriber x: webhook secret "other" is not configured on the worker (--webhook-secrets)`},
		{[]string{"--id", "x", "--url", team.url(), "--secret", "test", "--give-up-after", "forever"}, `Error: subscriber x: giveUpAfter must be a duration between 1s and 72h0m0s (got "forever")`},
		{[]string{"--id", "x", "--url", team.url(), "--secret", "test", "--events", "done"}, `Error: subscriber x: unknown event "done": use changed, item_started, item_completed, plan_finished or changed_outside`},
		{[]string{"--id", "x", "--url", "ftp://example.com/", "--secret", "test"}, `Error: subscriber x: url must be an absolute http or https URL without credentials, of at most 2048 bytes`},
	} {
		out, errOut, code := h.runClient(append([]string{"subscribe", id}, c.args...)...)
		if code != 1 || out != "" || strings.TrimSpace(errOut) != c.want {
			t.Errorf("subscribe %q: exit %d, stdout %q, stderr %q\nwant %s", c.args, code, out, errOut, c.want)
		}
	}

	s := h.on(id)
	w := s.MustWrite("", listArgs("completed:Write the fix", "pending:Run the tests"))
	if got := done.waitDelivered(1, time.Minute); got[0].Note.Seq != w.Seq || !got[0].SigOK {
		t.Fatalf("delivered %+v", got[0])
	}
	team.waitDelivered(1, time.Minute)

	out, _, code = h.runClient("subscribers", id)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[1], doneID+" ") || !regexp.MustCompile(`^team +changed +0 +- +test +24h +`+regexp.QuoteMeta(team.url())+`$`).MatchString(lines[2]) {
		t.Fatalf("subscribers:\n%s", out)
	}
	out, _, code = h.runClient("subscribers", id, "-o", "jsonl")
	lines = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var first workflows.SubscriberStatus
	if code != 0 || len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &first) != nil || first.ID != doneID || first.URL != done.url() || len(first.Events) != 2 {
		t.Fatalf("subscribers -o jsonl:\n%s", out)
	}

	out, errOut, code = h.runClient("unsubscribe", id, "team")
	if code != 0 || !strings.HasPrefix(out, "Unsubscribed team from session "+id+"; ") || strings.Contains(out, "\nteam ") || !strings.Contains(out, "\n"+doneID+" ") {
		t.Fatalf("unsubscribe: exit %d:\n%s%s", code, out, errOut)
	}
	_, errOut, code = h.runClient("unsubscribe", id, "nobody")
	if code != 1 || strings.TrimSpace(errOut) != `Error: no subscriber "nobody"` {
		t.Fatalf("unsubscribe nobody: exit %d: %q", code, errOut)
	}
	if got := s.Subscribers(); len(got) != 1 || got[0].ID != doneID {
		t.Fatalf("subscribers left: %+v", got)
	}
	_, errOut, code = h.runClient("subscribers", "no-such-session")
	if code != 1 || !strings.HasPrefix(errOut, `client: no session "no-such-session"`) {
		t.Fatalf("no session: exit %d: %q", code, errOut)
	}
	h.replay(id)
}

// TestClientStartSubscribesAndLogShowsDeliveries: `client start --subscribe`
// gives the session its webhooks from the first change; `client log` reads
// what became of each notification: delivered after retries, or given up.
func TestClientStartSubscribesAndLogShowsDeliveries(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{secrets: testSecrets(t)})
	flaky := newWebhookReceiver(t, failsFirst(2))
	refusing := newWebhookReceiver(t, func(receivedPost) int { return http.StatusUnauthorized })
	id := uniqueID("client-start-subscribe")
	out, errOut, code := h.runClient("start", "--id", id, "--subscribe", "flaky="+flaky.url(), "--subscribe", "refusing="+refusing.url(), "--subscribe-secret", "test")
	if code != 0 || strings.TrimSpace(out) != id {
		t.Fatalf("start: exit %d: %q %q", code, out, errOut)
	}
	t.Cleanup(func() { h.runClient("cancel", id) })
	s := h.on(id)
	if subs := s.Subscribers(); len(subs) != 2 || subs[0].ID != "flaky" || subs[1].URL != refusing.url() || subs[1].SecretName != "test" {
		t.Fatalf("subscribers at start: %+v", subs)
	}
	if _, errOut, code := h.runClient("write", id, "--todo", "doing:Write the fix"); code != 0 {
		t.Fatal(errOut)
	}
	sessiontest.WaitFor(t, time.Minute, "a delivery and a give-up in the log", func() bool {
		d, g := notifyEvents(s)
		return len(d) == 1 && len(g) == 1
	})
	out, _, _ = h.runClient("log", id)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^#\d+ notify/delivered   → flaky · seq 1 delivered \(attempt 3, 204\)$`),
		regexp.MustCompile(`(?m)^#\d+ notify/given_up    → refusing · seq 1 given up: webhook answered 401 Unauthorized$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
	out, _, _ = h.runClient("log", id, "--color", "always")
	if !strings.Contains(out, "\x1b[31m→ refusing · seq 1 given up: webhook answered 401 Unauthorized\x1b[0m") {
		t.Errorf("given up not in red:\n%q", out)
	}
	out, _, _ = h.runClient("log", id, "-o", "jsonl")
	if !strings.Contains(out, `"type":"notify/delivered","at":`) || !strings.Contains(out, `"data":{"subscriber":"flaky","seq":1,"attempts":3,"status":204}`) {
		t.Errorf("log -o jsonl:\n%s", out)
	}

	// A subscriber the session would refuse starts nothing.
	bad := uniqueID("client-start-bad-subscriber")
	out, errOut, code = h.runClient("start", "--id", bad, "--subscribe", "ftp://example.com/", "--subscribe-secret", "test")
	if code != 1 || out != "" || strings.TrimSpace(errOut) != "Error: invalid session input: subscriber example.com: url must be an absolute http or https URL without credentials, of at most 2048 bytes" {
		t.Fatalf("bad subscriber: exit %d: %q %q", code, out, errOut)
	}
	_, err := h.c.DescribeWorkflowExecution(h.ctx(), bad, "")
	if _, notFound := errors.AsType[*serviceerror.NotFound](err); !notFound {
		t.Fatalf("a session started anyway: %v", err)
	}
	h.replay(id)
}

// listener is a running `client webhook listen`.
type listener struct {
	t      testing.TB
	cmd    *exec.Cmd
	url    string
	stdout *lockedBuffer
	stderr *lockedBuffer
}

// startListener runs the built client's webhook listen on a free port with
// the tests' secret in a private file, as README's walkthrough does.
func startListener(t testing.TB, args ...string) *listener {
	t.Helper()
	file := filepath.Join(t.TempDir(), "webhook-secrets")
	if err := os.WriteFile(file, []byte("# the worker's\ntest="+testWebhookSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	full := append([]string{"webhook", "listen", "--addr", "127.0.0.1:0", "--secret-file", file, "--secret", "test"}, args...)
	l := &listener{t: t, cmd: exec.Command(buildClient(t), full...), stdout: &lockedBuffer{}, stderr: &lockedBuffer{}}
	l.cmd.Env = append(os.Environ(), "NO_COLOR=1")
	l.cmd.Stdout, l.cmd.Stderr = l.stdout, l.stderr
	if err := l.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if l.cmd.ProcessState == nil {
			l.cmd.Process.Kill()
			l.cmd.Wait()
		}
	})
	ready := regexp.MustCompile(`Listening for notifications at (http://\S+), signed with secret "test"`)
	sessiontest.WaitFor(t, 30*time.Second, "the listener's address", func() bool {
		m := ready.FindStringSubmatch(l.stderr.String())
		if m != nil {
			l.url = m[1]
		}
		return m != nil
	})
	return l
}

// post sends body signed as sig, with key, and returns the answer.
func (l *listener) post(body []byte, sig, key string) int {
	l.t.Helper()
	req, err := http.NewRequest(http.MethodPost, l.url, bytes.NewReader(body))
	if err != nil {
		l.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(notify.HeaderSignature, sig)
	req.Header.Set(notify.HeaderIdempotencyKey, key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		l.t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// stop interrupts the listener as Ctrl-C does; it must end cleanly.
func (l *listener) stop() {
	l.t.Helper()
	if err := l.cmd.Process.Signal(os.Interrupt); err != nil {
		l.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- l.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			l.t.Fatalf("listener after Ctrl-C: %v\n%s", err, l.stderr)
		}
	case <-time.After(30 * time.Second):
		l.t.Fatal("listener did not stop on Ctrl-C")
	}
}

// TestClientWebhookListenEndToEnd: README's walkthrough on real parts. A
// session subscribed to `client webhook listen` at start gets its changes
// printed there, verified; a forged POST is refused with 401 and printed
// nowhere; a notification sent again (same idempotency key) says "(again)";
// with -o jsonl each change is its JSON body on a line.
func TestClientWebhookListenEndToEnd(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{secrets: testSecrets(t)})
	l := startListener(t)
	id := uniqueID("client-listen")
	if out, errOut, code := h.runClient("start", "--id", id, "--subscribe", l.url, "--subscribe-secret", "test"); code != 0 {
		t.Fatalf("start: %q %q", out, errOut)
	}
	t.Cleanup(func() { h.runClient("cancel", id) })
	if _, errOut, code := h.runClient("write", id, "--as", "alice", "--todo", "doing:Write the fix", "--todo", "p:Run the tests"); code != 0 {
		t.Fatal(errOut)
	}
	if _, errOut, code := h.runClient("item", "complete", id, "fix", "--as", "bob", "-m", "fixed"); code != 0 {
		t.Fatal(errOut)
	}
	// Seqs are the session's: its log events (a delivery, say) take some.
	hist := h.on(id).History()
	if len(hist) != 2 {
		t.Fatalf("history %+v", hist)
	}
	first := id + " · seq " + strconv.FormatInt(hist[0].Seq, 10) + " · changed, item_started, changed_outside · by alice\n  + Write the fix (in progress)\n  + Run the tests\n  0/2 completed · 1 in progress · 1 pending\n"
	second := regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d  ` + regexp.QuoteMeta(id) + ` · seq ` + strconv.FormatInt(hist[1].Seq, 10) + ` · changed, item_completed, changed_outside · by bob \("fixed"\)\n  ✓ Write the fix\n  1/2 completed · 0 in progress · 1 pending\n`)
	sessiontest.WaitFor(t, time.Minute, "the second change printed", func() bool { return second.MatchString(l.stdout.String()) })
	if !strings.Contains(l.stdout.String(), first) {
		t.Errorf("the first change:\n%s\nwant\n%s", l.stdout, first)
	}
	sessiontest.WaitFor(t, 30*time.Second, "both logged delivered", func() bool {
		d, _ := notifyEvents(h.on(id))
		return len(d) == 2 && d[0].Status == http.StatusNoContent
	})

	// A forgery is refused and printed nowhere; a real key sent again is
	// answered and said to be a repeat.
	before := l.stdout.String()
	items := plan("completed:Write the fix", "completed:Run the tests")
	change := todo.Diff(nil, items)
	src := todo.Source{Kind: todo.SourceUpdate, By: "mallory"}
	next := hist[1].Seq + 10
	forged, _ := json.Marshal(notify.New(id, next, hist[1].Seq, notify.KindsOf(nil, items, change, src), change, todo.CountOf(items), src, time.Now()))
	if code := l.post(forged, notify.Sign([]byte("not-the-secret-at-all"), forged), notify.Key(id, next)); code != http.StatusUnauthorized {
		t.Fatalf("forged POST answered %d", code)
	}
	if code := l.post(forged, "", notify.Key(id, next)); code != http.StatusUnauthorized {
		t.Fatalf("unsigned POST answered %d", code)
	}
	// The client's output reaches these buffers through a pipe, a moment
	// after it answered.
	sessiontest.WaitFor(t, 10*time.Second, "two refusals on stderr", func() bool { return strings.Count(l.stderr.String(), "refused a POST from 127.0.0.1:") == 2 })
	repeat, _ := json.Marshal(notify.New(id, hist[0].Seq, 0, []notify.Kind{notify.Changed}, todo.Change{}, todo.Counts{}, src, time.Now()))
	if code := l.post(repeat, notify.Sign([]byte(testWebhookSecret), repeat), notify.Key(id, hist[0].Seq)); code != http.StatusNoContent {
		t.Fatalf("repeat answered %d", code)
	}
	sessiontest.WaitFor(t, 10*time.Second, "the repeat said", func() bool { return l.stdout.String() != before })
	if got := strings.TrimPrefix(l.stdout.String(), before); got != id+" · seq "+strconv.FormatInt(hist[0].Seq, 10)+" (again)\n" {
		t.Fatalf("after a forgery, an unsigned POST and a repeat, the listener printed %q", got)
	}
	l.stop()

	// -o jsonl: the bodies as sent, one a line, for a program.
	j := startListener(t, "-o", "jsonl")
	if _, errOut, code := h.runClient("subscribe", id, "--id", "jsonl", "--url", j.url, "--secret", "test", "--events", "plan_finished"); code != 0 {
		t.Fatal(errOut)
	}
	out, errOut, code := h.runClient("item", "complete", id, "tests", "-o", "json")
	var last todo.WriteResult
	if code != 0 || json.Unmarshal([]byte(out), &last) != nil {
		t.Fatalf("item complete: %q %q", out, errOut)
	}
	var got notify.Notification
	sessiontest.WaitFor(t, time.Minute, "a JSON line", func() bool { return strings.HasSuffix(j.stdout.String(), "\n") })
	lines := strings.Split(strings.TrimSuffix(j.stdout.String(), "\n"), "\n")
	if len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &got) != nil || got.Seq != last.Seq || got.ID != notify.Key(id, last.Seq) ||
		got.Events[len(got.Events)-2] != notify.PlanFinished || got.Counts.Completed != 2 {
		t.Fatalf("jsonl:\n%s", j.stdout)
	}
	j.stop()
	h.replay(id)
}
