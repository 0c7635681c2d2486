package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/durabletodos/agenttodos/notify"
)

// maxNotificationBytes bounds a POST's body: a notification is a few KiB
// (its change record at most notify.MaxChangeBytes).
const maxNotificationBytes = 1 << 20

// rememberedKeys bounds the idempotency keys a listener keeps: a repeat
// comes within the sender's give-up time, long before this many others.
const rememberedKeys = 100_000

func (a *app) webhookCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "webhook",
		Short: "Receive notifications here, to try webhooks without a service (webhook listen)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cmd.SetOut(a.stderr)
			cmd.Help()
			return &exitError{code: 2}
		},
	}
	cmd.AddCommand(a.webhookListenCommand())
	return cmd
}

func (a *app) webhookListenCommand() *cobra.Command {
	var addr, file, name string
	cmd := &cobra.Command{
		Use:   "listen --secret NAME",
		Short: "Receive notifications: check each signature, print each change once",
		Long: `Serve HTTP on --addr and take the POSTs a session sends its webhooks (any
path): check each one's X-Agent-Todos-Signature against the secret --secret
names in --secret-file (the worker's --webhook-secrets file, or one holding the
same secret), answer 401 to a bad one and 204 to a good one, and print each
change once: a POST with an Idempotency-Key already seen is answered 204 again
and printed as "(again)". -o jsonl prints each new notification's JSON body on
a line. It runs until Ctrl-C.`,
		Example: `  client webhook listen --secret-file ~/.config/agent-todos/webhook-secrets --secret demo
  client subscribe demo --url http://127.0.0.1:8399/hook --secret demo`,
		Args: positional(false),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if file == "" {
				return usageErrorf("missing --secret-file FILE (name=secret lines, as the worker's --webhook-secrets; env AGENT_WEBHOOK_SECRETS)")
			}
			if name == "" {
				return usageErrorf("missing --secret NAME, the secret in --secret-file the session's webhook is signed with")
			}
			secrets, err := notify.LoadSecrets(file)
			if err != nil {
				return &exitError{code: 1, msg: "client: " + err.Error(), cause: err}
			}
			secret, ok := secrets.Lookup(name)
			if !ok {
				return &exitError{code: 1, msg: fmt.Sprintf("client: %s holds no secret %q", file, name)}
			}
			return a.listen(cmd.Context(), addr, name, secret)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", "127.0.0.1:8399", "listen on `host:port` (port 0: any free one)")
	f.StringVar(&file, "secret-file", os.Getenv("AGENT_WEBHOOK_SECRETS"), "`FILE` of name=secret lines, mode 0600 (env AGENT_WEBHOOK_SECRETS, as the worker's)")
	f.StringVar(&name, "secret", "", "check signatures with the secret called `NAME` in --secret-file")
	return cmd
}

func (a *app) listen(ctx context.Context, addr, name string, secret []byte) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	out := a.out.streaming()
	rec := &webhookListener{secret: secret, seen: map[string]bool{}}
	rec.accepted = func(n notify.Notification, body []byte, again bool) {
		if out.text() {
			io.WriteString(out.w, renderNotification(n, a.term, again))
			return
		}
		if again {
			fmt.Fprintf(a.stderr, "again: %s\n", n.ID)
			return
		}
		var line bytes.Buffer
		if json.Compact(&line, body) == nil {
			out.value(json.RawMessage(line.Bytes()))
		}
	}
	rec.refused = func(r *http.Request, status int, why string) {
		fmt.Fprintf(a.stderr, "refused a %s from %s: %s (%d)\n", r.Method, r.RemoteAddr, why, status)
	}
	srv := &http.Server{Handler: rec, ReadHeaderTimeout: 10 * time.Second}
	url := "http://" + ln.Addr().String() + "/hook"
	fmt.Fprintf(a.stderr, "Listening for notifications at %s, signed with secret %q (Ctrl-C to stop)\n", url, name)
	fmt.Fprintf(a.stderr, "  subscribe a session: client subscribe SESSION --url %s --secret %s\n", url, name)
	return serve(ctx, srv, ln)
}

// webhookListener is a receiver as the README asks one to be: signature
// first, then the idempotency key, then the news.
type webhookListener struct {
	secret   []byte
	accepted func(n notify.Notification, body []byte, again bool)
	refused  func(r *http.Request, status int, why string)

	// mu also keeps what accepted prints in one piece: POSTs from several
	// sessions come at once.
	mu   sync.Mutex
	seen map[string]bool
	keys []string // oldest first
}

func (l *webhookListener) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	refuse := func(status int, why string) {
		l.refused(r, status, why)
		http.Error(w, why, status)
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		refuse(http.StatusMethodNotAllowed, "notifications are POSTed")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxNotificationBytes))
	if err != nil {
		refuse(http.StatusRequestEntityTooLarge, "body over 1 MiB or cut short")
		return
	}
	// Nothing in the body counts before the signature says who sent it.
	if !notify.Verify(l.secret, body, r.Header.Get(notify.HeaderSignature)) {
		refuse(http.StatusUnauthorized, notify.HeaderSignature+" does not match the body")
		return
	}
	var n notify.Notification
	if err := json.Unmarshal(body, &n); err != nil {
		refuse(http.StatusBadRequest, "the body is not a notification: "+err.Error())
		return
	}
	key := cmp.Or(r.Header.Get(notify.HeaderIdempotencyKey), n.ID)
	l.mu.Lock()
	defer l.mu.Unlock()
	again := l.seen[key]
	if !again {
		l.seen[key] = true
		l.keys = append(l.keys, key)
		if len(l.keys) > rememberedKeys {
			delete(l.seen, l.keys[0])
			l.keys = l.keys[1:]
		}
	}
	l.accepted(n, body, again)
	// Answered after printing: a change is shown before its sender counts
	// it delivered, and an answer lost on the way brings it back "(again)".
	w.WriteHeader(http.StatusNoContent)
}
