package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

// usageError is a command called wrongly: exit code 2 and a pointer to
// --help. Flag errors from pflag become one too (see rootCommand).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// positional checks a command's positional arguments against names, the
// ones it requires; with rest, the last takes every remaining word (a prompt
// need not be quoted, and words starting with "-" go after "--").
func positional(rest bool, names ...string) cobra.PositionalArgs {
	return func(_ *cobra.Command, args []string) error {
		if len(args) < len(names) {
			what := names[len(args)]
			if what == "SESSION" {
				what += " (a workflow ID, as `client start` prints it)"
			}
			return usageErrorf("missing %s", what)
		}
		if !rest && len(args) > len(names) {
			return usageErrorf("unexpected argument %q", args[len(names)])
		}
		return nil
	}
}
