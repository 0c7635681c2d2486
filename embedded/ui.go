package embedded

import (
	"context"

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
// does.
type webUI struct {
	srv  *uiserver.Server
	addr endpoint
	done chan struct{} // closed when srv.Start returns
}

func startUI(ctx context.Context, addr endpoint, frontend, namespace string, codec UICodec) (*webUI, error) {
	srv := uiserver.NewServer(uiserveroptions.WithConfigProvider(&uiconfig.Config{
		Host:                addr.ip,
		Port:                addr.port,
		TemporalGRPCAddress: frontend,
		EnableUI:            true,
		DefaultNamespace:    namespace,
		// The UI is served over plain HTTP on localhost, so its CSRF cookie
		// must not be marked Secure or browsers drop it.
		CORS: uiconfig.CORS{CookieInsecure: true},
		// Echo's banner and per-request access log would go to stdout.
		HideLogs: true,
		Codec:    uiconfig.Codec{Endpoint: codec.Endpoint, IncludeCredentials: codec.IncludeCredentials},
	}))
	ui := &webUI{srv: srv, addr: addr, done: make(chan struct{})}
	// Start blocks until Stop. A bind failure inside it exits the process
	// (echo's Logger.Fatal), which is why the port was checked beforehand.
	go func() {
		defer close(ui.done)
		_ = srv.Start()
	}()
	if err := waitListening(ctx, addr.dial()); err != nil {
		ui.stop()
		return nil, err
	}
	return ui, nil
}

func (u *webUI) url() string {
	return "http://" + u.addr.dial()
}

// stop closes the listener and waits for Start to return so no goroutine
// outlives the Server.
func (u *webUI) stop() {
	u.srv.Stop()
	<-u.done
}
