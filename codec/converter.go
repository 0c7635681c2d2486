package codec

import (
	failurepb "go.temporal.io/api/failure/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/protobuf/proto"

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
		opts.FailureConverter = failureConverter{temporal.NewDefaultFailureConverter(temporal.DefaultFailureConverterOptions{
			DataConverter:          opts.DataConverter,
			EncodeCommonAttributes: true,
		})}
	}
}

// failureConverter decodes a copy of each failure. The SDK's
// DefaultFailureConverter puts the decrypted message and stack trace back
// into the very Failure it is given, and for a local activity that Failure
// is also the one the SDK records in the marker (go.temporal.io/sdk v1.50.0,
// internal_event_handlers.go, handleLocalActivityMarker): the TodoWrite
// activity's rejection, which quotes the list, went into history in clear
// beside its encrypted copy (TestEncryptedSessionShowsNothingWithoutTheKeys).
type failureConverter struct {
	converter.FailureConverter
}

func (f failureConverter) FailureToError(failure *failurepb.Failure) error {
	if failure == nil {
		return nil
	}
	return f.FailureConverter.FailureToError(proto.Clone(failure).(*failurepb.Failure))
}
