package workflows

import (
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

// commonPayload is a JSON payload carrying exactly the given text, as the
// temporal CLI sends --input.
type commonPayload struct{ data string }

func (c commonPayload) payload() *commonpb.Payload {
	return &commonpb.Payload{
		Metadata: map[string][]byte{converter.MetadataEncoding: []byte(converter.MetadataEncodingJSON)},
		Data:     []byte(c.data),
	}
}
