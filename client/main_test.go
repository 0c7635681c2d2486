package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/tools"
)

// fakeClient answers the few calls a command makes, so command output can
// be checked without a Temporal server. Any other call panics on the nil
// embedded interface, which flags a command doing more than expected.
type fakeClient struct {
	client.Client
	updates []client.UpdateWorkflowOptions
	signals []any
	// updateResult is the JSON an update returns; updateErr fails it.
	updateResult string
	updateErr    error
	// queries maps a query name to the JSON it returns.
	queries map[string]string
}

func (f *fakeClient) Close() {}

func (f *fakeClient) UpdateWorkflow(_ context.Context, o client.UpdateWorkflowOptions) (client.WorkflowUpdateHandle, error) {
	f.updates = append(f.updates, o)
	return fakeHandle{f}, nil
}

func (f *fakeClient) SignalWorkflow(_ context.Context, _, _, _ string, arg any) error {
	f.signals = append(f.signals, arg)
	return nil
}

// QueryWorkflow answers a paged query with one page, then an empty one.
func (f *fakeClient) QueryWorkflow(_ context.Context, _, _, name string, args ...any) (converter.EncodedValue, error) {
	if len(args) > 0 && args[0].(sessionlog.PageRequest).AfterSeq > 0 {
		return jsonValue("[]"), nil
	}
	return jsonValue(f.queries[name]), nil
}

type fakeHandle struct{ f *fakeClient }

func (fakeHandle) WorkflowID() string { return "" }
func (fakeHandle) RunID() string      { return "" }
func (fakeHandle) UpdateID() string   { return "" }
func (h fakeHandle) Get(_ context.Context, ptr any) error {
	if h.f.updateErr != nil {
		return h.f.updateErr
	}
	return jsonValue(h.f.updateResult).Get(ptr)
}

// jsonValue is a result as the SDK hands it over: a JSON payload decoded by
// the default data converter (so RawValue works as it does for real).
type jsonValue string

func (v jsonValue) HasValue() bool { return true }
func (v jsonValue) Get(ptr any) error {
	p := rawJSON([]byte(v)).Payload()
	return converter.GetDefaultDataConverter().FromPayload(p, ptr)
}

func testApp(fc *fakeClient) (*app, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	a := &app{
		stdout: &out,
		stderr: &errOut,
		stdin:  strings.NewReader(""),
		dial: func(*app) (client.Client, error) {
			if fc == nil {
				return nil, errors.New("test dialled a server")
			}
			return fc, nil
		},
	}
	return a, &out, &errOut
}

// run runs a command line that must succeed and returns what it printed.
func run(t *testing.T, a *app, args ...string) string {
	t.Helper()
	out := a.stdout.(*bytes.Buffer)
	out.Reset()
	if code := a.main(context.Background(), args); code != 0 {
		t.Fatalf("%q: exit %d: %s", args, code, a.stderr)
	}
	return out.String()
}

// rejection builds the error a client sees when the update validator
// rejects a list: the workflow's ApplicationError, through the failure
// converter as the SDK carries it, wrapped once more for good measure.
func rejection(msg string) error {
	fc := temporal.GetDefaultFailureConverter()
	appErr := temporal.NewNonRetryableApplicationError(msg, "InvalidTodos", nil)
	return errors.Join(fc.FailureToError(fc.ErrorToFailure(appErr)))
}

func TestWriteSendsRawArgsAndPrintsTheResult(t *testing.T) {
	fc := &fakeClient{updateResult: `{"todos":[{"content":"Run the tests","status":"in_progress"},{"content":"Ship","status":"pending"}],"counts":{"pending":1,"inProgress":1,"completed":0},"message":"Updated todo list: 1 pending, 1 in progress, 0 completed.","seq":3}`}
	a, _, _ := testApp(fc)
	out := run(t, a, "write", "S1", "--todo", "doing:Run the tests", "--todo", "p:Ship", "--update-id", "u-7")
	want := "Updated todo list: 1 pending, 1 in progress, 0 completed.\n" +
		"Plan · 0/2 completed · 1 in progress · 1 pending · seq 3\n" +
		"[▒▒▒▒▒▒▒▒▒▒░░░░░░░░░░] 0%\n" +
		"  🔄 Run the tests\n" +
		"  ⬜ Ship\n"
	if out != want {
		t.Fatalf("got\n%s\nwant\n%s", out, want)
	}
	u := fc.updates[0]
	if u.WorkflowID != "S1" || u.UpdateName != contract.UpdateTodoWrite || u.UpdateID != "u-7" || u.WaitForStage != client.WorkflowUpdateStageCompleted {
		t.Fatalf("update %+v", u)
	}
	raw, ok := u.Args[0].(converter.RawValue)
	if !ok {
		t.Fatalf("argument is %T, want converter.RawValue", u.Args[0])
	}
	if got := string(raw.Payload().GetData()); got != `{"todos":[{"content":"Run the tests","status":"in_progress"},{"content":"Ship","status":"pending"}]}` {
		t.Fatalf("sent %s", got)
	}
}

func TestWriteJSONPrintsTheResultAsReturned(t *testing.T) {
	result := `{"todos":[],"counts":{"pending":0,"inProgress":0,"completed":0},"message":"Updated todo list: 0 pending, 0 in progress, 0 completed.","seq":9}`
	a, _, _ := testApp(&fakeClient{updateResult: result})
	if out := run(t, a, "write", "--clear", "--output", "json", "S1"); out != result+"\n" {
		t.Fatalf("got %s", out)
	}
}

func TestRejectedWritePrintsTheContractMessage(t *testing.T) {
	msg := `invalid todo: unknown key "priority"`
	fc := &fakeClient{updateErr: rejection(msg)}
	a, out, errOut := testApp(fc)
	a.stdin, a.stdinPiped = strings.NewReader(`{"todos":[{"content":"a","status":"pending","priority":1}]}`), true
	code := a.main(context.Background(), []string{"write", "S1"})
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	if errOut.String() != "Error: "+msg+"\n" || out.Len() != 0 {
		t.Fatalf("stderr %q stdout %q", errOut, out)
	}
	if got := string(fc.updates[0].Args[0].(converter.RawValue).Payload().GetData()); got != `{"todos":[{"content":"a","status":"pending","priority":1}]}` {
		t.Fatalf("sent %s", got)
	}
}

func TestSignalSendsRawArgs(t *testing.T) {
	fc := &fakeClient{}
	a, _, _ := testApp(fc)
	if out := run(t, a, "signal", "S1", "--todo", "c:Done"); out != "signalled\n" {
		t.Fatalf("got %q", out)
	}
	if got := string(fc.signals[0].(converter.RawValue).Payload().GetData()); got != `{"todos":[{"content":"Done","status":"completed"}]}` {
		t.Fatalf("sent %s", got)
	}
}

func TestTodosJSONIsTheQueryResultExactly(t *testing.T) {
	state := `{"todos":[{"content":"a","status":"pending"}],"counts":{"pending":1,"inProgress":0,"completed":0},"seq":4,"updatedAt":"2025-01-02T03:04:05Z"}`
	fc := &fakeClient{queries: map[string]string{contract.QueryTodos: state}}
	a, _, _ := testApp(fc)
	if out := run(t, a, "todos", "S1", "-o", "json"); out != state+"\n" {
		t.Fatalf("got %s", out)
	}
	if out := run(t, a, "todos", "S1"); !strings.HasPrefix(out, "Plan · 0/1 completed · 0 in progress · 1 pending · seq 4\n") {
		t.Fatalf("got %s", out)
	}
}

func TestOutputFormatsOfAList(t *testing.T) {
	snap := `{"seq":1,"todos":[{"content":"a","status":"pending"}],"counts":{"pending":1,"inProgress":0,"completed":0},"at":"2025-01-02T03:04:05Z","source":{"kind":"update","id":"u-1"}}`
	fc := &fakeClient{queries: map[string]string{contract.QueryTodoHistory: "[" + snap + "," + strings.Replace(snap, `"seq":1`, `"seq":2`, 1) + "]"}}
	a, _, _ := testApp(fc)
	var list []json.RawMessage
	if out := run(t, a, "-o", "json", "history", "S1"); json.Unmarshal([]byte(out), &list) != nil || len(list) != 2 || strings.Count(out, "\n") != 1 {
		t.Fatalf("json: want one array of 2 on one line, got %s", out)
	}
	lines := strings.Split(strings.TrimSuffix(run(t, a, "history", "S1", "--output=jsonl"), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"seq":1,`) || !strings.HasPrefix(lines[1], `{"seq":2,`) {
		t.Fatalf("jsonl: want one snapshot a line, got %q", lines)
	}
	if out := run(t, a, "history", "S1", "--color", "always"); !strings.Contains(out, "\x1b[1m#1\x1b[0m") {
		t.Fatalf("--color always on a pipe: %q", out)
	}
}

// Flags go before or after the positional arguments; "--" ends them, so a
// message may hold words that look like flags.
func TestFlagsAnywhereAndDoubleDash(t *testing.T) {
	fc := &fakeClient{updateResult: `"Done."`}
	a, _, _ := testApp(fc)
	out := run(t, a, "prompt", "--output", "json", "S1", "-n", "ns", "--", "Add", "a", "--json", "flag")
	if got := fc.updates[0].Args[0]; got != "Add a --json flag" || out != `{"session":"S1","answer":"Done."}`+"\n" {
		t.Fatalf("sent %q, printed %q", got, out)
	}
	a, out2, errOut := testApp(nil)
	if code := a.main(context.Background(), []string{"prompt", "S1", "Add", "a", "--json", "flag"}); code != 2 || out2.Len() != 0 ||
		errOut.String() != `client: unknown flag: --json; words of a message that start with "-" go after "--" (see 'client prompt --help')`+"\n" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestSchemaPrintsTheToolDefinition(t *testing.T) {
	a, _, _ := testApp(nil)
	out := strings.NewReader(run(t, a, "schema"))
	var got struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	dec := json.NewDecoder(out)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	def := tools.Definitions()[0]
	if got.Name != "todo_write" || got.Description != def.Description {
		t.Fatalf("got %+v", got)
	}
	var a1, a2 any
	if json.Unmarshal(got.Parameters, &a1) != nil || json.Unmarshal(def.Parameters, &a2) != nil {
		t.Fatal("parameters are not JSON")
	}
	b1, _ := json.Marshal(a1)
	b2, _ := json.Marshal(a2)
	if !bytes.Equal(b1, b2) {
		t.Fatalf("parameters differ:\n%s\n%s", b1, b2)
	}
}

func TestUsageErrorsNeverDial(t *testing.T) {
	cases := [][]string{
		{},
		{"nope"},
		{"write"},
		{"write", "S1"},
		{"write", "S1", "--todo", "Run the tests"},
		{"write", "S1", "--todo", "later:Run the tests"},
		{"write", "S1", "--bogus"},
		{"todos"},
		{"todos", "S1", "S2"},
		{"prompt", "S1"},
		{"run"},
		{"start", "--script", "x.json", "--model", "gpt-5"},
		{"history", "S1", "--after", "-1"},
		{"todos", "S1", "--watch", "--interval", "0s"},
		{"run", "--interval", "0s", "Plan it"},
		{"todos", "S1", "-o", "yaml"},
		{"todos", "S1", "--color", "sometimes"},
	}
	for _, args := range cases {
		a, out, errOut := testApp(nil)
		if code := a.main(context.Background(), args); code != 2 {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut)
		}
		if out.Len() != 0 {
			t.Errorf("%q: stdout %q", args, out)
		}
	}
}

func TestHelp(t *testing.T) {
	a, _, _ := testApp(nil)
	if out := run(t, a, "help"); !strings.Contains(out, "todos") {
		t.Fatalf("help: %s", out)
	}
	if out := run(t, a, "help", "write"); !strings.Contains(out, "--update-id ID") {
		t.Fatalf("help write: %s", out)
	}
}

func TestUnreachableServerHint(t *testing.T) {
	a, _, errOut := testApp(nil)
	a.dial = func(a *app) (client.Client, error) {
		return nil, &unreachableError{address: "127.0.0.1:7233", err: errors.New("connection refused")}
	}
	if code := a.main(context.Background(), []string{"todos", "S1"}); code != 1 {
		t.Fatalf("exit %d", code)
	}
	if errOut.String() != "client: cannot reach Temporal at 127.0.0.1:7233: is the worker running? (go run ./worker)\n" {
		t.Fatalf("got %q", errOut)
	}
	// A server that refuses the handshake is running: say what it refused.
	a, _, errOut = testApp(nil)
	a.dial = func(a *app) (client.Client, error) {
		return nil, &unreachableError{address: "127.0.0.1:7233", err: errors.New(`connection error: desc = "error reading server preface: remote error: tls: certificate required"`)}
	}
	if code := a.main(context.Background(), []string{"todos", "S1"}); code != 1 {
		t.Fatalf("exit %d", code)
	}
	if got := errOut.String(); !strings.Contains(got, "over TLS: ") || !strings.Contains(got, "tls: certificate required") || !strings.Contains(got, "--tls-cert-path") {
		t.Fatalf("got %q", got)
	}
}
