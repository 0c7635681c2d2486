package embedded

import (
	"fmt"
	"net"
	"runtime"
	"strconv"
)

// loopback is where every internal service listens: only the frontend and the
// UI are meant to be reached from outside this process.
const loopback = "127.0.0.1"

// endpoint is a resolved listen address. The server configuration wants an IP
// and a concrete port up front, so ":0" has to be turned into a real port
// before the server is built rather than letting the listener pick one.
type endpoint struct {
	ip   string
	port int
}

// resolveEndpoint parses host:port, maps "localhost" to an IP (the server
// rejects host names for binding) and replaces port 0 with a free port.
// A fixed port is checked up front because both the Temporal server and the
// UI server treat a failed bind as fatal (log.Fatal / os.Exit) instead of
// returning an error.
func resolveEndpoint(addr string) (endpoint, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return endpoint{}, fmt.Errorf("invalid address %q: %w", addr, err)
	}
	if host == "" || host == "localhost" {
		host = loopback
	}
	if net.ParseIP(host) == nil {
		return endpoint{}, fmt.Errorf("invalid address %q: host must be an IP address", addr)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < 0 || port > 65535 {
		return endpoint{}, fmt.Errorf("invalid address %q: bad port", addr)
	}
	if port == 0 {
		if port, err = freePort(host); err != nil {
			return endpoint{}, err
		}
		return endpoint{ip: host, port: port}, nil
	}
	if err := checkPortFree(host, port); err != nil {
		return endpoint{}, fmt.Errorf("address %s is not available: %w", addr, err)
	}
	return endpoint{ip: host, port: port}, nil
}

// listen is the address to bind to.
func (e endpoint) listen() string {
	return net.JoinHostPort(e.ip, strconv.Itoa(e.port))
}

// dial is the address a client in this process should use: a wildcard bind
// address is not something one can portably connect to.
func (e endpoint) dial() string {
	ip := net.ParseIP(e.ip)
	switch {
	case ip.Equal(net.IPv4zero):
		return net.JoinHostPort(loopback, strconv.Itoa(e.port))
	case ip.Equal(net.IPv6unspecified):
		return net.JoinHostPort("::1", strconv.Itoa(e.port))
	}
	return e.listen()
}

// FreeAddress returns host:port for a port on host that nobody listens on,
// for a caller that has to name an address before something binds it: a
// server's frontend that other programs are told about up front, or a test
// that restarts a process on the same address.
//
// The port is released before anyone binds it, so another process could
// grab it in between. To make that unlikely, we connect to it and close the
// server side first: the port then sits in TIME_WAIT, which keeps Linux from
// handing it out again for bind(":0") while still letting anyone bind it
// explicitly (Go sets SO_REUSEADDR). macOS and Windows allocate ephemeral
// ports sequentially, so they do not need this. Same trick as the Temporal
// CLI's dev server. A port picked by listening on ":0" and closing at once
// has no such protection: the next bind(":0") anywhere on the machine may
// get it, which is how two of our parallel tests once collided.
func FreeAddress(host string) (string, error) {
	port, err := freePort(host)
	if err != nil {
		return "", err
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), nil
}

// freePort is FreeAddress's port.
func freePort(host string) (int, error) {
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		return 0, fmt.Errorf("finding a free port on %s: %w", host, err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		return port, nil
	}
	c, err := net.Dial("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return 0, fmt.Errorf("reserving port %d: %w", port, err)
	}
	defer c.Close()
	s, err := l.Accept()
	if err != nil {
		return 0, fmt.Errorf("reserving port %d: %w", port, err)
	}
	return port, s.Close()
}

func checkPortFree(host string, port int) error {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return err
	}
	return l.Close()
}
