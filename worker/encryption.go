package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"

	"github.com/durabletodos/agenttodos/codec"
	"github.com/durabletodos/agenttodos/embedded"
)

// encryption is the worker's payload encryption: its keys (nil when off),
// the codec server's token, and the codec server itself.
type encryption struct {
	keys *codec.Keys
	// keyFile is where the keys came from; "" when from $AGENT_ENCRYPTION_KEY.
	keyFile string
	token   string
	// tokenFile is where the token came from; "" when from $AGENT_CODEC_TOKEN.
	tokenFile string
	server    *codecServer // nil when encryption is off or --codec-address is "-"
}

// loadEncryption reads the keys and token and binds the codec server, so a
// bad file or a taken port stops the worker before it starts anything.
func loadEncryption(cfg config) (*encryption, error) {
	keys, err := codec.Load(cfg.EncryptionKeys)
	if err != nil {
		return nil, err
	}
	token, err := codec.LoadToken(cfg.CodecTokenFile)
	if err != nil {
		return nil, err
	}
	e := &encryption{keys: keys, keyFile: cfg.EncryptionKeys, token: token, tokenFile: cfg.CodecTokenFile}
	if keys == nil {
		if token != "" {
			return nil, errors.New("a codec token is set but payload encryption is off: give the worker --encryption-keys (or $" + codec.EnvKeysFile + " or $" + codec.EnvKeys + ")")
		}
		return e, nil
	}
	if cfg.CodecAddress != "-" {
		conf, err := codecTLS(cfg)
		if err != nil {
			return nil, err
		}
		if e.server, err = listenCodec(cfg.CodecAddress, token != "", conf); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// uiCodec configures the embedded UI with the codec server, if there is one.
func (e *encryption) uiCodec() embedded.UICodec {
	if e.server == nil {
		return embedded.UICodec{}
	}
	return embedded.UICodec{Endpoint: e.server.URL(), IncludeCredentials: e.token != ""}
}

// serve starts the codec server for the embedded UI's origins and any others
// configured.
func (e *encryption) serve(cfg config, conn *connection, logger *slog.Logger) {
	if e.keys != nil {
		logger.Info("Payloads are encrypted", "keys", e.keys)
	}
	if e.server == nil {
		return
	}
	origins := append([]string{}, cfg.CodecOrigins...)
	if conn.Server != nil {
		origins = append(origins, uiOrigins(conn.Server.UIURL())...)
	}
	e.server.serve(codec.Handler(codec.ServerOptions{Keys: e.keys, Token: e.token, Origins: origins}), logger)
}

func (e *encryption) stop() {
	if e.server != nil {
		e.server.stop()
	}
}

// codecURL is the codec server's URL, or "".
func (e *encryption) codecURL() string {
	if e.server == nil {
		return ""
	}
	return e.server.URL()
}

// codecTLS is the codec server's TLS: the embedded server's certificate when
// it has one (--tls-cert), else none. It asks browsers for no client
// certificate even under mutual TLS: its token guards it, and the stock
// CLI's codec client (--codec-endpoint) cannot present one.
func codecTLS(cfg config) (*tls.Config, error) {
	if cfg.TLSCert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(cfg.TLSCert, cfg.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("codec server: --tls-cert %s and --tls-key %s: %w", cfg.TLSCert, cfg.TLSKey, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}
