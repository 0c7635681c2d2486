// Command client drives agent sessions from a terminal: start one, write or
// watch its plan, read its history and log, talk to its agent.
//
//	client [--address HOST:PORT] [--namespace NS] COMMAND [flags] [args]
//
// Run `client help` for the commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/durabletodos/agenttodos/contract"
)

// command is one subcommand. Its run function parses its own flags, so every
// command can show its own usage with -h.
type command struct {
	name    string
	args    string // the synopsis after the name
	summary string
	run     func(a *app, ctx context.Context, args []string) error
}

// commands lists the subcommands in the order `client help` shows them:
// roughly the order a person meets them.
var commands = []command{
	{"start", "[--id ID] [--model M] [--prompt TEXT] [--script FILE] [--task-queue Q]", "start a session and print its ID", (*app).start},
	{"run", "[--id ID] [--model M] [--script FILE] [--task-queue Q] [--watch=false] [--interval 500ms] PROMPT", "start a session on a prompt, watch its plan, print the answer", (*app).runPrompt},
	{"write", "SESSION [--file F | -] [--todo STATUS:CONTENT ...] [--clear] [--update-id ID] [--json]", "replace the plan (update todo_write) and print the result", (*app).write},
	{"signal", "SESSION [--file F | -] [--todo STATUS:CONTENT ...] [--clear]", "replace the plan without waiting (signal todo_write)", (*app).signalWrite},
	{"todos", "SESSION [--json] [--watch] [--interval 500ms]", "show the current plan", (*app).todos},
	{"history", "SESSION [--after N] [--limit M] [--json] [-v]", "list every accepted plan, oldest first", (*app).history},
	{"log", "SESSION [--after N] [--limit M] [--json] [-v] [--follow] [--interval 500ms]", "list the session's events, oldest first", (*app).log},
	{"prompt", "SESSION TEXT... (\"-\": read stdin)", "send a message and print the agent's answer (update prompt)", (*app).prompt},
	{"say", "SESSION TEXT... (\"-\": read stdin)", "queue a message for the agent without waiting (signal user_message)", (*app).say},
	{"cancel", "SESSION", "cancel the session", (*app).cancel},
	{"schema", "", "print the todo_write tool definition the model sees", (*app).schema},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := newApp().main(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// main runs one command line and returns the process exit code: 0 on
// success, 1 when the command failed, 2 when it was called wrongly.
func (a *app) main(ctx context.Context, args []string) int {
	fs := a.flagSet("client")
	fs.Usage = func() { a.usage(a.stderr) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	args = fs.Args()
	if len(args) == 0 {
		a.usage(a.stderr)
		return 2
	}
	name, rest := args[0], args[1:]
	if name == "help" {
		if len(rest) > 0 {
			if c := lookup(rest[0]); c != nil {
				// A command prints its own usage, flags included, on -h.
				a.helpOut, a.current = a.stdout, c
				return a.report(c.run(a, ctx, []string{"-h"}))
			}
		}
		a.usage(a.stdout)
		return 0
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(a.stderr, "client: unknown command %q\n\n", name)
		a.usage(a.stderr)
		return 2
	}
	a.current = c
	defer a.close()
	err := c.run(a, ctx, rest)
	var ee *exitError
	if err != nil && ctx.Err() != nil && !(errors.As(err, &ee) && ee.code == 130) {
		// Ctrl-C: whatever the call failed with, the person knows why.
		return 130
	}
	return a.report(err)
}

func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

func (a *app) usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: client [--address HOST:PORT] [--namespace NS] COMMAND [flags] [args]\n\n")
	fmt.Fprintf(w, "Drive durable agent sessions (a session is a workflow ID).\n\nCommands:\n")
	width := 0
	for _, c := range commands {
		width = max(width, len(c.name))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
	fmt.Fprintf(w, `
Connection: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_PROFILE, TLS and
API key settings, read as the Temporal CLI reads them. With no address:
%s, the worker's embedded server. --address and --namespace
override them, before or after the command.

Run 'client help COMMAND' or 'client COMMAND -h' for a command's flags.
`, contract.DefaultFrontendAddress)
}

// commandUsage prints a command's synopsis and its own flags; the global
// flags every command also accepts are left to `client help`.
func commandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: %s\n\n%s.\n", strings.TrimSpace("client "+c.name+" "+c.args), upperFirst(c.summary))
	var lines []string
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "address" || f.Name == "namespace" {
			return
		}
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		arg, text := flag.UnquoteUsage(f)
		head := dash + f.Name
		if arg != "" {
			head += " " + arg
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			text += " (default " + f.DefValue + ")"
		}
		lines = append(lines, fmt.Sprintf("  %-22s %s", head, text))
	})
	if len(lines) > 0 {
		fmt.Fprintf(w, "\nFlags:\n%s\n", strings.Join(lines, "\n"))
	}
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
