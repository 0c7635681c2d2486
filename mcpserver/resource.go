package mcpserver

import (
	"context"
	"net/url"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/durabletodos/agenttodos/payloads"
)

// ResourceURI names the plan of session id as an MCP resource.
func ResourceURI(id string) string {
	return "agenttodos://sessions/" + url.PathEscape(id) + "/todos"
}

func planResource(id string) *mcp.Resource {
	return &mcp.Resource{
		URI:         ResourceURI(id),
		Name:        "todos",
		Title:       "Plan of agent session " + id,
		Description: "The current todo list of the agent session, as todo_read returns it; subscribe to hear when anyone changes it.",
		MIMEType:    "application/json",
	}
}

func (b *Bound) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	plan, err := b.plan(ctx)
	if err != nil {
		return nil, err
	}
	text, err := payloads.Marshal(plan)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: ResourceURI(b.ID), MIMEType: "application/json", Text: string(text)}}}, nil
}
