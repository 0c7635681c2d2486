package todo

import (
	"bytes"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"
	"go.temporal.io/sdk/temporal"

	"github.com/durabletodos/agenttodos/contract"
)

// Edit is a todo_edit: a todo_write that applies only while the plan is
// still at ExpectedSeq, with a note saying why.
type Edit struct {
	Todos       []Item
	ExpectedSeq int64
	Note        string
	// Arguments is the edit without expectedSeq and note: the todo_write
	// arguments the TodoWrite activity validates like any other.
	Arguments []byte
}

// ErrTypeEditConflict is the error type of a todo_edit whose expectedSeq is
// not the plan's seq, and of a model todo_write built on a plan that changed
// since (ErrTypeStaleWrite).
const (
	ErrTypeEditConflict = "EditConflict"
	ErrTypeStaleWrite   = "StaleTodoWrite"
)

const (
	msgExpectedSeq = "invalid edit: `expectedSeq` must be a non-negative integer"
	msgNote        = "invalid edit: `note` must be a string of at most 1024 bytes"
)

// ParseEdit validates a todo_edit: the todos and any other key by the rules
// of todo_write (Parse: its messages, in its order), then expectedSeq (a
// required non-negative integer), then note (optional, at most
// contract.MaxNoteBytes). Whether expectedSeq is the current seq is the
// session's to check.
func ParseEdit(raw []byte, limits Limits) (Edit, error) {
	rest, seq, note, ok := splitEdit(raw)
	if !ok {
		// Not an object, or not valid JSON: rule 1 says so.
		_, err := Parse(raw, limits)
		if err == nil {
			err = invalid(msgNotArray)
		}
		return Edit{}, err
	}
	items, err := Parse(rest, limits)
	if err != nil {
		return Edit{}, err
	}
	e := Edit{Todos: items, Arguments: rest}
	if e.ExpectedSeq, err = strconv.ParseInt(string(seq), 10, 64); seq == nil || err != nil || e.ExpectedSeq < 0 {
		return Edit{}, invalid(msgExpectedSeq)
	}
	if note != nil {
		var v jsontext.Value = note
		if v.Kind() != '"' {
			return Edit{}, invalid(msgNote)
		}
		s, err := jsontext.AppendUnquote(nil, note)
		if err != nil || len(s) > contract.MaxNoteBytes {
			return Edit{}, invalid(msgNote)
		}
		e.Note = string(s)
	}
	return e, nil
}

// splitEdit takes expectedSeq and note out of a JSON object and returns the
// other members as an object of their own, values verbatim. expectedSeq must
// be a plain JSON integer: 3.0 or 3e0 name no seq.
func splitEdit(raw []byte) (rest, seq, note []byte, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, nil, nil, false
	}
	out := []byte{'{'}
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, nil, nil, false
		}
		// A token is only valid until the next read.
		name := tok.String()
		val, err := dec.ReadValue()
		if err != nil {
			return nil, nil, nil, false
		}
		switch name {
		case "expectedSeq":
			seq = nil
			if val.Kind() == '0' && bytes.IndexAny(val, ".eE") < 0 {
				seq = bytes.Clone(val)
			} else {
				seq = []byte("x")
			}
		case "note":
			note = bytes.Clone(val)
		default:
			if len(out) > 1 {
				out = append(out, ',')
			}
			if out, err = jsontext.AppendQuote(out, name); err != nil {
				return nil, nil, nil, false
			}
			out = append(out, ':')
			out = append(out, val...)
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, nil, nil, false
	}
	// Only the end of the input may follow the object: another value, or
	// bytes that are not JSON at all (a read error of its own, which must
	// not pass for the end; the session decodes an accepted edit with
	// encoding/json, which rejects both).
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, nil, nil, false
	}
	return append(out, '}'), seq, note, true
}

// EditConflictError rejects a todo_edit whose expectedSeq is not the seq of
// the plan it would replace.
func EditConflictError(expected, current int64) error {
	return temporal.NewNonRetryableApplicationError(EditConflictMessage(expected, current), ErrTypeEditConflict, nil)
}

// EditConflictMessage is the contract's conflict message, naming both seqs.
func EditConflictMessage(expected, current int64) string {
	return "todo_edit conflict: expectedSeq is " + strconv.FormatInt(expected, 10) +
		" but the plan is at seq " + strconv.FormatInt(current, 10)
}
