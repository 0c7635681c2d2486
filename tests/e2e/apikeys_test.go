package e2e

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/codec"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/tests/testca"
	"github.com/durabletodos/agenttodos/todo"
)

const (
	e2eReaderKey = "alice-0123456789abcdef0123456789abcdef"
	e2eWriterKey = "bob-0123456789abcdef0123456789abcdef"
	e2eWorkerKey = "worker-0123456789abcdef0123456789abcdef"
)

// writeKeys writes a keys file in the README's format with the given mode.
func writeKeys(t *testing.T, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "api-keys")
	text := "# name  role    key\n" +
		"alice   reader  " + e2eReaderKey + "\n" +
		"bob     writer  " + e2eWriterKey + "\n" +
		"worker  worker  " + e2eWorkerKey + "\n"
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

// mustDeny checks err is the server's permission error naming the key's
// owner and role and the API, as a person reads it.
func mustDeny(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	var pd *serviceerror.PermissionDenied
	if !errors.As(err, &pd) {
		t.Fatalf("%s: %v, want a permission error", what, err)
	}
	for _, w := range want {
		if !strings.Contains(pd.Message, w) {
			t.Errorf("%s: %q lacks %q", what, pd.Message, w)
		}
	}
	t.Logf("%s denied: %s", what, pd.Message)
}

// TestAPIKeysDecideWhoMayReadOrSteer runs the worker with a keys file and
// its own worker key, on loopback without TLS (so every client says
// TEMPORAL_TLS=false / --tls=false: the SDK and the CLI turn TLS on for an
// API key by default). Without a key nothing works; a reader reads the
// plan and is told it may not write; a writer writes, by update, signal
// and batch (run by the server's own worker service); the stock CLI and
// the Web UI, in a real browser, do what the key's role allows.
func TestAPIKeysDecideWhoMayReadOrSteer(t *testing.T) {
	t.Parallel()
	cfg := newWorkerConfig(t)

	// The worker refuses to start with a keys file others can read, and
	// without a worker key of its own.
	cfg.Env = []string{"AGENT_API_KEYS=" + writeKeys(t, 0o644), "TEMPORAL_API_KEY=" + e2eWorkerKey, "TEMPORAL_TLS=false"}
	if out := runWorkerToExit(t, cfg); !strings.Contains(out, "can be read by others") || !strings.Contains(out, "chmod 600") {
		t.Fatalf("worker with a readable keys file:\n%s", out)
	}
	keys := writeKeys(t, 0o600)
	cfg.Env = []string{"AGENT_API_KEYS=" + keys, "TEMPORAL_TLS=false"}
	if out := runWorkerToExit(t, cfg); !strings.Contains(out, "set TEMPORAL_API_KEY to a key with the worker role") {
		t.Fatalf("worker without a key:\n%s", out)
	}
	cfg.Env = []string{"AGENT_API_KEYS=" + keys, "TEMPORAL_API_KEY=" + e2eReaderKey, "TEMPORAL_TLS=false"}
	if out := runWorkerToExit(t, cfg); !strings.Contains(out, `"alice"'s, a reader key: the worker needs a worker key`) {
		t.Fatalf("worker with a reader key:\n%s", out)
	}
	// The worker's key runs the worker.
	cfg.Env = []string{"AGENT_API_KEYS=" + keys, "TEMPORAL_API_KEY=" + e2eWorkerKey, "TEMPORAL_TLS=false"}
	w := startWorker(t, "keys", cfg)

	const id = "keys-session"
	_, err := dialSecure(t, cfg.Frontend, nil, "", id)
	mustDeny(t, "no key starts a session", err, "needs an API key", "TEMPORAL_API_KEY")
	_, err = dialSecure(t, cfg.Frontend, nil, "guess-0123456789abcdef", id)
	mustDeny(t, "an unknown key starts a session", err, "unknown API key")
	_, err = dialSecure(t, cfg.Frontend, nil, e2eReaderKey, id)
	mustDeny(t, "the reader starts a session", err, `"alice" is a reader key`, "StartWorkflowExecution")
	writer, err := dialSecure(t, cfg.Frontend, nil, e2eWriterKey, id)
	if err != nil {
		t.Fatalf("the writer starts a session: %v", err)
	}
	reader, err := dialSecure(t, cfg.Frontend, nil, e2eReaderKey, "")
	if err != nil {
		t.Fatal(err)
	}

	asWriter := sessiontest.Session{T: t, C: writer, ID: id}
	asReader := sessiontest.Session{T: t, C: reader, ID: id}
	if res := asWriter.MustWrite("", `{"todos":[{"content":"Read the code","status":"in_progress"}]}`); res.Seq != 1 {
		t.Fatalf("the writer's todo_write: %+v", res)
	}
	if st := asReader.Todos(); st.Seq != 1 || len(st.Todos) != 1 {
		t.Fatalf("the reader's todos query: %+v", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = sessiontest.Write(ctx, reader, id, "", []byte(`{"todos":[{"content":"Sneak in","status":"pending"}]}`))
	mustDeny(t, "the reader's todo_write", err, `"alice" is a reader key`, "may only read", "UpdateWorkflowExecution")
	mustDeny(t, "the reader's todo_write signal",
		reader.SignalWorkflow(ctx, id, "", contract.SignalTodoWrite, map[string]any{"todos": []todo.Item{{Content: "Sneak in", Status: todo.Pending}}}),
		`"alice" is a reader key`, "SignalWorkflowExecution")
	asWriter.Signal(contract.SignalTodoWrite, map[string]any{"todos": []todo.Item{{Content: "Read the code", Status: todo.Completed}}})
	sessiontest.WaitFor(t, 30*time.Second, "the writer's signal applied", func() bool { return asReader.Todos().Seq == 2 })

	// The stock CLI with the same keys.
	readerCLI := secureCLI(t, cfg.Frontend, "TEMPORAL_API_KEY="+e2eReaderKey, "TEMPORAL_TLS=false")
	writerCLI := secureCLI(t, cfg.Frontend, "TEMPORAL_API_KEY="+e2eWriterKey, "TEMPORAL_TLS=false")
	var st todo.State
	readerCLI.query(&st, "--workflow-id", id, "--type", contract.QueryTodos)
	if st.Seq != 2 {
		t.Fatalf("the reader's CLI query: %+v", st)
	}
	update := []string{"workflow", "update", "execute", "--name", contract.UpdateTodoWrite, "--workflow-id", id,
		"--input", `{"todos":[{"content":"Read the code","status":"completed"},{"content":"Write the fix","status":"in_progress"}]}`}
	if r := readerCLI.run(update...); r.err == nil || !strings.Contains(r.output(), `is a reader key`) || !strings.Contains(r.output(), "UpdateWorkflowExecution is not allowed") {
		t.Fatalf("the reader's CLI update: %v\n%s", r.err, r.output())
	}
	writerCLI.json(nil, update...)
	// A batch: the writer asks, the server's own worker service signals
	// through the internal frontend.
	batch := writerCLI.run("workflow", "signal", "--query", fmt.Sprintf("WorkflowId = %q", id), "--name", contract.SignalTodoWrite,
		"--input", `{"todos":[{"content":"Write the fix","status":"completed"}]}`, "--yes", "--reason", "e2e batch")
	if batch.err != nil {
		t.Fatalf("the writer's batch signal: %v\n%s", batch.err, batch.output())
	}
	sessiontest.WaitFor(t, time.Minute, "the batch's signal applied", func() bool { return asReader.Todos().Seq == 4 })

	// The Web UI asks for a key; with the reader's, a real browser shows
	// the plan.
	resp, err := http.Get("http://" + cfg.UI + "/namespaces/" + namespaceName + "/workflows")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic ") {
		t.Fatalf("the UI without a key: %d %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	tab := openBrowser(t, chromium(t), 100*time.Second)
	showsThePlanWithKey(t, tab, cfg.UIURL(), id, e2eReaderKey, []string{"Plan: 1 of 1 completed", "Write the fix"})

	// Refusals are logged with the key's name, never a key: not the
	// worker's own, not those used, not a stranger's guess.
	out := w.out.String()
	if !strings.Contains(out, `API key \"alice\" is a reader key`) {
		t.Errorf("the worker's log does not name the refused reader:\n%s", out)
	}
	for _, k := range []string{e2eReaderKey, e2eWriterKey, e2eWorkerKey, "guess-0123456789abcdef"} {
		if strings.Contains(out, k) {
			t.Errorf("the worker's log holds the key %q", k)
		}
	}
}

// showsThePlanWithKey opens the session's page in Chromium as a person
// would after typing the key into the browser's password prompt: the
// credentials go with the first navigation (user:key@host), the browser
// keeps them for the UI's origin and sends them with every request the page
// makes there, and nowhere else. It waits for want in the User Metadata
// tab.
func showsThePlanWithKey(t *testing.T, tab context.Context, uiURL, id, key string, want []string) {
	t.Helper()
	withKey := uiURL // "": the browser has the key already
	if key != "" {
		withKey = strings.Replace(uiURL, "://", "://alice:"+key+"@", 1)
	}
	path := "/namespaces/" + namespaceName + "/workflows/" + id
	if err := chromedp.Do(tab, chromedp.Navigate(withKey+path), chromedp.Click(chromedp.CSS(`a[data-testid="user-metadata-tab"]`))); err != nil {
		t.Fatalf("open %s with the key: %v", uiURL+path, err)
	}
	seen, err := waitVisible(tab, want, want, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !seen[w] {
			text, _ := chromedp.Run(tab, chromedp.Evaluate[string](pageTextJS))
			t.Fatalf("the page never showed %q; page text:\n%s", w, text)
		}
	}
}

// trustingOnly makes Chromium accept the server's certificate, and only
// it, as a person does who imported the CA: Chromium's own store cannot be
// given a CA from the command line, but it can pin a key.
func trustingOnly(t *testing.T, certFile string) chromedp.ExecAllocatorOption {
	t.Helper()
	raw, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(raw)
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	spki := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return chromedp.Flag("ignore-certificate-errors-spki-list", base64.StdEncoding.EncodeToString(spki[:]))
}

// TestSecuredUIDecryptsThroughTheCodecServer runs everything at once, as
// the README's Security section adds it up: TLS, API keys and encrypted
// payloads with the codec server and its token. A reader opens the UI over
// HTTPS with the key as the password, signs in to the codec server with its
// token, and sees the plan in clear.
func TestSecuredUIDecryptsThroughTheCodecServer(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	ca := testca.New(t, "e2e")
	server := ca.Server(t, "server", "localhost", "127.0.0.1")
	e := newEncrypted(t)
	// With the server's certificate the codec server serves TLS too.
	e.codecURL = strings.Replace(e.codecURL, "http://", "https://", 1)
	e.cfg.Env = append(e.cfg.Env,
		"AGENT_TLS_CERT="+server.CertFile, "AGENT_TLS_KEY="+server.KeyFile, "AGENT_API_KEYS="+writeKeys(t, 0o600),
		"TEMPORAL_TLS_SERVER_CA_CERT_PATH="+ca.CertFile, "TEMPORAL_API_KEY="+e2eWorkerKey,
	)
	startWorker(t, "everything", e.cfg)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := client.Options{
		HostPort: e.cfg.Frontend, Namespace: namespaceName, Logger: sessiontest.QuietLogger(),
		ConnectionOptions: client.ConnectionOptions{TLS: &tls.Config{RootCAs: ca.Pool()}},
		Credentials:       client.NewAPIKeyStaticCredentials(e2eWriterKey),
	}
	codec.Configure(&opts, e.keys)
	writer, err := client.DialContext(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	s := startSession(t, writer, "everything-at-once")
	s.MustWrite("", `{"todos":[{"content":"Encrypt, authenticate, authorise","status":"in_progress"}]}`)
	want := []string{"Plan: 0 of 1 completed", "Encrypt, authenticate, authorise"}

	// The person opens the UI first, with the key; the plan is encrypted
	// until the browser signs in to the codec server.
	uiURL := "https://" + e.cfg.UI
	tab := openBrowser(t, browser, 150*time.Second, trustingOnly(t, server.CertFile))
	showsThePlanWithKey(t, tab, uiURL, s.ID, e2eReaderKey, []string{"Codec Server could not connect"})
	e.signIn(t, tab, uiURL)
	showsThePlanWithKey(t, tab, uiURL, s.ID, "", want)
}
