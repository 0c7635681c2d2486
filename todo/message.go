package todo

import (
	"strconv"
	"strings"
)

// Message is the exact tool result the model sees after an accepted write.
func Message(c Counts) string {
	b := make([]byte, 0, 64)
	b = append(b, "Updated todo list: "...)
	b = strconv.AppendInt(b, int64(c.Pending), 10)
	b = append(b, " pending, "...)
	b = strconv.AppendInt(b, int64(c.InProgress), 10)
	b = append(b, " in progress, "...)
	b = strconv.AppendInt(b, int64(c.Completed), 10)
	b = append(b, " completed."...)
	return string(b)
}

// ErrorResult is the exact tool result the model sees after a rejected write.
func ErrorResult(err error) string { return "Error: " + ErrorMessage(err) }

// Marks shown for each status, in the terminal and the Temporal UI: the UI
// prints GFM task boxes literally, so the plan uses emoji.
func (s Status) Mark() string {
	switch s {
	case Completed:
		return "✅"
	case InProgress:
		return "🔄"
	default:
		return "⬜"
	}
}

// MaxDetailsBytes bounds the Temporal UI's current details, as encoded: the
// UI shows about this much, and the details travel with every workflow task
// that changes the plan.
const MaxDetailsBytes = 20 << 10

// maxDetailsItemBytes cuts one item's content in the details: a 4 KB line is
// unreadable there, and the todos query has it whole.
const maxDetailsItemBytes = 300

// Markdown renders the list as the Temporal UI's current details: a heading
// with counts, then one line per item, within MaxDetailsBytes (the rest is
// summed up in a "… n more" line). It says "2 of 3", not "2/3", which the UI
// typesets as a fraction, and it ends with a footer line because some UI
// versions drop the last line of the details.
func Markdown(items []Item, c Counts, seq int64) string {
	var b strings.Builder
	b.WriteString("### Plan: ")
	b.WriteString(strconv.Itoa(c.Completed))
	b.WriteString(" of ")
	b.WriteString(strconv.Itoa(c.Total()))
	b.WriteString(" completed\n\n")
	b.WriteString(strconv.Itoa(c.Pending))
	b.WriteString(" pending · ")
	b.WriteString(strconv.Itoa(c.InProgress))
	b.WriteString(" in progress · ")
	b.WriteString(strconv.Itoa(c.Completed))
	b.WriteString(" completed\n\n")
	if len(items) == 0 {
		b.WriteString("_No todos yet._\n")
	}
	// Room for the "… more" line and the footer.
	const reserve = 160
	size := EncodedStringSize(b.String())
	for i, it := range items {
		line := markdownLine(it)
		n := EncodedStringSize(line)
		if size+n > MaxDetailsBytes-reserve {
			b.WriteString("- … and ")
			b.WriteString(strconv.Itoa(len(items) - i))
			b.WriteString(" more (the `todos` query has the whole list)\n")
			break
		}
		b.WriteString(line)
		size += n
	}
	b.WriteString("\n_Last write: seq ")
	b.WriteString(strconv.FormatInt(seq, 10))
	b.WriteString("_\n")
	return b.String()
}

func markdownLine(it Item) string {
	content := it.Content
	if len(content) > maxDetailsItemBytes {
		content = strings.ToValidUTF8(content[:maxDetailsItemBytes], "") + "…"
	}
	content = escapeMarkdown(content)
	switch it.Status {
	case Completed:
		content = "~~" + content + "~~"
	case InProgress:
		content = "**" + content + "**"
	}
	return "- " + it.Status.Mark() + " " + content + "\n"
}

var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "*", `\*`, "_", `\_`, "~", `\~`, "`", "\\`", "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "#", `\#`, "\n", " ", "\r", " ",
)

// escapeMarkdown keeps model-written content from turning into markup, links
// or HTML in the UI.
func escapeMarkdown(s string) string { return markdownEscaper.Replace(s) }
