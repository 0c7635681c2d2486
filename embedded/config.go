package embedded

import (
	"fmt"
	"maps"
	"slices"

	"go.temporal.io/server/chasm/lib/callback"
	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	"go.temporal.io/server/common/membership/static"
	"go.temporal.io/server/common/primitives"
	"go.temporal.io/server/components/nexusoperations"
	"go.temporal.io/server/temporal"
)

// clusterName is what the CLI dev server uses; it is stored in the database
// and in namespace replication configs, so it must never change.
const clusterName = "active"

// serverPorts are the concrete listen addresses for one server instance.
type serverPorts struct {
	frontend     endpoint
	frontendHTTP endpoint // Nexus callbacks are delivered here
	history      endpoint
	matching     endpoint
	worker       endpoint
	// The internal frontend, only with TLS or API keys (security.go).
	internalFrontend, internalFrontendHTTP endpoint
}

func (p serverPorts) hasInternalFrontend() bool { return p.internalFrontend.port != 0 }

// pickServerPorts chooses a free port for every internal service. Fixed
// ports would make two servers in one process (our tests) collide.
func pickServerPorts(frontend endpoint, internalFrontend bool) (serverPorts, error) {
	p := serverPorts{frontend: frontend}
	type port struct {
		dst  *endpoint
		host string
	}
	ports := []port{
		{&p.frontendHTTP, frontend.ip},
		{&p.history, loopback},
		{&p.matching, loopback},
		{&p.worker, loopback},
	}
	if internalFrontend {
		ports = append(ports, port{&p.internalFrontend, loopback}, port{&p.internalFrontendHTTP, loopback})
	}
	for _, e := range ports {
		port, err := freePort(e.host)
		if err != nil {
			return serverPorts{}, err
		}
		*e.dst = endpoint{ip: e.host, port: port}
	}
	return p, nil
}

func buildServerConfig(ports serverPorts, sqlConf, visibility *config.SQL, sec security) *config.Config {
	var conf config.Config
	conf.Global.Membership.BroadcastAddress = loopback
	if sec.tls != nil {
		conf.Global.TLS = sec.tls.rootTLS()
	}
	// Metrics and pprof stay off (nil / port 0): each would be one more
	// listener to collide on and nothing here reads them.

	const store = "sqlite-default"
	conf.Persistence.DefaultStore = store
	conf.Persistence.VisibilityStore = store
	// One shard is plenty for a single-user server and keeps startup cheap.
	conf.Persistence.NumHistoryShards = 1
	conf.Persistence.DataStores = map[string]config.DataStore{store: {SQL: sqlConf}}
	if visibility != nil {
		const visibilityStore = "visibility"
		conf.Persistence.VisibilityStore = visibilityStore
		conf.Persistence.DataStores[visibilityStore] = config.DataStore{SQL: visibility}
	}

	conf.ClusterMetadata = &cluster.Config{
		EnableGlobalNamespace:    false,
		FailoverVersionIncrement: 10,
		MasterClusterName:        clusterName,
		CurrentClusterName:       clusterName,
		ClusterInformation: map[string]cluster.ClusterInformation{
			// ClusterID is left empty: the server generates one on first
			// start and keeps the persisted one afterwards.
			clusterName: {
				Enabled:                true,
				InitialFailoverVersion: 1,
				RPCAddress:             ports.frontend.dial(),
				HTTPAddress:            ports.frontendHTTP.dial(),
			},
		},
	}
	conf.DCRedirectionPolicy.Policy = "noop"

	conf.Services = map[string]config.Service{
		"frontend": serviceConfig(ports.frontend, ports.frontendHTTP.port),
		"history":  serviceConfig(ports.history, 0),
		"matching": serviceConfig(ports.matching, 0),
		"worker":   serviceConfig(ports.worker, 0),
	}

	conf.Archival.History.State = "disabled"
	conf.Archival.Visibility.State = "disabled"
	conf.NamespaceDefaults.Archival.History.State = "disabled"
	conf.NamespaceDefaults.Archival.Visibility.State = "disabled"

	if ports.hasInternalFrontend() {
		// The server's own worker service finds the internal frontend
		// through membership, which is what an empty PublicClient means.
		conf.Services[string(primitives.InternalFrontendService)] = serviceConfig(ports.internalFrontend, ports.internalFrontendHTTP.port)
		return &conf
	}
	// The server's own worker service (schedules, batch jobs, ...) reaches
	// the frontend through this address.
	conf.PublicClient.HostPort = ports.frontend.dial()
	return &conf
}

func serviceConfig(e endpoint, httpPort int) config.Service {
	var s config.Service
	s.RPC.GRPCPort = e.port
	s.RPC.BindOnIP = e.ip
	s.RPC.HTTPPort = httpPort
	return s
}

func buildServerOptions(conf *config.Config, ports serverPorts, sec security, dc dynamicconfig.Client, logger serverLogger) ([]temporal.ServerOption, error) {
	authorizer, claimMapper := sec.authorization()
	if authorizer == nil {
		var err error
		if authorizer, err = authorization.GetAuthorizerFromConfig(&conf.Global.Authorization); err != nil {
			return nil, fmt.Errorf("creating authorizer: %w", err)
		}
		if claimMapper, err = authorization.GetClaimMapperFromConfig(&conf.Global.Authorization, logger); err != nil {
			return nil, fmt.Errorf("creating claim mapper: %w", err)
		}
	}
	services := temporal.DefaultServices
	// Static membership instead of ringpop: no gossip ports, no join
	// delay, and two servers in one process cannot discover each other.
	hosts := map[primitives.ServiceName]static.Hosts{
		primitives.FrontendService: static.SingleLocalHost(ports.frontend.dial()),
		primitives.HistoryService:  static.SingleLocalHost(ports.history.listen()),
		primitives.MatchingService: static.SingleLocalHost(ports.matching.listen()),
		primitives.WorkerService:   static.SingleLocalHost(ports.worker.listen()),
	}
	if ports.hasInternalFrontend() {
		services = append(slices.Clone(services), string(primitives.InternalFrontendService))
		hosts[primitives.InternalFrontendService] = static.SingleLocalHost(ports.internalFrontend.listen())
	}
	return []temporal.ServerOption{
		temporal.WithConfig(conf),
		temporal.ForServices(services),
		temporal.WithStaticHosts(hosts),
		temporal.WithLogger(logger),
		temporal.WithAuthorizer(authorizer),
		temporal.WithClaimMapper(func(*config.Config) authorization.ClaimMapper { return claimMapper }),
		temporal.WithDynamicConfigClient(dc),
	}, nil
}

// dynamicConfig mirrors the CLI dev server's defaults, plus what it takes
// for Stop to leave nothing running. It is a MemoryClient because one value
// changes while the server runs (see settleSearchAttributeCache).
func dynamicConfig(ports serverPorts, sec security) *dynamicconfig.MemoryClient {
	httpAddr := ports.frontendHTTP.dial()
	// The frontend's HTTP port serves TLS whenever its gRPC port does.
	callbackScheme := "http"
	if sec.tls != nil {
		callbackScheme = "https"
	}
	dc := dynamicconfig.StaticClient{
		dynamicconfig.HistoryCacheHostLevelMaxSize.Key(): 8096,
		// The UI and `temporal workflow list` poll visibility a lot; the
		// default per-namespace limit is tuned for shared clusters.
		dynamicconfig.FrontendMaxNamespaceVisibilityRPSPerInstance.Key(): 100,
		// While Start adds missing search attributes, the ones it adds
		// are usable at once: every service reads a namespace's aliases and
		// the attributes' types from the database instead of its caches.
		// Without it an upsert right after Start fails its workflow task
		// with "has no mapping defined for search attribute"
		// (TestExistingDatabaseGainsMissingSearchAttributes). Start turns
		// it off again (settleSearchAttributeCache): on every read it is
		// two database reads, one under a process-wide lock, on the path
		// of every search-attribute upsert. Hence also the raised QPS
		// limits below.
		dynamicconfig.ForceSearchAttributesCacheRefreshOnRead.Key(): true,
		dynamicconfig.FrontendPersistenceMaxQPS.Key():               10000,
		dynamicconfig.HistoryPersistenceMaxQPS.Key():                45000,
		// Nexus operations need a callback URL to complete asynchronously.
		nexusoperations.CallbackURLTemplate.Key(): callbackScheme + "://" + httpAddr + "/namespaces/{{.NamespaceName}}/nexus/callback",
		callback.AllowedAddresses.Key(): []struct {
			Pattern       string
			AllowInsecure bool
		}{{Pattern: httpAddr, AllowInsecure: sec.tls == nil}},

		// The worker service starts SDK workers for these background jobs and
		// never stops them (upstream "TODO: Nothing is gracefully stopping
		// these workers"), so after Stop they would keep polling the dead
		// frontend and logging warnings for the rest of the process. They
		// are housekeeping for long-lived clusters (deleting idle task queue
		// rows, orphaned history branches); with parent-close-policy off,
		// history applies parent close policies inline instead.
		dynamicconfig.TaskQueueScannerEnabled.Key():       false,
		dynamicconfig.HistoryScannerEnabled.Key():         false,
		dynamicconfig.EnableParentClosePolicyWorker.Key(): false,
	}
	if sec.keys != nil {
		// A denial's message says what the caller's key may do (see
		// keyAuthorizer); without this the caller gets only "Request
		// unauthorized.".
		dc[dynamicconfig.ExposeAuthorizerErrors.Key()] = true
	}
	maps.Copy(dc, SessionLimits())
	mc := dynamicconfig.NewMemoryClient()
	for k, v := range dc {
		mc.OverrideValue(k, v)
	}
	return mc
}
