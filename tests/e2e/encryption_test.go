package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/codec"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/todo"
)

// encryptedScreenshotPath is the UI showing a plan it decrypted through the
// worker's codec server (docs/temporal-ui-encrypted-plan.png is a copy).
var encryptedScreenshotPath = filepath.Join("output", "temporal-ui-encrypted-plan.png")

// encrypted is a worker configuration with payload encryption on, as the
// README sets it up: a key file, the codec server and its token.
type encrypted struct {
	cfg      workerConfig
	keyFile  string
	keys     *codec.Keys
	token    string
	codecURL string
}

func newEncrypted(t *testing.T) encrypted {
	t.Helper()
	line, err := codec.NewKeyLine("k1")
	if err != nil {
		t.Fatal(err)
	}
	e := encrypted{cfg: newWorkerConfig(t), keyFile: filepath.Join(t.TempDir(), "keys"), token: "e2e-codec-token-0123456789"}
	if err := os.WriteFile(e.keyFile, []byte("# test key\n"+line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if e.keys, err = codec.LoadKeyFile(e.keyFile); err != nil {
		t.Fatal(err)
	}
	codecAddr := freeAddr(t)
	e.codecURL = "http://" + codecAddr
	e.cfg.Env = append(e.cfg.Env,
		codec.EnvKeysFile+"="+e.keyFile,
		"AGENT_CODEC_ADDRESS="+codecAddr,
		codec.EnvToken+"="+e.token,
	)
	return e
}

// dial is an SDK client with the worker's keys, as our client has them.
func (e encrypted) dial(t *testing.T) client.Client {
	return e.dialWithKey(t, "")
}

// dialWithKey is dial with an API key too (sent without TLS, on loopback).
func (e encrypted) dialWithKey(t *testing.T, apiKey string) client.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := client.Options{HostPort: e.cfg.Frontend, Namespace: namespaceName, Logger: sessiontest.QuietLogger()}
	if apiKey != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(apiKey)
		opts.ConnectionOptions.TLSDisabled = true
	}
	codec.Configure(&opts, e.keys)
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		t.Fatalf("dial %s: %v", e.cfg.Frontend, err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestStockCLIThroughTheCodecServer: the worker binary with encryption on;
// the stock CLI given --codec-endpoint and --codec-auth writes and reads the
// plan in clear, as the README shows; without them, the same commands and
// the whole history show none of it, and a wrong token is refused.
func TestStockCLIThroughTheCodecServer(t *testing.T) {
	t.Parallel()
	bin := temporalCLI(t)
	e := newEncrypted(t)
	w := startWorker(t, "encrypted-cli", e.cfg)
	if banner := w.out.String(); !strings.Contains(banner, "Codec server:      "+e.codecURL) ||
		!strings.Contains(banner, "--codec-endpoint "+e.codecURL+` --codec-auth "Bearer $AGENT_CODEC_TOKEN"`) {
		t.Errorf("the banner does not say how to reach the codec server:\n%s", banner)
	}
	c := &cli{t: t, bin: bin, addr: e.cfg.Frontend, env: cleanEnv(t)}
	through := func(args ...string) []string {
		return append(args, "--codec-endpoint", e.codecURL, "--codec-auth", "Bearer "+e.token)
	}
	const id = "encrypted-cli"
	items := []todo.Item{{Content: "Audit the narwhal-budget", Status: todo.InProgress}, {Content: "File the report", Status: todo.Pending}}
	c.json(nil, through("workflow", "start", "--type", contract.WorkflowType, "--task-queue", contract.TaskQueue, "--workflow-id", id, "--input", "{}")...)
	c.json(nil, through("workflow", "update", "execute", "--name", contract.UpdateTodoWrite, "--workflow-id", id, "--input", todosJSON(items))...)

	var st todo.State
	c.query(&st, through("--workflow-id", id, "--type", contract.QueryTodos)...)
	if st.Seq != 1 || len(st.Todos) != 2 || st.Todos[0] != items[0] {
		t.Fatalf("todos through the codec server: %+v", st)
	}
	// The JSON history shows payloads' data in base64: decrypted, they are
	// JSON again, with no encryption metadata left.
	if r := c.run(through("workflow", "show", "--workflow-id", id, "-o", "json")...); r.err != nil ||
		strings.Contains(r.stdout, codec.MetadataKeyID) || !strings.Contains(r.stdout, `"encoding": "anNvbi9wbGFpbg=="`) {
		t.Errorf("history through the codec server is not decrypted: %v\n%s", r.err, r.output())
	}

	for what, args := range map[string][]string{
		"todos query":   {"workflow", "query", "--workflow-id", id, "--type", contract.QueryTodos, "-o", "json"},
		"whole history": {"workflow", "show", "--workflow-id", id, "-o", "json"},
		"description":   {"workflow", "describe", "--workflow-id", id, "-o", "json"},
	} {
		r := c.run(args...)
		if r.err != nil {
			t.Fatalf("%s without the codec server: %v", what, r.err)
		}
		if strings.Contains(r.output(), "narwhal-budget") {
			t.Errorf("%s without the codec server shows the plan:\n%s", what, r.output())
		}
		if !strings.Contains(r.stdout, codec.MetadataKeyID) && what != "description" {
			t.Errorf("%s without the codec server shows no encrypted payload:\n%s", what, r.stdout)
		}
	}
	r := c.run("workflow", "query", "--workflow-id", id, "--type", contract.QueryTodos,
		"--codec-endpoint", e.codecURL, "--codec-auth", "Bearer not-the-token")
	if r.err == nil || strings.Contains(r.output(), "narwhal-budget") || !strings.Contains(r.output(), "Unauthorized") {
		t.Errorf("a wrong codec token: %v\n%s", r.err, r.output())
	}
}

// TestTemporalUIShowsTheEncryptedPlan: the embedded UI, configured by the
// worker with its codec server, shows the decrypted plan in the workflow's
// current details once the browser has signed in with the codec token.
func TestTemporalUIShowsTheEncryptedPlan(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	e := newEncrypted(t)
	startWorker(t, "encrypted-ui", e.cfg)
	s := startSession(t, e.dial(t), "ui-encrypted-plan")
	items := []todo.Item{
		{Content: "Rotate the encryption key", Status: todo.Completed},
		{Content: "Check the UI decrypts the plan", Status: todo.InProgress},
		{Content: "Drop the old key after a month", Status: todo.Pending},
	}
	res := s.MustWrite("ui-encrypted-write-1", todosJSON(items))
	want := []string{"Plan: 1 of 3 completed", "1 pending · 1 in progress · 1 completed"}
	for _, it := range items {
		want = append(want, it.Content)
	}

	tab := openBrowser(t, browser, 150*time.Second)
	url := e.cfg.UIURL() + "/namespaces/" + namespaceName + "/workflows/" + s.ID
	openDetails := func() {
		t.Helper()
		if err := chromedp.Do(tab, chromedp.Navigate(url)); err != nil {
			t.Fatalf("open %s: %v", url, err)
		}
		if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS(`a[data-testid="user-metadata-tab"]`))); err != nil {
			t.Fatalf("click the User Metadata tab: %v", err)
		}
	}
	// Before signing in the codec server turns the browser away: the UI
	// says so (this UI version's words) and has no plan to show.
	openDetails()
	const refused = "Codec Server could not connect"
	seen, err := waitVisible(tab, []string{refused, "No Current Details", items[1].Content}, []string{refused, "No Current Details"}, 60*time.Second)
	if err != nil || !seen[refused] || !seen["No Current Details"] || seen[items[1].Content] {
		t.Fatalf("the UI before signing in to the codec server: %v, %v", seen, err)
	}
	saveScreenshot(t, tab, filepath.Join("output", "temporal-ui-encrypted-plan-signed-out.png"))

	// Sign in as a person would: the codec server's page, the token, back
	// to the UI.
	e.signIn(t, tab, e.cfg.UIURL())

	openDetails()
	footer := fmt.Sprintf("seq %d", res.Seq)
	expectVisible(t, tab, want, footer, encryptedScreenshotPath)
}

// signIn signs the browser in to the codec server as a person does: its
// page, the token, and back to the UI at uiURL.
func (e encrypted) signIn(t *testing.T, tab context.Context, uiURL string) {
	t.Helper()
	err := chromedp.Do(tab,
		chromedp.Navigate(e.codecURL+"/login"),
		chromedp.SendKeys(chromedp.CSS(`input[name="token"]`), e.token),
		chromedp.Submit(chromedp.CSS(`input[name="token"]`)),
	)
	if err != nil {
		t.Fatalf("sign in at %s/login: %v", e.codecURL, err)
	}
	sessiontest.WaitFor(t, 20*time.Second, "the redirect to the UI after signing in", func() bool {
		at, err := chromedp.Run(tab, chromedp.Location())
		return err == nil && strings.HasPrefix(at, uiURL)
	})
}
