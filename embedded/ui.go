package embedded

import (
	"context"
	"log/slog"

	uiserver "github.com/temporalio/ui-server/v2/server"
	uiconfig "github.com/temporalio/ui-server/v2/server/config"
	uiserveroptions "github.com/temporalio/ui-server/v2/server/server_options"
)

// UICodec is the codec server the Web UI is configured with: the UI's Codec
// settings, as `temporal server start-dev --ui-codec-endpoint` sets them.
type UICodec struct {
	// Endpoint is the codec server's base URL; the browser calls
	// Endpoint+"/decode" and Endpoint+"/encode" itself.
	Endpoint string
	// IncludeCredentials makes the browser send the codec server's cookies
	// (a codec server that wants a token signs browsers in with one).
	IncludeCredentials bool
}

// webUI runs the Temporal Web UI next to the server, as the CLI dev server
// does. With TLS or API keys a gate (ui_gate.go) serves the UI's address
// and the UI server listens on loopback behind it.
type webUI struct {
	srv    *uiserver.Server
	done   chan struct{} // closed when srv.Start returns
	gate   *uiGate       // nil without TLS and API keys
	addr   endpoint
	scheme string
}

func startUI(ctx context.Context, addr endpoint, frontend, namespace string, codec UICodec, sec security, logger *slog.Logger) (*webUI, error) {
	ui := &webUI{addr: addr, scheme: "http", done: make(chan struct{})}
	if sec.tls != nil {
		ui.scheme = "https"
	}
	serverAddr := addr
	if sec.on() {
		port, err := freePort(loopback)
		if err != nil {
			return nil, err
		}
		serverAddr = endpoint{ip: loopback, port: port}
	}
	ui.srv = uiserver.NewServer(uiserveroptions.WithConfigProvider(uiServerConfig(serverAddr, frontend, namespace, codec, sec)))
	// Start blocks until Stop. A bind failure inside it exits the process
	// (echo's Logger.Fatal), which is why the port was checked beforehand.
	go func() {
		defer close(ui.done)
		_ = ui.srv.Start()
	}()
	if err := waitListening(ctx, serverAddr.dial()); err != nil {
		ui.stop()
		return nil, err
	}
	if sec.on() {
		var err error
		if ui.gate, err = startUIGate(addr, serverAddr, frontend, sec, logger); err != nil {
			ui.stop()
			return nil, err
		}
	}
	return ui, nil
}

// uiServerConfig is the UI server's configuration: where it listens, and
// how it reaches the frontend.
func uiServerConfig(addr endpoint, frontend, namespace string, codec UICodec, sec security) *uiconfig.Config {
	c := &uiconfig.Config{
		Host:                addr.ip,
		Port:                addr.port,
		TemporalGRPCAddress: frontend,
		EnableUI:            true,
		DefaultNamespace:    namespace,
		// Without TLS the UI is served over plain HTTP on localhost, so
		// its CSRF cookie must not be marked Secure or browsers drop it.
		CORS: uiconfig.CORS{CookieInsecure: sec.tls == nil},
		// Echo's banner and per-request access log would go to stdout.
		HideLogs: true,
		Codec:    uiconfig.Codec{Endpoint: codec.Endpoint, IncludeCredentials: codec.IncludeCredentials},
	}
	if sec.tls != nil {
		// The frontend's certificate pinned as the only root, verified
		// under a name it holds: the UI server dials loopback.
		c.TLS = uiconfig.TLS{
			CaData:                 b64(sec.tls.leafPEM()),
			ServerName:             sec.tls.name,
			EnableHostVerification: true,
		}
		if sec.tls.mutual() {
			c.TLS.CertData = b64(sec.tls.self.certPEM)
			c.TLS.KeyData = b64(sec.tls.self.keyPEM)
		}
	}
	return c
}

func (u *webUI) url() string {
	return u.scheme + "://" + u.addr.dial()
}

// stop closes the listeners and waits for them so no goroutine outlives the
// Server.
func (u *webUI) stop() {
	if u.gate != nil {
		u.gate.stop()
	}
	u.srv.Stop()
	<-u.done
}
