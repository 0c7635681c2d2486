package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/durabletodos/agenttodos/sessionlog"
	"github.com/durabletodos/agenttodos/todo"
)

// timeLayout shows history times in the reader's zone, to the second.
const timeLayout = "2006-01-02 15:04:05"

// renderSnapshot is one entry of `client history`: a line `#seq  time
// kind:id by writer  counts`, then what the snapshot changed, one line per
// item, changelog style (`✓ Run the tests — by alice, seq 14`); verbose adds
// the whole list. A snapshot whose predecessor is no longer kept (or that
// an older worker sent) has no change to show.
func renderSnapshot(s todo.Snapshot, t terminal, verbose bool) string {
	p := palette(t.color)
	var b strings.Builder
	source := writeSourceText(s.Source)
	fmt.Fprintf(&b, "%s  %s  %s  %s\n", p.paint(styleBold, "#"+strconv.FormatInt(s.Seq, 10)),
		p.paint(styleDim, s.At.Local().Format(timeLayout)), oneLine(source), countsText(s.Counts, p))
	if s.Change != nil {
		suffix := p.paint(styleDim, " — by "+oneLine(s.Source.Writer())+", seq "+strconv.FormatInt(s.Seq, 10))
		lines := changeLines(*s.Change, suffix, p)
		if len(lines) == 0 {
			lines = []string{p.paint(styleDim, "= no change") + suffix}
		}
		for _, l := range lines {
			fmt.Fprintln(&b, "  "+l)
		}
	}
	if verbose {
		for _, it := range s.Todos {
			fmt.Fprintln(&b, itemLine("    ", it, p, t.width))
		}
	}
	return b.String()
}

// writeSourceText is sourceText with the writer and note, when known:
// `edit:u-1 by alice "why"`.
func writeSourceText(s todo.Source) string {
	text := sourceText(s)
	if s.By != "" {
		text += " by " + s.By
	}
	if s.Note != "" {
		text += " " + strconv.Quote(s.Note)
	}
	return text
}

func sourceText(s todo.Source) string {
	if s.ID == "" {
		return string(s.Kind)
	}
	return string(s.Kind) + ":" + s.ID
}

// logTypeWidth aligns summaries after the longest event type.
const logTypeWidth = len(sessionlog.AssistantMessage)

// renderEvent is one line of `client log`, `#seq type summary`, cut to the
// terminal width unless verbose; verbose also lists a written plan's items.
func renderEvent(ev sessionlog.Event, t terminal, verbose bool) string {
	p := palette(t.color)
	seq := "#" + strconv.FormatInt(ev.Seq, 10)
	typ := string(ev.Type)
	// The summary is made plain, cleaned and cut before any colour is added,
	// so neither cleaning nor cutting can break an escape sequence.
	summary, items := eventSummary(ev)
	summary = oneLine(summary)
	if t.width > 0 && !verbose {
		summary = truncate(summary, t.width-len(seq)-1-logTypeWidth-2)
	}
	if ev.Type == sessionlog.NotifyGivenUp {
		// Somebody did not hear of a change, and will not: the line to see.
		summary = p.paint(styleRed, summary)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s%*s%s\n", p.paint(styleBold, seq), p.paint(eventStyle(ev.Type), typ), max(0, logTypeWidth-len(typ))+2, "", summary)
	if verbose {
		for _, it := range items {
			fmt.Fprintln(&b, itemLine("    ", it, p, 0))
		}
	}
	return b.String()
}

func eventStyle(t sessionlog.Type) string {
	switch t {
	case sessionlog.UserMessage:
		return styleCyan
	case sessionlog.AssistantMessage:
		return styleGreen
	case sessionlog.ToolCall, sessionlog.ToolResult:
		return styleMagenta
	case sessionlog.TodoRejected, sessionlog.UserRejected, sessionlog.TurnFailed, sessionlog.NotifyGivenUp:
		return styleRed
	case sessionlog.NotifyDelivered:
		return styleCyan
	case sessionlog.TodoWrite:
		return styleYellow
	}
	return styleDim
}

// eventSummary says what an event holds in a few words, and the items of a
// plan it carries. Data that does not decode as its type expects (a newer
// worker, say) is shown raw rather than hidden.
func eventSummary(ev sessionlog.Event) (string, []todo.Item) {
	switch ev.Type {
	case sessionlog.UserMessage, sessionlog.TurnFailed:
		var d sessionlog.MessageData
		if json.Unmarshal(ev.Data, &d) == nil {
			return d.Text, nil
		}
	case sessionlog.AssistantMessage:
		var d sessionlog.AssistantData
		if json.Unmarshal(ev.Data, &d) == nil {
			return assistantSummary(d), nil
		}
	case sessionlog.ToolCall:
		var d sessionlog.ToolCallData
		if json.Unmarshal(ev.Data, &d) == nil {
			return d.Name + " " + d.Arguments, nil
		}
	case sessionlog.ToolResult:
		var d sessionlog.ToolResultData
		if json.Unmarshal(ev.Data, &d) == nil {
			return d.Content, nil
		}
	case sessionlog.TodoWrite:
		var d sessionlog.TodoWriteData
		if json.Unmarshal(ev.Data, &d) == nil {
			return writeSourceText(d.Source) + " · " + countsText(todo.CountOf(d.Todos), false), d.Todos
		}
	case sessionlog.TodoRejected:
		var d sessionlog.TodoRejectedData
		if json.Unmarshal(ev.Data, &d) == nil {
			return writeSourceText(d.Source) + " · " + "Error: " + d.Error, nil
		}
	case sessionlog.UserRejected:
		var d sessionlog.UserRejectedData
		if json.Unmarshal(ev.Data, &d) == nil {
			return "Error: " + d.Error, nil
		}
	case sessionlog.NotifyDelivered:
		var d sessionlog.NotifyData
		if json.Unmarshal(ev.Data, &d) == nil {
			return fmt.Sprintf("→ %s · seq %d delivered (attempt %d, %d)", d.Subscriber, d.Seq, d.Attempts, d.Status), nil
		}
	case sessionlog.NotifyGivenUp:
		var d sessionlog.NotifyData
		if json.Unmarshal(ev.Data, &d) == nil {
			return fmt.Sprintf("→ %s · seq %d given up: %s", d.Subscriber, d.Seq, d.Error), nil
		}
	case sessionlog.TodoReminder:
		var d sessionlog.TodoReminderData
		if json.Unmarshal(ev.Data, &d) == nil {
			return string(d.Reason) + " · " + countsText(todo.CountOf(d.Todos), false), d.Todos
		}
	}
	return string(ev.Data), nil
}

func assistantSummary(d sessionlog.AssistantData) string {
	if len(d.ToolCalls) == 0 {
		return d.Content
	}
	names := make([]string, len(d.ToolCalls))
	for i, c := range d.ToolCalls {
		names[i] = c.Name
	}
	calls := "→ " + strings.Join(names, ", ")
	if d.Content == "" {
		return calls
	}
	return d.Content + " " + calls
}
