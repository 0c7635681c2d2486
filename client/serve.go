package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// serve runs srv on ln until ctx ends (Ctrl-C), then lets requests in
// flight finish for a few seconds: a long-running command's clean exit.
func serve(ctx context.Context, srv *http.Server, ln net.Listener) error {
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
