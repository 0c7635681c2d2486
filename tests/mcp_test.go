package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/mcpserver"
	"github.com/durabletodos/agenttodos/todo"
	"github.com/durabletodos/agenttodos/tools"
	"github.com/durabletodos/agenttodos/workflows"
)

// mcpClient is the go-sdk's own MCP client on one connection, with the
// resource-updated notifications it received.
type mcpClient struct {
	t       testing.TB
	cs      *mcp.ClientSession
	updates chan string
}

func newMCPClient(t testing.TB, name string) (*mcp.Client, chan string) {
	updates := make(chan string, 64)
	c := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1.0"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updates <- req.Params.URI
		},
	})
	return c, updates
}

// mcpSessions is the MCP server of the harness's sessions, polling fast so
// tests hear of changes quickly.
func (h *harness) mcpSessions() *mcpserver.Sessions { return h.mcpSessionsWith(nil) }

// mcpSessionsWith also tells onBind of each session a server is bound to.
func (h *harness) mcpSessionsWith(onBind func(*mcpserver.Bound)) *mcpserver.Sessions {
	s := mcpserver.New(mcpserver.Options{Client: h.c, TaskQueue: h.queue, Poll: 50 * time.Millisecond, OnBind: onBind})
	h.t.Cleanup(s.Close)
	return s
}

// connectInMemory binds session id (a new one for "") and connects a client
// to it over the SDK's in-memory transport.
func connectInMemory(t testing.TB, sessions *mcpserver.Sessions, id string) (*mcpClient, *mcpserver.Bound) {
	t.Helper()
	ctx := context.Background()
	b, err := sessions.Bind(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := b.Server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c, updates := newMCPClient(t, "test-agent")
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &mcpClient{t: t, cs: cs, updates: updates}, b
}

// call runs one tool with raw JSON arguments and returns its text and
// whether it is an error result.
func (m *mcpClient) call(name, args string) (string, bool) {
	m.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var a any
	if args != "" {
		a = json.RawMessage(args)
	}
	res, err := m.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: a})
	if err != nil {
		m.t.Fatalf("%s %.80s: %v", name, args, err)
	}
	if len(res.Content) != 1 {
		m.t.Fatalf("%s: %d contents, want 1", name, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		m.t.Fatalf("%s: content %T, want text", name, res.Content[0])
	}
	return text.Text, res.IsError
}

func (m *mcpClient) write(args string) (string, bool) {
	m.t.Helper()
	return m.call(contract.ToolTodoWrite, args)
}

// read is todo_read, decoded.
func (m *mcpClient) read() mcpserver.Plan {
	m.t.Helper()
	text, isErr := m.call(mcpserver.ReadToolName, "{}")
	if isErr {
		m.t.Fatalf("todo_read: %s", text)
	}
	var p mcpserver.Plan
	if err := json.Unmarshal([]byte(text), &p); err != nil {
		m.t.Fatalf("todo_read %s: %v", text, err)
	}
	return p
}

// readResource reads the plan resource, decoded.
func (m *mcpClient) readResource(id string) mcpserver.Plan {
	m.t.Helper()
	res, err := m.cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: mcpserver.ResourceURI(id)})
	if err != nil {
		m.t.Fatal(err)
	}
	var p mcpserver.Plan
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &p); err != nil {
		m.t.Fatal(err)
	}
	return p
}

// waitUpdate waits for a resources/updated notification of uri.
func (m *mcpClient) waitUpdate(uri string) {
	m.t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case got := <-m.updates:
			if got == uri {
				return
			}
		case <-timeout:
			m.t.Fatalf("no notifications/resources/updated for %s", uri)
		}
	}
}

// contractErrors are the seed's rejections, one per rule, each with the
// exact tool result the model must see.
func contractErrors() []struct{ name, args, want string } {
	many := make([]string, 501)
	for i := range many {
		many[i] = fmt.Sprintf(`{"content":"t%d","status":"pending"}`, i)
	}
	big := make([]string, 100)
	for i := range big {
		big[i] = fmt.Sprintf(`{"content":"%d%s","status":"pending"}`, i, strings.Repeat("x", 3000))
	}
	return []struct{ name, args, want string }{
		{"not an object", `[]`, "Error: invalid todos: `todos` must be an array"},
		{"no todos", `{}`, "Error: invalid todos: `todos` must be an array"},
		{"todos not an array", `{"todos":{}}`, "Error: invalid todos: `todos` must be an array"},
		{"unknown top key", `{"todos":[],"zeta":1,"extra":2}`, `Error: invalid todos: unknown key "extra"`},
		{"too many", `{"todos":[` + strings.Join(many, ",") + `]}`, "Error: invalid todos: at most 500 items (got 501)"},
		{"item not an object", `{"todos":[{"content":"a","status":"pending"},"b"]}`, "Error: invalid todo: `todos[1]` must be an object"},
		{"unknown item key", `{"todos":[{"content":"a","status":"pending","id":1}]}`, `Error: invalid todo: unknown key "id"`},
		{"empty content", `{"todos":[{"content":"","status":"pending"}]}`, "Error: invalid todo: `content` must be a non-empty string"},
		{"blank content", `{"todos":[{"content":"  ","status":"pending"}]}`, "Error: invalid todo: `content` must be a non-empty string"},
		{"content too long", `{"todos":[{"content":"` + strings.Repeat("x", 4097) + `","status":"pending"}]}`, "Error: invalid todo: `content` exceeds 4096 bytes"},
		{"bad status", `{"todos":[{"content":"a","status":"done"}]}`, "Error: invalid todo: `status` must be one of pending, in_progress, completed"},
		{"duplicate", `{"todos":[{"content":"Run the tests","status":"pending"},{"content":"Run the tests","status":"completed"}]}`, `Error: invalid todos: duplicate content "Run the tests"`},
		{"list too large", `{"todos":[` + strings.Join(big, ",") + `]}`, "Error: invalid todos: list exceeds 262144 bytes"},
	}
}

// checkWriteReadAndErrors is the tools' contract over one connection:
// schemas, a write, a read, every rejection (the plan unchanged), and the
// writer recorded as the MCP client.
func checkWriteReadAndErrors(t *testing.T, h *harness, m *mcpClient, id string) {
	tl, err := m.cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]string{}
	for _, tool := range tl.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		schemas[tool.Name] = string(b)
	}
	want := tools.Definitions()[0]
	if !sameJSON(t, schemas[contract.ToolTodoWrite], string(want.Parameters)) {
		t.Errorf("todo_write schema %s, want client schema's %s", schemas[contract.ToolTodoWrite], want.Parameters)
	}
	if _, ok := schemas[mcpserver.ReadToolName]; !ok || len(schemas) != 2 {
		t.Errorf("tools %v, want todo_write and todo_read", schemas)
	}

	text, isErr := m.write(`{"todos":[{"content":"Read the code","status":"in_progress"},{"content":"Write the fix","status":"pending"}]}`)
	if isErr || text != "Updated todo list: 1 pending, 1 in progress, 0 completed." {
		t.Fatalf("todo_write: %q (error %v)", text, isErr)
	}
	plan := m.read()
	wantTodos := []todo.Item{{Content: "Read the code", Status: todo.InProgress}, {Content: "Write the fix", Status: todo.Pending}}
	if plan.Session != id || plan.Seq == 0 || !reflect.DeepEqual(plan.Todos, wantTodos) || plan.Counts != (todo.Counts{Pending: 1, InProgress: 1}) {
		t.Fatalf("todo_read: %+v", plan)
	}
	for _, c := range contractErrors() {
		text, isErr := m.write(c.args)
		if !isErr || text != c.want {
			t.Errorf("%s: %q (error %v), want %q", c.name, text, isErr, c.want)
		}
	}
	if after := m.read(); after.Seq != plan.Seq || !reflect.DeepEqual(after.Todos, wantTodos) {
		t.Errorf("rejected writes changed the plan: %+v", after)
	}
	hist := h.on(id).AllHistory()
	if len(hist) != 1 || hist[0].Source.By != "mcp:test-agent" || hist[0].Source.Kind != todo.SourceUpdate {
		t.Errorf("history %+v, want one write by mcp:test-agent", hist)
	}
}

func sameJSON(t *testing.T, a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// checkOutsideWriteNotifies subscribes to the plan and has someone else
// write it: the client hears of it without asking.
func checkOutsideWriteNotifies(t *testing.T, h *harness, m *mcpClient, id string) {
	uri := mcpserver.ResourceURI(id)
	if err := m.cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	alice := h.on(id)
	alice.As = "alice"
	alice.MustWrite("", `{"todos":[{"content":"Read the code","status":"completed"},{"content":"Write the fix","status":"in_progress"},{"content":"Run the tests","status":"pending"}]}`)
	m.waitUpdate(uri)
	if p := m.readResource(id); p.Counts != (todo.Counts{Pending: 1, InProgress: 1, Completed: 1}) || len(p.Todos) != 3 {
		t.Errorf("resource after the outside write: %+v", p)
	}
}

func TestMCPInMemoryWriteReadAndErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	m, b := connectInMemory(t, h.mcpSessions(), "")
	h.t.Cleanup(func() { _ = h.c.CancelWorkflow(context.Background(), b.ID, "") })
	if !b.Started || !strings.Contains(m.cs.InitializeResult().Instructions, b.ID) {
		t.Errorf("a new session %q should be started and named in the instructions: %q", b.ID, m.cs.InitializeResult().Instructions)
	}
	// The SDK's client offers the sessionless revision first and falls
	// back to the newest one with sessions.
	if v := m.cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Errorf("negotiated %q, want 2025-11-25", v)
	}
	checkWriteReadAndErrors(t, h, m, b.ID)
}

func TestMCPInMemoryOutsideWriteNotifies(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := "mcp-outside"
	h.start(id, workflows.SessionInput{})
	m, b := connectInMemory(t, h.mcpSessions(), id)
	if b.Started {
		t.Errorf("binding the running session %q started it again", id)
	}
	if text, _ := m.write(`{"todos":[{"content":"Read the code","status":"in_progress"}]}`); !strings.HasPrefix(text, "Updated") {
		t.Fatal(text)
	}
	checkOutsideWriteNotifies(t, h, m, id)
}

// A session that ended has no owner for the list: rule 11's message.
func TestMCPEndedSessionIsRule11(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	id := "mcp-ended"
	run := h.start(id, workflows.SessionInput{})
	m, _ := connectInMemory(t, h.mcpSessions(), id)
	if err := h.c.CancelWorkflow(context.Background(), id, ""); err != nil {
		t.Fatal(err)
	}
	_ = run.Get(context.Background(), nil)
	text, isErr := m.write(`{"todos":[]}`)
	if !isErr || text != "Error: todo_write requires an owning agent session" {
		t.Errorf("write to an ended session: %q (error %v)", text, isErr)
	}
}

// The plan is in Temporal: a new MCP server bound to the same session finds
// it whole and goes on from it.
func TestMCPInMemoryRestartLosesNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, harnessOptions{})
	first := h.mcpSessions()
	m, b := connectInMemory(t, first, "")
	id := b.ID
	h.t.Cleanup(func() { _ = h.c.CancelWorkflow(context.Background(), id, "") })
	m.write(`{"todos":[{"content":"Read the code","status":"completed"},{"content":"Write the fix","status":"in_progress"}]}`)
	before := m.read()
	m.cs.Close()
	first.Close()

	m2, b2 := connectInMemory(t, h.mcpSessions(), id)
	if b2.Started {
		t.Fatal("the restarted server started a new session instead of binding the old one")
	}
	if after := m2.read(); after.Seq != before.Seq || !reflect.DeepEqual(after.Todos, before.Todos) {
		t.Fatalf("after restart %+v, before %+v", after, before)
	}
	if text, _ := m2.write(`{"todos":[{"content":"Read the code","status":"completed"},{"content":"Write the fix","status":"completed"}]}`); text != "Updated todo list: 0 pending, 0 in progress, 2 completed." {
		t.Fatal(text)
	}
	if hist := h.on(id).AllHistory(); len(hist) != 2 {
		t.Errorf("history has %d snapshots, want both writes", len(hist))
	}
}
