package main

import (
	"errors"
	"fmt"

	"go.temporal.io/sdk/client"

	"github.com/durabletodos/agenttodos/apikeys"
)

// checkOwnConnection says, before the embedded server starts, why the
// worker's own connection to it would fail. The worker is a client of its
// server like any other: it connects with the TEMPORAL_TLS_* and
// TEMPORAL_API_KEY settings envconfig reads, so what works for the worker
// works for the CLI and our client, and the worker holds no power the
// operator did not hand it. A mismatch would otherwise surface as a failed
// handshake or a denied poll after start-up.
func checkOwnConnection(cfg config, opts client.Options, apiKey string, keys *apikeys.Keys) error {
	serverTLS := cfg.TLSCert != ""
	clientTLS := opts.ConnectionOptions.TLS != nil && !opts.ConnectionOptions.TLSDisabled
	switch {
	case serverTLS && !clientTLS:
		return errors.New("the embedded server serves TLS (--tls-cert), and the worker connects to it as any client does: " +
			"set TEMPORAL_TLS_SERVER_CA_CERT_PATH to the CA that signed its certificate (or TEMPORAL_TLS=true if this system trusts it)")
	case !serverTLS && clientTLS && apiKey != "":
		return errors.New("the embedded server has no TLS, but with TEMPORAL_API_KEY the worker's connection would use TLS: " +
			"set TEMPORAL_TLS=false (the key then travels in plain text, which only loopback makes acceptable), or serve TLS with --tls-cert and --tls-key")
	case !serverTLS && clientTLS:
		return errors.New("the embedded server has no TLS, but TEMPORAL_TLS* settings turn it on for the worker's connection: " +
			"unset them, or serve TLS with --tls-cert and --tls-key")
	case cfg.TLSClientCA != "" && !hasClientCert(opts):
		return errors.New("the embedded server requires client certificates (--tls-client-ca): set TEMPORAL_TLS_CLIENT_CERT_PATH and " +
			"TEMPORAL_TLS_CLIENT_KEY_PATH to a certificate its CA signed, for the worker's own connection")
	}
	if keys == nil {
		return nil
	}
	if apiKey == "" {
		return errors.New("the embedded server requires API keys (--api-keys): set TEMPORAL_API_KEY to a key with the worker role " +
			"for the worker's own connection")
	}
	k, ok := keys.Lookup(apiKey)
	switch {
	case !ok:
		return errors.New("TEMPORAL_API_KEY is not one of the keys in --api-keys")
	case k.Role != apikeys.Worker && k.Role != apikeys.Admin:
		return fmt.Errorf("TEMPORAL_API_KEY is %q's, a %s key: the worker needs a worker key (or an admin key)", k.Name, k.Role)
	}
	return nil
}

func hasClientCert(opts client.Options) bool {
	t := opts.ConnectionOptions.TLS
	return t != nil && (len(t.Certificates) > 0 || t.GetClientCertificate != nil)
}
