package main

import (
	"context"
	"log/slog"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/workflows"
)

// searchAttributesRegistered checks that the todo search attributes exist as
// Int on the namespace. Upserting an unregistered one would fail every
// workflow task of every session, so without them sessions run without
// search attributes and the worker says so once.
func searchAttributesRegistered(ctx context.Context, c client.Client, namespace string, logger *slog.Logger) bool {
	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		logger.Warn("Cannot list search attributes; sessions will not upsert TodoPending/TodoInProgress/TodoCompleted", "error", err)
		return false
	}
	var missing []string
	for _, name := range workflows.SearchAttributeNames {
		if resp.GetCustomAttributes()[name] != enums.INDEXED_VALUE_TYPE_INT {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		logger.Warn("Todo search attributes are not registered; sessions run without them. Register them with: "+
			"temporal operator search-attribute create --name TodoPending --type Int --name TodoInProgress --type Int --name TodoCompleted --type Int",
			"missing", missing, "namespace", namespace)
		return false
	}
	return true
}
