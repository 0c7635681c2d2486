package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/durabletodos/agenttodos/todo"
)

// The checklist marks of `client edit`, as Markdown task lists write them,
// with [~] for work in progress.
var checklistMarks = map[todo.Status]string{todo.Pending: "[ ]", todo.InProgress: "[~]", todo.Completed: "[x]"}

// checklistLine is one item as `- [x] content`. Content that one line
// cannot hold as it is (a newline, a control character, a leading quote or
// space, a trailing space) is written as a JSON string, so it comes back
// byte for byte.
func checklistLine(it todo.Item) string {
	c := it.Content
	if c != oneLine(c) || strings.ContainsAny(c, "\t") || strings.HasPrefix(c, `"`) || strings.TrimSpace(c) != c {
		b, _ := json.Marshal(c)
		c = string(b)
	}
	return "- " + checklistMarks[it.Status] + " " + c
}

// checklistHelp heads the file `client edit` opens.
const checklistHelp = `# One item a line, in order: "- [ ] pending", "- [~] in progress", "- [x] completed".
# Save and quit to write the plan back (a todo_edit: it applies only if nobody
# changed the plan meanwhile); quit without changes to leave it as it is.
# Lines starting with # are ignored; delete every item to clear the plan.
`

// renderChecklist is the plan as the file `client edit` opens.
func renderChecklist(id string, st todo.State) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Plan of session %s at seq %d.\n%s", oneLine(id), st.Seq, checklistHelp)
	for _, it := range st.Todos {
		b.WriteString(checklistLine(it) + "\n")
	}
	return b.String()
}

// renderOnTop is the file `client edit` re-opens after a conflict: the
// current plan to edit, and the person's own version below it as comments,
// to apply again on top.
func renderOnTop(id string, st todo.State, mine []todo.Item) string {
	var b strings.Builder
	b.WriteString(renderChecklist(id, st))
	b.WriteString("#\n# Your version, NOT applied (the plan changed meanwhile): make your change again above.\n")
	for _, it := range mine {
		b.WriteString("# " + checklistLine(it) + "\n")
	}
	return b.String()
}

// parseChecklist reads the edited file back. Blank lines and # comments are
// skipped; every other line must be a checklist item ("-" or "*", a mark,
// the content).
func parseChecklist(text string) ([]todo.Item, error) {
	items := []todo.Item{}
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		it, ok := parseChecklistLine(trimmed)
		if !ok {
			return nil, fmt.Errorf("line %d: %q is not a checklist item: write \"- [ ] text\", \"- [~] text\" or \"- [x] text\"", n+1, trimmed)
		}
		items = append(items, it)
	}
	return items, nil
}

func parseChecklistLine(line string) (todo.Item, bool) {
	if !strings.HasPrefix(line, "- [") && !strings.HasPrefix(line, "* [") || len(line) < 6 || line[4] != ']' {
		return todo.Item{}, false
	}
	var status todo.Status
	switch line[3] {
	case ' ':
		status = todo.Pending
	case '~':
		status = todo.InProgress
	case 'x', 'X':
		status = todo.Completed
	default:
		return todo.Item{}, false
	}
	content := strings.TrimPrefix(line[5:], " ")
	if strings.HasPrefix(content, `"`) {
		var s string
		if json.Unmarshal([]byte(content), &s) == nil {
			content = s
		}
	}
	return todo.Item{Content: content, Status: status}, true
}
