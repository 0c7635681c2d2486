package embedded

import (
	"strings"

	"go.temporal.io/server/common/authorization"

	"github.com/durabletodos/agenttodos/apikeys"
)

// keyClaimMapper is the server's ClaimMapper under Options.APIKeys: the
// bearer token a client sends (TEMPORAL_API_KEY, --api-key) is looked up in
// the keys, and its role becomes the caller's role in the server's
// namespace, in Temporal's own role bits, for keyAuthorizer to judge.
//
// It never fails: a request without a key or with an unknown one gets
// claims that say so, and the authorizer turns that into a message the
// caller can act on (a ClaimMapper's error reaches the caller only as
// "Request unauthorized.").
type keyClaimMapper struct {
	keys      *apikeys.Keys
	namespace string
}

// keyProblem is why a request has no role: claims' Extensions carry it.
type keyProblem string

const (
	problemNoKey      keyProblem = "NoAPIKey"
	problemBadHeader  keyProblem = "BadAuthorizationHeader"
	problemUnknownKey keyProblem = "UnknownAPIKey"
)

// authTypeAPIKey names how these claims were made, in the principal the
// server records.
const authTypeAPIKey = "api-key"

func (m keyClaimMapper) GetClaims(info *authorization.AuthInfo) (*authorization.Claims, error) {
	if info.AuthToken == "" {
		return &authorization.Claims{Extensions: problemNoKey}, nil
	}
	key, ok := bearerToken(info.AuthToken)
	if !ok {
		return &authorization.Claims{Extensions: problemBadHeader}, nil
	}
	k, ok := m.keys.Lookup(key)
	if !ok {
		return &authorization.Claims{Extensions: problemUnknownKey}, nil
	}
	return &authorization.Claims{
		Subject:    k.Name,
		AuthType:   authTypeAPIKey,
		Namespaces: map[string]authorization.Role{m.namespace: roleBits(k.Role)},
		Extensions: k,
	}, nil
}

// bearerToken takes the key out of "Bearer <key>", the form the SDK, the
// CLI and the UI server send.
func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// roleBits spells a key's role in Temporal's role bits. Each role holds the
// bits of what it may do, so a check is one AND: a writer reads too, an
// admin does everything in the namespace.
func roleBits(r apikeys.Role) authorization.Role {
	switch r {
	case apikeys.Reader:
		return authorization.RoleReader
	case apikeys.Writer:
		return authorization.RoleReader | authorization.RoleWriter
	case apikeys.Worker:
		return authorization.RoleReader | authorization.RoleWorker
	case apikeys.Admin:
		return authorization.RoleReader | authorization.RoleWriter | authorization.RoleWorker | authorization.RoleAdmin
	}
	return authorization.RoleUndefined
}
