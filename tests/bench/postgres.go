package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/durabletodos/agenttodos/embedded"
	"go.temporal.io/server/common/config"
	serverlog "go.temporal.io/server/common/log"
	_ "go.temporal.io/server/common/persistence/sql/sqlplugin/postgresql" // the "postgres12" SQL plugin
	"go.temporal.io/server/tools/common/schema"
	sqltool "go.temporal.io/server/tools/sql"
)

// The production-store comparison: visibility on a throwaway PostgreSQL
// cluster (Debian's postgresql package), set up with the server's own
// schema tool, as `temporal-sql-tool setup-schema -v 0.0` and
// `update-schema -d .../postgresql/v12/visibility/versioned` do.
type postgres struct {
	bin, dir string
	port     int
	version  string
	asUser   []string // runuser prefix: initdb refuses to run as root
}

// findPostgres returns Debian's newest PostgreSQL, or why there is none.
func findPostgres() (*postgres, error) {
	initdbs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(initdbs) == 0 {
		return nil, fmt.Errorf("no PostgreSQL found (apt-get install postgresql)")
	}
	bins := make([]string, len(initdbs))
	for i, f := range initdbs {
		bins[i] = filepath.Dir(f)
	}
	// /usr/lib/postgresql/<major>/bin: the newest major wins.
	major := func(bin string) int { n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin))); return n }
	slices.SortFunc(bins, func(a, b string) int { return major(a) - major(b) })
	p := &postgres{bin: bins[len(bins)-1]}
	p.version = strconv.Itoa(major(p.bin))
	if os.Geteuid() == 0 {
		p.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	return p, nil
}

func (p *postgres) run(name string, args ...string) error {
	argv := append(slices.Clone(p.asUser), filepath.Join(p.bin, name))
	argv = append(argv, args...)
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w: %s", name, err, strings.TrimSpace(string(out)))
	}
	return nil
}

// start makes a cluster in a new directory and starts it on a free
// loopback port, with its defaults (fsync on, synchronous_commit on: every
// acknowledged visibility write is on disk).
func (p *postgres) start() error {
	dir, err := os.MkdirTemp("", "bench-postgres-")
	if err != nil {
		return err
	}
	p.dir = dir
	if len(p.asUser) > 0 {
		if err := exec.Command("chown", "postgres", dir).Run(); err != nil {
			return fmt.Errorf("chown %s: %w", dir, err)
		}
	}
	addr, err := embedded.FreeAddress("127.0.0.1")
	if err != nil {
		return err
	}
	_, port, _ := net.SplitHostPort(addr)
	if p.port, err = strconv.Atoi(port); err != nil {
		return err
	}
	data := filepath.Join(dir, "data")
	if err := p.run("initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8"); err != nil {
		return err
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c max_connections=100", p.port, dir)
	return p.run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start")
}

func (p *postgres) stop() {
	if p.dir == "" {
		return
	}
	_ = p.run("pg_ctl", "-D", filepath.Join(p.dir, "data"), "-m", "fast", "-w", "stop")
	_ = os.RemoveAll(p.dir)
}

// visibilityStore creates a database with the server's visibility schema
// and returns the server's config for it.
func (p *postgres) visibilityStore(name string) (*config.SQL, error) {
	conf := &config.SQL{
		PluginName:      "postgres12",
		DatabaseName:    name,
		ConnectAddr:     net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)),
		ConnectProtocol: "tcp",
		User:            "postgres",
		MaxConns:        20,
		MaxIdleConns:    20,
		MaxConnLifetime: time.Hour,
	}
	logger := serverlog.NewNoopLogger()
	if err := sqltool.DoCreateDatabase(conf, "postgres", logger); err != nil {
		return nil, fmt.Errorf("creating database %s: %w", name, err)
	}
	conn, err := sqltool.NewConnection(conf, logger)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := schema.NewSetupSchemaTask(conn, &schema.SetupConfig{InitialVersion: "0.0"}, logger).Run(); err != nil {
		return nil, fmt.Errorf("schema versions: %w", err)
	}
	if err := schema.NewUpdateSchemaTask(conn, &schema.UpdateConfig{DBName: name, SchemaName: "postgresql/v12/visibility"}, logger).Run(); err != nil {
		return nil, fmt.Errorf("visibility schema: %w", err)
	}
	return conf, nil
}
