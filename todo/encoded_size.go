package todo

import "unicode/utf8"

// itemFrame is what one item costs in JSON beyond its content and status:
// {"content":"","status":""} and a comma.
const itemFrame = len(`{"content":"","status":""},`)

// EncodedSize is an upper bound on the bytes a list takes as JSON without
// HTML escaping, as the worker's payload converter writes it. Limits are in
// content bytes (rules 7 and 10), but Temporal's limits are in encoded bytes,
// and a control character costs six of those (\u0001).
func EncodedSize(items []Item) int {
	n := 2
	for i := range items {
		n += itemFrame + EncodedStringSize(items[i].Content) + len(items[i].Status)
	}
	return n
}

// EncodedStringSize is an upper bound on the bytes s takes inside a JSON
// string, quotes excluded.
func EncodedStringSize(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t':
			n += 2
			i++
		case c < 0x20:
			n += 6
			i++
		case c < utf8.RuneSelf:
			n++
			i++
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				n += 6 // written as \ufffd, \u2028 or \u2029
			} else {
				n += size
			}
			i += size
		}
	}
	return n
}
