package embedded

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	batchpb "go.temporal.io/api/batch/v1"
	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/serviceerror"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/durabletodos/agenttodos/apikeys"
	"github.com/durabletodos/agenttodos/tests/testca"
)

const (
	readerKey = "reader-key-0123456789abcdef"
	writerKey = "writer-key-0123456789abcdef"
	workerKey = "worker-key-0123456789abcdef"
	adminKey  = "admin-key-0123456789abcdef"
)

func testKeys(t *testing.T) *apikeys.Keys {
	t.Helper()
	k, err := apikeys.New([]apikeys.Entry{
		{Name: "alice", Role: apikeys.Reader, Key: readerKey},
		{Name: "bob", Role: apikeys.Writer, Key: writerKey},
		{Name: "the-worker", Role: apikeys.Worker, Key: workerKey},
		{Name: "ops", Role: apikeys.Admin, Key: adminKey},
	})
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// waitForGo returns what the "go" signal carries: the batch test's target.
func waitForGo(ctx workflow.Context) (string, error) {
	var v string
	workflow.GetSignalChannel(ctx, "go").Receive(ctx, &v)
	return v, nil
}

// dialKey connects with an API key (empty: none) over plain text, as
// TEMPORAL_API_KEY with TEMPORAL_TLS=false does. Dialing itself needs no
// key: the SDK asks only GetSystemInfo, a health check.
func dialKey(t *testing.T, s *Server, key string) client.Client {
	t.Helper()
	opts := client.Options{
		HostPort:          s.FrontendAddress(),
		Namespace:         s.Namespace(),
		ConnectionOptions: client.ConnectionOptions{TLSDisabled: true},
		Logger:            sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)),
	}
	if key != "" {
		opts.Credentials = client.NewAPIKeyStaticCredentials(key)
	}
	c, err := client.Dial(opts)
	if err != nil {
		t.Fatalf("dial with key %q: %v", key, err)
	}
	t.Cleanup(c.Close)
	return c
}

// denied checks err is the authorizer's PermissionDenied with this reason
// and a message holding every one of want.
func denied(t *testing.T, what string, err error, reason string, want ...string) {
	t.Helper()
	var pd *serviceerror.PermissionDenied
	if !errors.As(err, &pd) {
		t.Fatalf("%s: %v, want PermissionDenied", what, err)
	}
	if pd.Reason != reason {
		t.Errorf("%s: reason %q, want %q (message %q)", what, pd.Reason, reason, pd.Message)
	}
	for _, w := range want {
		if !strings.Contains(pd.Message, w) {
			t.Errorf("%s: message %q lacks %q", what, pd.Message, w)
		}
	}
}

func describeNamespace(c client.Client, ns string) error {
	_, err := c.WorkflowService().DescribeNamespace(context.Background(), &workflowservice.DescribeNamespaceRequest{Namespace: ns})
	return err
}

// TestAPIKeysDecideWhatEachCallerMayDo runs a server with API keys and
// calls it as nobody, as a stranger and as each role: each may do what its
// role says and is told clearly what it may not; the server's own workers
// (the batch below) and Start's own set-up (the search attributes) are not
// locked out.
func TestAPIKeysDecideWhatEachCallerMayDo(t *testing.T) {
	s := startServer(t, Options{
		FrontendAddress:  "127.0.0.1:0",
		UIAddress:        "127.0.0.1:0",
		SearchAttributes: testAttrs,
		APIKeys:          testKeys(t),
		Logger:           testLogger(),
	})
	ns := s.Namespace()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	denied(t, "no key", describeNamespace(dialKey(t, s, ""), ns), "NoAPIKey", "needs an API key", "TEMPORAL_API_KEY")
	denied(t, "unknown key", describeNamespace(dialKey(t, s, "guess-0123456789abcdef"), ns), "UnknownAPIKey", "unknown API key")

	reader, writer, workerC, admin := dialKey(t, s, readerKey), dialKey(t, s, writerKey), dialKey(t, s, workerKey), dialKey(t, s, adminKey)
	if err := describeNamespace(reader, ns); err != nil {
		t.Fatalf("reader describes the namespace: %v", err)
	}
	// Start registered the search attributes through the internal
	// frontend, as the server; a reader may list them.
	checkSearchAttributes(t, reader, ns, testAttrs)

	const taskQueue = "embedded-keys-test"
	start := func(c client.Client, id string) (client.WorkflowRun, error) {
		return c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue}, waitForGo)
	}
	_, err := start(reader, "by-reader")
	denied(t, "reader starts a workflow", err, "RoleDenied", `"alice" is a reader key`, "may only read", "StartWorkflowExecution")
	_, err = start(workerC, "by-worker")
	denied(t, "worker starts a workflow", err, "RoleDenied", `"the-worker" is a worker key`, "StartWorkflowExecution")
	run, err := start(writer, "by-writer")
	if err != nil {
		t.Fatalf("writer starts a workflow: %v", err)
	}

	// A writer is not a worker: it cannot take the session's tasks.
	_, err = writer.WorkflowService().PollWorkflowTaskQueue(ctx, &workflowservice.PollWorkflowTaskQueueRequest{
		Namespace: ns, TaskQueue: &taskqueuepb.TaskQueue{Name: taskQueue}, Identity: "impostor",
	})
	denied(t, "writer polls workflow tasks", err, "RoleDenied", `"bob" is a writer key`, "not process tasks", "PollWorkflowTaskQueue")

	// The worker's key runs the worker.
	w := worker.New(workerC, taskQueue, worker.Options{})
	w.RegisterWorkflow(waitForGo)
	if err := w.Start(); err != nil {
		t.Fatalf("worker with the worker key: %v", err)
	}
	defer w.Stop()

	denied(t, "reader signals", reader.SignalWorkflow(ctx, "by-writer", "", "go", "reader"), "RoleDenied", "SignalWorkflowExecution")
	denied(t, "worker signals", workerC.SignalWorkflow(ctx, "by-writer", "", "go", "worker"), "RoleDenied", "SignalWorkflowExecution")

	// The writer signals through a batch, which the server's own worker
	// service runs against the internal frontend.
	if _, err := writer.WorkflowService().StartBatchOperation(ctx, &workflowservice.StartBatchOperationRequest{
		Namespace:       ns,
		JobId:           "signal-by-batch",
		Reason:          "test",
		VisibilityQuery: `WorkflowId = "by-writer"`,
		Operation: &workflowservice.StartBatchOperationRequest_SignalOperation{SignalOperation: &batchpb.BatchOperationSignal{
			Signal: "go", Input: mustPayloads(t, "batch"), Identity: "bob",
		}},
	}); err != nil {
		t.Fatalf("writer starts a batch: %v", err)
	}
	var got string
	if err := run.Get(ctx, &got); err != nil || got != "batch" {
		t.Fatalf("the batch's signal: result %q, %v", got, err)
	}

	// Administration is for the admin.
	addAttr := &operatorservice.AddSearchAttributesRequest{
		Namespace: ns, SearchAttributes: map[string]enumspb.IndexedValueType{"TodoCompleted": enumspb.INDEXED_VALUE_TYPE_INT},
	}
	_, err = writer.OperatorService().AddSearchAttributes(ctx, addAttr)
	denied(t, "writer adds a search attribute", err, "RoleDenied", "AddSearchAttributes")
	if _, err := admin.OperatorService().AddSearchAttributes(ctx, addAttr); err != nil {
		t.Fatalf("admin adds a search attribute: %v", err)
	}
	// Cluster administration is nobody's: the embedded server has one
	// namespace, and its keys are that namespace's.
	_, err = admin.OperatorService().ListClusters(ctx, &operatorservice.ListClustersRequest{})
	denied(t, "admin lists clusters", err, "RoleDenied", "not administer the cluster")
	err = describeNamespace(admin, "temporal-system")
	denied(t, "admin reads another namespace", err, "OtherNamespace", `no access to namespace "temporal-system"`)
}

func mustPayloads(t *testing.T, v any) *commonpb.Payloads {
	t.Helper()
	p, err := converter.GetDefaultDataConverter().ToPayloads(v)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// uiRequest sends one request to the Web UI's API as a browser would, with
// the key as the Basic password (none when empty).
func uiRequest(t *testing.T, s *Server, method, path, key, body string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.UIURL()+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.SetBasicAuth("someone", key)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b)
}

// TestWebUIAsksForTheAPIKey: under API keys the UI asks the browser for a
// key (HTTP Basic, the key as password), refuses an unknown one, and does
// with a known one exactly what its role allows: a reader sees a workflow
// and may not signal it, a writer may. A page of another site cannot make
// the browser write with the person's key.
func TestWebUIAsksForTheAPIKey(t *testing.T) {
	s := startServer(t, Options{
		FrontendAddress: "127.0.0.1:0",
		UIAddress:       "127.0.0.1:0",
		APIKeys:         testKeys(t),
		Logger:          testLogger(),
	})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := dialKey(t, s, writerKey).ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "in-the-ui", TaskQueue: "nobody-polls"}, waitForGo)
	if err != nil {
		t.Fatal(err)
	}
	describe := "/api/v1/namespaces/" + s.Namespace() + "/workflows/in-the-ui"
	signal := describe + "/signal/go"
	signalBody := `{"input":{"payloads":[{"metadata":{"encoding":"anNvbi9wbGFpbg=="},"data":"InVpIg=="}]}}`

	for _, key := range []string{"", "guess-0123456789abcdef"} {
		status, h, _ := uiRequest(t, s, http.MethodGet, "/", key, "", nil)
		if status != http.StatusUnauthorized || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Basic ") {
			t.Errorf("key %q: status %d, WWW-Authenticate %q; want 401 asking for Basic", key, status, h.Get("WWW-Authenticate"))
		}
	}
	if status, _, body := uiRequest(t, s, http.MethodGet, "/", readerKey, "", nil); status != http.StatusOK || !strings.Contains(body, "<html") {
		t.Errorf("the UI's page for a reader: %d\n%.300s", status, body)
	}
	status, _, body := uiRequest(t, s, http.MethodGet, describe, readerKey, "", nil)
	if status != http.StatusOK || !strings.Contains(body, "waitForGo") {
		t.Fatalf("a reader describes the workflow in the UI: %d\n%s", status, body)
	}
	// The raw history download, which the UI server fetches outside
	// grpc-gateway, carries the reader's key too.
	status, _, body = uiRequest(t, s, http.MethodGet, "/api/v1/namespaces/"+s.Namespace()+"/workflows/in-the-ui/run/"+run.GetRunID()+"/history.json", readerKey, "", nil)
	if status != http.StatusOK || !strings.HasPrefix(body, "[") || !strings.Contains(body, `"event_id":1`) || strings.Contains(body, `"error"`) {
		t.Fatalf("a reader downloads the raw history in the UI: %d\n%.500s", status, body)
	}
	status, _, body = uiRequest(t, s, http.MethodPost, signal, readerKey, signalBody, nil)
	if status != http.StatusForbidden || !strings.Contains(body, `\"alice\" is a reader key`) && !strings.Contains(body, `"alice" is a reader key`) {
		t.Fatalf("a reader signals in the UI: %d, want 403 naming the reader\n%s", status, body)
	}
	status, _, body = uiRequest(t, s, http.MethodPost, signal, writerKey, signalBody, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"})
	if status != http.StatusForbidden {
		t.Fatalf("a writer's browser sent a signal from another site: %d, want 403\n%s", status, body)
	}
	status, _, body = uiRequest(t, s, http.MethodPost, signal, writerKey, signalBody, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": s.UIURL()})
	if status != http.StatusOK {
		t.Fatalf("a writer signals in the UI: %d\n%s", status, body)
	}
	// Only the writer's own signal arrived.
	signals := 0
	it := dialKey(t, s, readerKey).GetWorkflowHistory(ctx, "in-the-ui", run.GetRunID(), false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if e.GetEventType() == enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED {
			signals++
		}
	}
	if signals != 1 {
		t.Errorf("%d signals in the history, want the writer's one", signals)
	}
}

// TestAPIKeysOverMutualTLS: with both, a client certificate alone is not
// a key, and the UI needs both the browser's certificate and the key; the
// raw history download reaches the frontend over TLS with the person's key.
func TestAPIKeysOverMutualTLS(t *testing.T) {
	ca := testca.New(t, "test")
	pair := ca.Server(t, "server", "localhost", "127.0.0.1")
	s := startServer(t, Options{
		FrontendAddress: "127.0.0.1:0",
		UIAddress:       "127.0.0.1:0",
		APIKeys:         testKeys(t),
		TLS:             &TLSOptions{CertFile: pair.CertFile, KeyFile: pair.KeyFile, ClientCAFile: ca.CertFile},
		Logger:          testLogger(),
	})
	alice := ca.Client(t, "alice").TLSCertificate(t)
	conf := &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{alice}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dial := func(key string) client.Client {
		opts := client.Options{
			HostPort: s.FrontendAddress(), Namespace: s.Namespace(),
			ConnectionOptions: client.ConnectionOptions{TLS: conf},
			Logger:            sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)),
		}
		if key != "" {
			opts.Credentials = client.NewAPIKeyStaticCredentials(key)
		}
		c, err := client.DialContext(ctx, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.Close)
		return c
	}
	denied(t, "a certificate without a key", describeNamespace(dial(""), s.Namespace()), "NoAPIKey", "needs an API key")
	run, err := dial(writerKey).ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "mtls-keys", TaskQueue: "nobody-polls"}, waitForGo)
	if err != nil {
		t.Fatal(err)
	}

	history := s.UIURL() + "/api/v1/namespaces/" + s.Namespace() + "/workflows/mtls-keys/run/" + run.GetRunID() + "/history.json"
	get := func(certs []tls.Certificate, key string) (int, string, error) {
		req, err := http.NewRequest(http.MethodGet, history, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth("alice", key)
		resp, err := httpsClient(ca.Pool(), certs...).Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), err
	}
	if status, _, err := get(nil, readerKey); err == nil {
		t.Fatalf("the UI with a key and no certificate: %d", status)
	}
	if status, _, err := get([]tls.Certificate{alice}, "guess-0123456789abcdef"); err != nil || status != http.StatusUnauthorized {
		t.Fatalf("the UI with a certificate and an unknown key: %d %v", status, err)
	}
	status, body, err := get([]tls.Certificate{alice}, readerKey)
	if err != nil || status != http.StatusOK || !strings.Contains(body, `"event_id":1`) || strings.Contains(body, `"error"`) {
		t.Fatalf("the raw history with a certificate and the reader's key: %d %v\n%.500s", status, err, body)
	}
}
