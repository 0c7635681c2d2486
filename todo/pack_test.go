package todo

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/durabletodos/agenttodos/contract"
)

func TestPackRoundTrips(t *testing.T) {
	items := []Item{
		{Content: "Run the tests", Status: InProgress},
		{Content: "", Status: Pending},
		{Content: "ctl \x01\x02 <&> \u2028 ünïcode", Status: Completed},
		{Content: strings.Repeat("x", 300), Status: Pending},
	}
	got, err := Unpack(Pack(items))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(items) {
		t.Fatalf("%d items back", len(got))
	}
	for i := range items {
		if got[i] != items[i] {
			t.Fatalf("item %d: %+v, want %+v", i, got[i], items[i])
		}
	}
	if empty, err := Unpack(Pack(nil)); err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("empty list: %v, %v", empty, err)
	}
	for _, bad := range []Packed{{'x', 0}, {'p', 5, 'a'}, {'p'}} {
		if _, err := Unpack(bad); err == nil {
			t.Fatalf("corrupt %q unpacked", bad)
		}
	}
}

// The worst content for JSON costs its own bytes once packed.
func TestPackedSizeIsBoundedByContent(t *testing.T) {
	items := make([]Item, 64)
	for i := range items {
		items[i] = Item{Content: strings.Repeat("\x01", contract.DefaultMaxContentBytes), Status: Pending}
	}
	packed := Pack(items)
	asJSON, _ := json.Marshal(items)
	if len(packed) > 64*(contract.DefaultMaxContentBytes+3) {
		t.Fatalf("packed %d bytes", len(packed))
	}
	if len(asJSON) < 6*len(packed)-1000 {
		t.Fatalf("JSON %d bytes, packed %d: expected JSON to cost about 6x", len(asJSON), len(packed))
	}
}

func TestEncodedSizeBoundsJSON(t *testing.T) {
	for _, content := range []string{"plain", "<&>", "\x01\x1f", "tab\tnew\nline\"\\", "\u2028\u2029", "bad \xff utf8", "ünï 中文 🔄"} {
		items := []Item{{Content: content, Status: InProgress}, {Content: content + "2", Status: Pending}}
		var buf strings.Builder
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(items)
		if got, want := EncodedSize(items), len(buf.String())-1; got < want {
			t.Errorf("%q: EncodedSize %d < encoded %d", content, got, want)
		}
	}
}

func TestMarkdownStaysWithinTheDetailsBudget(t *testing.T) {
	items := make([]Item, 500)
	for i := range items {
		items[i] = Item{Content: strings.Repeat("\x01<", 2048), Status: Pending}
	}
	md := Markdown(items, CountOf(items), 7)
	// As the worker's payload converter writes it: no HTML escaping.
	var buf strings.Builder
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(md)
	if b := buf.String(); len(b) > MaxDetailsBytes {
		t.Fatalf("details take %d bytes as JSON, budget %d", len(b), MaxDetailsBytes)
	}
	if !strings.Contains(md, " more (the `todos` query has the whole list)") || !strings.HasSuffix(md, "_Last write: seq 7_\n") {
		t.Fatalf("details do not say what was left out:\n%s", md[len(md)-200:])
	}
	short := Markdown(items[:3], CountOf(items[:3]), 1)
	if strings.Contains(short, "more (") {
		t.Fatal("a short list was cut")
	}
}
