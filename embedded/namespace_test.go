package embedded

import (
	"bytes"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	persistencespb "go.temporal.io/server/api/persistence/v1"
	"go.temporal.io/server/common/config"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"google.golang.org/protobuf/proto"
)

// namespaceRow is a namespace as stored: the raw record, to see whether it
// was written, and its decoded search attribute aliases (column -> name).
type namespaceRow struct {
	data    []byte
	version int64
	aliases map[string]string
}

func readNamespace(t *testing.T, file, name string) (namespaceRow, bool) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+file+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var row namespaceRow
	err = db.QueryRow(`SELECT data, notification_version FROM namespaces WHERE name = ?`, name).Scan(&row.data, &row.version)
	if err == sql.ErrNoRows {
		return row, false
	}
	if err != nil {
		t.Fatal(err)
	}
	var detail persistencespb.NamespaceDetail
	if err := proto.Unmarshal(row.data, &detail); err != nil {
		t.Fatalf("decoding namespace %s: %v", name, err)
	}
	row.aliases = detail.GetConfig().GetCustomSearchAttributeAliases()
	return row, true
}

func newSchemaOnlyDB(t *testing.T) (*config.SQL, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), dbFileName)
	conf := &config.SQL{
		PluginName:        sqliteplugin.PluginName,
		ConnectAttributes: map[string]string{"mode": "rwc"},
		DatabaseName:      file,
	}
	if err := sqliteschema.SetupSchema(conf); err != nil {
		t.Fatal(err)
	}
	return conf, file
}

// TestCreateNamespaceLeavesExistingAlone: a new namespace gets its
// attributes as aliases of preallocated Int columns; an existing one is not
// written at all, even when asked for more attributes, because those are
// added through the operator API once the server runs.
func TestCreateNamespaceLeavesExistingAlone(t *testing.T) {
	conf, file := newSchemaOnlyDB(t)
	if err := createNamespace(conf, DefaultNamespace, testAttrs); err != nil {
		t.Fatal(err)
	}
	before, ok := readNamespace(t, file, DefaultNamespace)
	if !ok {
		t.Fatal("namespace not created")
	}
	var names []string
	for column, name := range before.aliases {
		if !strings.HasPrefix(column, "Int0") {
			t.Errorf("%s is an alias of column %s, want an Int column", name, column)
		}
		names = append(names, name)
	}
	if slices.Sort(names); !slices.Equal(names, slices.Sorted(slices.Values(testAttrs))) {
		t.Errorf("aliases %v, want %v", before.aliases, testAttrs)
	}

	if err := createNamespace(conf, DefaultNamespace, append(slices.Clone(testAttrs), "TodoCompleted")); err != nil {
		t.Fatal(err)
	}
	after, _ := readNamespace(t, file, DefaultNamespace)
	if !bytes.Equal(before.data, after.data) || before.version != after.version {
		t.Errorf("the existing namespace was rewritten: aliases %v -> %v, version %d -> %d",
			before.aliases, after.aliases, before.version, after.version)
	}
}

// TestCreateNamespaceHasThreeIntColumns: SQLite visibility preallocates
// Int01-Int03, so a fourth Int attribute fails before anything is written.
func TestCreateNamespaceHasThreeIntColumns(t *testing.T) {
	conf, file := newSchemaOnlyDB(t)
	err := createNamespace(conf, DefaultNamespace, []string{"A1", "A2", "A3", "A4"})
	if err == nil {
		t.Fatal("four Int search attributes accepted")
	}
	t.Logf("got expected error: %v", err)
	if _, ok := readNamespace(t, file, DefaultNamespace); ok {
		t.Error("the namespace was created anyway")
	}
	if err := createNamespace(conf, DefaultNamespace, []string{"A1", "A2", "A3"}); err != nil {
		t.Errorf("three Int search attributes: %v", err)
	}
}
