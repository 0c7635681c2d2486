package codec

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
)

// None of these errors ever holds key material or a token: they name where a
// key came from, its ID and what is wrong with it, nothing more, so they are
// safe to print and to log.

// ErrNoKeys is a key source that holds no key.
var ErrNoKeys = errors.New("no encryption keys")

// KeyFileError is a key file or variable that cannot be used as it is.
type KeyFileError struct {
	// Source is the file's path or the environment variable's name.
	Source string
	// Line is the 1-based line at fault, or 0 for the source as a whole.
	Line int
	// Reason says what is wrong, in words; it never quotes the line.
	Reason string
	// Err is the underlying error, if any (a file that cannot be read,
	// ErrNoKeys).
	Err error
}

func (e *KeyFileError) Error() string {
	msg := "encryption keys in " + e.Source
	if e.Line > 0 {
		unit := "line"
		if strings.HasPrefix(e.Source, "$") {
			// A variable's entries may be separated by commas.
			unit = "entry"
		}
		msg += fmt.Sprintf(", %s %d", unit, e.Line)
	}
	switch {
	case e.Reason != "" && e.Err != nil:
		return msg + ": " + e.Reason + ": " + e.Err.Error()
	case e.Reason != "":
		return msg + ": " + e.Reason
	case e.Err != nil:
		return msg + ": " + e.Err.Error()
	}
	return msg + ": invalid"
}

func (e *KeyFileError) Unwrap() error { return e.Err }

// InsecureKeyFileError is a key file that others than its owner may read.
// Like an SSH private key, it is refused rather than used.
type InsecureKeyFileError struct {
	Path string
	Mode fs.FileMode
}

func (e *InsecureKeyFileError) Error() string {
	return fmt.Sprintf("encryption key file %s can be read by others (mode %04o): chmod 600 it", e.Path, e.Mode.Perm())
}

// UnknownKeyError is a payload encrypted with a key this process does not
// hold: the key was removed from the key file too early, or the process was
// given another project's keys.
type UnknownKeyError struct {
	// KeyID is the ID in the payload's metadata.
	KeyID string
	// Known are the IDs this process holds, oldest first.
	Known []string
}

func (e *UnknownKeyError) Error() string {
	return fmt.Sprintf("payload encrypted with key %q, which is not among this process's encryption keys %q: add it back to the key file", e.KeyID, e.Known)
}

// DecryptError is an encrypted payload that does not decrypt with the key its
// metadata names: it was altered, truncated, or the key under that ID is not
// the one it was written with.
type DecryptError struct {
	KeyID string
}

func (e *DecryptError) Error() string {
	return fmt.Sprintf("payload encrypted with key %q does not decrypt: it was altered, or this key %q is not the one it was written with", e.KeyID, e.KeyID)
}
