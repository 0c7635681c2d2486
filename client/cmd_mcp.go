package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/embedded"
	"github.com/durabletodos/agenttodos/mcpserver"
)

func (a *app) mcpCommand() *cobra.Command {
	var session, httpAddr, taskQueue string
	var poll time.Duration
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve a session's plan to any agent over MCP (stdio, or streamable HTTP)",
		Long: `Serve the plan of an agent session over the Model Context Protocol, so any MCP
client (Claude Code, Codex, Gemini CLI, Cursor, your own) keeps its plan in a
durable session: tools todo_write (the session's own tool, same schema, rules
and messages) and todo_read, and the resource
agenttodos://sessions/<ID>/todos, with notifications/resources/updated to
subscribed clients when anyone changes the plan.

Over stdio (the default) the server is bound to --session, or to a new
session whose ID it prints on stderr and names in its instructions. With
--http, each MCP session is bound to the session its URL names
(` + "`?session=ID`" + `, or the ` + mcpserver.SessionHeader + ` header), else to
--session, else to a new one. A session of that ID that is not running is
started. Writes name their writer "mcp:<the client's name>".`,
		Example: `  client mcp                          # stdio, a new session
  client mcp --session demo           # stdio, the plan of session demo
  client mcp --http 127.0.0.1:8390    # streamable HTTP at http://127.0.0.1:8390/mcp
  go build -o ~/.local/bin/agent-todos ./client     # once, so agents run it from any directory
  claude mcp add agent-todos -- agent-todos mcp --session demo`,
		Args: positional(false),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if poll <= 0 {
				return usageErrorf("--poll must be positive (got %s)", poll)
			}
			c, err := a.connect()
			if err != nil {
				return err
			}
			sessions := mcpserver.New(mcpserver.Options{
				Client: c, TaskQueue: taskQueue, Poll: poll, DefaultSession: session,
				MaxUpdateBytes: embedded.MaxInFlightUpdatePayloads,
				Logger:         slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
				OnBind:         func(b *mcpserver.Bound) { a.announce(b.ID, b.Started) },
			})
			defer sessions.Close()
			if httpAddr != "" {
				return a.serveMCPHTTP(cmd.Context(), sessions, httpAddr)
			}
			return a.serveMCPStdio(cmd.Context(), sessions, session)
		},
	}
	f := cmd.Flags()
	f.StringVar(&session, "session", "", "bind to session `ID` (started if not running); default: a new session")
	f.StringVar(&httpAddr, "http", "", "serve streamable HTTP on `ADDR` (host:port, path /mcp) instead of stdio")
	f.StringVar(&taskQueue, "task-queue", cmp.Or(os.Getenv("AGENT_TASK_QUEUE"), contract.TaskQueue), "task `QUEUE` of the sessions it starts (env AGENT_TASK_QUEUE)")
	f.DurationVar(&poll, "poll", mcpserver.DefaultPoll, "how often a subscribed plan is checked for changes from outside")
	return cmd
}

// serveMCPStdio binds before it serves, so the session's ID is on stderr
// (and in the instructions) before the client's first request.
func (a *app) serveMCPStdio(ctx context.Context, sessions *mcpserver.Sessions, id string) error {
	b, err := sessions.Bind(ctx, id)
	if err != nil {
		return a.sessionError(id, err)
	}
	// stdout is the protocol's channel: nothing else may be written there.
	err = b.Server.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(a.stdin), Writer: nopCloser{a.stdout}})
	if ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		// The client hung up or the process was told to stop: done.
		return nil
	}
	return err
}

func (a *app) serveMCPHTTP(ctx context.Context, sessions *mcpserver.Sessions, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", sessions.HTTPHandler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(a.stderr, "MCP server (streamable HTTP) at http://%s/mcp; name a session with ?%s=ID\n", ln.Addr(), mcpserver.SessionQuery)
	return serve(ctx, srv, ln)
}

// announce tells the person who configured the agent where its plan is.
func (a *app) announce(id string, started bool) {
	verb := "bound to running"
	if started {
		verb = "started"
	}
	fmt.Fprintf(a.stderr, "agent-todos MCP server: %s session %s (resource %s)\n", verb, id, mcpserver.ResourceURI(id))
	if a.address == contract.DefaultFrontendAddress {
		fmt.Fprintf(a.stderr, "  watch it: http://%s/namespaces/%s/workflows/%s\n", contract.DefaultUIAddress, a.namespace, id)
	}
	fmt.Fprintf(a.stderr, "  steer it: client edit %s\n", id)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
