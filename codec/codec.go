// Package codec encrypts every Temporal payload this project writes, with
// AES-256-GCM under keys the worker and its clients hold, and serves the
// codec over HTTP so the Temporal UI and the stock CLI can show the plans in
// clear to whoever may reach it. Temporal's server, its database and anyone
// who reads history through its API see only ciphertext.
package codec

import (
	"crypto/rand"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"
)

// An encrypted payload's metadata: its encoding, and the ID of the key it
// was encrypted with (the convention of Temporal's encryption samples).
const (
	Encoding      = "binary/encrypted"
	MetadataKeyID = "encryption-key-id"
)

// Codec is the converter.PayloadCodec that encrypts. Each payload, metadata
// and all, is encrypted whole with the newest key under a fresh random
// nonce; the key's ID is the additional data GCM authenticates, so a payload
// cannot be passed off as written under another key. Decode leaves payloads
// that are not encrypted as they are: sessions written before encryption
// was turned on stay readable.
type Codec struct {
	keys *Keys
}

var _ converter.PayloadCodec = (*Codec)(nil)

// New is a codec with keys.
func New(keys *Keys) *Codec { return &Codec{keys: keys} }

// Encode encrypts every payload with the newest key.
func (c *Codec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	id, aead := c.keys.newest()
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		plain, err := proto.Marshal(p)
		if err != nil {
			return payloads, err
		}
		nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
		_, _ = rand.Read(nonce) // never fails: crypto/rand panics instead
		out[i] = &commonpb.Payload{
			Metadata: map[string][]byte{
				converter.MetadataEncoding: []byte(Encoding),
				MetadataKeyID:              []byte(id),
			},
			Data: aead.Seal(nonce, nonce, plain, []byte(id)),
		}
	}
	return out, nil
}

// Decode decrypts the payloads this codec encrypted, with the key each
// names, and passes others through.
func (c *Codec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if string(p.GetMetadata()[converter.MetadataEncoding]) != Encoding {
			out[i] = p
			continue
		}
		id := string(p.GetMetadata()[MetadataKeyID])
		aead, ok := c.keys.aead[id]
		if !ok {
			return payloads, &UnknownKeyError{KeyID: id, Known: c.keys.IDs()}
		}
		data := p.GetData()
		if len(data) < aead.NonceSize()+aead.Overhead() {
			return payloads, &DecryptError{KeyID: id}
		}
		plain, err := aead.Open(nil, data[:aead.NonceSize()], data[aead.NonceSize():], []byte(id))
		if err != nil {
			return payloads, &DecryptError{KeyID: id}
		}
		out[i] = &commonpb.Payload{}
		if err := proto.Unmarshal(plain, out[i]); err != nil {
			return payloads, &DecryptError{KeyID: id}
		}
	}
	return out, nil
}
