package workflows

import (
	"go.temporal.io/sdk/converter"
)

// rawJSON returns the JSON text of a handler argument. Handlers take the raw
// payload rather than a struct because the default converter would silently
// drop unknown keys the contract must reject; a payload that is not JSON at
// all reads as empty, which the validator rejects with rule 1.
func rawJSON(v converter.RawValue) string {
	p := v.Payload()
	if p == nil || string(p.GetMetadata()[converter.MetadataEncoding]) != converter.MetadataEncodingJSON {
		return ""
	}
	return string(p.GetData())
}
