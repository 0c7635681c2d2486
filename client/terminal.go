package main

import (
	"os"
	"strconv"

	"github.com/mattn/go-isatty"
	"golang.org/x/term"
)

// terminal is what rendering needs to know about stdout.
type terminal struct {
	// tty: stdout is a terminal, so a live view may redraw in place.
	tty bool
	// color: ANSI colours are welcome (see withColor).
	color bool
	// width is the number of columns, 0 when unknown or not a terminal;
	// lines are only cut to fit when it is known.
	width int
	// height is the number of rows, 0 when unknown.
	height int
}

func detectTerminal(f *os.File) terminal {
	fd := f.Fd()
	t := terminal{tty: isatty.IsTerminal(fd) || isatty.IsCygwinTerminal(fd)}
	if !t.tty {
		return t
	}
	if w, h, err := term.GetSize(int(fd)); err == nil && w > 0 {
		t.width, t.height = w, h
	} else if w, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && w > 0 {
		t.width = w
	} else {
		t.width = 80
	}
	return t
}

// withColor settles colour from --color as the stock CLI does: auto colours
// a terminal unless NO_COLOR is set and not empty (https://no-color.org) or
// TERM is dumb. Output for programs (json, jsonl) is never coloured.
func (t terminal) withColor(mode string, text bool) terminal {
	switch {
	case !text || mode == "never":
		t.color = false
	case mode == "always":
		t.color = true
	default:
		t.color = t.tty && os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	}
	return t
}

// isPipe says f is fed by a pipe or a file rather than a keyboard.
func isPipe(f *os.File) bool {
	info, err := f.Stat()
	if err != nil {
		return false
	}
	return info.Mode()&os.ModeCharDevice == 0
}
