package main

import (
	"log/slog"

	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"
	"go.uber.org/zap/zapcore"
)

// newLogger builds the one zap logger that the SDK (through
// log.NewStructuredLogger), the embedded server, the standard log package
// and our own code write to, bridged to slog by zapslog.
func newLogger(level string) (*slog.Logger, func()) {
	lvl, err := zapcore.ParseLevel(level)
	if err != nil {
		lvl = zapcore.InfoLevel
	}
	zc := zap.NewProductionConfig()
	zc.Level = zap.NewAtomicLevelAt(lvl)
	zc.Encoding = "console"
	zc.EncoderConfig.EncodeTime = zapcore.ISO8601TimeEncoder
	z, err := zc.Build()
	if err != nil {
		z = zap.NewNop()
	}
	l := slog.New(zapslog.NewHandler(z.Core(), zapslog.WithCaller(true)))
	// The Web UI server reports with the standard log package (with TLS:
	// "Loaded CA cert from base64"); through slog's default those lines
	// come out as the worker's own, not in a second format.
	slog.SetDefault(l)
	return l, func() { _ = z.Sync() }
}
