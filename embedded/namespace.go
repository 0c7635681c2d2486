package embedded

import (
	"fmt"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/server/common/config"
	sqliteschema "go.temporal.io/server/schema/sqlite"
)

// createNamespace registers the namespace, with its Int search attributes,
// in a database the server has not opened yet, through the server's own
// helpers, as `temporal server start-dev` does: local namespace, 24h
// retention, archival off. A new database thus holds everything before it is
// renamed into place (dbcreate.go), and the first start needs no second step.
//
// A namespace that already exists is left exactly as it is (that is what
// CreateNamespaces does): attributes it lacks are added after the server has
// started, through the operator API (search_attributes.go), so this program
// never writes namespace records itself.
func createNamespace(conf *config.SQL, name string, intAttrs []string) error {
	attrs := make(map[string]enumspb.IndexedValueType, len(intAttrs))
	for _, a := range intAttrs {
		attrs[a] = enumspb.INDEXED_VALUE_TYPE_INT
	}
	// SQLite visibility has three Int columns per namespace (Int01-Int03),
	// so a fourth attribute fails here, before anything is written.
	ns, err := sqliteschema.NewNamespaceConfig(clusterName, name, false, attrs)
	if err != nil {
		return fmt.Errorf("namespace %q: %w", name, err)
	}
	if err := sqliteschema.CreateNamespaces(conf, ns); err != nil {
		return fmt.Errorf("registering namespace %q: %w", name, err)
	}
	return nil
}
