package e2e

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/tests/testca"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/workflows"
)

// dialSecure connects an SDK client with TLS settings (nil: plain text)
// and an API key (empty: none) and proves the connection by starting a
// session: the error is the refusal. A refused handshake is retried by the
// SDK as if the server were away, until the deadline; refusals are
// expected quickly, so a test gives them less time than a connection.
func dialSecure(t *testing.T, frontend string, conf *tls.Config, key, sessionID string) (client.Client, error) {
	t.Helper()
	return dialSecureWithin(t, 10*time.Second, frontend, conf, key, sessionID)
}

func dialSecureWithin(t *testing.T, limit time.Duration, frontend string, conf *tls.Config, key, sessionID string) (client.Client, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	opts := client.Options{
		HostPort:          frontend,
		Namespace:         namespaceName,
		Logger:            sessiontest.QuietLogger(),
		ConnectionOptions: client.ConnectionOptions{TLS: conf, TLSDisabled: conf == nil},
	}
	if key != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(key)
	}
	c, err := client.DialContext(ctx, opts)
	if err != nil {
		return nil, err
	}
	if sessionID != "" {
		if _, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: sessionID, TaskQueue: contract.TaskQueue},
			contract.WorkflowType, workflows.SessionInput{}); err != nil {
			c.Close()
			return nil, err
		}
	}
	t.Cleanup(c.Close)
	return c, nil
}

// refusalLimit is how long a connection that must be refused gets.
const refusalLimit = 3 * time.Second

func refused(t *testing.T, what string, c client.Client, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: connected and started a session", what)
	}
	t.Logf("%s refused: %v", what, err)
}

// writeAndRead proves a session works end to end: the worker (over its own
// secured connection) applies a todo_write, and the plan reads back.
func writeAndRead(t *testing.T, c client.Client, id string) {
	t.Helper()
	s := sessiontest.Session{T: t, C: c, ID: id}
	if res := s.MustWrite("", `{"todos":[{"content":"Secure the server","status":"in_progress"}]}`); res.Seq != 1 {
		t.Fatalf("write: %+v", res)
	}
	if st := s.Todos(); len(st.Todos) != 1 || st.Todos[0].Status != todo.InProgress {
		t.Fatalf("todos: %+v", st)
	}
}

// secureCLI is the stock CLI with connection settings in its environment,
// where TEMPORAL_TLS_* and TEMPORAL_API_KEY put them for every tool.
func secureCLI(t *testing.T, frontend string, env ...string) *cli {
	return &cli{t: t, bin: temporalCLI(t), addr: frontend, env: append(cleanEnv(t), env...)}
}

// httpsGet fetches a path of a worker's Web UI over HTTPS.
func httpsGet(t *testing.T, url string, roots *x509.CertPool, certs ...tls.Certificate) (int, string, error) {
	t.Helper()
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: certs}}}
	resp, err := hc.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// presenting is a TLS client that presents cert whatever CAs the server
// asks for: with Certificates, Go would send nothing rather than a
// certificate of a CA the server did not name, and the test would prove
// less than it says.
func presenting(roots *x509.CertPool, cert tls.Certificate) *tls.Config {
	return &tls.Config{RootCAs: roots, GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }}
}

var (
	clientBinOnce sync.Once
	clientBin     string
	clientBinErr  error
)

// ourClient builds the client command once for the tests that run it.
func ourClient(t *testing.T) string {
	t.Helper()
	clientBinOnce.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			clientBinErr = err
			return
		}
		dir, err := os.MkdirTemp("", "agenttodos-e2e-client-")
		if err != nil {
			clientBinErr = err
			return
		}
		clientBin = filepath.Join(dir, "client")
		cmd := exec.Command("go", "build", "-o", clientBin, "./client")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			clientBinErr = err
			t.Logf("%s", out)
		}
	})
	if clientBinErr != nil {
		t.Fatalf("go build ./client: %v", clientBinErr)
	}
	return clientBin
}

func runOurClient(t *testing.T, env []string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, ourClient(t), args...)
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("$ client %s\n%s", strings.Join(args, " "), out.String())
	return out.String(), err
}

// TestWorkerServesMutualTLS runs the worker with a certificate and a client
// CA made in the test, connecting to its own server with a client
// certificate through TEMPORAL_TLS_*: a client without a certificate, or
// with one of another CA, is refused; one with a certificate of the CA
// works, through the SDK, the stock CLI, our client and the Web UI.
func TestWorkerServesMutualTLS(t *testing.T) {
	t.Parallel()
	ca := testca.New(t, "e2e")
	server := ca.Server(t, "server", "localhost", "127.0.0.1")
	workerCert, alice := ca.Client(t, "worker"), ca.Client(t, "alice")
	mallory := testca.New(t, "stranger").Client(t, "mallory")

	cfg := newWorkerConfig(t)
	cfg.Env = []string{
		"AGENT_TLS_CERT=" + server.CertFile, "AGENT_TLS_KEY=" + server.KeyFile, "AGENT_TLS_CLIENT_CA=" + ca.CertFile,
		"TEMPORAL_TLS_SERVER_CA_CERT_PATH=" + ca.CertFile,
		"TEMPORAL_TLS_CLIENT_CERT_PATH=" + workerCert.CertFile, "TEMPORAL_TLS_CLIENT_KEY_PATH=" + workerCert.KeyFile,
	}
	w := startWorker(t, "mtls", cfg)
	if out := w.out.String(); !strings.Contains(out, "https://"+cfg.UI) || !strings.Contains(out, "a client certificate signed by a CA in") {
		t.Fatalf("the banner does not say the UI is https and clients need a certificate:\n%s", out)
	}

	c, err := dialSecureWithin(t, refusalLimit, cfg.Frontend, nil, "", "plain")
	refused(t, "plain-text client", c, err)
	c, err = dialSecureWithin(t, refusalLimit, cfg.Frontend, &tls.Config{RootCAs: ca.Pool()}, "", "no-cert")
	refused(t, "client without a certificate", c, err)
	c, err = dialSecureWithin(t, refusalLimit, cfg.Frontend, presenting(ca.Pool(), mallory.TLSCertificate(t)), "", "stranger")
	refused(t, "client with a certificate of another CA", c, err)
	c, err = dialSecure(t, cfg.Frontend, &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{alice.TLSCertificate(t)}}, "", "mtls-session")
	if err != nil {
		t.Fatalf("client with a certificate of the CA: %v", err)
	}
	writeAndRead(t, c, "mtls-session")

	// The stock CLI, with the variables every Temporal tool reads.
	withCA := "TEMPORAL_TLS_SERVER_CA_CERT_PATH=" + ca.CertFile
	if r := secureCLI(t, cfg.Frontend, withCA).run("workflow", "query", "--workflow-id", "mtls-session", "--type", contract.QueryTodos); r.err == nil {
		t.Fatal("the CLI without a client certificate read the plan")
	}
	var st todo.State
	secureCLI(t, cfg.Frontend, withCA, "TEMPORAL_TLS_CLIENT_CERT_PATH="+alice.CertFile, "TEMPORAL_TLS_CLIENT_KEY_PATH="+alice.KeyFile).
		query(&st, "--workflow-id", "mtls-session", "--type", contract.QueryTodos)
	if st.Seq != 1 {
		t.Fatalf("the CLI read %+v", st)
	}
	// Our client, with the same variables.
	env := append(cleanEnv(t), "TEMPORAL_ADDRESS="+cfg.Frontend, withCA)
	if _, err := runOurClient(t, env, "todos", "mtls-session"); err == nil {
		t.Fatal("our client without a client certificate read the plan")
	}
	env = append(env, "TEMPORAL_TLS_CLIENT_CERT_PATH="+alice.CertFile, "TEMPORAL_TLS_CLIENT_KEY_PATH="+alice.KeyFile)
	if out, err := runOurClient(t, env, "todos", "mtls-session"); err != nil || !strings.Contains(out, "Secure the server") {
		t.Fatalf("our client with a certificate: %v\n%s", err, out)
	}

	// The Web UI asks browsers for a certificate too, and reaches the
	// frontend with its own.
	api := "https://" + cfg.UI + "/api/v1/namespaces/" + namespaceName + "/workflows/mtls-session"
	if status, _, err := httpsGet(t, api, ca.Pool()); err == nil {
		t.Fatalf("the UI without a client certificate: status %d", status)
	}
	if status, body, err := httpsGet(t, api, ca.Pool(), alice.TLSCertificate(t)); err != nil || status != http.StatusOK || !strings.Contains(body, contract.WorkflowType) {
		t.Fatalf("the UI with a certificate: %d %v\n%s", status, err, body)
	}
}

// TestWorkerServesTLS runs the worker with a server certificate only: a
// client must speak TLS and trust the CA, and needs no certificate.
func TestWorkerServesTLS(t *testing.T) {
	t.Parallel()
	ca := testca.New(t, "e2e")
	server := ca.Server(t, "server", "localhost", "127.0.0.1")
	cfg := newWorkerConfig(t)
	cfg.Env = []string{
		"AGENT_TLS_CERT=" + server.CertFile, "AGENT_TLS_KEY=" + server.KeyFile,
		"TEMPORAL_TLS_SERVER_CA_CERT_PATH=" + ca.CertFile,
	}
	startWorker(t, "tls", cfg)

	c, err := dialSecureWithin(t, refusalLimit, cfg.Frontend, nil, "", "plain")
	refused(t, "plain-text client", c, err)
	c, err = dialSecureWithin(t, refusalLimit, cfg.Frontend, &tls.Config{}, "", "untrusting")
	refused(t, "TLS client that does not trust the CA", c, err)
	c, err = dialSecure(t, cfg.Frontend, &tls.Config{RootCAs: ca.Pool()}, "", "tls-session")
	if err != nil {
		t.Fatalf("TLS client trusting the CA: %v", err)
	}
	writeAndRead(t, c, "tls-session")

	if r := secureCLI(t, cfg.Frontend).run("workflow", "query", "--workflow-id", "tls-session", "--type", contract.QueryTodos); r.err == nil {
		t.Fatal("the CLI in plain text read the plan")
	}
	var st todo.State
	secureCLI(t, cfg.Frontend, "TEMPORAL_TLS_SERVER_CA_CERT_PATH="+ca.CertFile).query(&st, "--workflow-id", "tls-session", "--type", contract.QueryTodos)
	if st.Seq != 1 {
		t.Fatalf("the CLI read %+v", st)
	}
	api := "https://" + cfg.UI + "/api/v1/namespaces/" + namespaceName + "/workflows/tls-session"
	if status, body, err := httpsGet(t, api, ca.Pool()); err != nil || status != http.StatusOK || !strings.Contains(body, contract.WorkflowType) {
		t.Fatalf("the UI over TLS: %d %v\n%s", status, err, body)
	}
}

// runWorkerToExit runs the worker binary expecting it to refuse to start,
// and returns what it said.
func runWorkerToExit(t *testing.T, cfg workerConfig, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, workerBin, args...)
	cmd.Env = append(cleanEnv(t), "AGENT_DATA_DIR="+cfg.DataDir, "AGENT_FRONTEND_ADDRESS="+cfg.Frontend, "AGENT_UI_ADDRESS="+cfg.UI)
	cmd.Env = append(cmd.Env, cfg.Env...)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("worker %v started and exited cleanly; want a refusal\n%s", args, out)
	}
	return string(out)
}

// TestWorkerRefusesPlainTextOffLoopback: the frontend on every interface
// without TLS is refused with the flags that settle it.
func TestWorkerRefusesPlainTextOffLoopback(t *testing.T) {
	t.Parallel()
	cfg := newWorkerConfig(t)
	cfg.Frontend = strings.Replace(cfg.Frontend, "127.0.0.1", "0.0.0.0", 1)
	out := runWorkerToExit(t, cfg)
	if !strings.Contains(out, "refusing to serve the frontend on "+cfg.Frontend+" without TLS") || !strings.Contains(out, "--insecure-listen") {
		t.Fatalf("worker output:\n%s", out)
	}
	if _, err := os.Stat(cfg.DataDir); !os.IsNotExist(err) {
		t.Errorf("the refused worker made its data directory (%v)", err)
	}
}
