package codec

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"slices"
	"strings"

	"go.temporal.io/sdk/converter"
)

// MinTokenBytes is the shortest token the codec server accepts: it guards a
// decryption oracle.
const MinTokenBytes = 16

// maxRequestBytes bounds one encode or decode request: a page of history the
// UI or the CLI sends at once, with Temporal's 2 MiB payloads in it.
const maxRequestBytes = 32 << 20

// ServerOptions configures Handler.
type ServerOptions struct {
	Keys *Keys
	// Token, when set, is required of every encode and decode: as
	// "Authorization: Bearer <token>" (the stock CLI's --codec-auth), or as
	// the cookie the login page gives a browser (the Temporal UI cannot send
	// a header of ours, but it can send cookies).
	Token string
	// Origins are the web origins (scheme://host:port) whose pages may call
	// the codec from a browser: the Temporal UI's. A request from any other
	// page is refused; programs, which send no Origin, are not affected.
	Origins []string
}

// Handler is the codec server: the SDK's converter.NewPayloadCodecHTTPHandler
// (POST .../encode and .../decode, the remote codec protocol of the UI and
// the CLI) behind CORS for the UI's origins and the optional token.
func Handler(o ServerOptions) http.Handler {
	h := &server{
		codec:   converter.NewPayloadCodecHTTPHandler(New(o.Keys)),
		origins: slices.Clone(o.Origins),
	}
	if o.Token != "" {
		sum := sha256.Sum256([]byte(o.Token))
		h.token = sum[:]
	}
	return h
}

type server struct {
	codec   http.Handler
	origins []string
	token   []byte // SHA-256 of the token; nil: none required
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if origin != "" {
		// The login page posts to its own origin.
		if !slices.Contains(s.origins, origin) && origin != ownOrigin(r) {
			http.Error(w, "origin not allowed: "+origin, http.StatusForbidden)
			return
		}
		w.Header().Set("Access-Control-Allow-Origin", origin)
		// The UI sends cookies (includeCredentials) when a token is set.
		w.Header().Set("Access-Control-Allow-Credentials", "true")
		w.Header().Add("Vary", "Origin")
	}
	switch {
	case r.Method == http.MethodOptions:
		// A preflight carries no credentials, by the CORS rules.
		w.Header().Set("Access-Control-Allow-Methods", "POST")
		w.Header().Set("Access-Control-Allow-Headers", "Content-Type, X-Namespace, Authorization, Authorization-Extras")
		w.Header().Set("Access-Control-Max-Age", "600")
		w.WriteHeader(http.StatusNoContent)
	case r.URL.Path == loginPath:
		s.login(w, r)
	case strings.HasSuffix(r.URL.Path, "/encode") || strings.HasSuffix(r.URL.Path, "/decode"):
		if !s.authorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="agent-todos codec"`)
			http.Error(w, "a bearer token is required (or sign in at "+loginPath+")", http.StatusUnauthorized)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxRequestBytes)
		s.codec.ServeHTTP(w, r)
	default:
		http.NotFound(w, r)
	}
}

// authorized checks the bearer token or the login cookie, in constant time.
func (s *server) authorized(r *http.Request) bool {
	if s.token == nil {
		return true
	}
	if v, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.matches(v) {
		return true
	}
	c, err := r.Cookie(cookieName)
	return err == nil && s.matches(c.Value)
}

func (s *server) matches(token string) bool {
	sum := sha256.Sum256([]byte(token))
	return subtle.ConstantTimeCompare(sum[:], s.token) == 1
}

// ownOrigin is the origin of this server's own pages, on http or, behind
// TLS (the embedded server's certificate), https.
func ownOrigin(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}
