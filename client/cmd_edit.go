package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/durabletodos/agenttodos/todo"
)

func (a *app) editCommand() *cobra.Command {
	var note string
	cmd := &cobra.Command{
		Use:   "edit SESSION",
		Short: "Edit the plan in $EDITOR as a Markdown checklist (a conflict-checked todo_edit)",
		Long: `Open the plan in $VISUAL or $EDITOR (default vi) as a Markdown checklist:

  - [x] Read the code
  - [~] Write the fix
  - [ ] Run the tests

Reorder, add, remove, rename or re-mark lines, save and quit: the plan is
written back with todo_edit, which applies only if nobody changed the plan
while you edited. If somebody did (the agent, or another person), the client
shows what changed meanwhile and offers to re-open the editor on top of the
current plan, your version kept below it as comments.`,
		Example: `  client edit demo
  client edit demo -m "tests before docs"
  EDITOR=nano client edit demo --as alice`,
		Args: positional(false, "SESSION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.editInEditor(cmd.Context(), args[0], note)
		},
	}
	cmd.Flags().StringVarP(&note, "note", "m", "", "why you change the plan (`TEXT`, at most 1024 bytes); recorded with it and told to the agent")
	return cmd
}

func (a *app) editInEditor(ctx context.Context, id, note string) error {
	_, st, err := a.queryState(ctx, id)
	if err != nil {
		return err
	}
	text := renderChecklist(id, st)
	for {
		edited, err := a.runEditor(text)
		if err != nil {
			return err
		}
		items, err := parseChecklist(edited)
		if err != nil {
			fmt.Fprintf(a.stderr, "client: %v\n", err)
			if a.ask("Re-open the editor to fix it? [Y/n] ") {
				text = edited
				continue
			}
			return &exitError{code: 1, msg: "client: the plan is unchanged"}
		}
		if samePlan(items, st.Todos) {
			return a.out.result(fmt.Sprintf("No change: the plan stays at seq %d.\n", st.Seq), map[string]any{"session": id, "seq": st.Seq, "changed": false})
		}
		data, res, err := a.edit(ctx, id, items, st.Seq, note)
		var conflict *conflictError
		if errors.As(err, &conflict) {
			_, cur, qerr := a.queryState(ctx, id)
			if qerr != nil {
				return qerr
			}
			fmt.Fprintf(a.stderr, "The plan changed while you edited it (%s):\n", conflict.msg)
			a.printChangesBetween(ctx, id, st.Seq, cur.Seq)
			if !a.ask("Re-open the editor on top of the current plan? [Y/n] ") {
				return &exitError{code: 1, msg: "Error: " + conflict.msg}
			}
			text, st = renderOnTop(id, cur, items), cur
			continue
		}
		if err != nil {
			return err
		}
		return a.printEdit(st.Todos, data, res)
	}
}

// printChangesBetween tells on stderr what changed in the plan between two
// seqs and who changed it; best effort, the conflict is the news.
func (a *app) printChangesBetween(ctx context.Context, id string, from, to int64) {
	d, err := a.queryDiff(ctx, id, from, to)
	if err != nil {
		return
	}
	for _, l := range diffText(d, palette(false)) {
		fmt.Fprintln(a.stderr, "  "+l)
	}
}

// runEditor opens text in the person's editor and returns what they saved.
func (a *app) runEditor(text string) (string, error) {
	f, err := os.CreateTemp("", "agent-plan-*.md")
	if err != nil {
		return "", err
	}
	defer os.Remove(f.Name())
	if _, err := io.WriteString(f, text); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	editor := strings.TrimSpace(os.Getenv("VISUAL"))
	if editor == "" {
		editor = strings.TrimSpace(os.Getenv("EDITOR"))
	}
	if editor == "" {
		editor = "vi"
	}
	// Through the shell, as git runs it, so EDITOR may hold arguments
	// ("code --wait").
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		fields := strings.Fields(editor)
		cmd = exec.Command(fields[0], append(fields[1:], f.Name())...)
	} else {
		cmd = exec.Command("sh", "-c", editor+` "$1"`, "sh", f.Name())
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("editor %q failed: %w; the plan is unchanged", editor, err)
	}
	b, err := os.ReadFile(f.Name())
	return string(b), err
}

// ask asks a yes/no question on stderr and reads the answer from stdin:
// yes unless the answer starts with n; no when stdin has ended (a script).
func (a *app) ask(question string) bool {
	fmt.Fprint(a.stderr, question)
	if a.answers == nil {
		a.answers = bufio.NewReader(a.stdin)
	}
	line, err := a.answers.ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(a.stderr)
		return false
	}
	return !strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "n")
}

func samePlan(a, b []todo.Item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
