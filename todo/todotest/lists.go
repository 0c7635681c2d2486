// Package todotest builds todo_write arguments for tests and benchmarks, as
// httptest does for HTTP: fixtures, kept out of the production package.
package todotest

import (
	"strconv"
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
