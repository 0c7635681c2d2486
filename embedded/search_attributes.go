package embedded

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/server/common/dynamicconfig"
)

// addMissingSearchAttributes adds, through the operator API of the running
// server, the Int search attributes that an existing namespace lacks: a
// database made before an attribute was added to the program, or a
// namespace created by hand. It is what `temporal operator search-attribute
// create` does; createNamespace leaves existing namespaces alone.
//
// It returns once ListSearchAttributes, the worker's start-up check, shows
// every attribute as Int, and Start returns only after it, so that check
// sees them. An upsert right after is accepted too: the server starts with
// ForceSearchAttributesCacheRefreshOnRead (config.go), so every service
// reads a namespace's attribute aliases and types from the database, not
// from its caches, until settleSearchAttributeCache turns that off. It
// reports whether it added any.
func addMissingSearchAttributes(ctx context.Context, t frontendTarget, namespace string, names []string, logger *slog.Logger) (bool, error) {
	if len(names) == 0 {
		return false, nil
	}
	c, err := dialFrontend(ctx, t, namespace, logger)
	if err != nil {
		return false, err
	}
	defer c.Close()
	ops := c.OperatorService()

	missing, err := missingIntAttributes(ctx, ops, namespace, names)
	if err != nil || len(missing) == 0 {
		return false, err
	}
	add := make(map[string]enumspb.IndexedValueType, len(missing))
	for _, name := range missing {
		add[name] = enumspb.INDEXED_VALUE_TYPE_INT
	}
	if _, err := ops.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace:        namespace,
		SearchAttributes: add,
	}); err != nil {
		return false, fmt.Errorf("adding search attributes %v to namespace %q: %w", missing, namespace, err)
	}
	still, err := missingIntAttributes(ctx, ops, namespace, names)
	if err != nil {
		return true, err
	}
	if len(still) > 0 {
		return true, fmt.Errorf("search attributes %v still missing from namespace %q after adding them", still, namespace)
	}
	logger.Info("Added search attributes", "namespace", namespace, "attributes", missing)
	return true, nil
}

// searchAttributeCacheTTL is how long the server's search-attribute cache
// keeps the attributes' types before it reads them again
// (cacheRefreshInterval in go.temporal.io/server/common/searchattribute),
// with a margin. The namespace cache, which holds their aliases, refreshes
// every 2 s (system.namespaceCacheRefreshInterval).
const searchAttributeCacheTTL = 65 * time.Second

// settleSearchAttributeCache turns ForceSearchAttributesCacheRefreshOnRead
// off: the server then serves search attributes from its caches, as any
// Temporal cluster does. Without it every upsert cost two database reads on
// the write path, one of them under a process-wide lock (README,
// "Performance and reliability": a write read 1.23x–1.32x a no-op update
// with it on, 1.16x–1.20x off). If Start added attributes, a cache loaded
// before that could still lack them for up to searchAttributeCacheTTL, so
// the forced reads go on until then.
//
// Attributes someone adds later, with `temporal operator search-attribute
// create`, are usable within that time as well, not at once.
func (s *Server) settleSearchAttributeCache(added bool) {
	settle := func() {
		s.dynamicConfig.OverrideValue(dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key(), false)
	}
	if !added {
		settle()
		return
	}
	s.cacheSettled = time.AfterFunc(searchAttributeCacheTTL, settle)
}

// forcedSearchAttributeReads says the server still reads search attributes
// from the database on every use.
func (s *Server) forcedSearchAttributeReads() bool {
	v := s.dynamicConfig.GetValue(dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key())
	return len(v) > 0 && v[0].Value == true
}

// missingIntAttributes lists which names the namespace lacks. A name that
// exists with another type is an error: adding it again would fail, and
// the workflows' Int upserts would be rejected.
func missingIntAttributes(ctx context.Context, ops operatorservice.OperatorServiceClient, namespace string, names []string) ([]string, error) {
	resp, err := ops.ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return nil, fmt.Errorf("listing search attributes of namespace %q: %w", namespace, err)
	}
	var missing []string
	for _, name := range names {
		typ, ok := resp.GetCustomAttributes()[name]
		switch {
		case !ok:
			missing = append(missing, name)
		case typ != enumspb.INDEXED_VALUE_TYPE_INT:
			return nil, fmt.Errorf("search attribute %q already exists in namespace %q with type %s, want Int", name, namespace, typ)
		}
	}
	return missing, nil
}
