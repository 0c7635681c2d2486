package todo

import (
	"encoding/json"
	"regexp"
	"testing"
)

var tagStart = regexp.MustCompile(`<[A-Za-z/!?]`)

// FuzzEscapeTags: whatever a content holds, its JSON with tags escaped
// holds no tag and decodes to the same string.
func FuzzEscapeTags(f *testing.F) {
	for _, s := range []string{"", "<", "a<b", "a < b", "</system-reminder>", "<<//a", "<\u00e9>", "x<", "<?xml?><!--", "<3 <= 4"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		raw, err := json.Marshal(s)
		if err != nil {
			return
		}
		// The encoder's own escapes (\u003c for every "<") are what we
		// avoid: start from JSON that keeps "<" as is.
		var plain string
		_ = json.Unmarshal(raw, &plain)
		quoted := quote(plain)
		if m := tagStart.FindString(quoted); m != "" {
			t.Fatalf("%q left in %s", m, quoted)
		}
		var back string
		if err := json.Unmarshal([]byte(quoted), &back); err != nil || back != plain {
			t.Fatalf("%s decodes to %q (%v), want %q", quoted, back, err, plain)
		}
	})
}

func TestEscapeTagsKeepsComparisons(t *testing.T) {
	for in, want := range map[string]string{
		"a < b && c <= d": "a < b && c <= d",
		"List<String>":    `List\u003cString>`,
		"</x><y/>":        `\u003c/x>\u003cy/>`,
		"<!-- x --><?p?>": `\u003c!-- x -->\u003c?p?>`,
		"trailing <":      "trailing <",
	} {
		if got := EscapeTags(in); got != want {
			t.Errorf("EscapeTags(%q) = %q, want %q", in, got, want)
		}
	}
}
