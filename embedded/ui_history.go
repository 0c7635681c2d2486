package embedded

import (
	"context"
	"io"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	uiapi "github.com/temporalio/ui-server/v2/server/api"
	"go.temporal.io/api/workflowservice/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
)

// rawHistory answers the UI's raw history download (the history.json a
// workflow's page links to) under API keys. The UI server serves that one
// route with its own gRPC client instead of through grpc-gateway, so it
// sends the frontend no Authorization header, and the frontend refuses it
// ("needs an API key"). The gate serves it with the UI server's very
// handler, whose client adds the person's key: the same bytes, judged by
// the same role.
type rawHistory struct {
	handler http.Handler
	conn    *grpc.ClientConn
}

// isRawHistory says whether a request is for that route, which the UI
// server mounts as /api/v1 + uiapi.WorkflowRawHistoryUrl. The path is
// matched loosely and the handler's own router takes it apart, as the UI
// server's would; an http.ServeMux would redirect paths it finds unclean
// (a workflow ID with "//" in it) that the UI server serves as they are.
func isRawHistory(r *http.Request) bool {
	p := r.URL.Path
	return r.Method == http.MethodGet && strings.HasPrefix(p, "/api/v1/namespaces/") &&
		strings.Contains(p, "/run/") && strings.HasSuffix(p, "/history.json")
}

func newRawHistory(frontend string, sec security) (*rawHistory, error) {
	creds := insecure.NewCredentials()
	if sec.tls != nil {
		creds = credentials.NewTLS(sec.tls.clientConfig())
	}
	conn, err := grpc.NewClient(frontend, grpc.WithTransportCredentials(creds))
	if err != nil {
		return nil, err
	}
	e := echo.New()
	e.Logger.SetOutput(io.Discard)
	e.GET("/api/v1"+uiapi.WorkflowRawHistoryUrl, uiapi.WorkflowRawHistoryHandler(keyedHistory{workflowservice.NewWorkflowServiceClient(conn)}))
	return &rawHistory{handler: e, conn: conn}, nil
}

func (h *rawHistory) close() { _ = h.conn.Close() }

// personKey is the context key under which the gate hands a request's API
// key to keyedHistory.
type personKey struct{}

type keyedHistory struct {
	c workflowservice.WorkflowServiceClient
}

func (k keyedHistory) GetWorkflowExecutionHistory(ctx context.Context, req *workflowservice.GetWorkflowExecutionHistoryRequest, opts ...grpc.CallOption) (*workflowservice.GetWorkflowExecutionHistoryResponse, error) {
	if key, ok := ctx.Value(personKey{}).(string); ok {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+key)
	}
	return k.c.GetWorkflowExecutionHistory(ctx, req, opts...)
}
