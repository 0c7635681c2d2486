package todo

import "strings"

// EscapeTags makes text that came from a list, a writer's name or a note
// unable to open or close a frame around it (the <system-reminder> the plan
// reaches the model in, or any tag a harness wraps messages in): each "<"
// that could start a tag (followed by a letter, "/", "!" or "?") becomes the
// JSON escape \u003c. Inside JSON strings, where every "<" of a list is,
// that is the same string to any JSON reader, so todo_write still takes the
// list back as is; "a < b" and "<=" stay as they are, for the model to read.
func EscapeTags(s string) string {
	i := strings.IndexByte(s, '<')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for ; i >= 0; i = strings.IndexByte(s, '<') {
		b.WriteString(s[:i])
		if i+1 < len(s) && opensTag(s[i+1]) {
			b.WriteString(`\u003c`)
		} else {
			b.WriteByte('<')
		}
		s = s[i+1:]
	}
	b.WriteString(s)
	return b.String()
}

func opensTag(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '!' || c == '?'
}
