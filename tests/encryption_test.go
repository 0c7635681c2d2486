package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	querypb "go.temporal.io/api/query/v1"
	sdkpb "go.temporal.io/api/sdk/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
	"google.golang.org/protobuf/proto"

	"github.com/durabletodos/agenttodos/activities"
	"github.com/durabletodos/agenttodos/codec"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/identity"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/workflows"
)

// keyLines are fresh key file lines, one per ID.
func keyLines(t testing.TB, ids ...string) []string {
	t.Helper()
	out := make([]string, len(ids))
	for i, id := range ids {
		l, err := codec.NewKeyLine(id)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = l
	}
	return out
}

func parseKeys(t testing.TB, lines ...string) *codec.Keys {
	t.Helper()
	k, err := codec.ParseKeys(strings.Join(lines, "\n"), "test keys")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// encryptedClient talks to the shared server as the worker and the client
// do with encryption on (codec.Configure, the writer header encrypted too).
// It dials for itself: the test server's NewClientWithOptions is not safe
// for parallel tests.
func encryptedClient(t testing.TB, keys *codec.Keys) client.Client {
	t.Helper()
	opts := client.Options{
		HostPort: shared.server.GetFrontendHostPort(), Namespace: shared.server.GetDefaultNamespace(),
		Logger: sessiontest.QuietLogger(),
	}
	codec.Configure(&opts, keys)
	opts.ContextPropagators = []workflow.ContextPropagator{identity.Propagator{Converter: opts.DataConverter}}
	c, err := client.Dial(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// encryptedHarness is a worker and a client with keys, registered as the
// worker binary registers them.
func encryptedHarness(t *testing.T, keys *codec.Keys) *harness {
	return newHarness(t, harnessOptions{client: encryptedClient(t, keys), converter: codec.DataConverter(keys)})
}

// rawHistory is every event of a session's current run, as the server hands
// it to anyone who may read the namespace, in protobuf bytes.
func rawHistory(t *testing.T, id string) [][]byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	it := shared.client.GetWorkflowHistory(ctx, id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var out [][]byte
	for it.HasNext() {
		e, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		b, err := proto.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func mustMarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assertNoSecrets fails the test for each secret found in raw.
func assertNoSecrets(t *testing.T, where string, raw []byte, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		if i := bytes.Index(raw, []byte(s)); i >= 0 {
			t.Errorf("%s holds %q in clear: %q", where, s, raw[max(0, i-300):min(len(raw), i+100)])
		}
	}
}

// TestEncryptedSessionShowsNothingWithoutTheKeys writes a plan every way
// there is (update with a writer, signal, a rejected signal, an edit with a
// note, user metadata at start) with encryption on, then reads what the
// server holds through its API with a client that has no keys: no content,
// writer, note or summary anywhere, neither in history, in the description,
// in query results nor in the UI's current details. The counts stay
// readable as search attributes. The client with the keys reads it all.
func TestEncryptedSessionShowsNothingWithoutTheKeys(t *testing.T) {
	t.Parallel()
	keys := parseKeys(t, keyLines(t, "k1")...)
	h := encryptedHarness(t, keys)
	const id = "encrypted-session"
	secrets := []string{"zebra-ledger", "quokka-rollout", "dup-secret", "alice-the-auditor", "compliance-wants-it", "summary-secret", "details-secret"}

	ctx := h.ctx()
	if _, err := h.c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
		ID: id, TaskQueue: h.queue, StaticSummary: "summary-secret", StaticDetails: "details-secret",
	}, contract.WorkflowType, workflows.SessionInput{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.c.CancelWorkflow(context.Background(), id, "") })
	s := h.on(id)
	s.As = "alice-the-auditor"
	first := s.MustWrite("", writeArgs(plan("in_progress:Migrate the zebra-ledger", "pending:Plan the quokka-rollout")))
	s.Signal(contract.SignalTodoWrite, json.RawMessage(`{"todos":[{"content":"dup-secret","status":"pending"},{"content":"dup-secret","status":"pending"}]}`))
	s.Signal(contract.SignalTodoWrite, json.RawMessage(writeArgs(plan("completed:Migrate the zebra-ledger", "in_progress:Plan the quokka-rollout"))))
	sessiontest.WaitFor(t, 30*time.Second, "the signalled write", func() bool { return s.Todos().Seq >= first.Seq+2 })
	st := s.Todos()
	if _, err := s.Edit("", editArgs(plan("completed:Migrate the zebra-ledger", "completed:Plan the quokka-rollout"), st.Seq, "compliance-wants-it")); err != nil {
		t.Fatal(err)
	}
	_, err := s.Write("", `{"todos":[{"content":"dup-secret","status":"pending"},{"content":"dup-secret","status":"pending"}]}`)
	if err == nil || !strings.Contains(err.Error(), `invalid todos: duplicate content "dup-secret"`) {
		t.Fatalf("a rejected update through the client with the keys: %v", err)
	}

	// Without the keys: history, description, queries.
	for i, e := range rawHistory(t, id) {
		assertNoSecrets(t, fmt.Sprintf("history event %d", i+1), e, secrets)
	}
	desc, err := shared.client.WorkflowService().DescribeWorkflowExecution(ctx, &workflowservice.DescribeWorkflowExecutionRequest{
		Namespace: shared.server.GetDefaultNamespace(), Execution: &commonpb.WorkflowExecution{WorkflowId: id},
	})
	if err != nil {
		t.Fatal(err)
	}
	assertNoSecrets(t, "the workflow's description", mustMarshal(t, desc), secrets)
	for _, q := range []string{contract.QueryTodos, contract.QueryTodoHistory, contract.QuerySessionLog, "__temporal_workflow_metadata"} {
		res, err := shared.client.WorkflowService().QueryWorkflow(ctx, &workflowservice.QueryWorkflowRequest{
			Namespace: shared.server.GetDefaultNamespace(), Execution: &commonpb.WorkflowExecution{WorkflowId: id},
			Query: &querypb.WorkflowQuery{QueryType: q},
		})
		if err != nil {
			t.Fatalf("query %s: %v", q, err)
		}
		p := res.GetQueryResult().GetPayloads()
		if len(p) != 1 || string(p[0].GetMetadata()["encoding"]) != codec.Encoding {
			t.Errorf("query %s answered with %v", q, p)
		}
		assertNoSecrets(t, "query "+q, mustMarshal(t, res), secrets)
	}
	// An update refused by the validator: its message, which quotes the
	// list, travels encrypted too; the type stays readable.
	_, err = sessiontest.Write(ctx, shared.client, id, "", []byte(`{"todos":[{"content":"dup-secret","status":"pending"},{"content":"dup-secret","status":"pending"}]}`))
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != "InvalidTodos" || strings.Contains(err.Error(), "dup-secret") {
		t.Errorf("a rejected update through a client without the keys: %v", err)
	}
	// The counts and the workflow ID stay readable: `temporal workflow list`
	// still finds busy agents.
	sessiontest.WaitFor(t, 30*time.Second, "the session in a search on its counts", func() bool {
		res, err := shared.client.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{
			Query: fmt.Sprintf("WorkflowId = '%s' AND %s = 2", id, contract.SearchAttributeCompleted.GetName()),
		})
		return err == nil && res.GetCount() == 1
	})

	// With the keys: everything in clear.
	st = s.Todos()
	if st.Counts.Completed != 2 || st.Todos[0].Content != "Migrate the zebra-ledger" {
		t.Fatalf("todos with the keys: %+v", st)
	}
	hist := s.AllHistory()
	if len(hist) != 3 || hist[0].Source.By != "alice-the-auditor" || hist[2].Source.By != "alice-the-auditor" || hist[2].Source.Note != "compliance-wants-it" {
		t.Fatalf("todo_history with the keys: %+v", hist)
	}
	rejected := false
	for _, e := range s.Log() {
		if e.Type == sessionlog.TodoRejected {
			rejected = strings.Contains(string(e.Data), `duplicate content \"dup-secret\"`)
		}
	}
	if !rejected {
		t.Errorf("session_log with the keys has no rejected signal naming dup-secret: %+v", s.Log())
	}
	v, err := h.c.QueryWorkflow(ctx, id, "", "__temporal_workflow_metadata")
	if err != nil {
		t.Fatal(err)
	}
	var md sdkpb.WorkflowMetadata
	if err := v.Get(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.GetCurrentDetails(), "Plan the quokka-rollout") {
		t.Errorf("current details with the keys: %q", md.GetCurrentDetails())
	}
	d, err := h.c.DescribeWorkflowExecution(ctx, id, "")
	if err != nil {
		t.Fatal(err)
	}
	var summary string
	if err := codec.DataConverter(keys).FromPayload(d.GetExecutionConfig().GetUserMetadata().GetSummary(), &summary); err != nil || summary != "summary-secret" {
		t.Errorf("summary with the keys: %q, %v", summary, err)
	}
	s.AssertNoFailedTasks()
}

// payloadKeyIDs are the key IDs of the encrypted payloads in the events'
// update requests and results, in history order.
func payloadKeyIDs(t *testing.T, s sessiontest.Session) []string {
	t.Helper()
	var ids []string
	for _, e := range s.FetchHistory("").GetEvents() {
		var ps []*commonpb.Payload
		if a := e.GetWorkflowExecutionUpdateAcceptedEventAttributes(); a != nil {
			ps = a.GetAcceptedRequest().GetInput().GetArgs().GetPayloads()
		}
		for _, p := range ps {
			ids = append(ids, string(p.GetMetadata()[codec.MetadataKeyID]))
		}
	}
	return ids
}

// TestRotatedKeysStillReadOldSessions: a session written under key k1 keeps
// working on a worker restarted with k1 and a new k2 (the worker replays
// history written under k1); new writes are encrypted with k2.
func TestRotatedKeysStillReadOldSessions(t *testing.T) {
	t.Parallel()
	lines := keyLines(t, "k1", "k2")
	h := encryptedHarness(t, parseKeys(t, lines[0]))
	const id = "rotated-session"
	h.start(id, workflows.SessionInput{})
	before := h.on(id).MustWrite("", writeArgs(plan("in_progress:Written under k1")))
	h.worker.Stop()

	// The same task queue, a new worker and client holding both keys.
	rotated := parseKeys(t, lines...)
	c := encryptedClient(t, rotated)
	w := worker.New(c, h.queue, sessiontest.WorkerOptions())
	workflows.Register(w, &workflows.Config{SearchAttributes: true, DataConverter: codec.DataConverter(rotated)},
		&activities.Todos{}, &activities.Models{Client: c})
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	s := sessiontest.Session{T: t, C: c, ID: id, As: "bob"}
	if st := s.Todos(); st.Seq != before.Seq || st.Todos[0].Content != "Written under k1" {
		t.Fatalf("the old session after rotation: %+v", st)
	}
	s.MustWrite("", writeArgs(plan("completed:Written under k1", "in_progress:Written under k2")))
	hist := s.AllHistory()
	if len(hist) != 2 || hist[0].Todos[0].Content != "Written under k1" || hist[1].Source.By != "bob" {
		t.Fatalf("history after rotation: %+v", hist)
	}
	if got := strings.Join(payloadKeyIDs(t, s), ","); got != "k1,k2" {
		t.Errorf("the updates' arguments were encrypted with %s, want k1,k2", got)
	}
	// The worker needs every key its sessions' histories were written
	// with; a client reads answers, which the worker encrypts with the
	// newest key, so k2 alone is enough for it.
	only2 := sessiontest.Session{T: t, C: encryptedClient(t, parseKeys(t, lines[1])), ID: id}
	if st := only2.Todos(); st.Todos[1].Content != "Written under k2" {
		t.Fatalf("a client with k2 only: %+v", st)
	}
	s.AssertNoFailedTasks()
}

// TestClientAndMCPCommandsWithEncryptionKeys: the built client and its MCP
// server take --encryption-keys (or the variables) and work as ever; the
// client without the keys says what it lacks.
func TestClientAndMCPCommandsWithEncryptionKeys(t *testing.T) {
	t.Parallel()
	lines := keyLines(t, "k1")
	h := encryptedHarness(t, parseKeys(t, lines...))
	keyFile := filepath.Join(t.TempDir(), "keys")
	if err := os.WriteFile(keyFile, []byte(lines[0]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const id = "encrypted-client"
	if out, errOut, code := h.runClient("--encryption-keys", keyFile, "start", "--id", id); code != 0 {
		t.Fatalf("start: %d %s %s", code, out, errOut)
	}
	t.Cleanup(func() { _ = h.c.CancelWorkflow(context.Background(), id, "") })
	if out, errOut, code := h.runClientWith([]string{codec.EnvKeysFile + "=" + keyFile}, "", "--as", "carol", "write", id, "--todo", "doing:Rotate the walrus-keys"); code != 0 {
		t.Fatalf("write with $%s: %d %s %s", codec.EnvKeysFile, code, out, errOut)
	}
	out, errOut, code := h.runClientWith([]string{codec.EnvKeys + "=" + lines[0]}, "", "todos", id, "-o", "json")
	if code != 0 || !strings.Contains(out, "Rotate the walrus-keys") {
		t.Fatalf("todos with $%s: %d %s %s", codec.EnvKeys, code, out, errOut)
	}
	_, errOut, code = h.runClient("todos", id)
	if code != 1 || !strings.Contains(errOut, "the session's payloads are encrypted: give the client the worker's keys (--encryption-keys FILE") {
		t.Errorf("todos without the keys: %d %s", code, errOut)
	}
	if err := os.Chmod(keyFile, 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = h.runClient("--encryption-keys", keyFile, "todos", id)
	if code != 1 || !strings.Contains(errOut, "can be read by others (mode 0644): chmod 600 it") {
		t.Errorf("a key file others can read: %d %s", code, errOut)
	}
	if err := os.Chmod(keyFile, 0o600); err != nil {
		t.Fatal(err)
	}

	m, stderr := h.connectStdio("--session", id, "--encryption-keys", keyFile)
	if text, isErr := m.write(`{"todos":[{"content":"Rotate the walrus-keys","status":"completed"}]}`); isErr || text != "Updated todo list: 0 pending, 0 in progress, 1 completed." {
		t.Fatalf("todo_write over MCP: %q (stderr %s)", text, stderr)
	}
	if got := m.read(); got.Seq != 2 || got.Todos[0].Content != "Rotate the walrus-keys" {
		t.Fatalf("todo_read over MCP: %+v", got)
	}
	hist := h.on(id).AllHistory()
	if len(hist) != 2 || hist[0].Source.By != "carol" || hist[1].Source.By != "mcp:stdio-agent" {
		t.Fatalf("writers: %+v", hist)
	}
	for i, e := range rawHistory(t, id) {
		assertNoSecrets(t, fmt.Sprintf("history event %d", i+1), e, []string{"walrus-keys", "carol", "mcp:stdio-agent"})
	}
}
