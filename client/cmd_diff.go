package main

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/durabletodos/agenttodos/contract"
	"github.com/durabletodos/agenttodos/workflows"
)

func (a *app) diffCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "diff SESSION FROM [TO]",
		Short: "Show what changed in the plan between two seqs, and who changed it",
		Long: `Show what changed in the plan from seq FROM to seq TO (default: now), item by
item, and the writes in between. Any seq names the plan as it was then; 0 is
the empty plan before the first write.`,
		Example: `  client diff demo 4        # from seq 4 to now
  client diff demo 4 9`,
		Args: func(cmd *cobra.Command, args []string) error {
			if err := positional(true, "SESSION", "FROM")(cmd, args); err != nil {
				return err
			}
			if len(args) > 3 {
				return usageErrorf("unexpected argument %q", args[3])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var seqs [2]int64
			for i, s := range args[1:] {
				n, err := strconv.ParseUint(s, 10, 63)
				if err != nil {
					return usageErrorf("%q is not a seq (a number, as `client history` shows them)", s)
				}
				seqs[i] = int64(n)
			}
			var d workflows.DiffResult
			raw, err := a.query(cmd.Context(), args[0], contract.QueryTodoDiff, &d, workflows.DiffRequest{FromSeq: seqs[0], ToSeq: seqs[1]})
			if err != nil {
				return err
			}
			return a.out.result(strings.Join(diffText(d, palette(a.term.color)), "\n")+"\n", json.RawMessage(raw))
		},
	}
}

func (a *app) queryDiff(ctx context.Context, id string, from, to int64) (workflows.DiffResult, error) {
	var d workflows.DiffResult
	_, err := a.query(ctx, id, contract.QueryTodoDiff, &d, workflows.DiffRequest{FromSeq: from, ToSeq: to})
	return d, err
}

// diffText is a diff for people: a line saying between which seqs and who
// wrote in between, then one line per item changed.
func diffText(d workflows.DiffResult, p palette) []string {
	head := "Plan from seq " + strconv.FormatInt(d.FromSeq, 10) + " to seq " + strconv.FormatInt(d.ToSeq, 10)
	if n := len(d.Writes); n > 0 {
		who := make([]string, 0, n)
		for _, w := range d.Writes {
			who = append(who, oneLine(writerText(w.Source))+" at seq "+strconv.FormatInt(w.Seq, 10))
		}
		head += ", " + plural(n, "write") + ": " + strings.Join(who, "; ")
	}
	lines := []string{p.paint(styleBold, head)}
	for _, l := range changeLines(d.Change, "", p) {
		lines = append(lines, "  "+l)
	}
	if d.Change.Empty() {
		lines = append(lines, p.paint(styleDim, "  = no change"))
	}
	return lines
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
