package main

import (
	"context"
	"log/slog"

	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/workflows"
)

// searchAttributesRegistered says whether sessions may upsert the todo search
// attributes, and tells a person once, at start-up, how to fix it when not.
func searchAttributesRegistered(ctx context.Context, c client.Client, namespace string, logger *slog.Logger) bool {
	missing, err := workflows.MissingSearchAttributes(ctx, c, namespace)
	if err != nil {
		logger.Warn("Cannot list search attributes; sessions will not upsert TodoPending/TodoInProgress/TodoCompleted", "error", err)
		return false
	}
	if len(missing) > 0 {
		logger.Warn("Todo search attributes are not registered; sessions run without them. Register them with: "+
			"temporal operator search-attribute create --name TodoPending --type Int --name TodoInProgress --type Int --name TodoCompleted --type Int",
			"missing", missing, "namespace", namespace)
		return false
	}
	return true
}
