package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
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
		case r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && isInitialize(r):
			// A new MCP session that named no agent session gets a new
			// one, chosen here once: the SDK asks for the server twice.
			r = r.WithContext(context.WithValue(r.Context(), bindingKey{}, s.opts.NewSessionID()))
		}
		h.ServeHTTP(w, r)
	})
}

// maxInitializeBytes bounds how much of a request is read to see whether it
// is an initialize; a real one is a few hundred bytes.
const maxInitializeBytes = 64 << 10

// isInitialize says whether the request opens an MCP session. Only that one
// gets a new agent session: a client probing first with the sessionless
// revision's server/discover (as the Go SDK's does) must not start a
// session nobody will use. The body is put back for the SDK to read.
func isInitialize(r *http.Request) bool {
	if r.Body == nil {
		return false
	}
	head, err := io.ReadAll(io.LimitReader(r.Body, maxInitializeBytes))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
	if err != nil {
		return false
	}
	var msg struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(head, &msg) == nil && msg.Method == "initialize"
}
