// Package mcpserver serves an AgentSession's plan over the Model Context
// Protocol, so an agent we did not write (any MCP client) keeps its plan in a
// durable session: the todo_write tool is the seed's, sent to the session as
// the todo_write update; todo_read and a resource read the todos query.
package mcpserver

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/contract"
)

// Options says where sessions live and how the server behaves.
type Options struct {
	// Client talks to Temporal; it must carry identity.Propagator so the
	// writer header reaches the session, and the project's payload converter.
	Client client.Client
	// TaskQueue is where a new session's workflow runs (default
	// contract.TaskQueue).
	TaskQueue string
	// Poll is how often a subscribed plan is checked for changes (default
	// DefaultPoll).
	Poll time.Duration
	// MaxUpdateBytes, if set, refuses arguments Temporal would never deliver
	// in one update (embedded.MaxInFlightUpdatePayloads); see writeTool.
	MaxUpdateBytes int
	// DefaultSession is the session of an HTTP client that names none; empty
	// starts a new session for each such client.
	DefaultSession string
	// NewSessionID names a session started for a client that named none.
	NewSessionID func() string
	// OnBind, if set, hears of each session a server is bound to, once: the
	// command prints where to watch it.
	OnBind func(b *Bound)
	// Version is reported to clients as the server's version.
	Version string
	// Logger gets one line per bound session and what failed; nil is silent.
	Logger *slog.Logger
}

// DefaultPoll is a second: a person's edit reaches the agent's client about
// as fast as the Temporal UI shows it, and an idle session costs one
// DescribeWorkflowExecution a second (see watch.go).
const DefaultPoll = time.Second

// protocolVersions are the session-based revisions of MCP. The 2026-07-28
// revision has no sessions (each request stands alone), while this server
// binds each MCP session to one AgentSession; its clients fall back to the
// initialize handshake, which every agent runtime speaks.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

// Sessions hands out one MCP server per AgentSession: its tools, its
// resource and its watcher all name that one session. Several MCP sessions
// bound to the same AgentSession share its server.
type Sessions struct {
	opts Options
	// ctx ends the watchers when the server closes.
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	servers map[string]*Bound
}

// New returns the server factory for opts.
func New(opts Options) *Sessions {
	opts.TaskQueue = cmp.Or(opts.TaskQueue, contract.TaskQueue)
	opts.Poll = cmp.Or(opts.Poll, DefaultPoll)
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if opts.NewSessionID == nil {
		opts.NewSessionID = newSessionID
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Sessions{opts: opts, ctx: ctx, cancel: cancel, servers: map[string]*Bound{}}
}

// Close stops every watcher; the sessions themselves live on in Temporal.
func (s *Sessions) Close() { s.cancel() }

// Bound is the MCP server of one AgentSession.
type Bound struct {
	// ID is the session's workflow ID.
	ID string
	// Started says this server started the session (rather than finding it
	// running).
	Started bool
	Server  *mcp.Server

	sessions *Sessions
	watch    watcher
}

// Bind returns the server of session id, starting the session first if none
// of that ID is running; an empty id starts a new session.
func (s *Sessions) Bind(ctx context.Context, id string) (*Bound, error) {
	if id == "" {
		id = s.opts.NewSessionID()
	}
	s.mu.Lock()
	b, ok := s.servers[id]
	s.mu.Unlock()
	if ok {
		return b, nil
	}
	// Temporal is asked without the lock held: over HTTP every request
	// looks its server up here, and one slow start must not stall them.
	// Two first binds of one ID both ask; the first server stored wins.
	started, err := s.ensureSession(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("session %q: %w", id, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b, ok := s.servers[id]; ok {
		return b, nil
	}
	b = &Bound{ID: id, Started: started, sessions: s}
	b.Server = mcp.NewServer(&mcp.Implementation{Name: "agent-todos", Title: "Durable agent todos", Version: cmp.Or(s.opts.Version, "dev")}, &mcp.ServerOptions{
		Instructions:              instructions(id),
		Logger:                    s.opts.Logger,
		SupportedProtocolVersions: protocolVersions,
		// Subscribing starts the watcher; without one nothing polls.
		SubscribeHandler:   b.subscribe,
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
		Capabilities: &mcp.ServerCapabilities{
			Resources: &mcp.ResourceCapabilities{Subscribe: true},
			Tools:     &mcp.ToolCapabilities{},
		},
	})
	b.Server.AddTool(writeTool(), b.write)
	b.Server.AddTool(readTool(), b.read)
	b.Server.AddResource(planResource(id), b.readResource)
	s.servers[id] = b
	s.opts.Logger.Info("bound to agent session", "session", id, "started", started, "resource", ResourceURI(id))
	if s.opts.OnBind != nil {
		s.opts.OnBind(b)
	}
	return b, nil
}

// instructions tell the client which session holds its plan, so a person
// can open it in the Temporal UI and steer it.
func instructions(id string) string {
	return fmt.Sprintf(`Your todo list is kept durably in the agent session %q (a Temporal workflow): call todo_write with the ENTIRE list whenever your plan changes, and todo_read to see it. People may change the plan from outside; read it (todo_read, or the resource %s) before building on it.`, id, ResourceURI(id))
}
