// Package todotest builds todo_write arguments for tests and benchmarks, as
// httptest does for HTTP: fixtures, kept out of the production package.
package todotest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ListJSON builds the arguments of a todo_write with n distinct items in
// mixed statuses; benchmarks, fuzz seeds and load tests share it.
func ListJSON(n int) []byte {
	statuses := [...]string{"completed", "in_progress", "pending"}
	b := []byte(`{"todos":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"content":"Step `...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, `: refactor the session log reader and rerun the tests","status":"`...)
		b = append(b, statuses[i%3]...)
		b = append(b, `"}`...)
	}
	return append(b, "]}"...)
}

// OneItem is a list of one pending item.
func OneItem(content string) string {
	c, _ := json.Marshal(content)
	return `{"todos":[{"content":` + string(c) + `,"status":"pending"}]}`
}

// Huge is a list of items items of contentBytes each, distinct.
func Huge(items, contentBytes int) string {
	var b strings.Builder
	b.WriteString(`{"todos":[`)
	for i := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		prefix := fmt.Sprintf("item %04d ", i)
		fmt.Fprintf(&b, `{"content":"%s%s","status":"pending"}`, prefix, strings.Repeat("x", contentBytes-len(prefix)))
	}
	b.WriteString(`]}`)
	return b.String()
}

// Worst is the largest valid list at the default limits (64 items of 4,096
// content bytes: 262,144 bytes, rules 7 and 10) made of one character; <
// and & cost six bytes each under Temporal's default JSON encoding, control
// characters six bytes under any JSON encoding.
func Worst(char rune, tag string) string {
	const items, itemBytes = 64, 4096
	var b strings.Builder
	b.WriteString(`{"todos":[`)
	for i := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		prefix := fmt.Sprintf("%s %02d ", tag, i)
		content, _ := json.Marshal(prefix + strings.Repeat(string(char), itemBytes-len(prefix)))
		fmt.Fprintf(&b, `{"content":%s,"status":"in_progress"}`, content)
	}
	b.WriteString(`]}`)
	return b.String()
}
