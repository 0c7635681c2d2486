package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/durabletodos/agenttodos/codec"
)

// usageError is a command called wrongly: exit code 2 and a pointer to
// --help. Flag errors from pflag become one too (see rootCommand).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// positional checks a command's positional arguments against names, the
// ones it requires; with rest, the last takes every remaining word.
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

// exitError carries an exact message to print on stderr and an exit code;
// the message is printed as is, with no "client:" prefix, because some are
// part of the contract (`Error: <message>`).
type exitError struct {
	code  int
	msg   string
	cause error
}

func (e *exitError) Error() string { return e.msg }

func (e *exitError) Unwrap() error { return e.cause }

// rejected turns a failed update into the line the contract promises:
// `Error: <message>`, where message is the ApplicationError's own text. The
// error the SDK returns wraps it in update and activity context that would
// change the message, so the ApplicationError is dug out of the chain.
func rejected(err error) (error, bool) {
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) {
		return nil, false
	}
	return &exitError{code: 1, msg: "Error: " + appErr.Message()}, true
}

// sessionError explains a failed call on one session, naming the session.
func (a *app) sessionError(id string, err error) error {
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		if strings.Contains(notFound.Error(), "already completed") {
			return &exitError{code: 1, msg: fmt.Sprintf("client: session %q has already ended", id), cause: err}
		}
		return &exitError{code: 1, msg: fmt.Sprintf("client: no session %q in namespace %q", id, a.namespace), cause: err}
	}
	if isTimeout(err) {
		return &exitError{code: 1, msg: fmt.Sprintf("client: session %q did not answer in time: is the worker running? (go run ./worker)", id), cause: err}
	}
	return err
}

// explain says what went wrong in one line, with a hint where one helps.
func (a *app) explain(err error) string {
	var unreachable *unreachableError
	var nsNotFound *serviceerror.NamespaceNotFound
	var queryFailed *serviceerror.QueryFailed
	var unavailable *serviceerror.Unavailable
	switch {
	case errors.As(err, &unreachable):
		return unreachable.Error()
	case errors.As(err, &nsNotFound):
		return fmt.Sprintf("namespace %q not found at %s", a.namespace, a.address)
	case errors.As(err, &queryFailed):
		return "query failed: " + queryFailed.Error()
	case errors.As(err, &unavailable) || status.Code(err) == codes.Unavailable:
		return fmt.Sprintf("lost Temporal at %s: is the worker running? (go run ./worker)", a.address)
	case isTimeout(err):
		return "no answer in time: is the worker running? (go run ./worker)"
	case errors.Is(err, converter.ErrEncodingIsNotSupported) && strings.Contains(err.Error(), codec.Encoding):
		return "the session's payloads are encrypted: give the client the worker's keys (--encryption-keys FILE, or $" +
			codec.EnvKeysFile + " or $" + codec.EnvKeys + ")"
	}
	return err.Error()
}

func isTimeout(err error) bool {
	var updateTimeout *client.WorkflowUpdateServiceTimeoutOrCanceledError
	var deadline *serviceerror.DeadlineExceeded
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &updateTimeout) ||
		errors.As(err, &deadline) || status.Code(err) == codes.DeadlineExceeded
}

// interrupted says the person pressed Ctrl-C (or the process was told to
// stop): not a failure worth a message.
func interrupted(err error) bool {
	var canceled *serviceerror.Canceled
	return errors.Is(err, context.Canceled) || errors.As(err, &canceled) || status.Code(err) == codes.Canceled
}
