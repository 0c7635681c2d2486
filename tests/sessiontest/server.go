package sessiontest

import (
	"context"
	"maps"
	"testing"
	"time"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/temporal"
	"go.temporal.io/server/temporaltest"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/embedded"
)

// NewServer starts an in-process Temporal server configured as AgentSession
// needs (embedded.SessionLimits, the todo search attributes), plus extra
// dynamic config for one test.
func NewServer(t testing.TB, extra dynamicconfig.StaticClient, opts ...temporaltest.TestServerOption) *temporaltest.TestServer {
	dc := dynamicconfig.StaticClient{dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key(): true}
	maps.Copy(dc, embedded.SessionLimits())
	maps.Copy(dc, extra)
	opts = append(opts, temporaltest.WithBaseServerOptions(temporal.WithDynamicConfigClient(dc)))
	ts := temporaltest.NewServer(opts...)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	attrs := map[string]enums.IndexedValueType{}
	for _, name := range contract.SearchAttributeNames {
		attrs[name] = enums.INDEXED_VALUE_TYPE_INT
	}
	_, err := ts.GetDefaultClient().OperatorService().AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace: ts.GetDefaultNamespace(), SearchAttributes: attrs,
	})
	if err != nil {
		ts.Stop()
		t.Fatalf("register search attributes: %v", err)
	}
	return ts
}
