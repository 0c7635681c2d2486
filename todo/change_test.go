package todo

import (
	"encoding/json"
	"testing"
)

func items(pairs ...string) []Item {
	out := make([]Item, 0, len(pairs)/2)
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, Item{Content: pairs[i+1], Status: Status(pairs[i])})
	}
	return out
}

func TestDiff(t *testing.T) {
	p, ip, c := string(Pending), string(InProgress), string(Completed)
	cases := []struct {
		name          string
		before, after []Item
		want          string
	}{
		{"nothing", items(p, "A"), items(p, "A"), `{}`},
		{"first plan", nil, items(ip, "A", p, "B"),
			`{"added":[{"content":"A","status":"in_progress","index":0},{"content":"B","status":"pending","index":1}]}`},
		{"cleared", items(p, "A"), []Item{}, `{"removed":[{"content":"A","status":"pending","index":0}]}`},
		{"completed", items(ip, "A", p, "B"), items(c, "A", ip, "B"),
			`{"status":[{"content":"A","from":"in_progress","to":"completed"},{"content":"B","from":"pending","to":"in_progress"}]}`},
		{"renamed in place", items(p, "A", p, "B"), items(p, "A", ip, "B2"),
			`{"renamed":[{"from":"B","to":"B2","index":1}],"status":[{"content":"B2","from":"pending","to":"in_progress"}]}`},
		{"inserted, completed, swapped", items(ip, "A", p, "B", p, "C", p, "D"), items(ip, "A", p, "X", c, "B", p, "D", p, "C"),
			`{"added":[{"content":"X","status":"pending","index":1}],"status":[{"content":"B","from":"pending","to":"completed"}],"moved":[{"content":"C","from":2,"to":4}]}`},
		{"moved to the top", items(p, "A", p, "B", p, "C"), items(p, "C", p, "A", p, "B"),
			`{"moved":[{"content":"C","from":2,"to":0}]}`},
		{"removed one", items(p, "A", p, "B", p, "C"), items(p, "A", p, "C"),
			`{"removed":[{"content":"B","status":"pending","index":1}]}`},
	}
	for _, tc := range cases {
		got, _ := json.Marshal(Diff(tc.before, tc.after))
		if string(got) != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestDiffOfALongListIsQuick(t *testing.T) {
	var before, after []Item
	for i := range 500 {
		before = append(before, Item{Content: string(rune('a'+i%26)) + string(rune(0x4e00+i)), Status: Pending})
	}
	for i := range before {
		after = append(after, before[len(before)-1-i])
	}
	if c := Diff(before, after); len(c.Moved) != 499 {
		t.Fatalf("reversing 500 items moves %d", len(c.Moved))
	}
}
