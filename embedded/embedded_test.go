package embedded

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

var testAttrs = []string{"TodoPending", "TodoInProgress"}

var pendingKey = temporal.NewSearchAttributeKeyInt64("TodoPending")

// upsertWorkflow exercises what the real workflows rely on: upserting a
// search attribute registered at start.
func upsertWorkflow(ctx workflow.Context) (string, error) {
	if err := workflow.UpsertTypedSearchAttributes(ctx, pendingKey.ValueSet(1)); err != nil {
		return "", err
	}
	return "done", nil
}

func testLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, nil))
}

func startServer(t *testing.T, opts Options) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	begin := time.Now()
	s, err := Start(ctx, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("Start took %v (frontend %s, UI %q)", time.Since(begin), s.FrontendAddress(), s.UIURL())
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

func stopServer(t *testing.T, s *Server) {
	t.Helper()
	begin := time.Now()
	if err := s.Stop(); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	took := time.Since(begin)
	t.Logf("Stop took %v", took)
	if took > 10*time.Second {
		t.Errorf("Stop took %v, want a few seconds at most", took)
	}
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

func dial(t *testing.T, s *Server) client.Client {
	t.Helper()
	c, err := client.Dial(client.Options{
		HostPort:  s.FrontendAddress(),
		Namespace: s.Namespace(),
		Logger:    sdklog.NewStructuredLogger(slog.New(slog.DiscardHandler)),
	})
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(c.Close)
	return c
}

func checkSearchAttributes(t *testing.T, c client.Client, namespace string, want []string) {
	t.Helper()
	resp, err := c.OperatorService().ListSearchAttributes(context.Background(),
		&operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		t.Fatalf("ListSearchAttributes: %v", err)
	}
	for _, name := range want {
		if got := resp.GetCustomAttributes()[name]; got != enumspb.INDEXED_VALUE_TYPE_INT {
			t.Errorf("search attribute %s: type %v, want Int (all: %v)", name, got, resp.GetCustomAttributes())
		}
	}
}

func listCount(t *testing.T, c client.Client, namespace, query string) int {
	t.Helper()
	resp, err := c.ListWorkflow(context.Background(), &workflowservice.ListWorkflowExecutionsRequest{
		Namespace: namespace,
		Query:     query,
	})
	if err != nil {
		t.Fatalf("list %q: %v", query, err)
	}
	return len(resp.GetExecutions())
}

func TestRestartKeepsState(t *testing.T) {
	dir := t.TempDir()
	opts := Options{
		DataDir:          dir,
		FrontendAddress:  "127.0.0.1:0",
		UIAddress:        "127.0.0.1:0",
		SearchAttributes: testAttrs,
		Logger:           testLogger(),
	}

	s := startServer(t, opts)
	if s.Namespace() != DefaultNamespace {
		t.Errorf("Namespace() = %q, want %q", s.Namespace(), DefaultNamespace)
	}
	c := dial(t, s)
	if _, err := c.WorkflowService().DescribeNamespace(context.Background(),
		&workflowservice.DescribeNamespaceRequest{Namespace: s.Namespace()}); err != nil {
		t.Fatalf("DescribeNamespace: %v", err)
	}
	checkSearchAttributes(t, c, s.Namespace(), testAttrs)
	// The query the worker's users are told to run must be valid at once.
	listCount(t, c, s.Namespace(), "TodoInProgress > 0")

	if !strings.HasPrefix(s.UIURL(), "http://127.0.0.1:") {
		t.Errorf("UIURL() = %q", s.UIURL())
	}
	resp, err := http.Get(s.UIURL() + "/")
	if err != nil {
		t.Fatalf("GET UI: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET UI: status %d, want 200", resp.StatusCode)
	}

	const taskQueue = "embedded-test"
	w := worker.New(c, taskQueue, worker.Options{})
	w.RegisterWorkflow(upsertWorkflow)
	if err := w.Start(); err != nil {
		t.Fatalf("worker start: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "restart-test", TaskQueue: taskQueue}, upsertWorkflow)
	if err != nil {
		t.Fatalf("ExecuteWorkflow: %v", err)
	}
	var result string
	if err := run.Get(ctx, &result); err != nil || result != "done" {
		t.Fatalf("workflow result %q, err %v", result, err)
	}
	w.Stop()
	c.Close()
	stopServer(t, s)

	// Restart on the same file with one more attribute, as a new worker
	// version would: the namespace must gain it without losing the others.
	opts.SearchAttributes = append(testAttrs, "TodoCompleted")
	s = startServer(t, opts)
	c = dial(t, s)
	desc, err := c.DescribeWorkflowExecution(context.Background(), "restart-test", run.GetRunID())
	if err != nil {
		t.Fatalf("DescribeWorkflowExecution after restart: %v", err)
	}
	if got := desc.GetWorkflowExecutionInfo().GetStatus(); got != enumspb.WORKFLOW_EXECUTION_STATUS_COMPLETED {
		t.Errorf("status after restart: %v, want completed", got)
	}
	checkSearchAttributes(t, c, s.Namespace(), opts.SearchAttributes)
	if n := listCount(t, c, s.Namespace(), "TodoPending = 1"); n != 1 {
		t.Errorf("visibility after restart: %d executions with TodoPending = 1, want 1", n)
	}
	stopServer(t, s)
}

func TestTwoServersAtOnce(t *testing.T) {
	var (
		wg      sync.WaitGroup
		servers [2]*Server
		errs    [2]error
	)
	for i := range servers {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			servers[i], errs[i] = Start(ctx, Options{
				FrontendAddress:  "127.0.0.1:0",
				UIAddress:        "127.0.0.1:0",
				SearchAttributes: testAttrs,
			})
		})
	}
	wg.Wait()
	for i, s := range servers {
		if errs[i] != nil {
			t.Fatalf("server %d: %v", i, errs[i])
		}
		t.Cleanup(func() { _ = s.Stop() })
	}
	if servers[0].FrontendAddress() == servers[1].FrontendAddress() {
		t.Fatalf("both servers on %s", servers[0].FrontendAddress())
	}
	for _, s := range servers {
		c := dial(t, s)
		checkSearchAttributes(t, c, s.Namespace(), testAttrs)
	}
	for _, s := range servers {
		stopServer(t, s)
	}
}

func TestBusyPortIsAnError(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, err = Start(context.Background(), Options{FrontendAddress: l.Addr().String(), UIAddress: UIDisabled})
	if err == nil {
		t.Fatal("Start on a busy port succeeded")
	}
	t.Logf("got expected error: %v", err)
}

func TestDataDirIsExclusive(t *testing.T) {
	dir := t.TempDir()
	opts := Options{DataDir: dir, FrontendAddress: "127.0.0.1:0", UIAddress: UIDisabled}
	startServer(t, opts)
	if _, err := Start(context.Background(), opts); err == nil {
		t.Fatal("second Start on the same DataDir succeeded")
	}
}
