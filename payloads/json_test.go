package payloads

import (
	"testing"

	"go.temporal.io/sdk/converter"
)

func TestCodeCostsItsOwnBytes(t *testing.T) {
	type item struct {
		Content string `json:"content"`
	}
	p, err := DataConverter().ToPayload(item{Content: "if a < b && c > d {}"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(p.GetData()), `{"content":"if a < b && c > d {}"}`; got != want {
		t.Fatalf("payload %s, want %s", got, want)
	}
	// The SDK's default converter reads it back, and we read its escaped form.
	var back item
	if err := converter.GetDefaultDataConverter().FromPayload(p, &back); err != nil || back.Content != "if a < b && c > d {}" {
		t.Fatalf("default converter read %q, %v", back.Content, err)
	}
	escaped, _ := converter.GetDefaultDataConverter().ToPayload(item{Content: "<&>"})
	if err := DataConverter().FromPayload(escaped, &back); err != nil || back.Content != "<&>" {
		t.Fatalf("read %q, %v", back.Content, err)
	}
}
