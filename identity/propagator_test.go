package identity

import (
	"context"
	"testing"

	commonpb "go.temporal.io/api/common/v1"

	"github.com/durabletodos/agenttodos/contract"
)

type header map[string]*commonpb.Payload

func (h header) Set(key string, p *commonpb.Payload) { h[key] = p }

func TestInjectWritesTheWriterAsAJSONString(t *testing.T) {
	h := header{}
	if err := (Propagator{}).Inject(With(context.Background(), "alice"), h); err != nil {
		t.Fatal(err)
	}
	p := h[contract.HeaderWriter]
	if p == nil || string(p.GetData()) != `"alice"` || string(p.GetMetadata()["encoding"]) != "json/plain" {
		t.Fatalf("header %v", h)
	}
	empty := header{}
	if err := (Propagator{}).Inject(With(context.Background(), ""), empty); err != nil || len(empty) != 0 {
		t.Fatalf("no writer sent %v (%v)", empty, err)
	}
	if err := (Propagator{}).Inject(context.Background(), empty); err != nil || len(empty) != 0 {
		t.Fatalf("a context without a writer sent %v (%v)", empty, err)
	}
}
