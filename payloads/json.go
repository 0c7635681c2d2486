// Package payloads is how this project's values become Temporal payloads:
// JSON, as Temporal's default converter writes it, except that <, > and & stay
// themselves instead of becoming \u003c, \u003e and \u0026. Plans are full of
// code, and HTML escaping made such content cost six bytes per character,
// enough for a valid list to push a workflow task over Temporal's limits.
// Any JSON reader (the stock CLI, the UI, other SDKs) reads both forms.
package payloads

import (
	"bytes"
	"encoding/json"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

// Marshal is json.Marshal without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	// Encode ends every value with a newline; Marshal does not.
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// jsonConverter is the SDK's JSONPayloadConverter with Marshal in place of
// json.Marshal; it reads and writes the same "json/plain" encoding.
type jsonConverter struct{}

func (jsonConverter) ToPayload(value any) (*commonpb.Payload, error) {
	data, err := Marshal(value)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", converter.ErrUnableToEncode, err)
	}
	return &commonpb.Payload{
		Metadata: map[string][]byte{converter.MetadataEncoding: []byte(converter.MetadataEncodingJSON)},
		Data:     data,
	}, nil
}

func (jsonConverter) FromPayload(p *commonpb.Payload, valuePtr any) error {
	if err := json.Unmarshal(p.GetData(), valuePtr); err != nil {
		return fmt.Errorf("%w: %v", converter.ErrUnableToDecode, err)
	}
	return nil
}

func (jsonConverter) ToString(p *commonpb.Payload) string { return string(p.GetData()) }

func (jsonConverter) Encoding() string { return converter.MetadataEncodingJSON }

// DataConverter is the SDK's default data converter with jsonConverter for
// JSON. The worker, the client and the tests all use it.
func DataConverter() converter.DataConverter {
	return converter.NewCompositeDataConverter(
		converter.NewNilPayloadConverter(),
		converter.NewByteSlicePayloadConverter(),
		converter.NewProtoJSONPayloadConverter(),
		converter.NewProtoPayloadConverter(),
		jsonConverter{},
	)
}
