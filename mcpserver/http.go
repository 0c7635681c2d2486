package mcpserver

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Over streamable HTTP a client names its session in the URL
// (?session=ID) or in a header, set once in its MCP configuration.
const (
	SessionQuery  = "session"
	SessionHeader = "Agent-Todos-Session"
)

type bindingKey struct{}

// HTTPHandler serves MCP over streamable HTTP. A client that connects
// (initializes) without naming a session gets a new one, named in the
// server's instructions and in the log; it stays bound to it for the life
// of its MCP session (its Mcp-Session-Id).
func (s *Sessions) HTTPHandler() http.Handler {
	// versionsOnly answers the SDK's protocol-version check on requests of
	// an MCP session that already exists: those are routed by their
	// Mcp-Session-Id to their own server, whichever this returns.
	versionsOnly := mcp.NewServer(&mcp.Implementation{Name: "agent-todos", Version: "dev"}, &mcp.ServerOptions{SupportedProtocolVersions: protocolVersions})
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		id, ok := r.Context().Value(bindingKey{}).(string)
		if !ok {
			return versionsOnly
		}
		b, err := s.Bind(r.Context(), id)
		if err != nil {
			s.opts.Logger.Error("cannot bind an MCP session", "session", id, "error", err)
			return nil
		}
		return b.Server
	}, nil)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.URL.Query().Get(SessionQuery)
		if id == "" {
			id = r.Header.Get(SessionHeader)
		}
		if id == "" {
			id = s.opts.DefaultSession
		}
		switch {
		case id != "":
			r = r.WithContext(context.WithValue(r.Context(), bindingKey{}, id))
		case r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "":
			// A new MCP session that named no agent session gets a new
			// one, chosen here once: the SDK asks for the server twice.
			r = r.WithContext(context.WithValue(r.Context(), bindingKey{}, s.opts.NewSessionID()))
		}
		h.ServeHTTP(w, r)
	})
}
