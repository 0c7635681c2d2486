package mcpserver

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// writerName is who a write says it comes from: "mcp:" and the name the MCP
// client gave itself (claude-code, codex, ...), so a person reading the
// plan's history sees which agent wrote. Like every writer name it is a
// claim, not a credential.
func writerName(req *mcp.CallToolRequest) string {
	name := ""
	if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
		name = p.ClientInfo.Name
	}
	if name == "" {
		// Clients of the sessionless revision name themselves in each
		// request's _meta instead.
		if v, ok := req.Params.Meta[mcp.MetaKeyClientInfo]; ok {
			var impl mcp.Implementation
			if b, err := json.Marshal(v); err == nil && json.Unmarshal(b, &impl) == nil {
				name = impl.Name
			}
		}
	}
	if name == "" {
		return "mcp"
	}
	return "mcp:" + name
}
