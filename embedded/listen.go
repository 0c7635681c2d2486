package embedded

import (
	"fmt"
	"net"
)

// InsecureListenError is Start refusing to serve plain text on an address
// other machines can reach: anyone on the network could read every plan and
// prompt and, without API keys, change them; with API keys they could read
// the keys off the wire.
type InsecureListenError struct {
	What    string // "frontend" or "Web UI"
	Address string
}

func (e *InsecureListenError) Error() string {
	return fmt.Sprintf("refusing to serve the %s on %s without TLS: it is not a loopback address, so anyone who can reach it "+
		"could read the traffic; serve TLS (--tls-cert and --tls-key), or pass --insecure-listen if a network you trust "+
		"protects it (Options.TLS, Options.InsecureListen)", e.What, e.Address)
}

// checkListen applies that rule to one listen address before anything
// binds it.
func checkListen(what, addr string, opts Options) error {
	if opts.TLS != nil || opts.InsecureListen {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("invalid address %q: %w", addr, err)
	}
	if isLoopback(host) {
		return nil
	}
	return &InsecureListenError{What: what, Address: addr}
}

// isLoopback says whether a listen host reaches this machine only. The
// empty host and "localhost" are what resolveEndpoint binds to loopback.
func isLoopback(host string) bool {
	if host == "" || host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
