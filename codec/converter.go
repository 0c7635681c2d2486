package codec

import (
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/payloads"
)

// DataConverter is payloads.DataConverter with every payload encrypted under
// keys; with nil keys (encryption off) it is payloads.DataConverter itself.
func DataConverter(keys *Keys) converter.DataConverter {
	if keys == nil {
		return payloads.DataConverter()
	}
	return converter.NewCodecDataConverter(payloads.DataConverter(), New(keys))
}

// Configure gives a Temporal client (and so a worker built on it) this
// project's payloads, encrypted under keys when keys is not nil. Encrypted,
// failures keep only their type readable: their messages and stack traces,
// which quote rejected lists and the plan's contents, travel as an encrypted
// payload too (the SDK's EncodeCommonAttributes), and the SDK puts them back
// for whoever holds the keys.
func Configure(opts *client.Options, keys *Keys) {
	opts.DataConverter = DataConverter(keys)
	if keys != nil {
		opts.FailureConverter = temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{
			DataConverter:          opts.DataConverter,
			EncodeCommonAttributes: true,
		})
	}
}
