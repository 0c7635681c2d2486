package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/durabletodos/agenttodos/codec"
)

// codecServer serves the encryption codec over HTTP (codec.Handler), so the
// Temporal UI and `temporal --codec-endpoint` show plans in clear. It binds
// before the embedded server starts, which must know its URL, and serves
// once the UI's origin is known.
type codecServer struct {
	ln     net.Listener
	scheme string
	srv    *http.Server
	done   chan struct{}
}

// listenCodec binds addr. A codec server decrypts for whoever reaches it, so
// anywhere but loopback it needs a token. With conf (the embedded server's
// certificate) it serves TLS, as the embedded UI does then: the UI's page,
// on https, sends the sign-in cookie only to a codec server on https
// (browsers tell sites apart by scheme too), and decrypted plans do not
// cross a network in clear.
func listenCodec(addr string, hasToken bool, conf *tls.Config) (*codecServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("codec server: %w", err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && !hasToken {
		ln.Close()
		return nil, fmt.Errorf("codec server on %s: it decrypts for anyone who can reach it; listen on loopback (127.0.0.1) or require a token (--codec-token-file or $%s)", addr, codec.EnvToken)
	}
	c := &codecServer{ln: ln, scheme: "http"}
	if conf != nil {
		c.ln, c.scheme = tls.NewListener(ln, conf), "https"
	}
	return c, nil
}

// URL is where clients reach the server; a wildcard bind is reached on
// loopback from this machine.
func (c *codecServer) URL() string {
	tcp := c.ln.Addr().(*net.TCPAddr)
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return c.scheme + "://" + net.JoinHostPort(host, strconv.Itoa(tcp.Port))
}

func (c *codecServer) serve(h http.Handler, logger *slog.Logger) {
	c.srv = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	c.done = make(chan struct{})
	go func() {
		defer close(c.done)
		if err := c.srv.Serve(c.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			logger.Error("Codec server stopped", "error", err)
		}
	}()
}

func (c *codecServer) stop() {
	if c.srv == nil {
		c.ln.Close()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = c.srv.Shutdown(ctx)
	<-c.done
}

// uiOrigins are the origins a browser shows the UI at uiURL under: as given,
// and with localhost for a loopback address, which people type as often.
func uiOrigins(uiURL string) []string {
	if uiURL == "" {
		return nil
	}
	out := []string{uiURL}
	if u, err := url.Parse(uiURL); err == nil {
		if ip := net.ParseIP(u.Hostname()); ip != nil && ip.IsLoopback() {
			out = append(out, u.Scheme+"://"+net.JoinHostPort("localhost", u.Port()))
		}
	}
	return out
}
