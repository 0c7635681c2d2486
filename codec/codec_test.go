package codec

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
)

func keyLine(t *testing.T, id string) string {
	t.Helper()
	l, err := NewKeyLine(id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func mustKeys(t *testing.T, lines ...string) *Keys {
	t.Helper()
	k, err := ParseKeys(strings.Join(lines, "\n"), "test")
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func jsonPayload(s string) *commonpb.Payload {
	return &commonpb.Payload{
		Metadata: map[string][]byte{converter.MetadataEncoding: []byte(converter.MetadataEncodingJSON)},
		Data:     []byte(s),
	}
}

func TestEncryptsWithTheNewestKeyAndDecryptsWithAny(t *testing.T) {
	k1, k2 := keyLine(t, "k1"), keyLine(t, "k2")
	old := New(mustKeys(t, k1))
	enc, err := old.Encode([]*commonpb.Payload{jsonPayload(`{"content":"Rotate the keys"}`)})
	if err != nil {
		t.Fatal(err)
	}
	p := enc[0]
	if got := string(p.Metadata[converter.MetadataEncoding]); got != Encoding {
		t.Fatalf("encoding %q", got)
	}
	if got := string(p.Metadata[MetadataKeyID]); got != "k1" {
		t.Fatalf("key id %q", got)
	}
	if bytes.Contains(p.Data, []byte("Rotate")) {
		t.Fatal("plaintext in the encrypted payload")
	}

	// After rotation: new payloads use k2, old ones still decrypt.
	rotated := New(mustKeys(t, k1, k2))
	dec, err := rotated.Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	if string(dec[0].Data) != `{"content":"Rotate the keys"}` || string(dec[0].Metadata[converter.MetadataEncoding]) != converter.MetadataEncodingJSON {
		t.Fatalf("decoded %v", dec[0])
	}
	enc2, _ := rotated.Encode([]*commonpb.Payload{jsonPayload(`1`)})
	if got := string(enc2[0].Metadata[MetadataKeyID]); got != "k2" {
		t.Fatalf("after rotation encrypted with %q, want k2", got)
	}

	// Dropping k1 too early makes its payloads unreadable, with a typed error.
	_, err = New(mustKeys(t, k2)).Decode(enc)
	var unknown *UnknownKeyError
	if !errors.As(err, &unknown) || unknown.KeyID != "k1" {
		t.Fatalf("decode without k1: %v", err)
	}

	// The same payload encrypted twice differs (fresh nonce).
	again, _ := old.Encode([]*commonpb.Payload{jsonPayload(`{"content":"Rotate the keys"}`)})
	if bytes.Equal(again[0].Data, p.Data) {
		t.Fatal("two encryptions of one payload are equal")
	}
}

func TestAlteredPayloadsDoNotDecrypt(t *testing.T) {
	k1, k2 := keyLine(t, "k1"), keyLine(t, "k2")
	c := New(mustKeys(t, k1, k2))
	enc, err := New(mustKeys(t, k1)).Encode([]*commonpb.Payload{jsonPayload(`"alice"`)})
	if err != nil {
		t.Fatal(err)
	}
	for name, alter := range map[string]func(p *commonpb.Payload){
		"a flipped bit":    func(p *commonpb.Payload) { p.Data[len(p.Data)-1] ^= 1 },
		"truncated":        func(p *commonpb.Payload) { p.Data = p.Data[:10] },
		"another key's ID": func(p *commonpb.Payload) { p.Metadata[MetadataKeyID] = []byte("k2") },
	} {
		p := &commonpb.Payload{Metadata: map[string][]byte{}, Data: bytes.Clone(enc[0].Data)}
		for k, v := range enc[0].Metadata {
			p.Metadata[k] = v
		}
		alter(p)
		_, err := c.Decode([]*commonpb.Payload{p})
		var de *DecryptError
		if !errors.As(err, &de) {
			t.Errorf("%s: %v, want a DecryptError", name, err)
		}
	}
}

func TestPlainPayloadsPassThrough(t *testing.T) {
	c := New(mustKeys(t, keyLine(t, "k1")))
	in := []*commonpb.Payload{jsonPayload(`{"todos":[]}`), {Metadata: map[string][]byte{converter.MetadataEncoding: []byte("binary/null")}}}
	out, err := c.Decode(in)
	if err != nil || out[0] != in[0] || out[1] != in[1] {
		t.Fatalf("plain payloads changed: %v, %v", out, err)
	}
}

// A data converter built on the codec writes nothing a reader without the
// keys can use, and reads it back.
func TestDataConverterEncryptsOurJSON(t *testing.T) {
	keys := mustKeys(t, keyLine(t, "k1"))
	dc := DataConverter(keys)
	type item struct {
		Content string `json:"content"`
	}
	p, err := dc.ToPayload(item{Content: "if a < b && c > d {}"})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(p.Data, []byte("if a")) {
		t.Fatal("plaintext in the payload")
	}
	var back item
	if err := dc.FromPayload(p, &back); err != nil || back.Content != "if a < b && c > d {}" {
		t.Fatalf("read back %q, %v", back.Content, err)
	}
	if err := converter.GetDefaultDataConverter().FromPayload(p, &back); !errors.Is(err, converter.ErrEncodingIsNotSupported) {
		t.Fatalf("the default converter read an encrypted payload: %v", err)
	}
	// Off: our plain JSON converter.
	if p, _ := DataConverter(nil).ToPayload(item{Content: "<&>"}); string(p.Data) != `{"content":"<&>"}` {
		t.Fatalf("DataConverter(nil) wrote %s", p.Data)
	}
}

// Keys print, format and log as their IDs only.
func TestKeysNeverShowTheirValues(t *testing.T) {
	line := keyLine(t, "k1")
	secret := strings.TrimPrefix(line, "k1=")
	keys := mustKeys(t, line)
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("loaded", "keys", keys)
	for _, s := range []string{fmt.Sprint(keys), fmt.Sprintf("%v %+v %#v %s", keys, keys, keys, keys), logged.String()} {
		if strings.Contains(s, secret) || strings.Contains(s, secret[:12]) {
			t.Fatalf("key value printed: %s", s)
		}
		if !strings.Contains(s, "k1") {
			t.Fatalf("key ID not printed: %s", s)
		}
	}
}

// BenchmarkEncodeDecode is one payload of the benchmark's list size through
// the codec and back: what encryption adds to each payload a write carries.
func BenchmarkEncodeDecode(b *testing.B) {
	line, _ := NewKeyLine("k1")
	keys, _ := ParseKeys(line, "bench")
	c := New(keys)
	p := []*commonpb.Payload{jsonPayload(`{"todos":[` + strings.Repeat(`{"content":"Step 1: refactor the session log reader and rerun the tests","status":"pending"},`, 4) +
		`{"content":"Step 5: refactor the session log reader and rerun the tests","status":"pending"}]}`)}
	b.ReportAllocs()
	for b.Loop() {
		enc, err := c.Encode(p)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Decode(enc); err != nil {
			b.Fatal(err)
		}
	}
}
