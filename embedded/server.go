// Package embedded runs a complete Temporal server inside the worker process,
// for the "no configuration" mode: SQLite persistence, the Web UI, and a
// namespace with the search attributes the workflows need, the same setup as
// `temporal server start-dev`.
package embedded

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/temporal"

	"github.com/durabletodos/agenttodos/apikeys"
	"github.com/durabletodos/agenttodos/contract"
)

// The contract's default addresses (contract.DefaultFrontendAddress and
// contract.DefaultUIAddress) match `temporal server start-dev`, so the CLI
// and SDK defaults reach the embedded server without flags.
const (
	DefaultNamespace = "default"
	// UIDisabled as Options.UIAddress runs the server without the Web UI.
	UIDisabled = "-"
)

// Options configures Start. The zero value is an in-memory server on the
// same ports as `temporal server start-dev`.
type Options struct {
	// DataDir holds the SQLite database (DataDir/temporal.db), created if
	// missing, readable by the owner only. Empty keeps everything in
	// memory, for tests.
	DataDir string
	// FrontendAddress is the gRPC host:port; "127.0.0.1:0" picks a free
	// port. Default contract.DefaultFrontendAddress.
	FrontendAddress string
	// UIAddress is the Web UI host:port; "127.0.0.1:0" picks a free port and
	// UIDisabled turns the UI off. Default contract.DefaultUIAddress.
	UIAddress string
	// UICodec, when its Endpoint is set, is the codec server the Web UI
	// decodes payloads with (in the browser, before it shows them).
	UICodec UICodec
	// Namespace is registered at start if missing. Default DefaultNamespace.
	Namespace string
	// SearchAttributes are Int search attributes registered in Namespace at
	// start if missing: with the namespace in a new database, through the
	// operator API in an existing one. SQLite visibility has room for three
	// (columns Int01-Int03).
	SearchAttributes []string
	// SQLite tunes the database file; ignored without DataDir.
	SQLite SQLiteOptions
	// Visibility, when set, is the store `temporal workflow list` and the
	// search attributes are served from (a production one: PostgreSQL with
	// the server's "postgresql/v12/visibility" schema), instead of the
	// SQLite database's own tables. Its Int01-Int03 columns must be free:
	// the search attributes are mapped onto them as in SQLite.
	Visibility *config.SQL
	// Logger receives the server's warnings and errors; lower levels are
	// dropped because the server is very chatty. Nil discards everything.
	Logger *slog.Logger

	// TLS, when set, makes the frontend (gRPC and HTTP) and the Web UI
	// serve TLS, and with a client CA require client certificates.
	TLS *TLSOptions
	// APIKeys, when set, are the only way in: every request to the
	// frontend and the Web UI needs one of them (Authorization: Bearer;
	// the UI asks the browser for it as a password) and may do what its
	// role allows (keyAuthorizer). The keys' roles apply in Namespace.
	APIKeys *apikeys.Keys
	// InsecureListen lets the frontend or the UI listen on an address
	// other than loopback without TLS; Start refuses that otherwise
	// (InsecureListenError).
	InsecureListen bool
}

// Server is a running embedded Temporal server.
type Server struct {
	server    temporal.Server
	ui        *webUI
	frontend  endpoint
	namespace string
	unlock    func()
	muteLogs  *atomic.Bool
	// dynamicConfig is the server's; cacheSettled turns the
	// search-attribute cache back on after Start added attributes (see
	// settleSearchAttributeCache).
	dynamicConfig *dynamicconfig.MemoryClient
	cacheSettled  *time.Timer

	stopOnce sync.Once
	stopErr  error
}

// Start runs the server and returns once the frontend answers requests for
// the namespace, the namespace has every search attribute of opts, and the
// UI (if enabled) accepts connections. ctx bounds startup only; use Stop to
// shut down.
func Start(ctx context.Context, opts Options) (*Server, error) {
	s, err := start(ctx, withDefaults(opts))
	if err != nil {
		return nil, fmt.Errorf("embedded temporal: %w", err)
	}
	return s, nil
}

func withDefaults(opts Options) Options {
	if opts.FrontendAddress == "" {
		opts.FrontendAddress = contract.DefaultFrontendAddress
	}
	if opts.UIAddress == "" {
		opts.UIAddress = contract.DefaultUIAddress
	}
	if opts.Namespace == "" {
		opts.Namespace = DefaultNamespace
	}
	opts.SearchAttributes = slices.Compact(slices.Sorted(slices.Values(opts.SearchAttributes)))
	return opts
}

func start(ctx context.Context, opts Options) (_ *Server, err error) {
	logger, muteLogs := newSlog(opts.Logger)
	if err := checkListen("frontend", opts.FrontendAddress, opts); err != nil {
		return nil, err
	}
	if opts.UIAddress != UIDisabled {
		if err := checkListen("Web UI", opts.UIAddress, opts); err != nil {
			return nil, err
		}
	}
	sec := security{keys: opts.APIKeys, namespace: opts.Namespace}
	if opts.TLS != nil {
		if sec.tls, err = loadTLS(*opts.TLS, logger); err != nil {
			return nil, err
		}
	}
	unlock := func() {}
	if opts.DataDir != "" {
		if opts.DataDir, err = filepath.Abs(opts.DataDir); err != nil {
			return nil, fmt.Errorf("data dir: %w", err)
		}
		if err := os.MkdirAll(opts.DataDir, dataDirPerm); err != nil {
			return nil, fmt.Errorf("creating data dir: %w", err)
		}
		if fi, err := os.Stat(opts.DataDir); err == nil {
			warnIfShared(logger, opts.DataDir, fi)
		}
		if unlock, err = lockDataDir(opts.DataDir); err != nil {
			return nil, err
		}
	}
	defer func() {
		if err != nil {
			unlock()
		}
	}()

	sqlConf, err := openDatabase(ctx, opts.DataDir, opts.SQLite, logger, func(conf *config.SQL) error {
		return createNamespace(conf, opts.Namespace, opts.SearchAttributes)
	})
	if err != nil {
		return nil, err
	}

	// Ports are chosen as late as possible: a free port is only reserved
	// loosely (see freePort), so the shorter the gap before binding, the
	// better.
	frontend, err := resolveEndpoint(opts.FrontendAddress)
	if err != nil {
		return nil, fmt.Errorf("frontend: %w", err)
	}
	var uiAddr endpoint
	if opts.UIAddress != UIDisabled {
		if uiAddr, err = resolveEndpoint(opts.UIAddress); err != nil {
			return nil, fmt.Errorf("web UI: %w", err)
		}
	}
	ports, err := pickServerPorts(frontend, sec.on())
	if err != nil {
		return nil, err
	}
	conf := buildServerConfig(ports, sqlConf, opts.Visibility, sec)
	dc := dynamicConfig(ports, sec)
	serverOpts, err := buildServerOptions(conf, ports, sec, dc, serverLogger{logger})
	if err != nil {
		return nil, err
	}
	srv, err := temporal.NewServer(serverOpts...)
	if err != nil {
		return nil, fmt.Errorf("creating server: %w", err)
	}
	// Start takes no context; on failure fx has already rolled back
	// whatever had started.
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("starting server: %w", err)
	}
	s := &Server{server: srv, frontend: frontend, namespace: opts.Namespace, unlock: unlock, muteLogs: muteLogs}
	defer func() {
		if err != nil {
			muteLogs.Store(true)
			_ = srv.Stop()
		}
	}()

	// Start's own calls need the namespace and the operator API, which
	// under API keys only an admin may call: with the internal frontend
	// they go there, as the server itself, and of the public frontend
	// only its health is asked.
	public := frontendTarget{hostPort: frontend.dial()}
	if sec.tls != nil {
		public.tls = sec.tls.clientConfig()
	}
	own := public
	if ports.hasInternalFrontend() {
		own = frontendTarget{hostPort: ports.internalFrontend.dial()}
		if err := waitHealthy(ctx, public, opts.Namespace, logger); err != nil {
			return nil, err
		}
	}
	if err := waitFrontend(ctx, own, opts.Namespace, logger); err != nil {
		return nil, err
	}
	added, err := addMissingSearchAttributes(ctx, own, opts.Namespace, opts.SearchAttributes, logger)
	if err != nil {
		return nil, err
	}
	s.dynamicConfig = dc
	s.settleSearchAttributeCache(added)
	if opts.UIAddress != UIDisabled {
		if s.ui, err = startUI(ctx, uiAddr, frontend.dial(), opts.Namespace, opts.UICodec, sec, logger); err != nil {
			return nil, fmt.Errorf("web UI: %w", err)
		}
	}
	return s, nil
}

// FrontendAddress is the host:port clients should dial.
func (s *Server) FrontendAddress() string { return s.frontend.dial() }

// UIURL is the Web UI's base URL, or "" when the UI is disabled.
func (s *Server) UIURL() string {
	if s.ui == nil {
		return ""
	}
	return s.ui.url()
}

// Namespace is the namespace registered at start.
func (s *Server) Namespace() string { return s.namespace }

// Stop shuts down the UI and the server and releases the data directory.
// Calling it again returns the first call's result.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() {
		s.muteLogs.Store(true)
		if s.cacheSettled != nil {
			s.cacheSettled.Stop()
		}
		if s.ui != nil {
			s.ui.stop()
		}
		s.stopErr = s.server.Stop()
		s.unlock()
	})
	return s.stopErr
}
