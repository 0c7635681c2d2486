package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/proxy"

	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/durabletodos/agenttodos/codec"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/notify"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/tests/chattest"
	"github.com/durabletodos/agenttodos/tests/sessiontest"
	"github.com/durabletodos/agenttodos/workflows"
)

// secretSet is every secret a worker can hold, each unguessable, so finding
// one anywhere can only mean it leaked.
type secretSet map[string]string

func newSecretSet() secretSet {
	stamp := fmt.Sprintf("%x", time.Now().UnixNano())
	return secretSet{
		"OPENAI_API_KEY": "sk-proj-openai-" + stamp + "-do-not-log",
		"webhook secret": "whsec-" + stamp + "-do-not-log",
	}
}

// find reports every secret that appears in text, by name.
func (s secretSet) find(where string, text []byte) []string {
	var leaks []string
	for name, v := range s {
		if bytes.Contains(text, []byte(v)) {
			leaks = append(leaks, fmt.Sprintf("%s in %s", name, where))
		}
	}
	return leaks
}

// TestSecretsNeverLeak runs a session with every secret the worker takes
// set, including a model call that fails with 401 from an endpoint that
// quotes the key back, and a webhook delivery. Then it looks for the
// secrets everywhere a person or program can see: the worker's logs (at
// debug), every run's history, the queries, the workflow's description
// (current details and pending activities), the Web UI's API, and the
// database files.
func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	secrets := newSecretSet()
	openAIKey := secrets["OPENAI_API_KEY"]
	chat := chattest.NewServer(t, "", func(_ int, req chattest.Request) (int, any) {
		// The worst provider: it quotes the whole key it refuses.
		key := strings.TrimPrefix(req.Auth, "Bearer ")
		return http.StatusUnauthorized, map[string]any{"error": map[string]any{
			"message": "Incorrect API key provided: " + key, "type": "invalid_request_error", "code": "invalid_api_key"}}
	})
	hooks := http.NewServeMux()
	delivered := make(chan struct{}, 1)
	hooks.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case delivered <- struct{}{}:
		default:
		}
	})
	rcvSrv := httptest.NewServer(hooks)
	t.Cleanup(rcvSrv.Close)
	rcv := rcvSrv.URL

	secretsFile := filepath.Join(t.TempDir(), "webhook-secrets")
	if err := os.WriteFile(secretsFile, []byte("hooks="+secrets["webhook secret"]+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// Payload encryption on, with the codec server's token: the keys and
	// the token are secrets too, and the histories are read decrypted as
	// well as raw, so encryption cannot hide a leak of the others.
	enc := newEncrypted(t)
	keyLine, _ := os.ReadFile(enc.keyFile)
	for _, line := range strings.Split(string(keyLine), "\n") {
		if id, key, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(id, "#") {
			secrets["encryption key "+id] = key
		}
	}
	secrets["codec token"] = enc.token
	// And API keys: the worker's, and the writer's this test reads with.
	secrets["worker API key"], secrets["writer API key"], secrets["reader API key"] = e2eWorkerKey, e2eWriterKey, e2eReaderKey
	cfg := enc.cfg
	cfg.Env = append(cfg.Env,
		"AGENT_API_KEYS="+writeKeys(t, 0o600), "TEMPORAL_API_KEY="+e2eWorkerKey, "TEMPORAL_TLS=false",
		"OPENAI_BASE_URL="+chat.URL+"/v1", "OPENAI_API_KEY="+openAIKey, "AGENT_MODEL=test-model",
		"AGENT_WEBHOOK_SECRETS="+secretsFile, "AGENT_LOG_LEVEL=debug",
	)
	w := startWorker(t, "secrets", cfg)
	c := enc.dialWithKey(t, e2eWriterKey)
	decode := codec.New(enc.keys)
	id := "secrets-session"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: contract.TaskQueue}, contract.WorkflowType,
		workflows.SessionInput{Subscribers: []notify.Subscriber{{ID: "hooks", URL: rcv + "/hook", SecretName: "hooks"}}}); err != nil {
		t.Fatal(err)
	}
	s := sessiontest.Session{T: t, C: c, ID: id}
	s.MustWrite("", `{"todos":[{"content":"Rotate the keys","status":"in_progress"}]}`)
	select {
	case <-delivered:
	case <-time.After(time.Minute):
		t.Fatal("no webhook delivery")
	}
	if _, err := s.Prompt("", "Go"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("prompt: %v, want the model's 401", err)
	}
	if chat.Count() == 0 {
		t.Fatal("the model was never called")
	}

	var leaks []string
	leaks = append(leaks, secrets.find("worker output", []byte(w.out.String()))...)
	s.Runs(func(runID string, hist *historypb.History) {
		// protojson shows payloads in base64: read their bytes as well,
		// as they are stored and as the codec decrypts them.
		raw, _ := protojson.Marshal(hist)
		var stored, clear bytes.Buffer
		if err := proxy.VisitPayloads(ctx, proto.Clone(hist), proxy.VisitPayloadsOptions{
			Visitor: func(_ *proxy.VisitPayloadsContext, p []*commonpb.Payload) ([]*commonpb.Payload, error) {
				for _, one := range p {
					stored.Write(one.GetData())
				}
				dec, err := decode.Decode(p)
				for _, one := range dec {
					clear.Write(one.GetData())
					for _, v := range one.GetMetadata() {
						clear.Write(v)
					}
				}
				return p, err
			},
		}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(clear.Bytes(), []byte("Rotate the keys")) {
			t.Fatalf("the decrypted history of run %s lacks the plan: the check reads nothing", runID)
		}
		leaks = append(leaks, secrets.find("history of run "+runID, append(raw, stored.Bytes()...))...)
		raw = clear.Bytes()
		leaks = append(leaks, secrets.find("decrypted history of run "+runID, raw)...)
	})
	for _, q := range []string{contract.QueryTodos, contract.QueryTodoHistory, contract.QuerySessionLog, contract.QuerySubscribers} {
		v, err := c.QueryWorkflow(ctx, id, "", q)
		if err != nil {
			t.Fatal(err)
		}
		var raw any
		_ = v.Get(&raw)
		leaks = append(leaks, secrets.find("query "+q, []byte(fmt.Sprint(raw)))...)
	}
	var turnFailed bool
	for _, e := range s.Log() {
		turnFailed = turnFailed || e.Type == sessionlog.TurnFailed
	}
	if !turnFailed {
		t.Fatal("the 401 left no turn/failed in the session log")
	}
	desc, err := c.WorkflowService().DescribeWorkflowExecution(ctx, &workflowservice.DescribeWorkflowExecutionRequest{
		Namespace: namespaceName, Execution: &commonpb.WorkflowExecution{WorkflowId: id}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := protojson.Marshal(desc)
	leaks = append(leaks, secrets.find("workflow description", raw)...)
	for _, path := range []string{
		"/api/v1/namespaces/" + namespaceName + "/workflows/" + id,
		"/api/v1/namespaces/" + namespaceName + "/workflows/" + id + "/history",
	} {
		body := uiGet(t, cfg.UIURL()+path, e2eReaderKey)
		leaks = append(leaks, secrets.find("UI "+path, body)...)
	}
	files, _ := filepath.Glob(filepath.Join(cfg.DataDir, "*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err == nil {
			leaks = append(leaks, secrets.find(filepath.Base(f), b)...)
		}
	}
	if len(leaks) > 0 {
		t.Fatalf("secrets leaked: %s", strings.Join(leaks, "; "))
	}
}

// uiGet fetches a page or API answer of the Web UI, as a browser would,
// with the API key a person types at its prompt.
func uiGet(t *testing.T, url, key string) []byte {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth("person", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", url, resp.Status, b)
	}
	return b
}
