package identity

import (
	"context"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"

	"github.com/durabletodos/agenttodos/codec"
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

// With the client's encrypting converter the writer's name is no more
// readable in history than the plan.
func TestInjectEncryptsWithTheClientsConverter(t *testing.T) {
	line, err := codec.NewKeyLine("k1")
	if err != nil {
		t.Fatal(err)
	}
	keys, err := codec.ParseKeys(line, "test")
	if err != nil {
		t.Fatal(err)
	}
	dc := codec.DataConverter(keys)
	h := header{}
	if err := (Propagator{Converter: dc}).Inject(With(context.Background(), "alice"), h); err != nil {
		t.Fatal(err)
	}
	p := h[contract.HeaderWriter]
	if string(p.GetMetadata()["encoding"]) != codec.Encoding || strings.Contains(string(p.GetData()), "alice") {
		t.Fatalf("header %v", p)
	}
	var name string
	if err := dc.FromPayload(p, &name); err != nil || name != "alice" {
		t.Fatalf("read back %q, %v", name, err)
	}
}
