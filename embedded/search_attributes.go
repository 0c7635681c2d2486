package embedded

import (
	"context"
	"fmt"
	"log/slog"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
)

// addMissingSearchAttributes adds, through the operator API of the running
// server, the Int search attributes that an existing namespace lacks: a
// database made before an attribute was added to the program, or a
// namespace created by hand. It is what `temporal operator search-attribute
// create` does; createNamespace leaves existing namespaces alone.
//
// It returns once ListSearchAttributes, the worker's start-up check, shows
// every attribute as Int, and Start returns only after it, so that check
// sees them. An upsert right after is accepted too: the server runs with
// ForceSearchAttributesCacheRefreshOnRead (config.go), so every service
// reads a namespace's attribute aliases from the database, not from its
// namespace cache, which refreshes only every 2 s.
func addMissingSearchAttributes(ctx context.Context, t frontendTarget, namespace string, names []string, logger *slog.Logger) error {
	if len(names) == 0 {
		return nil
	}
	c, err := dialFrontend(ctx, t, namespace, logger)
	if err != nil {
		return err
	}
	defer c.Close()
	ops := c.OperatorService()

	missing, err := missingIntAttributes(ctx, ops, namespace, names)
	if err != nil || len(missing) == 0 {
		return err
	}
	add := make(map[string]enumspb.IndexedValueType, len(missing))
	for _, name := range missing {
		add[name] = enumspb.INDEXED_VALUE_TYPE_INT
	}
	if _, err := ops.AddSearchAttributes(ctx, &operatorservice.AddSearchAttributesRequest{
		Namespace:        namespace,
		SearchAttributes: add,
	}); err != nil {
		return fmt.Errorf("adding search attributes %v to namespace %q: %w", missing, namespace, err)
	}
	still, err := missingIntAttributes(ctx, ops, namespace, names)
	if err != nil {
		return err
	}
	if len(still) > 0 {
		return fmt.Errorf("search attributes %v still missing from namespace %q after adding them", still, namespace)
	}
	return nil
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
