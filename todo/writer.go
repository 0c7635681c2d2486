package todo

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/durabletodos/agenttodos/contract"
)

// Unidentified is how a write from outside whose writer did not say who they
// are reads in the history and to the model.
const Unidentified = "an unidentified writer"

// Writer is who wrote a snapshot, as people and the model read it: "the
// model", the self-declared identity, or Unidentified.
func (s Source) Writer() string {
	switch {
	case s.Kind == SourceModel:
		return "the model"
	case s.By != "":
		return s.By
	}
	return Unidentified
}

// CleanWriter makes a self-declared identity safe to record and to show the
// model: one line of printable text, at most contract.MaxWriterBytes.
func CleanWriter(name string) string {
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(name, ""))
	name = strings.TrimSpace(name)
	if len(name) > contract.MaxWriterBytes {
		name = strings.ToValidUTF8(name[:contract.MaxWriterBytes], "")
	}
	return name
}

// maxWritersNamed bounds how many writers one message names.
const maxWritersNamed = 5

// DescribeWriters names who made a series of outside changes, oldest first,
// each once, with their notes: `alice ("Added the deploy step"), an
// unidentified writer`.
func DescribeWriters(changes []Source) string {
	var parts []string
	seen := map[Source]bool{}
	for _, c := range changes {
		key := Source{By: c.By, Note: c.Note, Kind: c.Kind}
		if c.Kind != SourceModel {
			key.Kind = ""
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		// A name is whatever the writer declared: it reaches the model, so
		// its tags are escaped (a note's are, by quote).
		p := EscapeTags(c.Writer())
		if c.Note != "" {
			p += " (" + quote(c.Note) + ")"
		}
		parts = append(parts, p)
	}
	if len(parts) > maxWritersNamed {
		more := len(parts) - maxWritersNamed
		parts = append(parts[:maxWritersNamed], "and "+strconv.Itoa(more)+" more")
	}
	if len(parts) == 0 {
		return Unidentified
	}
	return strings.Join(parts, ", ")
}
