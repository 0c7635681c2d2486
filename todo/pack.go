package todo

import (
	"encoding/binary"
	"errors"
)

// Packed is a list in a compact binary form: per item a status byte, the
// content's length as a uvarint, and the content's bytes. Continue-as-new
// carries lists packed, because JSON can cost six bytes per content byte
// (control characters) while the carry must stay far below Temporal's payload
// limit whatever the content; packed, a list costs at most its content plus a
// few bytes per item, and 4/3 of that once base64 encoded in the payload.
type Packed []byte

// Pack encodes items; Unpack(Pack(items)) returns them unchanged.
func Pack(items []Item) Packed {
	size := 0
	for i := range items {
		size += 1 + binary.MaxVarintLen32 + len(items[i].Content)
	}
	b := make([]byte, 0, size)
	for i := range items {
		b = append(b, packStatus(items[i].Status))
		b = binary.AppendUvarint(b, uint64(len(items[i].Content)))
		b = append(b, items[i].Content...)
	}
	return b
}

var errCorruptPacked = errors.New("todo: corrupt packed list")

// Unpack decodes a packed list; an empty one is an empty, non-nil list.
func Unpack(p Packed) ([]Item, error) {
	items := []Item{}
	for len(p) > 0 {
		st, ok := unpackStatus(p[0])
		if !ok {
			return nil, errCorruptPacked
		}
		n, w := binary.Uvarint(p[1:])
		if w <= 0 || uint64(len(p)-1-w) < n {
			return nil, errCorruptPacked
		}
		p = p[1+w:]
		items = append(items, Item{Content: string(p[:n]), Status: st})
		p = p[n:]
	}
	return items, nil
}

func packStatus(s Status) byte {
	switch s {
	case InProgress:
		return 'i'
	case Completed:
		return 'c'
	default:
		return 'p'
	}
}

func unpackStatus(b byte) (Status, bool) {
	switch b {
	case 'p':
		return Pending, true
	case 'i':
		return InProgress, true
	case 'c':
		return Completed, true
	}
	return "", false
}
