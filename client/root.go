package main

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/identity"
)

// rootCommand builds the command tree afresh for each command line, so
// flags never carry over from one run to the next (tests run several).
func (a *app) rootCommand() *cobra.Command {
	// `client --help` lists the commands in the order a person meets them.
	cobra.EnableCommandSorting = false
	output := &choice{formatText, []string{formatText, formatJSON, formatJSONL}}
	color := &choice{"auto", []string{"auto", "always", "never"}}
	as := defaultWriter()
	root := &cobra.Command{
		Use:   "client",
		Short: "Drive durable agent sessions on Temporal",
		Long: `Drive durable agent sessions on Temporal (a session is a workflow ID).

Connection settings are the stock temporal CLI's: these flags, else TEMPORAL_*
variables and the config file profile, else ` + contract.DefaultFrontendAddress + ` (the worker's server).`,
		// Errors are printed once, by report, with the exit code they mean.
		SilenceErrors: true,
		SilenceUsage:  true,
		Args:          cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				hint := ""
				if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
					hint = fmt.Sprintf("; did you mean %q?", s[0])
				}
				return usageErrorf("unknown command %q%s", args[0], hint)
			}
			cmd.SetOut(a.stderr)
			cmd.Help()
			return &exitError{code: 2}
		},
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			a.out = printer{w: a.stdout, format: output.value}
			a.term = a.term.withColor(color.value, output.value == formatText)
			// Every update this command sends names who sends it.
			cmd.SetContext(identity.With(cmd.Context(), as))
		},
	}
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	// Cobra's usage, with two changes: the root runs only to say a command
	// is missing, so it shows no usage line of its own; and flag help wraps
	// to the terminal, as the stock CLI's does.
	root.SetUsageTemplate(strings.NewReplacer("{{if .Runnable}}", "{{if and .Runnable .HasParent}}",
		".FlagUsages ", fmt.Sprintf(".FlagUsagesWrapped %d ", cmp.Or(a.term.width, 80)-1)).Replace(root.UsageTemplate()))
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		if strings.HasSuffix(cmd.Use, "...") && strings.HasPrefix(err.Error(), "unknown") {
			return usageErrorf(`%s; words of a message that start with "-" go after "--"`, err)
		}
		return &usageError{err.Error()}
	})

	pf := root.PersistentFlags()
	a.conn.register(pf)
	pf.StringVar(&as, "as", as, "say you are `NAME` in every write (the "+contract.HeaderWriter+" header), recorded in the plan's history and told to the agent (env AGENT_WRITER; default your login name; \"\" sends none)")
	pf.VarP(output, "output", "o", "result format: text for people, json (one JSON document) or jsonl (one JSON value per line: each item of a list, each change of a watch)")
	pf.Var(color, "color", "when to colour text: auto (on a terminal, unless NO_COLOR is set), always or never")
	root.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(output.allowed, cobra.ShellCompDirectiveNoFileComp))
	root.RegisterFlagCompletionFunc("color", cobra.FixedCompletions(color.allowed, cobra.ShellCompDirectiveNoFileComp))

	root.AddCommand(a.startCommand(), a.runCommand(), a.writeCommand(), a.signalCommand(),
		a.todosCommand(), a.editCommand(), a.itemCommand(), a.historyCommand(), a.diffCommand(), a.logCommand(), a.promptCommand(), a.sayCommand(),
		a.subscribeCommand(), a.subscribersCommand(), a.unsubscribeCommand(), a.webhookCommand(),
		a.cancelCommand(), a.schemaCommand(), a.mcpCommand())
	return root
}

// choice is a flag that takes one of a few words, as the stock CLI's
// StringEnum; help shows them as its type, `--color auto|always|never`.
type choice struct {
	value   string
	allowed []string
}

func (c *choice) String() string { return c.value }

func (c *choice) Type() string { return strings.Join(c.allowed, "|") }

func (c *choice) Set(v string) error {
	if !slices.Contains(c.allowed, v) {
		return fmt.Errorf("%q is not one of %s", v, strings.Join(c.allowed, ", "))
	}
	c.value = v
	return nil
}
