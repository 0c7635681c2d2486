package main

import (
	"strconv"
	"strings"

	"github.com/durabletodos/agenttodos/todo"
)

// changeLines reads a change like a changelog, one line per item touched:
//
//	✓ Run the tests — by alice, seq 14
//
// + added, − removed, ✎ renamed, ✓ completed, ▶ started, ○ back to pending,
// ↕ moved (positions counted from 1). suffix ends each line.
func changeLines(c todo.Change, suffix string, p palette) []string {
	var out []string
	add := func(style, mark, text string) {
		out = append(out, p.paint(style, mark)+" "+oneLine(text)+suffix)
	}
	renamed := map[string]bool{}
	for _, r := range c.Renamed {
		add(styleCyan, "✎", r.From+" → "+r.To)
		renamed[r.To] = true
	}
	for _, a := range c.Added {
		text := a.Content
		if a.Status != todo.Pending {
			text += " (" + statusWord(a.Status) + ")"
		}
		add(styleGreen, "+", text)
	}
	for _, r := range c.Removed {
		add(styleRed, "−", r.Content)
	}
	for _, s := range c.Status {
		switch s.To {
		case todo.Completed:
			add(styleGreen, "✓", s.Content)
		case todo.InProgress:
			add(styleYellow, "▶", s.Content)
		default:
			add(styleDim, "○", s.Content+" (back to pending)")
		}
	}
	for _, m := range c.Moved {
		add(styleMagenta, "↕", m.Content+" ("+strconv.Itoa(m.From+1)+" → "+strconv.Itoa(m.To+1)+")")
	}
	return out
}

func statusWord(s todo.Status) string {
	return strings.ReplaceAll(string(s), "_", " ")
}

// writerText is who wrote a snapshot, with their note: `alice ("why")`.
func writerText(s todo.Source) string {
	w := s.Writer()
	if s.Note != "" {
		w += " (" + strconv.Quote(s.Note) + ")"
	}
	return w
}
