package todo

import (
	"bytes"
	"io"
	"sync"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/durabletodos/agenttodos/contract"
)

// Parse decodes the raw arguments of a todo_write call strictly and applies
// the validation rules 1 to 10 of the contract in order, returning the first
// failure as a non-retryable ApplicationError of type InvalidTodos.
//
// It reads the JSON as tokens instead of unmarshalling into a struct: the
// default converter drops unknown keys, which the contract must see. A list
// that passes costs three allocations whatever its length: the decoder's
// source, one string holding every content back to back, and the items.
// Content is kept exactly as sent, with no trimming.
func Parse(raw []byte, limits Limits) ([]Item, error) {
	limits = limits.WithDefaults()
	s := scanners.Get().(*scanner)
	defer s.release()
	if err := s.scan(raw); err != nil {
		return nil, err
	}
	return s.check(limits)
}

var scanners = sync.Pool{New: func() any { return new(scanner) }}

// scanner holds the buffers one Parse reuses; pooled so a valid list does not
// pay for them again.
type scanner struct {
	dec      jsontext.Decoder
	idle     bytes.Buffer // what dec reads between calls
	items    []itemScan
	contents []byte // unquoted contents, back to back
	keys     []byte // unknown keys seen, only read on the error path
	name     []byte // scratch for the current object name
	seen     map[string]struct{}

	todosSeen, todosIsArray bool
	topUnknown              span
}

// span is a range of a scanner buffer; set tells an empty key ("") apart
// from no key at all.
type span struct {
	start, end int
	set        bool
}

type contentKind uint8

const (
	contentMissing contentKind = iota
	contentNotString
	contentString
)

type itemScan struct {
	notObject bool
	unknown   span // smallest unknown key in s.keys
	content   contentKind
	text      span // content in s.contents
	status    Status
}

// maxPooledBytes keeps one oversized list from pinning its buffers forever.
const maxPooledBytes = 1 << 20

func (s *scanner) release() {
	s.dec.Reset(&s.idle) // drop the reference to the caller's bytes
	clear(s.seen)
	if cap(s.contents) > maxPooledBytes || cap(s.items) > 4*contract.DefaultMaxItems {
		return
	}
	s.items = s.items[:0]
	s.contents = s.contents[:0]
	s.keys = s.keys[:0]
	s.todosSeen, s.todosIsArray, s.topUnknown = false, false, span{}
	scanners.Put(s)
}

// scan walks the JSON once and records what each rule needs. The decoder
// checks syntax as it goes: a syntax error, invalid UTF-8, a repeated key or
// anything after the object means the arguments are not a JSON object at all
// (rule 1), wherever it is, because the rules are only checked once the whole
// input has been read.
func (s *scanner) scan(raw []byte) error {
	s.dec.Reset(bytes.NewBuffer(raw))
	if s.dec.PeekKind() != '{' {
		return errNotArray()
	}
	if _, err := s.dec.ReadToken(); err != nil {
		return errNotArray()
	}
	for s.dec.PeekKind() != '}' {
		if err := s.readName(); err != nil {
			return err
		}
		if string(s.name) != "todos" {
			s.topUnknown = s.keepSmaller(s.topUnknown)
			if err := s.dec.SkipValue(); err != nil {
				return errNotArray()
			}
			continue
		}
		s.todosSeen = true
		if s.dec.PeekKind() != '[' {
			if err := s.dec.SkipValue(); err != nil {
				return errNotArray()
			}
			continue
		}
		s.todosIsArray = true
		if err := s.scanItems(); err != nil {
			return err
		}
	}
	if _, err := s.dec.ReadToken(); err != nil { // '}'
		return errNotArray()
	}
	if _, err := s.dec.ReadToken(); err != io.EOF {
		return errNotArray()
	}
	return nil
}

func (s *scanner) scanItems() error {
	if _, err := s.dec.ReadToken(); err != nil { // '['
		return errNotArray()
	}
	for s.dec.PeekKind() != ']' {
		s.items = append(s.items, itemScan{})
		it := &s.items[len(s.items)-1]
		if s.dec.PeekKind() != '{' {
			it.notObject = true
			if err := s.dec.SkipValue(); err != nil {
				return errNotArray()
			}
			continue
		}
		if err := s.scanItem(it); err != nil {
			return err
		}
	}
	_, err := s.dec.ReadToken() // ']'
	if err != nil {
		return errNotArray()
	}
	return nil
}

func (s *scanner) scanItem(it *itemScan) error {
	if _, err := s.dec.ReadToken(); err != nil { // '{'
		return errNotArray()
	}
	for s.dec.PeekKind() != '}' {
		if err := s.readName(); err != nil {
			return err
		}
		switch string(s.name) {
		case "content":
			v, err := s.dec.ReadValue()
			if err != nil {
				return errNotArray()
			}
			if v.Kind() != '"' {
				it.content = contentNotString
				continue
			}
			start := len(s.contents)
			if s.contents, err = jsontext.AppendUnquote(s.contents, v); err != nil {
				return errNotArray()
			}
			it.content, it.text = contentString, span{start, len(s.contents), true}
		case "status":
			v, err := s.dec.ReadValue()
			if err != nil {
				return errNotArray()
			}
			it.status = statusOf(v)
		default:
			it.unknown = s.keepSmaller(it.unknown)
			if err := s.dec.SkipValue(); err != nil {
				return errNotArray()
			}
		}
	}
	_, err := s.dec.ReadToken() // '}'
	if err != nil {
		return errNotArray()
	}
	return nil
}

// statusOf maps a raw JSON value to a Status, or "" when it is none of the
// three. The quoted forms are compared directly: a status is plain ASCII.
func statusOf(v jsontext.Value) Status {
	switch string(v) {
	case `"pending"`:
		return Pending
	case `"in_progress"`:
		return InProgress
	case `"completed"`:
		return Completed
	}
	if v.Kind() != '"' || bytes.IndexByte(v, '\\') < 0 {
		return ""
	}
	// An escaped spelling ("pend\u0069ng") is still the same string.
	unquoted, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return ""
	}
	switch Status(unquoted) {
	case Pending, InProgress, Completed:
		return Status(unquoted)
	}
	return ""
}

func (s *scanner) readName() error {
	v, err := s.dec.ReadValue()
	if err != nil {
		return errNotArray()
	}
	if s.name, err = jsontext.AppendUnquote(s.name[:0], v); err != nil {
		return errNotArray()
	}
	return nil
}

// keepSmaller records the current name in place of cur when it sorts first:
// the contract reports the first unknown key in sorted order.
func (s *scanner) keepSmaller(cur span) span {
	if cur.set && bytes.Compare(s.name, s.keys[cur.start:cur.end]) >= 0 {
		return cur
	}
	start := len(s.keys)
	s.keys = append(s.keys, s.name...)
	return span{start, len(s.keys), true}
}

// check applies the rules in the contract's order over the whole list.
func (s *scanner) check(limits Limits) ([]Item, error) {
	if !s.todosSeen || !s.todosIsArray {
		return nil, errNotArray()
	}
	if s.topUnknown.set {
		return nil, errUnknownTopKey(string(s.keys[s.topUnknown.start:s.topUnknown.end]))
	}
	if len(s.items) > limits.MaxItems {
		return nil, errTooManyItems(limits.MaxItems, len(s.items))
	}
	for i := range s.items {
		if s.items[i].notObject {
			return nil, errItemNotObject(i)
		}
	}
	for _, it := range s.items {
		if it.unknown.set {
			return nil, errUnknownItemKey(string(s.keys[it.unknown.start:it.unknown.end]))
		}
	}
	for _, it := range s.items {
		if it.content != contentString || len(bytes.TrimSpace(s.contents[it.text.start:it.text.end])) == 0 {
			return nil, errContentEmpty()
		}
	}
	for _, it := range s.items {
		if it.text.end-it.text.start > limits.MaxContentBytes {
			return nil, errContentTooLong(limits.MaxContentBytes)
		}
	}
	for _, it := range s.items {
		if it.status == "" {
			return nil, errStatusInvalid()
		}
	}
	all := string(s.contents)
	items := make([]Item, len(s.items))
	for i, it := range s.items {
		items[i] = Item{Content: all[it.text.start:it.text.end], Status: it.status}
	}
	if dup, ok := s.firstDuplicate(items); ok {
		return nil, errDuplicate(dup)
	}
	if len(s.contents) > limits.MaxTotalBytes {
		return nil, errListTooLarge(limits.MaxTotalBytes)
	}
	return items, nil
}

// quadraticUpTo is the list length below which comparing every pair beats
// hashing.
const quadraticUpTo = 32

// firstDuplicate returns the first item, in list order, whose content repeats
// an earlier one.
func (s *scanner) firstDuplicate(items []Item) (string, bool) {
	if len(items) <= quadraticUpTo {
		for j := 1; j < len(items); j++ {
			for i := 0; i < j; i++ {
				if items[i].Content == items[j].Content {
					return items[j].Content, true
				}
			}
		}
		return "", false
	}
	if s.seen == nil {
		s.seen = make(map[string]struct{}, contract.DefaultMaxItems)
	}
	for _, it := range items {
		if _, ok := s.seen[it.Content]; ok {
			return it.Content, true
		}
		s.seen[it.Content] = struct{}{}
	}
	return "", false
}
