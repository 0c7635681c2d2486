package main

import (
	"log/slog"

	"go.uber.org/zap"
	"go.uber.org/zap/exp/zapslog"
	"go.uber.org/zap/zapcore"
)

// newLogger builds the one zap logger that the SDK (through
// log.NewStructuredLogger), the embedded server and our own code write to,
// bridged to slog by zapslog.
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
	return slog.New(zapslog.NewHandler(z.Core(), zapslog.WithCaller(true))), func() { _ = z.Sync() }
}
