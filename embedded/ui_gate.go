package embedded

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"

	"github.com/durabletodos/agenttodos/apikeys"
)

// uiGate serves the Web UI's address when the server has TLS or API keys;
// the UI server itself cannot do what that takes:
//
//   - TLS, and under mutual TLS a client certificate from the browser, as
//     the frontend demands of any client (the UI server's own TLS option
//     cannot ask for client certificates);
//   - under API keys, the person's key: the UI server sends the frontend
//     the Authorization header of each request it forwards (grpc-gateway
//     passes it as the "authorization" metadata the claim mapper reads),
//     but the UI sets one only after an OIDC login. The gate asks the
//     browser for the key as the password of HTTP Basic authentication
//     (any user name) and forwards it as "Bearer <key>", so the UI does
//     exactly what that key's role allows, and the frontend judges it.
//
// The UI server's own connection to the frontend carries no key, so it can
// do nothing without the person's.
type uiGate struct {
	srv     *http.Server
	done    chan struct{}
	history *rawHistory // nil without API keys
}

// basicRealm is what the browser's prompt shows.
const basicRealm = `Basic realm="Temporal Web UI (agent todos): your API key is the password", charset="UTF-8"`

func startUIGate(addr, uiServer endpoint, frontend string, sec security, logger *slog.Logger) (_ *uiGate, err error) {
	g := &uiGate{done: make(chan struct{})}
	if sec.keys != nil {
		if g.history, err = newRawHistory(frontend, sec); err != nil {
			return nil, fmt.Errorf("web UI: %w", err)
		}
		defer func() {
			if err != nil {
				g.history.close()
			}
		}()
	}
	l, err := net.Listen("tcp", addr.listen())
	if err != nil {
		return nil, fmt.Errorf("web UI: %w", err)
	}
	if sec.tls != nil {
		l = tls.NewListener(l, sec.tls.listenerConfig())
	}
	target := &url.URL{Scheme: "http", Host: uiServer.dial()}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host
		},
		// History downloads stream; pass each part on as it comes.
		FlushInterval: -1,
		ErrorHandler:  proxyError(logger),
	}
	var next http.Handler = proxy
	if g.history != nil {
		next = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if isRawHistory(r) {
				g.history.handler.ServeHTTP(w, r)
				return
			}
			proxy.ServeHTTP(w, r)
		})
	}
	g.srv = &http.Server{
		Handler:           sameOrigin(keyGate(sec.keys, next)),
		ReadHeaderTimeout: 30 * time.Second,
		// Handshakes that fail (a browser without the client
		// certificate mutual TLS asks for) are worth a warning.
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	go func() {
		defer close(g.done)
		if err := g.srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("web UI stopped serving", "error", err)
		}
	}()
	return g, nil
}

// proxyError answers a request the UI server did not. A browser that
// leaves a page cancels the UI's requests in flight, which is no one's
// problem; anything else is worth a warning.
func proxyError(logger *slog.Logger) func(http.ResponseWriter, *http.Request, error) {
	return func(w http.ResponseWriter, r *http.Request, err error) {
		if !errors.Is(err, context.Canceled) {
			logger.Warn("web UI: the UI server did not answer", "path", r.URL.Path, "error", err)
		}
		w.WriteHeader(http.StatusBadGateway)
	}
}

func (g *uiGate) stop() {
	_ = g.srv.Close()
	<-g.done
	if g.history != nil {
		g.history.close()
	}
}

// sameOrigin refuses writes a page of another site makes the browser send.
// The UI server guards them with a CSRF token, but skips that check for any
// request with an Authorization header (for UIs whose script sets one),
// and the gate sets one from the password the browser sends on its own,
// as it would send a cookie: without this, any site a person visits could
// steer their sessions with their key. Reads stay open to the browser's
// same-origin policy.
func sameOrigin(next http.Handler) http.Handler {
	return http.NewCrossOriginProtection().Handler(next)
}

// keyGate lets a request through only with a known API key, as the Basic
// password or as a bearer token, and hands it on as the bearer token.
// Without keys it changes nothing.
func keyGate(keys *apikeys.Keys, next http.Handler) http.Handler {
	if keys == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := requestKey(r)
		if _, known := keys.Lookup(key); !ok || !known {
			w.Header().Set("WWW-Authenticate", basicRealm)
			http.Error(w, "This Web UI needs an API key: enter any user name, and your API key as the password.", http.StatusUnauthorized)
			return
		}
		r.Header.Set("Authorization", "Bearer "+key)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), personKey{}, key)))
	})
}

func requestKey(r *http.Request) (string, bool) {
	if _, password, ok := r.BasicAuth(); ok {
		return password, password != ""
	}
	return bearerToken(r.Header.Get("Authorization"))
}
