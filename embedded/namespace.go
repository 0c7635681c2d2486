package embedded

import (
	"context"
	"errors"
	"fmt"
	"slices"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/serviceerror"
	persistencespb "go.temporal.io/server/api/persistence/v1"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/metrics"
	"go.temporal.io/server/common/persistence"
	"go.temporal.io/server/common/persistence/serialization"
	"go.temporal.io/server/common/persistence/sql"
	"go.temporal.io/server/common/resolver"
	"go.temporal.io/server/common/searchattribute/sadefs"
	sqliteschema "go.temporal.io/server/schema/sqlite"
)

// ensureNamespace registers the namespace and its Int search attributes
// directly in the database before the server starts.
//
// Doing it through the operator API after start would leave a window (the
// namespace cache refresh interval, 2s) in which history could still reject
// an upsert of a just-added attribute. Writing it first means every service
// loads the final namespace on startup. With SQL visibility a custom search
// attribute is only a per-namespace alias for a preallocated column, so this
// is the same record the operator API would write.
func ensureNamespace(ctx context.Context, sqlConf *config.SQL, clusterName, name string, intAttrs []string) error {
	factory := sql.NewFactory(*sqlConf, resolver.NewNoopResolver(), clusterName, log.NewNoopLogger(),
		metrics.NoopMetricsHandler, serialization.NewSerializer())
	defer factory.Close()
	store, err := factory.NewMetadataStore()
	if err != nil {
		return fmt.Errorf("opening namespace store: %w", err)
	}
	mgr := persistence.NewMetadataManagerImpl(store, serialization.NewSerializer(), log.NewNoopLogger(), clusterName)

	// Read the notification version before the namespace, as the frontend's
	// UpdateNamespace does: it is the optimistic lock on the namespace table.
	meta, err := mgr.GetMetadata(ctx)
	if err != nil {
		return fmt.Errorf("reading namespace metadata: %w", err)
	}
	existing, err := mgr.GetNamespace(ctx, &persistence.GetNamespaceRequest{Name: name})
	var notFound *serviceerror.NamespaceNotFound
	switch {
	case errors.As(err, &notFound):
		// Same defaults as the CLI dev server: local namespace, 24h
		// retention, archival off.
		nsConf, err := sqliteschema.NewNamespaceConfig(clusterName, name, false, nil)
		if err != nil {
			return err
		}
		detail := nsConf.Detail
		if _, err := addIntAliases(detail.Config, intAttrs); err != nil {
			return err
		}
		_, err = mgr.CreateNamespace(ctx, &persistence.CreateNamespaceRequest{Namespace: detail})
		if err != nil {
			return fmt.Errorf("creating namespace %q: %w", name, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("reading namespace %q: %w", name, err)
	}

	detail := existing.Namespace
	if detail.Config == nil {
		detail.Config = &persistencespb.NamespaceConfig{}
	}
	changed, err := addIntAliases(detail.Config, intAttrs)
	if err != nil || !changed {
		return err
	}
	detail.ConfigVersion++
	err = mgr.UpdateNamespace(ctx, &persistence.UpdateNamespaceRequest{
		Namespace:           detail,
		IsGlobalNamespace:   existing.IsGlobalNamespace,
		NotificationVersion: meta.NotificationVersion,
	})
	if err != nil {
		return fmt.Errorf("adding search attributes to namespace %q: %w", name, err)
	}
	return nil
}

// addIntAliases maps each missing attribute to the first free preallocated
// Int column. It reports whether anything was added, so a restart with the
// same attributes does not rewrite the namespace.
func addIntAliases(conf *persistencespb.NamespaceConfig, names []string) (bool, error) {
	columns := sadefs.GetDBIndexSearchAttributes(nil).CustomSearchAttributes
	if conf.CustomSearchAttributeAliases == nil {
		conf.CustomSearchAttributeAliases = map[string]string{}
	}
	aliases := conf.CustomSearchAttributeAliases
	taken := make(map[string]string, len(aliases))
	for field, alias := range aliases {
		taken[alias] = field
	}

	// Sorted so the same attribute lands in the same column every time,
	// which keeps databases created by different runs comparable.
	var free []string
	for field, typ := range columns {
		if typ == enumspb.INDEXED_VALUE_TYPE_INT && aliases[field] == "" {
			free = append(free, field)
		}
	}
	slices.Sort(free)

	changed := false
	for _, name := range names {
		if field, ok := taken[name]; ok {
			if columns[field] != enumspb.INDEXED_VALUE_TYPE_INT {
				return false, fmt.Errorf("search attribute %q already exists with type %s, want Int", name, columns[field])
			}
			continue
		}
		if len(free) == 0 {
			return false, fmt.Errorf("cannot add search attribute %q: SQLite visibility has no free Int column left", name)
		}
		aliases[free[0]] = name
		taken[name] = free[0]
		free = free[1:]
		changed = true
	}
	return changed, nil
}
