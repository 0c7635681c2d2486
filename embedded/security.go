package embedded

import (
	"go.temporal.io/server/common/authorization"

	"github.com/durabletodos/agenttodos/apikeys"
)

// security is what Options.TLS and Options.APIKeys turn on.
//
// Either one moves the server's own traffic off the public frontend: the
// worker service (batches, schedules and the like) and Start's own set-up
// go through an internal frontend on loopback, which Temporal provides for
// this (config.PublicClient's first method). It authenticates its callers
// as the server itself (the internal claim mapper's system admin claims),
// so TLS and keys on the public frontend lock out nobody internal. Without
// either, the server is built exactly as before, without it.
type security struct {
	tls       *serverTLS
	keys      *apikeys.Keys
	namespace string
}

func (s security) on() bool { return s.tls != nil || s.keys != nil }

// authorization returns the frontend's Authorizer and ClaimMapper under
// API keys, or nil, nil to keep the configured (no-op) ones.
func (s security) authorization() (authorization.Authorizer, authorization.ClaimMapper) {
	if s.keys == nil {
		return nil, nil
	}
	return keyAuthorizer{}, keyClaimMapper{keys: s.keys, namespace: s.namespace}
}
