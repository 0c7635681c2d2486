package main

import (
	"os"
	"strconv"

	"golang.org/x/term"
)

// terminal is what rendering needs to know about stdout.
type terminal struct {
	// tty: stdout is a terminal, so a live view may redraw in place.
	tty bool
	// color: ANSI colours are welcome (a terminal, NO_COLOR unset, TERM not
	// dumb).
	color bool
	// width is the number of columns, 0 when unknown or not a terminal;
	// lines are only cut to fit when it is known.
	width int
	// height is the number of rows, 0 when unknown.
	height int
}

func detectTerminal(f *os.File) terminal {
	t := terminal{tty: term.IsTerminal(int(f.Fd()))}
	if !t.tty {
		return t
	}
	// https://no-color.org: present and not empty disables colour.
	t.color = os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	if w, h, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
		t.width, t.height = w, h
	} else if w, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && w > 0 {
		t.width = w
	} else {
		t.width = 80
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
