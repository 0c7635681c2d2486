package embedded

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"

	"github.com/durabletodos/agenttodos/tests/testca"
)

// dialTLS connects with the given TLS settings (nil: plain text) and
// proves the connection with a namespace call; the error is the refusal.
func dialTLS(s *Server, conf *tls.Config) (client.Client, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.DialContext(ctx, client.Options{
		HostPort:          s.FrontendAddress(),
		Namespace:         s.Namespace(),
		ConnectionOptions: client.ConnectionOptions{TLS: conf},
		Logger:            sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)),
	})
	if err != nil {
		return nil, err
	}
	if _, err := c.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: s.Namespace()}); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

func mustRefuse(t *testing.T, what string, s *Server, conf *tls.Config) {
	t.Helper()
	c, err := dialTLS(s, conf)
	if err == nil {
		c.Close()
		t.Fatalf("%s: connected", what)
	}
	t.Logf("%s refused: %v", what, err)
}

func mustConnect(t *testing.T, what string, s *Server, conf *tls.Config) client.Client {
	t.Helper()
	c, err := dialTLS(s, conf)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	t.Cleanup(c.Close)
	return c
}

// runUpsertWorkflow runs a workflow on a worker of c: the whole server
// (frontend, history, matching, visibility) works over this connection.
func runUpsertWorkflow(t *testing.T, c client.Client, id string) {
	t.Helper()
	const taskQueue = "embedded-tls-test"
	w := worker.New(c, taskQueue, worker.Options{})
	w.RegisterWorkflow(upsertWorkflow)
	if err := w.Start(); err != nil {
		t.Fatalf("worker start: %v", err)
	}
	defer w.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue}, upsertWorkflow)
	if err != nil {
		t.Fatalf("ExecuteWorkflow: %v", err)
	}
	var result string
	if err := run.Get(ctx, &result); err != nil || result != "done" {
		t.Fatalf("workflow result %q, err %v", result, err)
	}
}

// uiGet fetches a path of the Web UI with the given client and returns the
// status and body.
func uiGet(t *testing.T, hc *http.Client, s *Server, path string) (int, string, error) {
	t.Helper()
	resp, err := hc.Get(s.UIURL() + path)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// presenting is a TLS client that presents cert whatever CAs the server
// asks for: with Certificates, Go would send nothing rather than a
// certificate of a CA the server did not name, and the test would prove
// less than it says.
func presenting(roots *x509.CertPool, cert tls.Certificate) *tls.Config {
	return &tls.Config{RootCAs: roots, GetClientCertificate: func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }}
}

func httpsClient(roots *x509.CertPool, certs ...tls.Certificate) *http.Client {
	return &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots, Certificates: certs}},
	}
}

// TestTLSServesOnlyTLS: with a certificate the frontend and the UI speak
// only TLS, which also lifts the loopback-only rule; a client that trusts
// the CA works without a certificate of its own, and the UI reaches the
// frontend over TLS.
func TestTLSServesOnlyTLS(t *testing.T) {
	ca := testca.New(t, "test")
	pair := ca.Server(t, "server", "localhost", "127.0.0.1")
	s := startServer(t, Options{
		FrontendAddress:  "0.0.0.0:0", // allowed with TLS
		UIAddress:        "127.0.0.1:0",
		SearchAttributes: testAttrs,
		TLS:              &TLSOptions{CertFile: pair.CertFile, KeyFile: pair.KeyFile},
		Logger:           testLogger(),
	})

	mustRefuse(t, "plain-text client", s, nil)
	mustRefuse(t, "TLS client that does not trust the CA", s, &tls.Config{})
	c := mustConnect(t, "TLS client trusting the CA", s, &tls.Config{RootCAs: ca.Pool()})
	checkSearchAttributes(t, c, s.Namespace(), testAttrs)
	runUpsertWorkflow(t, c, "tls-only")

	if !strings.HasPrefix(s.UIURL(), "https://127.0.0.1:") {
		t.Fatalf("UIURL() = %q, want https", s.UIURL())
	}
	hc := httpsClient(ca.Pool())
	// The UI server answers this from the frontend, over its own TLS
	// connection.
	status, body, err := uiGet(t, hc, s, "/api/v1/namespaces/"+s.Namespace()+"/workflows/tls-only")
	if err != nil || status != http.StatusOK || !strings.Contains(body, "upsertWorkflow") {
		t.Fatalf("UI API over TLS: %d %v\n%s", status, err, body)
	}
	plain := &http.Client{Timeout: 10 * time.Second}
	if resp, err := plain.Get(strings.Replace(s.UIURL(), "https:", "http:", 1) + "/"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Fatal("the UI answered plain HTTP")
		}
	}
}

// TestMutualTLSRequiresAClientCertificate: with a client CA, a client
// needs a certificate signed by it, at the frontend and at the UI; the UI
// still reaches the frontend.
func TestMutualTLSRequiresAClientCertificate(t *testing.T) {
	ca := testca.New(t, "test")
	pair := ca.Server(t, "server", "localhost", "127.0.0.1")
	s := startServer(t, Options{
		FrontendAddress:  "127.0.0.1:0",
		UIAddress:        "127.0.0.1:0",
		SearchAttributes: testAttrs,
		TLS:              &TLSOptions{CertFile: pair.CertFile, KeyFile: pair.KeyFile, ClientCAFile: ca.CertFile},
		Logger:           testLogger(),
	})
	stranger := testca.New(t, "stranger").Client(t, "mallory").TLSCertificate(t)
	alice := ca.Client(t, "alice").TLSCertificate(t)

	mustRefuse(t, "client without a certificate", s, &tls.Config{RootCAs: ca.Pool()})
	mustRefuse(t, "client with a certificate of another CA", s, presenting(ca.Pool(), stranger))
	c := mustConnect(t, "client with a certificate of the CA", s, &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{alice}})
	runUpsertWorkflow(t, c, "mutual-tls")

	path := "/api/v1/namespaces/" + s.Namespace() + "/workflows/mutual-tls"
	if status, _, err := uiGet(t, httpsClient(ca.Pool()), s, path); err == nil {
		t.Fatalf("UI without a client certificate: status %d", status)
	}
	strangerUI := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{TLSClientConfig: presenting(ca.Pool(), stranger)}}
	if status, _, err := uiGet(t, strangerUI, s, path); err == nil {
		t.Fatalf("UI with another CA's certificate: status %d", status)
	}
	status, body, err := uiGet(t, httpsClient(ca.Pool(), alice), s, path)
	if err != nil || status != http.StatusOK || !strings.Contains(body, "upsertWorkflow") {
		t.Fatalf("UI with a certificate of the CA: %d %v\n%s", status, err, body)
	}
}

// TestNonLoopbackListenNeedsTLS: plain text on an address other machines
// reach is refused, naming the flags, unless said to be intended.
func TestNonLoopbackListenNeedsTLS(t *testing.T) {
	for _, o := range []Options{
		{FrontendAddress: "0.0.0.0:0", UIAddress: UIDisabled},
		{FrontendAddress: "[::]:0", UIAddress: UIDisabled},
		{FrontendAddress: "127.0.0.1:0", UIAddress: "0.0.0.0:0"},
	} {
		_, err := Start(context.Background(), o)
		var insecure *InsecureListenError
		if !errors.As(err, &insecure) || !strings.Contains(err.Error(), "--insecure-listen") || !strings.Contains(err.Error(), "--tls-cert") {
			t.Errorf("%+v: %v, want an InsecureListenError naming --tls-cert and --insecure-listen", o, err)
		}
	}
	s := startServer(t, Options{FrontendAddress: "0.0.0.0:0", UIAddress: UIDisabled, InsecureListen: true})
	mustConnect(t, "plain-text client of an insecure listener", s, nil)
}

// TestTLSOptionsAreCheckedAtStart: a mistake in the files is reported with
// the flag that names it, before anything starts.
func TestTLSOptionsAreCheckedAtStart(t *testing.T) {
	ca := testca.New(t, "test")
	good := ca.Server(t, "server", "localhost", "127.0.0.1")
	other := ca.Server(t, "other", "localhost")
	noNames := ca.Server(t, "nameless")
	expired := ca.Expired(t, "expired", "localhost")
	for _, c := range []struct {
		tls  TLSOptions
		want string
	}{
		{TLSOptions{CertFile: good.CertFile}, "both the server's certificate and its key"},
		{TLSOptions{ClientCAFile: ca.CertFile}, "needs the server's own certificate"},
		{TLSOptions{}, "both the server's certificate and its key"},
		{TLSOptions{CertFile: good.CertFile, KeyFile: other.KeyFile}, "--tls-cert " + good.CertFile},
		{TLSOptions{CertFile: noNames.CertFile, KeyFile: noNames.KeyFile}, "names no host"},
		{TLSOptions{CertFile: expired.CertFile, KeyFile: expired.KeyFile}, "not now"},
		{TLSOptions{CertFile: good.CertFile, KeyFile: good.KeyFile, ClientCAFile: good.KeyFile}, "holds no PEM certificate"},
		{TLSOptions{CertFile: good.CertFile + ".missing", KeyFile: good.KeyFile}, "--tls-cert: "},
	} {
		_, err := Start(context.Background(), Options{FrontendAddress: "127.0.0.1:0", UIAddress: UIDisabled, TLS: &c.tls})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.tls, err, c.want)
		}
	}
}
