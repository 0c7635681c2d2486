package sessiontest

import (
	"log/slog"
	"os"

	"go.temporal.io/sdk/log"
)

// QuietLogger keeps SDK chatter out of test output but shows warnings.
func QuietLogger() log.Logger {
	return log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
}
