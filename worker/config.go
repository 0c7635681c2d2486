package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/durabletodos/agenttodos/codec"
	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/todo"
)

// config is the worker's own settings; the Temporal connection itself comes
// from envconfig (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_PROFILE, TLS,
// API key), like every Temporal tool.
type config struct {
	TaskQueue string
	Limits    todo.Limits
	LogLevel  string
	// StopTimeout is how long SIGINT or SIGTERM waits for running tasks.
	StopTimeout time.Duration
	// WebhookSecrets is the file of the keys that sign notifications.
	WebhookSecrets string
	// EncryptionKeys is the key file payloads are encrypted with; empty
	// (and no AGENT_ENCRYPTION_KEY) leaves them in clear.
	EncryptionKeys string
	// CodecAddress is where the codec server listens when payloads are
	// encrypted; "-" runs none.
	CodecAddress string
	// CodecTokenFile holds the token the codec server requires, if any.
	CodecTokenFile string
	// CodecOrigins are web origins besides the embedded UI's that may call
	// the codec server from a browser (another Temporal UI).
	CodecOrigins []string

	// Embedded server, used only when no Temporal address is configured.
	DataDir         string
	FrontendAddress string
	UIAddress       string
	StartTimeout    time.Duration
	SQLitePragmas   map[string]string
	// Who may reach the embedded server (README, "Security").
	TLSCert, TLSKey, TLSClientCA string
	APIKeys                      string
	InsecureListen               bool
}

// embeddedOnly says which flags configure the embedded server's security,
// which a worker on a configured cluster does not start: set there, they
// would promise a protection nothing provides.
func (c config) embeddedOnly() []string {
	var set []string
	for _, f := range []struct {
		name string
		on   bool
	}{
		{"--tls-cert", c.TLSCert != ""}, {"--tls-key", c.TLSKey != ""}, {"--tls-client-ca", c.TLSClientCA != ""},
		{"--api-keys", c.APIKeys != ""}, {"--insecure-listen", c.InsecureListen},
	} {
		if f.on {
			set = append(set, f.name)
		}
	}
	return set
}

func parseConfig(args []string) (config, error) {
	var c config
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.StringVar(&c.TaskQueue, "task-queue", envOr("AGENT_TASK_QUEUE", contract.TaskQueue), "task queue to poll")
	fs.IntVar(&c.Limits.MaxItems, "max-items", contract.DefaultMaxItems, "most items one todo_write may carry")
	fs.IntVar(&c.Limits.MaxContentBytes, "max-content-bytes", contract.DefaultMaxContentBytes, "longest content of one item, in bytes")
	fs.IntVar(&c.Limits.MaxTotalBytes, "max-total-bytes", contract.DefaultMaxTotalBytes, "most content bytes of one list")
	fs.StringVar(&c.LogLevel, "log-level", envOr("AGENT_LOG_LEVEL", "info"), "debug, info, warn or error")
	stopTimeout, err := envDuration("AGENT_STOP_TIMEOUT", defaultStopTimeout)
	if err != nil {
		return c, err
	}
	fs.DurationVar(&c.StopTimeout, "stop-timeout", stopTimeout, "how long a stopping worker lets running tasks finish")
	fs.StringVar(&c.WebhookSecrets, "webhook-secrets", envOr("AGENT_WEBHOOK_SECRETS", ""), "file of name=secret lines (mode 0600): the keys subscribers' notifications are signed with")
	fs.StringVar(&c.EncryptionKeys, "encryption-keys", envOr(codec.EnvKeysFile, ""), "file of id=base64-key lines (mode 0600, newest last): encrypt every payload with the newest key, read with any (default: $"+codec.EnvKeys+" holds the keys, else payloads are in clear)")
	fs.StringVar(&c.CodecAddress, "codec-address", envOr("AGENT_CODEC_ADDRESS", contract.DefaultCodecAddress), `with encryption: the codec server's address, for the Web UI and temporal --codec-endpoint ("-" for none)`)
	fs.StringVar(&c.CodecTokenFile, "codec-token-file", envOr("AGENT_CODEC_TOKEN_FILE", ""), "with encryption: file (mode 0600) of the bearer token the codec server requires (default: $"+codec.EnvToken+", else none)")
	if v := envOr("AGENT_CODEC_ORIGINS", ""); v != "" {
		c.CodecOrigins = strings.Split(v, ",")
	}
	fs.Func("codec-origin", "with encryption: a web `origin` (scheme://host:port) besides the embedded UI's whose pages may call the codec server (repeatable)", func(v string) error {
		c.CodecOrigins = append(c.CodecOrigins, strings.TrimRight(v, "/"))
		return nil
	})
	fs.StringVar(&c.DataDir, "data-dir", envOr("AGENT_DATA_DIR", defaultDataDir()), "embedded server: directory of its SQLite file")
	fs.StringVar(&c.FrontendAddress, "frontend-address", envOr("AGENT_FRONTEND_ADDRESS", contract.DefaultFrontendAddress), "embedded server: gRPC frontend address")
	fs.StringVar(&c.UIAddress, "ui-address", envOr("AGENT_UI_ADDRESS", contract.DefaultUIAddress), `embedded server: Web UI address ("-" for none)`)
	fs.DurationVar(&c.StartTimeout, "start-timeout", 2*time.Minute, "embedded server: how long start-up may take")
	fs.Func("sqlite-pragma", "embedded server: `key=value` over the defaults journal_mode=wal, synchronous=normal (repeatable; as temporal server start-dev --sqlite-pragma)", func(v string) error {
		k, val, ok := strings.Cut(v, "=")
		if !ok {
			return fmt.Errorf("want key=value, got %q", v)
		}
		if c.SQLitePragmas == nil {
			c.SQLitePragmas = map[string]string{}
		}
		c.SQLitePragmas[k] = val
		return nil
	})
	fs.StringVar(&c.TLSCert, "tls-cert", envOr("AGENT_TLS_CERT", ""), "embedded server: its TLS certificate `file` (PEM); with --tls-key the frontend and the Web UI serve only TLS")
	fs.StringVar(&c.TLSKey, "tls-key", envOr("AGENT_TLS_KEY", ""), "embedded server: the private key `file` of --tls-cert (PEM)")
	fs.StringVar(&c.TLSClientCA, "tls-client-ca", envOr("AGENT_TLS_CLIENT_CA", ""), "embedded server: require client certificates signed by a CA in this `file` (mutual TLS)")
	fs.StringVar(&c.APIKeys, "api-keys", envOr("AGENT_API_KEYS", ""), `embedded server: `+"`file`"+` of "name role key" lines (mode 0600; roles reader, writer, worker, admin): every request then needs one of the keys`)
	insecureListen, err := envBool("AGENT_INSECURE_LISTEN")
	if err != nil {
		return c, err
	}
	fs.BoolVar(&c.InsecureListen, "insecure-listen", insecureListen, "embedded server: serve plain text on an address other than loopback (refused otherwise: anyone who reaches it could read the traffic)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if c.StopTimeout < 0 {
		return c, fmt.Errorf("-stop-timeout must not be negative, got %s", c.StopTimeout)
	}
	return c, nil
}

func envOr(key, fallback string) string {
	if v, ok := os.LookupEnv(key); ok && v != "" {
		return v
	}
	return fallback
}

func envBool(key string) (bool, error) {
	v := envOr(key, "")
	if v == "" {
		return false, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s: want true or false, got %q", key, v)
	}
	return b, nil
}

func envDuration(key string, fallback time.Duration) (time.Duration, error) {
	v := envOr(key, "")
	if v == "" {
		return fallback, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", key, err)
	}
	return d, nil
}

// defaultDataDir follows the XDG base directory convention, so sessions
// survive restarts without littering the working directory.
func defaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "agent-todos")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "agent-todos")
	}
	return ".agent-todos"
}
