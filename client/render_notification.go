package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/durabletodos/agenttodos/notify"
)

// renderNotification is one change as `webhook listen` prints it: a line
// saying which session, which seq, what kind of change and who made it, the
// change item by item as `client history` shows it, and the counts after.
// A repeat is one line: its change was printed the first time.
func renderNotification(n notify.Notification, t terminal, again bool) string {
	p := palette(t.color)
	head := p.paint(styleBold, oneLine(n.SessionID)+" · seq "+strconv.FormatInt(n.Seq, 10))
	if again {
		return head + p.paint(styleDim, " (again)") + "\n"
	}
	kinds := make([]string, len(n.Events))
	for i, k := range n.Events {
		kinds[i] = string(k)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s · %s · by %s\n", p.paint(styleDim, n.At.Local().Format(timeLayout)), head,
		p.paint(styleCyan, strings.Join(kinds, ", ")), oneLine(writerText(n.Source)))
	switch {
	case n.Change != nil:
		for _, l := range changeLines(*n.Change, "", p) {
			fmt.Fprintln(&b, "  "+l)
		}
	case n.ChangeTruncated:
		fmt.Fprintf(&b, "  %s\n", p.paint(styleDim, fmt.Sprintf("(too large to send: client diff %s %d %d)", oneLine(n.SessionID), n.PreviousSeq, n.Seq)))
	}
	fmt.Fprintln(&b, "  "+countsText(n.Counts, p))
	return b.String()
}
