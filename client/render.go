package main

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/mattn/go-runewidth"

	"github.com/durabletodos/agenttodos/todo"
)

// barCells is the width of the progress bar: wide enough to move visibly
// with each item of a typical plan, narrow enough for any terminal.
const barCells = 20

// ANSI styles. Only SGR codes: they need no terminal database and a
// terminal that ignores them shows plain text.
const (
	styleBold       = "1"
	styleDim        = "2"
	styleGreen      = "32"
	styleYellow     = "33"
	styleBoldYellow = "1;33"
	styleRed        = "31"
	styleCyan       = "36"
	styleMagenta    = "35"
)

// palette colours text when colour is on and returns it untouched when not,
// so the rendering code is the same for a terminal, a pipe and a test.
type palette bool

func (p palette) paint(style, s string) string {
	if !p || style == "" || s == "" {
		return s
	}
	return "\x1b[" + style + "m" + s + "\x1b[0m"
}

// renderPlan renders a plan as the checklist people read: a header with the
// counts, a progress bar, then one line per item in list order.
func renderPlan(st todo.State, t terminal) string {
	p := palette(t.color)
	var b strings.Builder
	fmt.Fprintln(&b, planHeader(st.Counts, st.Seq, p, t.width))
	fmt.Fprintln(&b, progressBar(st.Counts, p))
	if len(st.Todos) == 0 {
		fmt.Fprintln(&b, p.paint(styleDim, "  (no todos yet)"))
	}
	for _, it := range st.Todos {
		fmt.Fprintln(&b, itemLine("  ", it, p, t.width))
	}
	return b.String()
}

// countsText is `2/5 completed · 1 in progress · 2 pending`.
func countsText(c todo.Counts, p palette) string {
	return p.paint(styleGreen, strconv.Itoa(c.Completed)+"/"+strconv.Itoa(c.Total())+" completed") + " · " +
		p.paint(styleYellow, strconv.Itoa(c.InProgress)+" in progress") + " · " +
		strconv.Itoa(c.Pending) + " pending"
}

// planHeader is the one-line summary, `Plan · 2/5 completed · 1 in progress
// · 2 pending · seq 7`; `completed/total` is what a watcher greps for. On a
// narrow terminal the last parts go first, so the line stays one row.
func planHeader(c todo.Counts, seq int64, p palette, width int) string {
	parts := [][2]string{
		{styleBold, "Plan"},
		{styleGreen, strconv.Itoa(c.Completed) + "/" + strconv.Itoa(c.Total()) + " completed"},
		{styleYellow, strconv.Itoa(c.InProgress) + " in progress"},
		{"", strconv.Itoa(c.Pending) + " pending"},
		{styleDim, "seq " + strconv.FormatInt(seq, 10)},
	}
	join := func(n int, p palette) string {
		out := make([]string, n)
		for i, part := range parts[:n] {
			out[i] = p.paint(part[0], part[1])
		}
		return strings.Join(out, " · ")
	}
	n := len(parts)
	for width > 0 && n > 2 && runewidth.StringWidth(join(n, false)) > width {
		n--
	}
	return join(n, p)
}

// progressBar shows completed work as full cells and work in progress as
// shaded ones, then the completed percentage: `[██████▒▒░░░░] 40%`.
func progressBar(c todo.Counts, p palette) string {
	total := c.Total()
	done, doing, pct := 0, 0, 0
	if total > 0 {
		done = c.Completed * barCells / total
		doing = (c.Completed+c.InProgress)*barCells/total - done
		pct = c.Completed * 100 / total
	}
	return "[" + p.paint(styleGreen, strings.Repeat("█", done)) +
		p.paint(styleYellow, strings.Repeat("▒", doing)) +
		p.paint(styleDim, strings.Repeat("░", barCells-done-doing)) + "] " +
		strconv.Itoa(pct) + "%"
}

// itemLine is one item: its mark, then its content, styled by status and
// cut to the terminal width (width 0: never cut).
func itemLine(indent string, it todo.Item, p palette, width int) string {
	prefix := indent + it.Status.Mark() + " "
	content := oneLine(it.Content)
	if width > 0 {
		content = truncate(content, width-runewidth.StringWidth(prefix)-1)
	}
	switch it.Status {
	case todo.Completed:
		content = p.paint(styleDim, content)
	case todo.InProgress:
		content = p.paint(styleBoldYellow, content)
	}
	return prefix + content
}

// oneLine makes model-written text safe to print on one line: newlines and
// tabs become spaces, and other control characters (an escape sequence
// could move the cursor or recolour the terminal) become U+FFFD.
func oneLine(s string) string {
	// strings.Map returns s itself when nothing changes: no copy for the
	// usual clean text.
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			return ' '
		case unicode.IsControl(r):
			return unicode.ReplacementChar
		}
		return r
	}, s)
}

// truncate cuts s to at most width terminal columns, ending it with "…"
// when something was cut. Widths are go-runewidth's: wide East Asian
// characters and emoji (the status marks among them) take two columns,
// combining marks none, so a cut line stays one row, which a redraw needs.
func truncate(s string, width int) string {
	if width <= 0 {
		return ""
	}
	return runewidth.Truncate(s, width, "…")
}

// cleanText keeps a multi-line text (the agent's answer) readable as is,
// but replaces control characters other than newline and tab, as oneLine
// does.
func cleanText(s string) string {
	return strings.Map(func(r rune) rune {
		if r != '\n' && r != '\t' && unicode.IsControl(r) {
			return unicode.ReplacementChar
		}
		return r
	}, s)
}
