package embedded

import (
	"context"
	"log/slog"
	"sync/atomic"

	"go.temporal.io/server/common/log"
	"go.temporal.io/server/common/log/tag"
)

// minServerLogLevel keeps the server's startup chatter and per-request info
// logs out of the worker's output; warnings and errors still get through.
const minServerLogLevel = slog.LevelWarn

// newSlog returns the logger everything in this package writes to: the
// caller's logger filtered to minServerLogLevel, or a discarding one. The
// returned switch silences it for good.
func newSlog(l *slog.Logger) (*slog.Logger, *atomic.Bool) {
	muted := new(atomic.Bool)
	if l == nil {
		return slog.New(slog.DiscardHandler), muted
	}
	return slog.New(filterHandler{Handler: l.Handler(), min: minServerLogLevel, muted: muted}), muted
}

// filterHandler drops records below min regardless of how the caller's
// handler is configured, since the server logs at Info constantly, and drops
// everything once muted. Stop mutes it first: shutting down makes every
// service log "context canceled" errors and connection failures that mean
// nothing to the user.
type filterHandler struct {
	slog.Handler
	min   slog.Level
	muted *atomic.Bool
}

func (h filterHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return level >= h.min && !h.muted.Load() && h.Handler.Enabled(ctx, level)
}

func (h filterHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return filterHandler{Handler: h.Handler.WithAttrs(attrs), min: h.min, muted: h.muted}
}

func (h filterHandler) WithGroup(name string) slog.Handler {
	return filterHandler{Handler: h.Handler.WithGroup(name), min: h.min, muted: h.muted}
}

// serverLogger adapts slog to the server's logger interface.
type serverLogger struct{ l *slog.Logger }

var (
	_ log.Logger      = serverLogger{}
	_ log.SLogWrapper = serverLogger{}
)

func (s serverLogger) Debug(msg string, tags ...tag.Tag) { s.log(slog.LevelDebug, msg, tags) }
func (s serverLogger) Info(msg string, tags ...tag.Tag)  { s.log(slog.LevelInfo, msg, tags) }
func (s serverLogger) Warn(msg string, tags ...tag.Tag)  { s.log(slog.LevelWarn, msg, tags) }
func (s serverLogger) Error(msg string, tags ...tag.Tag) { s.log(errorLevel(msg), msg, tags) }

// DPanic, Panic and Fatal only log, as in the CLI dev server: exiting would
// take the whole worker down with it. The fatal paths we know of (failed
// binds) are ruled out before start by checking and reserving the ports.
func (s serverLogger) DPanic(msg string, tags ...tag.Tag) { s.log(slog.LevelError, msg, tags) }
func (s serverLogger) Panic(msg string, tags ...tag.Tag)  { s.log(slog.LevelError, msg, tags) }
func (s serverLogger) Fatal(msg string, tags ...tag.Tag)  { s.log(slog.LevelError, msg, tags) }

// SLog lets server components that prefer slog (log.NewSlogLogger) use the
// filtered logger directly instead of round-tripping through tags.
func (s serverLogger) SLog() *slog.Logger { return s.l }

func (s serverLogger) log(level slog.Level, msg string, tags []tag.Tag) {
	ctx := context.Background()
	if !s.l.Enabled(ctx, level) {
		return
	}
	attrs := make([]slog.Attr, len(tags))
	for i, t := range tags {
		attrs[i] = slog.Any(t.Key(), t.Value())
	}
	s.l.LogAttrs(ctx, level, msg, attrs...)
}

// authorizationError is what the frontend logs for each request the
// authorizer refuses (authorization.Interceptor). That is the caller's
// mistake or an intrusion attempt, worth a warning with the reason (which
// keyAuthorizer makes say who and what), not an error of the server.
const authorizationError = "Authorization error"

func errorLevel(msg string) slog.Level {
	if msg == authorizationError {
		return slog.LevelWarn
	}
	return slog.LevelError
}
