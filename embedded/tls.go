package embedded

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"go.temporal.io/server/common/config"
)

// TLSOptions makes the server serve TLS: the frontend's gRPC and HTTP ports
// and the Web UI.
type TLSOptions struct {
	// CertFile and KeyFile are the server's certificate (PEM, chain
	// allowed) and its private key. The certificate must name the hosts
	// clients dial (subject alternative names, e.g. DNS:localhost,
	// IP:127.0.0.1).
	CertFile, KeyFile string
	// ClientCAFile, when set, makes the frontend and the UI require a
	// client certificate signed by one of its CAs (mutual TLS).
	ClientCAFile string
}

// serverTLS is TLSOptions loaded and checked, with what this process's own
// clients of the frontend need to reach it.
type serverTLS struct {
	certPEM, keyPEM []byte
	cert            tls.Certificate
	// name is one the certificate is valid for; our own clients dial a
	// loopback address but verify this name, pinned to the certificate.
	name string
	// clientCAs is the operator's client CA, nil without mutual TLS.
	clientCAs   *x509.CertPool
	clientCAPEM []byte
	// self is the identity our own clients present under mutual TLS.
	self *selfIdentity
}

// loadTLS reads and checks the files up front, so a mistake is reported
// with the flag that names it instead of surfacing as a failed handshake.
func loadTLS(o TLSOptions, logger *slog.Logger) (*serverTLS, error) {
	switch {
	case o.CertFile == "" && o.KeyFile == "" && o.ClientCAFile != "":
		return nil, errors.New("a client CA (--tls-client-ca) needs the server's own certificate and key too (--tls-cert, --tls-key)")
	case o.CertFile == "" || o.KeyFile == "":
		return nil, errors.New("TLS needs both the server's certificate and its key (--tls-cert and --tls-key)")
	}
	t := &serverTLS{}
	var err error
	if t.certPEM, err = os.ReadFile(o.CertFile); err != nil {
		return nil, fmt.Errorf("--tls-cert: %w", err)
	}
	if t.keyPEM, err = os.ReadFile(o.KeyFile); err != nil {
		return nil, fmt.Errorf("--tls-key: %w", err)
	}
	warnIfKeyShared(logger, o.KeyFile)
	if t.cert, err = tls.X509KeyPair(t.certPEM, t.keyPEM); err != nil {
		return nil, fmt.Errorf("--tls-cert %s and --tls-key %s: %w", o.CertFile, o.KeyFile, err)
	}
	leaf := t.cert.Leaf
	if now := time.Now(); now.After(leaf.NotAfter) || now.Before(leaf.NotBefore) {
		return nil, fmt.Errorf("--tls-cert %s is valid from %s to %s, not now", o.CertFile,
			leaf.NotBefore.Format(time.RFC3339), leaf.NotAfter.Format(time.RFC3339))
	}
	if t.name = certName(leaf); t.name == "" {
		return nil, fmt.Errorf("--tls-cert %s names no host (it has no subject alternative names), so no client can verify it: "+
			"issue it with e.g. subjectAltName=DNS:localhost,IP:127.0.0.1", o.CertFile)
	}
	if o.ClientCAFile == "" {
		return t, nil
	}
	if t.clientCAPEM, err = os.ReadFile(o.ClientCAFile); err != nil {
		return nil, fmt.Errorf("--tls-client-ca: %w", err)
	}
	t.clientCAs = x509.NewCertPool()
	if !t.clientCAs.AppendCertsFromPEM(t.clientCAPEM) {
		return nil, fmt.Errorf("--tls-client-ca %s holds no PEM certificate", o.ClientCAFile)
	}
	if t.self, err = newSelfIdentity(); err != nil {
		return nil, err
	}
	return t, nil
}

// certName picks the name our own clients verify: a loopback address or
// localhost when the certificate has one, since that is what we dial.
func certName(c *x509.Certificate) string {
	for _, ip := range c.IPAddresses {
		if ip.IsLoopback() {
			return ip.String()
		}
	}
	for _, d := range c.DNSNames {
		if d == "localhost" {
			return d
		}
	}
	if len(c.DNSNames) > 0 {
		return c.DNSNames[0]
	}
	if len(c.IPAddresses) > 0 {
		return c.IPAddresses[0].String()
	}
	return ""
}

func (t *serverTLS) mutual() bool { return t != nil && t.clientCAs != nil }

// rootTLS is the server's own TLS configuration: the frontend serves TLS
// (gRPC and its HTTP API); internal traffic stays on loopback, through the
// internal frontend (see security.go). Under mutual TLS the frontend also
// trusts the in-memory CA of our own clients.
func (t *serverTLS) rootTLS() config.RootTLS {
	var r config.RootTLS
	r.Frontend.Server.CertData = b64(t.certPEM)
	r.Frontend.Server.KeyData = b64(t.keyPEM)
	if t.mutual() {
		r.Frontend.Server.RequireClientAuth = true
		r.Frontend.Server.ClientCAData = []string{b64(t.clientCAPEM), b64(t.self.caPEM)}
	}
	return r
}

// clientConfig is what our own clients (the readiness check) use to reach
// the frontend: the server's certificate pinned as the only root.
func (t *serverTLS) clientConfig() *tls.Config {
	roots := x509.NewCertPool()
	roots.AddCert(t.cert.Leaf)
	c := &tls.Config{RootCAs: roots, ServerName: t.name, MinVersion: tls.VersionTLS12}
	if t.mutual() {
		c.Certificates = []tls.Certificate{t.self.cert}
	}
	return c
}

// listenerConfig is the Web UI's: the same certificate, and under mutual
// TLS the same demand on browsers as on any client of the frontend (the
// operator's CA only: the in-memory one is for this process).
func (t *serverTLS) listenerConfig() *tls.Config {
	c := &tls.Config{Certificates: []tls.Certificate{t.cert}, MinVersion: tls.VersionTLS12}
	if t.mutual() {
		c.ClientAuth = tls.RequireAndVerifyClientCert
		c.ClientCAs = t.clientCAs
	}
	return c
}

// leafPEM is the server's certificate alone, for the UI server's CA data.
func (t *serverTLS) leafPEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: t.cert.Leaf.Raw})
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
