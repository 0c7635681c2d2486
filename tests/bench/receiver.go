package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/durabletodos/agenttodos/notify"
)

// benchSecretName names the key the bench's subscriber signs with.
const benchSecretName = "bench"

var benchSecrets = func() *notify.Secrets {
	s, err := notify.NewSecrets(map[string]string{benchSecretName: "bench-webhook-secret-0123456789"})
	if err != nil {
		panic(err)
	}
	return s
}()

// receiver is a webhook receiver that answers every POST at once, as a
// healthy one does.
type receiver struct {
	*httptest.Server
	n atomic.Int64
}

func newReceiver() *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		_, _ = io.Copy(io.Discard, req.Body)
		r.n.Add(1)
		w.WriteHeader(http.StatusNoContent)
	}))
	return r
}

func (r *receiver) count() int64 { return r.n.Load() }
