package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/durabletodos/agenttodos/todo"
)

// itemAttempts bounds how often an item command reads the plan again after
// a conflict: each attempt is a fresh read-modify-write.
const itemAttempts = 5

// itemChange changes one plan into the next; it fails when the item it
// names is not in the plan it is given.
type itemChange func(items []todo.Item) ([]todo.Item, error)

func (a *app) itemCommand() *cobra.Command {
	var note string
	cmd := &cobra.Command{
		Use:   "item",
		Short: "Add, start, complete, remove or move one item (conflict-checked, retried)",
		Long: `Change one item of the plan. Each command reads the plan, changes the item and
writes the plan back with todo_edit; when someone else wrote in between, it
reads the plan again and retries, so a script never overwrites a change it did
not see. ITEM is a number (1 is the first item, as "client todos" lists them)
or text: the item's exact content, or a part of it that only one item has.`,
		Example: `  client item add demo "Update the changelog" --at 3
  client item start demo 2
  client item complete demo "Run the tests"
  client item move demo tests 1 -m "tests first"
  client item remove demo changelog`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cmd.SetOut(a.stderr)
			cmd.Help()
			return &exitError{code: 2}
		},
	}
	cmd.PersistentFlags().StringVarP(&note, "note", "m", "", "why you change the plan (`TEXT`, at most 1024 bytes); recorded with it and told to the agent")

	var at int
	var status string
	add := &cobra.Command{
		Use:   "add SESSION TEXT...",
		Short: "Add an item (at the end, or at --at N)",
		Args:  positional(true, "SESSION", "TEXT"),
		RunE: func(cmd *cobra.Command, args []string) error {
			content := strings.Join(args[1:], " ")
			s, ok := statusAliases[strings.ToLower(status)]
			if !ok {
				return usageErrorf("--status %q: use pending (p), in_progress (ip, doing) or completed (c, done)", status)
			}
			return a.changeItem(cmd.Context(), args[0], note, func(items []todo.Item) ([]todo.Item, error) {
				pos := len(items)
				if at > 0 {
					pos = min(at-1, len(items))
				}
				return slices.Insert(slices.Clone(items), pos, todo.Item{Content: content, Status: s}), nil
			})
		},
	}
	add.Flags().IntVar(&at, "at", 0, "put it at position `N` (1: first; default: last)")
	add.Flags().StringVar(&status, "status", "pending", "its `STATUS`: pending, in_progress or completed")

	mark := func(use, short string, to todo.Status) *cobra.Command {
		return &cobra.Command{
			Use: use + " SESSION ITEM...", Short: short,
			Args: positional(true, "SESSION", "ITEM"),
			RunE: func(cmd *cobra.Command, args []string) error {
				ref := strings.Join(args[1:], " ")
				return a.changeItem(cmd.Context(), args[0], note, onItem(ref, func(items []todo.Item, i int) []todo.Item {
					items[i].Status = to
					return items
				}))
			},
		}
	}
	remove := &cobra.Command{
		Use: "remove SESSION ITEM...", Short: "Remove an item",
		Args: positional(true, "SESSION", "ITEM"),
		RunE: func(cmd *cobra.Command, args []string) error {
			ref := strings.Join(args[1:], " ")
			return a.changeItem(cmd.Context(), args[0], note, onItem(ref, func(items []todo.Item, i int) []todo.Item {
				return slices.Delete(items, i, i+1)
			}))
		},
	}
	move := &cobra.Command{
		Use: "move SESSION ITEM POSITION", Short: "Move an item to POSITION (1: first)",
		Args: positional(false, "SESSION", "ITEM", "POSITION"),
		RunE: func(cmd *cobra.Command, args []string) error {
			to, err := strconv.Atoi(args[2])
			if err != nil || to < 1 {
				return usageErrorf("POSITION %q: want a number, 1 for the first place", args[2])
			}
			return a.changeItem(cmd.Context(), args[0], note, onItem(args[1], func(items []todo.Item, i int) []todo.Item {
				it := items[i]
				items = slices.Delete(items, i, i+1)
				return slices.Insert(items, min(to-1, len(items)), it)
			}))
		},
	}
	cmd.AddCommand(add, mark("start", "Mark an item in progress", todo.InProgress),
		mark("complete", "Mark an item completed", todo.Completed),
		mark("reopen", "Mark an item pending again", todo.Pending), remove, move)
	return cmd
}

// onItem is the change of the one item ref names: change gets a copy of the
// plan and that item's index.
func onItem(ref string, change func(items []todo.Item, i int) []todo.Item) itemChange {
	return func(items []todo.Item) ([]todo.Item, error) {
		i, err := findItem(items, ref)
		if err != nil {
			return nil, err
		}
		return change(slices.Clone(items), i), nil
	}
}

// changeItem is a conflict-checked read-modify-write: read the plan, change
// it, write it back as of the seq read; on a conflict, start again.
func (a *app) changeItem(ctx context.Context, id, note string, change itemChange) error {
	for attempt := 1; ; attempt++ {
		_, st, err := a.queryState(ctx, id)
		if err != nil {
			return err
		}
		items, err := change(st.Todos)
		if err != nil {
			return &exitError{code: 1, msg: "client: " + err.Error()}
		}
		data, res, err := a.edit(ctx, id, items, st.Seq, note)
		var conflict *conflictError
		if errors.As(err, &conflict) && attempt < itemAttempts {
			fmt.Fprintf(a.stderr, "The plan changed meanwhile (%s); reading it again.\n", conflict.msg)
			continue
		}
		if conflict != nil {
			return &exitError{code: 1, msg: "Error: " + conflict.msg}
		}
		if err != nil {
			return err
		}
		return a.printEdit(st.Todos, data, res)
	}
}

// findItem finds the item ref names: a number counted from 1, the exact
// content, or a part of the content (any case) that one item alone has.
func findItem(items []todo.Item, ref string) (int, error) {
	if n, err := strconv.Atoi(ref); err == nil {
		if n < 1 || n > len(items) {
			return 0, fmt.Errorf("no item %d: the plan has %s", n, plural(len(items), "item"))
		}
		return n - 1, nil
	}
	for i, it := range items {
		if it.Content == ref {
			return i, nil
		}
	}
	var found []int
	for i, it := range items {
		if strings.Contains(strings.ToLower(it.Content), strings.ToLower(ref)) {
			found = append(found, i)
		}
	}
	switch len(found) {
	case 0:
		return 0, fmt.Errorf("no item matches %q", ref)
	case 1:
		return found[0], nil
	}
	names := make([]string, len(found))
	for k, i := range found {
		names[k] = strconv.Itoa(i+1) + ". " + oneLine(items[i].Content)
	}
	return 0, fmt.Errorf("%q matches %d items (%s): give its number or more of its text", ref, len(found), strings.Join(names, "; "))
}
