package workflows

import (
	"context"

	"go.temporal.io/api/enums/v1"
	"go.temporal.io/api/operatorservice/v1"
	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/contract"
)

// MissingSearchAttributes returns which of the todo search attributes are not
// registered as Int on the namespace. A worker sets Config.SearchAttributes
// only when none is missing: upserting an unregistered one would fail every
// workflow task of every session.
func MissingSearchAttributes(ctx context.Context, c client.Client, namespace string) ([]string, error) {
	resp, err := c.OperatorService().ListSearchAttributes(ctx, &operatorservice.ListSearchAttributesRequest{Namespace: namespace})
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, name := range contract.SearchAttributeNames {
		if resp.GetCustomAttributes()[name] != enums.INDEXED_VALUE_TYPE_INT {
			missing = append(missing, name)
		}
	}
	return missing, nil
}
